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

"""The plan report: data set, duration and cost estimates, warnings, text."""

import re

import pytest

from perfkit_plugins.core import cost
from perfkit_plugins.core import machines
from perfkit_plugins.core import plan
from perfkit_plugins.core import plan_report
from perfkit_plugins.core import settings as settings_lib
from perfkit_plugins.core import write_rates

_CS = '/opt/pkb/cassandra-stress/bin/cassandra-stress'
_DIR = '/tmp/pkb/scylla_phases'

# The c3.2xlarge study's parameters (configs/..._c3_2xlarge.yaml).
_C3_STUDY = dict(
    cloud='AWS',
    server_machine_type='c3.2xlarge',
    loader_machine_type='m4.2xlarge',
    loader_count=3,
    data_disk='network',
    phases=('populate', 'quiesce', 'read', 'latency', 'reads_during_writes'),
    num_keys=810774192,
    column_size=34,
    column_count=5,
    populate_threads=800,
    threads=400,
    medium_working_set_to_ram=4.22,
    latency_threads=800,
    rdw_write_rate=30000,
    rdw_writer_fraction=0.34,
    rdw_write_range_fraction=0.0123339,
    rdw_read_threads=20,
)
_Z3_STUDY = dict(
    server_machine_type='z3-highmem-88',
    loader_machine_type='c2-standard-30',
    loader_count=30,
    phases=('populate', 'quiesce', 'mixed', 'write_only', 'read_cache'),
)


