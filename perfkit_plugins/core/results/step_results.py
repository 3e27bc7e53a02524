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

"""A stress step's results, from the records and outputs of its loaders.

Pure: phase_runner runs the step and pulls the files, run_files reads them;
this module computes. The rules (docs/measurement.md, on the shared window):

* Every loader's output must be complete (loader_checks.py): a total with a
  loader missing is never published; an HDR log with fewer operations than
  its run's text log counts was cut, even when it parses
  (HdrCountProblems names such loaders).
* Per op type, merged across the loaders that ran it (writers and readers
  of reads during writes are separate groups; with several op types, also
  `total` over all loaders):
  * Op rate: the loaders' interval lines summed over the window all of
    them share (stress_output.CommonWindowRate), each loader placed on the
    controller's clock by the first interval start of its HDR log
    corrected by its clock offset.
  * Partition and row rates: the op rate times the partitions and rows per
    operation of the loaders' Results blocks, so the three rates describe
    the same window.
  * Latency: percentiles of the HDR histograms of every operation of the
    step (whole logs) summed across loaders (histograms.MergeHdrLogs),
    never an average of per-loader percentiles. Service time (`st`) always;
    for op types run with `-rate fixed=`, also response time (`rt`,
    measured from the intended schedule, corrected for coordinated
    omission), which a fixed-rate run without `rt` histograms fails;
    `total` gets `rt` only when every loader ran at a fixed rate.
  * Operations, partitions and errors: summed over loaders.
  * Time series: per HDR interval, the op rate and latency percentiles of
    the merged histograms.
  * Within-run confidence intervals (stats.intervals, covering this run
    only) of the op rate and of the p50, p95, p99 and p99.9 of each latency
    kind: batch means over the op rate series inside the common window,
    and Woodruff's interval over the per-interval histograms (RateInterval,
    PercentileIntervals); none (unbounded, with the reason) for a step of
    too few HDR intervals.
* Loader CPU (loader_checks.py): a step whose busiest loader was busy for at
  least `loader_cpu_threshold` percent of the step is saturated; with
  `loader_saturation_action` 'fail' that fails the step, with 'mark' its
  status says so.
* Fixed rates (FixedRate): an op type every loader of which ran at a fixed
  rate for a duration reached its rate when its loaders completed at least
  MIN_SCHEDULE_SHARE of the operations their schedules held; a step with
  one that did not has the status 'rate_not_reached' (before
  'loader_saturated'): its figures are published, marked, and the run
  goes on.
* Loader JVM stops (LoaderStops): the longest stop of any loader's JVM
  inside the step's window and the largest share of the window a loader's
  JVM spent stopped, from the stop logs (core/stress/loader_jvm.py), to
  read beside the tail latencies they can inflate.
* Start and end skew (LoaderSkews): how far apart the loaders' first and
  last HDR intervals lie; every second of start skew is a second of the
  step outside the window all loaders share, and a step whose start skew
  reaches START_SKEW_MARK_PCT of its length is marked.

Times are epoch seconds on the controller's clock unless said otherwise.
"""

import dataclasses
import math
from typing import Mapping, Optional, TYPE_CHECKING

from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_checks
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_output

if TYPE_CHECKING:
  # For annotations only: importing it loads scipy, which pkb.py start-up
  # must not (the functions that compute intervals import it).
  from perfkit_plugins.core.stats import intervals

