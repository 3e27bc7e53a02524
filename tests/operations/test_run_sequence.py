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

"""RunSteps over a real plan on recording fake servers and loaders.

Three fake ScyllaDB servers answer the engine's REST calls with the
responses in tests/testdata/scylla_rest (running compactions, pending tasks
and compaction history); the poll sequence (busy, then idle) is scripted
here. Four fake loaders serve, for every stress step, the real outputs of a
step of the same kind (tests/testdata/stress: populate, read, fixed-rate
latency and mixed runs of the plan's own commands through the loader
wrapper). Each loader's clock is set a little ahead of the controller's, so
the same files place each loader at a different controller time.

The controller clock given to RunSteps moves one second per reading, so
quiesce waits never really sleep and time out after a known number of polls.
"""

import json
import os
import pathlib
import posixpath
import re

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes as outcomes_lib
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import compaction_poller
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import run_sequence
from perfkit_plugins.testing import expected_samples
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import planned_runs
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import run_envs

TESTDATA = pathlib.Path(__file__).resolve().parents[1] / 'testdata'
REST = TESTDATA / 'scylla_rest'
WRAPPER = r'stress_run\.sh'
# Each loader's clock minus the controller's.
LOADER_OFFSETS = (0.0, 0.25, 0.5, 0.75)
STEP_NAMES = [
    'populate',
    'quiesce',
    'read_small',
    'read_medium',
    'read_large',
    'latency_2000',
    'flush_quiesce_before_latency_4000',
    'latency_4000',
    'mixed',
]


def Settings(**changes):
  fields = dict(
      phases=('populate', 'quiesce', 'read', 'latency', 'mixed'),
      num_keys=400000,
      server_count=3,
      loader_count=4,
      hdr_interval_s=1,
      read_warmup_s=0,
      read_duration_s=30,
      latency_rates=(2000, 4000),
      latency_duration_s=30,
      mixed_duration_s=30,
      quiesce_poll_s=1,
      quiesce_settle_s=0,
      quiesce_timeout_s=30,
  )
  fields.update(changes)
  return settings_lib.Validate(settings_lib.Settings(**fields))


def Steps(settings):
  return planned_runs.PhaseSteps(
      settings,
      ['10.0.0.2', '10.0.0.3', '10.0.0.4'],
      3 << 30,
      '/opt/cs/bin/cassandra-stress',
      '/r',
  )


class TickingClock:
  """A controller clock that moves one second each time it is read."""

  def __init__(self, now):
    self.now = now

  def __call__(self):
    self.now += 1.0
    return self.now


def Window(stress_output, source):
  """A step's window on the controller's clock: the real times file, moved
  back by each loader's clock offset (earliest start, latest end)."""
  times = loader_files.ParseTimes(stress_output(source, loader_files.TIMES))
  return (
      times.start_s - max(LOADER_OFFSETS),
      times.end_s - min(LOADER_OFFSETS),
  )


def AfterTheLoads():
  """A controller time after every real run's end."""
  return (
      max(
          loader_files.ParseTimes(path.read_text()).end_s
          for path in (TESTDATA / 'stress').glob('*.times')
      )
      + 60
  )


class Responses:
  """Answers to one REST command: each call takes the next, then the last."""

  def __init__(self, *names):
    self.texts = [(REST / name).read_text() for name in names]

  def __call__(self, command):
    del command
    return self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]


def RestPattern(path):
  return '^' + re.escape(scylla.RestGetCommand(path)) + '$'


def Server(index, busy_polls=0, pending_forever=False):
  """A fake ScyllaDB node: busy for `busy_polls` polls, then idle.

  With pending_forever it reports queued work (nothing running) at every
  poll, which is never idle.
  """
  vm = fake_vm.FakeVm(f'server-{index}', f'10.0.0.{index + 2}', num_cpus=88)
  vm.Reply(r'^sudo systemctl is-active scylla-server$', 'active\n')
  running = ['compactions-2.json'] * busy_polls + ['compactions-0.json']
  pending = ['pending_tasks_by_table-2.json'] * busy_polls + [
      'pending_tasks_by_table-2.json'
      if pending_forever
      else 'pending_tasks_by_table-0.json'
  ]
  vm.Reply(
      RestPattern(compactions.SCYLLA_COMPACTIONS_PATH), Responses(*running)
  )
  vm.Reply(
      RestPattern(compactions.SCYLLA_PENDING_TASKS_PATH), Responses(*pending)
  )
  vm.Reply(
      RestPattern(compactions.SCYLLA_HISTORY_PATH),
      Responses('compaction_history.json'),
  )
  return vm


