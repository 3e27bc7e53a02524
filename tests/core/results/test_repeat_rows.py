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

"""Tests of sample_rows.RepeatRows: figures across the repeats of a step.

A read plan in 3 rounds (`read_warmup.r<k>`, `read_small.r<k>`, ...), each
repeat's result computed from a real read capture of tests/testdata/stress:
repeat 1 the `read_small` run, 2 `read_medium`, 3 `read_large`, so that the
repeats' figures differ as real runs do.
"""

import math

import pytest

from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.results import step_results
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import stress_steps

CAPTURES = {1: 'read_small', 2: 'read_medium', 3: 'read_large'}
AGGREGATED = {
    'op_rate',
    'op_rate_per_vcpu',
    'op_rate_per_shard',
    'ops_per_dollar',
    'latency_p50',
    'latency_p95',
    'latency_p99',
    'latency_p999',
}


def Settings(repeats):
  return stress_steps.Settings(
      phases=('read',),
      loader_count=1,
      num_keys=200000,
      read_warmup_s=5,
      read_duration_s=30,
      repeats=repeats,
  )


@pytest.fixture
def step_rows(capture):
  """Returns Rows(name, source, context, repeats, settings): step rows.

  The step `name` of a plan of `repeats` rounds (Settings, unless
  `settings` are given), its loader serving the real capture `source`
  (e.g. 'read_small').
  """

  def Rows(name, source, context, repeats=3, settings=None):
    settings = settings or Settings(repeats)
    step = stress_steps.StepOf(settings, name)
    result = step_results.ResultOfStep(
        step,
        stress_steps.Record(step),
        {0: capture(f'{source}.loader0')},
        settings,
    )
    return sample_rows.StressRows(step, result, context)

  return Rows


def Context(cluster='cluster-a', repeats=3):
  return run_contexts.ScyllaZ3(
      cluster=cluster, run_start=1795311000, repeats=repeats
  )


def RunRows(step_rows, context, skip=()):
  """Rows of the warm-ups and of read_small in every round but `skip`."""
  rows = []
  for repeat, source in CAPTURES.items():
    rows += step_rows(f'read_warmup.r{repeat}', 'read_small', context)
    if repeat not in skip:
      rows += step_rows(f'read_small.r{repeat}', source, context)
  return rows


def Find(rows, metric, **metadata):
  return [
      r
      for r in rows
      if r.metric == metric
      and all(r.metadata.get('scylla_' + k) == v for k, v in metadata.items())
  ]


def test_each_figure_is_averaged_over_the_repeats(step_rows):
  rows = RunRows(step_rows, Context())
  aggregates = sample_rows.RepeatRows(rows)
  assert {r.metric for r in aggregates} == AGGREGATED
  assert len(aggregates) == len(AGGREGATED)
  for row in aggregates:
    metadata = row.metadata
    assert metadata['scylla_step'] == 'read_small', row.metric
    assert metadata['scylla_repeat'] == 0
    assert metadata['scylla_repeats'] == 3
    assert metadata['scylla_repeats_aggregated'] == '[1,2,3]'
    assert metadata['scylla_op'] == 'READ'
    assert metadata['scylla_cluster'] == 'cluster-a'
    assert metadata['scylla_ci_covers'] == 'within_cluster'
    assert metadata['scylla_ci_method'] == 't_repeats'
    assert metadata['scylla_ci_level'] == 0.95
    assert (metadata['scylla_ci_units'], metadata['scylla_ci_dof']) == (3, 2)
    assert metadata['scylla_ci_warning'] == ''
    assert metadata['scylla_ci_se_log'] > 0
    low, high = metadata['scylla_ci_low'], metadata['scylla_ci_high']
    assert low < row.value < high, row.metric
    for key in ('scylla_window_start', 'scylla_window_end'):
      assert key not in metadata
    repeats = [
        r.value
        for r in Find(rows, row.metric, step='read_small')
        if r.metadata['scylla_repeat']
    ]
    assert len(repeats) == 3
    assert row.value == pytest.approx(math.prod(repeats) ** (1 / 3)), row.metric
    assert row.unit == Find(rows, row.metric, step='read_small')[0].unit
  (p99,) = Find(aggregates, 'latency_p99')
  assert p99.metadata['scylla_latency_kind'] == 'st'
  assert p99.unit == 'ms'


def test_warm_ups_and_time_series_are_not_aggregated(step_rows):
  rows = RunRows(step_rows, Context())
  warm_ups = Find(rows, 'op_rate', step='read_warmup')
  assert [r.metadata['scylla_repeat'] for r in warm_ups] == [1, 2, 3]
  assert all(r.metadata['scylla_warmup'] is True for r in warm_ups)
  aggregates = sample_rows.RepeatRows(rows)
  assert not Find(aggregates, 'op_rate', step='read_warmup')
  assert not Find(aggregates, 'op_rate_series')
  assert all(r.series is None for r in aggregates)


