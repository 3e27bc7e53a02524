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

"""ScyllaDB's own metrics over a stress step's measured window.

Every ScyllaDB node serves its metrics in Prometheus text format on port 9180
(https://docs.scylladb.com/stable/operating-scylla/monitoring/). A sampler on
each server keeps the sample lines of FAMILIES (`grep -E FilterPattern()`)
and appends them, every 30 s or so, to a scrape file:

    # scylla_phases scrape 1795299882.123456789
    scylla_reactor_utilization{shard="0"} 0.182733
    ...
    # scylla_phases scrape 1795299912.120004117 failed

A block whose header ends in `failed` (the page could not be read) has no
lines and is skipped. EvidenceOfWindow turns the scrapes of one server into
one ScyllaEvidence per step: counters become rates over the interval between
two scrapes, gauges are averaged over the scrapes of that interval, and the
reactor's busy share keeps its spread across shards (mean, busiest, least
busy), since one saturated shard limits its share of the token ring.

What is read, and why. ScyllaDB's monitoring stack shows first how busy the
nodes are, their latencies and timeouts (Overview dashboard), then reads and
writes, cache and compaction per node (Detailed), then I/O queues (Advanced):
https://www.scylladb.com/2019/08/27/whats-new-in-scylla-monitoring-stack-3-0/
and https://github.com/scylladb/scylladb/blob/master/docs/metrics.md. Pages
(5.x: ScyllaDB 5.2; 3.x: a 3.1 node's page) are those saved under
tests/testdata/scylla-metrics/.

  family (kind; pages)
      why it is read
  ------------------------------------------------------------------------
  scylla_reactor_cpu_busy_ms (counter; 5.x, 3.x)
      Busy ms of each shard's reactor: its exact busy share over the
      interval. One saturated shard caps the node though others idle.
  scylla_reactor_utilization (gauge, percent; 5.x, 3.x)
      The same load as ScyllaDB reports it at each scrape; averaged when
      busy ms is not served or went down.
  scylla_transport_requests_served (counter; 5.x, 3.x)
      CQL requests served to clients. Not scylla_cql_*: those also count
      ScyllaDB's internal queries (the 5.2 page: 354 scylla_cql_reads,
      0 requests served).
  scylla_cache_{row,partition}_{hits,misses} (counters; 5.x, 3.x)
      Reads served from memory or sent to sstables: a read step limited by
      the disk shows misses.
  scylla_io_queue_total_{read,write}_bytes (counters; 5.x)
      Bytes read and written through ScyllaDB's I/O scheduler, all classes
      (queries, commitlog, flushes, compaction).
  scylla_reactor_aio_bytes_{read,write} (counters; 5.x, 3.x)
      The same bytes where the I/O queue does not split reads from writes.
  scylla_io_queue_total_delay_sec (counter; 5.x) and
  scylla_io_queue_total_operations (counter; 5.x, 3.x)
      Time requests waited in ScyllaDB's I/O queue, per request: the disk,
      not the CPU, is the limit when it grows.
  scylla_compaction_manager_backlog (gauge; 5.x)
      Compaction work owed: a write step that outruns compaction leaves a
      growing backlog, and slower reads after it.
  scylla_compaction_manager_compactions (gauge; 5.x, 3.x)
      Compactions running, competing with the step for CPU and disk.
  scylla_compaction_manager_pending_compactions (gauge; 5.x)
      Compactions waiting to run.
  scylla_storage_proxy_coordinator_foreground_{writes,reads} (gauges; both)
      Requests in flight that clients wait for: the queue in front of a
      saturated node.
  scylla_storage_proxy_coordinator_background_writes (gauge; 5.x, 3.x)
      Writes answered but still applied on replicas: grows when replicas
      lag behind the coordinator.
  scylla_storage_proxy_coordinator_current_throttled_writes (gauge; both)
      Writes held back because background writes reached their limit.
  scylla_database_queued_reads (gauge; 5.x, 3.x)
      Client reads (class="user") queued for a read permit: reads wait for
      memory or disk.
  scylla_transport_cql_errors_total (counter; 5.x)
      Its read_timeout and write_timeout types: timeouts clients saw.
  scylla_storage_proxy_coordinator_{read,write}_timeouts (counters; 3.x)
      The same timeouts where cql_errors_total is not served; the 5.2 page
      leaves them out while they are zero.
"""

