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

"""PKB results files of scylla_phases runs as the studies' tables.

Pure: the `scylla-phases-report` command reads the files and prints what
`RenderReport` returns. Input is the newline-delimited JSON PKB writes
(`perfkitbenchmarker_results.json` in the run directory, or --json_path):
one sample per line with `metric`, `value`, `unit`, `timestamp` and either
`labels` (PKB's default --collapse_labels: `|key:value|,|key:value|`, each
value printed with str()) or `metadata` (--nocollapse_labels). Only samples
of this benchmark count: those whose metadata has `scylla_step`; the sample
names and metadata keys are core/results/sample_rows.py's.

A file may hold several runs and a run several repeats of its measured
steps. A run is every sample of one cluster (`scylla_cluster`, else PKB's
run_uri) and one Run stage (`scylla_run_start`): several `--run_stage=run`
on one cluster are several runs. A repeated step publishes one sample per
repeat (`scylla_repeat` 1..R) and an aggregate across them (`scylla_repeat`
0); the tables show the aggregate, or the geometric mean of the repeats
when a file has none, and a figure's confidence interval where its sample
carries one (`scylla_ci_low`, `scylla_ci_high`). Files written before
these keys existed are one run per run_uri, one repeat.

Tables, per run: throughput per step and op type (op/s, the target of a
fixed-rate op type, per server vCPU, per shard, per dollar, errors, loader
CPU, status); latency percentiles (ms) per step, op type and kind (`st`
service time, `rt` response time of fixed-rate runs); the fixed-rate
ladder (latency against rate, the rate achieved, status); quiesce times
and compactions; steps that failed. A step's status is its worst repeat's:
a failure, else a mark (`loader_saturated`, `rate_not_reached`: a
fixed-rate step whose loaders fell behind their schedule), else `ok`. For
several runs, every figure two runs share, side by side with the ratio of
each run to the first.
"""

import ast
import dataclasses
import datetime
import functools
import json
import math
import os
import re
from typing import Any, Mapping, Optional

from perfkit_plugins.core import number_format

STEP_KEY = 'scylla_step'
OP_KEY = 'scylla_op'
KIND_KEY = 'scylla_latency_kind'
# Which cluster and which Run stage a sample belongs to, and its repeat.
CLUSTER_KEY = 'scylla_cluster'
RUN_START_KEY = 'scylla_run_start'
REPEAT_KEY = 'scylla_repeat'
REPEATS_KEY = 'scylla_repeats'
WARMUP_KEY = 'scylla_warmup'
STATUS_KEY = 'scylla_status'
SERVER_KEY = 'scylla_server'
LIMIT_KEY = 'scylla_limit'
WINDOW_START_KEY = 'scylla_window_start'
WINDOW_END_KEY = 'scylla_window_end'
# False on the samples of a step whose fixed rate was not reached.
RATE_REACHED_KEY = 'scylla_rate_reached'
# On loader_start_skew: its share of the step and whether that was marked.
START_SKEW_PCT_KEY = 'scylla_start_skew_pct'
START_SKEW_MARKED_KEY = 'scylla_start_skew_marked'
# A figure's confidence interval (core/stats/intervals.Interval's fields).
CI_PREFIX = 'scylla_ci_'
CI_LOW = 'scylla_ci_low'
CI_HIGH = 'scylla_ci_high'
CI_LEVEL = 'scylla_ci_level'
CI_COVERS = 'scylla_ci_covers'
# scylla_repeat of a sample aggregating every repeat of one run.
AGGREGATE_REPEAT = 0
# PKB's time series metadata keys (perfkitbenchmarker/sample.py).
SERIES_VALUES = 'values'
SERIES_TIMESTAMPS = 'timestamps'
SERIES_INTERVAL = 'interval'

