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

"""Within-run intervals of a step's figures, and their sample metadata.

On real outputs: the lab's 200,000-write run (10 one-second HDR intervals)
and the 30 s captures of tests/testdata/stress (read, fixed-rate write,
mixed), each loader given the same capture on its own clock. Both are too
short for a within-run interval (intervals.MIN_SERIES_POINTS); the tests of
how intervals reach results and samples lower the minimums to 10
intervals (short_steps_get_intervals).
"""

import math

import pytest

from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.results import step_results
from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import stress_steps

PERCENTILES = {
    'latency_p50': 'p50_ms',
    'latency_p95': 'p95_ms',
    'latency_p99': 'p99_ms',
    'latency_p999': 'p999_ms',
}
CI_KEYS = {
    'scylla_ci_low',
    'scylla_ci_high',
    'scylla_ci_level',
    'scylla_ci_method',
    'scylla_ci_covers',
    'scylla_ci_units',
    'scylla_ci_se_log',
    'scylla_ci_dof',
    'scylla_ci_warning',
}


@pytest.fixture
def short_steps_get_intervals(monkeypatch):
  """Intervals from 10 HDR intervals on, for the 30 s captures.

  What these tests check is how intervals reach results and samples; where
  intervals are published is tests/core/stats/test_interval_coverage.py's.
  """
  monkeypatch.setattr(intervals, 'MIN_SERIES_POINTS', 10)
  monkeypatch.setattr(intervals, 'TAIL_INTERVALS_PER_DECADE', 0)


def Result(capture, name, source, loaders=1, **changes):
  """The StepResult of step `name`, each loader serving capture `source`.

  Loader i's clock is i/4 s ahead of the controller's, so the same files
  place the loaders a quarter of a second apart.
  """
  changes.setdefault('phases', ('read',))
  settings = stress_steps.Settings(
      loader_count=loaders,
      num_keys=200000,
      read_warmup_s=0,
      read_duration_s=30,
      mixed_duration_s=30,
      **changes,
  )
  step = stress_steps.StepOf(settings, name)
  record = stress_steps.Record(
      step, offsets={i: 0.25 * i for i in range(loaders)}
  )
  outputs = {i: capture(source) for i in range(loaders)}
  return step, step_results.ResultOfStep(step, record, outputs, settings)


def LabResult(write_output):
  return stress_steps.PopulateResult(
      {0: write_output()},
      settings=stress_steps.Settings(loader_count=1, num_keys=200000),
  )


def test_percentile_estimates_are_the_published_percentiles(
    write_output, short_steps_get_intervals
):
  del short_steps_get_intervals
  write = LabResult(write_output).ops['WRITE']
  within = write.latency_intervals['st']
  assert sorted(within) == sorted(PERCENTILES.values())
  for field, interval in within.items():
    published = getattr(write.latency['st'], field)
    assert interval.estimate == published, field
    assert interval.low <= published <= interval.high
    assert interval.method == 'woodruff'
    assert interval.covers == intervals.WITHIN_RUN
    assert interval.level == 0.95


def test_a_step_of_10_intervals_gets_no_percentile_interval(write_output):
  write = LabResult(write_output).ops['WRITE']
  for field, interval in write.latency_intervals['st'].items():
    assert interval.estimate == getattr(write.latency['st'], field)
    assert interval.method == 'unbounded'
    assert (interval.low, interval.high) == (-math.inf, math.inf)
    assert '10 intervals: a within-run interval of this percentile' in (
        interval.warning
    )


def test_too_few_operations_beyond_a_percentile_warn(write_output):
  within = LabResult(write_output).ops['WRITE'].latency_intervals['st']
  # 200,000 operations: 200 beyond the p99.9, 2,000 beyond the p99.
  assert intervals.TooFewOperations(200000, 0.999)
  assert '200 beyond the percentile' in within['p999_ms'].warning
  assert not intervals.TooFewOperations(200000, 0.99)
  assert 'beyond the percentile' not in within['p99_ms'].warning


