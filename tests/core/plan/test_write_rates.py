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

"""Expected write rates: the reference closest to the planned machines."""

import pytest

from perfkit_plugins.core.plan import write_rates


@pytest.mark.parametrize(
    'machine_type, family',
    [
        ('z3-highmem-88', 'z3'),
        ('z3-highmem-176-standardlssd', 'z3'),
        ('n2-highmem-96', 'n2'),
        ('c3.2xlarge', 'c3'),
        ('i4i.metal', 'i4i'),
        ('Standard_L8s_v3', 'standard_l8s_v3'),
    ],
)
def test_machine_family_is_the_name_before_its_first_separator(
    machine_type, family
):
  assert write_rates.MachineFamily(machine_type) == family


def test_servers_of_a_measured_family_get_its_figure():
  rate = write_rates.ExpectedWriteRate('scylla', 'z3-highmem-88', 264)
  assert rate.server_bound == 264 * 8450
  assert rate.loader_bound is None
  assert rate.ops_per_second == rate.server_bound
  assert rate.server_note == (
      '264 server vCPUs x 8,450 op/s (Z3 study: ScyllaDB wrote 2.23M op/s on'
      ' 3 x z3-highmem-88 (264 vCPUs))'
  )


@pytest.mark.parametrize(
    'engine, figure, family',
    [('scylla', 6850, 'n2'), ('cassandra', 1751, 'c3')],
)
def test_unmeasured_family_gets_the_engines_fallback_and_says_so(
    engine, figure, family
):
  rate = write_rates.ExpectedWriteRate(engine, 'i4i.2xlarge', 24)
  assert rate.server_bound == 24 * figure
  assert f'no measurement on i4i, the {family} figure: ' in rate.server_note


def test_the_lower_bound_is_the_rate():
  many = write_rates.ExpectedWriteRate('scylla', 'c3.2xlarge', 24, 24)
  assert (many.server_bound, many.loader_bound) == (24 * 2106, 24 * 3750)
  assert many.bound == write_rates.BOUND_SERVERS
  assert many.ops_per_second == 24 * 2106
  few = write_rates.ExpectedWriteRate('scylla', 'z3-highmem-88', 264, 60)
  assert few.bound == write_rates.BOUND_LOADERS
  assert few.ops_per_second == 60 * 3750
  assert few.loader_note.startswith('60 loader vCPUs x 3,750 op/s (c3.2xlarge')


def test_references_reproduce_the_studies_figures():
  # The Z3 study's table gives 8.45K and 6.85K per vCPU, its totals 2.23M
  # and 1.97M (rounded); the c3 figures are populate rates over 24 vCPUs.
  refs = write_rates.SERVER_REFERENCES
  assert refs[('scylla', 'z3')].ops_per_vcpu * 264 == pytest.approx(
      2.23e6, rel=0.002
  )
  assert refs[('scylla', 'n2')].ops_per_vcpu * 288 == pytest.approx(
      1.97e6, rel=0.002
  )
  assert refs[('scylla', 'c3')].ops_per_vcpu == round(810774192 / 16039 / 24)
  assert refs[('cassandra', 'c3')].ops_per_vcpu == round(810774192 / 19289 / 24)
  assert write_rates.LOADER_REFERENCE.ops_per_vcpu == 30000 / 8
