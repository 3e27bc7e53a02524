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

"""Step results as sample rows: the names, values, units and metadata PKB
publishes.

The PKB shell only wraps each SampleRow: `sample.Sample(row.metric,
row.value, row.unit, row.metadata)`, or, for a row with a `series`,
`sample.CreateTimeSeriesSample(row.series.values, row.series.timestamps_ms,
row.metric, row.unit, row.series.interval_s,
additional_metadata=row.metadata)`. Everything else is decided here, so the
report tool can rely on these names:

* stress steps, per op type (`scylla_op` 'WRITE', 'READ', ..., and 'total'
  when a step has several): op_rate, partition_rate, row_rate, operations,
  errors, duration; latency_mean/p50/p95/p99/p999/max per latency kind
  (`scylla_latency_kind` 'st', and 'rt' for fixed-rate runs);
  op_rate_per_vcpu (total server vCPUs), op_rate_per_shard (total shards,
  only when known), ops_per_dollar and dollars_per_million_ops (only when
  the cluster's price is known); time series op_rate_series and
  latency_p99_series (p99 per latency kind);
* per stress step: loader_cpu_max (busy share of the busiest loader) and,
  when the loaders' JVMs logged their stops, loader_stop_max (the longest
  stop of any loader's JVM in the step's window; metadata
  `scylla_loader_stopped_pct`, the largest share of the window a loader's
  JVM spent stopped, and `scylla_loader_stop_unknown`);
* quiesce steps: populate_time, time_to_compact, total_time_to_quiesce,
  compactions, compaction_bytes_in, compaction_bytes_out;
* every step: phase_status, 1 when the step succeeded (status 'ok',
  'rate_not_reached', or 'loader_saturated' with the action 'mark':
  figures published, marked), else 0 (failed, timeout, saturated with the
  action 'fail'); metadata `scylla_status` ('ok', 'failed', 'timeout',
  'loader_saturated', 'rate_not_reached') and `scylla_error`.

A stress step with fixed-rate op types (step_results.FixedRate) says on
every sample whether they reached their rate (`scylla_rate_reached`); the
samples of each such op type carry its target (`scylla_rate`), the op
rate it achieved (`scylla_achieved_rate`) and the share of its schedule
its loaders completed (`scylla_schedule_share`, which decides).

Figures with a confidence interval carry it in `scylla_ci_*` keys
(CiMetadata): op_rate (and op_rate_per_vcpu, op_rate_per_shard and
ops_per_dollar, proportional to it) and latency_p50/p95/p99/p999 get their
within-run interval (step_results: covers 'within_run'); RepeatRows adds,
for a run that repeats its steps, one row per figure across the repeats
(`scylla_repeat` 0, covers 'within_cluster').

Every metadata key starts with `scylla_` (PKB raises when a benchmark key
collides with one of its own), except the time series keys PKB's
CreateTimeSeriesSample adds itself. Lists in step metadata become
comma-separated strings, which every publisher can store. Every metric and
key, with its unit or type, is in metadata_reference (docs/metadata.md); a
key keeps one type, so a fact with no single value on a sample is left out.
"""

import dataclasses
import math
from typing import Any, Mapping, Optional, Sequence

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import publishable
from perfkit_plugins.core.results import server_rows
from perfkit_plugins.core.results import step_results

