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

"""Reads cassandra-stress HDR interval logs and merges them across loaders.

cassandra-stress `-log hdrfile=F interval=Ns` writes an HdrHistogram interval
log (format 1.3): `#[BaseTime: ...]` and `#[StartTime: ...]` comments (both the
run's start rounded down to the second), a legend line, then one line per op
type and histogram kind per interval, `Tag=WRITE-st,<start>,<length>,<max>,
<histogram>`, with the start relative to BaseTime in seconds, the max in ms and
a base64 compressed histogram of values in nanoseconds. Kinds: `st` service
time (always), `rt` response time from the intended schedule and `wt` wait
time (only with `-rate fixed=`). Empty histograms are not written, so an
interval without operations of a kind has no line.

Percentiles are computed from the histograms summed across loaders, never by
averaging per-loader percentiles, with HdrHistogram's definitions as the
Java library (and so cassandra-stress's own summary) applies them: a
percentile is the highest value equivalent to the first bucket that reaches
ceil(p/100 * count) values; the mean weights each bucket's middle value.

For the within-run intervals of percentiles (stats.intervals), the merge
also keeps, for the tags asked for, the summed bucket counts of every
series step (StepCounts), in groups of buckets to bound their memory.

Decoding uses the `hdrhistogram` package; the sums run on numpy arrays of
bucket counts, because interval histograms of one log differ in their value
range (Java's histograms auto-resize), which the package can only add value
by value.
"""

import base64
import binascii
import dataclasses
import heapq
import math
import re
import zlib
from typing import Collection, Iterable, Iterator, Mapping, Optional, Union

from hdrh import codec
from hdrh import histogram as hdrh_histogram
import numpy as np

_START_TIME = re.compile(r'^#\[StartTime:\s*([\d.]+)', re.MULTILINE)
_BASE_TIME = re.compile(r'^#\[BaseTime:\s*([\d.]+)')
_LEGEND = '"StartTimestamp"'
# Log timestamps more than a year before StartTime are relative to it (the
# HdrHistogram log format's rule when there is no BaseTime).
_RELATIVE_LIMIT_S = 365 * 24 * 3600.0
# The base64 header of a compressed histogram: cookie and payload length.
_HEADER_CHARS = 12
_HEADER_BYTES = 8
_NS_PER_MS = 1e6
COARSE_BUCKETS_PER_OCTAVE = 128
"""Buckets per doubling of the value that StepCounts keeps.

Groups of a histogram's consecutive buckets, each at most 1/128 (0.8%) of
its values wide (or one bucket, when a histogram's own are wider):
percentile intervals are reported to that resolution. With the 1,024
buckets per octave of 3 significant digits, groups of 8.
"""
_PERCENTILES = (50.0, 95.0, 99.0, 99.9)
_DECODE_ERRORS = (
    binascii.Error,
    codec.HdrCookieException,
    codec.HdrLengthException,
    codec.HdrHistogramSettingsException,
    ValueError,
    zlib.error,
)

LogSource = Union[str, Iterable[str]]


class HdrLogError(Exception):
  """An HDR log that is missing, empty, cut or unreadable."""


@dataclasses.dataclass(frozen=True)
class HdrInterval:
  """One interval histogram of a log, still encoded.

  Attributes:
    tag: e.g. `WRITE-st`; '' for an untagged line.
    start_s: interval start, epoch seconds (on the loader's clock).
    end_s: interval end, epoch seconds.
    payload: the base64 compressed histogram.
  """

  tag: str
  start_s: float
  end_s: float
  payload: str

  @property
  def mid_s(self) -> float:
    return (self.start_s + self.end_s) / 2

  def Histogram(self) -> hdrh_histogram.HdrHistogram:
    """Decodes the interval histogram (values in nanoseconds)."""
    return hdrh_histogram.HdrHistogram.decode(self.payload)


@dataclasses.dataclass(frozen=True)
class HistogramSummary:
  """Statistics of a merged histogram; latencies in milliseconds."""

  count: int
  mean_ms: float
  p50_ms: float
  p95_ms: float
  p99_ms: float
  p999_ms: float
  max_ms: float


