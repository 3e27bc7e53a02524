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

"""The controller asks all its loaders at once, never one after the other.

Real studies run 30 to 60 loaders: a command sent to each in turn costs a
round trip per loader (tests/perf/bench_run_scale.py measures it). Here
every fake loader's reply is a threads.Rendezvous: it returns only once
all the loaders wait in it together, so code that asks them in turn fails
(the first one waits alone until the rendezvous gives up), on any machine.
"""

import re

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.plan import plan
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import run_context
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import run_envs
from perfkit_plugins.testing import threads

LOADERS = 12


def Loaders(count=LOADERS):
  return [
      fake_vm.FakeVm(f'loader-{i}', f'10.0.1.{i}', num_cpus=32)
      for i in range(count)
  ]


def test_group_facts_ask_every_machine_at_once():
  loaders = Loaders()
  rendezvous = threads.Rendezvous(len(loaders))
  for vm in loaders:
    vm.Reply(
        '^' + re.escape(run_context.LSCPU_COMMAND) + '$',
        rendezvous.Reply(fake_vm.LscpuListing(32, 1)),
    )
  facts = run_context.GroupFacts(loaders, 'loader', threads.RunThreaded)
  assert facts['scylla_loader_node_vcpus'] == 32
  assert facts['scylla_loader_node_numa_nodes'] == 1
  assert all(vm.commands == [run_context.LSCPU_COMMAND] for vm in loaders)


def test_progress_reads_every_loader_at_once(lab):
  """Each progress poll reads all the loaders together.

  A loader read in turn would wait alone and be counted unknown (None).
  """
  settings = settings_lib.Validate(
      settings_lib.Settings(
          phases=('populate',), num_keys=1200000, loader_count=LOADERS
      )
  )
  (step,) = [
      s
      for s in plan.PlanRun(settings, ['10.0.0.1'], 1 << 30, '/cs', '/r')
      if s.name == 'populate'
  ]
  loaders = Loaders()
  lines = lab('cs-write-n200k-seq-t50-hdr.txt').splitlines(keepends=True)
  header = next(i for i, line in enumerate(lines) if line.startswith('type '))
  # The run at its 5.0 s line: 89,186 operations, 32,856 op/s.
  progress = ''.join([lines[header]] + lines[header + 1 : header + 6])
  rendezvous = threads.Rendezvous(len(loaders))
  for vm in loaders:
    vm.Reply(r'^\{ grep -m 1', rendezvous.Reply(progress))
  running = phase_runner._StepRun(  # pylint: disable=protected-access
      step, run_envs.Make(settings=settings, loaders=loaders), 5, 60
  )
  rates = running.Poll()
  assert rates == [(32856.0, 89186)] * LOADERS