THROUGHPUT_METRICS = (
    ('op_rate', 'op/s'),
    ('op_rate_per_vcpu', 'per vCPU'),
    ('op_rate_per_shard', 'per shard'),
    ('ops_per_dollar', 'op per $'),
    ('dollars_per_million_ops', '$ per M op'),
    ('errors', 'errors'),
    ('duration', 'duration s'),
)
LATENCY_METRICS = (
    ('latency_mean', 'mean'),
    ('latency_p50', 'p50'),
    ('latency_p95', 'p95'),
    ('latency_p99', 'p99'),
    ('latency_p999', 'p99.9'),
    ('latency_max', 'max'),
)
QUIESCE_METRICS = (
    ('populate_time', 'populate'),
    ('time_to_compact', 'to compact'),
    ('total_time_to_quiesce', 'total to quiesce'),
    ('compactions', 'compactions'),
    ('compaction_bytes_in', 'bytes in'),
    ('compaction_bytes_out', 'bytes out'),
)
_SECONDS_METRICS = ('populate_time', 'time_to_compact', 'total_time_to_quiesce')
_BYTES_METRICS = ('compaction_bytes_in', 'compaction_bytes_out')
_NUMBER_RE = re.compile(r'^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$')
# Figures compared between runs, by table.
_COMPARED = (
    ('throughput', ('op_rate', 'op_rate_per_vcpu', 'ops_per_dollar')),
    ('latency', ('latency_p99', 'latency_p999')),
    ('quiesce', tuple(m for m, _ in QUIESCE_METRICS[:3])),
)


class ResultsError(ValueError):
  """A results file cannot be read."""


@dataclasses.dataclass(frozen=True)
class Row:
  """One published sample.

  Attributes:
    metric: sample name.
    value: its value.
    unit: its unit.
    metadata: its metadata, values typed back from PKB's labels.
    run_uri: PKB's run_uri of the sample ('' when absent).
    timestamp: when PKB made the sample (epoch seconds; 0 when absent).
  """

  metric: str
  value: float
  unit: str
  metadata: Mapping[str, Any]
  run_uri: str = ''
  timestamp: float = 0.0

  @property
  def step(self):
    return self.metadata.get(STEP_KEY)

  @property
  def op(self):
    return self.metadata.get(OP_KEY, '')

  @property
  def kind(self):
    return self.metadata.get(KIND_KEY, '')

  @property
  def repeat(self):
    """1..R for one repeat, 0 for the aggregate, None in older files."""
    return self.metadata.get(REPEAT_KEY)

  def Interval(self):
    """(low, high) of the sample's confidence interval, or None.

    None also when a bound is not finite (an unbounded interval says
    nothing a table could show).
    """
    low = _Float(self.metadata.get(CI_LOW))
    high = _Float(self.metadata.get(CI_HIGH))
    if low is None or high is None:
      return None
    if not (math.isfinite(low) and math.isfinite(high)):
      return None
    return low, high


def _Float(value):
  """A metadata value as a float ('inf' too), None when it is not one."""
  if value is None or isinstance(value, bool):
    return None
  try:
    return float(value)
  except (TypeError, ValueError):
    return None


def _Typed(text):
  """A label value back as the number, list or bool str() printed.

  Only whole numbers and bracketed lists (time series) are converted:
  '0,44' (a CPU list) or '2026.3.0' (a version) stay strings.
  """
  if text in ('True', 'False'):
    return text == 'True'
  if _NUMBER_RE.match(text):
    return float(text) if set(text) & set('.eE') else int(text)
  if text.startswith('[') and text.endswith(']'):
    try:
      # A list of numbers (a time series) is JSON, which parses ten times
      # faster than Python's literal syntax; anything else falls through.
      return json.loads(text)
    except ValueError:
      pass
    try:
      return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
      pass
  return text


def ParseLabels(labels):
  """PKB's collapsed labels `|a:1|,|b:x|` -> {'a': 1, 'b': 'x'}.

  Inverts publisher.GetLabelsFromDict, like PKB's LabelsToDict, and types
  the values back (numbers, lists, bools; anything else stays a string).
  """
  if not labels:
    return {}
  if not (labels.startswith('|') and labels.endswith('|')):
    raise ResultsError(f'not PKB labels: {labels[:80]!r}')
  entries = labels[1:-1].split('|,|')
  if '[' not in labels:
    return dict(map(_TypedEntry, entries))
  metadata = {}
  for entry in entries:
    if entry.endswith(']'):
      # A time series: long, never repeated, and a list (mutable): typed
      # afresh rather than cached.
      key, _, value = entry.partition(':')
      metadata[key] = _Typed(value)
    else:
      key, value = _TypedEntry(entry)
      metadata[key] = value
  return metadata