PREFIX = 'scylla_'
_LATENCY_FIELDS = (
    ('latency_mean', 'mean_ms'),
    ('latency_p50', 'p50_ms'),
    ('latency_p95', 'p95_ms'),
    ('latency_p99', 'p99_ms'),
    ('latency_p999', 'p999_ms'),
    ('latency_max', 'max_ms'),
)
CI_PREFIX = 'scylla_ci_'
# Rows proportional to op_rate: its relative interval is theirs.
_RATE_ROWS = (
    'op_rate',
    'op_rate_per_vcpu',
    'op_rate_per_shard',
    'ops_per_dollar',
)
# The figures RepeatRows aggregates across repeats.
_REPEATED_METRICS = frozenset(
    _RATE_ROWS + ('latency_p50', 'latency_p95', 'latency_p99', 'latency_p999')
)
# Metadata of one repeat that an aggregate across repeats does not keep.
_PER_REPEAT_KEYS = frozenset({
    'scylla_repeat',
    'scylla_window_start',
    'scylla_window_end',
    'scylla_loader_cpu_max',
    'scylla_loader_cpu_peak',
    'scylla_loader_cpu_unknown',
    'scylla_loader_stop_max_ms',
    'scylla_loader_stopped_pct',
    'scylla_loader_stop_unknown',
    'scylla_achieved_rate',
    'scylla_schedule_share',
})
# Marks an aggregate across repeats takes from any repeat marked: (key, the
# marked value, the status it gives), the status of the last that applies
# standing (step_results.StepStatus's order).
_REPEAT_MARKS = (
    ('scylla_loader_saturated', True, outcomes.STATUS_SATURATED),
    ('scylla_rate_reached', False, outcomes.STATUS_RATE_NOT_REACHED),
)


@dataclasses.dataclass(frozen=True)
class TimeSeries:
  """What sample.CreateTimeSeriesSample needs besides metric and unit.

  Attributes:
    values: one value per interval.
    timestamps_ms: each interval's start, epoch milliseconds (the unit
      PKB's time series consumers divide by 1000).
    interval_s: interval length, seconds.
  """

  values: tuple[float, ...]
  timestamps_ms: tuple[float, ...]
  interval_s: float


@dataclasses.dataclass(frozen=True)
class SampleRow:
  """One sample.

  Attributes:
    metric: the metric name.
    value: its value (0 for a time series, as CreateTimeSeriesSample sets).
    unit: its unit.
    metadata: every key prefixed with `scylla_`.
    series: for a time series row, its points; else None.
  """

  metric: str
  value: float
  unit: str
  metadata: Mapping[str, Any]
  series: Optional[TimeSeries] = None


@dataclasses.dataclass(frozen=True)
class RunContext:
  """What every sample of a run says about the cluster.

  Attributes:
    engine: 'scylla' or 'cassandra'.
    version: the database version that ran.
    servers: number of server VMs.
    server_machine_type: their machine type.
    server_vcpus: vCPUs of all servers together.
    shards: ScyllaDB shards of all servers together; None when unknown
      (e.g. Cassandra).
    server_price: price of one server VM (cost.LookUp), None when unknown.
    tuning: extra metadata (shards per node, cpuset, IRQ CPUs, io
      properties, Cassandra tuning...); keys get the prefix if they lack it.
    cluster: the cluster's identity: PKB's benchmark spec uuid (the samples'
      run_uri), shared by every stage of a staged run and distinct for
      every copy of --num_benchmark_copies.
    run_start: when this Run started (controller clock, epoch seconds):
      tells apart several Run stages on one cluster.
    repeats: rounds of the measured steps (--scylla_repeats).
  """

  engine: str
  version: str
  servers: int
  server_machine_type: str
  server_vcpus: int
  shards: Optional[int] = None
  server_price: Optional[cost.Price] = None
  tuning: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  cluster: str = ''
  run_start: int = 0
  repeats: int = 1

  @property
  def cluster_usd_per_hour(self):
    """All servers' price per hour, or None when unknown."""
    if self.server_price is None:
      return None
    return self.servers * self.server_price.usd_per_hour


def _Key(name):
  return name if name.startswith(PREFIX) else PREFIX + name


COST_COUNTS = 'servers only'
"""What the per-dollar figures count (scylla_cost_counts): not the loaders."""


