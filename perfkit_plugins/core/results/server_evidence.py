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

"""What each server did during a stress step, and where the step's limit was.

Every server samples itself while a step runs (operations/
server_sampling.py). Its host file holds, every few seconds and each after
the server's clock (`date +%s.%N`):

    # device md0 /dev/md0
    1795892047.829837182 cpu  2396301 0 412656 2009467 18698 0 23785 5539 0 0
    1795892047.829837182 disk  254 0 md0 1574633 69554 75281282 ...
    1795892047.829837182 net 694011681 1870934

the first line of /proc/stat (loader_checks.ParseCpuSamples reads it), the
/proc/diskstats line of the device that holds the data directory, and the
bytes received and sent by every interface but lo. Over the step's window
(sample_window.PairOfWindow) they give the server's CPU busy, I/O wait and
steal shares, its data disk's read and write throughput and utilization
(the share of the time the device had I/O in flight, diskstats' tenth
field after the name), and its network throughput. A ScyllaDB server adds
its own metrics (scylla_metrics.EvidenceOfWindow). Every engine's node also
says, as the step ends, how many compactions run and wait (its REST API,
or nodetool for Apache Cassandra): the backlog the step left. Apache
Cassandra's node says what its thread pools dropped and blocked during the
step (thread_pools.OfStep).

The limit of a step (StepLimit) is judged from that evidence and the
loaders' CPU: servers saturated when a server's busiest shard (ScyllaDB's
reactor utilization) or, for an engine without one, its CPU was busy for
SERVER_BUSY_PCT of the window or more, or when a node dropped a message
or blocked a task during the step (it could not keep up); disk-bound when
a server's data disk was busy for DISK_BUSY_PCT of it; loaders saturated
as the loaders' guard says. ScyllaDB's host CPU is not judged: its
reactors poll for work, so the host looks busy when the shards are not.
"""

import dataclasses
from typing import Optional, Sequence

from perfkit_plugins.core.quiesce import compactions as compactions_lib
from perfkit_plugins.core.results import loader_checks
from perfkit_plugins.core.results import sample_window
from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.core.results import thread_pools

SERVER_BUSY_PCT = 90.0
"""Busiest shard (or CPU) share of a step at which its servers were the limit.

A shard past 90% busy queues requests: its latencies rise before its
throughput does, and the cluster's rate is its busiest shard's.
"""

DISK_BUSY_PCT = 90.0
"""Data disk busy share of a step at which the disk was the limit.

The share of time with I/O in flight: a RAID of NVMe SSDs serves many
requests at once, so 100% busy is not always full; it says the disk was in
use all the time, and the step's figures depend on it.
"""

# The limits a step can have, in the order a reader should look at them.
LOADERS = 'loaders'
SERVERS = 'servers'
DISK = 'disk'
NONE = 'none'
UNKNOWN = 'unknown'
# Bytes in a /proc/diskstats sector, whatever the device's own.
_SECTOR_BYTES = 512
# Fields of a diskstats line after `<time> disk <major> <minor> <name>`:
# reads, reads merged, sectors read, ms reading, writes, writes merged,
# sectors written, ms writing, in flight, ms with I/O in flight.
_DISK_FROM, _DISK_FIELDS = 5, 10
_SECTORS_READ, _SECTORS_WRITTEN, _IO_MS = 2, 6, 9
# A net line: `<time> net <received> <sent>`.
_NET_FROM, _NET_FIELDS = 2, 2
_DEVICE_LINE = '# device '


class HostLogError(ValueError):
  """A server's host file that cannot be read."""


