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

"""Duration and cost of a plan, against the studies they come from."""

import pytest

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.plan import plan_estimates
from perfkit_plugins.core.plan import write_rates
from perfkit_plugins.testing import planned_runs


def test_cassandra_populate_estimate_is_the_c3_study_populate_time():
  settings = planned_runs.Settings(engine='cassandra', **planned_runs.C3_STUDY)
  _, estimate = planned_runs.Report(settings, planned_runs.MachinesOf(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  assert populate.basis == plan_estimates.BASIS_ESTIMATED
  # The study: 19,289 s for 810,774,192 partitions.
  assert populate.seconds == pytest.approx(19289, rel=0.001)
  assert '810,774,192 writes at 42,024 op/s' in populate.note


def test_scylla_populate_estimate_is_the_c3_study_populate_time():
  settings = planned_runs.Settings(**planned_runs.C3_STUDY)
  _, estimate = planned_runs.Report(settings, planned_runs.MachinesOf(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  # The study: 16,039 s (4 h 27 min) for 810,774,192 partitions.
  assert populate.seconds == pytest.approx(16039, rel=0.001)
  assert '810,774,192 writes at 50,544 op/s (bound by the servers' in (
      populate.note
  )
  assert 'ScyllaDB 1.6.1 populated' in populate.note


def test_scylla_write_rate_is_the_z3_study_write_rate():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  rate = plan_estimates.ExpectedWriteRate(
      settings, planned_runs.MachinesOf(settings)
  )
  # The study: 2.23M write op/s on 3 x z3-highmem-88, with 900 loader
  # vCPUs that could drive more.
  assert rate.ops_per_second == pytest.approx(2.23e6, rel=0.001)
  assert rate.bound == write_rates.BOUND_SERVERS
  n2 = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, server_machine_type='n2-highmem-96')
  )
  rate = plan_estimates.ExpectedWriteRate(n2, planned_runs.MachinesOf(n2))
  assert rate.ops_per_second == pytest.approx(1.97e6, rel=0.002)


def test_few_loaders_bound_the_populate_estimate():
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, loader_count=2)
  )
  _, estimate = planned_runs.Report(settings, planned_runs.MachinesOf(settings))
  (populate,) = [e for e in estimate.steps if e.name == 'populate']
  # 2 x 30 loader vCPUs x 3,750 op/s.
  assert populate.note.startswith(
      '2,952,790,016 writes at 225,000 op/s (bound by the loaders 225,000'
      ' op/s: 60 loader vCPUs x 3,750 op/s'
  )
  assert populate.seconds == pytest.approx(2952790016 / 225000)


def test_estimate_adds_fixed_and_estimated_steps_and_bounds_quiesce():
  settings = planned_runs.Settings(**planned_runs.C3_STUDY)
  shapes = planned_runs.MachinesOf(settings)
  steps = planned_runs.PlanOf(settings, shapes)
  estimate = plan_estimates.Estimate(settings, steps, shapes)
  fixed = sum(s.expected_duration_s or 0 for s in steps)
  populate = 810774192 / (2106 * 24)
  # quiesce after populate, then one flush-and-quiesce between the 4 rates.
  assert estimate.quiesce_steps == 4
  assert estimate.known_s == pytest.approx(
      plan_estimates.SETUP_S + fixed + populate
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
  assert all(e.basis == plan_estimates.BASIS_UNKNOWN for e in unknown)


def test_cost_needs_every_price():
  settings = planned_runs.Settings(
      **dict(
          planned_runs.C3_STUDY,
          server_machine_type='i4i.2xlarge',
          loader_machine_type='c6i.2xlarge',
      )
  )
  unpriced = planned_runs.MachinesOf(
      settings, server_price=cost.LookUp('i4i.2xlarge')
  )
  _, estimate = planned_runs.Report(settings, unpriced)
  assert estimate.usd_per_hour is None
  assert estimate.Usd(3600) is None
  priced = planned_runs.MachinesOf(
      settings,
      server_price=cost.LookUp('i4i.2xlarge'),
      loader_price=cost.LookUp('c6i.2xlarge'),
  )
  _, estimate = planned_runs.Report(settings, priced)
  assert estimate.usd_per_hour == pytest.approx(3 * 0.686 + 3 * 0.34)
  assert estimate.Usd(7200) == pytest.approx(2 * (3 * 0.686 + 3 * 0.34))
