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

"""`scylla-phases-plan`: what a scylla_phases run will do and cost, offline.

    scylla-phases-plan --benchmark_config_file=scylla_phases_z3_vs_n2.yaml
    python -m perfkit_plugins.tools.plan_command --machine_type=z3-highmem-88

Takes the flags of `pkb.py` (a config file, a flag_matrix or flag_zip,
`--machine_type`, every `--scylla_*` flag) and, without touching a cloud,
prints for every run PKB would start: the cluster, the VMs and vCPUs per
region and machine family (the quotas to check), the data set against the
cluster's estimated RAM, every step with every loader's key range and
cassandra-stress command, the estimated duration and cost with the price
source, and warnings about known traps. Invalid settings fail here as they
would in `pkb.py`, with the message naming the flag, and the command exits
with 1. `--help` prints this text and the benchmark's flags.

The flags and config go through PKB's own machinery in-process, as
`pkb.py` does before provisioning: its flag parsing,
`benchmark_sets.GetBenchmarksFromFlags`, the benchmark's `GetConfig`, PKB's
config decoding and the benchmark's `CheckPrerequisites` and settings. PKB
is imported from the Python path or from the checkout at $PKB_CHECKOUT
(default /opt/PerfKitBenchmarker). The text parts live in
core/plan/plan_report.py.
"""

import dataclasses
import importlib
import importlib.util
import os
import sys

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import plan_machines
from perfkit_plugins.core.plan import plan_report
from perfkit_plugins.operations import vm_clocks
from perfkit_plugins.tools import pkb_location

BENCHMARK_NAME = 'scylla_phases'
# absl's help flags, which pkb.py's parsing does not define.
_HELP_FLAGS = ('-h', '-help', '--help', '--helpshort', '--helpfull')


class PlanError(Exception):
  """The run cannot be planned; the message says why and what to change."""


def _ImportPkb():
  """Imports perfkitbenchmarker.pkb, from $PKB_CHECKOUT when not on the path.

  A directory named perfkitbenchmarker without __init__.py (PKB's own temp
  directory under /tmp, say) is a namespace package, not PKB.

  Raises:
    PlanError: no usable PKB.
  """
  spec = importlib.util.find_spec('perfkitbenchmarker')
  if spec is None or spec.origin is None:
    path = pkb_location.Path()
    if not os.path.isfile(os.path.join(path, 'pkb.py')):
      raise PlanError(
          f'needs a PerfKitBenchmarker checkout and found none at {path}: set'
          f' {pkb_location.ENV}=/path/to/PerfKitBenchmarker (Python 3.12 with'
          " the checkout's requirements.txt installed) or put the checkout"
          ' on PYTHONPATH'
      )
    sys.path.insert(0, path)
  try:
    return importlib.import_module('perfkitbenchmarker.pkb')
  except ImportError as e:
    raise PlanError(
        f'PerfKitBenchmarker does not import ({e}); use Python 3.12 with the'
        " checkout's requirements.txt installed (pint<0.26, setuptools<81)"
    ) from e


