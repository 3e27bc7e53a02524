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

"""Configs of own machines (PKB static VMs) as pkb.py decodes them.

GetConfig, PKB's config spec and CheckPrerequisites on static VM groups:
counts follow the lists, the data directory follows the servers'
disk_specs, types and prices are only what the user gives, and what PKB
would get wrong is refused before anything runs. Needs a PKB checkout.
"""

import pytest

from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import pkb  # Defines every flag pkb.py has.
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as bm
from perfkit_plugins.shell import run_settings

# pylint: enable=g-import-not-at-top,wrong-import-position,g-bad-import-order

FLAGS = flags.FLAGS
del pkb


def _Vm(address, port=22, mount_point=None):
  vm = {
      'ip_address': address,
      'user_name': 'perfkit',
      'ssh_private_key': '/home/perfkit/.ssh/id_ed25519',
      'ssh_port': port,
      'os_type': 'debian12',
  }
  if mount_point:
    vm['disk_specs'] = [{'mount_point': mount_point}]
  return vm


def _Config(servers, loaders, groups=None):
  """A user config; groups: more keys per group, e.g. a vm_count."""
  groups = groups or {}
  return {
      'vm_groups': {
          'servers': {'static_vms': servers, **groups.get('servers', {})},
          'loaders': {'static_vms': loaders, **groups.get('loaders', {})},
      }
  }


def _Decode(user_config, *args):
  """(settings, config spec) as pkb.py decodes them, or raises."""
  with flagsaver.flagsaver():
    FLAGS(['pkb.py', '--scylla_engine=cassandra', *args])
    config = bm.GetConfig(user_config)
    spec = bm.BENCHMARK_CONFIG_SPEC_CLASS(
        bm.BENCHMARK_NAME, flag_values=FLAGS, **config
    )
    with spec.RedirectFlags(FLAGS):
      bm.CheckPrerequisites(spec)
      return run_settings.SettingsFromConfig(spec), spec


SERVERS = [_Vm(f'10.1.0.{i}', mount_point='/data') for i in (1, 2, 3)]
LOADERS = [_Vm('10.1.0.21'), _Vm('10.1.0.22')]


def test_counts_data_directory_type_and_price_come_from_the_machines():
  settings, spec = _Decode(_Config(SERVERS, LOADERS))
  assert (settings.server_count, settings.loader_count) == (3, 2)
  assert spec.vm_groups['servers'].vm_count == 3
  assert spec.vm_groups['servers'].disk_spec is None
  assert (settings.data_disk, settings.data_dir) == ('declared', '/data')
  assert settings.servers_static and settings.loaders_static
  # The config's cloud types are not what the machines are.
  assert (settings.server_machine_type, settings.loader_machine_type) == (
      '',
      '',
  )
  labelled, _ = _Decode(
      _Config(SERVERS, LOADERS),
      '--scylla_server_machine_type=z3-highmem-88',
  )
  assert labelled.server_machine_type == 'z3-highmem-88'


def test_static_servers_with_cloud_loaders_need_a_loader_count():
  with pytest.raises(
      errors.Setup.InvalidFlagConfigurationError,
      match='--scylla_loader_count: the servers are static VMs',
  ):
    bm.GetConfig({'vm_groups': {'servers': {'static_vms': SERVERS}}})


@pytest.mark.parametrize(
    'args,groups,flag',
    [
        (('--scylla_server_count=4',), {}, '--scylla_server_count'),
        ((), {'loaders': {'vm_count': 3}}, '--scylla_loader_count'),
    ],
)
def test_more_vms_than_listed_are_refused(args, groups, flag):
  with pytest.raises(errors.Setup.InvalidFlagConfigurationError) as raised:
    _Decode(_Config(SERVERS, LOADERS, groups), *args)
  assert str(raised.value).startswith(f'{flag}: the ')
  assert 'PKB would provision the others in the cloud' in str(raised.value)


def test_servers_must_declare_one_data_directory():
  mixed = SERVERS[:2] + [_Vm('10.1.0.3', mount_point='/other')]
  for servers in (mixed, [_Vm('10.1.0.1')]):
    with pytest.raises(
        errors.Setup.InvalidFlagConfigurationError,
        match='--scylla_data_disk: the static VMs of the servers group',
    ):
      _Decode(_Config(servers, LOADERS))
  with pytest.raises(
      errors.Setup.InvalidFlagConfigurationError,
      match="--scylla_data_disk: 'local': the servers are static VMs",
  ):
    _Decode(_Config(SERVERS, LOADERS), '--scylla_data_disk=local')


def test_machines_sharing_an_address_need_their_own_ssh_connections():
  # A loader on a server's address (one machine in both groups, or two
  # containers behind one address) with another ssh port.
  loaders = [_Vm('10.1.0.1', port=2222), LOADERS[1]]
  with pytest.raises(
      errors.Setup.InvalidFlagConfigurationError,
      match='--ssh_reuse_connections: static VMs share addresses',
  ):
    _Decode(_Config(SERVERS, loaders))
  _Decode(_Config(SERVERS, loaders), '--ssh_control_path=/tmp/s/%h-%p')
  _Decode(_Config(SERVERS, loaders), '--nossh_reuse_connections')
