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

"""Quiesce arithmetic: when compactions are done, and how long they took.

Two questions, answered separately:
* When may the benchmark go on? When every node reported no running and no
  pending compactions and no tablet in motion, poll after poll, for a settle
  window (the quiesce phase of docs/measurement.md). A node that reports
  pending work with nothing running is NOT idle (the work is queued), and a
  node that could not be polled breaks the streak.
  `Observe` folds polls into a `PollTracker` until it says 'quiesced' or,
  once the timeout has passed, 'timeout'.
* When did the last compaction end? Not at the poll that first saw zero
  (that is late by up to a poll interval) but at the latest `compacted_at`
  in the nodes' compaction histories (`CompactionEnd`), each node's
  timestamps moved to the controller's clock with the offset measured at
  the start (node clock minus controller clock).

Only compactions of the benchmark keyspace count. System keyspaces compact
at any time for reasons of their own (schema changes, peers, the
compaction_history table itself), in tiny amounts; counting them would let
a schema change an hour later move "the end of the last compaction". While
waiting, however, every keyspace's compactions keep the cluster busy.

ScyllaDB records only regular and major compactions in its history (split,
cleanup, reshape and the like are missing: scylladb/scylladb#26800), so the
result also carries `busy_until_s`, the last poll that saw work: when it is
later than the history's end, the polls saw work the history does not show.

All times are epoch seconds on the controller's clock.
"""

import dataclasses

QUIESCED = 'quiesced'
TIMEOUT = 'timeout'


@dataclasses.dataclass(frozen=True)
class PollTracker:
  """The state of a wait for quiesce, folded from polls by `Observe`.

  Attributes:
    nodes: names of every node that must be idle.
    started_at: when the wait began.
    settle_s: how long every node must stay idle.
    timeout_s: how long to wait at most, from started_at.
    polls: polls observed so far.
    idle_since: time of the first poll of the current all-idle streak, or
      None when the last poll was not all idle.
    last_busy_at: time of the last poll in which a node reported work, or
      None if none did.
    last_poll_at: time of the last poll, or None before the first.
    status: None while waiting, then QUIESCED or TIMEOUT.
  """

  nodes: tuple[str, ...]
  started_at: float
  settle_s: float
  timeout_s: float
  polls: int = 0
  idle_since: float | None = None
  last_busy_at: float | None = None
  last_poll_at: float | None = None
  status: str | None = None


def Observe(tracker, now, statuses):
  """Folds one poll of every node into the tracker.

  Args:
    tracker: the PollTracker so far (status must still be None).
    now: time of the poll.
    statuses: {node name: compactions.CompactionStatus, or None when the
      node could not be polled}; a node missing from the dict counts as
      None.

  Returns:
    the new PollTracker. Its status is QUIESCED when every node has been
    idle in every poll for at least settle_s, else TIMEOUT once timeout_s
    has passed since started_at, else None.

  Raises:
    ValueError: the tracker had already finished.
  """
  if tracker.status is not None:
    raise ValueError(f'quiesce wait already finished: {tracker.status}')
  reports = [statuses.get(node) for node in tracker.nodes]
  all_idle = all(r is not None and r.idle for r in reports)
  busy = any(r is not None and not r.idle for r in reports)
  idle_since = None
  if all_idle:
    idle_since = now if tracker.idle_since is None else tracker.idle_since
  status = None
  if all_idle and now - idle_since >= tracker.settle_s:
    status = QUIESCED
  elif now - tracker.started_at >= tracker.timeout_s:
    status = TIMEOUT
  return dataclasses.replace(
      tracker,
      polls=tracker.polls + 1,
      idle_since=idle_since,
      last_busy_at=now if busy else tracker.last_busy_at,
      last_poll_at=now,
      status=status,
  )


@dataclasses.dataclass(frozen=True)
class CompactionWork:
  """The benchmark keyspace's compactions that ended in a window.

  Attributes:
    end: when the last one ended (controller clock), None if none did.
    count: how many ended.
    bytes_in: bytes they read.
    bytes_out: bytes they wrote.
  """

  end: float | None
  count: int
  bytes_in: int
  bytes_out: int


