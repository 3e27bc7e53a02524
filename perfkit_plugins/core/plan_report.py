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

"""What a planned run will do and cost, and what looks wrong, as text.

Pure: the `scylla-phases-plan` command resolves settings, machine shapes and
prices with PKB's own config machinery and the phase planner, then calls
`Estimate`, `Warnings` and `RenderPlan` here. Nothing is measured: the
durations of steps that run "until done" are estimates from documented
assumptions, and say so.

Assumptions (each printed next to the number it produces):

* Write throughput, for the populate estimate and the "fixed rate above
  the expected maximum" warnings: write_rates.ExpectedWriteRate, the lower
  of what the servers sustained in the published run closest to this one
  (same engine and machine family) and what the writing loaders have been
  seen to drive. Real rates depend on row size, disks, release and
  loaders; the populate step prints its real rate.
* Quiesce (waiting until no node compacts) has no estimate: it lasts at
  least the settle window and at most the timeout; the c3.2xlarge study
  measured 21 minutes (ScyllaDB) and 7 h 32 min (Cassandra) after populate.
* Provisioning, install, tuning (iotune) and bring-up: SETUP_S.
* A cassandra-stress thread has one request in flight, so at a fixed rate
  above MAX_OPS_PER_THREAD per thread (1 ms per request) the loader cannot
  keep its schedule and response times grow without bound.
"""

import dataclasses

from perfkit_plugins.core import cost
from perfkit_plugins.core import machines
from perfkit_plugins.core import plan
from perfkit_plugins.core import settings_limits
from perfkit_plugins.core import sizing
from perfkit_plugins.core import tuning
from perfkit_plugins.core import write_rates

# Provisioning, install, tuning and bring-up, assumed (not measured).
SETUP_S = 1200
# Requests per second one cassandra-stress thread can complete at 1 ms each.
MAX_OPS_PER_THREAD = 1000
# Hyperthreads per core on the clouds' x86 types, for the shard prediction.
THREADS_PER_CORE = 2
# Stands for server i's address in planned commands (no VM exists yet).
SERVER_PLACEHOLDER = 'server{}'

BASIS_FIXED = 'set by flags'
BASIS_ESTIMATED = 'estimated'
BASIS_UNKNOWN = 'unknown'
_QUIESCE_KINDS = (plan.KIND_QUIESCE, plan.KIND_FLUSH_QUIESCE)


@dataclasses.dataclass(frozen=True)
class Machines:
  """Shapes and prices of one server and one loader, before provisioning.

  Attributes:
    server_shape: machines.MachineShape of a server (required: the data set
      and the estimates are sized from it).
    local_ssds: local SSDs of a server in the data RAID0; 0 with a network
      data disk.
    loader_shape: machines.MachineShape of a loader, or None when unknown.
    server_price: cost.Price of one server, or None when unknown.
    loader_price: cost.Price of one loader, or None when unknown.
  """

  server_shape: machines.MachineShape
  local_ssds: int
  loader_shape: machines.MachineShape | None
  server_price: cost.Price | None
  loader_price: cost.Price | None


def ServerPlaceholders(server_count):
  """Names standing for the servers' addresses: server0, server1, ..."""
  return [SERVER_PLACEHOLDER.format(i) for i in range(server_count)]


def ClusterRamBytes(settings, shapes):
  """Total RAM of the servers, in bytes."""
  return machines.ClusterRamBytes(shapes.server_shape, settings.server_count)


@dataclasses.dataclass(frozen=True)
class DataSet:
  """The data set of a run against the cluster's RAM.

  Bytes are column data (plan.RowBytes) without per-row overheads, as the
  planner sizes them; "stored" counts every replica.
  """

  keys: int
  row_bytes: int
  replication_factor: int
  server_count: int
  cluster_ram_bytes: int

  @property
  def unique_bytes(self):
    return self.keys * self.row_bytes

  @property
  def stored_bytes(self):
    return self.unique_bytes * self.replication_factor

  @property
  def per_node_bytes(self):
    return self.stored_bytes / self.server_count

  @property
  def ram_ratio(self):
    """Stored bytes over cluster RAM (what each node must cache)."""
    return self.stored_bytes / self.cluster_ram_bytes

  def StoredBytes(self, keys):
    """Bytes stored on the cluster for `keys` distinct partitions."""
    return keys * self.row_bytes * self.replication_factor