@functools.lru_cache(maxsize=1 << 16)
def _TypedEntry(entry):
  """('key', typed value) of one `key:value` label entry, cached.

  Every sample of a run repeats most of the run's labels (engine, machines,
  tuning, step): typing each distinct entry once makes reading a file of
  30 runs several times faster.
  """
  key, _, value = entry.partition(':')
  return key, _Typed(value)


def ParseResults(text, name='results'):
  """This benchmark's samples of a PKB results file.

  Args:
    text: the file's contents (JSON lines).
    name: how errors name the file.

  Returns:
    list of Row, in file order.

  Raises:
    ResultsError: a line is not a PKB sample.
  """
  rows = []
  for number, line in enumerate(text.splitlines(), 1):
    if not line.strip():
      continue
    try:
      sample = json.loads(line)
      metadata = (
          sample['metadata']
          if 'metadata' in sample
          else ParseLabels(sample.get('labels', ''))
      )
      row = Row(
          sample['metric'],
          float(sample['value']),
          sample['unit'],
          metadata,
          str(sample.get('run_uri') or ''),
          float(sample.get('timestamp') or 0.0),
      )
    except (ValueError, KeyError, TypeError) as e:
      raise ResultsError(f'{name}:{number}: not a PKB sample: {e}') from e
    if row.step is not None:
      rows.append(row)
  return rows


def _MeanOfRepeats(values):
  """Geometric mean when all values are positive, else the arithmetic mean.

  As core/stats/intervals.ClusterValues averages a cluster's repeats: the
  noise of rates and latencies is multiplicative.
  """
  if all(v > 0 for v in values):
    return math.exp(sum(math.log(v) for v in values) / len(values))
  return sum(values) / len(values)


@dataclasses.dataclass(frozen=True)
class Run:
  """The samples of one benchmark run, and what to call it.

  Attributes:
    label: what the report calls it.
    rows: its samples, in file order.
    cluster: the cluster it ran on (`scylla_cluster`, else PKB's run_uri,
      else the file's name).
    run_start: when its Run stage started (epoch seconds), None when the
      samples do not say.
    source: the file it came from.
  """

  label: str
  rows: tuple[Row, ...]
  cluster: str = ''
  run_start: Optional[float] = None
  source: str = ''

  @functools.cached_property
  def _index(self):
    """(metric, step, op, kind) -> rows, every repeat, in file order."""
    index = {}
    for r in self.rows:
      index.setdefault((r.metric, r.step, r.op, r.kind), []).append(r)
    return index

  def Steps(self):
    """Step names in the order the run published them."""
    return list(dict.fromkeys(r.step for r in self.rows))

  def Rows(self, metric, step, op='', kind=''):
    """Every sample of one figure: one per repeat, and the aggregate."""
    return list(self._index.get((metric, step, op, kind), ()))

  def Pick(self, metric, step, op='', kind=''):
    """The sample that stands for a figure of the run, or None.

    The aggregate of the repeats (scylla_repeat 0) when there is one; else,
    when the figure was repeated, a sample holding the geometric mean of
    the repeats (without an interval: a repeat's interval is not the
    mean's); else the figure's first sample.
    """
    rows = self._index.get((metric, step, op, kind))
    if not rows:
      return None
    if len(rows) == 1:
      return rows[0]
    for r in rows:
      if r.repeat == AGGREGATE_REPEAT:
        return r
    repeats = [r for r in rows if r.repeat]
    if not repeats:
      return rows[0]
    metadata = {
        k: v
        for k, v in repeats[0].metadata.items()
        if not k.startswith(CI_PREFIX)
    }
    metadata[REPEAT_KEY] = AGGREGATE_REPEAT
    return dataclasses.replace(
        repeats[0],
        value=_MeanOfRepeats([r.value for r in repeats]),
        metadata=metadata,
    )

  def Value(self, metric, step, op='', kind=''):
    """The value of a figure (see Pick), or None."""
    row = self.Pick(metric, step, op, kind)
    return None if row is None else row.value

  def Find(self, metric):
    """Rows of one metric, in file order."""
    return [r for r in self.rows if r.metric == metric]

  def Repeats(self):
    """Repeats of its measured steps (`scylla_repeats`, else as published)."""
    published = [
        r.metadata[REPEATS_KEY]
        for r in self.rows
        if isinstance(r.metadata.get(REPEATS_KEY), int)
    ]
    if published:
      return max(published)
    return max((r.repeat or 1 for r in self.rows), default=1)

  def Time(self):
    """When it ran: its Run stage's start, else its first sample's time."""
    if self.run_start is not None:
      return self.run_start
    return min((r.timestamp for r in self.rows), default=0.0)

  def Metadata(self, *keys):
    """The first value any sample has for the first key present, or None."""
    for key in keys:
      for r in self.rows:
        value = r.metadata.get(key)
        if value not in (None, ''):
          return value
    return None