TOTAL = 'total'
SERVICE_TIME = 'st'
RESPONSE_TIME = 'rt'
CONFIDENCE_LEVEL = 0.95
# The published percentiles that get an interval: HistogramSummary field ->
# the percentile as a fraction.
PERCENTILE_FIELDS = (
    ('p50_ms', 0.5),
    ('p95_ms', 0.95),
    ('p99_ms', 0.99),
    ('p999_ms', 0.999),
)
# A step whose loaders' starts lie this share of its length apart, or more,
# is marked (StepResult.start_skew_marked).
START_SKEW_MARK_PCT = 2.0
# A series step counts in the op rate's interval when at least this share
# of it lies in the common window (see RateInterval).
_INSIDE_SHARE = 0.9
# The op type of single-type runs, by LoaderRun.role; mixed runs name their
# op types in their Results block.
_ROLE_OPS = {'writer': 'WRITE', 'reader': 'READ'}
# A fixed-rate op type reached its rate when its loaders completed at least
# this share of the operations their schedules held (FixedRate).
# cassandra-stress's fixed-rate limiter gives operation i of a run the
# intended start `start + i / rate` and never drops one: a loader that falls
# behind issues its late operations as soon as a thread is free, so it
# completes its whole schedule unless it cannot keep up for good, and what
# it leaves undone is the queue its response times measure. Every real
# fixed-rate run in tests/testdata (stress, lab) completed 100.05% to
# 100.11% of its schedule (30,016 of 30,000 operations at 1,000 op/s for
# 30 s). The op rate over the run's window is no such measure: the window
# also holds the start-up before the schedule got going (23 operations in
# the first second of the reads-during-writes writer, which then completed
# 30,015 of its 30,000 over a 31 s window: 968 op/s), so a 10 s step that
# kept its schedule would look 10% short. 5% left undone is a queue of 5%
# of the step (90 s of an 1,800 s step), far beyond any latency the step
# means to measure; stalls the loaders catch up on stay unmarked.
MIN_SCHEDULE_SHARE = 0.95


@dataclasses.dataclass(frozen=True)
class OpResult:
  """Figures of one op type of a step (or `total` over all of them).

  Attributes:
    op: 'WRITE', 'READ', ... or 'total'.
    loader_indexes: the loaders that ran it.
    op_rate: op/s of those loaders together over their common window.
    partition_rate: pk/s over the same window.
    row_rate: row/s over the same window.
    window_start_s: start of the common window.
    window_end_s: end of the common window.
    start_s: first HDR interval start of those loaders.
    end_s: last HDR interval end of those loaders.
    operations: operations, summed over loaders.
    partitions: partitions, summed over loaders.
    errors: errors, summed over loaders.
    latency: kind ('st', 'rt') -> merged latency statistics.
    series: kind -> merged per-interval statistics (histograms.SeriesPoint).
    rate_interval: op_rate's within-run interval (RateInterval): batch
      means of the per-interval op rates, scaled to op_rate; None when not
      computed.
    latency_intervals: kind -> HistogramSummary field ('p50_ms', ...) ->
      that percentile's within-run interval (PercentileIntervals); its
      estimate is the published percentile.
  """

  op: str
  loader_indexes: tuple[int, ...]
  op_rate: float
  partition_rate: float
  row_rate: float
  window_start_s: float
  window_end_s: float
  start_s: float
  end_s: float
  operations: int
  partitions: int
  errors: int
  latency: Mapping[str, histograms.HistogramSummary]
  series: Mapping[str, tuple[histograms.SeriesPoint, ...]]
  rate_interval: Optional['intervals.Interval'] = None
  latency_intervals: Mapping[str, Mapping[str, 'intervals.Interval']] = (
      dataclasses.field(default_factory=dict)
  )

  @property
  def duration_s(self):
    return self.end_s - self.start_s


def OpsOf(run, parsed):
  """The op types a run performed, in name order."""
  if run.role in _ROLE_OPS:
    return (_ROLE_OPS[run.role],)
  return tuple(sorted(parsed.results.by_op_type))


def _LinesOf(parsed, source, op):
  """A run's interval lines of type `source`, renamed `op`.

  Single-type runs print only `total` lines: those are their op type's.
  """
  return tuple(
      dataclasses.replace(line, op_type=op)
      for line in parsed.intervals
      if line.op_type == source
  )


def _TextOps(parsed, source, op):
  """Operations of type op the loader's text log counts at its end."""
  lines = _LinesOf(parsed, source, op)
  return lines[-1].total_ops if lines else 0


def _OpTotals(parsed, source):
  results = parsed.results
  return results.total if source == TOTAL else results.by_op_type[source]


def _Ratio(numerator, denominator):
  return numerator / denominator if denominator else 0.0


