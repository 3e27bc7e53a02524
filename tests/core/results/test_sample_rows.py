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

"""Tests of core/results/sample_rows.py: names, units, metadata and skip rules.

Results are built field by field here (rows only rename and divide); the
chain from real outputs to rows is tested in
tests/operations/test_phase_runner.py.
"""

import dataclasses
import math

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.results import step_results
from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import planned_runs
from perfkit_plugins.testing import run_contexts

PKB_DEFAULT_KEYS = ('run_uri', 'machine_type', 'zone', 'num_cpus', 'image')


def Steps(**changes):
  fields = dict(
      phases=('populate', 'quiesce', 'latency', 'reads_during_writes'),
      num_keys=1000,
      read_small_stdev=100,
      loader_count=2,
      latency_rates=(4000, 8000),
      rdw_write_rate=2000,
  )
  fields.update(changes)
  settings = settings_lib.Validate(settings_lib.Settings(**fields))
  steps = planned_runs.PhaseSteps(settings, ['10.0.0.1'], 1 << 30, '/cs', '/r')
  return {step.name: step for step in steps}


def Summary(p99):
  return histograms.HistogramSummary(
      count=100,
      mean_ms=1.0,
      p50_ms=0.5,
      p95_ms=2.0,
      p99_ms=p99,
      p999_ms=9.0,
      max_ms=20.0,
  )


def Point(start_s, count, p99):
  return histograms.SeriesPoint(
      start_s, start_s + 10, count, count / 10, 1, p99, p99, p99
  )


def Op(op, indexes, kinds=('st',), rate=1000.0):
  return step_results.OpResult(
      op=op,
      loader_indexes=indexes,
      op_rate=rate,
      partition_rate=rate,
      row_rate=rate,
      window_start_s=1000.0,
      window_end_s=1100.0,
      start_s=999.0,
      end_s=1101.0,
      operations=100000,
      partitions=100000,
      errors=2,
      latency={
          kind: Summary(p99=4.0 if kind == 'st' else 6.0) for kind in kinds
      },
      series={
          kind: (Point(1000.0, 100, 3.0), Point(1010.0, 0, None))
          for kind in kinds
      },
  )


def Result(ops, status='ok', cpu_max=40.0, fixed_rates=None):
  return step_results.StepResult(
      step_name='x',
      status=status,
      ops={op.op: op for op in ops},
      start_s=999.0,
      end_s=1101.0,
      interval_s=10,
      loader_cpu={},
      loader_cpu_max_pct=cpu_max,
      loader_cpu_peak_pct=cpu_max and cpu_max + 10,
      saturated=status == 'loader_saturated',
      fixed_rates=fixed_rates or {},
  )


def Context(**changes):
  changes.setdefault('tuning', {'irq_cpus': '0,44', 'scylla_cpuset': '1-43'})
  return run_contexts.ScyllaZ3(**changes)


def Rows(rows, metric, **metadata):
  return [
      r
      for r in rows
      if r.metric == metric
      and all(r.metadata.get('scylla_' + k) == v for k, v in metadata.items())
  ]


def One(rows, metric, **metadata):
  (row,) = Rows(rows, metric, **metadata)
  return row


def test_stress_step_rows():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step, Result([Op('WRITE', (0, 1), rate=2.23e6)]), Context()
  )
  assert One(rows, 'op_rate').value == 2.23e6
  assert One(rows, 'op_rate').unit == 'op/s'
  assert One(rows, 'partition_rate').unit == 'pk/s'
  assert One(rows, 'row_rate').unit == 'row/s'
  assert One(rows, 'operations').value == 100000
  assert One(rows, 'errors').value == 2
  assert One(rows, 'duration').value == 102.0
  assert One(rows, 'latency_p99').value == 4.0
  assert One(rows, 'latency_p99').metadata['scylla_latency_kind'] == 'st'
  for metric in ('mean', 'p50', 'p95', 'p999', 'max'):
    assert One(rows, 'latency_' + metric).unit == 'ms'
  assert One(rows, 'op_rate_per_vcpu').value == pytest.approx(2.23e6 / 264)
  assert One(rows, 'op_rate_per_shard').value == pytest.approx(2.23e6 / 240)
  assert One(rows, 'loader_cpu_max').value == 40.0
  assert One(rows, 'loader_cpu_max').unit == '%'
  status = One(rows, 'phase_status')
  assert status.value == 1
  assert status.metadata['scylla_status'] == 'ok'
  assert status.metadata['scylla_error'] == ''