def test_short_rate_series_gives_an_unbounded_interval(write_output):
  write = LabResult(write_output).ops['WRITE']
  # Ten intervals, the last one 0.4 s long: nine whole steps in the window.
  assert len(write.series['st']) == 10
  interval = write.rate_interval
  assert interval.method == 'unbounded'
  assert (interval.low, interval.high) == (-math.inf, math.inf)
  assert interval.estimate == write.op_rate
  assert interval.warning == (
      '9 intervals: a within-run interval of a mean needs at least 60 (with'
      ' fewer, its coverage measured by simulation falls under 90%)'
  )


def test_a_30_s_step_gets_no_interval(capture):
  _, result = Result(capture, 'read_small', 'read_small.loader0')
  read = result.ops['READ']
  assert read.rate_interval.method == 'unbounded'
  assert 'a within-run interval of a mean needs at least 60' in (
      read.rate_interval.warning
  )
  for interval in read.latency_intervals['st'].values():
    assert interval.method == 'unbounded'


def test_rate_interval_is_scaled_to_the_published_rate(
    capture, short_steps_get_intervals
):
  del short_steps_get_intervals
  _, result = Result(capture, 'read_small', 'read_small.loader0')
  read = result.ops['READ']
  points = read.series['st']
  # The capture's last step holds 0.7 s of operations: outside the common
  # window, left out; the others are the series the interval rests on.
  assert points[-1].end_s - read.window_end_s == pytest.approx(0.3, abs=0.01)
  inside = intervals.MeanOfSeries([p.op_rate for p in points[:-1]])
  interval = read.rate_interval
  assert interval.method == 'batch_means'
  assert interval.estimate == read.op_rate
  assert interval.estimate != pytest.approx(inside.estimate, rel=1e-3)
  assert interval.low / read.op_rate == pytest.approx(
      inside.low / inside.estimate
  )
  assert interval.high / read.op_rate == pytest.approx(
      inside.high / inside.estimate
  )
  assert interval.low < read.op_rate < interval.high


def test_loaders_on_other_clocks_leave_out_steps_outside_their_window(
    capture, short_steps_get_intervals
):
  del short_steps_get_intervals
  _, one = Result(capture, 'read_small', 'read_small.loader0')
  _, four = Result(capture, 'read_small', 'read_small.loader0', loaders=4)
  read = four.ops['READ']
  points = read.series['st']
  # The loaders started 0.75 s apart and the grid starts with the first:
  # its first step holds two loaders' first intervals, its last one the
  # last partial interval of one loader, and the step before the last
  # reaches 0.3 s past the window's end (a step counts when 90% of it lies
  # in the window).
  assert len(points) == len(one.ops['READ'].series['st']) + 1
  assert (points[0].intervals, points[-1].intervals) == (2, 1)
  assert points[0].end_s - read.window_start_s == pytest.approx(0.25)
  assert points[-2].end_s - read.window_end_s == pytest.approx(0.3, abs=0.01)
  inside = points[1:-2]
  assert all(p.intervals == 4 for p in inside)
  expected = intervals.MeanOfSeries([p.op_rate for p in inside])
  assert read.rate_interval.units == pytest.approx(expected.units)
  assert read.rate_interval.low / read.op_rate == pytest.approx(
      expected.low / expected.estimate
  )
  for field, interval in read.latency_intervals['st'].items():
    assert interval.estimate == getattr(read.latency['st'], field)


def test_every_op_type_and_kind_gets_intervals(
    capture, short_steps_get_intervals
):
  del short_steps_get_intervals
  _, mixed = Result(capture, 'mixed', 'mixed.loader0', phases=('mixed',))
  assert sorted(mixed.ops) == ['READ', 'WRITE', 'total']
  for op in mixed.ops.values():
    assert op.rate_interval.low < op.op_rate < op.rate_interval.high
    assert list(op.latency_intervals) == ['st']
  _, latency = Result(
      capture,
      'latency_1000',
      'latency_1000.loader0',
      phases=('latency',),
      latency_rates=(1000,),
  )
  write = latency.ops['WRITE']
  assert sorted(write.latency_intervals) == ['rt', 'st']
  for kind in ('rt', 'st'):
    for field, interval in write.latency_intervals[kind].items():
      assert interval.estimate == getattr(write.latency[kind], field)


