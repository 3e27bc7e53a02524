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

"""The servers and loaders VM groups of a run, from the config and flags.

GetConfig's work: the server and loader machine types go to their own
groups (PKB applies --machine_type to every group, this benchmark to the
servers only), VM counts come from flags, the config or the groups' shapes,
and the servers get the disk_spec of their data volume. Static VMs (own
machines) keep as many VMs as they list and the disks they declare.
"""

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker.configs import benchmark_config_spec

from perfkit_plugins.core.config import config_shape
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import sizing
from perfkit_plugins.shell import scylla_phases_flags as scylla_flags

FLAGS = flags.FLAGS

SERVERS = 'servers'
LOADERS = 'loaders'


def _Cloud(group):
  return group.get('cloud') or FLAGS.cloud


def _StaticCount(group, user_group, count_flag):
  """The VM count of a group of static VMs (own machines).

  The flag when given, else the user config's vm_count, else one VM per
  static VM: never the benchmark default's, which would make PKB provision
  cloud VMs next to the user's machines.
  """
  if count_flag.present and count_flag.value:
    return count_flag.value
  if user_group.get('vm_count'):
    return user_group['vm_count']
  return len(group['static_vms'])


def _SetMachineType(group, machine_type):
  for cloud_spec in group['vm_spec'].values():
    cloud_spec['machine_type'] = machine_type


def _RouteMachineTypeToServers(config):
  """Takes --machine_type for the servers only.

  PKB applies a present --machine_type to every VM group; the loaders must
  keep theirs. A value from the config's `flags:` (or a flag_matrix) is
  removed from them here; one from the command line is hidden while this
  benchmark's groups are decoded (ScyllaPhasesConfigSpec).

  Args:
    config: the merged benchmark config; modified.

  Returns:
    The machine type given, or None.
  """
  if not FLAGS['machine_type'].present:
    return None
  (config.get('flags') or {}).pop('machine_type', None)
  return FLAGS.machine_type


class ScyllaPhasesConfigSpec(benchmark_config_spec.BenchmarkConfigSpec):
  """PKB's benchmark config spec, with --machine_type for the servers only.

  GetConfig has put --machine_type into the servers' vm_spec. While this
  benchmark's groups are decoded the flag counts as absent, so PKB does not
  apply it to the loaders; afterwards it is present again for the other
  benchmarks of the same pkb.py run.
  """

  def _DecodeAndInit(self, component_full_name, config, decoders, flag_values):
    present = flag_values['machine_type'].present
    flag_values['machine_type'].present = 0
    try:
      super()._DecodeAndInit(component_full_name, config, decoders, flag_values)
    finally:
      flag_values['machine_type'].present = present


def _RequestedLocalSsds(cloud, vm_spec):
  """Local SSDs asked for at creation (GCE types without fixed SSDs)."""
  requested = vm_spec.get('num_local_ssds') or 0
  if cloud == 'GCP' and FLAGS['gce_num_local_ssds'].present:
    requested = FLAGS.gce_num_local_ssds
  return requested


def _ServerDiskSpecs(servers, selected_cloud):
  """The servers' per-cloud disk_spec (see local_disks.DataDiskSpec).

  Only the cloud this run uses must be valid; specs that cannot be built for
  the other clouds are left out.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag at fault.
  """
  specs = {}
  for cloud, vm_spec in servers['vm_spec'].items():
    try:
      specs[cloud] = local_disks.DataDiskSpec(
          cloud,
          vm_spec['machine_type'],
          scylla_flags.DATA_DISK.value,
          _RequestedLocalSsds(cloud, vm_spec),
          scylla_flags.NETWORK_DISK_GB.value,
          scylla_flags.ENGINE.value,
      )
    except settings_lib.SettingsError as e:
      if cloud == selected_cloud:
        raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e
  return specs


def _LoaderCount(servers, loaders, cloud):
  """--scylla_loader_count, the config's vm_count, or sized from shapes."""
  if scylla_flags.LOADER_COUNT.value:
    return scylla_flags.LOADER_COUNT.value
  if loaders.get('vm_count'):
    return loaders['vm_count']
  if servers.get('static_vms'):
    raise errors.Setup.InvalidFlagConfigurationError(
        '--scylla_loader_count: the servers are static VMs, whose size is'
        ' only known once they are reached, so loaders cannot be sized'
        ' before provisioning; give --scylla_loader_count (or the loaders'
        " group's vm_count)."
    )
  server_type = servers['vm_spec'][cloud]['machine_type']
  loader_type = loaders['vm_spec'][cloud]['machine_type']
  server_shape = machines.Shape(server_type)
  loader_shape = machines.Shape(loader_type)
  server_flag = (
      'machine_type'
      if FLAGS['machine_type'].present
      and not scylla_flags.SERVER_MACHINE_TYPE.value
      else 'scylla_server_machine_type'
  )
  for flag, machine_type, shape in (
      (server_flag, server_type, server_shape),
      ('scylla_loader_machine_type', loader_type, loader_shape),
  ):
    if not shape:
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--{flag}: unknown machine type {machine_type!r}, so loaders cannot'
          ' be sized from it; check the name or give --scylla_loader_count.'
      )
  return sizing.LoaderCount(
      servers['vm_count'], server_shape.vcpus, loader_shape.vcpus
  )


