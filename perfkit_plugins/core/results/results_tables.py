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

Tables, per run: throughput per step and op type (op/s, per server vCPU,
per shard, per dollar, errors, loader CPU, status); latency percentiles
(ms) per step, op type and kind (`st` service time, `rt` response time of
fixed-rate runs); the fixed-rate ladder (latency against rate); quiesce
times and compactions; steps that failed. For several runs, every figure
two runs share, side by side with the ratio of each run to the first.
"""

import ast
import dataclasses
import json
import os
import re
from typing import Any, Mapping

from perfkit_plugins.core import number_format

STEP_KEY = 'scylla_step'
OP_KEY = 'scylla_op'
KIND_KEY = 'scylla_latency_kind'
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
  """

  metric: str
  value: float
  unit: str
  metadata: Mapping[str, Any]

  @property
  def step(self):
    return self.metadata.get(STEP_KEY)

  @property
  def op(self):
    return self.metadata.get(OP_KEY, '')

  @property
  def kind(self):
    return self.metadata.get(KIND_KEY, '')


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
  metadata = {}
  for entry in labels[1:-1].split('|,|'):
    key, _, value = entry.partition(':')
    metadata[key] = _Typed(value)
  return metadata


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
          sample['metric'], float(sample['value']), sample['unit'], metadata
      )
    except (ValueError, KeyError, TypeError) as e:
      raise ResultsError(f'{name}:{number}: not a PKB sample: {e}') from e
    if row.step is not None:
      rows.append(row)
  return rows


@dataclasses.dataclass(frozen=True)
class Run:
  """The samples of one benchmark run, and what to call it."""

  label: str
  rows: tuple[Row, ...]

  def Steps(self):
    """Step names in the order the run published them."""
    return list(dict.fromkeys(r.step for r in self.rows))

  def Value(self, metric, step, op='', kind=''):
    """The value of a sample, or None."""
    for r in self.rows:
      if (r.metric, r.step, r.op, r.kind) == (metric, step, op, kind):
        return r.value
    return None

  def Find(self, metric):
    """Rows of one metric, in file order."""
    return [r for r in self.rows if r.metric == metric]


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


def LoadRuns(named_texts):
  """Runs from [(file name, contents)], labels made unique by file name.

  Raises:
    ResultsError: a file is unreadable or has no scylla_phases sample.
  """
  runs = []
  for name, text in named_texts:
    rows = ParseResults(text, name)
    if not rows:
      raise ResultsError(f'{name}: no scylla_phases samples')
    runs.append(Run(RunLabel(rows, name), tuple(rows)))
  labels = [r.label for r in runs]
  return [
      dataclasses.replace(run, label=f'{run.label} ({os.path.basename(name)})')
      if labels.count(run.label) > 1
      else run
      for run, (name, _) in zip(runs, named_texts)
  ]


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


def _OpKeys(run, metric):
  """(step, op) pairs with a `metric` sample, in file order."""
  return list(dict.fromkeys((r.step, r.op) for r in run.Find(metric)))


def _Status(run, step):
  for r in run.Find('phase_status'):
    if r.step == step:
      return r.metadata.get('scylla_status', 'ok' if r.value else 'failed')
  return ''


def ThroughputTable(run):
  """Per step and op type: rates, per vCPU/shard/dollar, errors, status."""
  rows = []
  for step, op in _OpKeys(run, 'op_rate'):
    cells = [step, op]
    cells += [_Cell(m, run.Value(m, step, op)) for m, _ in THROUGHPUT_METRICS]
    cpu = run.Value('loader_cpu_max', step)
    cells += [_Cell('', cpu), _Status(run, step)]
    rows.append(tuple(cells))
  columns = ('step', 'op') + tuple(u for _, u in THROUGHPUT_METRICS)
  return Table(
      'Throughput',
      columns + ('loader CPU %', 'status'),
      tuple(rows),
      keys=2,
  )


def LatencyTable(run):
  """Per step, op type and kind: latency percentiles in ms."""
  keys = dict.fromkeys((r.step, r.op, r.kind) for r in run.Find('latency_p99'))
  rows = tuple(
      (step, op, kind)
      + tuple(
          _Cell(m, run.Value(m, step, op, kind)) for m, _ in LATENCY_METRICS
      )
      for step, op, kind in keys
  )
  return Table(
      'Latency (ms; st = service time, rt = response time at a fixed rate)',
      ('step', 'op', 'kind') + tuple(h for _, h in LATENCY_METRICS),
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
  """Latency against the fixed rate: achieved op/s and rt/st percentiles."""
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
          r.step,
          r.metadata.get('scylla_status', ''),
          r.metadata.get('scylla_error', ''),
      )
      for r in run.Find('phase_status')
      if not r.value
  )
  return Table('Failed steps', ('step', 'status', 'error'), rows)


def RunTables(run):
  """Every non-empty table of one run."""
  tables = (
      ThroughputTable(run),
      LatencyTable(run),
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


def RenderReport(runs):
  """The report: each run's tables, then the comparison of several runs."""
  sections = []
  for i, run in enumerate(runs):
    heading = f'[{i + 1}] {run.label}'
    tables = [RenderTable(t) for t in RunTables(run)]
    sections.append('\n\n'.join([heading + '\n' + '=' * len(heading)] + tables))
  if len(runs) > 1:
    sections.append(RenderTable(ComparisonTable(runs)))
  return '\n\n\n'.join(sections)


@dataclasses.dataclass(frozen=True)
class Series:
  """One time series sample: values at seconds since its first point."""

  step: str
  op: str
  kind: str
  unit: str
  times_s: tuple[float, ...]
  values: tuple[float, ...]
  start_ms: float


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
        )
    )
  return series