def PublishedKind(kinds):
  """The latency kind that stands for a step's op type.

  `rt` where the step ran at a fixed rate (the response time a client
  sees, delays included), else `st`.

  Args:
    kinds: the kinds the step published for one op type.

  Returns:
    The kind, or None for none.
  """
  for kind in ('rt', 'st'):
    if kind in kinds:
      return kind
  return min(kinds, default=None)


def IsWarmup(step, metadata):
  """Whether a step only readies the cluster (never compared)."""
  return bool(metadata.get(WARMUP_KEY)) or str(step).endswith('_warmup')


def IsoTime(epoch_s):
  """Epoch seconds as ISO 8601 in UTC, to the second."""
  return (
      datetime.datetime.fromtimestamp(epoch_s, datetime.timezone.utc)
      .replace(microsecond=0)
      .isoformat()
  )


def RunLabel(rows, name):
  """'<engine> <version> on <n> x <type>' from the samples, else `name`."""
  for row in rows:
    m = row.metadata
    if 'scylla_engine' in m and 'scylla_server_machine_type' in m:
      return (
          f'{m["scylla_engine"]} {m.get("scylla_version", "")} on'
          f' {m.get("scylla_servers", "?")} x {m["scylla_server_machine_type"]}'
      ).replace('  ', ' ')
  return name


def SplitRuns(rows, name):
  """One file's rows -> its runs, in the order they first appear.

  A run is every sample of one cluster and one Run stage: the key is
  (`scylla_cluster`, else the sample's run_uri, else the file's name;
  `scylla_run_start`, None in older files).

  Args:
    rows: the file's rows (ParseResults).
    name: the file's name.

  Returns:
    list of Run, labelled by RunLabel (not yet unique).
  """
  groups = {}
  for r in rows:
    cluster = str(r.metadata.get(CLUSTER_KEY) or r.run_uri or name)
    start = _Float(r.metadata.get(RUN_START_KEY))
    groups.setdefault((cluster, start), []).append(r)
  return [
      Run(RunLabel(group, name), tuple(group), cluster, start, name)
      for (cluster, start), group in groups.items()
  ]


def _UniqueLabels(runs):
  """Labels that tell runs apart: the file's name, then the run's start."""
  labels = [r.label for r in runs]
  unique = []
  for index, run in enumerate(runs):
    if labels.count(run.label) == 1:
      unique.append(run)
      continue
    suffix = os.path.basename(run.source)
    siblings = [
        other
        for other in runs
        if other.label == run.label and other.source == run.source
    ]
    if len(siblings) > 1:
      when = (
          IsoTime(run.run_start)
          if run.run_start is not None
          else f'run {index + 1}'
      )
      suffix = f'{suffix}, {when}'
    unique.append(dataclasses.replace(run, label=f'{run.label} ({suffix})'))
  return unique