def RateInterval(op_rate, points, window_start_s, window_end_s):
  """The within-run interval of a published op rate.

  stats.intervals.MeanOfSeries (batch means) over the op rates of the
  series steps that lie in the loaders' common window, the window of the
  published rate; the interval is then scaled to the published rate
  (low = op_rate x low / mean, same for high): the same relative
  uncertainty around the published figure, which comes from the text logs
  over the exact window and so differs a little from the mean of the
  steps.

  Args:
    op_rate: the published op rate (OpResult.op_rate).
    points: the op's service time series (histograms.SeriesPoint).
    window_start_s: start of the common window.
    window_end_s: its end.

  Returns:
    stats.intervals.Interval with estimate op_rate, covering within_run;
    unbounded (bounds -inf and inf, a warning) with too few steps.
  """
  # pylint: disable-next=import-outside-toplevel  # scipy: not at pkb.py start
  from perfkit_plugins.core.stats import intervals
  # The published rate counts only the window all loaders share. Steps
  # outside it hold the ramp of loaders that started early or a loader's
  # last, partial interval (a step of 1 s holding 0.4 s of operations):
  # they would pull the mean down and add noise the published rate does
  # not have. A step counts when 90% of it lies in the window, so the
  # jitter of interval ends (a few ms) does not drop whole steps.
  values = [
      p.op_rate
      for p in points
      if min(p.end_s, window_end_s) - max(p.start_s, window_start_s)
      >= _INSIDE_SHARE * (p.end_s - p.start_s)
  ]
  if not values:
    return intervals.Interval(
        estimate=op_rate,
        low=-math.inf,
        high=math.inf,
        level=CONFIDENCE_LEVEL,
        method='unbounded',
        covers=intervals.WITHIN_RUN,
        units=0,
        standard_error=math.inf,
        dof=0,
        warning='no series interval lies in the common window',
    )
  interval = intervals.MeanOfSeries(values, CONFIDENCE_LEVEL)
  if interval.estimate <= 0:
    return dataclasses.replace(
        interval, estimate=op_rate, low=-math.inf, high=math.inf
    )
  scale = op_rate / interval.estimate
  return dataclasses.replace(
      interval,
      estimate=op_rate,
      low=interval.low * scale,
      high=interval.high * scale,
  )


def PercentileIntervals(summary, step_counts):
  """Within-run intervals of the published percentiles of one tag.

  stats.intervals.PercentileOfIntervals (Woodruff's interval, batch means
  over time intervals) on the tag's bucket counts per series step, the
  loaders' summed (histograms.StepCounts). Its buckets are groups of the
  histograms' (at most 0.8% wide), the group holding the published
  percentile valued at it, so each estimate equals the published
  percentile and bounds are bucket values, to 0.8%. A percentile with
  fewer than intervals.MIN_TAIL_OPERATIONS operations beyond it
  (intervals.TooFewOperations) carries that warning; one of fewer steps
  than intervals.MinPercentileIntervals(q) is unbounded and says why.

  Args:
    summary: the tag's histograms.HistogramSummary (the published figures).
    step_counts: the tag's histograms.StepCounts.

  Returns:
    HistogramSummary field ('p50_ms', ...) -> stats.intervals.Interval.
  """
  # pylint: disable-next=import-outside-toplevel  # scipy: not at pkb.py start
  from perfkit_plugins.core.stats import intervals

  matrix = step_counts.Matrix()
  result = {}
  for field, q in PERCENTILE_FIELDS:
    value = getattr(summary, field)
    result[field] = intervals.PercentileOfIntervals(
        matrix, step_counts.ValuesWith(value), q, CONFIDENCE_LEVEL
    )
  return result


