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

"""The phase plan: settings in, ordered steps with every loader's command out.

Pure: the executor runs the steps in order; a stress step's runs start
together, one per loader, and the step ends when the last one ends.

Sizing choices (docs/measurement.md says what each phase is for):

* Row bytes = column_size x column_count. This ignores the 10-byte key and
  per-cell and per-partition overheads, and caches hold rows with overhead, so
  the real data-to-cache ratio is a little above the nominal one: the error
  is on the side of "larger than RAM", which is the side the phases need.
* "Larger than the cluster's RAM" compares what the nodes store with what they
  can cache. Every key is stored on `replication_factor` nodes and a QUORUM
  read touches several of them, so each node caches its own replicas:
  stored bytes per node / RAM per node = K x row x RF / cluster RAM. That is
  the ratio `data_to_ram_ratio` sets (the c3.2xlarge study: 810,774,192 keys
  of 5 x 34 bytes, RF 3, 3 x 15 GiB: about 8.6). Without RF the same flag
  would mean RF times less caching pressure per node than it says.
  `data_set_bytes` is the size of the unique data the loaders write, before
  replication (what one calls "a 1 TB data set").
* Medium reads: a gaussian puts 95.4% of the reads within +-2 stdev of the
  mean, so its working set is 4 x stdev keys. With the same per-node view,
  4 x stdev x row x RF = medium_working_set_to_ram x cluster RAM. The stdev is
  capped at K / 4, where +-2 stdev span all the keys: cassandra-stress does
  not redraw a gaussian draw outside 1..K, it clamps it to key 1 or K
  (DistributionBoundApache), so a wider gaussian would not read uniformly but
  send most reads to those two keys (gaussian(1..200000,100000,200000), as
  this planner once capped it, puts 1..K within 0.5 stdev of the mean, so
  about 62% of its draws land on key 1 or K).

Threads per loader: populate_threads to populate; latency_threads for every
fixed-rate writer (the latency ladder and the writers of reads during
writes: enough to keep the schedule, no more); rdw_read_threads for the
readers of reads during writes; threads for everything else. Every write
step gives each loader its own slice of the keys (SplitRange), so loaders
never write the same key at once; timed writes wrap around their slice.

Quiesce without populate: the step is still planned (it waits until every
node is idle, which is what the reads after it need, e.g. on a cluster
populated by an earlier run) with `after_populate` False in its metadata, so
nobody reports a populate-relative "time to compact" from it.
"""

import dataclasses
import fractions
import math
import posixpath

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.stress import stress_command

KIND_STRESS = 'stress'
KIND_QUIESCE = 'quiesce'
KIND_FLUSH_QUIESCE = 'flush_quiesce'
# Creates the keyspace and table from one loader before the first stress
# step (stress_command.SchemaCommand); measures nothing.
KIND_SCHEMA = 'schema'
SCHEMA_STEP = 'schema'
ROLE_WRITER = 'writer'
ROLE_READER = 'reader'
ROLE_MIXED = 'mixed'
# A gaussian's +-2 stdev, i.e. 4 stdev of keys, hold 95.4% of its draws.
GAUSSIAN_WORKING_SET_STDEVS = 4


@dataclasses.dataclass(frozen=True)
class KeyRange:
  """Keys first..last inclusive; empty when last == first - 1."""

  first: int
  last: int

  @property
  def count(self):
    return self.last - self.first + 1

  def __str__(self):
    return f'{self.first}..{self.last}'