def _Distribution(population):
  """A -pop option as published: 'uniform(1..10)', 'seq(1..10)'.

  cassandra-stress writes `dist=uniform(1..10)` and `seq=1..10`; a value
  with `=` is not one every PKB publisher carries (publishable). The plan's
  own 'seq' (sequential writes, each loader its slice) stays as it is.
  """
  kind, equals, spec = population.partition('=')
  if not equals:
    return population
  return spec if kind == 'dist' else f'{kind}({spec})'


def _Flat(value):
  if isinstance(value, (list, tuple)):
    return publishable.List(value)
  return value


def _ContextMetadata(context):
  """Metadata of the cluster every sample carries: engine, machines, price.

  Each sample says what it was measured on and at what price, so
  per-vCPU and per-dollar figures can be checked and recomputed.
  """
  metadata = {_Key(k): _Flat(v) for k, v in context.tuning.items()}
  metadata.update({
      'scylla_engine': context.engine,
      'scylla_version': context.version,
      'scylla_servers': context.servers,
      'scylla_server_machine_type': context.server_machine_type,
      'scylla_server_vcpus': context.server_vcpus,
      'scylla_cluster': context.cluster,
      'scylla_run_start': context.run_start,
      'scylla_repeats': context.repeats,
  })
  if context.shards is not None:
    metadata['scylla_shards'] = context.shards
  price = context.server_price
  if price is None:
    what = context.server_machine_type or 'these servers'
    metadata['scylla_price_source'] = (
        f'none: no price known for {what}; give --scylla_server_price_per_hour'
    )
  else:
    metadata.update({
        'scylla_price_usd_per_hour': context.cluster_usd_per_hour,
        'scylla_server_price_usd_per_hour': price.usd_per_hour,
        'scylla_price_source': price.source,
        'scylla_price_date': price.date,
        'scylla_price_region': price.region,
    })
  return metadata


def StepMetadata(step, context):
  """Metadata every sample of a step carries."""
  metadata = {_Key(k): _Flat(v) for k, v in step.metadata.items()}
  if 'distribution' in step.metadata:
    # As the op types' samples publish it, not as the -pop option.
    metadata['scylla_distribution'] = _Distribution(
        step.metadata['distribution']
    )
  metadata.update(_ContextMetadata(context))
  metadata.update(
      scylla_phase=step.phase,
      scylla_step=step.published_name,
      scylla_repeat=step.repeat,
  )
  return metadata


def _OpRuns(step, op_result):
  indexes = set(op_result.loader_indexes)
  return [run for run in step.runs if run.loader_index in indexes]


def _OpMetadata(step, op_result, base, fixed=None):
  """base plus what the loaders that ran one op type did.

  The step's own metadata (in base) describes the whole step; these keys
  describe the op's loaders (in reads during writes the writers' threads,
  rate and keys differ from the readers'). `fixed`, the op's
  step_results.FixedRate when it ran at a fixed rate, adds the op rate
  achieved and the share of the schedule completed.
  """
  runs = _OpRuns(step, op_result)
  populations = sorted({run.population for run in runs})
  threads = {run.threads for run in runs}
  metadata = dict(base)
  if len(threads) == 1:
    # Left out where the loaders differ (the total of reads during writes,
    # whose step says scylla_write_threads and scylla_read_threads), rather
    # than turned into text.
    metadata['scylla_threads'] = threads.pop()
  metadata.update(
      scylla_op=op_result.op,
      scylla_loaders=len(runs),
      scylla_rate=sum(run.rate for run in runs),
      scylla_distribution=(
          'seq'
          if all(p.startswith('seq=') for p in populations)
          else ','.join(_Distribution(p) for p in populations)
      ),
      scylla_key_range=(
          f'{min(r.key_range.first for r in runs)}'
          f'..{max(r.key_range.last for r in runs)}'
      ),
      scylla_window_start=op_result.window_start_s,
      scylla_window_end=op_result.window_end_s,
  )
  if fixed is not None:
    metadata.update(
        scylla_achieved_rate=op_result.op_rate,
        scylla_schedule_share=fixed.share,
    )
  return metadata