import dataclasses
import math
import re
import types
from typing import Mapping, Optional, Sequence

from perfkit_plugins.core.results import sample_window

# The families read, as the sampler filters them on the node.
FAMILIES = (
    'scylla_reactor_cpu_busy_ms',
    'scylla_reactor_utilization',
    'scylla_transport_requests_served',
    'scylla_cache_row_hits',
    'scylla_cache_row_misses',
    'scylla_cache_partition_hits',
    'scylla_cache_partition_misses',
    'scylla_io_queue_total_read_bytes',
    'scylla_io_queue_total_write_bytes',
    'scylla_reactor_aio_bytes_read',
    'scylla_reactor_aio_bytes_write',
    'scylla_io_queue_total_delay_sec',
    'scylla_io_queue_total_operations',
    'scylla_compaction_manager_backlog',
    'scylla_compaction_manager_compactions',
    'scylla_compaction_manager_pending_compactions',
    'scylla_storage_proxy_coordinator_foreground_writes',
    'scylla_storage_proxy_coordinator_background_writes',
    'scylla_storage_proxy_coordinator_foreground_reads',
    'scylla_storage_proxy_coordinator_current_throttled_writes',
    'scylla_database_queued_reads',
    'scylla_transport_cql_errors_total',
    'scylla_storage_proxy_coordinator_read_timeouts',
    'scylla_storage_proxy_coordinator_write_timeouts',
)

# The cql_errors_total types that are timeouts seen by clients.
_TIMEOUT_ERROR_TYPES = ('read_timeout', 'write_timeout')

_SCRAPE_HEADER = re.compile(
    r'# scylla_phases scrape (?P<time>\S+)(?P<failed> failed)?$'
)
_NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
_LABEL_NAME = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
# Go's ParseFloat as the exposition format uses it; Python's float() would
# also take '1_000' or 'infinity'.
_VALUE = re.compile(
    r'[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Inf)|NaN'
)
_TIMESTAMP = re.compile(r'-?\d+')
_ESCAPES = {'\\': '\\', '"': '"', 'n': '\n'}


class MetricsFormatError(ValueError):
  """A line that is not Prometheus text exposition format, with its number."""

  def __init__(self, lineno, line, why):
    super().__init__(f'line {lineno}: {why}: {line!r}')
    self.lineno = lineno
    self.line = line


def FilterPattern():
  """The `grep -E` pattern keeping exactly the sample lines of FAMILIES.

  A sample line starts with its name, then `{` (labels) or a space (value);
  names that only start like a family (scylla_transport_requests_serving)
  and comment lines do not match.
  """
  return '^(' + '|'.join(FAMILIES) + ')[{ ]'


def _Labels(line, pos, lineno):
  """Parses `{name="value",...}` from line[pos] ('{'); returns labels, end."""
  labels = {}
  pos += 1
  while True:
    while pos < len(line) and line[pos] in ' \t':
      pos += 1
    if line.startswith('}', pos):
      return labels, pos + 1
    name = _LABEL_NAME.match(line, pos)
    if not name:
      raise MetricsFormatError(lineno, line, 'bad label name')
    pos = name.end()
    while pos < len(line) and line[pos] in ' \t':
      pos += 1
    if not line.startswith('="', pos):
      raise MetricsFormatError(lineno, line, 'label without ="value"')
    pos += 2
    value = []
    while True:
      if pos >= len(line):
        raise MetricsFormatError(lineno, line, 'unterminated label value')
      char = line[pos]
      if char == '"':
        pos += 1
        break
      if char == '\\':
        escaped = _ESCAPES.get(line[pos + 1 : pos + 2])
        if escaped is None:
          raise MetricsFormatError(lineno, line, 'bad escape in label value')
        value.append(escaped)
        pos += 2
      else:
        value.append(char)
        pos += 1
    if name.group() in labels:
      raise MetricsFormatError(lineno, line, 'label given twice')
    labels[name.group()] = ''.join(value)
    while pos < len(line) and line[pos] in ' \t':
      pos += 1
    if line.startswith(',', pos):
      pos += 1
    elif not line.startswith('}', pos):
      raise MetricsFormatError(lineno, line, 'expected , or } after label')