def LoadRuns(named_texts):
  """Runs from [(file name, contents)], labels made unique.

  A file may hold several runs (SplitRuns); a run's label gets the file's
  name when another run has the same label, and its start when another
  run of the same file has too.

  Raises:
    ResultsError: a file is unreadable or has no scylla_phases sample.
  """
  runs = []
  for name, text in named_texts:
    rows = ParseResults(text, name)
    if not rows:
      raise ResultsError(f'{name}: no scylla_phases samples')
    runs += SplitRuns(rows, name)
  return _UniqueLabels(runs)


@dataclasses.dataclass(frozen=True)
class Table:
  """A titled table of text cells; `keys` leading columns are left-aligned."""

  title: str
  columns: tuple[str, ...]
  rows: tuple[tuple[str, ...], ...]
  keys: int = 1


def FormatNumber(value):
  """Thousands separators, and decimals only where they matter."""
  if value is None:
    return '-'
  if abs(value) >= 100 or float(value).is_integer():
    return f'{value:,.0f}'
  if abs(value) >= 10:
    return f'{value:.1f}'
  return f'{value:.3g}' if abs(value) >= 0.001 else f'{value:.2e}'


def _Cell(metric, value):
  if value is None:
    return '-'
  if metric in _SECONDS_METRICS:
    return number_format.FormatDuration(value)
  if metric in _BYTES_METRICS:
    return number_format.FormatBytes(int(value))
  return FormatNumber(value)


def FigureCell(run, metric, step, op='', kind=''):
  """A figure of the run, with its interval when its sample has one.

  E.g. '12,345 [12,100, 12,590]'.
  """
  row = run.Pick(metric, step, op, kind)
  if row is None:
    return '-'
  cell = _Cell(metric, row.value)
  bounds = row.Interval()
  if bounds is None:
    return cell
  return f'{cell} [{_Cell(metric, bounds[0])}, {_Cell(metric, bounds[1])}]'


def _OpKeys(run, metric):
  """(step, op) pairs with a `metric` sample, in file order."""
  return list(dict.fromkeys((r.step, r.op) for r in run.Find(metric)))


def _Status(run, step):
  """The step's status: its worst repeat's (a failure, else a mark)."""
  statuses = [r for r in run.Find('phase_status') if r.step == step]
  if not statuses:
    return ''
  worst = min(
      statuses,
      key=lambda r: (bool(r.value), r.metadata.get(STATUS_KEY) == 'ok'),
  )
  return worst.metadata.get(STATUS_KEY, 'ok' if worst.value else 'failed')


def TargetRate(run, step, op):
  """The op/s an op type's loaders were asked for, or None.

  Only for an op type every loader of which ran at a fixed rate: only such
  an op type publishes response times (`rt`), and its `scylla_rate` is
  their rates summed. Files of every release say both.
  """
  row = run.Pick('op_rate', step, op)
  if row is None or not run.Rows('latency_p99', step, op, 'rt'):
    return None
  return row.metadata.get('scylla_rate') or None


def RateMissedSteps(run):
  """Steps a sample of which says their fixed rate was not reached.

  In the order the run published them.
  """
  return list(
      dict.fromkeys(
          r.step for r in run.rows if r.metadata.get(RATE_REACHED_KEY) is False
      )
  )


def ThroughputTable(run):
  """Per step and op type: rates, target, per vCPU/shard/dollar, status.

  The target (op/s) is that of a fixed-rate op type (TargetRate), beside
  the op rate it achieved.
  """
  (rate_metric, rate_unit), *others = THROUGHPUT_METRICS
  rows = []
  for step, op in _OpKeys(run, 'op_rate'):
    cells = (
        step,
        op,
        FigureCell(run, rate_metric, step, op),
        _Cell('', TargetRate(run, step, op)),
    )
    cells += tuple(FigureCell(run, m, step, op) for m, _ in others)
    cpu = run.Value('loader_cpu_max', step)
    rows.append(
        cells + (_Cell('', cpu), StartSkewCell(run, step), _Status(run, step))
    )
  return Table(
      'Throughput',
      ('step', 'op', rate_unit, 'target op/s')
      + tuple(u for _, u in others)
      + ('loader CPU %', 'start skew s', 'status'),
      tuple(rows),
      keys=2,
  )