def Servers(**kwargs):
  # server-0's first busy answer goes to populate's end (its evidence), the
  # next two to the quiesce step's polls.
  return [Server(0, busy_polls=3)] + [Server(i, **kwargs) for i in (1, 2)]


@pytest.fixture
def make_loaders(serve_stress_outputs):
  """Returns Loaders(steps, missing=()): four loaders serving real outputs."""

  def Loaders(steps, missing=()):
    vms = [fake_vm.FakeVm(f'loader{i}', f'10.0.1.{i}') for i in range(4)]
    return serve_stress_outputs(vms, steps, missing)

  return Loaders


def Offsets(servers, loaders):
  offsets = {vm.name: offset for vm, offset in zip(loaders, LOADER_OFFSETS)}
  offsets.update({vm.name: 0.0 for vm in servers})
  return offsets


def RunAll(tmp_path, settings, servers, loaders, steps, clock):
  notices = []
  env = run_envs.Make(
      str(tmp_path),
      settings,
      scylla.ScyllaEngine(settings, '/tmp/pkb'),
      servers,
      loaders,
      clock_offsets=Offsets(servers, loaders),
      clock=clock,
  )
  outcomes = run_sequence.RunSteps(
      steps,
      env,
      notify=lambda event, step, outcome=None: notices.append(
          (event, step.name, outcome and outcome.status)
      ),
  )
  return outcomes, notices


@pytest.fixture
def quiesce_calls(monkeypatch):
  """The (populate_start, populate_end) every quiesce wait was given."""
  calls = []
  wait = compaction_poller.WaitForQuiesce

  def Recording(env, window, *args, **kwargs):
    calls.append(window)
    return wait(env, window, *args, **kwargs)

  monkeypatch.setattr(compaction_poller, 'WaitForQuiesce', Recording)
  return calls


def Rows(outcome):
  return sample_rows.OutcomeRows(
      outcome, run_contexts.ScyllaZ3(version='2026.3.1')
  )


def StatusOf(rows):
  (row,) = [row for row in rows if row.metric == 'phase_status']
  return row