def _Sample(line, lineno):
  """(name, labels, value) of one sample line."""
  name = _NAME.match(line)
  if not name:
    raise MetricsFormatError(lineno, line, 'bad metric name')
  labels, pos = {}, name.end()
  if line.startswith('{', pos):
    labels, pos = _Labels(line, pos, lineno)
  fields = line[pos:].split()
  if not line[pos : pos + 1].isspace() or not 1 <= len(fields) <= 2:
    raise MetricsFormatError(lineno, line, 'expected value [timestamp]')
  if not _VALUE.fullmatch(fields[0]):
    raise MetricsFormatError(lineno, line, 'bad value')
  if len(fields) == 2 and not _TIMESTAMP.fullmatch(fields[1]):
    raise MetricsFormatError(lineno, line, 'bad timestamp')
  return name.group(), labels, float(fields[0])


def _ParseLines(lines, first_lineno):
  """ParseExposition of lines numbered from first_lineno."""
  samples = {}
  for lineno, line in enumerate(lines, first_lineno):
    if not line.strip() or line.lstrip().startswith('#'):
      continue
    name, labels, value = _Sample(line, lineno)
    samples.setdefault(name, []).append((labels, value))
  return samples


def ParseExposition(text):
  """Samples of a page in Prometheus text exposition format 0.0.4.

  Comments (HELP and TYPE included) and blank lines are skipped; label
  values are unescaped (\\", \\\\, \\n); NaN, +Inf and -Inf are floats; an
  optional timestamp after the value is dropped. Histogram and summary
  series keep their own names (name_bucket, name_sum, name_count).

  Args:
    text: the page.

  Returns:
    {name: [(labels, value), ...]} in page order.

  Raises:
    MetricsFormatError: a line is not in the format.
  """
  return _ParseLines(text.split('\n'), 1)


@dataclasses.dataclass(frozen=True)
class Scrape:
  """One read of a node's filtered page, at the sampler's clock `time`."""

  time: float
  samples: Mapping[str, tuple[tuple[Mapping[str, str], float], ...]]
  failed: bool = False


def _Scrape(time, lines, first_lineno, failed):
  samples = {
      name: tuple((types.MappingProxyType(l), v) for l, v in series)
      for name, series in _ParseLines(lines, first_lineno).items()
  }
  return Scrape(time, types.MappingProxyType(samples), failed)


def ParseScrapes(text):
  """The scrapes of a scrape file, in file order.

  The sampler appends whole blocks. A file pulled while one was written
  ends without a newline: a cut header line is dropped, and a cut sample
  line drops its whole block.

  Args:
    text: the scrape file.

  Returns:
    [Scrape, ...]; failed scrapes have failed=True and no samples.

  Raises:
    MetricsFormatError: a line before the first header, after a failed
      header, or not in the exposition format.
  """
  lines = text.split('\n')
  cut = lines.pop()  # '' when the file ends with a newline.
  blocks = []  # (header line index, [line, ...])
  for index, line in enumerate(lines):
    if _SCRAPE_HEADER.match(line):
      blocks.append((index, []))
    elif not blocks:
      raise MetricsFormatError(index + 1, line, 'no scrape header before')
    else:
      blocks[-1][1].append(line)
  if cut and not cut.startswith('#') and blocks:
    blocks.pop()  # A sample line was being written: its block is not whole.
  scrapes = []
  for index, body in blocks:
    header = _SCRAPE_HEADER.match(lines[index])
    try:
      time = float(header.group('time'))
    except ValueError:
      raise MetricsFormatError(index + 1, lines[index], 'bad time') from None
    failed = bool(header.group('failed'))
    extra = [i for i, line in enumerate(body) if line.strip()]
    if failed and extra:
      lineno = index + 2 + extra[0]
      raise MetricsFormatError(lineno, body[extra[0]], 'line after failed')
    scrapes.append(_Scrape(time, body, index + 2, failed))
  return scrapes


