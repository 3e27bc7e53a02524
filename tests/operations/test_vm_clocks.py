# Copyright 2026 perfkit-plugins Authors. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Clock offset measurement over fake VMs serving a real `date` output."""

import pytest

from perfkit_plugins.operations import vm_clocks
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import threads


def test_measure_clock_offset(testdata):
  vm = fake_vm.FakeVm('server-0')
  vm.Reply(r'^date \+%s\.%N$', testdata('clocks', 'date-s-N.txt'))
  ticks = iter([1795307100.0, 1795307100.4, 1795307101.0, 1795307101.2])
  offset = vm_clocks.MeasureClockOffset(
      vm, samples=2, clock=lambda: next(ticks)
  )
  assert vm.commands == ['date +%s.%N'] * 2
  assert offset.offset_s == pytest.approx(1795307211.574198596 - 1795307101.1)
  assert offset.uncertainty_s == pytest.approx(0.1)


def test_measure_clock_offsets(testdata):
  vms = [fake_vm.FakeVm('server-0'), fake_vm.FakeVm('loader-0')]
  for vm in vms:
    vm.Reply(r'^date ', testdata('clocks', 'date-s-N.txt'))
  offsets = vm_clocks.MeasureClockOffsets(
      vms, threads.RunThreaded, samples=3, clock=lambda: 1795307200
  )
  assert set(offsets) == {'server-0', 'loader-0'}
  assert offsets['loader-0'].offset_s == pytest.approx(11.574198596)
  assert all(len(vm.commands) == 3 for vm in vms)
