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

Pure: phase_runner runs the step and pulls the files; this module reads
their contents. The rules (docs/measurement.md, on the shared window):

* Every loader's output must be complete. A loader whose command failed,
  or whose text log, HDR log or times file is missing, empty or cut, fails
  the whole step with a PhaseOutputError naming the loader and the file:
  a total with a loader missing is never published. A loader whose output
  directory had at most FULL_DIRECTORY_KIB left when its run ended is named
  first: a full disk cuts files without any tool saying so.
* Op rate: the loaders' interval lines summed over the window all of them
  share (stress_output.CommonWindowRate), each loader placed on the
  controller's clock by the first interval start of its HDR log corrected
  by its clock offset. Per op type, the loaders that run it (writers and
  readers of reads during writes are separate groups); with several op
  types, also `total` over all loaders.
* Partition and row rates: the op rate times the partitions and rows per
  operation of the loaders' Results blocks, so the three rates describe the
  same window.
* Latency: percentiles of the HDR histograms of every operation of the step
  (whole logs) summed across loaders (histograms.MergeHdrLogs), never an
  average of per-loader percentiles. Service time (`st`) always; for op
  types run with `-rate fixed=` also response time (`rt`, measured from
  the intended schedule, corrected for coordinated omission), which a
  fixed-rate run without `rt` histograms fails; `total` gets `rt` only when
  every loader ran at a fixed rate.
* Operations, partitions and errors: summed over loaders.
* Time series: per HDR interval, the op rate and latency percentiles of the
  merged histograms.
* Loader CPU (core/loader_cpu.py): a step whose busiest loader was busy for
  at least `loader_cpu_threshold` percent of the step is saturated; with
  `loader_saturation_action` 'fail' that fails the step, with 'mark' its
  status says so.

