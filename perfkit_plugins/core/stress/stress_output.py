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

"""Parses cassandra-stress text output and sums op rates across loaders.

The text output of one cassandra-stress run has three parts: the settings
echo, one interval line per op type per reporting interval under the header
`type, total ops, op/s, pk/s, row/s, mean, med, .95, .99, .999, max, time,
stderr, errors, gc: #, max ms, sum ms, sdv ms, mb`, then a `Results:` block.
A run with a single op type prints only `total` lines; a mixed run prints one
line per op type (in name order) and then a `total` line. Interval lines have
no thousands separators (the comma is the field separator); the `Results:`
block has them (`Op rate : 21,308 op/s [WRITE: 21,308 op/s]`). Driver log
lines and error messages can appear between interval lines and are skipped.

Interval lines carry no wall-clock time: `time` is the seconds elapsed since
the first interval started. The caller supplies each loader's wall-clock start
(the first interval start of the loader's HDR log is that instant, on the
loader's clock) to sum rates over the window all loaders share.
"""

import dataclasses
import re
from typing import Mapping, Optional, Sequence

_INTERVAL_HEADER = re.compile(r'^type\s+total ops,')
# "WRITE,  1002, ..." or "total, ...": a name, a comma, then an integer. The
# tool prints `%-10s%10d,`, so a long op name and a 10-digit count touch.
_INTERVAL_CANDIDATE = re.compile(r'^\s*[^\s,]+,\s*-?\d')
_INTERVAL_FIELDS = 19
_USAGE_LINE = re.compile(r'^Usage:\s+cassandra-stress ')
_RESULT_LINE = re.compile(r'^(?P<key>[A-Za-z0-9. ]+?)\s*:\s*(?P<value>.*)$')
_NUMBER = r'-?[\d,]*\.?\d+|NaN|-?Infinity'
_VALUE = re.compile(
    rf'^(?P<number>{_NUMBER})\s*(?P<unit>[^\s\[]*)'
    r'\s*(?:\[(?P<by_type>.*)\])?\s*$'
)
_BY_TYPE_ITEM = re.compile(rf'^(?P<op>.+?):\s+(?P<number>{_NUMBER})')
_DURATION = re.compile(r'^(\d+):(\d\d):(\d\d)$')
_MEMORY_UNITS = {'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30}
_PER_TYPE_KEYS = (
    'Op rate',
    'Partition rate',
    'Row rate',
    'Latency mean',
    'Latency median',
    'Latency 95th percentile',
    'Latency 99th percentile',
    'Latency 99.9th percentile',
    'Latency max',
    'Total partitions',
    'Total errors',
)
_GLOBAL_KEYS = (
    'Total GC count',
    'Total GC memory',
    'Total GC time',
    'Avg GC time',
    'StdDev GC time',
    'Total operation time',
)
_TAIL_LINES = 5
_TAIL_WIDTH = 160


class StressOutputError(Exception):
  """cassandra-stress output that cannot give results.

  Attributes:
    tool_message: for a command cassandra-stress rejected, its own message
      (e.g. `Invalid parameter limit=2000/s`); None otherwise.
  """

  def __init__(self, message: str, tool_message: Optional[str] = None):
    super().__init__(message)
    self.tool_message = tool_message


@dataclasses.dataclass(frozen=True)
class Latencies:
  """Latency statistics in milliseconds, as cassandra-stress prints them."""

  mean_ms: float
  median_ms: float
  p95_ms: float
  p99_ms: float
  p999_ms: float
  max_ms: float


@dataclasses.dataclass(frozen=True)
class IntervalLine:
  """One interval line of one op type (`total` for all types together).

  Attributes:
    op_type: `total`, or an op type such as `WRITE`, `READ` (mixed runs).
    total_ops: operations of this type since the run started (cumulative).
    op_rate: operations per second in this interval.
    partition_rate: partitions per second in this interval.
    row_rate: rows per second in this interval.
    latency: latency statistics of this interval.
    elapsed_s: seconds from the run's start to the end of this interval.
    stderr: the tool's uncertainty of the mean row rate so far.
    errors: errors in this interval.
    gc_count: JVM GCs of the servers (JMX) in this interval; 0 without JMX.
    gc_max_ms: longest such GC pause.
    gc_sum_ms: total GC pause time.
    gc_sdv_ms: standard deviation of GC pauses.
    gc_mb: memory reclaimed by GC, MiB.
  """

  op_type: str
  total_ops: int
  op_rate: float
  partition_rate: float
  row_rate: float
  latency: Latencies
  elapsed_s: float
  stderr: float
  errors: int
  gc_count: float
  gc_max_ms: float
  gc_sum_ms: float
  gc_sdv_ms: float
  gc_mb: float


@dataclasses.dataclass(frozen=True)
class OpTotals:
  """Whole-run figures of one op type, or of all types together."""

  op_rate: float
  partition_rate: float
  row_rate: float
  latency: Latencies
  partitions: int
  errors: int


@dataclasses.dataclass(frozen=True)
class StressResults:
  """The `Results:` block of one run.

  Attributes:
    total: figures of all op types together.
    by_op_type: figures per op type (from the brackets), e.g. {'WRITE': ...}.
    gc_count: server GCs seen over JMX (0 when JMX was not reachable).
    gc_memory_bytes: memory those GCs reclaimed (printed as KiB/MiB/GiB with
      three decimals, so precise to 0.1% at best).
    gc_time_s: total GC time.
    gc_mean_ms: mean GC pause; NaN when there was no GC.
    gc_stddev_ms: standard deviation of GC pauses.
    operation_time_s: run duration, whole seconds (`HH:mm:ss`).
  """

  total: OpTotals
  by_op_type: Mapping[str, OpTotals]
  gc_count: int
  gc_memory_bytes: float
  gc_time_s: float
  gc_mean_ms: float
  gc_stddev_ms: float
  operation_time_s: int


@dataclasses.dataclass(frozen=True)
class StressOutput:
  """A complete, successful cassandra-stress run."""

  intervals: tuple[IntervalLine, ...]
  results: StressResults


@dataclasses.dataclass(frozen=True)
class StressVersion:
  """`cassandra-stress version` output.

  Attributes:
    version: the tool's version (ScyllaDB's v3.18.1 prints 3.12.0-SNAPSHOT).
    components: other `name: version` lines, e.g. {'scylla-java-driver':
      '3.11.5.7'}.
  """

  version: str
  components: Mapping[str, str]


@dataclasses.dataclass(frozen=True)
class LoaderTimeline:
  """One loader's interval lines placed on the wall clock.

  Attributes:
    start_s: epoch seconds of the lines' time 0 (the start of the first
      interval), already corrected for the loader's clock offset.
    intervals: the loader's parsed interval lines.
  """

  start_s: float
  intervals: Sequence[IntervalLine]


@dataclasses.dataclass(frozen=True)
class WindowRate:
  """The summed op rate of several loaders over their common window.

  Attributes:
    op_rate: operations per second of all loaders together.
    ops: operations counted in the window (fractional: see CommonWindowRate).
    start_s: window start, epoch seconds (the latest loader start).
    end_s: window end, epoch seconds (the earliest loader end).
  """

  op_rate: float
  ops: float
  start_s: float
  end_s: float

  @property
  def duration_s(self) -> float:
    return self.end_s - self.start_s


def _Number(text: str) -> float:
  """A number as Java prints it: `1,175.5`, `NaN`, `Infinity`."""
  return float(text.replace(',', ''))


def _Tail(lines: Sequence[str]) -> str:
  """The last few non-empty lines, for error messages."""
  kept = [line.strip() for line in lines if line.strip()][-_TAIL_LINES:]
  return ' | '.join(line[:_TAIL_WIDTH] for line in kept)


def _ParseIntervalLine(line: str, line_number: int) -> IntervalLine:
  """One interval line of cassandra-stress's text log, as an IntervalLine.

  Raises:
    StressOutputError: the line has the wrong number of fields (a log
      cut mid-line) or a field that is not a number.
  """
  fields = [field.strip() for field in line.split(',')]
  if len(fields) != _INTERVAL_FIELDS:
    raise StressOutputError(
        f'Malformed (cut?) interval line {line_number}, {len(fields)} fields'
        f' instead of {_INTERVAL_FIELDS}: {line!r}'
    )
  try:
    numbers = [float(field) for field in fields[1:]]
  except ValueError as e:
    raise StressOutputError(
        f'Malformed interval line {line_number}: {line!r} ({e})'
    ) from e
  return IntervalLine(
      op_type=fields[0],
      total_ops=int(numbers[0]),
      op_rate=numbers[1],
      partition_rate=numbers[2],
      row_rate=numbers[3],
      latency=Latencies(*numbers[4:10]),
      elapsed_s=numbers[10],
      stderr=numbers[11],
      errors=int(numbers[12]),
      gc_count=numbers[13],
      gc_max_ms=numbers[14],
      gc_sum_ms=numbers[15],
      gc_sdv_ms=numbers[16],
      gc_mb=numbers[17],
  )


def ParseIntervalLines(text: str) -> tuple[IntervalLine, ...]:
  """Parses the interval lines of cassandra-stress output.

  Lines after an interval header and before `Results:` that start like an
  interval line (`name, <integer>`) must be complete; other lines there (driver
  log lines, error messages) are skipped. Works on partial output too, e.g. a
  log that is still being written, as long as no line is cut.

  Args:
    text: cassandra-stress stdout (or its `-log file=`).

  Returns:
    Interval lines in output order, every op type's and `total`.

  Raises:
    StressOutputError: a line that starts like an interval line is cut or
      malformed.
  """
  intervals = []
  in_intervals = False
  for number, line in enumerate(text.splitlines(), start=1):
    if _INTERVAL_HEADER.match(line):
      in_intervals = True
    elif line.startswith('Results:'):
      in_intervals = False
    elif in_intervals and _INTERVAL_CANDIDATE.match(line):
      intervals.append(_ParseIntervalLine(line, number))
  return tuple(intervals)


def _ParseValue(key: str, value: str):
  """Splits a Results value into (number, unit, {op type: number}).

  E.g. `1,091 op/s [WRITE: 1,091 op/s]` -> (1091.0, 'op/s', {'WRITE': 1091.0}).
  """
  match = _VALUE.match(value)
  if not match:
    raise StressOutputError(f'Unreadable Results line {key!r}: {value!r}')
  by_type = {}
  if match.group('by_type'):
    for item in match.group('by_type').split(', '):
      item_match = _BY_TYPE_ITEM.match(item)
      if not item_match:
        raise StressOutputError(
            f'Unreadable per-type value {item!r} in Results line {key!r}'
        )
      by_type[item_match.group('op')] = _Number(item_match.group('number'))
  return _Number(match.group('number')), match.group('unit'), by_type


def _OpTotals(values: Mapping[str, float]) -> OpTotals:
  return OpTotals(
      op_rate=values['Op rate'],
      partition_rate=values['Partition rate'],
      row_rate=values['Row rate'],
      latency=Latencies(
          mean_ms=values['Latency mean'],
          median_ms=values['Latency median'],
          p95_ms=values['Latency 95th percentile'],
          p99_ms=values['Latency 99th percentile'],
          p999_ms=values['Latency 99.9th percentile'],
          max_ms=values['Latency max'],
      ),
      partitions=int(values['Total partitions']),
      errors=int(values['Total errors']),
  )


def ParseResults(text: str) -> StressResults:
  """Parses the `Results:` block of one cassandra-stress run.

  Args:
    text: cassandra-stress stdout (or its `-log file=`), or just the block.

  Returns:
    The run's totals.

  Raises:
    StressOutputError: no block, several blocks (a thread-count sweep), or a
      block that is cut or has an unreadable line.
  """
  lines = text.splitlines()
  starts = [i for i, line in enumerate(lines) if line.startswith('Results:')]
  if not starts:
    raise StressOutputError(
        f'No Results block (run cut short?); output ends with: {_Tail(lines)}'
    )
  if len(starts) > 1:
    raise StressOutputError(
        f'{len(starts)} Results blocks: one output holds several runs (a'
        ' thread-count sweep such as -rate threads>=N?); run one thread count'
        ' per invocation'
    )
  raw = {}
  for line in lines[starts[0] + 1 :]:
    match = _RESULT_LINE.match(line)
    if not match:
      break
    raw[match.group('key')] = match.group('value')
  missing = [k for k in _PER_TYPE_KEYS + _GLOBAL_KEYS if k not in raw]
  if missing:
    raise StressOutputError(
        f'Results block is cut or unknown: missing {", ".join(missing)}'
    )
  totals = {}
  by_type = {}
  for key in _PER_TYPE_KEYS:
    totals[key], _, per_type = _ParseValue(key, raw[key])
    for op_type, number in per_type.items():
      by_type.setdefault(op_type, {})[key] = number
  for op_type, values in by_type.items():
    missing = [k for k in _PER_TYPE_KEYS if k not in values]
    if missing:
      raise StressOutputError(
          f'Results block lacks {", ".join(missing)} for op type {op_type}'
      )
  gc_memory, unit, _ = _ParseValue('Total GC memory', raw['Total GC memory'])
  if unit not in _MEMORY_UNITS:
    raise StressOutputError(f'Unknown GC memory unit {unit!r}')
  duration = _DURATION.match(raw['Total operation time'].strip())
  if not duration:
    raise StressOutputError(
        f'Unreadable Total operation time {raw["Total operation time"]!r}'
    )
  hours, minutes, seconds = (int(part) for part in duration.groups())
  return StressResults(
      total=_OpTotals(totals),
      by_op_type={op: _OpTotals(values) for op, values in by_type.items()},
      gc_count=int(_ParseValue('Total GC count', raw['Total GC count'])[0]),
      gc_memory_bytes=gc_memory * _MEMORY_UNITS[unit],
      gc_time_s=_ParseValue('Total GC time', raw['Total GC time'])[0],
      gc_mean_ms=_ParseValue('Avg GC time', raw['Avg GC time'])[0],
      gc_stddev_ms=_ParseValue('StdDev GC time', raw['StdDev GC time'])[0],
      operation_time_s=hours * 3600 + minutes * 60 + seconds,
  )


def _RejectedMessage(lines: Sequence[str]) -> Optional[str]:
  """The tool's message when it printed its usage text, else None."""
  for i, line in enumerate(lines):
    if _USAGE_LINE.match(line):
      return ' '.join(l.strip() for l in lines[:i] if l.strip()) or None
  return None


def ParseStressOutput(text: str) -> StressOutput:
  """Parses the complete output of one successful cassandra-stress run.

  Args:
    text: cassandra-stress stdout+stderr (or its `-log file=`).

  Returns:
    The interval lines and the Results block.

  Raises:
    StressOutputError: the output is empty, the tool rejected the command
      (`tool_message` holds its message), the run reported FAILURE, or the
      output is cut (no interval lines, no or partial Results block).
  """
  lines = text.splitlines()
  if not text.strip():
    raise StressOutputError('Empty cassandra-stress output')
  if any(_USAGE_LINE.match(line) for line in lines):
    message = _RejectedMessage(lines) or '(no message)'
    raise StressOutputError(
        f'cassandra-stress rejected the command: {message}',
        tool_message=message,
    )
  if any(line.strip() == 'FAILURE' for line in lines):
    raise StressOutputError(
        f'cassandra-stress reported FAILURE; output ends with: {_Tail(lines)}'
    )
  intervals = ParseIntervalLines(text)
  if not intervals:
    raise StressOutputError(
        'No interval lines (run did not start or output is cut); output'
        f' ends with: {_Tail(lines)}'
    )
  return StressOutput(intervals=intervals, results=ParseResults(text))


def ParseVersion(text: str) -> StressVersion:
  """Parses `cassandra-stress version` output.

  Args:
    text: e.g. `Version: 3.12.0-SNAPSHOT` and `scylla-java-driver: 3.11.5.7`.

  Returns:
    The version and the other components' versions.

  Raises:
    StressOutputError: no `Version:` line.
  """
  version = None
  components = {}
  for line in text.splitlines():
    name, sep, value = line.partition(':')
    if not sep or not value.strip():
      continue
    if name.strip() == 'Version':
      version = value.strip()
    else:
      components[name.strip()] = value.strip()
  if version is None:
    raise StressOutputError(
        f'No "Version:" line in cassandra-stress version output: {text!r}'
    )
  return StressVersion(version=version, components=components)


def CommonWindow(
    spans: Mapping[str, tuple[float, float]],
) -> tuple[float, float]:
  """The time window shared by all loaders.

  Args:
    spans: loader name -> (start, end) in epoch seconds.

  Returns:
    (latest start, earliest end).

  Raises:
    StressOutputError: no loaders, or the spans do not overlap.
  """
  if not spans:
    raise StressOutputError('No loaders to take a common window of')
  last_name = max(spans, key=lambda name: spans[name][0])
  first_name = min(spans, key=lambda name: spans[name][1])
  start, end = spans[last_name][0], spans[first_name][1]
  if end <= start:
    raise StressOutputError(
        f'Loaders have no common time window: {last_name} starts at'
        f' {start:.3f}, after {first_name} ended at {end:.3f}: a step'
        ' measures only while all its loaders run; a longer step'
        ' (--scylla_durations) leaves time for a loader that is slow to start'
    )
  return start, end


def _Spans(name: str, timeline: LoaderTimeline, op_type: str):
  """[(start_s, end_s, ops)] of one loader's intervals of one op type."""
  spans = []
  previous_ops, previous_elapsed = 0, 0.0
  for line in timeline.intervals:
    if line.op_type != op_type:
      continue
    if line.elapsed_s < previous_elapsed or line.total_ops < previous_ops:
      raise StressOutputError(
          f'{name}: interval lines go back in time or count at'
          f' {line.elapsed_s:.1f} s'
      )
    spans.append((
        timeline.start_s + previous_elapsed,
        timeline.start_s + line.elapsed_s,
        line.total_ops - previous_ops,
    ))
    previous_ops, previous_elapsed = line.total_ops, line.elapsed_s
  if not spans:
    raise StressOutputError(f'{name}: no {op_type!r} interval lines')
  return spans


def CommonWindowRate(
    timelines: Mapping[str, LoaderTimeline], op_type: str = 'total'
) -> WindowRate:
  """Sums the loaders' op rate over the time window they all share.

  The window runs from the latest loader start to the earliest loader end, so
  ramp-up and tail of unevenly started loaders do not dilute the rate. An
  interval spans the previous line's `time` to its own (from 0 for the first)
  and holds the difference of `total ops`; one cut by a window edge counts the
  fraction of its operations equal to the fraction of its duration inside,
  assuming an even rate within the interval; one of zero length (`time` has
  0.1 s resolution) counts whole if it lies in the window.
  When the tool skips an interval without operations, the next line's span
  covers both, so its operations are spread over the two.

  Args:
    timelines: loader name -> the loader's interval lines and wall-clock start.
    op_type: which lines to sum: `total`, or one op type of a mixed run.

  Returns:
    The summed rate and the window.

  Raises:
    StressOutputError: a loader has no such lines, lines go back in time, or
      the loaders' runs do not overlap.
  """
  spans = {
      name: _Spans(name, timeline, op_type)
      for name, timeline in timelines.items()
  }
  start, end = CommonWindow(
      {name: (s[0][0], s[-1][1]) for name, s in spans.items()}
  )
  ops = 0.0
  for loader_spans in spans.values():
    for span_start, span_end, span_ops in loader_spans:
      if span_end == span_start:
        ops += span_ops if start <= span_start <= end else 0
        continue
      overlap = min(span_end, end) - max(span_start, start)
      if overlap > 0:
        ops += span_ops * overlap / (span_end - span_start)
  return WindowRate(
      op_rate=ops / (end - start), ops=ops, start_s=start, end_s=end
  )