def _DecodedRuns(flag_values):
  """Every run PKB would start, decoded as pkb.py decodes it.

  Mirrors pkb._CreateBenchmarkSpecs up to (not including) provisioning;
  CheckPrerequisites runs with the run's config flags applied.

  Returns:
    [DecodedRun], one per run.
  """
  # PKB is importable only once _ImportPkb found its checkout.
  # pylint: disable=import-outside-toplevel
  from perfkitbenchmarker import benchmark_sets
  from perfkitbenchmarker import flag_util
  from perfkitbenchmarker import os_types
  from perfkitbenchmarker import resources
  from perfkitbenchmarker.configs import benchmark_config_spec
  from perfkit_plugins.shell import run_settings

  # pylint: enable=import-outside-toplevel
  resources.LoadModules()
  if not flag_values['benchmarks'].present:
    flag_values.benchmarks = [BENCHMARK_NAME]
  if not flag_values['ignore_package_requirements'].present:
    # Planning loads the cloud's provider module but calls no cloud tool.
    flag_values.ignore_package_requirements = True
  runs = []
  for module, user_config in benchmark_sets.GetBenchmarksFromFlags():
    if module.BENCHMARK_NAME != BENCHMARK_NAME:
      raise PlanError(
          f'plans {BENCHMARK_NAME} only; the flags also select'
          f' {module.BENCHMARK_NAME}'
      )
    with flag_util.OverrideFlags(flag_values, user_config.get('flags')):
      config_dict = module.GetConfig(user_config)
    spec_class = getattr(
        module,
        'BENCHMARK_CONFIG_SPEC_CLASS',
        benchmark_config_spec.BenchmarkConfigSpec,
    )
    spec = spec_class(
        module.BENCHMARK_NAME,
        expected_os_types=os_types.ALL,
        flag_values=flag_values,
        **config_dict,
    )
    with spec.RedirectFlags(flag_values):
      module.CheckPrerequisites(spec)
      settings = run_settings.SettingsFromConfig(spec)
      servers = spec.vm_groups['servers']
      local_ssds = run_settings.LocalSsds(settings, servers)
      timeout_minutes = flag_values.timeout_minutes
    disk = servers.disk_spec
    runs.append(
        DecodedRun(
            settings=settings,
            local_ssds=local_ssds,
            static_vms={
                name: [
                    f'{vm.user_name}@{vm.ip_address}:{vm.ssh_port}'
                    for vm in group.static_vms
                ]
                for name, group in spec.vm_groups.items()
            },
            zones={
                name: getattr(group.vm_spec, 'zone', None) or ''
                for name, group in spec.vm_groups.items()
            },
            disk_iops=disk and disk.provisioned_iops,
            disk_mib_s=disk and disk.provisioned_throughput,
            timeout_minutes=timeout_minutes,
        )
    )
  return runs


@dataclasses.dataclass(frozen=True)
class DecodedRun:
  """One run as PKB decoded it, with what the plan needs of its machines.

  Attributes:
    settings: settings.Settings.
    local_ssds: local SSDs per server (PKB's count).
    static_vms: {group: its static VMs as user@address:port}.
    zones: {group: its zone}.
    disk_iops: IOPS provisioned on the servers' network disk, or None.
    disk_mib_s: MiB/s provisioned on it, or None.
    timeout_minutes: PKB's --timeout_minutes for the run.
  """

  settings: settings_lib.Settings
  local_ssds: int
  static_vms: dict
  zones: dict = dataclasses.field(default_factory=dict)
  disk_iops: int | None = None
  disk_mib_s: int | None = None
  timeout_minutes: int | None = None


def MachinesOf(run):
  """Shapes, disks, zones and prices of a run's server and loader types.

  vCPUs come from the machine table or the types' names; memory from the
  table only (unknown otherwise: the plan then uses a stand-in and says
  so).

  Raises:
    PlanError: the server type's vCPUs are unknown.
  """
  settings = run.settings
  server_shape = machines.PlanShape(settings.server_machine_type)
  if server_shape is None:
    raise PlanError(
        '--scylla_server_machine_type: the vCPUs of'
        f' {settings.server_machine_type!r} are unknown (not in the'
        " benchmark's table, and its name does not carry them); the plan"
        ' needs them (core/machines/machines.py)'
    )
  today = vm_clocks.UtcDate()
  return plan_machines.Machines(
      server_shape=server_shape,
      local_ssds=run.local_ssds,
      loader_shape=machines.PlanShape(settings.loader_machine_type),
      server_price=cost.ServerPrice(settings, today),
      loader_price=cost.LoaderPrice(settings, today),
      server_zone=run.zones.get('servers', ''),
      loader_zone=run.zones.get('loaders', ''),
      disk_iops=run.disk_iops,
      disk_mib_s=run.disk_mib_s,
  )