@dataclasses.dataclass(frozen=True)
class HostEvidence:
  """A server's CPU, data disk and network over a step's window.

  Figures are None when unknown (problems says why).

  Attributes:
    start_s: the first sample used, the controller's clock.
    end_s: the last sample used.
    cpu_busy_pct: share of all CPUs' time busy (neither idle nor waiting
      for I/O), percent.
    cpu_iowait_pct: share idle with I/O outstanding.
    cpu_steal_pct: share the hypervisor gave to others.
    disk_device: the data directory's device in /proc/diskstats ('' when
      it is not a disk).
    disk_read_bytes_per_s: bytes read from it per second.
    disk_write_bytes_per_s: bytes written to it per second.
    disk_busy_pct: share of the time it had I/O in flight.
    net_rx_bytes_per_s: bytes received per second, every interface but lo.
    net_tx_bytes_per_s: bytes sent per second.
    cpu_series: (start of each sample interval, controller's clock; busy
      share of the interval) over the whole sampling, for plots.
    problems: why some figures are unknown, or were taken over a wider
      interval than the window.
  """

  start_s: Optional[float] = None
  end_s: Optional[float] = None
  cpu_busy_pct: Optional[float] = None
  cpu_iowait_pct: Optional[float] = None
  cpu_steal_pct: Optional[float] = None
  disk_device: str = ''
  disk_read_bytes_per_s: Optional[float] = None
  disk_write_bytes_per_s: Optional[float] = None
  disk_busy_pct: Optional[float] = None
  net_rx_bytes_per_s: Optional[float] = None
  net_tx_bytes_per_s: Optional[float] = None
  cpu_series: tuple[tuple[float, float], ...] = ()
  problems: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ServerEvidence:
  """What one server did during a step.

  Attributes:
    index: the server's index in the run's servers.
    name: its VM name.
    host: its HostEvidence, None when its host file is missing or
      unreadable.
    shards: the engine runs shards whose reactors poll (ScyllaDB): only
      their own utilization says how busy the server was.
    scylla: ScyllaDB's own figures (scylla_metrics.ScyllaEvidence), None
      for another engine or when its metrics were not read.
    compactions: the node's compactions as the step ended (running and
      pending: the backlog the step left), None when unknown.
    pools: what its thread pools dropped and blocked during the step
      (thread_pools.PoolsOfStep: Apache Cassandra's), None when unknown.
    problems: why some of the evidence is missing.
  """

  index: int
  name: str
  host: Optional[HostEvidence]
  shards: bool = False
  scylla: Optional[scylla_metrics.ScyllaEvidence] = None
  compactions: Optional[compactions_lib.CompactionStatus] = None
  pools: Optional[thread_pools.PoolsOfStep] = None
  problems: tuple[str, ...] = ()

  @property
  def busy_pct(self):
    """The busiest shard's share (shards), else the CPU's; None: unknown."""
    if self.shards:
      return self.scylla.reactor_max_pct if self.scylla else None
    return self.host.cpu_busy_pct if self.host else None

  @property
  def busy_of(self):
    """What busy_pct is the share of, in words."""
    return 'busiest shard' if self.shards else 'CPU'


@dataclasses.dataclass(frozen=True)
class NodeAnswers:
  """What a node said of itself at a step's ends: its engine's own calls.

  Attributes:
    compactions: its compactions as the step ended (running and pending:
      compactions.CompactionStatus), None when unknown.
    pools_start: its thread pools as the step started
      (thread_pools.ThreadPools: Apache Cassandra's nodetool tpstats),
      None when unknown or not read.
    pools_end: and as it ended.
    problems: why any of them is unknown.
  """

  compactions: Optional[compactions_lib.CompactionStatus] = None
  pools_start: Optional[thread_pools.ThreadPools] = None
  pools_end: Optional[thread_pools.ThreadPools] = None
  problems: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ServerOutput:
  """What one server's sampling of a step brought home.

  Attributes:
    index: the server's index in the run's servers.
    name: its VM name.
    clock_offset_s: its clock minus the controller's.
    host: its host file, None when missing.
    metrics: its metrics scrapes, None when missing or not expected.
    shards: the engine serves a metrics page of shards (ScyllaDB).
    node: what the node said of itself at the step's ends (NodeAnswers).
    problems: why the sampling did not start or stop, or a file is
      missing.
  """

  index: int
  name: str
  clock_offset_s: float
  host: Optional[str]
  metrics: Optional[str]
  shards: bool
  node: NodeAnswers = NodeAnswers()
  problems: tuple[str, ...] = ()


def EvidenceOfServer(output: ServerOutput, start_s: float, end_s: float):
  """A server's ServerEvidence over a step's window (controller's clock)."""
  node = output.node
  problems = list(output.problems + node.problems)
  host = None
  if output.host is not None:
    try:
      host = HostEvidenceOfWindow(
          output.host, output.clock_offset_s, start_s, end_s
      )
    except HostLogError as e:
      problems.append(f'host samples unreadable: {e}')
  scylla = None
  if output.shards and output.metrics is not None:
    try:
      scrapes = scylla_metrics.ParseScrapes(output.metrics)
    except scylla_metrics.MetricsFormatError as e:
      problems.append(f'metrics unreadable: {e}')
    else:
      # The scrapes carry the server's clock: the window is moved to it.
      scylla = scylla_metrics.EvidenceOfWindow(
          scrapes,
          start_s + output.clock_offset_s,
          end_s + output.clock_offset_s,
      )
  pools = None
  if node.pools_start is not None and node.pools_end is not None:
    pools = thread_pools.OfStep(node.pools_start, node.pools_end)
    problems += pools.problems
  return ServerEvidence(
      output.index,
      output.name,
      host,
      output.shards,
      scylla,
      node.compactions,
      pools,
      tuple(problems),
  )