def test_whole_run(tmp_path, quiesce_calls, make_loaders, stress_output):
  settings = Settings()
  steps = Steps(settings)
  servers, loaders = Servers(), make_loaders(steps)
  clock = TickingClock(AfterTheLoads())
  outcomes, notices = RunAll(tmp_path, settings, servers, loaders, steps, clock)

  assert [o.step.name for o in outcomes] == STEP_NAMES
  assert [o.status for o in outcomes] == ['ok'] * len(STEP_NAMES)
  assert outcomes_lib.Failures(outcomes) == []
  assert notices == [
      (event, name, 'ok' if event == 'end' else None)
      for name in STEP_NAMES
      for event in ('start', 'end')
  ]
  # Every loader ran every stress step once, and everything was pulled.
  for step in steps:
    steps_dir = tmp_path / run_sequence.STEPS_DIR
    assert os.path.isdir(steps_dir / step.name)
    if step.kind in ('quiesce', 'flush_quiesce'):
      # Every poll and every node's history, to recompute the figures.
      step_dir = steps_dir / step.name
      polls = [
          json.loads(line)
          for line in (
              (step_dir / compaction_poller.POLLS_FILE).read_text().splitlines()
          )
      ]
      assert polls and all(
          sorted(p['nodes']) == sorted(vm.name for vm in servers) for p in polls
      )
      history = json.loads(
          (step_dir / compaction_poller.HISTORY_FILE).read_text()
      )
      assert sorted(history) == sorted(vm.name for vm in servers)
      assert all('compacted_at_ms' in e for h in history.values() for e in h)
    for run in step.runs:
      vm = loaders[run.loader_index]
      command = phase_runner.LoaderCommand(
          run, phase_runner.ScriptPath(run_envs.INSTALL_DIR)
      )
      assert vm.commands.count(command) == 1
    if step.runs:
      assert sorted(os.listdir(steps_dir / step.name)) == sorted(
          [run_sequence.RECORD_FILE, run_sequence.SERVERS_FILE]
          + [
              posixpath.basename(path)
              for run in step.runs
              for path in run.paths.values()
          ]
      )
  # Only the flush-quiesce step flushes, once per server.
  for vm in servers:
    assert vm.CommandsMatching('nodetool flush') == [
        scylla.FlushCommand('keyspace1')
    ]

  # Quiesce figures are relative to the load awaited, on the controller's
  # clock (the loaders' times files moved back by their clock offsets):
  # populate for the quiesce step, the rate before it for a flush-quiesce
  # (latency_2000: 4 loaders at 500 op/s each).
  window = Window(stress_output, 'populate.loader0')
  # (Epoch seconds: approx's default relative tolerance would be minutes.)
  assert quiesce_calls == [
      pytest.approx(window, abs=1e-6),
      pytest.approx(Window(stress_output, 'latency_500.loader0'), abs=1e-6),
  ]
  quiesce = outcomes[1].result
  assert quiesce.populate_time_s == pytest.approx(window[1] - window[0])
  # server-0 reported work at the first two polls; settled at the third.
  assert quiesce.polls == 3
  # Populate left server-0 compacting, as its evidence says.
  populate = outcomes[0].result
  assert populate.servers[0].compactions.pending > 0
  assert populate.servers[1].compactions.pending == 0
  assert quiesce.busy_until_s is not None
  # The REST history holds system keyspaces only: nothing of keyspace1.
  assert (quiesce.compactions, quiesce.time_to_compact_s) == (0, 0)
  assert quiesce.total_time_to_quiesce_s == quiesce.populate_time_s
  assert quiesce.nodes_without_history == ()

  by_name = {o.step.name: Rows(o) for o in outcomes}
  for name, rows in by_name.items():
    metrics = {row.metric for row in rows}
    if name == 'quiesce':
      assert metrics == expected_samples.COMPACTION_METRICS | {
          'populate_time',
          'time_to_compact',
          'total_time_to_quiesce',
      }
    elif name.startswith('flush_quiesce'):
      assert metrics == expected_samples.COMPACTION_METRICS | {
          'time_to_compact'
      }
    else:
      # The servers answer for their compactions, not for a sampler.
      assert metrics == expected_samples.STRESS_METRICS | {
          'server_compactions_pending_end'
      }, name
    status = StatusOf(rows)
    assert (status.value, status.metadata['scylla_status']) == (1, 'ok')
    assert {row.metadata['scylla_step'] for row in rows} == {name}

  def Ops(name):
    return {
        row.metadata['scylla_op']
        for row in by_name[name]
        if row.metric == 'op_rate'
    }

  def Kinds(name, op):
    return sorted(
        row.metadata['scylla_latency_kind']
        for row in by_name[name]
        if row.metric == 'latency_p99' and row.metadata['scylla_op'] == op
    )

  assert Ops('populate') == {'WRITE'}
  assert Ops('read_medium') == {'READ'}
  assert Ops('mixed') == {'READ', 'WRITE', 'total'}
  assert Kinds('populate', 'WRITE') == ['st']
  assert Kinds('latency_4000', 'WRITE') == ['rt', 'st']
  assert Kinds('mixed', 'total') == ['st']
  # The ladder's real runs kept their schedules (15,016 operations of
  # 15,000 per loader at 500 op/s for 30 s): reached, not marked.
  (rate,) = [r for r in by_name['latency_2000'] if r.metric == 'op_rate']
  assert rate.metadata['scylla_rate'] == 2000
  assert rate.metadata['scylla_rate_reached'] is True
  assert rate.metadata['scylla_schedule_share'] == 4 * 15016 / 60000
  (operations,) = [r for r in by_name['populate'] if r.metric == 'operations']
  # Four loaders, each serving the real 200,000-key run.
  assert operations.value == 4 * 200000