def CiMetadata(interval, value):
  """The scylla_ci_* metadata of a figure's confidence interval.

  Keys: scylla_ci_low and scylla_ci_high (the value's unit; left out when
  the interval is unbounded), scylla_ci_level, scylla_ci_method,
  scylla_ci_covers ('within_run', 'within_cluster'), scylla_ci_units (the
  independent units it rests on), scylla_ci_se_log (standard error of
  log(value); left out when unknown), scylla_ci_dof and scylla_ci_warning
  ('' when none).

  Args:
    interval: stats.intervals.Interval of the figure, or of a figure it is
      proportional to.
    value: the published figure; bounds are scaled by value / estimate
      (the same relative interval) when they differ.
  """
  metadata = {
      'scylla_ci_level': interval.level,
      'scylla_ci_method': interval.method,
      'scylla_ci_covers': interval.covers,
      'scylla_ci_units': float(interval.units),
      'scylla_ci_dof': float(interval.dof),
      'scylla_ci_warning': interval.warning,
  }
  if math.isfinite(interval.standard_error):
    metadata['scylla_ci_se_log'] = interval.standard_error
  low, high = interval.low, interval.high
  if value != interval.estimate:
    scale = value / interval.estimate if interval.estimate > 0 else math.nan
    low, high = low * scale, high * scale
  if math.isfinite(low) and math.isfinite(high):
    metadata['scylla_ci_low'] = low
    metadata['scylla_ci_high'] = high
  elif not interval.warning:
    # Every interval withheld says why.
    metadata['scylla_ci_warning'] = (
        'no interval is published: the series gives it no finite bounds'
    )
  return metadata


def _SeriesRow(metric, unit, points, value_of, interval_s, metadata):
  """A time series row of the points value_of does not map to None."""
  kept = [(p.start_s, value_of(p)) for p in points if value_of(p) is not None]
  return SampleRow(metric, 0, unit, metadata, _Series(kept, interval_s))


def _Series(points, interval_s):
  """The TimeSeries of (interval start, value) points."""
  return TimeSeries(
      values=tuple(value for _, value in points),
      timestamps_ms=tuple(start * 1000.0 for start, _ in points),
      interval_s=interval_s,
  )