def DataSetOf(settings, cluster_ram_bytes):
  """The DataSet the planner will write for these settings."""
  return DataSet(
      keys=plan.KeyCount(settings, cluster_ram_bytes),
      row_bytes=plan.RowBytes(settings),
      replication_factor=settings.replication_factor,
      server_count=settings.server_count,
      cluster_ram_bytes=cluster_ram_bytes,
  )


def WorkingSets(settings, data_set):
  """Distinct keys each read distribution visits (95.4% of a gaussian).

  Returns:
    {'small'|'medium'|'large': keys}, capped at the data set.
  """
  distributions = plan.ReadDistributions(
      data_set.keys, data_set.cluster_ram_bytes, data_set.row_bytes, settings
  )
  sets = {}
  for size, population in distributions.items():
    keys = data_set.keys
    if population.kind == 'gaussian':
      keys = plan.GAUSSIAN_WORKING_SET_STDEVS * population.stdev
    sets[size] = min(data_set.keys, keys)
  return sets


def UsedDistributions(settings):
  """Read distributions the selected phases use -> the phases using them."""
  used = {}
  uses = (
      ('read', ('small', 'medium', 'large')),
      ('read_cache', ('small',)),
      ('reads_during_writes', ('large',)),
      ('mixed', (settings.mixed_distribution,)),
  )
  for phase, sizes in uses:
    if phase in settings.phases:
      for size in sizes:
        used.setdefault(size, []).append(phase)
  return used


def ExpectedWriteRate(settings, shapes, writers=None):
  """write_rates.WriteRate of these servers driven by `writers` loaders.

  Args:
    settings: validated Settings.
    shapes: Machines.
    writers: loaders that write; None for all of them.
  """
  writers = settings.loader_count if writers is None else writers
  loader_vcpus = None
  if shapes.loader_shape is not None:
    loader_vcpus = writers * shapes.loader_shape.vcpus
  return write_rates.ExpectedWriteRate(
      settings.engine,
      settings.server_machine_type,
      settings.server_count * shapes.server_shape.vcpus,
      loader_vcpus,
  )


def RateNote(rate):
  """How a write_rates.WriteRate was obtained, bound first."""
  servers = f'servers {FormatCount(rate.server_bound)} op/s: {rate.server_note}'
  if rate.loader_bound is None:
    return f'{servers}; loaders: shape unknown'
  loaders = f'loaders {FormatCount(rate.loader_bound)} op/s: {rate.loader_note}'
  if rate.bound == write_rates.BOUND_LOADERS:
    return f'bound by the {loaders}; {servers}'
  return f'bound by the {servers}; {loaders}'