@dataclasses.dataclass(frozen=True)
class SeriesPoint:
  """One step of a merged time series of one tag.

  Attributes:
    start_s: step start, epoch seconds.
    end_s: step end, epoch seconds.
    count: operations of all loaders in intervals assigned to this step.
    op_rate: count divided by the step length.
    intervals: number of interval histograms merged (loaders x intervals).
    p50_ms: median of the merged histogram; None when count is 0.
    p99_ms: 99th percentile; None when count is 0.
    max_ms: maximum; None when count is 0.
  """

  start_s: float
  end_s: float
  count: int
  op_rate: float
  intervals: int
  p50_ms: Optional[float]
  p99_ms: Optional[float]
  max_ms: Optional[float]


@dataclasses.dataclass(frozen=True, eq=False)
class StepCounts:
  """Bucket counts of one tag per time series step, the loaders' summed.

  What a within-run interval of a percentile is computed from
  (stats.intervals.PercentileOfIntervals): one row per step of the tag's
  series, empty steps included, one column per bucket that holds any of the
  tag's operations. The buckets are the histograms' own, grouped by
  COARSE_BUCKETS_PER_OCTAVE: a run at 3 significant digits fills thousands
  of buckets (8,000 in 10 s of the lab's write run), which an hour of
  steps could not keep. Each step's row is kept sparse (its non-empty
  buckets) and Matrix builds the dense array on demand, one tag at a time.

  Attributes:
    starts_s: each step's start, epoch seconds, as the tag's series.
    bucket_values_ms: each column's value, increasing: HdrHistogram's
      highest value equivalent to the last histogram bucket of the group
      (percentiles are reported so).
    row_ends: row i's entries are [row_ends[i - 1], row_ends[i]) of
      columns and counts (from 0 for row 0).
    columns: column of each entry.
    counts: operations of each entry.
  """

  starts_s: tuple[float, ...]
  bucket_values_ms: np.ndarray
  row_ends: np.ndarray
  columns: np.ndarray
  counts: np.ndarray

  def Matrix(self) -> np.ndarray:
    """steps x buckets float64 counts (steps x buckets x 8 bytes)."""
    matrix = np.zeros((len(self.starts_s), len(self.bucket_values_ms)))
    rows = np.repeat(
        np.arange(len(self.starts_s)), np.diff(self.row_ends, prepend=0)
    )
    matrix[rows, self.columns] = self.counts
    return matrix

  def ValuesWith(self, value_ms: float) -> np.ndarray:
    """bucket_values_ms, the bucket that holds value_ms valued at it.

    A percentile of the summed histograms (HistogramSummary) lies in one
    bucket group; the percentile of Matrix's rows summed is that group, so
    with these values it is reported as the summary reports it, exactly.
    The values stay increasing: value_ms lies above the group before.
    """
    values = self.bucket_values_ms.copy()
    group = int(np.searchsorted(values, value_ms, side='left'))
    if group < len(values):
      values[group] = value_ms
    return values


@dataclasses.dataclass(frozen=True)
class HdrMerge:
  """Histograms of several loaders merged per tag.

  Attributes:
    summaries: tag -> statistics over the window (or the whole logs), per
      op type (`WRITE-st`, ...) and of all op types (`total-st`, ...).
    series: tag -> steps from the tag's first to its last step with data,
      steps without data included (count 0); empty without a step.
    window: the requested (start, end), epoch seconds, or None.
    spans: loader -> (first interval start, last interval end) of its whole
      log, epoch seconds after the clock offset.
    counts: loader -> tag -> values recorded in its merged intervals (the
      whole log without a window): a log holding fewer operations than the
      loader's text log reports was cut.
    step_counts: tag -> its bucket counts per series step, for the tags
      MergeHdrLogs was asked to keep (keep_counts) that have a series.
  """

  summaries: Mapping[str, HistogramSummary]
  series: Mapping[str, tuple[SeriesPoint, ...]]
  window: Optional[tuple[float, float]]
  spans: Mapping[str, tuple[float, float]]
  counts: Mapping[str, Mapping[str, int]]
  step_counts: Mapping[str, StepCounts] = dataclasses.field(
      default_factory=dict
  )