def One(rows, metric, **metadata):
  (row,) = [
      r
      for r in rows
      if r.metric == metric
      and all(r.metadata.get('scylla_' + k) == v for k, v in metadata.items())
  ]
  return row


def test_rows_carry_their_intervals(capture, short_steps_get_intervals):
  del short_steps_get_intervals
  step, result = Result(capture, 'read_small', 'read_small.loader0')
  rows = sample_rows.StressRows(step, result, run_contexts.ScyllaZ3())
  rate = One(rows, 'op_rate')
  metadata = rate.metadata
  assert CI_KEYS <= set(metadata)
  assert metadata['scylla_ci_low'] < rate.value < metadata['scylla_ci_high']
  assert metadata['scylla_ci_level'] == 0.95
  assert metadata['scylla_ci_method'] == 'batch_means'
  assert metadata['scylla_ci_covers'] == 'within_run'
  assert metadata['scylla_ci_units'] > 1
  assert 0 < metadata['scylla_ci_se_log'] < 1
  assert metadata['scylla_ci_dof'] >= intervals.MIN_BATCHES - 1
  assert isinstance(metadata['scylla_ci_warning'], str)
  # Rates proportional to op_rate: the same relative interval.
  for metric in ('op_rate_per_vcpu', 'op_rate_per_shard', 'ops_per_dollar'):
    row = One(rows, metric)
    assert row.metadata['scylla_ci_low'] / row.value == pytest.approx(
        metadata['scylla_ci_low'] / rate.value
    )
    assert row.metadata['scylla_ci_high'] / row.value == pytest.approx(
        metadata['scylla_ci_high'] / rate.value
    )
  bounds = {'scylla_ci_low', 'scylla_ci_high', 'scylla_ci_se_log'}
  for metric, field in PERCENTILES.items():
    row = One(rows, metric, latency_kind='st')
    assert row.value == getattr(result.ops['READ'].latency['st'], field)
    assert CI_KEYS - bounds <= set(row.metadata), metric
    assert row.metadata['scylla_ci_method'] == 'woodruff'
  # The capture starts cold: in its first 5 s most reads are slower than
  # the run's p95. The p50 is bounded; the tail percentiles only from
  # below (their upper bound lies beyond the slowest read), and an interval
  # bounded on one side only publishes no bounds.
  p50 = One(rows, 'latency_p50', latency_kind='st')
  assert CI_KEYS <= set(p50.metadata)
  assert (
      p50.metadata['scylla_ci_low'] < p50.value < p50.metadata['scylla_ci_high']
  )
  for metric in ('latency_p95', 'latency_p99', 'latency_p999'):
    assert not bounds & set(One(rows, metric, latency_kind='st').metadata)
  # 103,210 reads: too few beyond the p99.9, enough beyond the p99.
  assert 'beyond the percentile' in (
      One(rows, 'latency_p999').metadata['scylla_ci_warning']
  )
  assert 'beyond the percentile' not in (
      One(rows, 'latency_p99').metadata['scylla_ci_warning']
  )
  for metric in (
      'latency_mean',
      'latency_max',
      'partition_rate',
      'operations',
      'op_rate_series',
      'dollars_per_million_ops',
  ):
    assert not any(
        key.startswith('scylla_ci_') for key in One(rows, metric).metadata
    ), metric


def test_unbounded_interval_publishes_no_bounds(write_output):
  result = LabResult(write_output)
  step = stress_steps.StepOf(stress_steps.Settings(), 'populate')
  rows = sample_rows.StressRows(step, result, run_contexts.LabHost())
  metadata = One(rows, 'op_rate').metadata
  assert metadata['scylla_ci_method'] == 'unbounded'
  assert '9 intervals' in metadata['scylla_ci_warning']
  p999 = One(rows, 'latency_p999').metadata
  assert p999['scylla_ci_method'] == 'unbounded'
  # Both reasons: the operations beyond it and the intervals.
  assert 'beyond the percentile; at least 400 are needed; 10 intervals' in (
      p999['scylla_ci_warning']
  )
  for row in (metadata, p999):
    for key in ('scylla_ci_low', 'scylla_ci_high', 'scylla_ci_se_log'):
      assert key not in row