def CompactionEnd(histories, clock_offsets, since, keyspace):
  """The end of the last compaction of `keyspace` after `since`, and totals.

  Args:
    histories: {node name: list of compactions.HistoryEntry}.
    clock_offsets: {node name: node clock minus controller clock, seconds}
      for every node in histories.
    since: start of the window (the populate start), controller clock.
      Compactions that ended before it are ignored.
    keyspace: the benchmark keyspace; other keyspaces are ignored.

  Returns:
    CompactionWork.

  Raises:
    ValueError: a node of histories has no clock offset.
  """
  missing = sorted(set(histories) - set(clock_offsets))
  if missing:
    raise ValueError(f'no clock offset for nodes {missing}')
  ends = []
  bytes_in = bytes_out = 0
  for node, entries in histories.items():
    for entry in entries:
      end = entry.compacted_at_ms / 1000 - clock_offsets[node]
      if entry.keyspace == keyspace and end >= since:
        ends.append(end)
        bytes_in += entry.bytes_in
        bytes_out += entry.bytes_out
  return CompactionWork(
      end=max(ends, default=None),
      count=len(ends),
      bytes_in=bytes_in,
      bytes_out=bytes_out,
  )


@dataclasses.dataclass(frozen=True)
class QuiesceResult:
  """What the quiesce phase reports.

  The load is the populate phase (or any write load whose compactions are
  awaited, e.g. a latency step). The end of compaction is the end of the
  last compaction of the benchmark keyspace, or the end of the load when
  none ended after it: with nothing left to compact when the load stops,
  time_to_compact_s is 0 and total_time_to_quiesce_s equals
  populate_time_s.

  Attributes:
    status: QUIESCED, or TIMEOUT when the cluster never settled (the
      figures then describe the compactions finished so far).
    populate_time_s: load start to load end.
    time_to_compact_s: load end to end of compaction.
    total_time_to_quiesce_s: load start to end of compaction.
    compactions: compactions of the keyspace that ended after load start.
    bytes_in: bytes they read.
    bytes_out: bytes they wrote.
    polls: polls made while waiting.
    wait_s: from the start of the wait to its last poll.
    busy_until_s: from load start to the last poll in which a node
      reported work, or None if no poll did.
    nodes_without_history: nodes whose compaction history could not be
      read; their compactions are missing from the figures.
  """

  status: str
  populate_time_s: float
  time_to_compact_s: float
  total_time_to_quiesce_s: float
  compactions: int
  bytes_in: int
  bytes_out: int
  polls: int
  wait_s: float
  busy_until_s: float | None
  nodes_without_history: tuple[str, ...] = ()


def Summarize(
    tracker, work, populate_start, populate_end, nodes_without_history=()
):
  """Combines the finished wait and the compaction work into the result.

  Args:
    tracker: the finished PollTracker.
    work: CompactionWork from CompactionEnd(..., since=populate_start, ...).
    populate_start: start of the load (earliest loader start).
    populate_end: end of the load (latest loader end).
    nodes_without_history: names of nodes whose history is missing.

  Returns:
    QuiesceResult.

  Raises:
    ValueError: the wait has not finished.
  """
  if tracker.status is None:
    raise ValueError('quiesce wait has not finished')
  end = populate_end if work.end is None else max(work.end, populate_end)
  busy_until_s = None
  if tracker.last_busy_at is not None:
    busy_until_s = tracker.last_busy_at - populate_start
  return QuiesceResult(
      status=tracker.status,
      populate_time_s=populate_end - populate_start,
      time_to_compact_s=end - populate_end,
      total_time_to_quiesce_s=end - populate_start,
      compactions=work.count,
      bytes_in=work.bytes_in,
      bytes_out=work.bytes_out,
      polls=tracker.polls,
      wait_s=tracker.last_poll_at - tracker.started_at,
      busy_until_s=busy_until_s,
      nodes_without_history=tuple(nodes_without_history),
  )