def PredictedShards(shape):
  """Shards perftune's rule leaves per server, or None when it cannot say."""
  cores = max(1, shape.vcpus // THREADS_PER_CORE)
  try:
    return tuning.PredictIrqLayout(shape.vcpus, cores, shape.numa_nodes)
  except ValueError:
    return None


@dataclasses.dataclass(frozen=True)
class StepEstimate:
  """How long one step is expected to take.

  Attributes:
    name: the plan step's name.
    seconds: expected seconds; None when unknown (quiesce).
    basis: BASIS_FIXED, BASIS_ESTIMATED or BASIS_UNKNOWN.
    note: how the number was obtained.
  """

  name: str
  seconds: float | None
  basis: str
  note: str


@dataclasses.dataclass(frozen=True)
class RunEstimate:
  """Duration and cost of one run.

  Attributes:
    steps: StepEstimate per plan step, in order.
    setup_s: assumed provisioning, install, tuning and bring-up.
    known_s: setup plus every step with a fixed or estimated duration.
    quiesce_steps: steps without an estimate.
    quiesce_min_s: their settle windows (the least they can take).
    quiesce_max_s: their timeouts (the most they can take).
    usd_per_hour: the whole cluster (servers and loaders), None if a price
      is unknown.
  """

  steps: tuple[StepEstimate, ...]
  setup_s: int
  known_s: float
  quiesce_steps: int
  quiesce_min_s: int
  quiesce_max_s: int
  usd_per_hour: float | None

  @property
  def min_s(self):
    return self.known_s + self.quiesce_min_s

  @property
  def max_s(self):
    return self.known_s + self.quiesce_max_s

  def Usd(self, seconds):
    """Cost of `seconds` of the cluster; None when a price is unknown."""
    if self.usd_per_hour is None:
      return None
    return self.usd_per_hour * seconds / 3600


def _StepEstimate(step, settings, write_rate):
  if step.expected_duration_s is not None:
    return StepEstimate(
        step.name, step.expected_duration_s, BASIS_FIXED, 'duration flag'
    )
  if step.kind in _QUIESCE_KINDS:
    return StepEstimate(
        step.name,
        None,
        BASIS_UNKNOWN,
        'until no node compacts: at least'
        f' {FormatDuration(settings.quiesce_settle_s)} (settle), at most'
        f' {FormatDuration(settings.quiesce_timeout_s)} (timeout)',
    )
  operations = sum(run.operations for run in step.runs)
  return StepEstimate(
      step.name,
      operations / write_rate.ops_per_second,
      BASIS_ESTIMATED,
      f'{FormatCount(operations)} writes at'
      f' {FormatCount(write_rate.ops_per_second)} op/s'
      f' ({RateNote(write_rate)})',
  )


def Estimate(settings, steps, shapes):
  """Duration and cost of running `steps`.

  Args:
    settings: validated Settings.
    steps: plan.PlanRun result for them.
    shapes: Machines.

  Returns:
    RunEstimate.
  """
  write_rate = ExpectedWriteRate(settings, shapes)
  estimates = tuple(_StepEstimate(s, settings, write_rate) for s in steps)
  quiesce_steps = sum(e.seconds is None for e in estimates)
  return RunEstimate(
      steps=estimates,
      setup_s=SETUP_S,
      known_s=SETUP_S + sum(e.seconds or 0 for e in estimates),
      quiesce_steps=quiesce_steps,
      quiesce_min_s=quiesce_steps * settings.quiesce_settle_s,
      quiesce_max_s=quiesce_steps * settings.quiesce_timeout_s,
      usd_per_hour=cost.RunCost(
          1.0,
          [
              (settings.server_count, shapes.server_price),
              (settings.loader_count, shapes.loader_price),
          ],
      ),
  )


def _LoaderWarnings(settings, shapes):
  if shapes.loader_shape is None:
    return [
        f'loaders: the shape of {settings.loader_machine_type} is unknown, so'
        ' whether the loaders can drive the servers cannot be checked'
    ]
  needed = sizing.LoaderCount(
      settings.server_count,
      shapes.server_shape.vcpus,
      shapes.loader_shape.vcpus,
  )
  if settings.loader_count >= needed:
    return []
  return [
      f'loaders: {settings.loader_count} x {settings.loader_machine_type}'
      f' ({settings.loader_count * shapes.loader_shape.vcpus} vCPUs) may be'
      f' too few for {settings.server_count} x'
      f' {settings.server_machine_type}'
      f' ({settings.server_count * shapes.server_shape.vcpus} vCPUs): the'
      f' sizing rule ({sizing.LOADER_VCPUS_PER_SERVER_VCPU} loader vCPUs per'
      f' server vCPU, from the Z3 study) asks for {needed}; results would'
      ' measure the loaders (--scylla_loader_count)'
  ]


def _FixedRates(settings):
  """(flag, cluster op/s, threads per loader, loaders) of fixed-rate steps."""
  rates = []
  if 'latency' in settings.phases:
    rates += [
        ('latency_rates', r, settings.latency_threads, settings.loader_count)
        for r in settings.latency_rates
    ]
  if 'reads_during_writes' in settings.phases:
    writers = plan.RdwWriterCount(
        settings.loader_count, settings.rdw_writer_fraction
    )
    rates.append((
        'rdw_write_rate',
        settings.rdw_write_rate,
        settings.latency_threads,
        writers,
    ))
  return rates


def _RateWarnings(settings, shapes):
  warnings = []
  for flag, rate, threads, loaders in _FixedRates(settings):
    expected = ExpectedWriteRate(settings, shapes, loaders)
    if rate > expected.server_bound:
      warnings.append(
          f'--scylla_{flag}: {FormatCount(rate)} op/s is above the expected'
          ' maximum write rate of the servers,'
          f' {FormatCount(expected.server_bound)} op/s'
          f' ({expected.server_note}): that step would measure an'
          ' overloaded cluster'
      )
    if expected.loader_bound is not None and rate > expected.loader_bound:
      warnings.append(
          f'--scylla_{flag}: {FormatCount(rate)} op/s is more than its'
          f' {loaders} writing loader(s) are known to drive,'
          f' {FormatCount(expected.loader_bound)} op/s'
          f' ({expected.loader_note}): the schedule may fall behind'
          ' (--scylla_loader_count)'
      )
    per_loader = -(-rate // loaders)
    if per_loader > threads * MAX_OPS_PER_THREAD:
      warnings.append(
          f'--scylla_{flag}: {FormatCount(per_loader)} op/s per loader needs'
          f' more than {threads} threads (at most'
          f' {FormatCount(MAX_OPS_PER_THREAD)} op/s per thread at 1 ms): the'
          ' schedule would fall behind (--scylla_latency_threads)'
      )
  return warnings


def _RamWarnings(settings, data_set):
  warnings = []
  working_sets = WorkingSets(settings, data_set)
  for size, phases in UsedDistributions(settings).items():
    if size == 'small':
      continue
    stored = data_set.StoredBytes(working_sets[size])
    if stored <= data_set.cluster_ram_bytes:
      warnings.append(
          f'{size} reads ({", ".join(phases)}): the working set,'
          f' {FormatCount(working_sets[size])} keys ({FormatBytes(stored)}'
          f' with {settings.replication_factor} replicas), fits in the'
          f' cluster RAM ({FormatBytes(data_set.cluster_ram_bytes)}), so'
          ' they would be served from memory; raise --scylla_num_keys,'
          ' --scylla_data_set_bytes or --scylla_data_to_ram_ratio'
          + (
              ' or --scylla_medium_working_set_to_ram'
              if size == 'medium'
              else ''
          )
      )
  return warnings


def Warnings(settings, shapes, data_set, estimate):
  """Known traps in these settings, as messages naming the flag to change.

  Checked: too few loaders for the server type; very large clusters,
  thread counts and data sets (settings_limits.Large); fixed rates above the
  expected maximum write rate, or above what the loaders' threads can keep;
  medium or large reads whose working set fits in RAM; unknown prices.
  (A replication factor above the server count never gets here: settings
  validation rejects it, naming the flag.)

  Returns:
    list of str.
  """
  warnings = _LoaderWarnings(settings, shapes)
  warnings += settings_limits.Large(settings, data_set.keys)
  warnings += _RateWarnings(settings, shapes)
  warnings += _RamWarnings(settings, data_set)
  if estimate.usd_per_hour is None:
    warnings.append(
        'cost: no price for '
        + ' and '.join(_UnpricedFlags(settings, shapes))
        + '; per-dollar figures will be missing from the results'
    )
  return warnings


def _UnpricedFlags(settings, shapes):
  unpriced = []
  for role, price, machine_type in (
      ('server', shapes.server_price, settings.server_machine_type),
      ('loader', shapes.loader_price, settings.loader_machine_type),
  ):
    if price is None:
      unpriced.append(
          f'{machine_type} (give --scylla_{role}_price_per_hour, USD per VM'
          ' per hour)'
      )
  return unpriced


def FormatCount(number):
  """1234567.8 -> '1,234,568'."""
  return f'{round(number):,}'


def FormatBytes(count):
  """Binary units, three significant digits: 1536 -> '1.50 KiB'."""
  value = float(count)
  for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'):
    if value < 1024 or unit == 'PiB':
      break
    value /= 1024
  if unit == 'B':
    return f'{count:,} B'
  return f'{value:.3g} {unit}' if value < 100 else f'{value:.0f} {unit}'


def FormatDuration(seconds):
  """3725 -> '1h 02m 05s'; 65 -> '1m 05s'; 5 -> '5s'."""
  total = round(seconds)
  hours, rest = divmod(total, 3600)
  minutes, secs = divmod(rest, 60)
  if hours:
    return f'{hours}h {minutes:02d}m {secs:02d}s'
  if minutes:
    return f'{minutes}m {secs:02d}s'
  return f'{secs}s'


def _FormatPrice(price, count, machine_type):
  if price is None:
    return f'{count} x {machine_type}: price unknown'
  where = ', '.join(p for p in (price.region, price.source, price.date) if p)
  return (
      f'{count} x {machine_type}: {count} x ${price.usd_per_hour:.3f}/h ='
      f' ${count * price.usd_per_hour:.2f}/h ({where})'
  )


def _DataDisk(settings, shapes):
  if settings.data_disk == 'network':
    return f'one {settings.network_disk_gb} GB network disk per server'
  builder = 'scylla_raid_setup' if settings.engine == 'scylla' else 'PKB'
  if shapes.local_ssds == 1:
    return f'1 local SSD per server, set up by {builder}'
  return (
      f'{shapes.local_ssds} local SSDs per server in one RAID0, built by'
      f' {builder}'
  )


def _ClusterLines(settings, shapes):
  server, loader = shapes.server_shape, shapes.loader_shape
  database = (
      f'ScyllaDB {settings.release}'
      if settings.engine == 'scylla'
      else f'Apache Cassandra {settings.cassandra_version}'
  )
  lines = [
      'Cluster',
      (
          f'  servers: {settings.server_count} x {settings.server_machine_type}'
          f' on {settings.cloud}: {server.vcpus} vCPUs, {server.memory_gib:g}'
          f' GiB, {server.numa_nodes} NUMA node(s) each; {database}'
      ),
      f'  data: {_DataDisk(settings, shapes)}',
  ]
  layout = PredictedShards(server)
  if settings.engine == 'scylla' and layout:
    lines.append(
        f'  shards per server (perftune rule, predicted): {layout.shards};'
        f' IRQ vCPUs: {layout.irq_vcpus}'
    )
  loader_shape = f': {loader.vcpus} vCPUs each' if loader else ': shape unknown'
  lines += [
      (
          f'  loaders: {settings.loader_count} x {settings.loader_machine_type}'
          f'{loader_shape}; cassandra-stress ({settings.stress_tool}'
          f' {settings.stress_release})'
      ),
      (
          f'  workload: RF {settings.replication_factor},'
          f' {settings.consistency_level}, {settings.compaction_strategy},'
          f' rows of {settings.column_count} x {settings.column_size} bytes;'
          f' phases: {", ".join(settings.phases)}'
      ),
  ]
  return lines


def _DataSetLines(settings, data_set):
  per_node_ram = data_set.cluster_ram_bytes / data_set.server_count
  lines = [
      'Data set',
      (
          f'  partitions: {FormatCount(data_set.keys)} of'
          f' {FormatBytes(data_set.row_bytes)} (column data)'
      ),
      (
          f'  unique data {FormatBytes(data_set.unique_bytes)}; stored with RF'
          f' {data_set.replication_factor}:'
          f' {FormatBytes(data_set.stored_bytes)},'
          f' {FormatBytes(data_set.per_node_bytes)} per node'
      ),
      (
          f'  cluster RAM {FormatBytes(data_set.cluster_ram_bytes)}'
          f' ({FormatBytes(per_node_ram)} per node); stored / RAM:'
          f' {data_set.ram_ratio:.2f}'
      ),
  ]
  if not settings.num_keys and not settings.data_set_bytes:
    lines.append(
        "  (partitions from the machine type's nominal RAM; the run sizes"
        " them from the servers' measured memory, a little less: give"
        ' --scylla_num_keys to fix them and their key ranges)'
    )
  working_sets = WorkingSets(settings, data_set)
  for size, phases in UsedDistributions(settings).items():
    stored = data_set.StoredBytes(working_sets[size])
    lines.append(
        f'  {size} reads ({", ".join(phases)}):'
        f' {FormatCount(working_sets[size])} keys,'
        f' {FormatBytes(stored)} stored,'
        f' {stored / data_set.cluster_ram_bytes:.2f} x RAM'
    )
  return lines


def _DurationLines(estimate):
  width = max([len(e.name) for e in estimate.steps] + [len('setup')])
  lines = [
      'Duration',
      (
          f'  {"setup":<{width}}  {FormatDuration(estimate.setup_s):>11}'
          '  assumed: provisioning, install, tuning, bring-up'
      ),
  ]
  for e in estimate.steps:
    shown = '?' if e.seconds is None else FormatDuration(e.seconds)
    lines.append(f'  {e.name:<{width}}  {shown:>11}  {e.basis}: {e.note}')
  lines.append(
      f'  total: {FormatDuration(estimate.min_s)}'
      + (
          f' (quiesce at its settle window) to {FormatDuration(estimate.max_s)}'
          f' (every quiesce to its timeout); {estimate.quiesce_steps} quiesce'
          ' step(s) of unknown length'
          if estimate.quiesce_steps
          else ''
      )
  )
  return lines


def _CostLines(settings, shapes, estimate):
  lines = [
      'Cost (on-demand)',
      '  '
      + _FormatPrice(
          shapes.server_price,
          settings.server_count,
          settings.server_machine_type,
      ),
      '  '
      + _FormatPrice(
          shapes.loader_price,
          settings.loader_count,
          settings.loader_machine_type,
      ),
  ]
  if estimate.usd_per_hour is None:
    lines.append('  cluster: unknown (a price is missing)')
    if shapes.server_price is not None:
      servers = settings.server_count * shapes.server_price.usd_per_hour
      lines.append(
          f'  servers alone: about ${servers * estimate.min_s / 3600:,.2f}'
          ' for this run (quiesce at its settle window)'
      )
    return lines
  lines.append(
      f'  cluster: ${estimate.usd_per_hour:.2f}/h; this run: about'
      f' ${estimate.Usd(estimate.min_s):,.2f}'
      + (
          f', plus ${estimate.usd_per_hour:.2f} per hour of quiesce (at most'
          f' ${estimate.Usd(estimate.max_s):,.2f})'
          if estimate.quiesce_steps
          else ''
      )
  )
  return lines


def RenderPlan(title, settings, steps, shapes):
  """The plan of one run as text.

  Args:
    title: first line (which run of a config this is).
    settings: validated Settings.
    steps: plan.PlanRun result.
    shapes: Machines.

  Returns:
    (text, RunEstimate).
  """
  data_set = DataSetOf(settings, ClusterRamBytes(settings, shapes))
  estimate = Estimate(settings, steps, shapes)
  warnings = Warnings(settings, shapes, data_set, estimate)
  sections = [
      [title, '=' * len(title)],
      _ClusterLines(settings, shapes),
      _DataSetLines(settings, data_set),
      [
          'Steps (commands name the servers'
          f' {SERVER_PLACEHOLDER.format("N")}: their addresses at run time)'
      ]
      + ['  ' + line for line in plan.PlanSummary(steps).splitlines()],
      _DurationLines(estimate),
      _CostLines(settings, shapes, estimate),
      ['Warnings'] + [f'  ! {w}' for w in warnings or ['none']],
  ]
  return '\n\n'.join('\n'.join(s) for s in sections), estimate


def RenderOwnMachinesPlan(title, settings, steps, static_vms, server_price):
  """The plan of a run on static VMs (own machines), unknowns named.

  Their vCPUs, memory and disks are read from them when the run starts; the
  key count (unless given), the reads' working sets, populate's duration
  and the commands follow from them, so they are listed as unknown here.

  Args:
    title: first line.
    settings: validated Settings (servers_static).
    steps: plan.PlanRun result, planned for a stand-in memory: only names,
      kinds, durations and loaders are shown.
    static_vms: {group: ['user@address:port', ...]}.
    server_price: cost.ServerPrice (the user's only), or None.

  Returns:
    text.
  """
  database = (
      f'ScyllaDB {settings.release}'
      if settings.engine == 'scylla'
      else f'Apache Cassandra {settings.cassandra_version}'
  )

  def Group(name, count):
    listed = static_vms.get(name) or []
    if listed:
      return f'{count} static VM(s): {", ".join(listed)}'
    return f'{count} x {settings.loader_machine_type or "?"}'

  keys = (
      f'{FormatCount(settings.num_keys)} (--scylla_num_keys)'
      if settings.num_keys
      else 'sized from their memory; give --scylla_num_keys to fix them'
  )
  price = (
      'never from a price table for own machines; none given'
      ' (--scylla_server_price_per_hour)'
      if server_price is None
      else (
          f'${server_price.usd_per_hour:.3f}/h per server'
          f' ({server_price.source})'
      )
  )
  timed = sum(s.expected_duration_s or 0 for s in steps)
  until_done = sum(s.expected_duration_s is None for s in steps)
  sections = [
      [title, '=' * len(title)],
      [
          'Cluster',
          f'  servers: {Group("servers", settings.server_count)}; {database}',
          (
              f'  data: {settings.data_dir}, declared by their disk_specs, used'
              ' as it is (never formatted)'
          ),
          (
              f'  loaders: {Group("loaders", settings.loader_count)};'
              f' cassandra-stress ({settings.stress_tool}'
              f' {settings.stress_release})'
          ),
          (
              f'  workload: RF {settings.replication_factor},'
              f' {settings.consistency_level}, {settings.compaction_strategy};'
              f' phases: {", ".join(settings.phases)}'
          ),
      ],
      [
          'Unknown until the machines are reached',
          (
              '  their vCPUs, memory, NUMA nodes and disks: read from them at'
              ' the start of the run, and published'
          ),
          f'  partitions: {keys}',
          (
              "  the reads' working sets and every command (key ranges follow"
              ' the partitions)'
          ),
          "  populate's duration: no published write rate for these machines",
          f'  price: {price}',
      ],
      ['Steps']
      + [
          f'  {s.name} [{s.kind}, '
          + (
              'until done'
              if s.expected_duration_s is None
              else f'{s.expected_duration_s} s'
          )
          + (f'] on {len(s.runs)} loader(s)' if s.runs else '] on the servers')
          for s in steps
      ]
      + [
          f'  timed steps: {FormatDuration(timed)}, plus {until_done}'
          ' step(s) that run until done'
      ],
  ]
  return '\n\n'.join('\n'.join(s) for s in sections)


def RenderTotals(estimates):
  """One line per run and a total, for configs with several runs.

  Args:
    estimates: [(title, RunEstimate)].

  Returns:
    text.
  """
  lines = ['All runs']
  usd = [e.Usd(e.min_s) for _, e in estimates]
  for (title, e), dollars in zip(estimates, usd):
    shown = 'cost unknown' if dollars is None else f'about ${dollars:,.2f}'
    lines.append(f'  {title}: {FormatDuration(e.min_s)}, {shown}')
  total_s = sum(e.min_s for _, e in estimates)
  total = 'cost unknown' if None in usd else f'about ${sum(usd):,.2f}'
  lines.append(
      f'  total: {FormatDuration(total_s)}, {total} (quiesce at its settle'
      ' window)'
  )
  return '\n'.join(lines)
