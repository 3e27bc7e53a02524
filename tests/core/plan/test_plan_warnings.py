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

"""The plan's warnings: each known trap found, naming its flag."""

import dataclasses

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import plan_warnings
from perfkit_plugins.testing import planned_runs


def _Warnings(settings, shapes=None):
  shapes = shapes or planned_runs.MachinesOf(settings)
  data_set, estimate = planned_runs.Report(settings, shapes)
  return plan_warnings.Warnings(settings, shapes, data_set, estimate)


def _C3Warnings(settings):
  """The c3.2xlarge study's warnings but the EBS path's (tested on its own)."""
  return [
      w
      for w in _Warnings(settings, planned_runs.Priced(settings))
      if not w.startswith('data disk:')
  ]


def test_the_z3_study_setup_has_no_warning_once_priced():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  assert _Warnings(settings, planned_runs.Priced(settings)) == []


def test_too_few_loaders_for_the_server_type():
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, loader_count=10)
  )
  (warning,) = _Warnings(settings, planned_runs.Priced(settings))
  assert warning.startswith('loaders: 10 x c2-standard-30 (300 vCPUs)')
  assert 'asks for 30' in warning
  assert '--scylla_loader_count' in warning


def test_very_large_but_possible_values_are_warned_about():
  settings = planned_runs.Settings(
      **dict(
          planned_runs.Z3_STUDY,
          loader_count=200,
          threads=4096,
          num_keys=2 * 10**11,
      )
  )
  warnings = _Warnings(settings, planned_runs.Priced(settings))
  assert [w.split(':')[0] for w in warnings] == [
      '--scylla_loader_count',
      '--scylla_threads',
      'keys',
  ]
  assert 'days to populate' in warnings[2]


def test_unknown_loader_shape_is_said():
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, loader_machine_type='custom-loader')
  )
  (warning,) = _Warnings(settings, planned_runs.Priced(settings))
  assert 'shape of custom-loader is unknown' in warning


def test_fixed_rates_above_the_expected_maximum():
  # Cassandra on 3 x c3.2xlarge: 1,751 x 24 = 42,024 op/s expected.
  settings = planned_runs.Settings(
      engine='cassandra',
      **dict(
          planned_runs.C3_STUDY,
          loader_count=11,
          latency_rates=(30000, 50000),
          rdw_write_rate=45000,
      ),
  )
  warnings = _C3Warnings(settings)
  assert len(warnings) == 2
  assert warnings[0].startswith(
      '--scylla_latency_rates: 50,000 op/s is above the expected maximum'
      ' write rate of the servers, 42,024 op/s (24 server vCPUs x 1,751'
  )
  assert warnings[1].startswith('--scylla_rdw_write_rate: 45,000 op/s')


def test_scylla_fixed_rate_above_the_c3_study_populate_rate():
  # ScyllaDB on 3 x c3.2xlarge populated at 50,544 op/s in the study.
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=11)
  )
  assert _C3Warnings(settings) == []
  faster = planned_runs.Settings(
      **dict(
          planned_runs.C3_STUDY, loader_count=11, latency_rates=(30000, 60000)
      )
  )
  (warning,) = _C3Warnings(faster)
  assert warning.startswith(
      '--scylla_latency_rates: 60,000 op/s is above the expected maximum'
      ' write rate of the servers, 50,544 op/s'
  )


def test_fixed_rate_above_what_its_writing_loaders_drive():
  # The c3 study's reads during writes: 30,000 op/s from one 8-vCPU
  # writer, the most a loader vCPU is known to drive; 40,000 is more.
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, rdw_write_rate=40000)
  )
  warnings = _C3Warnings(settings)
  assert [w.split(':')[0] for w in warnings] == [
      'loaders',
      '--scylla_rdw_write_rate',
  ]
  assert warnings[1].startswith(
      '--scylla_rdw_write_rate: 40,000 op/s is more than its 1 writing'
      ' loader(s) are known to drive, 30,000 op/s (8 loader vCPUs x 3,750'
  )


