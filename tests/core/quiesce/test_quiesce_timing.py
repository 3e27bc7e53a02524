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

"""Quiesce arithmetic on recorded polls and real compaction histories."""

import calendar
import datetime

import pytest

from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import quiesce_timing

IDLE = compactions.CompactionStatus(running=0, pending=0)
RUNNING = compactions.CompactionStatus(running=1, pending=0)
QUEUED = compactions.CompactionStatus(running=0, pending=2)
TABLETS = compactions.CompactionStatus(
    running=0, pending=0, tablet_transitions=3
)
NODES = ('n0', 'n1', 'n2')


def _Utc(text):
  """'2026-11-21T22:28:36.067' (UTC) -> epoch seconds."""
  moment = datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%f')
  return calendar.timegm(moment.timetuple()) + moment.microsecond / 1e6


def _Run(polls, settle_s=10, timeout_s=1000):
  """Feeds (time, statuses) polls until the tracker finishes."""
  tracker = quiesce_timing.PollTracker(
      nodes=NODES, started_at=0, settle_s=settle_s, timeout_s=timeout_s
  )
  for now, statuses in polls:
    tracker = quiesce_timing.Observe(tracker, now, statuses)
    if tracker.status:
      break
  return tracker


def _All(status):
  return {node: status for node in NODES}


def test_quiesced_after_settle_window():
  tracker = _Run([
      (0, _All(RUNNING)),
      (5, _All(IDLE)),
      (10, _All(IDLE)),
      (15, _All(IDLE)),
      (20, _All(IDLE)),
  ])
  assert tracker.status == quiesce_timing.QUIESCED
  assert (tracker.polls, tracker.idle_since, tracker.last_poll_at) == (4, 5, 15)
  assert tracker.last_busy_at == 0


def test_pending_with_nothing_running_is_not_idle():
  polls = [(t, _All(IDLE)) for t in range(0, 60, 5)]
  polls[2] = (10, {'n0': IDLE, 'n1': QUEUED, 'n2': IDLE})
  tracker = _Run(polls)
  assert tracker.status == quiesce_timing.QUIESCED
  assert tracker.idle_since == 15
  assert tracker.last_poll_at == 25
  assert tracker.last_busy_at == 10


def test_tablet_transition_is_not_idle():
  polls = [(t, _All(IDLE)) for t in range(0, 60, 5)]
  polls[1] = (5, {'n0': IDLE, 'n1': IDLE, 'n2': TABLETS})
  tracker = _Run(polls)
  assert tracker.status == quiesce_timing.QUIESCED
  assert tracker.idle_since == 10
  assert tracker.last_poll_at == 20
  assert tracker.last_busy_at == 5


@pytest.mark.parametrize(
    'unreachable',
    [{'n0': IDLE, 'n1': None, 'n2': IDLE}, {'n0': IDLE, 'n2': IDLE}],
)
def test_unreachable_node_resets_idleness(unreachable):
  polls = [(t, _All(IDLE)) for t in range(0, 60, 5)]
  polls[1] = (5, unreachable)
  tracker = _Run(polls)
  assert tracker.status == quiesce_timing.QUIESCED
  assert tracker.idle_since == 10
  # An unreachable node is not known to be busy.
  assert tracker.last_busy_at is None


def test_timeout_when_never_idle():
  polls = [(t, _All(QUEUED)) for t in range(0, 1000, 5)]
  tracker = _Run(polls, timeout_s=60)
  assert tracker.status == quiesce_timing.TIMEOUT
  assert tracker.last_poll_at == 60
  assert tracker.polls == 13


def test_timeout_when_settle_never_completes():
  polls = [(t, _All(IDLE)) for t in range(0, 1000, 5)]
  tracker = _Run(polls, settle_s=300, timeout_s=60)
  assert tracker.status == quiesce_timing.TIMEOUT
  assert tracker.idle_since == 0


def test_zero_settle_quiesces_on_first_idle_poll():
  tracker = _Run([(0, _All(RUNNING)), (5, _All(IDLE))], settle_s=0)
  assert (tracker.status, tracker.polls) == (quiesce_timing.QUIESCED, 2)


def test_observe_after_finish_raises():
  tracker = _Run([(0, _All(IDLE))], settle_s=0)
  with pytest.raises(ValueError, match='already finished'):
    quiesce_timing.Observe(tracker, 5, _All(IDLE))


@pytest.fixture
def histories(lab):
  return {
      'c50': compactions.ParseCompactionHistory(
          lab('nt-busy1-compactionhistory.txt')
      ),
      'c41': compactions.ParseCompactionHistory(
          lab('c41-nt-busy1-compactionhistory.txt')
      ),
  }


