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

"""Tests of core/phase_results.py on real cassandra-stress outputs.

Each loader gets the lab's real text output and HDR log of one write run
(moved in time by code for loaders that start later or whose clock is off),
and the real times and CPU files a loader command wrote.
"""

import dataclasses
import re

import pytest

from perfkit_plugins.core import histograms
from perfkit_plugins.core import phase_results
from perfkit_plugins.core import plan
from perfkit_plugins.core import settings as settings_lib

WRITE_TEXT = 'cs-write-n200k-seq-t50-hdr.txt'
WRITE_HDR = 'cs-write-n200k-seq-t50-hdr.w.hdr'
# A read run and its own HDR log (testdata/stress, see its README).
READ_RUN = 'read_small.loader0'
# The write run's last interval line: 200,000 operations at 9.4 s.
WRITE_OPS, WRITE_SECONDS = 200000, 9.4


def Settings(**changes):
  fields = dict(
      phases=('populate',),
      num_keys=400000,
      loader_count=2,
      hdr_interval_s=1,
      latency_rates=(4000,),
      latency_duration_s=30,
      rdw_duration_s=30,
      rdw_write_rate=2000,
  )
  fields.update(changes)
  return settings_lib.Validate(settings_lib.Settings(**fields))


def StepOf(settings, name):
  steps = plan.PlanPhases(
      settings, ['10.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
  )
  return next(step for step in steps if step.name == name)


def Record(step, offsets=None, changes=None):
  """A StepRecord where every loader ran and exited 0, but for changes.

  Args:
    step: the planned step.
    offsets: loader index -> clock offset.
    changes: loader index -> LoaderRecord fields to replace.
  """
  loaders = []
  for run in step.runs:
    stem = run.stdout_path[: -len('.out')]
    loader = phase_results.LoaderRecord(
        loader_index=run.loader_index,
        vm_name=f'vm{run.loader_index}',
        clock_offset_s=(offsets or {}).get(run.loader_index, 0.0),
        remote_files={
            phase_results.STDOUT: run.stdout_path,
            phase_results.LOG: run.log_path,
            phase_results.HDR: run.hdr_path,
            phase_results.TIMES: stem + '.times',
            phase_results.CPU: stem + '.cpu',
        },
        local_files={},
        missing_files={},
        start_s=100.0,
        end_s=200.0,
        exit_code=0,
        error=None,
        launched_at=100.0,
        returned_at=200.0,
    )
    loaders.append(
        dataclasses.replace(loader, **(changes or {}).get(run.loader_index, {}))
    )
  return phase_results.StepRecord(step.name, 99.0, 201.0, tuple(loaders))


@pytest.fixture
def write_output(lab, testdata, shifted_hdr):
  """LoaderOutput of the write run, its HDR log moved by shift_s."""

  def Make(shift_s=0.0, kinds=(), cpu='loader-idle.cpu'):
    text = lab(WRITE_TEXT)
    return phase_results.LoaderOutput(
        stdout=text,
        log=text,
        hdr=shifted_hdr(lab(WRITE_HDR), shift_s, kinds),
        cpu=testdata('loader', cpu),
    )

  return Make


@pytest.fixture
def read_output(lab, testdata, shifted_hdr):
  """LoaderOutput of a read run, its HDR log moved onto the write run's.

  shift_s: seconds after the write run's first interval that the read
  run's first interval starts.
  """

  def Make(shift_s=0.0):
    hdr = testdata('stress', READ_RUN + '.hdr')
    first = next(histograms.IterHdrIntervals(hdr)).start_s
    write_first = next(histograms.IterHdrIntervals(lab(WRITE_HDR))).start_s
    return phase_results.LoaderOutput(
        stdout=testdata('stress', READ_RUN + '.out'),
        log=testdata('stress', READ_RUN + '.log'),
        hdr=shifted_hdr(hdr, write_first - first + shift_s),
        cpu=testdata('loader', 'loader-idle.cpu'),
    )

  return Make


def test_parses_times_files(testdata):
  times = phase_results.ParseTimes(testdata('loader', 'loader-busy.times'))
  assert times == phase_results.LoaderTimes(
      1795309197.913115608, 1795309203.926407155, 0
  )
  failed = phase_results.ParseTimes(testdata('loader', 'loader-fail.times'))
  assert failed.exit_code == 3
  # Files written before the command recorded the space left.
  assert failed.free_kib is None
  assert phase_results.ParseTimes('start 1.5\nfree \n').free_kib is None


def test_times_file_without_end_means_the_run_never_ended(testdata):
  start_only = testdata('loader', 'loader-busy.times').splitlines()[0]
  times = phase_results.ParseTimes(start_only)
  assert (times.end_s, times.exit_code) == (None, None)


def test_times_file_without_start_is_an_error(testdata):
  end_only = testdata('loader', 'loader-busy.times').splitlines()[1]
  with pytest.raises(ValueError, match='no start'):
    phase_results.ParseTimes(end_only)


def test_one_loader_rate_is_its_operations_over_its_duration(write_output):
  settings = Settings(loader_count=1, num_keys=200000)
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step, Record(step), {0: write_output()}, settings
  )
  write = result.ops['WRITE']
  assert list(result.ops) == ['WRITE']
  assert write.op_rate == pytest.approx(WRITE_OPS / WRITE_SECONDS)
  assert write.operations == WRITE_OPS
  assert write.partitions == WRITE_OPS
  assert write.errors == 0
  # One row per partition: the three rates agree.
  assert write.partition_rate == pytest.approx(write.op_rate)
  assert write.row_rate == pytest.approx(write.op_rate)


