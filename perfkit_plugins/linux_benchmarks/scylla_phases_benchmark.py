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

"""ScyllaDB (or Apache Cassandra) multi-phase benchmark.

Populate -> compaction quiesce -> reads -> fixed-rate latency ladder -> reads
during writes -> mixed, on a `servers` group tuned the way ScyllaDB's own
tooling tunes production nodes (all local NVMe SSDs in one RAID0) and a
`loaders` group of cassandra-stress VMs. See the plugin's README and
docs/measurement.md for what is measured and why.

This module is the thin PKB shell: flags, config and conversion of results
into samples. The work lives in perfkit_plugins (operations and core).
"""

import functools
import json
import logging
import os
import re

from absl import flags
import blinker
from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import configs
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import events
from perfkitbenchmarker import publisher
from perfkitbenchmarker import sample
from perfkitbenchmarker import stages
from perfkitbenchmarker import vm_util
from perfkitbenchmarker.configs import benchmark_config_spec

from perfkit_plugins import clock_offsets
from perfkit_plugins import cluster
from perfkit_plugins import discovery
from perfkit_plugins import engines
from perfkit_plugins import machine_facts
from perfkit_plugins import phase_runner
from perfkit_plugins import raw_outputs
from perfkit_plugins import run_sequence
from perfkit_plugins import scylla_phases_flags
from perfkit_plugins import stress_install
from perfkit_plugins.core import config_shape
from perfkit_plugins.core import cost
from perfkit_plugins.core import local_disks
from perfkit_plugins.core import machines
from perfkit_plugins.core import plan
from perfkit_plugins.core import sample_rows
from perfkit_plugins.core import settings as settings_lib
from perfkit_plugins.core import settings_limits
from perfkit_plugins.core import sizing
from perfkit_plugins.core import stress_tools

FLAGS = flags.FLAGS

BENCHMARK_NAME = 'scylla_phases'
BENCHMARK_CONFIG = """
scylla_phases:
  description: >
    ScyllaDB multi-phase benchmark: populate, compaction quiesce, reads,
    fixed-rate latency, reads during writes and mixed, on tuned servers with
    all local NVMe SSDs in one RAID0, driven by several cassandra-stress
    loaders. Use --machine_type or --scylla_server_machine_type for the
    servers and --scylla_loader_machine_type for the loaders.
  vm_groups:
    servers:
      vm_spec:
        GCP:
          machine_type: z3-highmem-88
          zone: us-central1-a
          boot_disk_size: 50
        AWS:
          machine_type: i4i.4xlarge
          zone: us-east-1a
          boot_disk_size: 50
      disk_spec:
        GCP:
          disk_type: local
          num_striped_disks: 1
        AWS:
          disk_type: local
          num_striped_disks: 1
      vm_count: 3
    loaders:
      vm_spec:
        GCP:
          machine_type: n2-highcpu-32
          zone: us-central1-a
        AWS:
          machine_type: c6i.8xlarge
          zone: us-east-1a
      vm_count: null
"""

SERVERS = 'servers'
LOADERS = 'loaders'
# Where loaders write cassandra-stress outputs before they are pulled.
REMOTE_DIR = '/tmp/pkb/scylla_phases'
# In the run directory's scylla_phases/: every VM's clock minus the
# controller's and its uncertainty, measured before the first step.
CLOCK_OFFSETS_FILE = 'clock_offsets.json'
# In the same directory: what Cleanup did on each machine.
CLEANUP_FILE = 'cleanup.json'

# Observers can follow a run step by step (sender: BENCHMARK_NAME;
# kwargs: benchmark_spec, step and, when finished, outcome). Finished steps
# are also sent to PKB's events.record_event for its tracing.
STEP_STARTED = blinker.signal('scylla_phases.step_started')
STEP_FINISHED = blinker.signal('scylla_phases.step_finished')