def ResultOfOp(op, members, merge, kinds, problems):
  """OpResult of the loaders in members.

  Args:
    op: the op type, or TOTAL.
    members: [(loader_files.LoaderRecord, StressOutput, source)], source
      being the name of the loader's lines and totals that hold op (TOTAL
      for single-type runs).
    merge: histograms.HdrMerge of the step; with step_counts of the op's
      tags, the result gets within-run intervals of its percentiles.
    kinds: latency kinds to report.
    problems: list that receives what is wrong.

  Returns:
    OpResult, or None with the problem recorded.
  """
  timelines = {}
  operations = partitions = errors = 0
  op_rates = partition_rates = row_rates = 0.0
  for record, parsed, source in members:
    timelines[record.name] = stress_output.LoaderTimeline(
        start_s=merge.spans[record.name][0],
        intervals=_LinesOf(parsed, source, op),
    )
    totals = _OpTotals(parsed, source)
    operations += _TextOps(parsed, source, op)
    partitions += totals.partitions
    errors += totals.errors
    op_rates += totals.op_rate
    partition_rates += totals.partition_rate
    row_rates += totals.row_rate
  try:
    window = stress_output.CommonWindowRate(timelines, op)
  except stress_output.StressOutputError as e:
    problems.append(f'{op}: {e}')
    return None
  latency, series, latency_intervals = {}, {}, {}
  for kind in kinds:
    tag = f'{op}-{kind}'
    if tag not in merge.summaries:
      problems.append(
          f'{op}: no {tag} histograms in the HDR logs of {", ".join(timelines)}'
      )
      continue
    latency[kind] = merge.summaries[tag]
    series[kind] = merge.series.get(tag, ())
    if tag in merge.step_counts:
      latency_intervals[kind] = PercentileIntervals(
          latency[kind], merge.step_counts[tag]
      )
  rate_interval = None
  if series.get(SERVICE_TIME):
    rate_interval = RateInterval(
        window.op_rate, series[SERVICE_TIME], window.start_s, window.end_s
    )
  spans = [merge.spans[record.name] for record, _, _ in members]
  return OpResult(
      op=op,
      loader_indexes=tuple(record.loader_index for record, _, _ in members),
      op_rate=window.op_rate,
      partition_rate=window.op_rate * _Ratio(partition_rates, op_rates),
      row_rate=window.op_rate * _Ratio(row_rates, op_rates),
      window_start_s=window.start_s,
      window_end_s=window.end_s,
      start_s=min(start for start, _ in spans),
      end_s=max(end for _, end in spans),
      operations=operations,
      partitions=partitions,
      errors=errors,
      latency=latency,
      series=series,
      rate_interval=rate_interval,
      latency_intervals=latency_intervals,
  )


def HdrCountProblems(groups, merge):
  """Loaders whose HDR log holds fewer operations than their text log.

  cassandra-stress records every operation of a run in both logs (their
  counts are equal in every real run in tests/testdata/stress); an HDR log
  cut at a line boundary still parses, but holds fewer operations.

  Args:
    groups: op -> [(loader_files.LoaderRecord, StressOutput, source)], as
      ResultOfOp's members.
    merge: histograms.HdrMerge of the step.
  """
  problems = []
  for op, members in sorted(groups.items()):
    for record, parsed, source in members:
      text_ops = _TextOps(parsed, source, op)
      hdr_ops = merge.counts[record.name].get(f'{op}-{SERVICE_TIME}', 0)
      if hdr_ops < text_ops - _OpTotals(parsed, source).errors:
        problems.append(
            f'{record.name}: HDR log {record.remote_files[loader_files.HDR]}'
            f' holds {hdr_ops:,} {op} operations, its text log {text_ops:,}'
            ' (cut?)'
        )
  return problems


@dataclasses.dataclass(frozen=True)
class FixedRate:
  """What the loaders of a fixed-rate op type were asked for and did.

  Attributes:
    target: op/s, the loaders' fixed rates summed.
    scheduled: operations their schedules held, each loader's rate times
      its duration, summed.
    operations: operations they completed (OpResult.operations).
  """

  target: int
  scheduled: int
  operations: int

  @property
  def share(self):
    """The share of the schedule completed (1.0: all of it)."""
    return self.operations / self.scheduled

  @property
  def reached(self):
    """Whether the loaders kept the rate (MIN_SCHEDULE_SHARE)."""
    return self.share >= MIN_SCHEDULE_SHARE


def FixedRates(runs, ops):
  """The FixedRate of each op type whose loaders all had a schedule.

  Args:
    runs: the step's plan.LoaderRun.
    ops: op type -> OpResult.

  Returns:
    op type -> FixedRate, for the op types every loader of which ran at a
    fixed rate for a duration (a counted run has no schedule to complete).
  """
  by_index = {run.loader_index: run for run in runs}
  fixed = {}
  for op, result in ops.items():
    op_runs = [by_index[i] for i in result.loader_indexes]
    if all(run.rate and run.duration_s for run in op_runs):
      fixed[op] = FixedRate(
          target=sum(run.rate for run in op_runs),
          scheduled=sum(run.rate * run.duration_s for run in op_runs),
          operations=result.operations,
      )
  return fixed