def test_aligned_loaders_add_up(lab, write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step, Record(step), {0: write_output(), 1: write_output()}, settings
  )
  write = result.ops['WRITE']
  assert write.op_rate == pytest.approx(2 * WRITE_OPS / WRITE_SECONDS)
  assert write.operations == 2 * WRITE_OPS
  assert write.loader_indexes == (0, 1)
  single = histograms.MergeHdrLogs({'one': lab(WRITE_HDR)}).summaries
  merged = write.latency['st']
  # Merged histograms, not averaged percentiles: twice the count, same
  # distribution.
  assert merged.count == 2 * single['WRITE-st'].count
  assert merged.p99_ms == single['WRITE-st'].p99_ms
  assert merged.max_ms == single['WRITE-st'].max_ms
  assert list(write.latency) == ['st']
  assert result.status == phase_results.STATUS_OK
  assert not result.saturated


def test_rate_is_summed_over_the_common_window(lab, write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step,
      Record(step),
      {0: write_output(), 1: write_output(shift_s=2.0)},
      settings,
  )
  write = result.ops['WRITE']
  # Window: loader 1's start (2 s) to loader 0's end (9.4 s). Loader 0 in
  # it: everything after its 2.0 s line (17,840 ops); loader 1: up to its
  # 7.0 s line (143,888) and 0.4 of its next interval (21,479 ops).
  window_ops = (WRITE_OPS - 17840) + (143888 + 0.4 * 21479)
  assert write.op_rate == pytest.approx(window_ops / 7.4)
  assert write.window_end_s - write.window_start_s == pytest.approx(7.4)
  first_start, last_end = histograms.ParseHdrLog(lab(WRITE_HDR)).span
  assert result.duration_s == pytest.approx(2.0 + last_end - first_start)


