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

"""The benchmark readies a loader: quieted first, as the servers are.

The loader is a shell_vm machine (the real systemctl masks this host's
Debian unit files in the machine's own /etc); cassandra-stress's install
is left out. Needs a PKB checkout, as every *_pkb test.
"""

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.shell import package_settings
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.testing import shell_vm

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = [
    pytest.mark.pkb,
    pytest.mark.skipif(
        bool(shell_vm.SkipReason()), reason=shell_vm.SkipReason()
    ),
]

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as bm


def _Loader(tmp_path, settings):
  vm = shell_vm.ShellVm(
      tmp_path,
      name='loader-0',
      modules={'scylla_cassandra_stress': lambda vm: None},
  )
  vm.StandIn('systemctl', behaviour='systemctl', real='/usr/bin/systemctl')
  package_settings.AttachToVms(settings, [vm])
  return vm


def test_loaders_are_quieted_before_cassandra_stress_is_installed(tmp_path):
  """Apt's timers, snapd and the cloud's agent ran on the loaders during
  fixed-rate steps: only the servers were quieted."""
  units = scylla_config.QuietUnits('AWS')
  vm = _Loader(tmp_path, settings_lib.Settings(cloud='AWS'))
  bm._PrepareLoader(vm)
  masked = quiet_units.Masked(vm, units)
  assert 'apt-daily.timer' in masked
  assert vm.installed == ['scylla_cassandra_stress']
  vm.Close()


def test_own_loaders_are_left_as_they_are(tmp_path):
  vm = _Loader(tmp_path, settings_lib.Settings(loaders_static=True))
  bm._PrepareLoader(vm)
  assert quiet_units.Masked(vm, scylla_config.QuietUnits('')) == ()
  vm.Close()
