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

"""Tests of the checks that refuse bad input before provisioning.

core/software/releases.py, core/config/config_shape.py,
core/config/settings_limits.py and machines.TypeProblem on their own, without
PKB; the catalogue of bad inputs (tests/shell/test_bad_inputs_pkb.py) takes
each through pkb.py's path.
"""

import pytest

from perfkit_plugins.core.config import config_shape
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.software import artifacts
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import releases
from perfkit_plugins.core.software import scylla_config


def test_the_release_tables_hold_the_defaults_and_every_pinned_version():
  defaults = settings_lib.Settings()
  releases.CheckScylla(defaults.release)
  releases.CheckCassandra(defaults.cassandra_version)
  releases.CheckScyllaStress(defaults.stress_release)
  for version in artifacts.PINNED_SHA512:
    releases.CheckCassandra(version)
  assert set(releases.CASSANDRA_LATEST_PATCH) == set(cassandra_config.SERIES)


@pytest.mark.parametrize(
    'check,value',
    [
        (releases.CheckScylla, '9999.99'),
        (releases.CheckScylla, '2019.1.3'),
        (releases.CheckCassandra, '5.0.99'),
        (releases.CheckCassandra, '3.11.17'),
        (releases.CheckScyllaStress, '3.99.0'),
    ],
)
def test_an_unknown_release_names_the_override(check, value):
  with pytest.raises(ValueError, match='--scylla_allow_unknown_releases'):
    check(value)


def test_unknown_releases_pass_with_the_override():
  settings_lib.Validate(
      settings_lib.Settings(release='2027.1', allow_unknown_releases=True)
  )


@pytest.mark.parametrize(
    'user_config,key',
    [
        ({'vm_groups': ['servers']}, 'vm_groups'),
        ({'vm_groups': {'servers': {'vm_count': 'three'}}}, 'servers.vm_count'),
        ({'vm_groups': {'servers': {'vm_count': 0}}}, 'servers.vm_count'),
        ({'vm_groups': {'loaders': {'vm_count': True}}}, 'loaders.vm_count'),
        ({'vm_groups': {'servers': {'cloud': 'Azure'}}}, 'servers.cloud'),
        (
            {
                'vm_groups': {
                    'servers': {'vm_spec': {'GCP': {'machine_type': 1}}}
                }
            },
            'servers.vm_spec.GCP.machine_type',
        ),
        ({'vm_groups': {'extra': {}}}, 'vm_groups.extra'),
        (
            {'vm_groups': {'servers': {'disk_spec': {'GCP': {}}}}},
            'servers.disk_spec',
        ),
        ({'vm_groups': {'loaders': {'static_vms': 'a'}}}, 'loaders.static_vms'),
    ],
)
def test_config_shapes_name_their_key(user_config, key):
  with pytest.raises(config_shape.ConfigError, match=f'config key .*{key}:'):
    config_shape.Check(user_config)


def test_good_config_shapes_pass():
  config_shape.Check(None)
  config_shape.Check({
      'vm_groups': {
          'servers': {'vm_count': 3, 'cloud': 'AWS'},
          'loaders': {'vm_count': None, 'static_vms': [{'ip_address': 'a'}]},
      }
  })
  assert config_shape.CloudProblem('GCP') is None
  assert 'Azure' in config_shape.CloudProblem('Azure')


@pytest.mark.parametrize(
    'machine_type,cloud,problem',
    [
        ('z3-highmem-88', 'GCP', None),
        ('n2-custom-8-32768', 'GCP', None),
        ('i4i.metal', 'AWS', None),
        ('n2-typo-16', 'GCP', "unknown machine type 'n2-typo-16' on GCP"),
        ('z3-highmem-88', 'AWS', 'on AWS (it names a machine type of GCP)'),
        ('i4i.4xlarge', 'GCP', 'on GCP (it names a machine type of AWS)'),
        ('z3-highmem-88\n', 'GCP', 'unknown machine type'),
    ],
)
def test_machine_types_are_checked_against_the_cloud(
    machine_type, cloud, problem
):
  found = machines.TypeProblem(machine_type, cloud)
  assert (found is None) == (problem is None), found
  if problem:
    assert problem in found


def _Problem(**changes):
  return settings_limits.FirstProblem(
      settings_lib.Settings(**changes), settings_lib.Settings()
  )


@pytest.mark.parametrize(
    'changes,field',
    [
        (dict(data_to_ram_ratio=float('nan')), 'data_to_ram_ratio'),
        (dict(loader_price_per_hour=float('inf')), 'loader_price_per_hour'),
        (dict(loader_count=1001), 'loader_count'),
        (dict(populate_threads=10001), 'populate_threads'),
        (dict(column_size=2**20, column_count=17), 'column_size'),
        (
            dict(consistency_level='TWO', replication_factor=1),
            'consistency_level',
        ),
        (
            dict(
                engine='cassandra',
                compaction_strategy='IncrementalCompactionStrategy',
            ),
            'compaction_strategy',
        ),
        (dict(quiesce_settle_s=60, quiesce_timeout_s=60), 'quiesce_settle_s'),
        (
            dict(
                phases=('populate', 'mixed'),
                mixed_duration_s=5,
                hdr_interval_s=6,
            ),
            'hdr_interval_s',
        ),
        (dict(num_keys=5, data_set_bytes=5), 'data_set_bytes'),
        (dict(engine='cassandra', io_setup='iotune'), 'io_setup'),
        (dict(cassandra_gc='G1'), 'cassandra_gc'),
        (
            dict(stress_tool='apache', stress_url='http://m/{version}'),
            'stress_url',
        ),
        (dict(num_keys=5, data_to_ram_ratio=2.0), 'data_to_ram_ratio'),
    ],
)
def test_limits_and_combinations_name_their_field(changes, field):
  problem = _Problem(**changes)
  assert problem and problem[0] == field, problem


def test_the_defaults_and_whole_engine_settings_pass():
  assert _Problem() is None
  assert (
      _Problem(engine='cassandra', cassandra_gc='G1', io_setup='reuse') is None
  )
  # A heap below the machine's RAM; the phases without quiesce ignore its
  # settle time.
  assert _Problem(engine='cassandra', cassandra_heap_gb=31) is None
  assert _Problem(phases=('populate',), quiesce_settle_s=10**5) is None


def test_yaml_extra_refuses_aliases_reserved_keys_and_documents():
  for text, message in (
      ('a: &x 1\nb: *x', 'aliases'),
      ('storage_port: 7001', 'must stay as ScyllaDB sets it'),
      ('x: ' + 'y' * scylla_config.YAML_EXTRA_MAX_CHARS, 'characters'),
  ):
    with pytest.raises(ValueError, match=message):
      scylla_config.ParseYamlExtra(text)
  assert scylla_config.ParseYamlExtra('enable_cache: false') == {
      'enable_cache': False
  }
