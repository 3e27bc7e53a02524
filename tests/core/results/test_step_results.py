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

"""Tests of core/results/step_results.py: a stress step's figures."""

import dataclasses
import re

import pytest

from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import step_results
from perfkit_plugins.testing import stress_steps


def test_saturated_loaders_are_marked(write_output):
  settings = stress_steps.Settings()
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output(cpu='loader-busy.cpu')}, settings
  )
  assert result.status == outcomes.STATUS_SATURATED
  assert result.saturated
  assert result.loader_cpu_max_pct == pytest.approx(100.0 * 1189 / 1204)
  assert result.loader_cpu[0].mean_pct < settings.loader_cpu_threshold


def test_saturated_loaders_fail_when_asked_to(write_output):
  settings = stress_steps.Settings(loader_saturation_action='fail')
  step = stress_steps.StepOf(settings, 'populate')
  with pytest.raises(outcomes.PhaseOutputError) as raised:
    step_results.ResultOfStep(
        step,
        stress_steps.Record(step),
        {0: write_output(cpu='loader-busy.cpu'), 1: write_output()},
        settings,
    )
  assert raised.value.status == outcomes.STATUS_SATURATED
  assert 'saturated' in str(raised.value)


def test_threshold_decides_saturation(write_output):
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output()},
      settings=stress_steps.Settings(loader_cpu_threshold=30.0),
  )
  # The idle loader was 59.5% busy (other work on the host).
  assert result.saturated


def test_missing_cpu_samples_are_noted_not_fatal(write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  no_cpu = dataclasses.replace(write_output(), cpu=None)
  result = step_results.ResultOfStep(
      step, stress_steps.Record(step), {0: no_cpu, 1: write_output()}, settings
  )
  assert result.loader_cpu[0] is None
  assert result.loader_cpu[1] is not None
  assert 'loader 0 (vm0): CPU samples missing' in result.cpu_problems[0]


@pytest.fixture
def read_output(lab, testdata, shifted_hdr):
  """LoaderOutput of a read run, its HDR log moved onto the write run's.

  shift_s: seconds after the write run's first interval that the read
  run's first interval starts.
  """

  def Make(shift_s=0.0):
    hdr = testdata('stress', stress_steps.READ_RUN + '.hdr')
    first = next(histograms.IterHdrIntervals(hdr)).start_s
    write_first = next(
        histograms.IterHdrIntervals(lab(stress_steps.WRITE_HDR))
    ).start_s
    return loader_files.LoaderOutput(
        stdout=testdata('stress', stress_steps.READ_RUN + '.out'),
        log=testdata('stress', stress_steps.READ_RUN + '.log'),
        hdr=shifted_hdr(hdr, write_first - first + shift_s),
        cpu=testdata('loader', 'loader-idle.cpu'),
    )

  return Make


def test_one_loader_rate_is_its_operations_over_its_duration(write_output):
  result = stress_steps.PopulateResult(
      {0: write_output()},
      settings=stress_steps.Settings(loader_count=1, num_keys=200000),
  )
  write = result.ops['WRITE']
  assert list(result.ops) == ['WRITE']
  assert write.op_rate == pytest.approx(
      stress_steps.WRITE_OPS / stress_steps.WRITE_SECONDS
  )
  assert write.operations == stress_steps.WRITE_OPS
  assert write.partitions == stress_steps.WRITE_OPS
  assert write.errors == 0
  # One row per partition: the three rates agree.
  assert write.partition_rate == pytest.approx(write.op_rate)
  assert write.row_rate == pytest.approx(write.op_rate)


def test_aligned_loaders_add_up(lab, write_output):
  result = stress_steps.PopulateResult({0: write_output(), 1: write_output()})
  write = result.ops['WRITE']
  assert write.op_rate == pytest.approx(
      2 * stress_steps.WRITE_OPS / stress_steps.WRITE_SECONDS
  )
  assert write.operations == 2 * stress_steps.WRITE_OPS
  assert write.loader_indexes == (0, 1)
  single = histograms.MergeHdrLogs(
      {'one': lab(stress_steps.WRITE_HDR)}
  ).summaries
  merged = write.latency['st']
  # Merged histograms, not averaged percentiles: twice the count, same
  # distribution.
  assert merged.count == 2 * single['WRITE-st'].count
  assert merged.p99_ms == single['WRITE-st'].p99_ms
  assert merged.max_ms == single['WRITE-st'].max_ms
  assert list(write.latency) == ['st']
  assert result.status == outcomes.STATUS_OK
  assert not result.saturated


def test_rate_is_summed_over_the_common_window(lab, write_output):
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output(shift_s=2.0)}
  )
  write = result.ops['WRITE']
  # Window: loader 1's start (2 s) to loader 0's end (9.4 s). Loader 0 in
  # it: everything after its 2.0 s line (17,840 ops); loader 1: up to its
  # 7.0 s line (143,888) and 0.4 of its next interval (21,479 ops).
  window_ops = (stress_steps.WRITE_OPS - 17840) + (143888 + 0.4 * 21479)
  assert write.op_rate == pytest.approx(window_ops / 7.4)
  assert write.window_end_s - write.window_start_s == pytest.approx(7.4)
  first_start, last_end = histograms.MergeHdrLogs(
      {'a': lab(stress_steps.WRITE_HDR)}
  ).spans['a']
  assert result.duration_s == pytest.approx(2.0 + last_end - first_start)


