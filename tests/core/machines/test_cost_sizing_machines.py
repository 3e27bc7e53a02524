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

"""Tests of prices, loader sizing and machine shapes."""

import dataclasses

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import sizing


def test_table_price_carries_source_and_date():
  price = cost.LookUp('z3-highmem-88')
  assert price.usd_per_hour == 13.0
  assert price.date == '2026-05'
  assert 'catalog' in price.source


def test_override_wins_and_says_so():
  price = cost.LookUp('z3-highmem-88', override=9.5, as_of='2026-11-23')
  assert price.usd_per_hour == 9.5
  assert price.source == cost.USER_SOURCE
  assert price.date == '2026-11-23'


def test_unknown_price_is_none_not_zero():
  assert cost.LookUp('c3.2xlarge') is None
  assert cost.RunCost(1.0, [(3, None)]) is None


def test_per_dollar_figures_invert_each_other():
  # The Z3 study's 2.23M write op/s on 3 x 13 $/h.
  per_dollar = cost.OpsPerDollar(2.23e6, 39.0)
  assert per_dollar == pytest.approx(2.23e6 * 3600 / 39.0)
  assert cost.DollarsPerMillionOps(2.23e6, 39.0) == pytest.approx(
      1e6 / per_dollar
  )


def test_run_cost_adds_servers_and_loaders():
  servers = cost.LookUp('z3-highmem-88')
  loaders = cost.LookUp('c6i.2xlarge')
  assert cost.RunCost(2.0, [(3, servers), (4, loaders)]) == pytest.approx(
      2.0 * (3 * 13.0 + 4 * 0.34)
  )


@pytest.mark.parametrize(
    'machine_type,vcpus,memory,numa',
    [
        ('z3-highmem-88', 88, 704, 2),
        ('n2-highmem-96', 96, 768, 2),
        ('n2-highcpu-32', 32, 32, None),
        ('n2-standard-8', 8, 32, None),
        ('c3.2xlarge', 8, 15, 1),
        ('i4i.4xlarge', 16, 128, None),
        ('i4i.large', 2, 16, None),
        ('c4d-highmem-8-lssd', 8, 63, None),
        ('z3-highmem-192-highlssd-metal', 192, 1536, None),
        ('n2-custom-8-16384', 8, 16, None),
    ],
)
def test_shapes(machine_type, vcpus, memory, numa):
  shape = machines.Shape(machine_type)
  assert (shape.vcpus, shape.memory_gib, shape.numa_nodes) == (
      vcpus,
      memory,
      numa,
  )
  assert shape.source


@pytest.mark.parametrize(
    'machine_type,memory',
    [
        # Issue 21: each was read from its name as 128, 128, 22, 32 and 144.
        ('n1-highmem-16', 104),
        ('n1-standard-32', 120),
        ('c3-highcpu-22', 44),
        ('c2d-highcpu-32', 64),
        ('c3d-highcpu-30', 59),
        ('n2-highmem-128', 864),
        ('c4-standard-48-lssd', 180),
    ],
)
def test_memory_is_the_tables_never_a_guess_from_the_name(machine_type, memory):
  assert machines.Shape(machine_type).memory_gib == memory


@pytest.mark.parametrize(
    'machine_type,vcpus',
    [
        ('c5n.18xlarge', 72),
        ('c6i.8xlarge', 32),
        ('i8g.large', 2),
        ('m7gd.xlarge', 4),
        ('c4-standard-64-lssd', 64),
    ],
)
def test_a_type_without_a_memory_entry_has_vcpus_and_no_memory(
    machine_type, vcpus
):
  shape = machines.PlanShape(machine_type)
  assert (shape.vcpus, shape.memory_gib) == (vcpus, None)
  assert machines.Shape(machine_type) is None
  assert machines.Vcpus(machine_type) == vcpus


@pytest.mark.parametrize(
    'machine_type',
    # Sizes whose vCPUs differ between families or are not in the name.
    ['t3.medium', 'c1.medium', 'i3.metal', 'hpc6a.48xlarge', 'a2-highgpu-1g'],
)
def test_vcpus_are_unknown_where_the_name_does_not_say(machine_type):
  assert machines.Vcpus(machine_type) is None
  assert machines.PlanShape(machine_type) is None


def test_planned_ram_is_the_tables_and_metadata_says_both():
  assert machines.PlannedClusterRamBytes('n1-highmem-16', 3) == 3 * 104 * 2**30
  assert machines.PlannedClusterRamBytes('c6i.8xlarge', 3) is None
  assert machines.RamMetadata(100, 120) == {
      'scylla_cluster_ram_bytes': 100,
      'scylla_cluster_ram_planned_bytes': 120,
  }
  assert machines.RamMetadata(100, 100) == {'scylla_cluster_ram_bytes': 100}
  assert machines.RamMetadata(100, None) == {'scylla_cluster_ram_bytes': 100}


def test_loader_count_matches_z3_study_scale():
  # 3 x 88 server vCPUs need about 900 loader vCPUs (30 x 30 in the study).
  assert sizing.LoaderCount(3, 88, 30) == 30
  assert sizing.LoaderCount(3, 88, 32) == 29
  assert sizing.LoaderCount(1, 2, 64) == 1


def test_own_machines_are_priced_only_by_the_user():
  # Labelled like a type in the table, static VMs still get no table price.
  labelled = settings_lib.Settings(
      servers_static=True,
      loaders_static=True,
      server_machine_type='z3-highmem-88',
      loader_machine_type='c6i.2xlarge',
  )
  assert cost.ServerPrice(labelled, '2026-11-24') is None
  assert cost.LoaderPrice(labelled, '2026-11-24') is None
  given = dataclasses.replace(labelled, server_price_per_hour=2.5)
  price = cost.ServerPrice(given, '2026-11-24')
  assert (price.usd_per_hour, price.source, price.date) == (
      2.5,
      cost.USER_SOURCE,
      '2026-11-24',
  )
  cloud = dataclasses.replace(labelled, servers_static=False)
  assert cost.ServerPrice(cloud, '2026-11-24').usd_per_hour == 13.0