def StepStatus(saturated, fixed_rates):
  """The status of a step that gave figures.

  A fixed-rate op type that did not reach its rate comes first: it says
  more about the step's figures than saturated loaders (often its cause),
  which StepResult.saturated still says.

  Args:
    saturated: whether the loaders were saturated (action 'mark').
    fixed_rates: op type -> FixedRate (FixedRates).

  Returns:
    outcomes.STATUS_RATE_NOT_REACHED, STATUS_SATURATED or STATUS_OK.
  """
  if not all(fixed.reached for fixed in fixed_rates.values()):
    return outcomes.STATUS_RATE_NOT_REACHED
  return outcomes.STATUS_SATURATED if saturated else outcomes.STATUS_OK


@dataclasses.dataclass(frozen=True)
class StepResult:
  """Figures of one stress step.

  Attributes:
    step_name: plan.Step.name.
    status: outcomes.STATUS_OK; outcomes.STATUS_RATE_NOT_REACHED when a
      fixed-rate op type did not reach its rate, else
      outcomes.STATUS_SATURATED when the loaders were saturated ('mark').
    ops: op type -> OpResult; with several op types also
      TOTAL.
    start_s: first HDR interval start of any loader (the first operation).
    end_s: last HDR interval end of any loader.
    interval_s: length of the time series steps.
    loader_cpu: loader index -> CpuUsage, or None when its CPU samples are
      missing or unreadable.
    loader_cpu_max_pct: busy share of the busiest loader; None if unknown.
    loader_cpu_peak_pct: busiest interval of any loader; None if unknown.
    saturated: loader_cpu_max_pct reached the threshold.
    cpu_problems: why some loaders' CPU use is unknown.
    fixed_rates: op type -> FixedRate, for the op types run at a fixed
      rate (FixedRates).
    loader_stop_max_ms: the longest stop of any loader's JVM in the step's
      window (a safepoint, or a ZGC stall); None when no loader logged its
      stops.
    loader_stopped_pct: the largest share of the step's window any
      loader's JVM spent stopped at safepoints; None when no loader logged
      its stops.
    stop_problems: why some loaders' stops are unknown.
    loader_start_skew_s: how far apart the loaders started (LoaderSkews).
    loader_end_skew_s: how far apart they ended.
    servers: each server's server_evidence.ServerEvidence over the step's
      measured window; () when the servers were not sampled.
    limit: where the step's limit was (server_evidence.StepLimit).
  """

  step_name: str
  status: str
  ops: Mapping[str, OpResult]
  start_s: float
  end_s: float
  interval_s: float
  loader_cpu: Mapping[int, Optional[loader_checks.CpuUsage]]
  loader_cpu_max_pct: Optional[float]
  loader_cpu_peak_pct: Optional[float]
  saturated: bool
  cpu_problems: tuple[str, ...] = ()
  fixed_rates: Mapping[str, FixedRate] = dataclasses.field(default_factory=dict)
  loader_stop_max_ms: Optional[float] = None
  loader_stopped_pct: Optional[float] = None
  stop_problems: tuple[str, ...] = ()
  loader_start_skew_s: float = 0.0
  loader_end_skew_s: float = 0.0
  servers: tuple[server_evidence.ServerEvidence, ...] = ()
  limit: Optional[server_evidence.Limit] = None

  @property
  def duration_s(self):
    return self.end_s - self.start_s

  @property
  def start_skew_pct(self):
    """The start skew as a share of the step, percent."""
    if self.duration_s <= 0:
      return 0.0
    return 100 * self.loader_start_skew_s / self.duration_s

  @property
  def start_skew_marked(self):
    return self.start_skew_pct >= START_SKEW_MARK_PCT