def _OpRows(step, result, op_result, context, base):
  """The sample rows of one op type of a stress step.

  Rates, counts and duration; rates per vCPU, per shard and per dollar
  where the cluster's size and price are known; the latency percentiles
  of each latency kind; and the op rate and p99 time series. The op rate,
  the rates proportional to it and the percentiles carry their within-run
  intervals (CiMetadata) when the result has them.
  """
  metadata = _OpMetadata(
      step, op_result, base, result.fixed_rates.get(op_result.op)
  )
  rate = op_result.op_rate
  rows = [
      SampleRow('op_rate', rate, 'op/s', metadata),
      SampleRow('partition_rate', op_result.partition_rate, 'pk/s', metadata),
      SampleRow('row_rate', op_result.row_rate, 'row/s', metadata),
      SampleRow('operations', op_result.operations, 'operations', metadata),
      SampleRow('errors', op_result.errors, 'errors', metadata),
      SampleRow('duration', op_result.duration_s, 's', metadata),
  ]
  if context.server_vcpus:
    rows.append(
        SampleRow(
            'op_rate_per_vcpu',
            rate / context.server_vcpus,
            'op/s/vCPU',
            metadata,
        )
    )
  if context.shards:
    rows.append(
        SampleRow(
            'op_rate_per_shard', rate / context.shards, 'op/s/shard', metadata
        )
    )
  usd_per_hour = context.cluster_usd_per_hour
  if usd_per_hour and rate:
    # The servers' price: the loaders drive the benchmark, not the database.
    cost_metadata = dict(metadata, scylla_cost_counts=COST_COUNTS)
    rows.append(
        SampleRow(
            'ops_per_dollar',
            cost.OpsPerDollar(rate, usd_per_hour),
            'op/$',
            cost_metadata,
        )
    )
    rows.append(
        SampleRow(
            'dollars_per_million_ops',
            cost.DollarsPerMillionOps(rate, usd_per_hour),
            '$',
            cost_metadata,
        )
    )
  for kind, summary in sorted(op_result.latency.items()):
    kind_metadata = dict(metadata, scylla_latency_kind=kind)
    kind_intervals = op_result.latency_intervals.get(kind, {})
    for metric, field in _LATENCY_FIELDS:
      value = getattr(summary, field)
      row_metadata = kind_metadata
      if field in kind_intervals:
        row_metadata = dict(
            kind_metadata, **CiMetadata(kind_intervals[field], value)
        )
      rows.append(SampleRow(metric, value, 'ms', row_metadata))
  if op_result.rate_interval is not None:
    rows = [
        dataclasses.replace(
            row,
            metadata=dict(
                row.metadata, **CiMetadata(op_result.rate_interval, row.value)
            ),
        )
        if row.metric in _RATE_ROWS
        else row
        for row in rows
    ]
  st_series = op_result.series.get(step_results.SERVICE_TIME, ())
  rows.append(
      _SeriesRow(
          'op_rate_series',
          'op/s',
          st_series,
          lambda p: p.op_rate,
          result.interval_s,
          metadata,
      )
  )
  for kind, points in sorted(op_result.series.items()):
    rows.append(
        _SeriesRow(
            'latency_p99_series',
            'ms',
            points,
            lambda p: p.p99_ms,
            result.interval_s,
            dict(metadata, scylla_latency_kind=kind),
        )
    )
  return rows


def StatusRow(step, context, status, succeeded, error=''):
  """The phase_status row of a step: 1 when it succeeded, else 0.

  Args:
    step: plan.Step.
    context: RunContext.
    status: 'ok', 'failed', 'timeout', 'loader_saturated' or
      'rate_not_reached'.
    succeeded: whether the step's figures stand: True for 'ok', for
      'rate_not_reached', and for 'loader_saturated' under the action
      'mark' (they are published, marked).
    error: what went wrong, '' if nothing.
  """
  metadata = StepMetadata(step, context)
  metadata.update(scylla_status=status, scylla_error=error)
  return SampleRow('phase_status', 1 if succeeded else 0, '', metadata)


def StressRows(step, result, context):
  """Every row of a stress step that gave results.

  Args:
    step: plan.Step.
    result: step_results.StepResult.
    context: RunContext.

  Returns:
    list of SampleRow: per op type its rows, then loader_cpu_max and
    loader_stop_max (when known), loader_start_skew, loader_end_skew, the
    servers' rows (server_rows) and phase_status.
  """
  base = StepMetadata(step, context)
  base.update(
      scylla_status=result.status,
      scylla_loader_saturated=result.saturated,
      scylla_interval_s=result.interval_s,
  )
  if result.loader_cpu_max_pct is not None:
    base['scylla_loader_cpu_max'] = result.loader_cpu_max_pct
    base['scylla_loader_cpu_peak'] = result.loader_cpu_peak_pct
  if result.cpu_problems:
    base['scylla_loader_cpu_unknown'] = '; '.join(result.cpu_problems)
  if result.loader_stop_max_ms is not None:
    base['scylla_loader_stop_max_ms'] = result.loader_stop_max_ms
  if result.loader_stopped_pct is not None:
    base['scylla_loader_stopped_pct'] = result.loader_stopped_pct
  if result.stop_problems:
    base['scylla_loader_stop_unknown'] = '; '.join(result.stop_problems)
  if result.fixed_rates:
    base['scylla_rate_reached'] = (
        result.status != outcomes.STATUS_RATE_NOT_REACHED
    )
  base.update(server_rows.LimitMetadata(result))
  rows = []
  for op_result in result.ops.values():
    rows += _OpRows(step, result, op_result, context, base)
  if result.loader_cpu_max_pct is not None:
    rows.append(
        SampleRow('loader_cpu_max', result.loader_cpu_max_pct, '%', base)
    )
  if result.loader_stop_max_ms is not None:
    rows.append(
        SampleRow('loader_stop_max', result.loader_stop_max_ms, 'ms', base)
    )
  rows.append(
      SampleRow(
          'loader_start_skew',
          result.loader_start_skew_s,
          's',
          dict(
              base,
              scylla_start_skew_pct=result.start_skew_pct,
              scylla_start_skew_marked=result.start_skew_marked,
          ),
      )
  )
  rows.append(SampleRow('loader_end_skew', result.loader_end_skew_s, 's', base))
  rows += [_FigureRow(f) for f in server_rows.ServerRows(result, base)]
  rows.append(StatusRow(step, context, result.status, succeeded=True))
  return rows