@dataclasses.dataclass(frozen=True)
class LoaderRun:
  """One cassandra-stress process of a stress step.

  Attributes:
    loader_index: which loader VM (0-based, in the loaders group's order).
    role: 'writer', 'reader' or 'mixed'.
    command: the full shell command line.
    stem: every remote file of the run is this path plus a suffix
      (loader_files.RemotePaths): its stdout and stderr (the driver's log
      and any error that stops cassandra-stress early), its text report
      (`-log file=`), its HDR interval log, its times and CPU samples.
    key_range: the keys this process may touch.
    population: its `-pop` parameter.
    rate: its fixed op/s, 0 when it runs as fast as it can.
    threads: its client threads.
    operations: its `n=`, 0 for a timed run.
    duration_s: its duration, 0 for a counted run.
    start_delay_s: seconds it waits after the step's start before it runs
      (readers during writes), 0 for most.
  """

  loader_index: int
  role: str
  command: str
  stem: str
  key_range: KeyRange
  population: str
  rate: int
  threads: int
  operations: int
  duration_s: int
  start_delay_s: int = 0

  @property
  def paths(self):
    """{file kind: remote path} of the run (loader_files.RemotePaths)."""
    return loader_files.RemotePaths(self.stem)

  @property
  def stdout_path(self):
    """Where cassandra-stress's stdout and stderr go."""
    return self.paths[loader_files.STDOUT]

  @property
  def log_path(self):
    """Its `-log file=` text report."""
    return self.paths[loader_files.LOG]

  @property
  def hdr_path(self):
    """Its HDR interval log."""
    return self.paths[loader_files.HDR]


@dataclasses.dataclass(frozen=True)
class Step:
  """One thing the executor does.

  Attributes:
    name: unique in the plan; also the stem of the step's file names and the
      sub-phase of its samples ('populate', 'read_small', 'latency_5000', ...).
    kind: 'stress' (start `runs` together, wait for all), 'quiesce' (wait
      until no node compacts) or 'flush_quiesce' (flush the keyspace on every
      node, then quiesce).
    phase: the settings.PHASES entry the step belongs to.
    expected_duration_s: seconds when fixed by settings, None when it depends
      on the cluster (populate, quiesce).
    runs: the processes of a stress step, one per loader.
    metadata: what the step does, for sample metadata and the plan listing.
    label: the step's name in samples and reports, the same for every
      repeat of it ('read_small' for the steps 'read_small.r1' and
      'read_small.r2'); '' for the name.
    repeat: which repeat of its round the step belongs to (1..repeats).
  """

  name: str
  kind: str
  phase: str
  expected_duration_s: int | None
  runs: tuple[LoaderRun, ...] = ()
  metadata: dict = dataclasses.field(default_factory=dict)
  label: str = ''
  repeat: int = 1

  @property
  def published_name(self):
    """The step's name in samples and reports (label, else name)."""
    return self.label or self.name


def _Exact(number):
  """A float setting as the decimal fraction the user wrote (0.1 is 1/10)."""
  return fractions.Fraction(str(number))


