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

This module is PKB's stages, each a few lines. The flags are in
perfkit_plugins/shell/scylla_phases_flags.py, the config and checks in
perfkit_plugins/shell/, the work on machines in perfkit_plugins
(operations) and the arithmetic in perfkit_plugins/core/.
"""

import dataclasses
import functools
import logging
import os

from perfkitbenchmarker import configs
from perfkitbenchmarker import data
from perfkitbenchmarker import errors

from perfkit_plugins import discovery
from perfkit_plugins.core.results import outcomes as outcomes_lib
from perfkit_plugins.operations import cluster
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.operations import run_context
from perfkit_plugins.operations import run_files
from perfkit_plugins.operations import run_sequence
from perfkit_plugins.operations import server_sampling
from perfkit_plugins.operations import vm_clocks
from perfkit_plugins.shell import package_settings
from perfkit_plugins.shell import prerequisites
from perfkit_plugins.shell import run_settings
from perfkit_plugins.shell import samples as samples_lib
from perfkit_plugins.shell import step_signals
from perfkit_plugins.shell import vm_groups

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

SERVERS = vm_groups.SERVERS
LOADERS = vm_groups.LOADERS
# In the run directory's scylla_phases/: every VM's clock minus the
# controller's and its uncertainty, measured before the first step.
CLOCK_OFFSETS_FILE = 'clock_offsets.json'
# In the same directory: every step's status, times, whole error and plan
# metadata (outcomes.StepEntry), written when the steps have run.
STEPS_FILE = 'steps.json'
# In the same directory: what Cleanup did on each machine.
CLEANUP_FILE = 'cleanup.json'
# And the servers' logs and configs, pulled by Cleanup.
SERVER_LOGS_DIR = 'server_logs'

# The name pkb.py looks up; its spec routes --machine_type to the servers.
# pylint: disable-next=invalid-name
BENCHMARK_CONFIG_SPEC_CLASS = vm_groups.ScyllaPhasesConfigSpec


def _RegisterResources():
  """Lets PKB's resource loaders find the plugin's configs and data files.

  --benchmark_config_file=scylla_phases_smoke.yaml (and any
  data.ResourcePath lookup) then finds the files the plugin installs.
  """
  for name in ('configs', 'data'):
    path = discovery.PluginDir(name)
    if not any(
        getattr(loader, 'path', None) == path
        for loader in data.DEFAULT_RESOURCE_LOADERS
    ):
      data.DEFAULT_RESOURCE_LOADERS.append(data.FileResourceLoader(path))


# At import, the one thing this module does besides defining: pkb.py reads
# --benchmark_config_file before it calls any function of a benchmark.
_RegisterResources()


def GetConfig(user_config):
  """Loads the config and applies the server and loader flags to its groups.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: a config key of the wrong
      shape, an unsupported cloud or an unknown machine type, naming the
      flag or key.
  """
  vm_groups.CheckUserConfig(user_config)
  config = configs.LoadConfig(BENCHMARK_CONFIG, user_config, BENCHMARK_NAME)
  vm_groups.ApplyFlags(config, user_config)
  return config


def CheckPrerequisites(benchmark_config):
  """Validates every setting before anything is provisioned.

  Raises:
    errors.Setup.InvalidFlagConfigurationError: naming the flag at fault.
  """
  prerequisites.Check(benchmark_config)


def _PrepareLoader(vm):
  """Quiets the loader, installs cassandra-stress, readies PKB's helper.

  Apt's timers, snapd and the cloud's agent are masked first, as on the
  servers (quiet_units.QuietLoader): a job that wakes during a fixed-rate
  step delays the loader's requests. PKB installs RobustRemoteCommand's
  helper (python3 and two scripts) on a VM's first RobustRemoteCommand;
  doing it here keeps that out of the first step, whose loaders must all
  start together.
  """
  masked = quiet_units.QuietLoader(vm, package_settings.ForPackage(vm))
  logging.info('%s: masked %s', vm.name, quiet_units.Metadata(masked))
  vm.Install(package_settings.LOADER_PACKAGE)
  vm.RobustRemoteCommand('true')


def _AlwaysCallCleanup(benchmark_spec):
  """Makes pkb.py call Cleanup, also after a failed Prepare or Run.

  PKB calls a benchmark's Cleanup after a failed stage only when the spec
  asks for it (or with --always_call_cleanup); this module's Cleanup pulls
  the server logs and stops and cleans the database.
  """
  benchmark_spec.always_call_cleanup = True


def _MeasureClockOffsets(env):
  """{VM name: its clock minus the controller's}, kept in the run dir."""
  measured = vm_clocks.MeasureClockOffsets(
      env.servers + env.loaders, env.run_threaded
  )
  run_files.WriteJson(
      os.path.join(env.output_dir, CLOCK_OFFSETS_FILE), measured
  )
  return {name: offset.offset_s for name, offset in measured.items()}


def _InstallServer(env, vm):
  """Installs python3 (the bring-up's CQL probe runs it), the database and
  the script that samples the server during each stress step.

  PKB installs python3 only on VMs that run its RobustRemoteCommand (the
  loaders); a server image without it would fail every probe until the
  bring-up timeout.
  """
  vm.Install('python')
  env.engine.Install(vm)
  server_sampling.PushScript(vm, env.install_dir)


def _PrepareServers(env):
  """Installs, configures and starts the database on every server."""
  env.run_threaded(functools.partial(_InstallServer, env), list(env.servers))
  logging.info('scylla_phases PREPARE: configuring the servers')
  cluster.Configure(env)
  logging.info('scylla_phases PREPARE: starting the servers')
  cluster.Start(env)


def _AllAtOnce(run_threaded, tasks):
  """Runs tasks in parallel; re-raises the first one's error as it was.

  PKB's RunThreaded reports errors of its threads as one ThreadException;
  a bring-up error must reach pkb.py as itself (it names the node). The
  other tasks' errors are logged, with their tracebacks.
  """

  def Outcome(task):
    try:
      task()
    except Exception as e:  # pylint: disable=broad-except
      # Re-raised below, once every task has ended.
      return e
    return None

  errors = [e for e in run_threaded(Outcome, list(tasks)) if e]
  for error in errors[1:]:
    logging.error(
        'scylla_phases PREPARE: also failed: %s: %s',
        type(error).__name__,
        error,
        exc_info=error,
    )
  if errors:
    raise errors[0]


def Prepare(benchmark_spec):
  """Installs, tunes and starts the database; installs the loaders.

  The loaders get ready while the servers install, configure and start.
  """
  _AlwaysCallCleanup(benchmark_spec)
  env = run_settings.Env(benchmark_spec)
  package_settings.AttachToVms(env.settings, env.servers + env.loaders)
  logging.info(
      'scylla_phases PREPARE: installing %s on %d servers and'
      ' cassandra-stress on %d loaders',
      env.engine.NAME,
      len(env.servers),
      len(env.loaders),
  )
  # What a VM gets depends on its group, never on VM equality: PKB's static
  # VMs compare equal when they share an address and ssh port.
  _AllAtOnce(
      env.run_threaded,
      [functools.partial(_PrepareServers, env)]
      + [functools.partial(_PrepareLoader, vm) for vm in env.loaders],
  )
  benchmark_spec.scylla_data_volumes = dict(env.engine.volumes)


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
  env = run_settings.Env(benchmark_spec)
  env = dataclasses.replace(env, clock_offsets=_MeasureClockOffsets(env))
  env = dataclasses.replace(env, loader_jvms=run_context.ReadLoaderJvms(env))
  context = run_context.ReadRunContext(env, benchmark_spec.uuid)
  steps = run_settings.PlanSteps(
      env.settings,
      [vm.internal_ip for vm in env.servers],
      run_settings.ClusterRamBytes(env.settings, env.servers),
  )
  outcomes = run_sequence.RunSteps(
      steps, env, notify=step_signals.Notifier(benchmark_spec, steps)
  )
  run_files.WriteJson(
      os.path.join(env.output_dir, STEPS_FILE),
      [outcomes_lib.StepEntry(o) for o in outcomes],
  )
  return samples_lib.RunSamples(benchmark_spec, outcomes, context)


def _CleanupFailures(outcomes):
  """The machines Cleanup could not clean, one 'name: why' each."""
  return [
      f'{name}: {why}' for name, why in outcomes['servers'].items() if why
  ] + [
      f'{name}: {what}'
      for name, what in outcomes['loaders'].items()
      if what.startswith('unreachable')
  ]


def Cleanup(benchmark_spec):
  """Stops what runs on every machine and removes the data the run wrote.

  Pulls the servers' logs, stops the database and removes its data on every
  server, kills what is left of cassandra-stress on every loader, and stops
  any server sampler still running (an interrupted step's). Each
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
  env = run_settings.Env(benchmark_spec)
  cluster.PullLogs(env, env.Dir(SERVER_LOGS_DIR))
  outcomes = {
      'servers': cluster.Stop(env),
      'loaders': phase_runner.StopLoaders(
          env.loaders, env.remote_dir, env.run_threaded
      ),
      'samplers': server_sampling.StopAll(env),
  }
  run_files.WriteJson(os.path.join(env.output_dir, CLEANUP_FILE), outcomes)
  failed = _CleanupFailures(outcomes)
  if failed:
    raise errors.Resource.CleanupError(
        'scylla_phases could not clean every machine: ' + '; '.join(failed)
    )