def _FigureRow(figure):
  """The SampleRow of a server_rows.Figure."""
  if figure.points is None:
    return SampleRow(figure.metric, figure.value, figure.unit, figure.metadata)
  return SampleRow(
      figure.metric,
      0,
      figure.unit,
      figure.metadata,
      _Series(figure.points, figure.interval_s),
  )


def QuiesceRows(step, result, context):
  """Every row of a quiesce or flush_quiesce step.

  Populate-relative times come only from the quiesce step that follows
  populate (`after_populate` in its metadata); a flush_quiesce step reports
  the time to compact after the load before it; every quiesce step
  reports the compactions that ended during it.

  Args:
    step: plan.Step of kind 'quiesce' or 'flush_quiesce'.
    result: core.quiesce_timing.QuiesceResult.
    context: RunContext.

  Returns:
    list of SampleRow.
  """
  status = (
      outcomes.STATUS_OK
      if result.status == quiesce_timing.QUIESCED
      else outcomes.STATUS_TIMEOUT
  )
  metadata = StepMetadata(step, context)
  metadata.update(
      scylla_status=status,
      scylla_quiesce_polls=result.polls,
      scylla_quiesce_wait_s=result.wait_s,
      scylla_nodes_without_history=_Flat(result.nodes_without_history),
  )
  if result.busy_until_s is not None:
    metadata['scylla_busy_until_s'] = result.busy_until_s
  times = []
  if step.kind == 'quiesce' and step.metadata.get('after_populate'):
    times = [
        ('populate_time', result.populate_time_s),
        ('time_to_compact', result.time_to_compact_s),
        ('total_time_to_quiesce', result.total_time_to_quiesce_s),
    ]
  elif step.kind == 'flush_quiesce':
    times = [('time_to_compact', result.time_to_compact_s)]
  rows = [SampleRow(metric, value, 's', metadata) for metric, value in times]
  rows += [
      SampleRow('compactions', result.compactions, 'compactions', metadata),
      SampleRow('compaction_bytes_in', result.bytes_in, 'bytes', metadata),
      SampleRow('compaction_bytes_out', result.bytes_out, 'bytes', metadata),
  ]
  error = ''
  if status == outcomes.STATUS_TIMEOUT:
    error = (
        f'compactions did not settle within {step.metadata.get("timeout_s")} s'
    )
  rows.append(
      StatusRow(
          step,
          context,
          status,
          succeeded=status == outcomes.STATUS_OK,
          error=error,
      )
  )
  return rows


def OutcomeRows(outcome, context):
  """The sample rows of one step's outcome (SampleRow list).

  A step without figures (failed, or not run after an earlier failure) still
  gets its phase_status row, so a reader sees what was not measured and why.
  """
  step = outcome.step
  if outcome.result is None or step.kind == plan.KIND_SCHEMA:
    return [
        StatusRow(
            step,
            context,
            outcome.status,
            succeeded=outcome.result is not None,
            error=outcome.error,
        )
    ]
  if step.kind == plan.KIND_STRESS:
    return StressRows(step, outcome.result, context)
  return QuiesceRows(step, outcome.result, context)


