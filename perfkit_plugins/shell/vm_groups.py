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
servers only), and so do the local SSDs requested with --gce_num_local_ssds;
VM counts come from flags, the config or the groups' vCPUs, and the servers
get the disk_spec of their data volume. Local SSD counts are checked against
PKB's own tables (read here, at run time) and GCE's allowed counts before any
VM exists. Static VMs (own machines) keep as many VMs as they list and the
disks they declare.
"""

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker.configs import benchmark_config_spec
from perfkitbenchmarker.providers.aws import aws_disk
from perfkitbenchmarker.providers.gcp import gce_disk

from perfkit_plugins.core.config import config_shape
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import sizing
from perfkit_plugins.shell import scylla_phases_flags as scylla_flags

FLAGS = flags.FLAGS

SERVERS = 'servers'
LOADERS = 'loaders'
# PKB flags this benchmark applies to the servers group only.
_SERVER_ONLY_FLAGS = ('machine_type', 'gce_num_local_ssds')
_LOCAL_SSDS_FLAG = 'gce_num_local_ssds'


def PkbTables():
  """PKB's own tables of the local disks its machine types come with."""
  return local_disks.PkbTables(
      gce_fixed=dict(gce_disk.FIXED_SSD_MACHINE_TYPES),
      aws_volumes=dict(aws_disk.NUM_LOCAL_VOLUMES),
      aws_hdd_families=frozenset(aws_disk.LOCAL_HDD_PREFIXES),
      aws_non_nvme_families=frozenset(aws_disk.NON_LOCAL_NVME_TYPES),
  )


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


def _RouteLocalSsdsToServers(config):
  """Takes --gce_num_local_ssds for the servers only.

  PKB gives every GCE VM group the local SSDs of a present
  --gce_num_local_ssds: every loader would get them too, paid for and never
  used, or refused by GCE for the loaders' type after the first VMs exist
  (24 on c2-standard-30, which takes 4 or 8). As with --machine_type, a
  value from the config's `flags:` is removed from them and one from the
  command line is hidden while the groups are decoded; the servers' GCP
  vm_spec gets it as num_local_ssds.

  Args:
    config: the merged benchmark config; modified.
  """
  if not FLAGS[_LOCAL_SSDS_FLAG].present:
    return
  (config.get('flags') or {}).pop(_LOCAL_SSDS_FLAG, None)
  servers = config['vm_groups'][SERVERS]
  gcp = servers.get('vm_spec', {}).get('GCP')
  if gcp is not None and not servers.get('static_vms'):
    gcp['num_local_ssds'] = FLAGS.gce_num_local_ssds


class ScyllaPhasesConfigSpec(benchmark_config_spec.BenchmarkConfigSpec):
  """PKB's benchmark config spec, with server flags for the servers only.

  GetConfig has put --machine_type and --gce_num_local_ssds into the
  servers' vm_spec. While this benchmark's groups are decoded the flags
  count as absent, so PKB does not apply them to the loaders; afterwards
  they are present again for the other benchmarks of the same pkb.py run.
  """

  def _DecodeAndInit(self, component_full_name, config, decoders, flag_values):
    present = {name: flag_values[name].present for name in _SERVER_ONLY_FLAGS}
    for name in _SERVER_ONLY_FLAGS:
      flag_values[name].present = 0
    try:
      super()._DecodeAndInit(component_full_name, config, decoders, flag_values)
    finally:
      for name, was in present.items():
        flag_values[name].present = was


def _RequestedLocalSsds(vm_spec):
  """Local SSDs asked for at creation (GCE types without fixed SSDs).

  The servers' vm_spec holds --gce_num_local_ssds by now
  (_RouteLocalSsdsToServers).
  """
  return vm_spec.get('num_local_ssds') or 0


def _ServerDiskSpecs(servers, selected_cloud):
  """The servers' per-cloud disk_spec (see local_disks.DataDiskSpec).

  Only the cloud this run uses must be valid; specs that cannot be built for
  the other clouds are left out.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag at fault.
  """
  specs = {}
  tables = PkbTables()
  for cloud, vm_spec in servers['vm_spec'].items():
    try:
      specs[cloud] = local_disks.DataDiskSpec(
          tables,
          cloud,
          vm_spec['machine_type'],
          scylla_flags.DATA_DISK.value,
          _RequestedLocalSsds(vm_spec),
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
  server_flag = (
      'machine_type'
      if FLAGS['machine_type'].present
      and not scylla_flags.SERVER_MACHINE_TYPE.value
      else 'scylla_server_machine_type'
  )
  vcpus = {}
  for flag, machine_type in (
      (server_flag, server_type),
      ('scylla_loader_machine_type', loader_type),
  ):
    vcpus[machine_type] = machines.Vcpus(machine_type)
    if not vcpus[machine_type]:
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--{flag}: the vCPUs of {machine_type!r} are unknown (not in the'
          " benchmark's table, and its name does not carry them), so loaders"
          ' cannot be sized from it; check the name or give'
          ' --scylla_loader_count.'
      )
  return sizing.LoaderCount(
      servers['vm_count'], vcpus[server_type], vcpus[loader_type]
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
    _CheckLocalSsdRequest(name, group, cloud, machine_type)


def _RequestSource(group_name, cloud):
  """The flag (with its value) or config key a group's SSD request came from."""
  if group_name == SERVERS and FLAGS[_LOCAL_SSDS_FLAG].present:
    return f'--{_LOCAL_SSDS_FLAG}={FLAGS[_LOCAL_SSDS_FLAG].value}'
  return f'config key vm_groups.{group_name}.vm_spec.{cloud}.num_local_ssds'


def _CheckLocalSsdRequest(group_name, group, cloud, machine_type):
  """A group's requested local SSDs are used and are a count GCE gives.

  GCE refuses a count its table does not allow only when it creates that
  VM, after PKB has created the loaders; servers asking for SSDs a network
  data disk leaves unused would be paid for all the same.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag or key.
  """
  source = _RequestSource(group_name, cloud)
  if cloud == 'GCP' or group_name != SERVERS:
    requested = _RequestedLocalSsds(group['vm_spec'].get(cloud) or {})
  else:
    # PKB applies the flag to GCE VMs only: on another cloud it does nothing.
    requested = FLAGS[_LOCAL_SSDS_FLAG].present and FLAGS.gce_num_local_ssds
  if not requested:
    return
  data_disk = scylla_flags.DATA_DISK.value
  if group_name == SERVERS and data_disk != 'local':
    raise errors.Setup.InvalidFlagConfigurationError(
        f'--scylla_data_disk={data_disk}: the servers also ask'
        f' for {requested} local SSD(s) ({source}), which would'
        ' be paid for and never used; remove them or use'
        ' --scylla_data_disk=local'
    )
  problem = machine_type and local_disks.RequestProblem(
      PkbTables(), cloud, machine_type, requested
  )
  if problem:
    raise errors.Setup.InvalidFlagConfigurationError(f'{source}: {problem}')


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
  _RouteLocalSsdsToServers(config)
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
