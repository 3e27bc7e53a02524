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

"""WaitForQuiesce with fake VMs, a fake engine and a fake clock."""

import calendar
import datetime
import logging
import threading

import pytest

from perfkit_plugins.core.config.settings import Settings
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.operations import compaction_poller
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import run_envs

IDLE = compactions.CompactionStatus(running=0, pending=0)
RUNNING = compactions.CompactionStatus(running=2, pending=1)
QUEUED = compactions.CompactionStatus(running=0, pending=1)


def _Utc(text):
  moment = datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%f')
  return calendar.timegm(moment.timetuple()) + moment.microsecond / 1e6


# The lab's Cassandra 5.0 history: keyspace1 compactions ended at 22:24:53,
# 22:28:07 and 22:28:36 (UTC, printed by a nodetool running with TZ=UTC).
POPULATE_START = _Utc('2026-11-21T22:24:00.000')
POPULATE_END = _Utc('2026-11-21T22:25:00.000')


class FakeClock:
  """A controller clock that only moves when the code under test sleeps."""

  def __init__(self, now):
    self.now = now
    self.slept = []

  def Time(self):
    return self.now

  def Sleep(self, seconds):
    self.slept.append(seconds)
    self.now += seconds


class FakeEngine:
  """Serves recorded poll answers per node: a status, None or an exception.

  After its script is used up a node keeps giving its last answer.
  """

  def __init__(self, script, histories):
    self.script = {name: list(answers) for name, answers in script.items()}
    self.histories = histories
    self.polled = []
    self.dead = set()

  def CompactionStatus(self, vm):
    self.polled.append(vm.name)
    answers = self.script[vm.name]
    answer = answers.pop(0) if len(answers) > 1 else answers[0]
    if isinstance(answer, Exception):
      raise answer
    return answer

  NAME = 'scylla'

  def CompactionHistory(self, vm):
    history = self.histories[vm.name]
    if isinstance(history, Exception):
      raise history
    return history

  def Running(self, vm):
    return vm.name not in self.dead


@pytest.fixture
def vms():
  return [fake_vm.FakeVm(f'server-{i}', f'10.0.0.{i + 2}') for i in range(3)]


@pytest.fixture
def history(lab):
  return compactions.ParseCompactionHistory(
      lab('nt-busy1-compactionhistory.txt')
  )


def _Wait(
    engine, vms, clock, settle_s=180, timeout_s=86400, call_timeout_s=120
):
  env = run_envs.Make(
      settings=Settings(
          keyspace='keyspace1',
          quiesce_poll_s=5,
          quiesce_settle_s=settle_s,
          quiesce_timeout_s=timeout_s,
      ),
      engine=engine,
      servers=vms,
      clock_offsets={vm.name: 0.0 for vm in vms},
      clock=clock.Time,
  )
  return compaction_poller.WaitForQuiesce(
      env,
      (POPULATE_START, POPULATE_END),
      call_timeout_s=call_timeout_s,
      sleep=clock.Sleep,
  )


def test_quiesces_and_measures_from_history(vms, history):
  # server-0 compacts for two polls, server-1 has queued work with nothing
  # running until the fourth poll, server-2 cannot be reached at the third.
  engine = FakeEngine(
      {
          'server-0': [RUNNING, RUNNING, IDLE],
          'server-1': [QUEUED, QUEUED, QUEUED, IDLE],
          'server-2': [IDLE, IDLE, RuntimeError('ssh: timed out'), IDLE],
      },
      {'server-0': history, 'server-1': [], 'server-2': []},
  )
  clock = FakeClock(_Utc('2026-11-21T22:29:00.000'))
  result = _Wait(engine, vms, clock, settle_s=30)
  # Polls at 0..65 s: idle from the fourth poll (15 s), settled at 45 s.
  assert result.status == quiesce_timing.QUIESCED
  assert result.polls == 10
  assert result.wait_s == 45
  assert clock.slept == [5] * 9
  assert engine.polled.count('server-2') == 10
  assert result.populate_time_s == pytest.approx(60.0)
  assert result.time_to_compact_s == pytest.approx(216.067)
  assert result.total_time_to_quiesce_s == pytest.approx(276.067)
  assert (result.compactions, result.bytes_in, result.bytes_out) == (
      3,
      99640704 + 97828687 + 72926174,
      45731015 + 45800000 + 45800000,
  )
  assert result.busy_until_s == pytest.approx(300 + 10)
  assert result.nodes_without_history == ()


