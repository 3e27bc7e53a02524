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

"""The planned data set and the reads' working sets against RAM."""

import pytest

from perfkit_plugins.core.plan import plan_data_set
from perfkit_plugins.testing import planned_runs


def test_data_set_of_the_c3_study():
  settings = planned_runs.Settings(**planned_runs.C3_STUDY)
  data_set, _ = planned_runs.Report(settings, planned_runs.MachinesOf(settings))
  assert data_set.keys == 810774192
  assert data_set.unique_bytes == 810774192 * 170
  assert data_set.stored_bytes == 3 * 810774192 * 170
  assert data_set.per_node_bytes == 810774192 * 170
  assert data_set.cluster_ram_bytes == 3 * 15 * 2**30
  assert data_set.ram_ratio == pytest.approx(8.5577, abs=1e-4)


def test_working_sets_are_four_stdevs_capped_at_the_keys():
  settings = planned_runs.Settings(**planned_runs.C3_STUDY)
  data_set, _ = planned_runs.Report(settings, planned_runs.MachinesOf(settings))
  sets = plan_data_set.WorkingSets(settings, data_set)
  assert sets['small'] == 4 * 10000
  # Medium stdev 99,952,732 (the study: 100M).
  assert sets['medium'] == 4 * 99952732
  assert sets['large'] == 810774192
  tiny = planned_runs.Settings(**dict(planned_runs.C3_STUDY, num_keys=30000))
  tiny_set, _ = planned_runs.Report(tiny, planned_runs.MachinesOf(tiny))
  assert plan_data_set.WorkingSets(tiny, tiny_set)['small'] == 30000


def test_used_distributions_name_the_phases_using_them():
  settings = planned_runs.Settings(
      phases=('read', 'reads_during_writes', 'mixed', 'read_cache'),
      mixed_distribution='large',
  )
  assert plan_data_set.UsedDistributions(settings) == {
      'small': ['read', 'read_cache'],
      'medium': ['read'],
      'large': ['read', 'reads_during_writes', 'mixed'],
  }