def test_clock_offsets_put_loaders_on_the_controller_clock(write_output):
  # Loader 1's clock is 2 s ahead: its log says 2 s later, yet it ran at the
  # same time as loader 0.
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output(shift_s=2.0)}, offsets={1: 2.0}
  )
  assert result.ops['WRITE'].op_rate == pytest.approx(
      2 * stress_steps.WRITE_OPS / stress_steps.WRITE_SECONDS
  )


def test_time_series_per_interval(lab, write_output):
  result = stress_steps.PopulateResult({0: write_output(), 1: write_output()})
  series = result.ops['WRITE'].series['st']
  single = histograms.MergeHdrLogs(
      {'one': lab(stress_steps.WRITE_HDR)}, step_s=1
  ).series
  assert len(series) == len(single['WRITE-st'])
  assert [p.count for p in series] == [2 * p.count for p in single['WRITE-st']]
  assert [p.p99_ms for p in series] == [p.p99_ms for p in single['WRITE-st']]


def test_fixed_rate_runs_get_response_and_service_time(write_output):
  settings = stress_steps.Settings(phases=('latency',))
  step = stress_steps.StepOf(settings, 'latency_4000')
  outputs = {i: write_output(kinds=('rt', 'wt')) for i in (0, 1)}
  result = step_results.ResultOfStep(
      step, stress_steps.Record(step), outputs, settings
  )
  assert sorted(result.ops['WRITE'].latency) == ['rt', 'st']
  assert sorted(result.ops['WRITE'].series) == ['rt', 'st']


def test_fixed_rate_run_without_response_time_fails(write_output):
  settings = stress_steps.Settings(phases=('latency',))
  step = stress_steps.StepOf(settings, 'latency_4000')
  outputs = {i: write_output() for i in (0, 1)}
  with pytest.raises(outcomes.PhaseOutputError, match='no WRITE-rt'):
    step_results.ResultOfStep(
        step, stress_steps.Record(step), outputs, settings
    )


def LatencyResult(capture, source, cpu='loader-idle.cpu'):
  """The result of a one-loader ladder step of 1,000 op/s for 30 s.

  Its loader serves the real capture `source` of testdata/stress.
  """
  settings = stress_steps.Settings(
      phases=('latency',),
      loader_count=1,
      latency_rates=(1000,),
      latency_duration_s=30,
  )
  step = stress_steps.StepOf(settings, 'latency_1000')
  return step_results.ResultOfStep(
      step, stress_steps.Record(step), {0: capture(source, cpu)}, settings
  )


def test_a_fixed_rate_step_that_kept_its_schedule_is_ok(capture):
  result = LatencyResult(capture, 'latency_1000.loader0')
  assert result.status == outcomes.STATUS_OK
  # The real run at 1,000 op/s for 30 s completed 30,016 operations.
  assert result.fixed_rates == {
      'WRITE': step_results.FixedRate(
          target=1000, scheduled=30000, operations=30016
      )
  }
  assert result.fixed_rates['WRITE'].reached
  # Its op rate over the window (start-up included) is a little short:
  # not what decides.
  assert result.ops['WRITE'].op_rate < 995


def test_a_fixed_rate_step_behind_its_schedule_is_marked_not_lost(capture):
  """The real 500 op/s run served for a step that asked 1,000 op/s.

  Its loader completed half of the 30,000 operations the step's schedule
  held, as one that cannot keep up would.
  """
  result = LatencyResult(capture, 'latency_500.loader0')
  assert result.status == outcomes.STATUS_RATE_NOT_REACHED
  fixed = result.fixed_rates['WRITE']
  assert (fixed.target, fixed.scheduled, fixed.operations) == (
      1000,
      30000,
      15016,
  )
  assert fixed.share == pytest.approx(15016 / 30000)
  assert not fixed.reached
  # Its figures are all there.
  assert sorted(result.ops['WRITE'].latency) == ['rt', 'st']
  assert result.ops['WRITE'].op_rate == pytest.approx(497, abs=1)