def test_cost_rows_use_the_cluster_price():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step, Result([Op('WRITE', (0, 1), rate=1e6)]), Context()
  )
  # 3 x 13.00 $/h = 39 $/h; 1M op/s for an hour is 3.6e9 operations.
  assert One(rows, 'ops_per_dollar').value == pytest.approx(3.6e9 / 39)
  assert One(rows, 'dollars_per_million_ops').value == pytest.approx(39 / 3600)
  # The figures say what they count: the servers, not the loaders.
  for metric in ('ops_per_dollar', 'dollars_per_million_ops'):
    assert One(rows, metric).metadata['scylla_cost_counts'] == 'servers only'
  metadata = One(rows, 'op_rate').metadata
  assert metadata['scylla_price_usd_per_hour'] == 39.0
  assert metadata['scylla_server_price_usd_per_hour'] == 13.0
  assert metadata['scylla_price_date'] == '2026-05'
  assert 'catalog' in metadata['scylla_price_source']


def test_no_price_no_cost_rows_and_metadata_says_why():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step,
      Result([Op('WRITE', (0, 1))]),
      Context(server_machine_type='n2-highmem-96', server_price=None),
  )
  assert not Rows(rows, 'ops_per_dollar')
  assert not Rows(rows, 'dollars_per_million_ops')
  metadata = One(rows, 'op_rate').metadata
  assert 'scylla_price_usd_per_hour' not in metadata
  assert 'no price known for n2-highmem-96' in metadata['scylla_price_source']


def test_overridden_price_is_named_as_such():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step,
      Result([Op('WRITE', (0, 1))]),
      Context(server_price=cost.LookUp('z3-highmem-88', override=10.0)),
  )
  metadata = One(rows, 'op_rate').metadata
  assert metadata['scylla_price_usd_per_hour'] == 30.0
  assert metadata['scylla_price_source'] == cost.USER_SOURCE


def test_unknown_shards_skip_the_per_shard_row():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step, Result([Op('WRITE', (0, 1))]), Context(shards=None)
  )
  assert not Rows(rows, 'op_rate_per_shard')
  assert 'scylla_shards' not in One(rows, 'op_rate').metadata


def test_every_metadata_key_is_prefixed():
  steps = Steps()
  rows = sample_rows.StressRows(
      steps['populate'], Result([Op('WRITE', (0, 1))]), Context()
  )
  for row in rows:
    for key in row.metadata:
      assert key.startswith('scylla_'), (row.metric, key)
    assert not set(PKB_DEFAULT_KEYS) & set(row.metadata)
  metadata = One(rows, 'op_rate').metadata
  assert metadata['scylla_irq_cpus'] == '0,44'
  assert metadata['scylla_cpuset'] == '1-43'
  # Lists of the plan's metadata become strings every publisher stores.
  assert metadata['scylla_loader_key_ranges'] == '[1..500,501..1000]'


