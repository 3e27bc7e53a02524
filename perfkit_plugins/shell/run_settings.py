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

"""The run's one Settings object, from the flags and the decoded VM groups.

Also what the shell derives from it and the groups: the run's environment
handed to the operations (Env), the servers' local SSDs (PKB's own count),
their data volume as plain data, the cluster RAM the data set is sized from
(what the servers report; before they exist, an estimate) and the planned
steps.
"""

import os
import posixpath

from absl import flags
from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker import vm_util

from perfkit_plugins import engines
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.operations import run_env
from perfkit_plugins.shell import scylla_phases_flags as scylla_flags
from perfkit_plugins.shell import vm_groups

# The benchmark's directory: in PKB's run directory on the controller, in
# PKB's remote scratch directory on the loaders (where cassandra-stress
# writes its outputs before they are pulled).
_DIR_NAME = 'scylla_phases'
REMOTE_DIR = posixpath.join(vm_util.VM_TMP_DIR, _DIR_NAME)
# The servers' set-up outputs, in the run's output directory.
SETUP_DIR = 'setup'

FLAGS = flags.FLAGS


def _MachineType(group, label_flag):
  """The machine type a group's samples say its VMs are.

  The provisioned type; for static VMs (own machines) only the label the
  user gives (--scylla_*_machine_type, or --machine_type for the servers),
  else none: the config's cloud type is not what they are.
  """
  if not group.static_vms:
    return group.vm_spec.machine_type
  label = label_flag.value
  if not label and label_flag is scylla_flags.SERVER_MACHINE_TYPE:
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
  servers = benchmark_config.vm_groups[vm_groups.SERVERS]
  loaders = benchmark_config.vm_groups[vm_groups.LOADERS]
  overrides = {}
  if servers.static_vms:
    overrides['data_dir'] = _DeclaredDataDir(servers)
    if not scylla_flags.DATA_DISK.present:
      overrides['data_disk'] = 'declared'
  return scylla_flags.SettingsFromFlags(
      cloud=servers.cloud,
      server_count=servers.vm_count,
      loader_count=loaders.vm_count,
      server_machine_type=_MachineType(
          servers, scylla_flags.SERVER_MACHINE_TYPE
      ),
      loader_machine_type=_MachineType(
          loaders, scylla_flags.LOADER_MACHINE_TYPE
      ),
      servers_static=bool(servers.static_vms),
      loaders_static=bool(loaders.static_vms),
      **overrides,
  )


def DecodedLocalSsdRequest(servers):
  """Local SSDs the decoded servers group asks for at creation (GCE n2...)."""
  return getattr(servers.vm_spec, 'num_local_ssds', 0) or 0


def LocalSsds(settings, servers):
  """Local SSDs of one server of the decoded servers group (0: network)."""
  if settings.data_disk != 'local':
    return 0
  return local_disks.LocalSsdCount(
      vm_groups.PkbTables(),
      settings.cloud,
      settings.server_machine_type,
      DecodedLocalSsdRequest(servers),
  )


def DataVolume(settings, servers):
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


def MeasuredClusterRamBytes(servers):
  """The memory the servers report together (PKB's vm.total_memory_kb)."""
  return sum(vm.total_memory_kb for vm in servers) * 1024


def PlannedClusterRamBytes(settings):
  """The cluster RAM to plan with before the servers exist (an estimate).

  The machine table's memory of the server type when it has an entry, else
  (static VMs, types without one) STAND_IN_RAM_PER_SERVER per server.
  """
  planned = (
      None
      if settings.servers_static
      else machines.PlannedClusterRamBytes(
          settings.server_machine_type, settings.server_count
      )
  )
  if planned:
    return planned
  return machines.STAND_IN_RAM_PER_SERVER * settings.server_count


def ClusterRamBytes(settings, servers=()):
  """The cluster RAM the data set and read distributions are sized from.

  With the servers (the run): the memory they report, whatever their type,
  so a table's figure never sizes what runs. Without them (the plan and the
  checks before provisioning): PlannedClusterRamBytes, an estimate.
  """
  if servers:
    return MeasuredClusterRamBytes(servers)
  return PlannedClusterRamBytes(settings)


def PlanSteps(settings, server_ips, cluster_ram_bytes):
  """The run's steps, as the plan command and Run plan them."""
  stress_path, java_home = stress_tools.Launcher(
      settings, linux_packages.INSTALL_DIR
  )
  return plan.PlanRun(
      settings,
      server_ips,
      cluster_ram_bytes,
      stress_path,
      REMOTE_DIR,
      java_home,
  )


def Env(benchmark_spec, clock_offsets=None):
  """The run's environment for the operations (run_env.RunEnv).

  Its engine gets the data volumes Prepare recorded on the spec (Run and
  Cleanup may run in another pkb.py process than Prepare).
  """
  settings = SettingsFromConfig(benchmark_spec.config)
  output_dir = os.path.join(vm_util.GetTempDir(), _DIR_NAME)
  engine = engines.ForSettings(
      settings,
      linux_packages.INSTALL_DIR,
      vm_util.VM_TMP_DIR,
      LocalSsds(settings, benchmark_spec.config.vm_groups[vm_groups.SERVERS]),
      os.path.join(output_dir, SETUP_DIR),
      owner=FLAGS.run_uri,
  )
  engine.volumes.update(getattr(benchmark_spec, 'scylla_data_volumes', {}))
  env = run_env.RunEnv(
      settings=settings,
      engine=engine,
      servers=tuple(benchmark_spec.vm_groups[vm_groups.SERVERS]),
      loaders=tuple(benchmark_spec.vm_groups[vm_groups.LOADERS]),
      run_threaded=background_tasks.RunThreaded,
      install_dir=linux_packages.INSTALL_DIR,
      remote_dir=REMOTE_DIR,
      output_dir=output_dir,
      clock_offsets=clock_offsets or {},
  )
  env.Dir(SETUP_DIR)
  return env
