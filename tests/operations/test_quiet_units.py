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

"""Masking the noisy units on a run's machines, in a real shell.

The machines are shell_vm machines: the real systemctl masks and reads back
this host's own unit files (a Debian 12 image's), in each machine's private
/etc; only `systemctl stop`, which needs systemd's manager, is a stand-in.
"""

import subprocess

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.operations import run_context
from perfkit_plugins.testing import run_envs
from perfkit_plugins.testing import shell_vm

pytestmark = pytest.mark.skipif(
    bool(shell_vm.SkipReason()), reason=shell_vm.SkipReason()
)


def _Loader(tmp_path, name):
  vm = shell_vm.ShellVm(tmp_path / name, name=name)
  vm.StandIn('systemctl', behaviour='systemctl', real='/usr/bin/systemctl')
  return vm


def test_the_units_present_are_stopped_and_masked(tmp_path):
  units = scylla_config.QuietUnits('AWS')
  present = shell_vm.HostUnits(units)
  assert 'apt-daily.timer' in present
  vm = _Loader(tmp_path, 'loader-0')
  assert quiet_units.Masked(vm, units) == ()
  assert quiet_units.Mask(vm, units) == present
  assert quiet_units.Masked(vm, units) == present
  stopped = [call[1] for call in vm.Calls('systemctl') if call[0] == 'stop']
  assert sorted(stopped) == list(present)
  # Masked in the machine's own /etc, not in this host's.
  assert vm.ReadFile('/etc/systemd/system/apt-daily.timer') == ''
  assert (
      subprocess.run(
          ['systemctl', 'is-enabled', 'apt-daily.timer'],
          capture_output=True,
          text=True,
          check=False,
      ).stdout.strip()
      != 'masked'
  )
  vm.Close()


def test_snapd_and_the_aws_agents_snap_are_on_the_list():
  """ScyllaDB's images purge snapd; on AWS's Ubuntu the SSM agent is a
  snap whose unit the image removes."""
  assert {'snapd.socket', 'snapd.service', 'snapd.snap-repair.timer'} <= set(
      scylla_config.QuietUnits('GCP')
  )
  assert scylla_config.QuietUnits('GCP').index('snapd.socket') < (
      scylla_config.QuietUnits('GCP').index('snapd.service')
  )
  assert 'snap.amazon-ssm-agent.amazon-ssm-agent.service' in (
      scylla_config.QuietUnits('AWS')
  )


def test_own_loaders_stay_as_they_are(tmp_path):
  vm = _Loader(tmp_path, 'loader-0')
  settings = settings_lib.Settings(loaders_static=True)
  assert quiet_units.QuietLoader(vm, settings) == ()
  assert vm.commands == []
  vm.Close()


def test_the_samples_say_what_is_masked_on_each_loader(tmp_path):
  """Read back in Run: each loader's masked units, one value when alike."""
  settings = settings_lib.Settings(cloud='GCP')
  loaders = [_Loader(tmp_path, f'loader-{i}') for i in range(2)]
  quiet_units.QuietLoader(loaders[0], settings)
  env = run_envs.Make(settings=settings, loaders=loaders)
  present = quiet_units.Metadata(
      shell_vm.HostUnits(scylla_config.QuietUnits('GCP'))
  )
  assert run_context.LoaderMaskedUnits(env) == {
      'loader-0': {'scylla_loader_masked_units': present},
      'loader-1': {'scylla_loader_masked_units': 'none'},
  }
  quiet_units.QuietLoader(loaders[1], settings)
  facts = run_context.GroupFacts(
      loaders, 'loader', env.run_threaded, run_context.LoaderMaskedUnits(env)
  )
  assert facts['scylla_loader_masked_units'] == present
  for vm in loaders:
    vm.Close()