def test_step_metadata_describes_the_run():
  step = Steps()['populate']
  metadata = One(
      sample_rows.StressRows(step, Result([Op('WRITE', (0, 1))]), Context()),
      'op_rate',
  ).metadata
  assert metadata['scylla_phase'] == 'populate'
  assert metadata['scylla_step'] == 'populate'
  assert metadata['scylla_op'] == 'WRITE'
  assert metadata['scylla_engine'] == 'scylla'
  assert metadata['scylla_version'] == '2026.3.0'
  assert metadata['scylla_loaders'] == 2
  assert metadata['scylla_threads'] == 256
  assert metadata['scylla_rate'] == 0
  assert metadata['scylla_distribution'] == 'seq'
  assert metadata['scylla_key_range'] == '1..1000'
  assert metadata['scylla_consistency_level'] == 'QUORUM'
  assert metadata['scylla_replication_factor'] == 3
  assert metadata['scylla_servers'] == 3
  assert metadata['scylla_server_machine_type'] == 'z3-highmem-88'
  assert metadata['scylla_server_vcpus'] == 264
  assert metadata['scylla_shards'] == 240


def test_fixed_rate_steps_publish_both_latency_kinds():
  step = Steps()['latency_4000']
  rows = sample_rows.StressRows(
      step, Result([Op('WRITE', (0, 1), kinds=('st', 'rt'))]), Context()
  )
  assert One(rows, 'latency_p99', latency_kind='rt').value == 6.0
  assert One(rows, 'latency_p99', latency_kind='st').value == 4.0
  assert One(rows, 'op_rate').metadata['scylla_rate'] == 4000
  assert len(Rows(rows, 'latency_p99_series')) == 2


def test_reads_during_writes_describes_each_group():
  step = Steps()['reads_during_writes']
  result = Result([
      Op('READ', (1,)),
      Op('WRITE', (0,), kinds=('st', 'rt')),
      Op('total', (0, 1), kinds=('st', 'rt')),
  ])
  rows = sample_rows.StressRows(step, result, Context())
  write = One(rows, 'op_rate', op='WRITE').metadata
  read = One(rows, 'op_rate', op='READ').metadata
  assert (write['scylla_loaders'], read['scylla_loaders']) == (1, 1)
  assert write['scylla_rate'] == 2000
  assert read['scylla_rate'] == 0
  assert write['scylla_threads'] == 64
  assert read['scylla_threads'] == 8
  assert write['scylla_distribution'] == 'seq'
  assert read['scylla_distribution'] == 'uniform(1..1000)'
  assert read['scylla_key_range'] == '1..1000'
  assert write['scylla_key_range'] == '1..100'
  # The total's loaders run 64 and 8 threads: no one count, so no key (a
  # key keeps its type); the step's own keys say each group's.
  total = One(rows, 'op_rate', op='total').metadata
  assert 'scylla_threads' not in total
  assert (total['scylla_write_threads'], total['scylla_read_threads']) == (
      64,
      8,
  )


def test_every_sample_of_a_step_publishes_its_distribution_alike():
  step = Steps(phases=('read',))['read_small']
  rows = sample_rows.StressRows(step, Result([Op('READ', (0, 1))]), Context())
  # phase_status and loader_cpu_max carry the step's own metadata: the
  # distribution as the op's samples publish it, not as the -pop option.
  assert {r.metadata['scylla_distribution'] for r in rows} == {
      'gaussian(1..1000,500,100)'
  }


def test_a_counted_step_has_no_duration_key():
  steps = Steps()
  populate = sample_rows.StepMetadata(steps['populate'], Context())
  latency = sample_rows.StepMetadata(steps['latency_4000'], Context())
  assert 'scylla_duration_s' not in populate
  assert latency['scylla_duration_s'] == 1800


def test_time_series_rows_have_what_create_time_series_sample_needs():
  step = Steps()['populate']
  rows = sample_rows.StressRows(step, Result([Op('WRITE', (0, 1))]), Context())
  rates = One(rows, 'op_rate_series')
  assert rates.series.values == (10.0, 0.0)
  assert rates.series.timestamps_ms == (1000000.0, 1010000.0)
  assert rates.series.interval_s == 10
  assert rates.unit == 'op/s'
  p99 = One(rows, 'latency_p99_series')
  # An interval without operations has no percentile: left out.
  assert p99.series.values == (3.0,)
  assert p99.series.timestamps_ms == (1000000.0,)
  assert p99.metadata['scylla_latency_kind'] == 'st'
  assert all(
      row.series is None
      for row in rows
      if row.metric not in ('op_rate_series', 'latency_p99_series')
  )