def _RegisterResources():
  """Lets --benchmark_config_file and templates find the plugin's files."""
  for name in ('configs', 'data'):
    path = discovery.PluginDir(name)
    if not any(
        getattr(loader, 'path', None) == path
        for loader in data.DEFAULT_RESOURCE_LOADERS
    ):
      data.DEFAULT_RESOURCE_LOADERS.append(data.FileResourceLoader(path))


_RegisterResources()


def _Cloud(group):
  return group.get('cloud') or FLAGS.cloud


def _StaticCount(group, user_group, count_flag):
  """The VM count of a group of static VMs (own machines).

  The flag when given, else the user config's vm_count, else one VM per
  static VM: never the benchmark default's, which would make PKB provision
  cloud VMs next to the user's machines.
  """
  if FLAGS[count_flag].present and FLAGS[count_flag].value:
    return FLAGS[count_flag].value
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


BENCHMARK_CONFIG_SPEC_CLASS = ScyllaPhasesConfigSpec


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
          FLAGS.scylla_data_disk,
          _RequestedLocalSsds(cloud, vm_spec),
          FLAGS.scylla_network_disk_gb,
          FLAGS.scylla_engine,
      )
    except settings_lib.SettingsError as e:
      if cloud == selected_cloud:
        raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e
  return specs


def _LoaderCount(servers, loaders, cloud):
  """--scylla_loader_count, the config's vm_count, or sized from shapes."""
  if FLAGS.scylla_loader_count:
    return FLAGS.scylla_loader_count
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
      if FLAGS['machine_type'].present and not FLAGS.scylla_server_machine_type
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
  if group_name == SERVERS and FLAGS.scylla_server_machine_type:
    return '--scylla_server_machine_type'
  if group_name == SERVERS and routed_type:
    return '--machine_type'
  if group_name == LOADERS and FLAGS.scylla_loader_machine_type:
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
    if name == SERVERS and requested and FLAGS.scylla_data_disk != 'local':
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--scylla_data_disk={FLAGS.scylla_data_disk}: the servers also ask'
          f' for {requested} local SSD(s) (--gce_num_local_ssds or'
          ' num_local_ssds), which would be paid for and never used; remove'
          ' them or use --scylla_data_disk=local'
      )