@dataclasses.dataclass(frozen=True)
class _Sample:
  time_s: float
  cpu: loader_checks.CpuSample
  disk: Optional[tuple[int, ...]]
  net: Optional[tuple[int, int]]


def _ParseHost(text):
  """The device line's name and the samples, in file order."""
  device = ''
  lines = {}
  order = []
  for number, line in enumerate(text.splitlines(), start=1):
    if not line.strip():
      continue
    if line.startswith(_DEVICE_LINE):
      name = line[len(_DEVICE_LINE) :].split()
      device = name[0] if name and name[0] != '-' else ''
      continue
    words = line.split()
    if len(words) < 3:
      raise HostLogError(f'line {number} is not a sample: {line[:120]!r}')
    if words[0] not in lines:
      lines[words[0]] = {}
      order.append(words[0])
    lines[words[0]][words[1]] = (number, line)
  samples = []
  for time in order:
    kinds = lines[time]
    if 'cpu' not in kinds:
      raise HostLogError(f'the sample at {time} has no cpu line')
    try:
      cpu = loader_checks.ParseCpuSamples(kinds['cpu'][1])[0]
    except loader_checks.CpuLogError as e:
      raise HostLogError(f'line {kinds["cpu"][0]}: {e}') from e
    samples.append(
        _Sample(
            float(time),
            cpu,
            _Numbers(kinds.get('disk'), _DISK_FROM, _DISK_FIELDS),
            _Numbers(kinds.get('net'), _NET_FROM, _NET_FIELDS),
        )
    )
  return device, samples


def _Numbers(numbered, first, count):
  """`count` integer fields of a numbered line from word `first` on."""
  if numbered is None:
    return None
  number, line = numbered
  words = line.split()[first : first + count]
  if len(words) < count:
    raise HostLogError(f'line {number} is cut: {line[:120]!r}')
  try:
    return tuple(int(w) for w in words)
  except ValueError as e:
    raise HostLogError(f'line {number}: {e}') from e


def _Share(numerator, denominator):
  return 100.0 * numerator / denominator if denominator > 0 else None


def HostEvidenceOfWindow(text, clock_offset_s, start_s, end_s):
  """A server's HostEvidence over a step's window.

  Args:
    text: the server's host file.
    clock_offset_s: the server's clock minus the controller's.
    start_s: the window's start, the controller's clock.
    end_s: its end.

  Returns:
    HostEvidence.

  Raises:
    HostLogError: a line that is not a sample.
  """
  device, samples = _ParseHost(text)
  times = [s.time_s - clock_offset_s for s in samples]
  series = tuple(
      (start, _Share(later.cpu.busy - earlier.cpu.busy, total))
      for start, earlier, later in zip(times, samples, samples[1:])
      if (total := later.cpu.total - earlier.cpu.total) > 0
  )
  pair = sample_window.PairOfWindow(times, start_s, end_s)
  if pair is None:
    return HostEvidence(
        disk_device=device,
        cpu_series=series,
        problems=(
            f'{len(samples)} host sample(s), none bracketing the window',
        ),
    )
  first, last = samples[pair.first], samples[pair.last]
  problems = []
  if pair.wider:
    problems.append(
        'fewer than two host samples in the window: taken from'
        f' {times[pair.first]:.0f} to {times[pair.last]:.0f}'
    )
  elapsed = last.time_s - first.time_s
  jiffies = last.cpu.total - first.cpu.total
  evidence = {
      'start_s': times[pair.first],
      'end_s': times[pair.last],
      'cpu_busy_pct': _Share(last.cpu.busy - first.cpu.busy, jiffies),
      'cpu_iowait_pct': _Share(last.cpu.iowait - first.cpu.iowait, jiffies),
      'cpu_steal_pct': _Share(last.cpu.steal - first.cpu.steal, jiffies),
      'disk_device': device,
      'cpu_series': series,
  }
  if first.disk is None or last.disk is None:
    problems.append(
        f'no disk figures: the data directory is on {device or "no disk"},'
        ' which /proc/diskstats does not list'
    )
  else:
    moved = [b - a for a, b in zip(first.disk, last.disk)]
    evidence.update(
        disk_read_bytes_per_s=moved[_SECTORS_READ] * _SECTOR_BYTES / elapsed,
        disk_write_bytes_per_s=(
            moved[_SECTORS_WRITTEN] * _SECTOR_BYTES / elapsed
        ),
        disk_busy_pct=min(100.0, moved[_IO_MS] / 10 / elapsed),
    )
  if first.net is not None and last.net is not None:
    evidence.update(
        net_rx_bytes_per_s=(last.net[0] - first.net[0]) / elapsed,
        net_tx_bytes_per_s=(last.net[1] - first.net[1]) / elapsed,
    )
  return HostEvidence(problems=tuple(problems), **evidence)