def test_saturated_marked_step_is_published_and_marked():
  step = Steps()['populate']
  rows = sample_rows.StressRows(
      step,
      Result([Op('WRITE', (0, 1))], status='loader_saturated', cpu_max=99.0),
      Context(),
  )
  assert One(rows, 'op_rate').metadata['scylla_loader_saturated'] is True
  status = One(rows, 'phase_status')
  assert status.value == 1
  assert status.metadata['scylla_status'] == 'loader_saturated'


def test_a_missed_fixed_rate_is_published_and_marked():
  """Reads during writes whose writer completed 30% of its schedule."""
  step = Steps()['reads_during_writes']
  write = Op('WRITE', (0,), kinds=('st', 'rt'), rate=600.0)
  fixed = step_results.FixedRate(target=2000, scheduled=60000, operations=18000)
  result = Result(
      [write, Op('READ', (1,)), Op('total', (0, 1))],
      status=outcomes.STATUS_RATE_NOT_REACHED,
      fixed_rates={'WRITE': fixed},
  )
  rows = sample_rows.StressRows(step, result, Context())
  for row in Rows(rows, 'op_rate', op='WRITE') + Rows(
      rows, 'latency_p99', op='WRITE', latency_kind='rt'
  ):
    assert row.metadata['scylla_rate'] == 2000
    assert row.metadata['scylla_achieved_rate'] == 600.0
    assert row.metadata['scylla_schedule_share'] == pytest.approx(0.3)
    assert row.metadata['scylla_rate_reached'] is False
  # The reads ran under writes short of their rate: marked too, without a
  # rate of their own.
  for op in ('READ', 'total'):
    metadata = One(rows, 'op_rate', op=op).metadata
    assert metadata['scylla_rate_reached'] is False
    assert 'scylla_achieved_rate' not in metadata
  status = One(rows, 'phase_status')
  assert status.value == 1
  assert status.metadata['scylla_status'] == 'rate_not_reached'


def test_a_reached_fixed_rate_says_so_and_other_steps_say_nothing():
  fixed = step_results.FixedRate(target=4000, scheduled=4000, operations=4001)
  rows = sample_rows.StressRows(
      Steps()['latency_4000'],
      Result([Op('WRITE', (0, 1), ('st', 'rt'))], fixed_rates={'WRITE': fixed}),
      Context(),
  )
  rate = One(rows, 'op_rate')
  assert rate.metadata['scylla_rate_reached'] is True
  assert rate.metadata['scylla_schedule_share'] == 4001 / 4000
  populate = sample_rows.StressRows(
      Steps()['populate'], Result([Op('WRITE', (0, 1))]), Context()
  )
  assert not any(
      key in row.metadata
      for row in populate
      for key in ('scylla_rate_reached', 'scylla_achieved_rate')
  )


def Quiesced(status=quiesce_timing.QUIESCED):
  return quiesce_timing.QuiesceResult(
      status=status,
      populate_time_s=16020.0,
      time_to_compact_s=1260.0,
      total_time_to_quiesce_s=17280.0,
      compactions=412,
      bytes_in=10**12,
      bytes_out=8 * 10**11,
      polls=300,
      wait_s=1500.0,
      busy_until_s=17200.0,
  )


def test_quiesce_after_populate():
  step = Steps()['quiesce']
  rows = sample_rows.QuiesceRows(step, Quiesced(), Context())
  assert One(rows, 'populate_time').value == 16020.0
  assert One(rows, 'time_to_compact').value == 1260.0
  assert One(rows, 'total_time_to_quiesce').value == 17280.0
  assert One(rows, 'total_time_to_quiesce').unit == 's'
  assert One(rows, 'compactions').value == 412
  assert One(rows, 'compaction_bytes_in').value == 10**12
  assert One(rows, 'compaction_bytes_out').unit == 'bytes'
  assert One(rows, 'phase_status').value == 1
  assert One(rows, 'compactions').metadata['scylla_step'] == 'quiesce'