def GetConfig(user_config):
  """Loads the config and applies the server/loader flags to its groups.

  Groups of static VMs (own machines) keep as many VMs as they list and no
  disk_spec of ours: PKB uses the disks each static VM declares.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: a config key of the wrong
      shape, an unsupported cloud or an unknown machine type, naming the
      flag or key.
  """
  try:
    config_shape.Check(user_config)
  except config_shape.ConfigError as e:
    raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e
  config = configs.LoadConfig(BENCHMARK_CONFIG, user_config, BENCHMARK_NAME)
  servers = config['vm_groups'][SERVERS]
  loaders = config['vm_groups'][LOADERS]
  user_groups = (user_config or {}).get('vm_groups') or {}
  routed_type = _RouteMachineTypeToServers(config)
  server_type = FLAGS.scylla_server_machine_type or routed_type
  if server_type:
    _SetMachineType(servers, server_type)
  if FLAGS.scylla_loader_machine_type:
    _SetMachineType(loaders, FLAGS.scylla_loader_machine_type)
  _CheckCloudsAndTypes(config, routed_type)
  if servers.get('static_vms'):
    servers['vm_count'] = _StaticCount(
        servers, user_groups.get(SERVERS) or {}, 'scylla_server_count'
    )
  elif FLAGS['scylla_server_count'].present or not servers.get('vm_count'):
    servers['vm_count'] = FLAGS.scylla_server_count
  cloud = _Cloud(servers)
  if loaders.get('static_vms'):
    loaders['vm_count'] = _StaticCount(
        loaders, user_groups.get(LOADERS) or {}, 'scylla_loader_count'
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
  return config


def _MachineType(group, label_flag):
  """The machine type a group's samples say its VMs are.

  The provisioned type; for static VMs (own machines) only the label the
  user gives (--scylla_*_machine_type, or --machine_type for the servers),
  else none: the config's cloud type is not what they are.
  """
  if not group.static_vms:
    return group.vm_spec.machine_type
  label = FLAGS[label_flag].value
  if not label and label_flag == 'scylla_server_machine_type':
    label = FLAGS.machine_type if FLAGS['machine_type'].present else ''
  return label or ''


def _DeclaredDataDir(servers):
  """The data directory the static servers declare (disk_specs mount_point).

  Raises:
    settings_lib.SettingsError: a static server declares none, or they
      declare different ones.
  """
  points = {
      spec.ip_address: spec.disk_specs[0].mount_point if spec.disk_specs else ''
      for spec in servers.static_vms
  }
  if not all(points.values()) or len(set(points.values())) != 1:
    raise settings_lib.SettingsError(
        'data_disk',
        'the static VMs of the servers group must each declare one data'
        ' disk, all at the same mount point (disk_specs: [{mount_point:'
        f' /path}}]); they declare {points}',
    )
  return next(iter(points.values()))


def SettingsFromConfig(benchmark_config):
  """Settings from flags and the decoded VM groups.

  Raises:
    settings_lib.SettingsError: naming the flag at fault.
  """
  servers = benchmark_config.vm_groups[SERVERS]
  loaders = benchmark_config.vm_groups[LOADERS]
  overrides = {}
  if servers.static_vms:
    overrides['data_dir'] = _DeclaredDataDir(servers)
    if not FLAGS['scylla_data_disk'].present:
      overrides['data_disk'] = 'declared'
  return scylla_phases_flags.SettingsFromFlags(
      FLAGS,
      cloud=servers.cloud,
      server_count=servers.vm_count,
      loader_count=loaders.vm_count,
      server_machine_type=_MachineType(servers, 'scylla_server_machine_type'),
      loader_machine_type=_MachineType(loaders, 'scylla_loader_machine_type'),
      servers_static=bool(servers.static_vms),
      loaders_static=bool(loaders.static_vms),
      **overrides,
  )


def _DecodedLocalSsdRequest(servers):
  """Local SSDs the decoded servers group asks for at creation (GCE n2...)."""
  return getattr(servers.vm_spec, 'num_local_ssds', 0) or 0


def LocalSsds(settings, servers):
  """Local SSDs of one server of the decoded servers group (0: network)."""
  if settings.data_disk != 'local':
    return 0
  return local_disks.LocalSsdCount(
      settings.cloud,
      settings.server_machine_type,
      _DecodedLocalSsdRequest(servers),
  )


def _DataVolume(settings, servers):
  """How the servers' data directory will be backed, as plain data."""
  if settings.data_disk == 'declared':
    return {'declared_by_static_vms': settings.data_dir}
  if settings.data_disk == 'network':
    return {
        'network_disk': servers.disk_spec.disk_type,
        'mount_point': local_disks.DATA_DIR,
    }
  return {
      'local_ssds': LocalSsds(settings, servers),
      'raid': (
          'RAID0 by PKB (mdadm), XFS'
          if settings.engine == 'cassandra'
          else 'RAID0 by scylla_raid_setup (1 MiB chunk, XFS, noatime)'
      ),
      'mount_point': local_disks.DATA_DIR,
  }


def _GroupSummary(group):
  """What PKB decoded for one VM group, as plain data."""
  disk = group.disk_spec
  if group.static_vms:
    return {
        'static_vms': [
            f'{spec.user_name}@{spec.ip_address}:{spec.ssh_port}'
            for spec in group.static_vms
        ],
        'vm_count': group.vm_count,
    }
  return {
      'cloud': group.cloud,
      'vm_count': group.vm_count,
      'machine_type': group.vm_spec.machine_type,
      'disk': (
          disk
          and {
              key: value
              for key, value in (
                  ('disk_type', disk.disk_type),
                  ('num_striped_disks', disk.num_striped_disks),
                  ('mount_point', disk.mount_point),
                  ('disk_size', disk.disk_size),
                  ('provisioned_iops', disk.provisioned_iops),
                  ('provisioned_throughput', disk.provisioned_throughput),
              )
              if value is not None
          }
      ),
  }


def ClusterRamBytes(settings, servers=()):
  """The cluster RAM the data set and read distributions are sized from.

  The machine type's nominal RAM when it is known, so the plan command, the
  checks before provisioning and the run all choose the same key count;
  otherwise (static VMs, unknown types) the memory the servers report.
  """
  shape = (
      None
      if settings.servers_static
      else machines.Shape(settings.server_machine_type)
  )
  if shape:
    return machines.ClusterRamBytes(shape, settings.server_count)
  return sum(vm.total_memory_kb for vm in servers) * 1024


def _PlanSteps(settings, server_ips, cluster_ram_bytes):
  stress_path, java_home = stress_install.StressLauncher(settings)
  return plan.PlanRun(
      settings,
      server_ips,
      cluster_ram_bytes,
      stress_path,
      REMOTE_DIR,
      java_home,
  )


def _CheckPkbDiskFlags(settings, servers):
  """Rejects PKB disk flags that would change the servers' data volume.

  PKB applies --num_striped_disks and --scratch_dir to every disk_spec; on
  the servers they would make PKB stripe the SSDs that scylla_raid_setup
  builds into its array, stripe only some of Cassandra's, or mount the data
  volume away from the data directory, and the run would fail (or measure
  the wrong volume) only after provisioning.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the PKB flag.
  """
  if settings.servers_static:
    return
  wanted = local_disks.DataDiskSpec(
      settings.cloud,
      settings.server_machine_type,
      settings.data_disk,
      _DecodedLocalSsdRequest(servers),
      settings.network_disk_gb,
      settings.engine,
  )
  volume = _DataVolume(settings, servers)
  for flag, decoded, expected in (
      (
          'num_striped_disks',
          servers.disk_spec.num_striped_disks,
          wanted.get('num_striped_disks', 1),
      ),
      ('scratch_dir', servers.disk_spec.mount_point, wanted.get('mount_point')),
  ):
    if FLAGS[flag].present and decoded != expected:
      raise errors.Setup.InvalidFlagConfigurationError(
          f"--{flag}={FLAGS[flag].value}: the benchmark decides the servers'"
          f' data volume ({json.dumps(volume)}); remove the flag.'
      )


def _CheckStaticGroups(benchmark_config):
  """Own machines are used alone and reached one by one.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: a group mixes static VMs
      with VMs PKB would provision, or two static VMs share an address but
      not an ssh port while PKB shares ssh connections per address.
  """
  addresses = {}
  for name in (SERVERS, LOADERS):
    group = benchmark_config.vm_groups[name]
    if not group.static_vms:
      continue
    if group.vm_count != len(group.static_vms):
      flag = 'scylla_server_count' if name == SERVERS else 'scylla_loader_count'
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--{flag}: the {name} group lists {len(group.static_vms)} static'
          f' VMs but asks for {group.vm_count} VMs; PKB would provision the'
          ' others in the cloud. Give as many as the group lists (or list'
          ' more static VMs).'
      )
    for spec in group.static_vms:
      addresses.setdefault(spec.ip_address, set()).add(spec.ssh_port)
  shared = {a: p for a, p in addresses.items() if len(p) > 1}
  if shared and FLAGS.ssh_reuse_connections and not FLAGS.ssh_control_path:
    raise errors.Setup.InvalidFlagConfigurationError(
        f'--ssh_reuse_connections: static VMs share addresses {shared} on'
        " different ssh ports, and PKB's shared ssh connections are keyed by"
        ' address only (ControlPath %h): commands for one would run on the'
        ' other. Give --ssh_control_path=<short dir>/%h-%p, or'
        ' --nossh_reuse_connections.'
    )