def _Settings(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def _Machines(settings, local_ssds=0, server_price=None, loader_price=None):
  return plan_report.Machines(
      server_shape=machines.Shape(settings.server_machine_type),
      local_ssds=local_ssds,
      loader_shape=machines.Shape(settings.loader_machine_type),
      server_price=server_price,
      loader_price=loader_price,
  )


def _Plan(settings, shapes):
  return plan.PlanPhases(
      settings,
      plan_report.ServerPlaceholders(settings.server_count),
      plan_report.ClusterRamBytes(settings, shapes),
      _CS,
      _DIR,
  )


def _Report(settings, shapes):
  data_set = plan_report.DataSetOf(
      settings, plan_report.ClusterRamBytes(settings, shapes)
  )
  estimate = plan_report.Estimate(settings, _Plan(settings, shapes), shapes)
  return data_set, estimate


# ---------------------------------------------------------------------------
# Assumptions against the studies they come from.


def test_cassandra_populate_estimate_is_the_c3_study_populate_time():
  settings = _Settings(engine='cassandra', **_C3_STUDY)
  _, estimate = _Report(settings, _Machines(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  assert populate.basis == plan_report.BASIS_ESTIMATED
  # The study: 19,289 s for 810,774,192 partitions.
  assert populate.seconds == pytest.approx(19289, rel=0.001)
  assert '810,774,192 writes at 42,024 op/s' in populate.note


def test_scylla_populate_estimate_is_the_c3_study_populate_time():
  settings = _Settings(**_C3_STUDY)
  _, estimate = _Report(settings, _Machines(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  # The study: 16,039 s (4 h 27 min) for 810,774,192 partitions.
  assert populate.seconds == pytest.approx(16039, rel=0.001)
  assert '810,774,192 writes at 50,544 op/s (bound by the servers' in (
      populate.note
  )
  assert 'ScyllaDB 1.6.1 populated' in populate.note


def test_scylla_write_rate_is_the_z3_study_write_rate():
  settings = _Settings(**_Z3_STUDY)
  rate = plan_report.ExpectedWriteRate(settings, _Machines(settings))
  # The study: 2.23M write op/s on 3 x z3-highmem-88, with 900 loader
  # vCPUs that could drive more.
  assert rate.ops_per_second == pytest.approx(2.23e6, rel=0.001)
  assert rate.bound == write_rates.BOUND_SERVERS
  n2 = _Settings(**dict(_Z3_STUDY, server_machine_type='n2-highmem-96'))
  rate = plan_report.ExpectedWriteRate(n2, _Machines(n2))
  assert rate.ops_per_second == pytest.approx(1.97e6, rel=0.002)


def test_few_loaders_bound_the_populate_estimate():
  settings = _Settings(**dict(_Z3_STUDY, loader_count=2))
  _, estimate = _Report(settings, _Machines(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  # 2 x 30 loader vCPUs x 3,750 op/s.
  assert populate.note.startswith(
      '2,952,790,016 writes at 225,000 op/s (bound by the loaders 225,000'
      ' op/s: 60 loader vCPUs x 3,750 op/s'
  )
  assert populate.seconds == pytest.approx(2952790016 / 225000)


@pytest.mark.parametrize(
    'machine_type, shards, irq_vcpus',
    [
        ('z3-highmem-88', 80, 8),  # The Z3 study: 8 IRQ vCPUs, 80 shards.
        ('n2-highmem-96', 88, 8),
        ('c3.2xlarge', 7, 1),
        ('z3-highmem-176-standardlssd', 164, 12),
    ],
)
def test_predicted_shards_follow_the_reference_table(
    machine_type, shards, irq_vcpus
):
  layout = plan_report.PredictedShards(machines.Shape(machine_type))
  assert (layout.shards, layout.irq_vcpus) == (shards, irq_vcpus)


# ---------------------------------------------------------------------------
# Data set and working sets.


def test_data_set_of_the_c3_study():
  settings = _Settings(**_C3_STUDY)
  data_set, _ = _Report(settings, _Machines(settings))
  assert data_set.keys == 810774192
  assert data_set.unique_bytes == 810774192 * 170
  assert data_set.stored_bytes == 3 * 810774192 * 170
  assert data_set.per_node_bytes == 810774192 * 170
  assert data_set.cluster_ram_bytes == 3 * 15 * 2**30
  assert data_set.ram_ratio == pytest.approx(8.5577, abs=1e-4)


def test_working_sets_are_four_stdevs_capped_at_the_keys():
  settings = _Settings(**_C3_STUDY)
  data_set, _ = _Report(settings, _Machines(settings))
  sets = plan_report.WorkingSets(settings, data_set)
  assert sets['small'] == 4 * 10000
  # Medium stdev 99,952,732 (the study: 100M).
  assert sets['medium'] == 4 * 99952732
  assert sets['large'] == 810774192
  tiny = _Settings(**dict(_C3_STUDY, num_keys=30000))
  tiny_set, _ = _Report(tiny, _Machines(tiny))
  assert plan_report.WorkingSets(tiny, tiny_set)['small'] == 30000


def test_used_distributions_name_the_phases_using_them():
  settings = _Settings(
      phases=('read', 'reads_during_writes', 'mixed', 'read_cache'),
      mixed_distribution='large',
  )
  assert plan_report.UsedDistributions(settings) == {
      'small': ['read', 'read_cache'],
      'medium': ['read'],
      'large': ['read', 'reads_during_writes', 'mixed'],
  }


# ---------------------------------------------------------------------------
# Duration and cost.


def test_estimate_adds_fixed_and_estimated_steps_and_bounds_quiesce():
  settings = _Settings(**_C3_STUDY)
  shapes = _Machines(settings)
  steps = _Plan(settings, shapes)
  estimate = plan_report.Estimate(settings, steps, shapes)
  fixed = sum(s.expected_duration_s or 0 for s in steps)
  populate = 810774192 / (2106 * 24)
  # quiesce after populate, then one flush-and-quiesce between the 4 rates.
  assert estimate.quiesce_steps == 4
  assert estimate.known_s == pytest.approx(
      plan_report.SETUP_S + fixed + populate
  )
  assert estimate.min_s == pytest.approx(estimate.known_s + 4 * 180)
  assert estimate.max_s == pytest.approx(estimate.known_s + 4 * 86400)
  unknown = [e for e in estimate.steps if e.seconds is None]
  assert [e.name for e in unknown] == [
      'quiesce',
      'flush_quiesce_before_latency_10000',
      'flush_quiesce_before_latency_20000',
      'flush_quiesce_before_latency_30000',
  ]
  assert all(e.basis == plan_report.BASIS_UNKNOWN for e in unknown)


def test_cost_needs_every_price():
  settings = _Settings(
      **dict(
          _C3_STUDY,
          server_machine_type='i4i.2xlarge',
          loader_machine_type='c6i.2xlarge',
      )
  )
  unpriced = _Machines(settings, server_price=cost.LookUp('i4i.2xlarge'))
  _, estimate = _Report(settings, unpriced)
  assert estimate.usd_per_hour is None
  assert estimate.Usd(3600) is None
  priced = _Machines(
      settings,
      server_price=cost.LookUp('i4i.2xlarge'),
      loader_price=cost.LookUp('c6i.2xlarge'),
  )
  _, estimate = _Report(settings, priced)
  assert estimate.usd_per_hour == pytest.approx(3 * 0.686 + 3 * 0.34)
  assert estimate.Usd(7200) == pytest.approx(2 * (3 * 0.686 + 3 * 0.34))


# ---------------------------------------------------------------------------
# Warnings.


def _Warnings(settings, shapes=None):
  shapes = shapes or _Machines(settings)
  data_set, estimate = _Report(settings, shapes)
  return plan_report.Warnings(settings, shapes, data_set, estimate)


def _Priced(settings):
  return _Machines(
      settings,
      server_price=cost.Price(1.0, '', 'test', ''),
      loader_price=cost.Price(1.0, '', 'test', ''),
  )


def test_the_z3_study_setup_has_no_warning_once_priced():
  settings = _Settings(**_Z3_STUDY)
  assert _Warnings(settings, _Priced(settings)) == []


def test_too_few_loaders_for_the_server_type():
  settings = _Settings(**dict(_Z3_STUDY, loader_count=10))
  (warning,) = _Warnings(settings, _Priced(settings))
  assert warning.startswith('loaders: 10 x c2-standard-30 (300 vCPUs)')
  assert 'asks for 30' in warning
  assert '--scylla_loader_count' in warning


def test_very_large_but_possible_values_are_warned_about():
  settings = _Settings(
      **dict(_Z3_STUDY, loader_count=200, threads=4096, num_keys=2 * 10**11)
  )
  warnings = _Warnings(settings, _Priced(settings))
  assert [w.split(':')[0] for w in warnings] == [
      '--scylla_loader_count',
      '--scylla_threads',
      'keys',
  ]
  assert 'days to populate' in warnings[2]


def test_unknown_loader_shape_is_said():
  settings = _Settings(**dict(_Z3_STUDY, loader_machine_type='custom-loader'))
  (warning,) = _Warnings(settings, _Priced(settings))
  assert 'shape of custom-loader is unknown' in warning


def test_fixed_rates_above_the_expected_maximum():
  # Cassandra on 3 x c3.2xlarge: 1,751 x 24 = 42,024 op/s expected.
  settings = _Settings(
      engine='cassandra',
      **dict(
          _C3_STUDY,
          loader_count=11,
          latency_rates=(30000, 50000),
          rdw_write_rate=45000,
      ),
  )
  warnings = _Warnings(settings, _Priced(settings))
  assert len(warnings) == 2
  assert warnings[0].startswith(
      '--scylla_latency_rates: 50,000 op/s is above the expected maximum'
      ' write rate of the servers, 42,024 op/s (24 server vCPUs x 1,751'
  )
  assert warnings[1].startswith('--scylla_rdw_write_rate: 45,000 op/s')


def test_scylla_fixed_rate_above_the_c3_study_populate_rate():
  # ScyllaDB on 3 x c3.2xlarge populated at 50,544 op/s in the study.
  settings = _Settings(**dict(_C3_STUDY, loader_count=11))
  assert _Warnings(settings, _Priced(settings)) == []
  faster = _Settings(
      **dict(_C3_STUDY, loader_count=11, latency_rates=(30000, 60000))
  )
  (warning,) = _Warnings(faster, _Priced(faster))
  assert warning.startswith(
      '--scylla_latency_rates: 60,000 op/s is above the expected maximum'
      ' write rate of the servers, 50,544 op/s'
  )


def test_fixed_rate_above_what_its_writing_loaders_drive():
  # The c3 study's reads during writes: 30,000 op/s from one 8-vCPU
  # writer, the most a loader vCPU is known to drive; 40,000 is more.
  settings = _Settings(**dict(_C3_STUDY, rdw_write_rate=40000))
  warnings = _Warnings(settings, _Priced(settings))
  assert [w.split(':')[0] for w in warnings] == [
      'loaders',
      '--scylla_rdw_write_rate',
  ]
  assert warnings[1].startswith(
      '--scylla_rdw_write_rate: 40,000 op/s is more than its 1 writing'
      ' loader(s) are known to drive, 30,000 op/s (8 loader vCPUs x 3,750'
  )


def test_fixed_rate_beyond_what_the_threads_can_keep():
  settings = _Settings(**dict(_C3_STUDY, loader_count=11, latency_threads=2))
  warnings = _Warnings(settings, _Priced(settings))
  # 30,000 / 11 loaders = 2,728 > 2 x 1,000; each of the 4 writers of
  # reads during writes (11 loaders x 0.34) gets 7,500.
  assert [w.split(':')[0] for w in warnings] == [
      '--scylla_latency_rates',
      '--scylla_rdw_write_rate',
  ]
  assert '2,728 op/s per loader needs more than 2 threads' in warnings[0]
  assert '7,500 op/s per loader' in warnings[1]


def test_medium_and_large_reads_that_fit_in_ram():
  settings = _Settings(**dict(_C3_STUDY, loader_count=11, num_keys=20_000_000))
  warnings = _Warnings(settings, _Priced(settings))
  assert [w.split(':')[0] for w in warnings] == [
      'medium reads (read)',
      'large reads (read, reads_during_writes)',
  ]
  assert '--scylla_medium_working_set_to_ram' in warnings[0]
  assert '--scylla_medium_working_set_to_ram' not in warnings[1]


def test_reads_larger_than_ram_do_not_warn():
  settings = _Settings(**dict(_C3_STUDY, loader_count=11))
  assert _Warnings(settings, _Priced(settings)) == []


def test_missing_prices_name_their_flags():
  settings = _Settings(**_Z3_STUDY)
  shapes = _Machines(settings, server_price=cost.LookUp('z3-highmem-88'))
  (warning,) = _Warnings(settings, shapes)
  assert 'c2-standard-30 (give --scylla_loader_price_per_hour' in warning
  assert 'z3-highmem-88' not in warning


# ---------------------------------------------------------------------------
# Text.


def test_rendered_plan_lists_every_command_range_price_and_warning():
  settings = _Settings(**dict(_C3_STUDY, loader_count=3))
  shapes = _Machines(
      settings,
      server_price=cost.LookUp('x', override=0.42),
      loader_price=cost.LookUp('c6i.2xlarge'),
  )
  steps = _Plan(settings, shapes)
  text, estimate = plan_report.RenderPlan('title', settings, steps, shapes)
  for step in steps:
    assert f'{step.name} [{step.kind}' in text
    for run in step.runs:
      assert run.command in text
      assert f'keys {run.key_range}' in text
  assert '-node server0,server1,server2' in text
  assert 'data: one 1000 GB network disk per server' in text
  assert 'partitions: 810,774,192 of 170 B' in text
  assert 'stored / RAM: 8.56' in text
  assert 'nominal RAM' not in text  # --scylla_num_keys fixes the keys
  assert '3 x $0.420/h = $1.26/h (user override' in text
  assert (
      '3 x $0.340/h = $1.02/h (us-east-1, ScyllaDB test-suite instance catalog'
      in text
  )
  assert (
      f'cluster: $2.28/h; this run: about ${estimate.Usd(estimate.min_s):,.2f},'
      ' plus $2.28 per hour of quiesce'
      in text
  )
  assert 'Warnings\n  ! loaders: 3 x m4.2xlarge (24 vCPUs)' in text
  assert re.search(r'populate +4h 27m 21s  estimated: ', text)


def test_rendered_plan_of_local_ssds_and_shards():
  settings = _Settings(**_Z3_STUDY)
  shapes = _Machines(settings, local_ssds=12)
  text, _ = plan_report.RenderPlan(
      't', settings, _Plan(settings, shapes), shapes
  )
  assert (
      'data: 12 local SSDs per server in one RAID0, built by scylla_raid_setup'
      in text
  )
  assert 'shards per server (perftune rule, predicted): 80; IRQ vCPUs: 8' in (
      text
  )
  assert "(partitions from the machine type's nominal RAM;" in text
  assert 'cluster: unknown (a price is missing)' in text
  assert 'Warnings\n  ! cost: no price for z3-highmem-88' in text


def test_totals_add_runs_and_stay_unknown_without_a_price():
  settings = _Settings(**_Z3_STUDY)
  priced = _Report(settings, _Priced(settings))[1]
  unpriced = _Report(settings, _Machines(settings))[1]
  text = plan_report.RenderTotals([('a', priced), ('b', priced)])
  assert f'about ${2 * priced.Usd(priced.min_s):,.2f}' in text
  assert plan_report.FormatDuration(2 * priced.min_s) in text
  text = plan_report.RenderTotals([('a', priced), ('b', unpriced)])
  assert 'b: ' in text and 'total: ' in text
  assert text.splitlines()[-1].count('cost unknown') == 1


@pytest.mark.parametrize(
    'seconds, text',
    [
        (0, '0s'),
        (59.6, '1m 00s'),
        (65, '1m 05s'),
        (3725, '1h 02m 05s'),
        (90000, '25h 00m 00s'),
    ],
)
def test_format_duration(seconds, text):
  assert plan_report.FormatDuration(seconds) == text


@pytest.mark.parametrize(
    'count, text',
    [
        (170, '170 B'),
        (1536, '1.5 KiB'),
        (3 * 15 * 2**30, '45 GiB'),
        (810774192 * 170, '128 GiB'),
        (250 * 2**40, '250 TiB'),
    ],
)
def test_format_bytes(count, text):
  assert plan_report.FormatBytes(count) == text