def _StepKey(row):
  """What identifies the step (one repeat of it) a row belongs to."""
  metadata = row.metadata
  return tuple(
      metadata.get(PREFIX + key)
      for key in ('cluster', 'run_start', 'step', 'repeat')
  )


def RepeatRows(rows: Sequence[SampleRow]) -> list[SampleRow]:
  """Rows of each figure across the repeats of its step on one cluster.

  For each step label, op type, latency kind and figure (op_rate,
  op_rate_per_vcpu, op_rate_per_shard, ops_per_dollar,
  latency_p50/p95/p99/p999) that at least 2 repeats measured, one row:
  the geometric mean of the repeats' values
  (stats.intervals.MeanOfUnits, covering 'within_cluster': this cluster's
  run-to-run noise, nothing about other clusters) with its interval in
  the scylla_ci_* keys. Its metadata is the first repeat's, with
  `scylla_repeat` 0 (across repeats), `scylla_repeats_aggregated` the
  repeats averaged (e.g. '1,3' when repeat 2 failed), the loaders marked
  saturated and the fixed rate marked not reached if they were in any
  repeat (with that repeat's status), and without what belongs to one
  repeat: its window, its loaders' CPU, the rate it achieved and its
  within-run interval.

  Warm-up steps (`scylla_warmup`), steps that did not succeed
  (phase_status 0), time series and rows of runs without repeats are left
  out. Rows are grouped by cluster and Run start too, so the rows of
  several Runs can be given together.

  Args:
    rows: every SampleRow of a Run (all steps, all repeats).

  Returns:
    The new rows, in the order their figures first appear; [] when no
    step was repeated.
  """
  failed = {
      _StepKey(row)
      for row in rows
      if row.metric == 'phase_status' and not row.value
  }
  groups = {}
  for row in rows:
    metadata = row.metadata
    if (
        row.series is not None
        or row.metric not in _REPEATED_METRICS
        or metadata.get('scylla_warmup')
        or not metadata.get('scylla_repeat')
        or metadata.get('scylla_repeats', 1) < 2
        or _StepKey(row) in failed
        or not math.isfinite(row.value)
    ):
      continue
    figure = tuple(
        metadata.get(PREFIX + key)
        for key in ('cluster', 'run_start', 'step', 'op', 'latency_kind')
    ) + (row.metric,)
    groups.setdefault(figure, {}).setdefault(metadata['scylla_repeat'], row)
  if not any(len(by_repeat) > 1 for by_repeat in groups.values()):
    return []
  # pylint: disable-next=import-outside-toplevel  # scipy: not at pkb.py start
  from perfkit_plugins.core.stats import intervals

  result = []
  for by_repeat in groups.values():
    if len(by_repeat) < 2:
      continue
    repeats = sorted(by_repeat)
    interval = intervals.MeanOfUnits(
        [by_repeat[r].value for r in repeats],
        step_results.CONFIDENCE_LEVEL,
        intervals.WITHIN_CLUSTER,
    )
    first = by_repeat[repeats[0]]
    metadata = {
        key: value
        for key, value in first.metadata.items()
        if key not in _PER_REPEAT_KEYS and not key.startswith(CI_PREFIX)
    }
    metadata.update(
        scylla_repeat=0,
        scylla_repeats_aggregated=_Flat(repeats),
        **CiMetadata(interval, interval.estimate),
    )
    for key, marked, status in _REPEAT_MARKS:
      if any(by_repeat[r].metadata.get(key) == marked for r in repeats):
        metadata.update({key: marked, 'scylla_status': status})
    result.append(
        SampleRow(first.metric, interval.estimate, first.unit, metadata)
    )
  return result