def StartSkewCell(run, step):
  """The loaders' widest start skew of a step over its repeats.

  With its share of the step when that share was marked
  (step_results.START_SKEW_MARK_PCT): e.g. '0.42', or '12.00 (3.3%)'.
  """
  skews = [r for r in run.Find('loader_start_skew') if r.step == step]
  if not skews:
    return '-'
  widest = max(skews, key=lambda r: r.value)
  cell = f'{widest.value:.2f}'
  if widest.metadata.get(START_SKEW_MARKED_KEY):
    share = widest.metadata.get(START_SKEW_PCT_KEY) or 0.0
    cell += f' ({share:.1f}%)'
  return cell


def LoaderStopMs(run, step):
  """The longest loader JVM stop of a step over its repeats, or None."""
  return max(
      (r.value for r in run.Find('loader_stop_max') if r.step == step),
      default=None,
  )


def LatencyTable(run):
  """Per step, op type and kind: latency percentiles in ms.

  Beside them, the longest stop of any loader's JVM in the step
  (loader_stop_max): a tail no shorter than it may be the loader's own.
  """
  keys = dict.fromkeys((r.step, r.op, r.kind) for r in run.Find('latency_p99'))
  rows = tuple(
      (step, op, kind)
      + tuple(FigureCell(run, m, step, op, kind) for m, _ in LATENCY_METRICS)
      + (_Cell('', LoaderStopMs(run, step)),)
      for step, op, kind in keys
  )
  return Table(
      'Latency (ms; st = service time, rt = response time at a fixed rate)',
      ('step', 'op', 'kind')
      + tuple(h for _, h in LATENCY_METRICS)
      + ('loader stop',),
      rows,
      keys=3,
  )


def LadderPoints(run):
  """The fixed-rate latency ladder: [(rate, step, op)] by rate.

  Steps of the latency phase, each op type with a fixed cluster rate.
  """
  points = {}
  for r in run.Find('op_rate'):
    rate = r.metadata.get('scylla_rate') or 0
    if r.metadata.get('scylla_phase') == 'latency' and rate:
      points[(rate, r.step, r.op)] = True
  return sorted(points)


def LadderTable(run):
  """Latency against the fixed rate: achieved op/s, percentiles, status.

  A step marked `rate_not_reached` measured a queue behind its schedule,
  not the database at its rate: its status says so beside the rate it
  achieved.
  """
  rows = []
  for rate, step, op in LadderPoints(run):
    rows.append(
        (
            FormatNumber(rate),
            step,
            op,
            _Cell('', run.Value('op_rate', step, op)),
        )
        + tuple(
            _Cell('', run.Value(metric, step, op, kind))
            for kind in ('rt', 'st')
            for metric in ('latency_p99', 'latency_p999', 'latency_max')
        )
        + (_Status(run, step),)
    )
  return Table(
      'Latency at fixed rates (ms)',
      (
          'rate op/s',
          'step',
          'op',
          'achieved',
          'rt p99',
          'rt p99.9',
          'rt max',
          'st p99',
          'st p99.9',
          'st max',
          'status',
      ),
      tuple(rows),
      keys=1,
  )


def QuiesceTable(run):
  """Per quiesce step: populate-relative times, compactions and bytes."""
  steps = list(dict.fromkeys(r.step for r in run.Find('compactions')))
  rows = tuple(
      (step,)
      + tuple(_Cell(m, run.Value(m, step)) for m, _ in QUIESCE_METRICS)
      + (_Status(run, step),)
      for step in steps
  )
  return Table(
      'Quiesce',
      ('step',) + tuple(h for _, h in QUIESCE_METRICS) + ('status',),
      rows,
  )


def FailedTable(run):
  """Steps whose phase_status is 0, with the error they recorded."""
  rows = tuple(
      (
          (
              f'{r.step} (repeat {r.repeat})'
              if r.repeat and (r.repeat > 1 or run.Repeats() > 1)
              else r.step
          ),
          r.metadata.get('scylla_status', ''),
          r.metadata.get('scylla_error', ''),
      )
      for r in run.Find('phase_status')
      if not r.value
  )
  return Table('Failed steps', ('step', 'status', 'error'), rows)