Times are epoch seconds on the controller's clock unless said otherwise.
"""

import dataclasses
import posixpath
import re
import signal
from typing import Mapping, Optional

from perfkit_plugins.core import histograms
from perfkit_plugins.core import loader_cpu
from perfkit_plugins.core import stress_output

STDOUT = 'stdout'
LOG = 'log'
HDR = 'hdr'
TIMES = 'times'
CPU = 'cpu'
FILE_KINDS = (STDOUT, LOG, HDR, TIMES, CPU)

STATUS_OK = 'ok'
STATUS_FAILED = 'failed'
STATUS_TIMEOUT = 'timeout'
STATUS_SATURATED = 'loader_saturated'

TOTAL = 'total'
SERVICE_TIME = 'st'
RESPONSE_TIME = 'rt'
# The op type of single-type runs, by LoaderRun.role; mixed runs name their
# op types in their Results block.
_ROLE_OPS = {'writer': 'WRITE', 'reader': 'READ'}

_START_LINE = re.compile(r'^start (\d+\.\d+)$')
_END_LINE = re.compile(r'^end (\d+\.\d+) exit (\d+)$')
_FREE_LINE = re.compile(r'^free ?(\d*)$')
# A loader whose output directory had at most this much space left when
# its run ended is said to have run out of space when its step fails.
FULL_DIRECTORY_KIB = 1024


@dataclasses.dataclass(frozen=True)
class LoaderTimes:
  """A loader's times file (its own clock).

  Attributes:
    start_s: just before cassandra-stress started.
    end_s: just after it ended; None if it never ended (killed, machine
      lost).
    exit_code: its exit code; None with end_s None.
    free_kib: KiB left in the output directory after it ended; None when
      unknown.
  """

  start_s: float
  end_s: Optional[float]
  exit_code: Optional[int]
  free_kib: Optional[int] = None


def ParseTimes(text):
  """Parses a times file.

  Its lines: `start <epoch>`, `end <epoch> exit <code>` and `free <KiB>`
  (space left in the output directory, empty when `df` failed).

  Raises:
    ValueError: no start line, or a line that is none of these.
  """
  start = end = exit_code = free_kib = None
  for line in text.splitlines():
    line = line.strip()
    start_match, end_match = _START_LINE.match(line), _END_LINE.match(line)
    free_match = _FREE_LINE.match(line)
    if start_match:
      start = float(start_match.group(1))
    elif end_match:
      end, exit_code = float(end_match.group(1)), int(end_match.group(2))
    elif free_match:
      free_kib = int(free_match.group(1)) if free_match.group(1) else None
    elif line:
      raise ValueError(f'unexpected line in times file: {line[:120]!r}')
  if start is None:
    raise ValueError('times file has no start line')
  return LoaderTimes(start, end, exit_code, free_kib)


@dataclasses.dataclass(frozen=True)
class LoaderRecord:
  """What happened on one loader during a step.

  Attributes:
    loader_index: LoaderRun.loader_index.
    vm_name: the loader VM.
    clock_offset_s: the VM's clock minus the controller's, seconds.
    remote_files: kind (FILE_KINDS) -> remote path.
    local_files: kind -> local path of each file that was pulled.
    missing_files: kind -> why the file could not be pulled.
    start_s: cassandra-stress start (times file, offset applied); None when
      unknown.
    end_s: its end; None when unknown.
    exit_code: its exit code; None when unknown.
    error: why the remote command failed (ssh, non-zero exit), or None.
    launched_at: when the controller started the remote command.
    returned_at: when the remote command returned or failed.
    output_free_kib: KiB left in its output directory when its run ended
      (LoaderTimes.free_kib); None when unknown.
  """

  loader_index: int
  vm_name: str
  clock_offset_s: float
  remote_files: Mapping[str, str]
  local_files: Mapping[str, str]
  missing_files: Mapping[str, str]
  start_s: Optional[float]
  end_s: Optional[float]
  exit_code: Optional[int]
  error: Optional[str]
  launched_at: float
  returned_at: float
  output_free_kib: Optional[int] = None

  @property
  def name(self):
    """How messages and merged logs name this loader."""
    return f'loader {self.loader_index} ({self.vm_name})'


@dataclasses.dataclass(frozen=True)
class StepRecord:
  """What happened on every loader during a step.

  Attributes:
    step_name: plan.Step.name.
    started_at: when the controller started the loaders.
    ended_at: when the last loader's command returned.
    loaders: one LoaderRecord per run, in the step's run order.
  """

  step_name: str
  started_at: float
  ended_at: float
  loaders: tuple[LoaderRecord, ...]

  def Span(self):
    """(earliest start, latest end) of the loaders' commands.

    Each loader's own times where known, else the controller's.
    """
    starts = [
        l.launched_at if l.start_s is None else l.start_s for l in self.loaders
    ]
    ends = [l.returned_at if l.end_s is None else l.end_s for l in self.loaders]
    return min(starts, default=self.started_at), max(
        ends, default=self.ended_at
    )


@dataclasses.dataclass(frozen=True)
class LoaderOutput:
  """The contents of one loader's pulled files; None for a missing file.

  Attributes:
    stdout: cassandra-stress stdout and stderr.
    log: its `-log file=` report.
    hdr: its HDR log: text, or lines (e.g. an open file).
    cpu: its CPU sample file.
  """

  stdout: Optional[str]
  log: Optional[str]
  hdr: Optional[histograms.LogSource]
  cpu: Optional[str]


class PhaseOutputError(Exception):
  """A step whose outputs cannot give results; nothing of it is published.

  Attributes:
    step_name: the step.
    status: STATUS_FAILED, or STATUS_SATURATED when saturated loaders fail
      the step.
    problems: one message per problem, each naming the loader and file.
  """

  def __init__(self, step_name, problems, status=STATUS_FAILED):
    self.step_name = step_name
    self.status = status
    self.problems = tuple(problems)
    super().__init__(f'{step_name}: ' + '; '.join(self.problems))


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

  @property
  def duration_s(self):
    return self.end_s - self.start_s


@dataclasses.dataclass(frozen=True)
class StepResult:
  """Figures of one stress step.

  Attributes:
    step_name: plan.Step.name.
    status: STATUS_OK or STATUS_SATURATED ('mark').
    ops: op type -> OpResult; with several op types also TOTAL.
    start_s: first HDR interval start of any loader (the first operation).
    end_s: last HDR interval end of any loader.
    interval_s: length of the time series steps.
    loader_cpu: loader index -> CpuUsage, or None when its CPU samples are
      missing or unreadable.
    loader_cpu_max_pct: busy share of the busiest loader; None if unknown.
    loader_cpu_peak_pct: busiest interval of any loader; None if unknown.
    saturated: loader_cpu_max_pct reached the threshold.
    cpu_problems: why some loaders' CPU use is unknown.
  """

  step_name: str
  status: str
  ops: Mapping[str, OpResult]
  start_s: float
  end_s: float
  interval_s: float
  loader_cpu: Mapping[int, Optional[loader_cpu.CpuUsage]]
  loader_cpu_max_pct: Optional[float]
  loader_cpu_peak_pct: Optional[float]
  saturated: bool
  cpu_problems: tuple[str, ...] = ()

  @property
  def duration_s(self):
    return self.end_s - self.start_s


def _ToolMessage(output):
  """What cassandra-stress's stdout says went wrong, or ''."""
  if not output.stdout:
    return ''
  try:
    stress_output.ParseStressOutput(output.stdout)
  except stress_output.StressOutputError as e:
    return f' (its stdout: {e})'
  return ''