def _CpuUsages(step, records, outputs):
  """({loader index: CpuUsage or None}, [problems])."""
  usages, problems = {}, []
  for run in step.runs:
    record, output = records[run.loader_index], outputs[run.loader_index]
    usages[run.loader_index] = None
    if output.cpu is None:
      why = record.missing_files.get(loader_files.CPU, 'not pulled')
      problems.append(f'{record.name}: CPU samples missing: {why}')
      continue
    try:
      usages[run.loader_index] = loader_checks.CpuUsageOf(
          loader_checks.ParseCpuSamples(output.cpu)
      )
    except loader_checks.CpuLogError as e:
      problems.append(f'{record.name}: CPU samples: {e}')
  return usages, problems


def LoaderStops(step, records, outputs, window):
  """The loaders' JVM stops inside the step's window.

  Args:
    step: plan.Step.
    records: loader index -> loader_files.LoaderRecord.
    outputs: loader index -> loader_files.LoaderOutput.
    window: (start, end) of the step on the controller's clock.

  Returns:
    (longest stop ms, largest share of the window a loader's JVM was
    stopped %, [why some loaders' stops are unknown]); the first two None
    when no loader logged its stops.
  """
  longest, share, unknown = None, None, []
  start_s, end_s = window
  for run in step.runs:
    record, output = records[run.loader_index], outputs[run.loader_index]
    if not output.jvm:
      why = record.missing_files.get(loader_files.JVM) or (
          'empty (a Java before 17 logs none)'
      )
      unknown.append(f'{record.name}: JVM stop log {why}')
      continue
    stops = loader_jvm.ParseJvmLog(output.jvm).Within(
        start_s, end_s, record.clock_offset_s
    )
    longest = max(longest or 0.0, stops.MaxMs())
    if end_s > start_s:
      stopped = 100 * stops.TotalMs() / ((end_s - start_s) * 1000)
      share = max(share or 0.0, stopped)
  return longest, share, unknown


def LoaderSkews(step, records, spans):
  """How far apart a step's loaders started and ended, in seconds.

  A loader starts at its HDR log's first interval (its first operations)
  less the delay its run was planned to wait (readers during writes start
  late on purpose), and ends at its log's last interval end; both on the
  controller's clock (spans are corrected by the loaders' clock offsets).
  cassandra-stress starts its log on a whole second of the loader's clock:
  the skews are known to about a second, rounded here to the millisecond.

  Args:
    step: plan.Step.
    records: loader index -> loader_files.LoaderRecord.
    spans: loader name -> (first interval start, last interval end), as
      histograms.MergeHdrLogs gives them.

  Returns:
    (start skew, end skew).
  """
  starts, ends = [], []
  for run in step.runs:
    start_s, end_s = spans[records[run.loader_index].name]
    starts.append(start_s - run.start_delay_s)
    ends.append(end_s)
  # cassandra-stress starts its HDR log on a whole second of the loader's
  # clock, so a skew is known to about a second; the offsets are finer.
  return (
      round(max(starts) - min(starts), 3),
      round(max(ends) - min(ends), 3),
  )