def _TypeSource(group_name, cloud, routed_type):
  """The flag (or config key) a group's machine type came from."""
  if group_name == SERVERS and scylla_flags.SERVER_MACHINE_TYPE.value:
    return '--scylla_server_machine_type'
  if group_name == SERVERS and routed_type:
    return '--machine_type'
  if group_name == LOADERS and scylla_flags.LOADER_MACHINE_TYPE.value:
    return '--scylla_loader_machine_type'
  return f'config key vm_groups.{group_name}.vm_spec.{cloud}.machine_type'


def _CheckCloudsAndTypes(config, routed_type):
  """Each provisioned group's cloud is supported and knows its type.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag or key.
  """
  for name in (SERVERS, LOADERS):
    group = config['vm_groups'][name]
    if group.get('static_vms'):
      continue
    cloud = _Cloud(group)
    problem = config_shape.CloudProblem(cloud)
    if problem:
      raise errors.Setup.InvalidFlagConfigurationError(f'--cloud: {problem}')
    machine_type = (group['vm_spec'].get(cloud) or {}).get('machine_type')
    problem = machine_type and machines.TypeProblem(machine_type, cloud)
    if problem:
      raise errors.Setup.InvalidFlagConfigurationError(
          f'{_TypeSource(name, cloud, routed_type)}: {problem}'
      )
    requested = _RequestedLocalSsds(cloud, group['vm_spec'].get(cloud) or {})
    data_disk = scylla_flags.DATA_DISK.value
    if name == SERVERS and requested and data_disk != 'local':
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--scylla_data_disk={data_disk}: the servers also ask'
          f' for {requested} local SSD(s) (--gce_num_local_ssds or'
          ' num_local_ssds), which would be paid for and never used; remove'
          ' them or use --scylla_data_disk=local'
      )


def CheckUserConfig(user_config):
  """Refuses a user config of the wrong shape before it is merged.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the config key.
  """
  try:
    config_shape.Check(user_config)
  except config_shape.ConfigError as e:
    raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e


def ApplyFlags(config, user_config):
  """Applies the server and loader flags to the merged config's groups.

  Args:
    config: the benchmark config merged with the user's; modified.
    user_config: the user's config, for the VM counts it gives.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: an unsupported cloud or an
      unknown machine type, naming the flag or key.
  """
  servers = config['vm_groups'][SERVERS]
  loaders = config['vm_groups'][LOADERS]
  user_groups = (user_config or {}).get('vm_groups') or {}
  routed_type = _RouteMachineTypeToServers(config)
  server_type = scylla_flags.SERVER_MACHINE_TYPE.value or routed_type
  if server_type:
    _SetMachineType(servers, server_type)
  if scylla_flags.LOADER_MACHINE_TYPE.value:
    _SetMachineType(loaders, scylla_flags.LOADER_MACHINE_TYPE.value)
  _CheckCloudsAndTypes(config, routed_type)
  if servers.get('static_vms'):
    servers['vm_count'] = _StaticCount(
        servers, user_groups.get(SERVERS) or {}, scylla_flags.SERVER_COUNT
    )
  elif scylla_flags.SERVER_COUNT.present or not servers.get('vm_count'):
    servers['vm_count'] = scylla_flags.SERVER_COUNT.value
  cloud = _Cloud(servers)
  if loaders.get('static_vms'):
    loaders['vm_count'] = _StaticCount(
        loaders, user_groups.get(LOADERS) or {}, scylla_flags.LOADER_COUNT
    )
  else:
    loaders['vm_count'] = _LoaderCount(servers, loaders, cloud)
  servers['disk_spec'] = (
      None if servers.get('static_vms') else _ServerDiskSpecs(servers, cloud)
  )
  if not FLAGS['disk_fs_type'].present:
    # PKB formats network disks and Cassandra's array; both databases want
    # XFS. (ScyllaDB's own array is formatted by scylla_raid_setup.)
    config['flags'] = dict(config.get('flags') or {}, disk_fs_type='xfs')