def _CheckPayloadLength(payload: str) -> None:
  """Raises HdrLogError if a base64 histogram is shorter than it says."""
  try:
    header = base64.b64decode(payload[:_HEADER_CHARS])
  except binascii.Error as e:
    raise HdrLogError(f'not a base64 histogram ({e})') from e
  if len(header) < _HEADER_BYTES:
    raise HdrLogError(f'histogram cut after {len(payload)} characters')
  decoded_bytes = _HEADER_BYTES + int.from_bytes(header[4:8], 'big')
  expected_chars = 4 * math.ceil(decoded_bytes / 3)
  if len(payload) != expected_chars:
    raise HdrLogError(
        f'histogram is {len(payload)} characters, its header says'
        f' {expected_chars} (line cut?)'
    )


def _Lines(text: str) -> Iterator[str]:
  """Yields the lines of a text one by one.

  Unlike splitlines or io.StringIO, this does not copy the whole text at
  once: a long log of many loaders is hundreds of MiB.
  """
  start = 0
  while start < len(text):
    end = text.find('\n', start)
    if end < 0:
      end = len(text)
    yield text[start:end]
    start = end + 1


def IterHdrIntervals(source: LogSource) -> Iterator[HdrInterval]:
  """Reads an HDR interval log line by line, without decoding histograms.

  Timestamps become absolute: a line's start plus BaseTime when the log has
  one; without BaseTime, plus StartTime if the start is more than a year
  before StartTime (relative), else as written (absolute).

  Args:
    source: the log's text, or its lines (e.g. an open file).

  Yields:
    Interval histograms in log order.

  Raises:
    HdrLogError: a malformed or cut line (its number is in the message).
  """
  lines = _Lines(source) if isinstance(source, str) else source
  start_time = base_time = None
  for number, line in enumerate(lines, start=1):
    line = line.strip()
    if not line or line.startswith(_LEGEND):
      continue
    if line.startswith('#'):
      match = _BASE_TIME.match(line)
      if match:
        base_time = float(match.group(1))
      match = _START_TIME.match(line)
      if match:
        start_time = float(match.group(1))
      continue
    tag = ''
    if line.startswith('Tag='):
      tag, _, line = line[4:].partition(',')
    fields = line.split(',')
    if len(fields) != 4:
      raise HdrLogError(f'line {number}: not an interval line: {line[:80]!r}')
    try:
      start, length = float(fields[0]), float(fields[1])
      _CheckPayloadLength(fields[3])
    except (ValueError, HdrLogError) as e:
      raise HdrLogError(f'line {number}: {e}') from e
    if base_time is not None:
      start += base_time
    elif start_time is not None and start < start_time - _RELATIVE_LIMIT_S:
      start += start_time
    yield HdrInterval(tag, start, start + length, fields[3])