def test_fixed_rate_beyond_what_the_threads_can_keep():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=11, latency_threads=2)
  )
  warnings = _C3Warnings(settings)
  # 30,000 / 11 loaders = 2,728 > 2 x 1,000; each of the 4 writers of
  # reads during writes (11 loaders x 0.34) gets 7,500.
  assert [w.split(':')[0] for w in warnings] == [
      '--scylla_latency_rates',
      '--scylla_rdw_write_rate',
  ]
  assert '2,728 op/s per loader needs more than 2 threads' in warnings[0]
  assert '7,500 op/s per loader' in warnings[1]


def test_medium_and_large_reads_that_fit_in_ram():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=11, num_keys=20_000_000)
  )
  warnings = _C3Warnings(settings)
  assert [w.split(':')[0] for w in warnings] == [
      'medium reads (read)',
      'large reads (read, reads_during_writes)',
  ]
  assert '--scylla_medium_working_set_to_ram' in warnings[0]
  assert '--scylla_medium_working_set_to_ram' not in warnings[1]


def test_reads_larger_than_ram_do_not_warn():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=11)
  )
  assert _C3Warnings(settings) == []


def test_missing_prices_name_their_flags():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  shapes = planned_runs.MachinesOf(
      settings, server_price=cost.LookUp('z3-highmem-88')
  )
  (warning,) = _Warnings(settings, shapes)
  assert 'c2-standard-30 (give --scylla_loader_price_per_hour' in warning
  assert 'z3-highmem-88' not in warning


def test_the_c3_study_disk_is_more_than_its_ebs_path_carries():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=11)
  )
  shapes = dataclasses.replace(
      planned_runs.Priced(settings), disk_iops=10000, disk_mib_s=160
  )
  (warning,) = _Warnings(settings, shapes)
  assert warning.startswith(
      'data disk: c3.2xlarge reaches EBS at most 8,000 IOPS (16 KiB) and 125'
      ' MB/s'
  )
  assert 'below the 10,000 IOPS and 160 MiB/s provisioned' in warning
  assert 'not by default and PKB does not ask for' in warning
  assert "measure the instance's path to EBS, not the volume" in warning


def _Z3(machine_type, local_ssds, **changes):
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, server_machine_type=machine_type, **changes)
  )
  shapes = dataclasses.replace(
      planned_runs.Priced(settings), local_ssds=local_ssds
  )
  return _Warnings(settings, shapes)


def test_long_runs_on_z3_above_18_tib_warn_of_maintenance():
  (warning,) = _Z3('z3-highmem-88', 12)
  assert warning.startswith(
      'maintenance: z3-highmem-88 has 36,000 GiB of local SSD, more than the'
      ' 18 TiB up to which Z3 VMs live-migrate at host maintenance'
  )
  assert '--no-restart-on-failure unless --gce_automatic_restart' in warning
  # At most 18 TiB live-migrates; a short run is not warned of.
  assert not _Z3('z3-highmem-88-standardlssd', 6)
  assert not _Z3(
      'z3-highmem-88',
      12,
      phases=('write_only',),
      write_only_duration_s=60,
  )


def test_a_server_type_without_memory_figure_says_the_plan_uses_a_stand_in():
  # In PKB's local SSD table, not on GCP's machine type page.
  server_type = 'c4-standard-64-lssd'
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, server_machine_type=server_type)
  )
  shapes = dataclasses.replace(
      planned_runs.Priced(settings),
      server_shape=machines.PlanShape(server_type),
  )
  (warning,) = _Warnings(settings, shapes)
  assert warning.startswith(f'memory: no figure for {server_type}')


def test_a_run_longer_than_pkbs_timeout_minutes_is_warned_of():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  shapes = planned_runs.Priced(settings)
  data_set, estimate = planned_runs.Report(settings, shapes)

  def Timeout(minutes):
    return [
        w
        for w in plan_warnings.Warnings(
            settings, shapes, data_set, estimate, minutes
        )
        if w.startswith('timeout:')
    ]

  # PKB's default, 240 minutes: the study's run outlives it.
  (warning,) = Timeout(240)
  assert 'longer than --timeout_minutes=240, the deadline PKB tags' in warning
  given = -(-estimate.max_s // 60) + 60
  assert warning.endswith(
      f'give --timeout_minutes={given:.0f} (the run and an hour for'
      ' provisioning and teardown)'
  )
  assert ('takes at least' in warning) == (estimate.min_s > 240 * 60)
  assert not Timeout(given)
  assert not Timeout(None)