def ServerFigure(run, metric, step, combine):
  """A server figure of a step: combine() over servers of their mean
  over repeats; None when no server published it."""
  by_server = {}
  for r in run.Find(metric):
    if r.step == step:
      by_server.setdefault(r.metadata.get(SERVER_KEY), []).append(r.value)
  if not by_server:
    return None
  return combine([sum(v) / len(v) for v in by_server.values()])


def _Mean(values):
  return sum(values) / len(values)


def StepLimit(run, step):
  """Where the step's limit was, over its repeats ('servers', 'none', ...)."""
  limits = dict.fromkeys(
      r.metadata.get(LIMIT_KEY)
      for r in run.Find('op_rate')
      if r.step == step and r.metadata.get(LIMIT_KEY)
  )
  return '/'.join(limits) or '-'


def _BusiestCell(run, step):
  """The busiest server's busy share, and of what: '93 (shard)'."""
  rows = [r for r in run.Find('server_busy_max') if r.step == step]
  if not rows:
    return '-'
  busiest = max(rows, key=lambda r: r.value)
  of = busiest.metadata.get('scylla_server_busy_of', '')
  return f'{FormatNumber(busiest.value)} ({of.split()[-1] if of else "?"})'


# The Servers table's figures: (metric, header, how servers combine, scale).
_SERVER_COLUMNS = (
    ('server_cpu_busy', 'CPU %', max, 1),
    ('server_disk_busy', 'disk busy %', max, 1),
    ('server_disk_read', 'disk read MB/s', sum, 1e-6),
    ('server_disk_write', 'disk write MB/s', sum, 1e-6),
    ('server_net_received', 'net in MB/s', sum, 1e-6),
    ('server_cql_requests', 'CQL req/s', sum, 1),
    ('server_cache_row_hits', 'row hits %', _Mean, 1),
    ('server_io_queue_delay', 'I/O queue ms', max, 1),
    ('server_compaction_backlog', 'backlog', max, 1),
    ('server_dropped_messages', 'dropped', sum, 1),
)


def ServersTable(run):
  """Per stress step: where its limit was, and what the servers did.

  The busiest server's busy share (its busiest shard's for ScyllaDB, else
  its CPU's) is what the limit is judged on; the others are the busiest
  server's CPU and data disk, the servers' disk and network throughput
  together, ScyllaDB's own figures (blank for another engine), and the
  messages Apache Cassandra's nodes dropped (blank for ScyllaDB).
  """
  steps = [
      step
      for step in dict.fromkeys(r.step for r in run.Find('op_rate'))
      if any(r.step == step for r in run.Find('server_cpu_busy'))
      or StepLimit(run, step) != '-'
  ]
  rows = []
  for step in steps:
    cells = [step, StepLimit(run, step), _BusiestCell(run, step)]
    for metric, _, combine, scale in _SERVER_COLUMNS:
      value = ServerFigure(run, metric, step, combine)
      cells.append(FormatNumber(None if value is None else value * scale))
    rows.append(tuple(cells))
  return Table(
      (
          "Servers (limit of each step; busiest: a server's busiest shard, or"
          ' its CPU)'
      ),
      ('step', 'limit', 'busiest %')
      + tuple(header for _, header, _, _ in _SERVER_COLUMNS),
      tuple(rows),
  )


def RunTables(run):
  """Every non-empty table of one run."""
  tables = (
      ThroughputTable(run),
      LatencyTable(run),
      ServersTable(run),
      LadderTable(run),
      QuiesceTable(run),
      FailedTable(run),
  )
  return [t for t in tables if t.rows]


def _ComparedKeys(run, metrics):
  return list(
      dict.fromkeys(
          (r.metric, r.step, r.op, r.kind)
          for r in run.rows
          if r.metric in metrics
      )
  )