def test_compaction_end_of_keyspace_only(histories):
  # Node clocks agree with the controller. The system_schema compactions at
  # 22:40:02 on c41 are later than some keyspace1 ones but do not count.
  work = quiesce_timing.CompactionEnd(
      histories,
      {'c50': 0.0, 'c41': 0.0},
      since=_Utc('2026-11-21T22:24:00.000'),
      keyspace='keyspace1',
  )
  assert work.end == pytest.approx(_Utc('2026-11-21T22:44:57.293'))
  assert work.count == 3 + 9
  assert work.bytes_in == (
      99640704
      + 97828687
      + 72926174
      + sum(e.bytes_in for e in histories['c41'] if e.keyspace == 'keyspace1')
  )


def test_compaction_end_corrects_clock_offsets(histories):
  # c41's clock is 20 minutes behind the controller's: its last compaction
  # ended at controller time 23:04:57.293.
  work = quiesce_timing.CompactionEnd(
      histories,
      {'c50': 0.0, 'c41': -1200.0},
      since=_Utc('2026-11-21T22:24:00.000'),
      keyspace='keyspace1',
  )
  assert work.end == pytest.approx(_Utc('2026-11-21T23:04:57.293'))
  # c41's clock an hour ahead: all its compactions happened before `since`.
  work = quiesce_timing.CompactionEnd(
      histories,
      {'c50': 0.0, 'c41': 3600.0},
      since=_Utc('2026-11-21T22:24:00.000'),
      keyspace='keyspace1',
  )
  assert work.end == pytest.approx(_Utc('2026-11-21T22:28:36.067'))
  assert (work.count, work.bytes_in, work.bytes_out) == (
      3,
      99640704 + 97828687 + 72926174,
      45731015 + 45800000 + 45800000,
  )


def test_compaction_end_ignores_earlier_compactions(histories):
  work = quiesce_timing.CompactionEnd(
      histories,
      {'c50': 0.0, 'c41': 0.0},
      since=_Utc('2026-11-21T22:28:00.000'),
      keyspace='keyspace1',
  )
  assert work.count == 2 + 9


def test_compaction_end_without_compactions(histories):
  work = quiesce_timing.CompactionEnd(
      histories, {'c50': 0.0, 'c41': 0.0}, since=0, keyspace='other'
  )
  assert work == quiesce_timing.CompactionWork(None, 0, 0, 0)


def test_compaction_end_needs_every_offset(histories):
  with pytest.raises(ValueError, match='c41'):
    quiesce_timing.CompactionEnd(histories, {'c50': 0.0}, since=0, keyspace='k')


def _Finished(status=quiesce_timing.QUIESCED, last_busy_at=1900.0):
  return quiesce_timing.PollTracker(
      nodes=NODES,
      started_at=1500.0,
      settle_s=180,
      timeout_s=86400,
      polls=120,
      idle_since=1905.0,
      last_busy_at=last_busy_at,
      last_poll_at=2100.0,
      status=status,
  )


def test_summarize():
  work = quiesce_timing.CompactionWork(
      end=1897.5, count=12, bytes_in=10, bytes_out=7
  )
  result = quiesce_timing.Summarize(_Finished(), work, 1000.0, 1500.0)
  assert result == quiesce_timing.QuiesceResult(
      status=quiesce_timing.QUIESCED,
      populate_time_s=500.0,
      time_to_compact_s=397.5,
      total_time_to_quiesce_s=897.5,
      compactions=12,
      bytes_in=10,
      bytes_out=7,
      polls=120,
      wait_s=600.0,
      busy_until_s=900.0,
      nodes_without_history=(),
  )


def test_summarize_without_compactions():
  work = quiesce_timing.CompactionWork(None, 0, 0, 0)
  result = quiesce_timing.Summarize(
      _Finished(last_busy_at=None), work, 1000.0, 1500.0
  )
  assert result.time_to_compact_s == 0
  assert result.total_time_to_quiesce_s == result.populate_time_s == 500.0
  assert result.busy_until_s is None


def test_summarize_compactions_finished_during_populate():
  work = quiesce_timing.CompactionWork(
      end=1400.0, count=3, bytes_in=1, bytes_out=1
  )
  result = quiesce_timing.Summarize(_Finished(), work, 1000.0, 1500.0, ('n2',))
  assert result.time_to_compact_s == 0
  assert result.total_time_to_quiesce_s == 500.0
  assert result.compactions == 3
  assert result.nodes_without_history == ('n2',)


def test_summarize_keeps_timeout():
  work = quiesce_timing.CompactionWork(
      end=1800.0, count=1, bytes_in=1, bytes_out=1
  )
  result = quiesce_timing.Summarize(
      _Finished(status=quiesce_timing.TIMEOUT), work, 1000.0, 1500.0
  )
  assert result.status == quiesce_timing.TIMEOUT
  assert result.time_to_compact_s == 300.0


def test_summarize_needs_finished_wait():
  tracker = quiesce_timing.PollTracker(NODES, 0, 10, 100)
  with pytest.raises(ValueError, match='not finished'):
    quiesce_timing.Summarize(
        tracker, quiesce_timing.CompactionWork(None, 0, 0, 0), 0, 1
    )