@dataclasses.dataclass(frozen=True)
class ScyllaEvidence:
  """What one ScyllaDB node did over a step's window; None when unknown.

  Attributes:
    start_s: time of the first scrape used.
    end_s: time of the last scrape used.
    shards: shards (reactor threads) of the node.
    reactor_mean_pct: busy share of the reactor, mean over shards.
    reactor_max_pct: busy share of the busiest shard.
    reactor_min_pct: busy share of the least busy shard.
    cql_requests_per_s: CQL requests served per second.
    cache_row_hit_pct: rows read found in the cache, percent.
    cache_partition_hit_pct: partitions read found in the cache, percent.
    disk_read_bytes_per_s: bytes read from disk per second.
    disk_write_bytes_per_s: bytes written to disk per second.
    io_queue_delay_ms: mean time an I/O request waited in ScyllaDB's queue.
    compaction_backlog: compaction backlog, summed over shards, mean over
      the scrapes.
    compactions_running_max: most compactions running at one scrape.
    pending_compactions_mean: compactions waiting, mean over the scrapes.
    foreground_writes_mean: writes clients wait for, mean over the scrapes.
    background_writes_mean: writes still applied after their answer.
    foreground_reads_mean: reads clients wait for, mean over the scrapes.
    throttled_writes_mean: writes held back, mean over the scrapes.
    queued_reads_mean: user reads waiting for a permit, mean over scrapes.
    timeouts_per_s: read and write timeouts per second.
    problems: why figures are None, or the interval is wider than the
      window.
  """

  start_s: Optional[float] = None
  end_s: Optional[float] = None
  shards: Optional[int] = None
  reactor_mean_pct: Optional[float] = None
  reactor_max_pct: Optional[float] = None
  reactor_min_pct: Optional[float] = None
  cql_requests_per_s: Optional[float] = None
  cache_row_hit_pct: Optional[float] = None
  cache_partition_hit_pct: Optional[float] = None
  disk_read_bytes_per_s: Optional[float] = None
  disk_write_bytes_per_s: Optional[float] = None
  io_queue_delay_ms: Optional[float] = None
  compaction_backlog: Optional[float] = None
  compactions_running_max: Optional[float] = None
  pending_compactions_mean: Optional[float] = None
  foreground_writes_mean: Optional[float] = None
  background_writes_mean: Optional[float] = None
  foreground_reads_mean: Optional[float] = None
  throttled_writes_mean: Optional[float] = None
  queued_reads_mean: Optional[float] = None
  timeouts_per_s: Optional[float] = None
  problems: tuple[str, ...] = ()


def _Interval(good, start_s, end_s, problems):
  """The (first, last) scrapes whose interval stands for the window."""
  pair = sample_window.PairOfWindow([s.time for s in good], start_s, end_s)
  if pair is None:
    problems.append(
        f'fewer than two good scrapes around the window {start_s}..{end_s}'
    )
    return None
  first, last = good[pair.first], good[pair.last]
  if pair.wider:
    problems.append(
        f'fewer than two good scrapes in the window {start_s}..{end_s}: used'
        f' the wider interval {first.time}..{last.time}'
    )
  return first, last