def _CheckDataToRead(settings):
  """Phases that read need data: populate, or a cluster that has it.

  Prepare leaves a cluster empty (it refuses a data directory that holds
  files unless --scylla_allow_existing_data), so a run that prepares and
  then reads without populating would measure reads of nothing.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming --scylla_phases.
  """
  reading = [p for p in settings.phases if p in settings_limits.READING_PHASES]
  if (
      reading
      and 'populate' not in settings.phases
      and stages.PREPARE in FLAGS.run_stage
      and not settings.allow_existing_data
  ):
    raise errors.Setup.InvalidFlagConfigurationError(
        f'--scylla_phases: {",".join(reading)} would read an empty cluster:'
        ' this run prepares it and does not populate it. Add populate, or'
        ' run the phases with --run_stage=run on a cluster a previous run'
        ' populated.'
    )


def CheckPrerequisites(benchmark_config):
  """Validates every setting before anything is provisioned.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag at fault.
  """
  _CheckStaticGroups(benchmark_config)
  try:
    settings = SettingsFromConfig(benchmark_config)
    # Bad key or rate splits fail here, before provisioning; own machines'
    # memory is only known once they are reached.
    ram = (
        machines.STAND_IN_RAM_PER_SERVER * settings.server_count
        if settings.servers_static
        else machines.Shape(settings.server_machine_type)
        and ClusterRamBytes(settings)
    )
    if ram:
      _PlanSteps(
          settings,
          [f'10.0.0.{i + 1}' for i in range(settings.server_count)],
          ram,
      )
  except settings_lib.SettingsError as e:
    raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e
  _CheckDataToRead(settings)
  _CheckPkbDiskFlags(settings, benchmark_config.vm_groups[SERVERS])
  summary = {
      name: _GroupSummary(benchmark_config.vm_groups[name])
      for name in (SERVERS, LOADERS)
  }
  summary[SERVERS]['data_volume'] = _DataVolume(
      settings, benchmark_config.vm_groups[SERVERS]
  )
  logging.info('scylla_phases decoded groups: %s', json.dumps(summary))
  logging.info('scylla_phases settings: %s', settings)