def test_loader_command_fails_mid_phase(tmp_path, make_loaders, stress_output):
  settings = Settings()
  steps = Steps(settings)
  failing = {s.name: s for s in steps}['read_medium'].runs[2]
  loaders = make_loaders(steps)
  vm = loaders[2]
  # What loader 2 had written when its command failed: the real medium read
  # cut a third of the way, and the real times of a failed command.
  paths = failing.paths
  for kind in (loader_files.STDOUT, loader_files.LOG, loader_files.HDR):
    text = stress_output('read_medium.loader0', kind)
    vm.remote_files[paths[kind]] = text[: len(text) // 3]
  vm.remote_files[paths[loader_files.TIMES]] = (
      TESTDATA / 'loader' / 'loader-fail.times'
  ).read_text()
  vm.Reply(
      WRAPPER + ' ' + re.escape(failing.stem) + ' ',
      fail=True,
      stderr='exit 3',
  )
  outcomes, _ = RunAll(
      tmp_path,
      settings,
      Servers(),
      loaders,
      steps,
      TickingClock(AfterTheLoads()),
  )
  statuses = {o.step.name: o.status for o in outcomes}
  assert [statuses[n] for n in STEP_NAMES] == ['ok'] * 3 + ['failed'] + [
      'not_run'
  ] * 5
  failed = outcomes[3]
  assert failed.result is None
  assert 'loader 2 (loader2): cassandra-stress exited with 3' in failed.error
  assert 'loader 0' not in failed.error
  # Every loader's files of the failed step were pulled, the failed one's too.
  step = failed.step
  for run in step.runs:
    pulled = [
        remote
        for local, remote in loaders[run.loader_index].pulled
        if os.path.basename(local) == step.name
    ]
    assert sorted(pulled) == sorted(run.paths.values())
  assert (
      tmp_path
      / run_sequence.STEPS_DIR
      / 'read_medium'
      / 'read_medium.loader2.hdr'
  ).exists()
  assert not (
      tmp_path
      / run_sequence.STEPS_DIR
      / 'read_medium'
      / 'read_medium.loader2.cpu'
  ).exists()
  # Nothing ran after it.
  for later in steps[4:]:
    for run in later.runs:
      assert not loaders[run.loader_index].CommandsMatching(re.escape(run.stem))
  status = StatusOf(Rows(failed))
  assert status.value == 0
  assert status.metadata['scylla_status'] == 'failed'
  assert 'loader 2 (loader2): cassandra-stress exited with 3' in (
      status.metadata['scylla_error']
  )
  for outcome in outcomes[4:]:
    (row,) = Rows(outcome)
    assert (row.metric, row.value) == ('phase_status', 0)
    assert row.metadata['scylla_status'] == 'not_run'
    assert row.metadata['scylla_error'] == 'read_medium failed'
  failures = outcomes_lib.Failures(outcomes)
  assert failures[0].startswith('read_medium: failed (read_medium: loader 2')
  assert len(failures) == 6


def test_missing_hdr_file(tmp_path, make_loaders, stress_output):
  settings = Settings()
  steps = Steps(settings)
  mixed = steps[-1]
  hdr_path = mixed.runs[1].hdr_path
  loaders = make_loaders(steps, missing={('mixed', 1, loader_files.HDR)})
  outcomes, _ = RunAll(
      tmp_path,
      settings,
      Servers(),
      loaders,
      steps,
      TickingClock(AfterTheLoads()),
  )
  assert [o.status for o in outcomes] == ['ok'] * 8 + ['failed']
  error = outcomes[-1].error
  assert f'loader 1 (loader1): HDR log {hdr_path} missing' in error
  assert 'no such file' in error
  # Four loaders' files but the missing HDR log, and the step's records.
  assert (
      len(os.listdir(tmp_path / run_sequence.STEPS_DIR / 'mixed'))
      == 4 * len(loader_files.FILE_KINDS) - 1 + 2
  )
  status = StatusOf(Rows(outcomes[-1]))
  assert (status.value, status.metadata['scylla_status']) == (0, 'failed')
  # The earlier steps' figures stand.
  assert all(StatusOf(Rows(o)).value == 1 for o in outcomes[:-1])


def test_quiesce_times_out(tmp_path, make_loaders, stress_output):
  settings = Settings()
  steps = Steps(settings)
  loaders = make_loaders(steps)
  servers = [Server(i, pending_forever=i == 1) for i in range(3)]
  outcomes, notices = RunAll(
      tmp_path,
      settings,
      servers,
      loaders,
      steps,
      TickingClock(AfterTheLoads()),
  )
  assert [o.status for o in outcomes] == ['ok', 'timeout'] + ['not_run'] * 7
  quiesce = outcomes[1]
  assert quiesce.result.status == 'timeout'
  # The wait gave up at the first poll after 30 s (three clock readings,
  # i.e. three seconds, per poll).
  assert 30 <= quiesce.result.wait_s < 33
  # One more question at populate's end (its servers' evidence).
  assert (
      quiesce.result.polls
      == len(
          servers[1].CommandsMatching(
              re.escape(compactions.SCYLLA_PENDING_TASKS_PATH)
          )
      )
      - 1
  )
  assert quiesce.result.polls > 1
  assert quiesce.error == ''
  rows = Rows(quiesce)
  # The figures of the compactions seen so far are still published.
  assert {r.metric for r in rows} >= {'populate_time', 'compactions'}
  status = StatusOf(rows)
  assert (status.value, status.metadata['scylla_status']) == (0, 'timeout')
  assert (
      status.metadata['scylla_error']
      == 'compactions did not settle within 30 s'
  )
  assert {o.error for o in outcomes[2:]} == {
      'quiesce timed out waiting for compactions'
  }
  assert outcomes_lib.Failures(outcomes)[0] == 'quiesce: timeout'
  # Nothing ran after the timeout; observers heard of the two steps only.
  assert [n for n in notices if n[0] == 'end'] == [
      ('end', 'populate', 'ok'),
      ('end', 'quiesce', 'timeout'),
  ]
  for step in steps[2:]:
    for run in step.runs:
      assert not loaders[run.loader_index].CommandsMatching(re.escape(run.stem))


def test_unreachable_server_during_quiesce(
    tmp_path, make_loaders, stress_output
):
  settings = Settings()
  steps = Steps(settings)
  servers = Servers()
  servers[1].Reply(
      r'^curl ', fail=True, stderr='ssh: connect to host 10.0.0.3: timed out'
  )
  outcomes, _ = RunAll(
      tmp_path,
      settings,
      servers,
      make_loaders(steps),
      steps,
      TickingClock(AfterTheLoads()),
  )
  assert [o.status for o in outcomes[:3]] == ['ok', 'failed', 'not_run']
  failed = outcomes[1]
  # Not the 30 s timeout: three failed polls (the settle window is 0 s),
  # and the error names the node and what it said.
  assert failed.ended_at - failed.started_at < settings.quiesce_timeout_s
  assert failed.error.startswith(
      'server server-1 (10.0.0.3) answered no compaction poll for '
  )
  assert 'CompactionStatus failed: server-1: command failed' in failed.error
  polls = servers[1].CommandsMatching(
      re.escape(compactions.SCYLLA_COMPACTIONS_PATH)
  )
  # Three polls, after one question at populate's end (its evidence; the
  # step still stood).
  assert len(polls) == 1 + 3
  populate = outcomes[0].result
  assert populate.servers[1].compactions is None
  assert populate.servers[1].problems[-1].startswith('compactions unknown: ')
  # Every poll made is kept.
  kept = (
      tmp_path
      / run_sequence.STEPS_DIR
      / 'quiesce'
      / compaction_poller.POLLS_FILE
  ).read_text()
  assert len(kept.splitlines()) == 3


def test_server_lost_during_a_step_fails_it(tmp_path, make_loaders):
  """RF 3 at QUORUM gets through one node down; the step still fails."""
  settings = Settings()
  steps = Steps(settings)
  servers = Servers()
  loaders = make_loaders(steps)
  # server-2's database ends after populate, while compactions settle.
  alive = iter(['active\n'] + ['inactive\n'] * 100)
  servers[2].Reply(
      r'^sudo systemctl is-active scylla-server$', lambda _: next(alive)
  )
  outcomes, _ = RunAll(
      tmp_path,
      settings,
      servers,
      loaders,
      steps,
      TickingClock(AfterTheLoads()),
  )
  # populate passes the check after it; the quiesce step finds the node gone.
  statuses = [o.status for o in outcomes]
  assert statuses[0] == 'ok'
  assert statuses[1] == 'failed'
  assert set(statuses[2:]) == {'not_run'}
  assert outcomes[1].error == (
      'server server-2 (10.0.0.4): the scylla process is not running (it'
      ' ended during the step)'
  )