class _Layout:
  """Value tables of one histogram bucket layout, grown on demand.

  Histograms with the same lowest discernible value and precision share
  bucket indexes whatever their highest trackable value, so their count
  arrays add element by element (the shorter one padded with zeros).
  """

  def __init__(self, reference: hdrh_histogram.HdrHistogram):
    self._reference = reference
    self.highest = np.zeros(0)
    self.middle = np.zeros(0)

  def Grow(self, length: int) -> None:
    """Extends the tables to cover bucket indexes [0, length)."""
    reference = self._reference
    indexes = range(len(self.highest), length)
    lowest = [reference.get_value_from_index(i) for i in indexes]
    highest = [reference.get_highest_equivalent_value(v) for v in lowest]
    # HdrHistogram's median equivalent value: lowest + half the bucket width.
    middle = [lo + (hi - lo + 1) // 2 for lo, hi in zip(lowest, highest)]
    self.highest = np.concatenate((self.highest, highest))
    self.middle = np.concatenate((self.middle, middle))


def _LayoutKey(histogram: hdrh_histogram.HdrHistogram) -> tuple[int, int]:
  return histogram.unit_magnitude, histogram.sub_bucket_half_count_magnitude


class _Sum:
  """Bucket counts summed over histograms of one layout.

  Counts are float64, exact up to 2**53 operations, so that the cumulative
  sums, percentile search and mean run on one type without conversions.
  """

  def __init__(self):
    self.counts = np.zeros(0)
    self.intervals = 0

  def Add(self, counts: np.ndarray, intervals: int = 1) -> None:
    """Adds bucket counts (of one interval histogram, or of a sum)."""
    if len(counts) > len(self.counts):
      self.counts = np.concatenate(
          (self.counts, np.zeros(len(counts) - len(self.counts)))
      )
    self.counts[: len(counts)] += counts
    self.intervals += intervals

  def Statistics(self, layout: _Layout):
    """(count, mean, {percentile: value}, max) in ns; None if empty."""
    counts = self.counts
    cumulative = np.cumsum(counts)
    total = int(cumulative[-1]) if len(cumulative) else 0
    if not total:
      return None
    if len(layout.highest) < len(counts):
      layout.Grow(len(counts))
    # Java's HdrHistogram: one ulp below p, then ceil(p * count / 100).
    below = np.nextafter(np.array(_PERCENTILES), -np.inf)
    ranks = np.maximum(np.ceil(below * total / 100.0), 1)
    indexes = np.searchsorted(cumulative, ranks, side='left')
    percentiles = dict(zip(_PERCENTILES, layout.highest[indexes].tolist()))
    # Not np.dot: BLAS threads make it slow on a busy machine.
    mean = float((counts * layout.middle[: len(counts)]).sum()) / total
    last = np.searchsorted(cumulative, total, side='left')
    return total, mean, percentiles, float(layout.highest[last])


def _Summary(statistics) -> HistogramSummary:
  total, mean, percentiles, maximum = statistics
  return HistogramSummary(
      count=total,
      mean_ms=mean / _NS_PER_MS,
      p50_ms=percentiles[50.0] / _NS_PER_MS,
      p95_ms=percentiles[95.0] / _NS_PER_MS,
      p99_ms=percentiles[99.0] / _NS_PER_MS,
      p999_ms=percentiles[99.9] / _NS_PER_MS,
      max_ms=maximum / _NS_PER_MS,
  )


def _WithKindTotals(sums: Mapping[str, _Sum]) -> dict[str, _Sum]:
  """Adds `total-<kind>` sums of all op types to per-tag sums.

  Tags are `<op type>-<kind>` (`WRITE-st`); an untagged log has no kind.
  """
  result = dict(sums)
  for tag, tag_sum in sums.items():
    op_type, _, kind = tag.rpartition('-')
    if op_type:
      result.setdefault('total-' + kind, _Sum()).Add(
          tag_sum.counts, tag_sum.intervals
      )
  return result


def _Point(start_s, step_s, tag_sum, layout) -> SeriesPoint:
  statistics = tag_sum.Statistics(layout) if tag_sum else None
  if statistics is None:
    return SeriesPoint(start_s, start_s + step_s, 0, 0.0, 0, None, None, None)
  total, _, percentiles, maximum = statistics
  return SeriesPoint(
      start_s=start_s,
      end_s=start_s + step_s,
      count=total,
      op_rate=total / step_s,
      intervals=tag_sum.intervals,
      p50_ms=percentiles[50.0] / _NS_PER_MS,
      p99_ms=percentiles[99.0] / _NS_PER_MS,
      max_ms=maximum / _NS_PER_MS,
  )


def _LoaderIntervals(name, source, window, offset_s, spans):
  """Yields (midpoint, loader, interval) of one loader's log in the window.

  Reads the whole log even past the window so that a cut log is noticed;
  records the log's span in spans[name].
  """
  first_start = last_end = last_start = None
  in_window = 0
  try:
    for interval in IterHdrIntervals(source):
      interval = dataclasses.replace(
          interval,
          start_s=interval.start_s + offset_s,
          end_s=interval.end_s + offset_s,
      )
      if last_start is not None and interval.start_s < last_start:
        raise HdrLogError(
            f'intervals go back in time at {interval.start_s:.3f}'
        )
      last_start = interval.start_s
      if first_start is None:
        first_start = interval.start_s
      last_end = max(last_end or interval.end_s, interval.end_s)
      if window and not window[0] <= interval.mid_s < window[1]:
        continue
      in_window += 1
      yield interval.mid_s, name, interval
  except HdrLogError as e:
    raise HdrLogError(f'{name}: {e}') from e
  if first_start is None:
    raise HdrLogError(f'{name}: HDR log has no interval histograms (empty?)')
  spans[name] = (first_start, last_end)
  if not in_window:
    raise HdrLogError(
        f'{name}: no interval of its log ({first_start:.3f} to'
        f' {last_end:.3f}) is in the window {window[0]:.3f} to'
        f' {window[1]:.3f}'
    )


def _Decode(name: str, interval: HdrInterval):
  """(layout key, reference histogram, counts array) of one interval."""
  try:
    decoded = interval.Histogram()
  except _DECODE_ERRORS as e:
    raise HdrLogError(
        f'{name}: undecodable {interval.tag} histogram at'
        f' {interval.start_s:.3f}: {e}'
    ) from e
  counts = np.frombuffer(decoded.counts, dtype=np.int64)
  return _LayoutKey(decoded), decoded, counts


def _GroupSize(histogram: hdrh_histogram.HdrHistogram) -> int:
  """Histogram buckets per StepCounts bucket (a power of 2, at least 1).

  It divides the buckets of every octave (sub_bucket_half_count, a power
  of 2), so a group never spans two octaves.
  """
  return max(1, histogram.sub_bucket_half_count // COARSE_BUCKETS_PER_OCTAVE)


def _Grouped(counts: np.ndarray, group: int):
  """(group indexes, counts) of a count array's non-empty bucket groups."""
  if group > 1:
    if len(counts) % group:
      # Count arrays are whole octaves long; padded in case one is not.
      counts = np.concatenate((counts, np.zeros(group - len(counts) % group)))
    columns = counts.reshape(-1, group)
    # Column by column: three times faster than sum(axis=1) on these rows.
    counts = columns[:, 0].copy()
    for column in range(1, group):
      counts += columns[:, column]
  indexes = np.flatnonzero(counts)
  return indexes.astype(np.int32), counts[indexes]


def _StepCounts(
    by_step, first, last, origin, step_s, layout, group
) -> StepCounts:
  """StepCounts of one tag from its sparse rows.

  Args:
    by_step: step -> _Grouped(its counts) of the steps with data.
    first: the tag's first step with data.
    last: its last.
    origin: start of step 0, epoch seconds.
    step_s: step length.
    layout: the merge's _Layout.
    group: histogram buckets per group.
  """
  steps = range(first, last + 1)
  empty = (np.zeros(0, dtype=np.int32), np.zeros(0))
  rows = [by_step.get(i, empty) for i in steps]
  indexes = np.concatenate([r[0] for r in rows])
  used = np.unique(indexes)
  # A group's value is that of its last histogram bucket.
  last_buckets = (used.astype(np.int64) + 1) * group - 1
  if len(used) and len(layout.highest) <= last_buckets[-1]:
    layout.Grow(int(last_buckets[-1]) + 1)
  return StepCounts(
      starts_s=tuple(origin + i * step_s for i in steps),
      bucket_values_ms=layout.highest[last_buckets] / _NS_PER_MS,
      row_ends=np.cumsum([len(r[0]) for r in rows], dtype=np.int64),
      columns=np.searchsorted(used, indexes).astype(np.int32),
      counts=np.concatenate([r[1] for r in rows]),
  )


def MergeHdrLogs(
    logs: Mapping[str, LogSource],
    window: Optional[tuple[float, float]] = None,
    step_s: Optional[float] = None,
    clock_offsets_s: Optional[Mapping[str, float]] = None,
    keep_counts: Collection[str] = (),
) -> HdrMerge:
  """Merges the HDR logs of several loaders per tag, in one pass.

  The logs are read together in time order, so memory stays small whatever
  their length; each histogram is decoded once. An interval belongs to the
  window, and to a step, by its midpoint. The histograms of all op types
  are also merged per kind into a `total-<kind>` tag (`total-st`, ...), like
  the tool's `total` line; with one op type it equals that type's tag.

  The bucket counts of every step (StepCounts, in groups of buckets) are
  kept only for the tags in keep_counts, sparse: 12 bytes (index and
  count) per non-empty bucket group of each step, e.g. 43 MB for a tag
  over 3,600 steps of 1,000 non-empty groups. StepCounts.Matrix then takes
  steps x the tag's non-empty groups x 8 bytes (43 MB for 3,600 steps and
  1,500 groups).

  Args:
    logs: loader name -> its log's text or lines (e.g. an open file).
    window: (start, end) epoch seconds; intervals whose midpoint lies in
      [start, end) are merged; None merges everything.
    step_s: length of the time series steps; the grid starts at the window
      start, or at the start of the earliest interval. None: no series.
    clock_offsets_s: loader name -> seconds to add to its timestamps to put
      them on the common clock; missing loaders get 0.
    keep_counts: tags (`WRITE-st`, `total-st`, ...) whose bucket counts per
      step to keep in HdrMerge.step_counts; only with step_s.

  Returns:
    Per-tag statistics, per-tag time series and the loaders' log spans.

  Raises:
    HdrLogError: no logs; a loader's log is empty, cut, malformed, out of
      time order, has nothing in the window, or mixes histogram precisions;
      the message starts with the loader's name.
  """
  if not logs:
    raise HdrLogError('No HDR logs to merge')
  offsets = clock_offsets_s or {}
  spans = {}
  streams = [
      _LoaderIntervals(name, source, window, offsets.get(name, 0.0), spans)
      for name, source in logs.items()
  ]
  layout_key = layout = None
  group = 1
  totals = {}
  loader_counts = {name: {} for name in logs}
  step_sums = {}
  points = {}
  kept = {}
  keep_counts = frozenset(keep_counts)
  origin = window[0] if window else None
  current_step = None

  def Flush():
    for tag, tag_sum in step_sums.items():
      totals.setdefault(tag, _Sum()).Add(tag_sum.counts, tag_sum.intervals)
    for tag, tag_sum in _WithKindTotals(step_sums).items():
      start = origin + current_step * step_s
      points.setdefault(tag, {})[current_step] = _Point(
          start, step_s, tag_sum, layout
      )
      if tag in keep_counts:
        kept.setdefault(tag, {})[current_step] = _Grouped(tag_sum.counts, group)
    step_sums.clear()

  for mid, name, interval in heapq.merge(*streams, key=lambda item: item[0]):
    key, decoded, counts = _Decode(name, interval)
    if layout_key is None:
      layout_key, layout = key, _Layout(decoded)
      group = _GroupSize(decoded)
    elif key != layout_key:
      raise HdrLogError(
          f'{name}: {interval.tag} histogram at {interval.start_s:.3f} has'
          ' another precision than the others'
      )
    tag_counts = loader_counts[name]
    tag_counts[interval.tag] = (
        tag_counts.get(interval.tag, 0) + decoded.get_total_count()
    )
    if not step_s:
      totals.setdefault(interval.tag, _Sum()).Add(counts)
      continue
    if origin is None:
      origin = interval.start_s
    step = math.floor((mid - origin) / step_s)
    if step != current_step:
      if current_step is not None:
        Flush()
      current_step = step
    step_sums.setdefault(interval.tag, _Sum()).Add(counts)
  if current_step is not None:
    Flush()
  series = {}
  for tag, by_step in points.items():
    first, last = min(by_step), max(by_step)
    series[tag] = tuple(
        by_step.get(i) or _Point(origin + i * step_s, step_s, None, layout)
        for i in range(first, last + 1)
    )
  return HdrMerge(
      summaries={
          tag: _Summary(tag_sum.Statistics(layout))
          for tag, tag_sum in _WithKindTotals(totals).items()
      },
      series=series,
      window=window,
      spans=spans,
      counts=loader_counts,
      step_counts={
          tag: _StepCounts(
              by_step,
              min(by_step),
              max(by_step),
              origin,
              step_s,
              layout,
              group,
          )
          for tag, by_step in kept.items()
      },
  )