def test_quiesce_without_populate_has_no_populate_times():
  step = Steps(phases=('quiesce', 'mixed'))['quiesce']
  rows = sample_rows.QuiesceRows(step, Quiesced(), Context())
  assert not Rows(rows, 'populate_time')
  assert not Rows(rows, 'time_to_compact')
  assert One(rows, 'compactions').value == 412


def test_flush_quiesce_reports_time_to_compact_after_its_load():
  step = Steps()['flush_quiesce_before_latency_8000']
  rows = sample_rows.QuiesceRows(step, Quiesced(), Context())
  assert One(rows, 'time_to_compact').value == 1260.0
  assert not Rows(rows, 'populate_time')
  assert not Rows(rows, 'total_time_to_quiesce')


def test_quiesce_timeout_is_a_failed_status_with_figures():
  step = Steps()['quiesce']
  rows = sample_rows.QuiesceRows(
      step, Quiesced(quiesce_timing.TIMEOUT), Context()
  )
  status = One(rows, 'phase_status')
  assert status.value == 0
  assert status.metadata['scylla_status'] == 'timeout'
  assert 'did not settle' in status.metadata['scylla_error']
  assert One(rows, 'compactions').metadata['scylla_status'] == 'timeout'


def Within(estimate, low, high, standard_error=0.05):
  return intervals.Interval(
      estimate=estimate,
      low=low,
      high=high,
      level=0.95,
      method='batch_means',
      covers=intervals.WITHIN_RUN,
      units=12.5,
      standard_error=standard_error,
      dof=11,
  )


def test_ci_metadata_scales_the_interval_to_the_value():
  metadata = sample_rows.CiMetadata(Within(100.0, 90.0, 110.0), 200.0)
  assert metadata == {
      'scylla_ci_low': 180.0,
      'scylla_ci_high': 220.0,
      'scylla_ci_level': 0.95,
      'scylla_ci_method': 'batch_means',
      'scylla_ci_covers': 'within_run',
      'scylla_ci_units': 12.5,
      'scylla_ci_se_log': 0.05,
      'scylla_ci_dof': 11.0,
      'scylla_ci_warning': '',
  }
  same = sample_rows.CiMetadata(Within(4.0, 4.0, 4.5), 4.0)
  assert (same['scylla_ci_low'], same['scylla_ci_high']) == (4.0, 4.5)


def test_ci_metadata_of_an_unbounded_interval_has_no_bounds():
  unbounded = Within(100.0, -math.inf, math.inf, standard_error=math.inf)
  metadata = sample_rows.CiMetadata(unbounded, 100.0)
  assert not {'scylla_ci_low', 'scylla_ci_high', 'scylla_ci_se_log'} & set(
      metadata
  )
  # An estimate of 0 cannot be scaled: no bounds either.
  zero = sample_rows.CiMetadata(Within(0.0, -1.0, 1.0), 5.0)
  assert 'scylla_ci_low' not in zero
  # Each withheld interval says why.
  for withheld in (metadata, zero):
    assert withheld['scylla_ci_warning'].startswith('no interval is published')
  said = dataclasses.replace(unbounded, warning='too few intervals')
  assert (
      sample_rows.CiMetadata(said, 100.0)['scylla_ci_warning']
      == 'too few intervals'
  )


def test_results_without_intervals_publish_no_ci_keys():
  rows = sample_rows.StressRows(
      Steps()['populate'], Result([Op('WRITE', (0, 1))]), Context()
  )
  for row in rows:
    assert not any(k.startswith('scylla_ci_') for k in row.metadata)