def _Steps(settings, cluster_ram_bytes):
  """The steps of one run, planned as the benchmark's Run plans them."""
  # PKB is imported by now (_ImportPkb); the shell module needs it.
  # pylint: disable-next=import-outside-toplevel
  from perfkit_plugins.shell import run_settings

  return run_settings.PlanSteps(
      settings,
      plan_machines.ServerPlaceholders(settings.server_count),
      cluster_ram_bytes,
  )


def PlanRun(run):
  """The steps of one DecodedRun, planned as the benchmark plans them.

  Returns:
    (list of plan.Step, plan_machines.Machines).
  """
  shapes = MachinesOf(run)
  return (
      _Steps(run.settings, plan_machines.ClusterRamBytes(run.settings, shapes)),
      shapes,
  )


def _OwnMachinesRun(title, settings, static_vms):
  """What can be planned of a run on static VMs, and what cannot.

  Their memory sizes the data set and reads, so the steps are listed
  without commands (planned for a stand-in memory only to name them).
  """
  steps = _Steps(
      settings, machines.STAND_IN_RAM_PER_SERVER * settings.server_count
  )
  return plan_report.RenderOwnMachinesPlan(
      title,
      settings,
      steps,
      static_vms,
      cost.ServerPrice(settings, vm_clocks.UtcDate()),
  )


def RenderRuns(runs):
  """The text of every run's plan, and the totals of several.

  Args:
    runs: _DecodedRuns' result.
  """
  texts, estimates = [], []
  for i, run in enumerate(runs):
    settings = run.settings
    server_type = settings.server_machine_type or 'own machines (static VMs)'
    title = (
        f'{BENCHMARK_NAME} run {i + 1} of {len(runs)}: {settings.engine} on'
        f' {settings.server_count} x {server_type}'
    )
    if settings.servers_static:
      texts.append(_OwnMachinesRun(title, settings, run.static_vms))
      continue
    steps, shapes = PlanRun(run)
    text, estimate = plan_report.RenderPlan(
        title, settings, steps, shapes, run.timeout_minutes
    )
    texts.append(text)
    estimates.append((title, estimate))
  if len(estimates) > 1:
    texts.append(plan_report.RenderTotals(estimates))
  return '\n\n\n'.join(texts)


def _Help():
  """The command's usage and the scylla_phases flags, as absl lists them."""
  # PKB is imported by now (_ImportPkb): the flags module defines on it.
  # pylint: disable=import-outside-toplevel
  from absl import flags
  from perfkit_plugins.shell import scylla_phases_flags

  # pylint: enable=import-outside-toplevel
  return (
      f'{__doc__.strip()}\n\nThe flags of {BENCHMARK_NAME} (every pkb.py flag'
      ' is taken too; `pkb.py --helpmatch=REGEX` lists them):\n\n'
      + flags.FLAGS.module_help(scylla_phases_flags)
  )


def Main(argv=None):
  """Prints the plan of the runs `argv` (pkb.py's flags) selects.

  Returns:
    0 (also for --help), or 1 when the settings cannot run (the reason is
    on stderr).
  """
  argv = list(sys.argv if argv is None else argv)
  try:
    pkb = _ImportPkb()
    if any(arg in _HELP_FLAGS for arg in argv[1:]):
      print(_Help())
      return 0
    # absl's flags are PKB's once PKB is imported (from its checkout).
    # pylint: disable=import-outside-toplevel
    from absl import flags
    from perfkitbenchmarker import errors

    # pylint: enable=import-outside-toplevel
    pkb.ParseArgs(argv)
    try:
      text = RenderRuns(_DecodedRuns(flags.FLAGS))
    except (errors.Error, settings_lib.SettingsError, ValueError) as e:
      raise PlanError(str(e)) from e
  except PlanError as e:
    print(f'scylla-phases-plan: {e}', file=sys.stderr)
    return 1
  print(text)
  return 0


if __name__ == '__main__':
  sys.exit(Main())