def _OutputDir(*parts):
  """A directory under this run's PKB run directory for raw outputs."""
  path = os.path.join(vm_util.GetTempDir(), BENCHMARK_NAME, *parts)
  os.makedirs(path, exist_ok=True)
  return path


def _Engine(settings, benchmark_config):
  """The engine for this run's servers (the run's id owns their data)."""
  return engines.ForSettings(
      settings,
      LocalSsds(settings, benchmark_config.vm_groups[SERVERS]),
      _OutputDir('setup'),
      owner=FLAGS.run_uri,
  )


def _PrepareLoader(vm):
  """Installs cassandra-stress and readies PKB's long-command helper.

  PKB installs RobustRemoteCommand's helper (python3 and two scripts) on a
  VM's first RobustRemoteCommand; doing it here keeps that out of the first
  step, whose loaders must all start together.
  """
  vm.Install('scylla_cassandra_stress')
  vm.RobustRemoteCommand('true')


def _AlwaysCallCleanup(benchmark_spec):
  """Makes pkb.py call Cleanup, also after a failed Prepare or Run.

  PKB calls a benchmark's Cleanup after a failed stage only when the spec
  asks for it (or with --always_call_cleanup); this module's Cleanup pulls
  the server logs and stops and cleans the database.
  """
  benchmark_spec.always_call_cleanup = True


def Prepare(benchmark_spec):
  """Installs, tunes and starts the database; installs the loaders."""
  _AlwaysCallCleanup(benchmark_spec)
  settings = SettingsFromConfig(benchmark_spec.config)
  servers = benchmark_spec.vm_groups[SERVERS]
  loaders = benchmark_spec.vm_groups[LOADERS]
  engine = _Engine(settings, benchmark_spec.config)
  # What a VM gets depends on its group, never on VM equality: PKB's static
  # VMs compare equal when they share an address and ssh port.
  background_tasks.RunThreaded(
      lambda task: task(),
      [functools.partial(engine.Install, vm) for vm in servers]
      + [functools.partial(_PrepareLoader, vm) for vm in loaders],
  )
  cluster.Configure(engine, servers, run_parallel=background_tasks.RunThreaded)
  benchmark_spec.scylla_data_volumes = dict(engine.volumes)
  cluster.Start(
      engine, servers, settings.bringup_timeout_s, _OutputDir('bringup_logs')
  )


