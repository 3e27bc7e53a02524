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

"""An Apache Cassandra node's thread pools and dropped messages in a step.

`nodetool tpstats` prints, for every thread pool of the node, its tasks
active, pending, completed and blocked now, and blocked since the node
started; then the messages of each type the node dropped since it started
(Cassandra 4.1 and 5.0: a verb such as MUTATION_REQ, with the latencies the
dropped ones waited in queue):

    Pool Name        Active Pending Completed Blocked All time blocked
    MutationStage    0      0       67874     0       0
    ...
    Message type     Dropped     50%      95%      99%      Max
    MUTATION_REQ     28147       0.0      0.0      0.0      0.0

A node drops a message that waited longer than its timeout before a
thread took it: the request failed inside the node because it was behind.
A pool blocks a task when its queue is full. Either, during a step, says
that the node could not keep up with what the clients asked. Read as a
stress step starts and as it ends (its loaders have stopped), the
cumulative counts give what the step itself dropped and blocked
(PoolsOfStep), and the end's pending tasks the backlog it left.
"""

import dataclasses
import re
from typing import Mapping

_POOL_HEADER = re.compile(r'Pool Name\s+Active\s+Pending\s+Completed\b')
_MESSAGE_HEADER = re.compile(r'Message type\s+Dropped\b')
# Active, Pending, Completed, Blocked, All time blocked.
_POOL_FIELDS = 5


class TpstatsError(ValueError):
  """A `nodetool tpstats` output that cannot be read."""


@dataclasses.dataclass(frozen=True)
class Pool:
  """One thread pool's row."""

  name: str
  active: int
  pending: int
  completed: int
  blocked: int
  all_time_blocked: int


@dataclasses.dataclass(frozen=True)
class ThreadPools:
  """A node's `nodetool tpstats` at one moment.

  Attributes:
    pools: every pool, in nodetool's order.
    dropped: {message type: messages dropped since the node started}.
  """

  pools: tuple[Pool, ...]
  dropped: Mapping[str, int]


def _Integers(words, number, line):
  try:
    return [int(w) for w in words]
  except ValueError as e:
    raise TpstatsError(f'line {number}: {e}: {line[:120]!r}') from e


def ParseTpstats(text):
  """Parses `nodetool tpstats` of Apache Cassandra (4.1, 5.0).

  Returns:
    ThreadPools.

  Raises:
    TpstatsError: no pool table, or a row that is not one.
  """
  pools, dropped = [], {}
  section = None
  for number, line in enumerate(text.splitlines(), start=1):
    words = line.split()
    if _POOL_HEADER.match(line):
      section = 'pools'
    elif _MESSAGE_HEADER.match(line):
      section = 'messages'
    elif not words:
      section = None
    elif section == 'pools':
      if len(words) < 1 + _POOL_FIELDS:
        raise TpstatsError(f'line {number} is cut: {line[:120]!r}')
      values = _Integers(words[-_POOL_FIELDS:], number, line)
      name = ' '.join(words[:-_POOL_FIELDS])
      pools.append(Pool(name, *values))
    elif section == 'messages':
      if len(words) < 2:
        raise TpstatsError(f'line {number} is cut: {line[:120]!r}')
      dropped[words[0]] = _Integers(words[1:2], number, line)[0]
  if not pools:
    raise TpstatsError(f'no thread pool table in tpstats:\n{text[:400]}')
  return ThreadPools(tuple(pools), dropped)


@dataclasses.dataclass(frozen=True)
class PoolsOfStep:
  """What a node's thread pools did from a step's start to its end.

  Attributes:
    dropped: messages the node dropped during the step, every type.
    dropped_by_type: ((message type, dropped), ...) of the types it
      dropped, most first.
    blocked: tasks its pools blocked during the step, every pool.
    blocked_by_pool: ((pool, blocked), ...) of the pools that blocked,
      most first.
    pending_end: tasks waiting in its pools as the step ended.
    problems: why a count is a lower bound (the node restarted).
  """

  dropped: int
  dropped_by_type: tuple[tuple[str, int], ...]
  blocked: int
  blocked_by_pool: tuple[tuple[str, int], ...]
  pending_end: int
  problems: tuple[str, ...] = ()


def _Changes(start, end, problems):
  """((name, end - start), ...) of the counters that moved, most first.

  A name the start lacks counts from 0 (a pool made during the step); a
  counter that went back counts from 0 too (the node restarted), and says
  so in problems.
  """
  changes = []
  for name, value in end.items():
    before = start.get(name, 0)
    if value < before:
      problems.append(
          f'{name} went back from {before} to {value}: the node restarted,'
          ' counted since'
      )
      before = 0
    if value > before:
      changes.append((name, value - before))
  return tuple(sorted(changes, key=lambda change: (-change[1], change[0])))


def OfStep(start: ThreadPools, end: ThreadPools) -> PoolsOfStep:
  """PoolsOfStep from the tpstats read as a step started and as it ended."""
  problems = []
  dropped = _Changes(start.dropped, end.dropped, problems)
  blocked = _Changes(
      {p.name: p.all_time_blocked for p in start.pools},
      {p.name: p.all_time_blocked for p in end.pools},
      problems,
  )
  return PoolsOfStep(
      dropped=sum(n for _, n in dropped),
      dropped_by_type=dropped,
      blocked=sum(n for _, n in blocked),
      blocked_by_pool=blocked,
      pending_end=sum(p.pending for p in end.pools),
      problems=tuple(problems),
  )


def Counts(changes: tuple[tuple[str, int], ...]) -> str:
  """'MUTATION_REQ 28147, READ_REQ 68724' of changes."""
  return ', '.join(f'{name} {count}' for name, count in changes)