class _Window:
  """Counters and gauges of one node between two scrapes."""

  def __init__(self, scrapes, first, last, problems):
    self.first = first
    self.last = last
    self.seconds = last.time - first.time
    self.between = [s for s in scrapes if first.time <= s.time <= last.time]
    self.problems = problems

  def Deltas(self, name, keep=lambda labels: True):
    """{labels: increase} of a counter's series, or None (a problem said).

    A series missing from the first scrape counts from 0: ScyllaDB 5.x
    leaves some counters out while they are zero.
    """
    if name not in self.last.samples:
      where = 'the last scrape' if name in self.first.samples else 'the page'
      self.problems.append(f'{name}: not on {where}')
      return None
    before = {
        tuple(sorted(l.items())): v
        for l, v in self.first.samples.get(name, ())
        if keep(l)
    }
    deltas = {}
    for labels, value in self.last.samples[name]:
      if not keep(labels):
        continue
      key = tuple(sorted(labels.items()))
      delta = value - before.get(key, 0.0)
      if delta < 0:
        self.problems.append(
            f'{name}: counter went down ({dict(labels)}), node restarted?'
        )
        return None
      deltas[key] = delta
    return deltas

  def Total(self, name, keep=lambda labels: True):
    deltas = self.Deltas(name, keep)
    return None if deltas is None else sum(deltas.values())

  def Rate(self, name, keep=lambda labels: True):
    total = self.Total(name, keep)
    return None if total is None else total / self.seconds

  def Sums(self, name, keep=lambda labels: True):
    """A gauge summed over its series, at each scrape that has it."""
    sums = [
        sum(v for l, v in s.samples[name] if keep(l))
        for s in self.between
        if name in s.samples
    ]
    if not sums:
      self.problems.append(f'{name}: not on the page')
    return sums

  def Mean(self, name, keep=lambda labels: True):
    sums = self.Sums(name, keep)
    return sum(sums) / len(sums) if sums else None


def _UserReads(labels):
  """Reads of clients, not ScyllaDB's own (class system or streaming)."""
  return labels.get('class') == 'user'


def _Shard(labels):
  return labels.get('shard', '')


def _ReactorPct(window):
  """{shard: busy percent} from busy ms, else from the utilization gauge."""
  deltas = None
  if 'scylla_reactor_cpu_busy_ms' in window.last.samples:
    deltas = window.Deltas('scylla_reactor_cpu_busy_ms')
  if deltas is not None:
    busy = {}
    for key, delta in deltas.items():
      busy.setdefault(_Shard(dict(key)), 0.0)
      busy[_Shard(dict(key))] += delta
    return {
        shard: 100.0 * ms / (1000.0 * window.seconds)
        for shard, ms in busy.items()
    }
  per_shard = {}
  for scrape in window.between:
    for labels, value in scrape.samples.get('scylla_reactor_utilization', ()):
      if not math.isnan(value):
        per_shard.setdefault(_Shard(labels), []).append(value)
  if not per_shard:
    window.problems.append('scylla_reactor_utilization: not on the page')
  return {shard: sum(v) / len(v) for shard, v in per_shard.items()}


def _HitPct(window, hits_name, misses_name, what):
  hits = window.Total(hits_name)
  misses = window.Total(misses_name)
  if hits is None or misses is None:
    return None
  if hits + misses == 0:
    window.problems.append(f'no {what} reads in the interval')
    return None
  return 100.0 * hits / (hits + misses)


def _DiskRate(window, io_queue_name, aio_name):
  """Bytes per second from the I/O queue, else from the reactor's AIO."""
  if io_queue_name in window.last.samples:
    return window.Rate(io_queue_name)
  if aio_name in window.last.samples:
    return window.Rate(aio_name)
  window.problems.append(f'{io_queue_name}, {aio_name}: not on the page')
  return None


def _QueueDelayMs(window):
  delay = window.Total('scylla_io_queue_total_delay_sec')
  operations = window.Total('scylla_io_queue_total_operations')
  if delay is None or operations is None:
    return None
  if not operations:
    window.problems.append('no I/O requests in the interval')
    return None
  return 1000.0 * delay / operations