def _Notifier(benchmark_spec):
  """Sends each step's start and end to observers (see STEP_STARTED)."""

  def Notify(event, step, outcome=None):
    if event == 'start':
      STEP_STARTED.send(
          BENCHMARK_NAME, benchmark_spec=benchmark_spec, step=step
      )
      return
    STEP_FINISHED.send(
        BENCHMARK_NAME,
        benchmark_spec=benchmark_spec,
        step=step,
        outcome=outcome,
    )
    events.record_event.send(
        BENCHMARK_NAME,
        event=f'{BENCHMARK_NAME}.{step.name}',
        start_timestamp=outcome.started_at,
        end_timestamp=outcome.ended_at,
        metadata={'scylla_status': outcome.status, 'scylla_phase': step.phase},
    )

  return Notify


def SampleOf(row):
  """A sample_rows.SampleRow as a PKB sample (what Run returns of it)."""
  if row.series:
    return sample.CreateTimeSeriesSample(
        list(row.series.values),
        list(row.series.timestamps_ms),
        row.metric,
        row.unit,
        row.series.interval_s,
        additional_metadata=dict(row.metadata),
    )
  return sample.Sample(row.metric, row.value, row.unit, dict(row.metadata))


def _RunContext(settings, engine, servers, loaders):
  """What every sample says about the cluster, read from the VMs.

  The servers' tuning and what they report of themselves, the version of
  cassandra-stress every loader reports (checked against the release asked
  for).
  """
  tuning, shards = engine.Tuning(servers)
  tuning = dict(tuning)
  tuning.update(machine_facts.ClusterFacts(servers, 'server'))
  tuning.update(machine_facts.ClusterFacts(loaders, 'loader'))
  tool = stress_tools.StressToolOf(settings)
  versions = background_tasks.RunThreaded(
      lambda vm: stress_install.CheckVersion(vm, tool), list(loaders)
  )
  tuning['scylla_stress_tool'] = tool.name
  tuning['scylla_stress_version'] = versions[0].version
  tuning.update({
      'scylla_stress_' + re.sub(r'\W', '_', name): version
      for name, version in versions[0].components.items()
  })
  return sample_rows.RunContext(
      engine=settings.engine,
      version=tuning.get('scylla_version', ''),
      servers=len(servers),
      server_machine_type=settings.server_machine_type,
      server_vcpus=sum(vm.num_cpus for vm in servers),
      shards=shards,
      server_price=cost.ServerPrice(settings, clock_offsets.UtcDate()),
      tuning=tuning,
  )


def _PublishBeforeFailing(benchmark_spec, samples):
  """Publishes what a failing Run measured, as pkb.py publishes Run's samples.

  pkb.py adds Run's samples to its collector only when Run returns: raising
  discards them, and no hook runs in the RUN stage after they are added. So
  a Run whose steps failed sends the signals pkb.py sends for them and hands
  them to PKB's own publishers (those the flags select, with PKB's default
  metadata; the JSON file is appended to), then raises: PKB records the
  failure on the RUN stage, exits non-zero and calls Cleanup.
  """
  events.benchmark_samples_created.send(
      benchmark_spec=benchmark_spec, samples=samples
  )
  events.all_samples_created.send(
      benchmark_spec=benchmark_spec, samples=samples
  )
  collector = publisher.SampleCollector()
  collector.AddSamples(samples, BENCHMARK_NAME, benchmark_spec)
  collector.PublishSamples()