def test_timeout_never_hangs(vms, history):
  engine = FakeEngine(
      {'server-0': [IDLE], 'server-1': [QUEUED], 'server-2': [IDLE]},
      {name: history for name in ('server-0', 'server-1', 'server-2')},
  )
  clock = FakeClock(_Utc('2026-11-21T22:29:00.000'))
  result = _Wait(engine, vms, clock, settle_s=30, timeout_s=120)
  assert result.status == quiesce_timing.TIMEOUT
  assert result.polls == 25
  assert result.wait_s == 120
  assert result.compactions == 9


def test_node_without_history(vms, history):
  engine = FakeEngine(
      {name: [IDLE] for name in ('server-0', 'server-1', 'server-2')},
      {
          'server-0': RuntimeError('nodetool: connection refused'),
          'server-1': history,
          'server-2': history,
      },
  )
  result = _Wait(engine, vms, FakeClock(POPULATE_END), settle_s=0)
  assert result.polls == 1
  assert result.nodes_without_history == ('server-0',)
  assert result.compactions == 6


def test_hung_node_counts_as_unreachable(vms, history):
  release = threading.Event()
  hung = []

  class HangingEngine(FakeEngine):

    def CompactionStatus(self, vm):
      if vm.name == 'server-1' and not hung:
        hung.append(vm.name)
        release.wait()
      return super().CompactionStatus(vm)

  engine = HangingEngine(
      {name: [IDLE] for name in ('server-0', 'server-1', 'server-2')},
      {name: history for name in ('server-0', 'server-1', 'server-2')},
  )
  try:
    result = _Wait(
        engine, vms, FakeClock(POPULATE_END), settle_s=0, call_timeout_s=0.05
    )
  finally:
    release.set()
  # The first poll had no answer from server-1; the second settled.
  assert result.polls == 2


def test_logs_at_most_every_minute(vms, history, caplog):
  engine = FakeEngine(
      {
          'server-0': [RUNNING] * 30 + [IDLE],
          'server-1': [IDLE],
          'server-2': [None] * 2 + [IDLE],
      },
      {name: history for name in ('server-0', 'server-1', 'server-2')},
  )
  with caplog.at_level(logging.INFO):
    result = _Wait(engine, vms, FakeClock(POPULATE_END), settle_s=0)
  assert result.polls == 31
  lines = [r.getMessage() for r in caplog.records if 'Quiesce' in r.message]
  # Polls at 0..150 s: logged at 0, 60, 120 s and when quiesced at 150 s.
  assert len(lines) == 4
  assert 'server-0 running=2 pending=1 tablets=0' in lines[0]
  assert 'server-2 unreachable' in lines[0]
  assert lines[-1].startswith('Quiesce quiesced: 150 s waited, 31 polls')


def test_a_node_that_never_answers_fails_the_wait_and_is_named(
    vms, history, caplog
):
  refused = RuntimeError('ssh: connect to host 10.0.0.3 port 22: refused')
  engine = FakeEngine(
      {'server-0': [IDLE], 'server-1': [refused], 'server-2': [IDLE]},
      {name: history for name in ('server-0', 'server-1', 'server-2')},
  )
  with caplog.at_level(logging.WARNING):
    with pytest.raises(compaction_poller.QuiesceError) as raised:
      _Wait(engine, vms, FakeClock(POPULATE_END), settle_s=30)
  # Not the day-long timeout: the settle window of failed polls.
  assert str(raised.value) == (
      'server server-1 (10.0.0.3) answered no compaction poll for 30 s (7'
      ' polls, the settle window is 30 s): CompactionStatus failed: ssh:'
      ' connect to host 10.0.0.3 port 22: refused'
  )
  # Warned once, with the error, not at every poll.
  warnings = [
      r.getMessage() for r in caplog.records if 'poll failed' in r.getMessage()
  ]
  assert warnings == [
      'server-1: compaction poll failed: CompactionStatus failed: ssh:'
      ' connect to host 10.0.0.3 port 22: refused'
  ]


def test_a_node_whose_database_ended_fails_the_wait_at_once(vms, history):
  engine = FakeEngine(
      {
          'server-0': [IDLE],
          'server-1': [RuntimeError('nodetool: connection refused')],
          'server-2': [IDLE],
      },
      {name: history for name in ('server-0', 'server-1', 'server-2')},
  )
  engine.dead.add('server-1')
  with pytest.raises(compaction_poller.QuiesceError, match='process ended'):
    _Wait(engine, vms, FakeClock(POPULATE_END), settle_s=30)
  assert engine.polled.count('server-1') == 1