def test_a_missed_rate_comes_before_saturated_loaders(capture):
  result = LatencyResult(capture, 'latency_500.loader0', 'loader-busy.cpu')
  assert result.saturated
  assert result.status == outcomes.STATUS_RATE_NOT_REACHED


@pytest.mark.parametrize(
    'operations, reached',
    [(30016, True), (28500, True), (28499, False), (8940, False)],
)
def test_a_fixed_rate_is_reached_from_95_percent_of_its_schedule(
    operations, reached
):
  fixed = step_results.FixedRate(
      target=1000, scheduled=30000, operations=operations
  )
  assert fixed.reached is reached
  for saturated, marked in ((False, 'ok'), (True, 'loader_saturated')):
    assert step_results.StepStatus(saturated, {'WRITE': fixed}) == (
        marked if reached else 'rate_not_reached'
    )


def test_reads_during_writes_reports_each_op_type_and_total(
    write_output, read_output
):
  settings = stress_steps.Settings(phases=('reads_during_writes',))
  step = stress_steps.StepOf(settings, 'reads_during_writes')
  reader = read_output()
  result = step_results.ResultOfStep(
      step,
      stress_steps.Record(step),
      {0: write_output(kinds=('rt',)), 1: reader},
      settings,
  )
  assert sorted(result.ops) == ['READ', 'WRITE', 'total']
  assert result.ops['WRITE'].loader_indexes == (0,)
  assert result.ops['READ'].loader_indexes == (1,)
  assert result.ops['WRITE'].op_rate == pytest.approx(
      stress_steps.WRITE_OPS / stress_steps.WRITE_SECONDS
  )
  # The read run's Results block counts 3,361 op/s over 30 s.
  assert result.ops['READ'].op_rate == pytest.approx(3361, rel=0.05)
  assert sorted(result.ops['WRITE'].latency) == ['rt', 'st']
  assert list(result.ops['READ'].latency) == ['st']
  total = result.ops['total']
  # Only the writers had a schedule: no response time of all op types,
  # and only theirs to keep.
  assert list(total.latency) == ['st']
  assert list(result.fixed_rates) == ['WRITE']
  assert result.fixed_rates['WRITE'].target == 2000
  assert total.operations == (
      result.ops['READ'].operations + result.ops['WRITE'].operations
  )


def test_delayed_readers_have_their_own_window(write_output, read_output):
  """Readers that start 3 s after the writer: each op type's own window."""
  settings = stress_steps.Settings(
      phases=('reads_during_writes',), rdw_read_delay_s=3
  )
  step = stress_steps.StepOf(settings, 'reads_during_writes')
  assert [r.start_delay_s for r in step.runs] == [0, 3]
  reader = read_output(3.0)
  result = step_results.ResultOfStep(
      step,
      stress_steps.Record(step, changes={1: {'start_s': 103.0}}),
      {0: write_output(kinds=('rt',)), 1: reader},
      settings,
  )
  write, read = result.ops['WRITE'], result.ops['READ']
  assert read.window_start_s - write.window_start_s == pytest.approx(3.0)
  assert read.start_s - write.start_s == pytest.approx(3.0)
  assert write.op_rate == pytest.approx(
      stress_steps.WRITE_OPS / stress_steps.WRITE_SECONDS
  )
  assert read.op_rate == pytest.approx(3361, rel=0.05)
  # Both op types together: only where the writer and the reader overlap.
  assert result.ops['total'].window_start_s == pytest.approx(
      read.window_start_s
  )


def test_hdr_log_cut_at_a_line_boundary_fails_the_step(write_output):
  """A cut HDR log still parses, but holds fewer operations than its run."""
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  whole = write_output()
  lines = whole.hdr.splitlines(keepends=True)
  cut = dataclasses.replace(whole, hdr=''.join(lines[: len(lines) // 2]))
  with pytest.raises(outcomes.PhaseOutputError) as raised:
    step_results.ResultOfStep(
        step, stress_steps.Record(step), {0: write_output(), 1: cut}, settings
    )
  [problem] = raised.value.problems
  assert re.fullmatch(
      r'loader 1 \(vm1\): HDR log \S+\.hdr holds [\d,]+ WRITE operations,'
      rf' its text log {stress_steps.WRITE_OPS:,} \(cut\?\)',
      problem,
  ), problem