def Run(benchmark_spec):
  """Runs the planned phases; returns every sample.

  A failing step stops the sequence (later steps get a phase_status of 0,
  not run); what was measured before it, and the failed step's
  phase_status with its error, are published and the RUN stage fails.

  Raises:
    errors.Benchmarks.RunError: a step failed or timed out; its samples,
      and those of the steps before it, were published.
  """
  _AlwaysCallCleanup(benchmark_spec)
  settings = SettingsFromConfig(benchmark_spec.config)
  servers = benchmark_spec.vm_groups[SERVERS]
  loaders = benchmark_spec.vm_groups[LOADERS]
  engine = _Engine(settings, benchmark_spec.config)
  engine.volumes.update(getattr(benchmark_spec, 'scylla_data_volumes', {}))
  measured = clock_offsets.MeasureClockOffsets(servers + loaders)
  raw_outputs.WriteJson(
      os.path.join(_OutputDir(), CLOCK_OFFSETS_FILE), measured
  )
  offsets = {name: offset.offset_s for name, offset in measured.items()}
  context = _RunContext(settings, engine, servers, loaders)
  steps = _PlanSteps(
      settings,
      [vm.internal_ip for vm in servers],
      ClusterRamBytes(settings, servers),
  )
  outcomes = run_sequence.RunSteps(
      steps,
      engine,
      servers,
      loaders,
      settings,
      _OutputDir('steps'),
      offsets,
      notify=_Notifier(benchmark_spec),
      run_threaded=background_tasks.RunThreaded,
  )
  samples = [
      SampleOf(row)
      for outcome in outcomes
      for row in run_sequence.OutcomeRows(outcome, context)
  ]
  failures = run_sequence.Failures(outcomes)
  if run_sequence.Interrupted(outcomes):
    # As pkb.py itself ends on SIGINT (Cleanup first), once the samples
    # measured so far are published.
    _PublishBeforeFailing(benchmark_spec, samples)
    raise KeyboardInterrupt('; '.join(failures))
  if failures:
    _PublishBeforeFailing(benchmark_spec, samples)
    raise errors.Benchmarks.RunError(
        'scylla_phases steps failed (the samples measured were published): '
        + '; '.join(failures)
    )
  return samples


def Cleanup(benchmark_spec):
  """Stops what runs on every machine and removes the data the run wrote.

  Pulls the servers' logs, stops the database and removes its data on every
  server, and kills what is left of cassandra-stress on every loader. Each
  machine's outcome goes to scylla_phases/CLEANUP_FILE; a machine that
  cannot be reached is reported there and fails the stage, after the
  others were cleaned. Runs once per spec: when it raises, pkb.py's error
  path calls it again, and that call leaves the first one's error to be
  reported.

  Raises:
    errors.Resource.CleanupError: a machine could not be cleaned.
  """
  if getattr(benchmark_spec, 'scylla_phases_cleaned_up', False):
    return
  benchmark_spec.scylla_phases_cleaned_up = True
  settings = SettingsFromConfig(benchmark_spec.config)
  servers = benchmark_spec.vm_groups[SERVERS]
  loaders = benchmark_spec.vm_groups[LOADERS]
  engine = _Engine(settings, benchmark_spec.config)
  cluster.PullLogs(engine, servers, _OutputDir('server_logs'))
  outcomes = {
      'servers': cluster.Stop(
          engine, servers, clean=True, run_parallel=background_tasks.RunThreaded
      ),
      'loaders': phase_runner.StopLoaders(
          loaders, REMOTE_DIR, background_tasks.RunThreaded
      ),
  }
  raw_outputs.WriteJson(os.path.join(_OutputDir(), CLEANUP_FILE), outcomes)
  failed = [
      f'{name}: {why}' for name, why in outcomes['servers'].items() if why
  ] + [
      f'{name}: {what}'
      for name, what in outcomes['loaders'].items()
      if what.startswith('unreachable')
  ]
  if failed:
    raise errors.Resource.CleanupError(
        'scylla_phases could not clean every machine: ' + '; '.join(failed)
    )