def test_a_failed_repeat_is_left_out(step_rows):
  context = Context()
  rows = RunRows(step_rows, context, skip=(2,))
  failed = outcomes.StepOutcome(
      step=stress_steps.StepOf(Settings(3), 'read_small.r2'),
      status=outcomes.STATUS_FAILED,
      started_at=0.0,
      ended_at=1.0,
      error='loader 0 (vm0): exit code 1',
  )
  rows += sample_rows.OutcomeRows(failed, context)
  (rate,) = sample_rows.RepeatRows(rows)[:1]
  assert rate.metric == 'op_rate'
  assert rate.metadata['scylla_repeats_aggregated'] == '[1,3]'
  assert rate.metadata['scylla_ci_units'] == 2
  values = [r.value for r in Find(rows, 'op_rate', step='read_small')]
  assert rate.value == pytest.approx(math.sqrt(values[0] * values[1]))


def test_figures_of_failed_steps_are_left_out(step_rows):
  rows = RunRows(step_rows, Context())
  status = next(
      r
      for r in rows
      if r.metric == 'phase_status'
      and r.metadata['scylla_step'] == 'read_small'
      and r.metadata['scylla_repeat'] == 3
  )
  rows.append(sample_rows.SampleRow('phase_status', 0, '', status.metadata))
  rate = Find(sample_rows.RepeatRows(rows), 'op_rate')[0]
  assert rate.metadata['scylla_repeats_aggregated'] == '[1,2]'


def test_one_repeat_gives_no_aggregate(step_rows):
  single = Context(repeats=1)
  rows = step_rows('read_small', 'read_small', single, repeats=1)
  assert rows[0].metadata['scylla_repeat'] == 1
  assert sample_rows.RepeatRows(rows) == []
  # Repeats planned, but only one succeeded: nothing to average.
  rows = RunRows(step_rows, Context(), skip=(2, 3))
  assert sample_rows.RepeatRows(rows) == []


def test_clusters_are_aggregated_apart(step_rows):
  rows = RunRows(step_rows, Context('cluster-a'))
  rows += RunRows(step_rows, Context('cluster-b'), skip=(1,))
  rates = Find(sample_rows.RepeatRows(rows), 'op_rate')
  assert [r.metadata['scylla_cluster'] for r in rates] == [
      'cluster-a',
      'cluster-b',
  ]
  assert [r.metadata['scylla_repeats_aggregated'] for r in rates] == [
      '[1,2,3]',
      '[2,3]',
  ]


def test_saturated_repeat_marks_the_aggregate(step_rows):
  rows = RunRows(step_rows, Context())
  rows = [
      sample_rows.SampleRow(
          r.metric,
          r.value,
          r.unit,
          dict(r.metadata, scylla_loader_saturated=True),
          r.series,
      )
      if r.metadata['scylla_repeat'] == 2
      else r
      for r in rows
  ]
  rate = Find(sample_rows.RepeatRows(rows), 'op_rate')[0]
  assert rate.metadata['scylla_loader_saturated'] is True
  assert rate.metadata['scylla_status'] == outcomes.STATUS_SATURATED


def test_a_repeat_short_of_its_fixed_rate_marks_the_aggregate(step_rows):
  """A ladder step of 1,000 op/s for 30 s in 3 rounds on one loader.

  Rounds 1 and 3 serve the real 1,000 op/s run, round 2 the real 500 op/s
  run: its loader completed half of its schedule.
  """
  settings = stress_steps.Settings(
      phases=('latency',),
      loader_count=1,
      latency_rates=(1000,),
      latency_duration_s=30,
      repeats=3,
  )
  rows = []
  sources = ('latency_1000', 'latency_500', 'latency_1000')
  for repeat, source in enumerate(sources, 1):
    rows += step_rows(
        f'latency_1000.r{repeat}', source, Context(), settings=settings
    )
  aggregates = sample_rows.RepeatRows(rows)
  (rate,) = Find(aggregates, 'op_rate')
  assert rate.metadata['scylla_rate_reached'] is False
  assert rate.metadata['scylla_status'] == outcomes.STATUS_RATE_NOT_REACHED
  # What one repeat achieved is not the aggregate's.
  assert 'scylla_achieved_rate' not in rate.metadata
  assert 'scylla_schedule_share' not in rate.metadata
  (p99,) = Find(aggregates, 'latency_p99', latency_kind='rt')
  assert p99.metadata['scylla_rate_reached'] is False