def test_clock_offsets_put_loaders_on_the_controller_clock(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  # Loader 1's clock is 2 s ahead: its log says 2 s later, yet it ran at the
  # same time as loader 0.
  result = phase_results.ResultOfStep(
      step,
      Record(step, offsets={1: 2.0}),
      {0: write_output(), 1: write_output(shift_s=2.0)},
      settings,
  )
  assert result.ops['WRITE'].op_rate == pytest.approx(
      2 * WRITE_OPS / WRITE_SECONDS
  )


def test_time_series_per_interval(lab, write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step, Record(step), {0: write_output(), 1: write_output()}, settings
  )
  series = result.ops['WRITE'].series['st']
  single = histograms.MergeHdrLogs({'one': lab(WRITE_HDR)}, step_s=1).series
  assert len(series) == len(single['WRITE-st'])
  assert [p.count for p in series] == [2 * p.count for p in single['WRITE-st']]
  assert [p.p99_ms for p in series] == [p.p99_ms for p in single['WRITE-st']]


def test_fixed_rate_runs_get_response_and_service_time(write_output):
  settings = Settings(phases=('latency',))
  step = StepOf(settings, 'latency_4000')
  outputs = {i: write_output(kinds=('rt', 'wt')) for i in (0, 1)}
  result = phase_results.ResultOfStep(step, Record(step), outputs, settings)
  assert sorted(result.ops['WRITE'].latency) == ['rt', 'st']
  assert sorted(result.ops['WRITE'].series) == ['rt', 'st']


def test_fixed_rate_run_without_response_time_fails(write_output):
  settings = Settings(phases=('latency',))
  step = StepOf(settings, 'latency_4000')
  outputs = {i: write_output() for i in (0, 1)}
  with pytest.raises(phase_results.PhaseOutputError, match='no WRITE-rt'):
    phase_results.ResultOfStep(step, Record(step), outputs, settings)


def test_reads_during_writes_reports_each_op_type_and_total(
    write_output, read_output
):
  settings = Settings(phases=('reads_during_writes',))
  step = StepOf(settings, 'reads_during_writes')
  reader = read_output()
  result = phase_results.ResultOfStep(
      step,
      Record(step),
      {0: write_output(kinds=('rt',)), 1: reader},
      settings,
  )
  assert sorted(result.ops) == ['READ', 'WRITE', 'total']
  assert result.ops['WRITE'].loader_indexes == (0,)
  assert result.ops['READ'].loader_indexes == (1,)
  assert result.ops['WRITE'].op_rate == pytest.approx(WRITE_OPS / WRITE_SECONDS)
  # The read run's Results block counts 3,361 op/s over 30 s.
  assert result.ops['READ'].op_rate == pytest.approx(3361, rel=0.05)
  assert sorted(result.ops['WRITE'].latency) == ['rt', 'st']
  assert list(result.ops['READ'].latency) == ['st']
  total = result.ops['total']
  # Only the writers had a schedule: no response time of all op types.
  assert list(total.latency) == ['st']
  assert total.operations == (
      result.ops['READ'].operations + result.ops['WRITE'].operations
  )


def test_delayed_readers_have_their_own_window(write_output, read_output):
  """Readers that start 3 s after the writer: each op type's own window."""
  settings = Settings(phases=('reads_during_writes',), rdw_read_delay_s=3)
  step = StepOf(settings, 'reads_during_writes')
  assert [r.start_delay_s for r in step.runs] == [0, 3]
  reader = read_output(3.0)
  result = phase_results.ResultOfStep(
      step,
      Record(step, changes={1: {'start_s': 103.0}}),
      {0: write_output(kinds=('rt',)), 1: reader},
      settings,
  )
  write, read = result.ops['WRITE'], result.ops['READ']
  assert read.window_start_s - write.window_start_s == pytest.approx(3.0)
  assert read.start_s - write.start_s == pytest.approx(3.0)
  assert write.op_rate == pytest.approx(WRITE_OPS / WRITE_SECONDS)
  assert read.op_rate == pytest.approx(3361, rel=0.05)
  # Both op types together: only where the writer and the reader overlap.
  assert result.ops['total'].window_start_s == pytest.approx(
      read.window_start_s
  )


def Problems(step, record, outputs, settings):
  with pytest.raises(phase_results.PhaseOutputError) as raised:
    phase_results.ResultOfStep(step, record, outputs, settings)
  assert raised.value.status == phase_results.STATUS_FAILED
  return str(raised.value)


def test_missing_log_names_loader_and_file(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  missing = dataclasses.replace(write_output(), log=None)
  record = Record(step, changes={1: {'missing_files': {'log': 'no such file'}}})
  message = Problems(step, record, {0: write_output(), 1: missing}, settings)
  assert 'loader 1 (vm1): log /r/populate.loader1.log missing' in message
  assert 'no such file' in message
  assert 'loader 0' not in message


def test_empty_log_fails(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  empty = dataclasses.replace(write_output(), log='')
  message = Problems(
      step, Record(step), {0: empty, 1: write_output()}, settings
  )
  assert 'loader 0 (vm0): log /r/populate.loader0.log: Empty' in message


def test_truncated_log_fails(lab, write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  text = lab(WRITE_TEXT)
  cut = dataclasses.replace(
      write_output(), log=text[: text.index('Latency 99th')]
  )
  message = Problems(step, Record(step), {0: write_output(), 1: cut}, settings)
  assert 'loader 1 (vm1): log /r/populate.loader1.log' in message
  assert 'cut' in message


def test_missing_and_cut_hdr_logs_fail(lab, write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  no_hdr = dataclasses.replace(write_output(), hdr=None)
  message = Problems(
      step, Record(step), {0: write_output(), 1: no_hdr}, settings
  )
  assert 'loader 1 (vm1): HDR log /r/populate.loader1.hdr missing' in message
  hdr = write_output().hdr
  cut = dataclasses.replace(write_output(), hdr=hdr[: len(hdr) // 2])
  message = Problems(step, Record(step), {0: cut, 1: write_output()}, settings)
  assert 'loader 0 (vm0)' in message
  assert '(HDR log /r/populate.loader0.hdr)' in message


def test_full_output_directory_is_named_first(testdata, write_output):
  """A disk that filled cuts the HDR log silently; the message says why."""
  settings = Settings()
  step = StepOf(settings, 'populate')
  times = phase_results.ParseTimes(testdata('loader', 'loader-full.times'))
  assert (times.exit_code, times.free_kib) == (0, 0)
  hdr = write_output().hdr
  cut = dataclasses.replace(write_output(), hdr=hdr[: len(hdr) // 2])
  record = Record(step, changes={0: {'output_free_kib': times.free_kib}})
  message = Problems(step, record, {0: cut, 1: write_output()}, settings)
  assert message.startswith(
      'populate: loader 0 (vm0): no space left in /r (0 KiB free when'
      ' cassandra-stress ended); loader 0 (vm0):'
  )
  # Space left (or unknown) is not blamed.
  roomy = Record(step, changes={0: {'output_free_kib': 10 << 20}})
  message = Problems(step, roomy, {0: cut, 1: write_output()}, settings)
  assert 'no space left' not in message


def test_failed_commands_are_all_reported_with_the_tools_message(
    lab, write_output
):
  settings = Settings()
  step = StepOf(settings, 'populate')
  rejected = dataclasses.replace(
      write_output(), stdout=lab('cs-write-30s-rate-limit-2000.txt'), log=None
  )
  record = Record(
      step,
      changes={
          0: {'exit_code': 1},
          1: {'error': 'unreachable over ssh after 12 s', 'exit_code': None},
      },
  )
  message = Problems(step, record, {0: rejected, 1: write_output()}, settings)
  assert 'loader 0 (vm0): cassandra-stress exited with 1' in message
  assert 'Invalid parameter limit=2000/s' in message
  assert 'loader 1 (vm1): unreachable over ssh after 12 s' in message


@pytest.mark.parametrize(
    'changes,failure',
    [
        (
            {'exit_code': 137, 'error': 'command failed: x'},
            'loader 0 (vm0): cassandra-stress killed by SIGKILL (exit 137)',
        ),
        ({'exit_code': 143}, 'killed by SIGTERM (exit 143)'),
        ({'exit_code': 3, 'error': 'command failed: x'}, 'exited with 3'),
        (
            {'exit_code': None, 'error': 'still running after 40 s, stopped'},
            'loader 0 (vm0): still running after 40 s, stopped',
        ),
        ({'exit_code': 0}, None),
    ],
)
def test_loader_failure_says_what_happened_in_one_line(changes, failure):
  step = StepOf(Settings(), 'populate')
  record = dataclasses.replace(Record(step).loaders[0], **changes)
  said = phase_results.LoaderFailure(record)
  if failure is None:
    assert said is None
  else:
    assert failure in said and '\n' not in said


def test_run_that_never_ended_fails(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  record = Record(step, changes={0: {'end_s': None, 'exit_code': None}})
  message = Problems(
      step, record, {0: write_output(), 1: write_output()}, settings
  )
  assert 'loader 0 (vm0): cassandra-stress did not finish' in message


def test_saturated_loaders_are_marked(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step,
      Record(step),
      {0: write_output(), 1: write_output(cpu='loader-busy.cpu')},
      settings,
  )
  assert result.status == phase_results.STATUS_SATURATED
  assert result.saturated
  assert result.loader_cpu_max_pct == pytest.approx(100.0 * 1189 / 1204)
  assert result.loader_cpu[0].mean_pct < settings.loader_cpu_threshold


def test_saturated_loaders_fail_when_asked_to(write_output):
  settings = Settings(loader_saturation_action='fail')
  step = StepOf(settings, 'populate')
  with pytest.raises(phase_results.PhaseOutputError) as raised:
    phase_results.ResultOfStep(
        step,
        Record(step),
        {0: write_output(cpu='loader-busy.cpu'), 1: write_output()},
        settings,
    )
  assert raised.value.status == phase_results.STATUS_SATURATED
  assert 'saturated' in str(raised.value)


def test_threshold_decides_saturation(write_output):
  settings = Settings(loader_cpu_threshold=30.0)
  step = StepOf(settings, 'populate')
  result = phase_results.ResultOfStep(
      step, Record(step), {0: write_output(), 1: write_output()}, settings
  )
  # The idle loader was 59.5% busy (other work on the host).
  assert result.saturated


def test_missing_cpu_samples_are_noted_not_fatal(write_output):
  settings = Settings()
  step = StepOf(settings, 'populate')
  no_cpu = dataclasses.replace(write_output(), cpu=None)
  result = phase_results.ResultOfStep(
      step, Record(step), {0: no_cpu, 1: write_output()}, settings
  )
  assert result.loader_cpu[0] is None
  assert result.loader_cpu[1] is not None
  assert 'loader 0 (vm0): CPU samples missing' in result.cpu_problems[0]


def test_span_uses_loader_times_else_controller_times():
  settings = Settings()
  step = StepOf(settings, 'populate')
  record = Record(
      step,
      changes={
          0: {'start_s': 101.5, 'end_s': 250.0},
          1: {'start_s': None, 'end_s': None, 'returned_at': 260.0},
      },
  )
  assert record.Span() == (100.0, 260.0)


def test_hdr_log_cut_at_a_line_boundary_fails_the_step(write_output):
  """A cut HDR log still parses, but holds fewer operations than its run."""
  settings = Settings()
  step = StepOf(settings, 'populate')
  whole = write_output()
  lines = whole.hdr.splitlines(keepends=True)
  cut = dataclasses.replace(whole, hdr=''.join(lines[: len(lines) // 2]))
  with pytest.raises(phase_results.PhaseOutputError) as raised:
    phase_results.ResultOfStep(
        step, Record(step), {0: write_output(), 1: cut}, settings
    )
  [problem] = raised.value.problems
  assert re.fullmatch(
      r'loader 1 \(vm1\): HDR log \S+\.hdr holds [\d,]+ WRITE operations,'
      rf' its text log {WRITE_OPS:,} \(cut\?\)',
      problem,
  ), problem
