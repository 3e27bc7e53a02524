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

"""The checks CheckPrerequisites makes before anything is provisioned.

Every setting is validated and the run planned (bad key or rate splits fail
here), the PKB flags and groups that would make the run fail or measure
the wrong thing only after provisioning are refused, naming the flag, and
so is a package module the run installs that did not import with this PKB.
"""

import json
import logging

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker import stages

from perfkit_plugins import discovery
from perfkit_plugins import engines
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.plan import plan_machines
from perfkit_plugins.core.software import java
from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.shell import package_settings
from perfkit_plugins.shell import run_settings
from perfkit_plugins.shell import scylla_phases_flags as scylla_flags
from perfkit_plugins.shell import vm_groups

FLAGS = flags.FLAGS


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


def _CheckPackages(settings):
  """The package modules the run installs imported with this PKB.

  One that did not is a stub (discovery.py) that fails only when PKB
  installs it, on machines provisioned by then.

  Raises:
    discovery.PluginImportError: naming the module and why it did not import.
  """
  for name in (
      engines.PACKAGES[settings.engine],
      package_settings.LOADER_PACKAGE,
  ):
    problem = getattr(linux_packages.PACKAGES.get(name), 'IMPORT_PROBLEM', '')
    if problem:
      raise discovery.PluginImportError(
          f'scylla_phases installs {name} on the machines it would'
          ' provision; refused before provisioning (PKB then starts no'
          f' benchmark of this run: run the others without it): {problem}',
          name=f'{linux_packages.__name__}.{name}',
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
      vm_groups.PkbTables(),
      settings.cloud,
      settings.server_machine_type,
      settings.data_disk,
      run_settings.DecodedLocalSsdRequest(servers),
      settings.network_disk_gb,
      settings.engine,
  )
  volume = run_settings.DataVolume(settings, servers)
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
  for name in (vm_groups.SERVERS, vm_groups.LOADERS):
    group = benchmark_config.vm_groups[name]
    if not group.static_vms:
      continue
    if group.vm_count != len(group.static_vms):
      flag = (
          scylla_flags.SERVER_COUNT
          if name == vm_groups.SERVERS
          else scylla_flags.LOADER_COUNT
      )
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--{flag.name}: the {name} group lists {len(group.static_vms)}'
          f' static VMs but asks for {group.vm_count} VMs; PKB would provision'
          ' the others in the cloud. Give as many as the group lists (or list'
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


def _CheckLoaderJava(settings, benchmark_config):
  """Loaders provisioned from an image that packages no fitting Java.

  ScyllaDB's cassandra-stress release asset needs Java 21, which Debian 12
  does not package: the install would fail after provisioning.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming --os_type.
  """
  loaders = benchmark_config.vm_groups[vm_groups.LOADERS]
  if loaders.static_vms:
    return
  requirement = stress_tools.StressToolOf(settings).java
  problem = java.ImageProblem(requirement, loaders.os_type)
  if problem:
    raise errors.Setup.InvalidFlagConfigurationError(
        f"--os_type={loaders.os_type} (the loaders' image): {problem}. Use"
        ' an image that packages it (debian13, ubuntu2204, ubuntu2404), or'
        ' give the loaders group its own os_type in the config'
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


def _CheckRunLoop():
  """PKB's run loop would repeat Run, which is not a repetition here.

  --run_stage_iterations, --run_stage_time and --run_stage_retries call Run
  again after it returned or failed: a populated cluster would be
  populated again, the quiesce would measure the second load, and a failed
  Run's samples, already published, would be published twice. Repeats of
  the measured steps in one cluster are --scylla_repeats; fresh clusters
  are --num_benchmark_copies (or several runs).

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the PKB flag.
  """
  for flag, idle in (
      ('run_stage_iterations', 1),
      ('run_stage_time', 0),
      ('run_stage_retries', 0),
  ):
    if FLAGS[flag].value != idle:
      raise errors.Setup.InvalidFlagConfigurationError(
          f'--{flag}={FLAGS[flag].value}: scylla_phases does not repeat its'
          ' Run (it would populate a populated cluster and publish samples'
          ' twice). Repeat the measured steps in one cluster with'
          ' --scylla_repeats, and use fresh clusters (--num_benchmark_copies,'
          ' or several runs) for figures about the machines.'
      )


def Check(benchmark_config):
  """Validates every setting before anything is provisioned.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag at fault.
    discovery.PluginImportError: a package module the run installs did not
      import.
  """
  _CheckRunLoop()
  _CheckStaticGroups(benchmark_config)
  try:
    settings = run_settings.SettingsFromConfig(benchmark_config)
    # Bad key or rate splits fail here, before provisioning, planned with
    # the table's memory estimate (or a stand-in: own machines, types
    # without an entry); the run sizes from what the servers report.
    run_settings.PlanSteps(
        settings,
        plan_machines.ServerPlaceholders(settings.server_count),
        run_settings.PlannedClusterRamBytes(settings),
    )
  except settings_lib.SettingsError as e:
    raise errors.Setup.InvalidFlagConfigurationError(str(e)) from e
  _CheckPackages(settings)
  _CheckDataToRead(settings)
  _CheckLoaderJava(settings, benchmark_config)
  _CheckPkbDiskFlags(settings, benchmark_config.vm_groups[vm_groups.SERVERS])
  summary = {
      name: _GroupSummary(benchmark_config.vm_groups[name])
      for name in (vm_groups.SERVERS, vm_groups.LOADERS)
  }
  summary[vm_groups.SERVERS]['data_volume'] = run_settings.DataVolume(
      settings, benchmark_config.vm_groups[vm_groups.SERVERS]
  )
  logging.info('scylla_phases decoded groups: %s', json.dumps(summary))
  logging.info('scylla_phases settings: %s', settings)