def ComparisonTable(runs):
  """Figures every run has, side by side, with each run's ratio to the first.

  Args:
    runs: two or more Run.

  Returns:
    Table with columns table, step, op, figure, one per run, and one ratio
    per run after the first.
  """
  first = runs[0]
  rows = []
  for table, metrics in _COMPARED:
    for metric, step, op, kind in _ComparedKeys(first, metrics):
      values = [run.Value(metric, step, op, kind) for run in runs]
      if None in values:
        continue
      figure = f'{metric} {kind}'.strip()
      ratios = [
          f'{v / values[0]:.2f}x' if values[0] else '-' for v in values[1:]
      ]
      rows.append(
          (table, step, op, figure)
          + tuple(_Cell(metric, v) for v in values)
          + tuple(ratios)
      )
  names = [f'[{i + 1}]' for i in range(len(runs))]
  return Table(
      'Comparison ('
      + '; '.join(f'{n} {r.label}' for n, r in zip(names, runs))
      + ')',
      ('table', 'step', 'op', 'figure')
      + tuple(names)
      + tuple(f'{n}/[1]' for n in names[1:]),
      tuple(rows),
      keys=4,
  )


def RenderTable(table):
  """A table as aligned text: keys left-aligned, figures right-aligned."""
  grid = [table.columns] + list(table.rows)
  widths = [max(len(str(row[i])) for row in grid) for i in range(len(grid[0]))]
  lines = [table.title]
  for row in grid:
    cells = [
        str(c).ljust(w) if i < table.keys else str(c).rjust(w)
        for i, (c, w) in enumerate(zip(row, widths))
    ]
    lines.append('  ' + '  '.join(cells).rstrip())
  return '\n'.join(lines)


def _Notes(run):
  """Lines under a run's heading saying what repeats and intervals mean.

  Empty for a run of one repeat without intervals (older files).
  """
  notes = []
  repeats = run.Repeats()
  if repeats > 1:
    notes.append(
        f'{repeats} repeats of each measured step: every figure is their'
        ' aggregate (the geometric mean of the repeats when the file has no'
        ' aggregate)'
    )
  covers = {}
  for r in run.rows:
    # Only the samples the tables show: a repeated run's aggregates.
    shown = repeats == 1 or r.repeat in (None, AGGREGATE_REPEAT)
    if shown and r.Interval() is not None:
      covers.setdefault(r.metadata.get(CI_COVERS, ''), r.metadata.get(CI_LEVEL))
  if covers:
    level = next(iter(covers.values()))
    name = f'{level:.0%}' if isinstance(level, float) else 'confidence'
    scope = ', '.join(sorted(c for c in covers if c)) or 'unknown'
    notes.append(f'[low, high]: {name} interval (covers: {scope})')
  return ''.join(f'\n{note}' for note in notes)


def RenderReport(runs):
  """The report: each run's tables, then the comparison of several runs."""
  sections = []
  for i, run in enumerate(runs):
    heading = f'[{i + 1}] {run.label}'
    heading += '\n' + '=' * len(heading) + _Notes(run)
    tables = [RenderTable(t) for t in RunTables(run)]
    sections.append('\n\n'.join([heading] + tables))
  if len(runs) > 1:
    sections.append(RenderTable(ComparisonTable(runs)))
  return '\n\n\n'.join(sections)


@dataclasses.dataclass(frozen=True)
class Series:
  """One time series sample: values at seconds since its first point.

  `repeat` is the repeat it belongs to (1..R); 0 in older files. `server`
  is the server a server's series describes ('' for the loaders').
  """

  step: str
  op: str
  kind: str
  unit: str
  times_s: tuple[float, ...]
  values: tuple[float, ...]
  start_ms: float
  repeat: int = 0
  server: str = ''


def SeriesOf(run, metric):
  """The run's time series of one metric, in file order.

  PKB's time series samples carry `values` and `timestamps` (epoch ms, as
  sample_rows publishes them) in their metadata.
  """
  series = []
  for r in run.Find(metric):
    values = r.metadata.get(SERIES_VALUES)
    stamps = r.metadata.get(SERIES_TIMESTAMPS)
    if not values or not stamps:
      continue
    start = stamps[0]
    series.append(
        Series(
            r.step,
            r.op,
            r.kind,
            r.unit,
            tuple((t - start) / 1000.0 for t in stamps),
            tuple(float(v) for v in values),
            start,
            r.repeat or 0,
            str(r.metadata.get(SERVER_KEY) or ''),
        )
    )
  return series