def LoaderFailure(record):
  """What went wrong with a loader's command, in one line, or None.

  What the loader recorded comes first: a signal is named (cassandra-stress
  killed by SIGKILL: its exit code is 128 + the signal's number), else its
  non-zero exit code; without a recorded end, the error the runner saw
  (unreachable, stopped at its bound, the command's failure).
  """
  code = record.exit_code
  if code is not None and 128 < code < 128 + signal.NSIG:
    try:
      name = signal.Signals(code - 128).name
    except ValueError:
      name = f'signal {code - 128}'
    return f'{record.name}: cassandra-stress killed by {name} (exit {code})'
  if code:
    return f'{record.name}: cassandra-stress exited with {code}'
  if record.error:
    return f'{record.name}: {record.error}'
  return None


def _RecordProblems(record, output):
  """Problems of a loader's command and its times file."""
  times_path = record.remote_files[TIMES]
  failure = LoaderFailure(record)
  problems = [failure + _ToolMessage(output)] if failure else []
  if TIMES in record.missing_files:
    problems.append(
        f'{record.name}: times file {times_path} missing:'
        f' {record.missing_files[TIMES]}'
    )
  elif record.start_s is None:
    problems.append(f'{record.name}: no start time in {times_path}')
  elif record.exit_code is None:
    problems.append(
        f'{record.name}: cassandra-stress did not finish (no end time in'
        f' {times_path})'
    )
  return problems


def _OutputError(step_name, problems, records):
  """PhaseOutputError, led by the loaders that ran out of space."""
  full = [
      f'{r.name}: no space left in {posixpath.dirname(r.remote_files[TIMES])}'
      f' ({r.output_free_kib} KiB free when cassandra-stress ended)'
      for r in records.values()
      if r.output_free_kib is not None
      and r.output_free_kib <= FULL_DIRECTORY_KIB
  ]
  return PhaseOutputError(step_name, full + list(problems))


def _ParseLog(record, output, problems):
  """The loader's parsed text log, or None with the problem recorded."""
  path = record.remote_files[LOG]
  if output.log is None:
    why = record.missing_files.get(LOG, 'not pulled')
    problems.append(f'{record.name}: log {path} missing: {why}')
    return None
  try:
    return stress_output.ParseStressOutput(output.log)
  except stress_output.StressOutputError as e:
    problems.append(f'{record.name}: log {path}: {e}')
    return None


def _CheckHdr(record, output, problems):
  if output.hdr is None:
    why = record.missing_files.get(HDR, 'not pulled')
    problems.append(
        f'{record.name}: HDR log {record.remote_files[HDR]} missing: {why}'
    )
  elif isinstance(output.hdr, str) and not output.hdr.strip():
    problems.append(
        f'{record.name}: HDR log {record.remote_files[HDR]} is empty'
    )


def _HdrProblem(error, records):
  """The merge error, with the remote path of the loader's HDR log."""
  message = str(error)
  for record in records.values():
    if message.startswith(record.name + ':'):
      return f'{message} (HDR log {record.remote_files[HDR]})'
  return f'HDR logs: {message}'


def _OpsOf(run, parsed):
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