def _TimeoutRate(window):
  """Read and write timeouts per second, from whichever family is served."""
  if 'scylla_transport_cql_errors_total' in window.last.samples:
    return window.Rate(
        'scylla_transport_cql_errors_total',
        lambda labels: labels.get('type') in _TIMEOUT_ERROR_TYPES,
    )
  names = (
      'scylla_storage_proxy_coordinator_read_timeouts',
      'scylla_storage_proxy_coordinator_write_timeouts',
  )
  if not any(name in window.last.samples for name in names):
    window.problems.append(
        'timeouts: neither scylla_transport_cql_errors_total nor'
        ' scylla_storage_proxy_coordinator_{read,write}_timeouts on the page'
    )
    return None
  totals = [window.Total(name) for name in names if name in window.last.samples]
  if None in totals:
    return None
  return sum(totals) / window.seconds


def EvidenceOfWindow(
    scrapes: Sequence[Scrape], window_start_s: float, window_end_s: float
) -> ScyllaEvidence:
  """What one node's scrapes say about the window start..end (epoch s).

  The interval runs from the first good scrape at or after the start to the
  last at or before the end; with fewer than two good scrapes inside, from
  the last before the start to the first after the end (said in problems).
  Counters, summed over shards and labels, become rates over that interval;
  gauges are averaged over the scrapes in it (both ends included).

  Args:
    scrapes: ParseScrapes of the node's scrape file.
    window_start_s: the step's measured window start.
    window_end_s: the step's measured window end.

  Returns:
    ScyllaEvidence; None figures say why in problems.
  """
  problems = []
  good = sorted((s for s in scrapes if not s.failed), key=lambda s: s.time)
  interval = _Interval(good, window_start_s, window_end_s, problems)
  if interval is None:
    return ScyllaEvidence(problems=tuple(problems))
  window = _Window(good, *interval, problems)
  reactor = _ReactorPct(window)
  busy = list(reactor.values())
  compactions = window.Sums('scylla_compaction_manager_compactions')
  proxy = 'scylla_storage_proxy_coordinator_'
  return ScyllaEvidence(
      start_s=window.first.time,
      end_s=window.last.time,
      shards=len(reactor) or None,
      reactor_mean_pct=sum(busy) / len(busy) if busy else None,
      reactor_max_pct=max(busy, default=None),
      reactor_min_pct=min(busy, default=None),
      cql_requests_per_s=window.Rate('scylla_transport_requests_served'),
      cache_row_hit_pct=_HitPct(
          window, 'scylla_cache_row_hits', 'scylla_cache_row_misses', 'row'
      ),
      cache_partition_hit_pct=_HitPct(
          window,
          'scylla_cache_partition_hits',
          'scylla_cache_partition_misses',
          'partition',
      ),
      disk_read_bytes_per_s=_DiskRate(
          window,
          'scylla_io_queue_total_read_bytes',
          'scylla_reactor_aio_bytes_read',
      ),
      disk_write_bytes_per_s=_DiskRate(
          window,
          'scylla_io_queue_total_write_bytes',
          'scylla_reactor_aio_bytes_write',
      ),
      io_queue_delay_ms=_QueueDelayMs(window),
      compaction_backlog=window.Mean('scylla_compaction_manager_backlog'),
      compactions_running_max=max(compactions, default=None),
      pending_compactions_mean=window.Mean(
          'scylla_compaction_manager_pending_compactions'
      ),
      foreground_writes_mean=window.Mean(proxy + 'foreground_writes'),
      background_writes_mean=window.Mean(proxy + 'background_writes'),
      foreground_reads_mean=window.Mean(proxy + 'foreground_reads'),
      throttled_writes_mean=window.Mean(proxy + 'current_throttled_writes'),
      queued_reads_mean=window.Mean('scylla_database_queued_reads', _UserReads),
      timeouts_per_s=_TimeoutRate(window),
      problems=tuple(problems),
  )