@dataclasses.dataclass(frozen=True)
class Limit:
  """Where a step's limit was, with the evidence.

  Attributes:
    kind: LOADERS, SERVERS, DISK, or several joined by '+' (in that
      order); NONE when none was at its limit; UNKNOWN when the servers'
      evidence is missing and the loaders were not saturated.
    evidence: the figures the judgement rests on, in words.
  """

  kind: str
  evidence: str


def _Busiest(servers, figure):
  """(value, server) of the largest known figure(server), or (None, None)."""
  known = [(figure(s), s) for s in servers if figure(s) is not None]
  if not known:
    return None, None
  return max(known, key=lambda pair: pair[0])


def BusiestServer(servers):
  """(busy share, server) of the busiest server (busy_pct), or (None, None)."""
  return _Busiest(servers, lambda s: s.busy_pct)


def BusiestDisk(servers):
  """(busy share, server) of the busiest data disk, or (None, None)."""
  return _Busiest(servers, lambda s: s.host and s.host.disk_busy_pct)


def _Behind(server):
  """What a node that could not keep up dropped and blocked, in words."""
  parts = [
      f'{what} {total} ({thread_pools.Counts(counts)})'
      for total, what, counts in (
          (
              server.pools.dropped,
              'messages dropped',
              server.pools.dropped_by_type,
          ),
          (server.pools.blocked, 'tasks blocked', server.pools.blocked_by_pool),
      )
      if total
  ]
  return f'{", ".join(parts)} on {server.name}'


def StepLimit(
    loader_cpu_max_pct: Optional[float],
    loaders_saturated: bool,
    servers: Sequence[ServerEvidence],
    fixed_rate: bool,
) -> Limit:
  """Where a step's limit was (module docstring).

  Args:
    loader_cpu_max_pct: the busiest loader's CPU share, None when unknown.
    loaders_saturated: the loaders' guard found them saturated.
    servers: each server's evidence.
    fixed_rate: every op type of the step ran at a fixed rate: the rate,
      not a limit, set its throughput, unless something was saturated.

  Returns:
    Limit.
  """
  kinds, words = [], []
  if loaders_saturated:
    kinds.append(LOADERS)
  if loader_cpu_max_pct is not None:
    words.append(f'busiest loader CPU {loader_cpu_max_pct:.0f}%')
  busy, busiest = BusiestServer(servers)
  if busy is not None:
    if busy >= SERVER_BUSY_PCT:
      kinds.append(SERVERS)
    words.append(f'{busiest.busy_of} {busy:.0f}% busy on {busiest.name}')
  behind = [
      s for s in servers if s.pools and (s.pools.dropped or s.pools.blocked)
  ]
  if behind and SERVERS not in kinds:
    kinds.append(SERVERS)
  words += [_Behind(s) for s in behind]
  disk, busiest_disk = BusiestDisk(servers)
  if disk is not None:
    if disk >= DISK_BUSY_PCT:
      kinds.append(DISK)
    words.append(f'data disk {disk:.0f}% busy on {busiest_disk.name}')
  evidence = '; '.join(words)
  if kinds:
    return Limit('+'.join(kinds), evidence)
  if busy is None and disk is None:
    return Limit(UNKNOWN, evidence or 'no evidence from the servers')
  cause = (
      'the fixed rate set the throughput'
      if fixed_rate
      else "the clients' concurrency or the network set the throughput"
  )
  return Limit(NONE, f'{evidence}: {cause}')