def ResultOfStep(step, record, outputs, settings, servers=()):
  """Computes a stress step's figures from its loaders' outputs.

  Args:
    step: plan.Step of kind 'stress'.
    record: loader_files.StepRecord of its execution.
    outputs: loader index -> loader_files.LoaderOutput, for every run of the
      step.
    settings: core.settings.Settings (hdr_interval_s, loader_cpu_threshold,
      loader_saturation_action).
    servers: server_evidence.ServerOutput of each server sampled during the
      step; their evidence is taken over the window of the step's total
      (of its only op type).

  Returns:
    StepResult.

  Raises:
    outcomes.PhaseOutputError: a loader failed or its outputs are
      missing, empty or cut (status 'failed'); or loaders were saturated
      with action 'fail' (status 'loader_saturated'). The message lists
      every problem found.
  """
  records = {l.loader_index: l for l in record.loaders}
  problems = []
  parsed = {}
  for run in step.runs:
    loader = records.get(run.loader_index)
    output = outputs.get(run.loader_index)
    if loader is None or output is None:
      problems.append(f'loader {run.loader_index}: no record of its run')
      continue
    problems += loader_checks.RecordProblems(loader, output)
    parsed[run.loader_index] = loader_checks.ParseLog(loader, output, problems)
    loader_checks.CheckHdr(loader, output, problems)
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  groups = {}
  for run in step.runs:
    ops = OpsOf(run, parsed[run.loader_index])
    for op in ops:
      groups.setdefault(op, []).append((
          records[run.loader_index],
          parsed[run.loader_index],
          TOTAL if len(ops) == 1 else op,
      ))
  fixed_ops = {
      op
      for run in step.runs
      if run.rate
      for op in OpsOf(run, parsed[run.loader_index])
  }
  kinds_of = {
      op: (SERVICE_TIME, RESPONSE_TIME) if op in fixed_ops else (SERVICE_TIME,)
      for op in groups
  }
  if len(groups) > 1:
    # Response time of all op types only when every loader had a schedule.
    all_fixed = all(run.rate for run in step.runs)
    kinds_of[TOTAL] = (
        (SERVICE_TIME, RESPONSE_TIME) if all_fixed else (SERVICE_TIME,)
    )
  try:
    merge = histograms.MergeHdrLogs(
        {
            records[r.loader_index].name: outputs[r.loader_index].hdr
            for r in step.runs
        },
        step_s=settings.hdr_interval_s,
        clock_offsets_s={
            records[r.loader_index].name: (
                -records[r.loader_index].clock_offset_s
            )
            for r in step.runs
        },
        # The tags published, for their percentiles' intervals.
        keep_counts={
            f'{op}-{kind}' for op, kinds in kinds_of.items() for kind in kinds
        },
    )
  except histograms.HdrLogError as e:
    raise loader_checks.OutputError(
        step.name, [loader_checks.HdrProblem(e, records)], records
    ) from e
  problems += HdrCountProblems(groups, merge)
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  ops = {}
  for op, members in sorted(groups.items()):
    ops[op] = ResultOfOp(op, members, merge, kinds_of[op], problems)
  if len(groups) > 1:
    everyone = [
        (records[r.loader_index], parsed[r.loader_index], TOTAL)
        for r in step.runs
    ]
    ops[TOTAL] = ResultOfOp(TOTAL, everyone, merge, kinds_of[TOTAL], problems)
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  usages, cpu_problems = _CpuUsages(step, records, outputs)
  known = [u for u in usages.values() if u is not None]
  cpu_max = max((u.mean_pct for u in known), default=None)
  saturated = cpu_max is not None and cpu_max >= settings.loader_cpu_threshold
  if saturated and settings.loader_saturation_action == 'fail':
    raise outcomes.PhaseOutputError(
        step.name,
        [
            f'loaders saturated: busiest loader {cpu_max:.1f}% busy, threshold'
            f' {settings.loader_cpu_threshold}%'
        ],
        status=outcomes.STATUS_SATURATED,
    )
  spans = merge.spans.values()
  fixed_rates = FixedRates(step.runs, ops)
  window = (
      min(start for start, _ in spans),
      max(end for _, end in spans),
  )
  stop_max_ms, stopped_pct, stop_problems = LoaderStops(
      step, records, outputs, window
  )
  start_skew_s, end_skew_s = LoaderSkews(step, records, merge.spans)
  measured = ops.get(TOTAL) or next(iter(ops.values()))
  evidence = tuple(
      server_evidence.EvidenceOfServer(
          output, measured.window_start_s, measured.window_end_s
      )
      for output in servers
  )
  return StepResult(
      step_name=step.name,
      status=StepStatus(saturated, fixed_rates),
      ops=ops,
      start_s=window[0],
      end_s=window[1],
      interval_s=settings.hdr_interval_s,
      loader_cpu=usages,
      loader_cpu_max_pct=cpu_max,
      loader_cpu_peak_pct=max((u.peak_pct for u in known), default=None),
      saturated=saturated,
      cpu_problems=tuple(cpu_problems),
      fixed_rates=fixed_rates,
      loader_stop_max_ms=stop_max_ms,
      loader_stopped_pct=stopped_pct,
      stop_problems=tuple(stop_problems),
      loader_start_skew_s=start_skew_s,
      loader_end_skew_s=end_skew_s,
      servers=evidence,
      limit=server_evidence.StepLimit(
          cpu_max, saturated, evidence, all(run.rate for run in step.runs)
      ),
  )