def _OpResult(op, members, merge, kinds, problems):
  """OpResult of the loaders in members.

  Args:
    op: the op type, or TOTAL.
    members: [(LoaderRecord, StressOutput, source)], source being the name
      of the loader's lines and totals that hold op (TOTAL for single-type
      runs).
    merge: histograms.HdrMerge of the step.
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
  latency, series = {}, {}
  for kind in kinds:
    tag = f'{op}-{kind}'
    if tag not in merge.summaries:
      problems.append(
          f'{op}: no {tag} histograms in the HDR logs of {", ".join(timelines)}'
      )
      continue
    latency[kind] = merge.summaries[tag]
    series[kind] = merge.series.get(tag, ())
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
  )


def _HdrCountProblems(groups, merge):
  """Loaders whose HDR log holds fewer operations than their text log.

  cassandra-stress records every operation of a run in both logs (their
  counts are equal in every real run in tests/testdata/stress); an HDR log
  cut at a line boundary still parses, but holds fewer operations.

  Args:
    groups: op -> [(LoaderRecord, StressOutput, source)], as _OpResult's
      members.
    merge: histograms.HdrMerge of the step.
  """
  problems = []
  for op, members in sorted(groups.items()):
    for record, parsed, source in members:
      text_ops = _TextOps(parsed, source, op)
      hdr_ops = merge.counts[record.name].get(f'{op}-{SERVICE_TIME}', 0)
      if hdr_ops < text_ops - _OpTotals(parsed, source).errors:
        problems.append(
            f'{record.name}: HDR log {record.remote_files[HDR]} holds'
            f' {hdr_ops:,} {op} operations, its text log {text_ops:,}'
            ' (cut?)'
        )
  return problems


def _CpuUsages(step, records, outputs):
  """({loader index: CpuUsage or None}, [problems])."""
  usages, problems = {}, []
  for run in step.runs:
    record, output = records[run.loader_index], outputs[run.loader_index]
    usages[run.loader_index] = None
    if output.cpu is None:
      why = record.missing_files.get(CPU, 'not pulled')
      problems.append(f'{record.name}: CPU samples missing: {why}')
      continue
    try:
      usages[run.loader_index] = loader_cpu.CpuUsageOf(
          loader_cpu.ParseCpuSamples(output.cpu)
      )
    except loader_cpu.CpuLogError as e:
      problems.append(f'{record.name}: CPU samples: {e}')
  return usages, problems


def ResultOfStep(step, record, outputs, settings):
  """Computes a stress step's figures from its loaders' outputs.

  Args:
    step: plan.Step of kind 'stress'.
    record: StepRecord of its execution.
    outputs: loader index -> LoaderOutput, for every run of the step.
    settings: core.settings.Settings (hdr_interval_s, loader_cpu_threshold,
      loader_saturation_action).

  Returns:
    StepResult.

  Raises:
    PhaseOutputError: a loader failed or its outputs are missing, empty or
      cut (status 'failed'); or loaders were saturated with action 'fail'
      (status 'loader_saturated'). The message lists every problem found.
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
    problems += _RecordProblems(loader, output)
    parsed[run.loader_index] = _ParseLog(loader, output, problems)
    _CheckHdr(loader, output, problems)
  if problems:
    raise _OutputError(step.name, problems, records)
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
    )
  except histograms.HdrLogError as e:
    raise _OutputError(step.name, [_HdrProblem(e, records)], records) from e
  groups = {}
  for run in step.runs:
    ops = _OpsOf(run, parsed[run.loader_index])
    for op in ops:
      groups.setdefault(op, []).append((
          records[run.loader_index],
          parsed[run.loader_index],
          TOTAL if len(ops) == 1 else op,
      ))
  problems += _HdrCountProblems(groups, merge)
  if problems:
    raise _OutputError(step.name, problems, records)
  fixed_ops = {
      op
      for run in step.runs
      if run.rate
      for op in _OpsOf(run, parsed[run.loader_index])
  }
  ops = {}
  for op, members in sorted(groups.items()):
    kinds = (
        (SERVICE_TIME, RESPONSE_TIME) if op in fixed_ops else (SERVICE_TIME,)
    )
    ops[op] = _OpResult(op, members, merge, kinds, problems)
  if len(groups) > 1:
    everyone = [
        (records[r.loader_index], parsed[r.loader_index], TOTAL)
        for r in step.runs
    ]
    # Response time of all op types only when every loader had a schedule.
    all_fixed = all(run.rate for run in step.runs)
    kinds = (SERVICE_TIME, RESPONSE_TIME) if all_fixed else (SERVICE_TIME,)
    ops[TOTAL] = _OpResult(TOTAL, everyone, merge, kinds, problems)
  if problems:
    raise _OutputError(step.name, problems, records)
  usages, cpu_problems = _CpuUsages(step, records, outputs)
  known = [u for u in usages.values() if u is not None]
  cpu_max = max((u.mean_pct for u in known), default=None)
  saturated = cpu_max is not None and cpu_max >= settings.loader_cpu_threshold
  if saturated and settings.loader_saturation_action == 'fail':
    raise PhaseOutputError(
        step.name,
        [
            f'loaders saturated: busiest loader {cpu_max:.1f}% busy, threshold'
            f' {settings.loader_cpu_threshold}%'
        ],
        status=STATUS_SATURATED,
    )
  spans = merge.spans.values()
  return StepResult(
      step_name=step.name,
      status=STATUS_SATURATED if saturated else STATUS_OK,
      ops=ops,
      start_s=min(start for start, _ in spans),
      end_s=max(end for _, end in spans),
      interval_s=settings.hdr_interval_s,
      loader_cpu=usages,
      loader_cpu_max_pct=cpu_max,
      loader_cpu_peak_pct=max((u.peak_pct for u in known), default=None),
      saturated=saturated,
      cpu_problems=tuple(cpu_problems),
  )