def SplitRange(first, last, parts):
  """Splits first..last into `parts` disjoint, contiguous ranges.

  Range i is first + floor(i*n/parts) .. first + floor((i+1)*n/parts) - 1 for
  n keys, so sizes differ by at most one and the remainder is spread out.
  With fewer keys than parts some ranges are empty (count 0).

  Args:
    first: first key.
    last: last key (first - 1 for no keys).
    parts: number of ranges, at least 1.

  Returns:
    list of `parts` KeyRange, in key order.
  """
  if parts < 1:
    raise ValueError(f'cannot split into {parts} parts')
  count = last - first + 1
  if count < 0:
    raise ValueError(f'{first}..{last} is not a range')
  bounds = [first + i * count // parts for i in range(parts + 1)]
  return [KeyRange(bounds[i], bounds[i + 1] - 1) for i in range(parts)]


def SplitRate(total, parts):
  """Splits a rate into `parts` integers that add up to `total` exactly.

  Part i is floor((i+1)*total/parts) - floor(i*total/parts): parts differ by
  at most one. Parts are 0 when total < parts.
  """
  if parts < 1:
    raise ValueError(f'cannot split into {parts} parts')
  if total < 0:
    raise ValueError(f'rate {total} is negative')
  return [(i + 1) * total // parts - i * total // parts for i in range(parts)]


def RowBytes(settings):
  """Bytes of column data per partition (one row per partition)."""
  return settings.column_size * settings.column_count


def KeyCount(settings, cluster_ram_bytes):
  """K, the number of partitions populate writes.

  Args:
    settings: Settings.
    cluster_ram_bytes: total RAM of the server VMs; used only when neither
      num_keys nor data_set_bytes is set.

  Returns:
    settings.num_keys; else ceil(data_set_bytes / row bytes); else
    ceil(data_to_ram_ratio x cluster RAM / (row bytes x RF)) (see the module
    docstring for why RF).
  """
  row_bytes = RowBytes(settings)
  if settings.num_keys:
    return settings.num_keys
  if settings.data_set_bytes:
    return -(-settings.data_set_bytes // row_bytes)
  _CheckRam(cluster_ram_bytes, 'data_to_ram_ratio')
  keys = math.ceil(
      _Exact(settings.data_to_ram_ratio)
      * cluster_ram_bytes
      / (row_bytes * settings.replication_factor)
  )
  if keys > settings_limits.MAX_KEYS:
    raise settings_lib.SettingsError(
        'data_to_ram_ratio',
        f'{settings.data_to_ram_ratio} times the cluster RAM makes {keys:,}'
        f' keys, above {settings_limits.MAX_KEYS:,}',
    )
  return keys


def _CheckRam(cluster_ram_bytes, field):
  if not cluster_ram_bytes or cluster_ram_bytes <= 0:
    raise settings_lib.SettingsError(
        field, f'needs the cluster RAM, got {cluster_ram_bytes!r}'
    )


def _Middle(num_keys):
  return (num_keys + 1) // 2


def MediumStdev(num_keys, cluster_ram_bytes, row_bytes, settings):
  """Stdev (keys) giving a +-2 stdev working set of the ratio x cluster RAM.

  4 x stdev x row x RF = ratio x cluster RAM, capped at K / 4 so that +-2
  stdev stay within the keys (module docstring).
  """
  _CheckRam(cluster_ram_bytes, 'medium_working_set_to_ram')
  stdev = (
      _Exact(settings.medium_working_set_to_ram)
      * cluster_ram_bytes
      / (GAUSSIAN_WORKING_SET_STDEVS * row_bytes * settings.replication_factor)
  )
  widest = num_keys // GAUSSIAN_WORKING_SET_STDEVS
  return max(1, min(widest, round(stdev)))


def ReadDistributions(num_keys, cluster_ram_bytes, row_bytes, settings):
  """The read sub-phases' key distributions over 1..K.

  Returns:
    {'small': gaussian around the middle with stdev read_small_stdev,
     'medium': gaussian around the middle with MediumStdev,
     'large': uniform over 1..K}, as stress_command.Population.
  """
  if settings.read_small_stdev > num_keys:
    raise settings_lib.SettingsError(
        'read_small_stdev',
        f'{settings.read_small_stdev} is wider than the {num_keys} keys:'
        ' the small read would visit the whole key range',
    )
  middle = _Middle(num_keys)
  return {
      'small': stress_command.Population(
          'gaussian', 1, num_keys, middle, settings.read_small_stdev
      ),
      'medium': stress_command.Population(
          'gaussian',
          1,
          num_keys,
          middle,
          MediumStdev(num_keys, cluster_ram_bytes, row_bytes, settings),
      ),
      'large': stress_command.Population('uniform', 1, num_keys),
  }


@dataclasses.dataclass(frozen=True)
class _Context:
  """What every phase planner needs."""

  settings: settings_lib.Settings
  target: stress_command.Target
  remote_dir: str
  num_keys: int
  cluster_ram_bytes: int
  # The repeat a round plans (Named), 0 when steps are not repeated.
  repeat: int = 0

  def Named(self, name):
    """A step's name in this round: `name.r<repeat>` when repeated."""
    return f'{name}.r{self.repeat}' if self.repeat else name

  def Distributions(self):
    return ReadDistributions(
        self.num_keys,
        self.cluster_ram_bytes,
        RowBytes(self.settings),
        self.settings,
    )

  def BaseMetadata(self, phase, name):
    s = self.settings
    return {
        'phase': phase,
        'sub_phase': name,
        'keys': self.num_keys,
        'row_bytes': RowBytes(s),
        'loaders': s.loader_count,
        'consistency_level': s.consistency_level,
        'replication_factor': s.replication_factor,
        'compaction_strategy': s.compaction_strategy,
    }


def _Run(ctx, step, index, role, run, key_range, start_delay_s=0):
  """A LoaderRun for `run` (a StressRun without its log paths)."""
  stem = posixpath.join(ctx.remote_dir, f'{ctx.Named(step)}.loader{index}')
  paths = loader_files.RemotePaths(stem)
  run = dataclasses.replace(
      run,
      log_path=paths[loader_files.LOG],
      hdr_path=paths[loader_files.HDR],
      log_interval_s=ctx.settings.hdr_interval_s,
      contact_node=index,
  )
  return LoaderRun(
      loader_index=index,
      role=role,
      command=stress_command.BuildCommand(ctx.target, run),
      stem=stem,
      key_range=key_range,
      population=run.population.Spec(),
      rate=run.fixed_rate,
      threads=run.threads,
      operations=run.operations,
      duration_s=run.duration_s,
      start_delay_s=start_delay_s,
  )


def _Stress(command, population, threads, **kwargs):
  """A StressRun whose log paths _Run fills in."""
  return stress_command.StressRun(
      command=command,
      population=population,
      threads=threads,
      log_path='',
      hdr_path='',
      log_interval_s=0,
      **kwargs,
  )


def _LoaderRanges(first, last, parts, field, what):
  ranges = SplitRange(first, last, parts)
  if min(r.count for r in ranges) == 0:
    raise settings_lib.SettingsError(
        field,
        f'{what} {first}..{last} has fewer keys than the {parts} loaders'
        ' that split it',
    )
  return ranges


def _LoaderRates(total, parts, field):
  rates = SplitRate(total, parts)
  if min(rates) == 0:
    raise settings_lib.SettingsError(
        field,
        f'{total} op/s split over {parts} loaders leaves a loader at'
        f' 0 op/s; give at least {parts} op/s',
    )
  return rates


def _SameForAll(ctx, phase, name, run, extra_metadata=None):
  """A stress step where every loader runs the same timed StressRun."""
  role = {'read': ROLE_READER, 'mixed': ROLE_MIXED}[run.command]
  population = run.population
  key_range = KeyRange(population.first, population.last)
  runs = tuple(
      _Run(ctx, name, i, role, run, key_range)
      for i in range(ctx.settings.loader_count)
  )
  metadata = ctx.BaseMetadata(phase, name)
  metadata.update(
      distribution=population.Spec(),
      key_range=str(key_range),
      threads=run.threads,
      duration_s=run.duration_s,
      **(extra_metadata or {}),
  )
  return Step(name, KIND_STRESS, phase, run.duration_s, runs, metadata)


def _Writes(ctx, phase, name, threads, rate=0, duration_s=0):
  """A stress step where each loader writes its own slice of 1..K.

  Counted (each key written once) without a duration, timed (wrapping
  around the slice) with one; `rate` is the cluster's fixed op/s, 0 for
  as fast as possible.
  """
  s = ctx.settings
  ranges = _LoaderRanges(1, ctx.num_keys, s.loader_count, 'num_keys', 'keys')
  rates = (
      _LoaderRates(rate, s.loader_count, 'latency_rates')
      if rate
      else [0] * s.loader_count
  )
  runs = []
  for i, (key_range, loader_rate) in enumerate(zip(ranges, rates)):
    population = stress_command.Population(
        'seq', key_range.first, key_range.last
    )
    run = _Stress(
        'write',
        population,
        threads,
        operations=0 if duration_s else key_range.count,
        duration_s=duration_s,
        fixed_rate=loader_rate,
    )
    runs.append(_Run(ctx, name, i, ROLE_WRITER, run, key_range))
  metadata = ctx.BaseMetadata(phase, name)
  metadata.update(
      distribution='seq',
      key_range=f'1..{ctx.num_keys}',
      loader_key_ranges=[str(r) for r in ranges],
      threads=threads,
      cluster_rate=rate,
      loader_rates=rates,
  )
  if duration_s:
    # A counted step has no planned length (the key keeps one type).
    metadata['duration_s'] = duration_s
  return Step(
      name, KIND_STRESS, phase, duration_s or None, tuple(runs), metadata
  )


def _QuiesceStep(ctx, phase, name, kind, **extra):
  s = ctx.settings
  metadata = ctx.BaseMetadata(phase, name)
  metadata.update(
      keyspace=s.keyspace,
      poll_s=s.quiesce_poll_s,
      settle_s=s.quiesce_settle_s,
      timeout_s=s.quiesce_timeout_s,
      **extra,
  )
  return Step(name, kind, phase, None, (), metadata)


def _Populate(ctx):
  return [_Writes(ctx, 'populate', 'populate', ctx.settings.populate_threads)]


def _Quiesce(ctx):
  return [
      _QuiesceStep(
          ctx,
          'quiesce',
          'quiesce',
          KIND_QUIESCE,
          after_populate='populate' in ctx.settings.phases,
      )
  ]


def _ReadsOf(ctx, phase, durations):
  """An optional cache warm-up, then one timed read step per distribution.

  Args:
    ctx: _Context.
    phase: 'read' or 'read_cache'.
    durations: {distribution size: seconds}, in the order to run them.

  The warm-up reads the first distribution; its samples are its own step's.
  """
  s = ctx.settings
  dists = ctx.Distributions()
  sizes = list(durations)
  schedule = [(f'{phase}_{size}', size, durations[size]) for size in sizes]
  if len(sizes) == 1:
    schedule = [(phase, sizes[0], durations[sizes[0]])]
  if s.read_warmup_s:
    schedule.insert(0, (f'{phase}_warmup', sizes[0], s.read_warmup_s))
  steps = []
  for name, size, seconds in schedule:
    extra = {'distribution_size': size}
    if name.endswith('_warmup'):
      # Readies the cache for the step after it; no statistic counts it.
      extra['warmup'] = True
    if size == 'medium':
      extra['working_set_to_ram'] = s.medium_working_set_to_ram
    run = _Stress('read', dists[size], s.threads, duration_s=seconds)
    steps.append(_SameForAll(ctx, phase, name, run, extra))
  return steps


def _Read(ctx):
  s = ctx.settings
  return _ReadsOf(
      ctx,
      'read',
      {
          'small': s.read_small_duration_s or s.read_duration_s,
          'medium': s.read_duration_s,
          'large': s.read_duration_s,
      },
  )


def _Latency(ctx):
  """The latency ladder: one fixed-rate write step per rate.

  A flush and quiesce step precedes every rate but the first, so each
  rate starts without the memtables and compaction backlog of the one
  before; none follows the last.
  """
  s = ctx.settings
  steps = []
  for i, rate in enumerate(s.latency_rates):
    name = f'latency_{rate}'
    if i:
      steps.append(
          _QuiesceStep(
              ctx,
              'latency',
              f'flush_quiesce_before_{name}',
              KIND_FLUSH_QUIESCE,
          )
      )
    steps.append(
        _Writes(
            ctx,
            'latency',
            name,
            s.latency_threads,
            rate=rate,
            duration_s=s.latency_duration_s,
        )
    )
  return steps


def RdwWriterCount(loader_count, writer_fraction):
  """Writers of reads during writes: loader_count x fraction, half up.

  At least 1 and at most loader_count - 1: the other loaders read.
  """
  writers = math.floor(
      _Exact(writer_fraction) * loader_count + fractions.Fraction(1, 2)
  )
  return max(1, min(loader_count - 1, writers))


def _ReadsDuringWrites(ctx):
  """One step: fixed-rate writers and uniform readers at the same time.

  The writers write their slices of the first part of the key range to
  keep the cluster flushing and compacting while the other loaders read
  all keys; readers may start later, on the backlog the writes build.
  """
  s = ctx.settings
  name = phase = 'reads_during_writes'
  writers = RdwWriterCount(s.loader_count, s.rdw_writer_fraction)
  readers = s.loader_count - writers
  range_keys = math.floor(_Exact(s.rdw_write_range_fraction) * ctx.num_keys)
  write_ranges = _LoaderRanges(
      1, range_keys, writers, 'rdw_write_range_fraction', 'the write range'
  )
  rates = _LoaderRates(s.rdw_write_rate, writers, 'rdw_write_rate')
  runs = []
  for i, (key_range, rate) in enumerate(zip(write_ranges, rates)):
    population = stress_command.Population(
        'seq', key_range.first, key_range.last
    )
    run = _Stress(
        'write',
        population,
        s.latency_threads,
        fixed_rate=rate,
        duration_s=s.rdw_duration_s,
    )
    runs.append(_Run(ctx, name, i, ROLE_WRITER, run, key_range))
  whole = KeyRange(1, ctx.num_keys)
  read_population = ctx.Distributions()['large']
  # Readers may start later, on the backlog the writes build, and stop with
  # the writers.
  read_duration_s = s.rdw_duration_s - s.rdw_read_delay_s
  read = _Stress(
      'read', read_population, s.rdw_read_threads, duration_s=read_duration_s
  )
  for i in range(writers, s.loader_count):
    runs.append(
        _Run(ctx, name, i, ROLE_READER, read, whole, s.rdw_read_delay_s)
    )
  metadata = ctx.BaseMetadata(phase, name)
  metadata.update(
      writers=writers,
      readers=readers,
      write_rate=s.rdw_write_rate,
      writer_rates=rates,
      write_threads=s.latency_threads,
      write_key_range=f'1..{range_keys}',
      writer_key_ranges=[str(r) for r in write_ranges],
      read_threads=s.rdw_read_threads,
      read_delay_s=s.rdw_read_delay_s,
      read_duration_s=read_duration_s,
      distribution=read_population.Spec(),
      key_range=str(whole),
      duration_s=s.rdw_duration_s,
  )
  return [
      Step(name, KIND_STRESS, phase, s.rdw_duration_s, tuple(runs), metadata)
  ]


def _Mixed(ctx):
  """One `cassandra-stress mixed` step, the same on every loader.

  Maximum throughput at the configured write:read ratio over the chosen
  read distribution; its ratio and distribution go in the metadata so
  results say what mix they measured.
  """
  s = ctx.settings
  run = _Stress(
      'mixed',
      ctx.Distributions()[s.mixed_distribution],
      s.threads,
      duration_s=s.mixed_duration_s,
      write_ratio=s.mixed_write_ratio,
      read_ratio=s.mixed_read_ratio,
  )
  extra = {
      'distribution_size': s.mixed_distribution,
      'write_ratio': s.mixed_write_ratio,
      'read_ratio': s.mixed_read_ratio,
  }
  return [_SameForAll(ctx, 'mixed', 'mixed', run, extra)]


def _WriteOnly(ctx):
  s = ctx.settings
  return [
      _Writes(
          ctx,
          'write_only',
          'write_only',
          s.threads,
          duration_s=s.write_only_duration_s,
      )
  ]


def _ReadCache(ctx):
  return _ReadsOf(
      ctx, 'read_cache', {'small': ctx.settings.read_cache_duration_s}
  )


_PHASE_PLANNERS = {
    'populate': _Populate,
    'quiesce': _Quiesce,
    'read': _Read,
    'latency': _Latency,
    'reads_during_writes': _ReadsDuringWrites,
    'mixed': _Mixed,
    'write_only': _WriteOnly,
    'read_cache': _ReadCache,
}


def PlanRun(
    settings,
    server_ips,
    cluster_ram_bytes,
    stress_path,
    remote_dir,
    java_home='',
):
  """Everything a run does: the schema step, then the selected phases.

  The phases in the order of docs/measurement.md; the schema step, when a
  phase runs cassandra-stress, so loaders starting together never race to
  create it.

  Args:
    settings: validated Settings.
    server_ips: addresses the loaders connect to.
    cluster_ram_bytes: total RAM of the server VMs (sizes K when neither
      num_keys nor data_set_bytes is set, and the medium read distribution).
    stress_path: cassandra-stress on the loaders.
    remote_dir: directory on the loaders for logs and HDR files.
    java_home: JAVA_HOME cassandra-stress runs with ('' for none).

  Returns:
    list of Step.

  Raises:
    settings_lib.SettingsError (a ValueError naming the flag): the settings
      cannot be planned (a loader would get no key or a 0 op/s rate).
  """
  ctx = _NewContext(
      settings,
      server_ips,
      cluster_ram_bytes,
      stress_path,
      remote_dir,
      java_home,
  )
  steps = _PhaseSteps(ctx)
  if any(step.kind == KIND_STRESS for step in steps):
    steps.insert(0, _SchemaStep(ctx, steps[0].phase))
  return steps


def _NewContext(
    settings, server_ips, cluster_ram_bytes, stress_path, remote_dir, java_home
):
  """The _Context every phase planner reads: the key count and the target.

  The key count and the cassandra-stress target (nodes, keyspace, schema)
  are worked out once here, so every step of a plan uses the same ones.
  """
  num_keys = KeyCount(settings, cluster_ram_bytes)
  target = stress_command.Target(
      stress_path=stress_path,
      java_home=java_home,
      nodes=tuple(server_ips),
      keyspace=settings.keyspace,
      replication_factor=settings.replication_factor,
      compaction_strategy=settings.compaction_strategy,
      consistency_level=settings.consistency_level,
      column_size=settings.column_size,
      column_count=settings.column_count,
  )
  return _Context(settings, target, remote_dir, num_keys, cluster_ram_bytes)


# Phases run once: the data set is written and settles once.
ONCE_PHASES = ('populate', 'quiesce')
# Kinds of step that change the data (a later read would meet their
# memtables and compaction backlog).
_WRITING = ('latency', 'reads_during_writes', 'mixed', 'write_only')


def _PhaseSteps(ctx):
  """The selected phases' steps; the measured ones in `repeats` rounds.

  Round k runs every measured phase once (interleaved round-robin, not one
  step's repeats back to back, so slow drifts of the cluster spread over
  every step alike), each step named `<name>.r<k>` with label `<name>`. A
  round after one that wrote starts with a flush and quiesce, so every
  repeat starts from a cluster that has settled as the first did.
  """
  s = ctx.settings
  steps = []
  for phase in ONCE_PHASES:
    if phase in s.phases:
      steps += _PHASE_PLANNERS[phase](ctx)
  measured = [
      p for p in settings_lib.PHASES if p in s.phases and p not in ONCE_PHASES
  ]
  if s.repeats == 1:
    for phase in measured:
      steps += _PHASE_PLANNERS[phase](ctx)
    return steps
  for repeat in range(1, s.repeats + 1):
    round_ctx = dataclasses.replace(ctx, repeat=repeat)
    if repeat > 1 and any(p in _WRITING for p in measured):
      settle = _QuiesceStep(
          round_ctx,
          measured[0],
          f'flush_quiesce_before_round_{repeat}',
          KIND_FLUSH_QUIESCE,
          repeat=repeat,
      )
      steps.append(dataclasses.replace(settle, repeat=repeat))
    for phase in measured:
      for step in _PHASE_PLANNERS[phase](round_ctx):
        metadata = dict(step.metadata, repeat=repeat)
        steps.append(
            dataclasses.replace(
                step,
                name=round_ctx.Named(step.name),
                label=step.name,
                repeat=repeat,
                metadata=metadata,
            )
        )
  return steps


def _SchemaStep(ctx, phase):
  """The schema, created by loader 0 before any loader starts a step."""
  run = LoaderRun(
      loader_index=0,
      role=ROLE_WRITER,
      command=stress_command.SchemaCommand(ctx.target),
      stem=posixpath.join(ctx.remote_dir, f'{SCHEMA_STEP}.loader0'),
      key_range=KeyRange(1, 0),
      population='',
      rate=0,
      threads=1,
      operations=0,
      duration_s=0,
  )
  metadata = ctx.BaseMetadata(phase, SCHEMA_STEP)
  return Step(SCHEMA_STEP, KIND_SCHEMA, phase, 0, (run,), metadata)


def PlanSummary(steps):
  """The plan as text: one block per step, its runs and expected duration."""
  lines = []
  known = sum(s.expected_duration_s or 0 for s in steps)
  unknown = sum(s.expected_duration_s is None for s in steps)
  for step in steps:
    duration = (
        'until done'
        if step.expected_duration_s is None
        else f'{step.expected_duration_s} s'
    )
    lines.append(f'{step.name} [{step.kind}, {duration}]')
    for run in step.runs:
      rate = f' {run.rate} op/s' if run.rate else ''
      delay = (
          f' starts after {run.start_delay_s} s' if run.start_delay_s else ''
      )
      lines.append(
          f'  loader {run.loader_index} {run.role} keys {run.key_range}'
          f' {run.threads} threads{rate}{delay}'
      )
      lines.append(f'    {run.command}')
  lines.append(
      f'expected: {known} s plus {unknown} step(s) that run until done'
  )
  return '\n'.join(lines)
