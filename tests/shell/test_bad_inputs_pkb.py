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

"""The catalogue of bad inputs: each is refused before provisioning.

One table, one row per bad input a user can give (a flag, a combination of
flags, a benchmark config file; GCP and AWS), with the flag or config key
its message must name. Every row goes through the two paths a user takes,
in one process (PKB's import takes seconds):

* stock pkb.py's: `pkb.ParseArgs` then `pkb._CreateBenchmarkSpecs` (flag
  parsing, GetConfig, PKB's config decoding, CheckPrerequisites), which is
  everything pkb.py does before it provisions;
* `scylla-phases-plan`'s `Main`.

A row passes when both refuse it, neither with a raw Python exception, and
both messages name the row's flag or key. A few good inputs run through the
same harness, so it cannot pass by refusing everything. Every new flag gets
a row (test_every_flag_has_a_row).
"""

import json
import os
import subprocess
import sys

import pytest

from perfkit_plugins.shell import scylla_phases_flags
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb


def _Flag(name, value):
  """A row: one bad value of one flag; its message names the flag."""
  return {'args': [f'--{name}={value}'], 'config': None, 'named': f'--{name}'}


def _Flags(*args, named):
  """A row: flags that are bad together."""
  return {'args': list(args), 'config': None, 'named': named}


def _Config(text, *args, named):
  """A row: a benchmark config file (the scylla_phases section), and flags."""
  return {'args': list(args), 'config': text, 'named': named}


def _Groups(text):
  """A config whose vm_groups are `text` (indented by the caller)."""
  return 'scylla_phases:\n  vm_groups:\n' + text


def _Retired(name):
  """A row: a flag of an earlier release; its message names the new one."""
  return {
      'args': [f'--{name}=60'],
      'config': None,
      'named': '--scylla_durations',
  }


CATALOGUE = (
    # Retired flags, each refused naming the one that replaced it.
    *(_Retired(holder.name) for holder in scylla_phases_flags.RETIRED),
    _Config(
        'scylla_phases:\n  flags:\n    scylla_read_duration_s: 60\n',
        named='--scylla_durations',
    ),
    # One bad value per flag.
    _Flag('scylla_engine', 'mongodb'),
    _Flag('scylla_release', '2025.x'),
    _Flag('scylla_cassandra_version', '5.0'),
    _Flag('scylla_allow_unknown_releases', 'perhaps'),
    _Flag('scylla_server_machine_type', 'no-such-type-8'),
    _Flag('scylla_server_count', '0'),
    _Flag('scylla_data_disk', 'tape'),
    _Flag('scylla_network_disk_gb', '1'),
    _Flag('scylla_tablets', 'maybe'),
    _Flag('scylla_loader_machine_type', 'no-such-type-8'),
    _Flag('scylla_loader_count', '-1'),
    _Flag('scylla_stress_tool', 'ycsb'),
    _Flag('scylla_stress_release', 'latest'),
    _Flag('scylla_threads', '0'),
    _Flag('scylla_populate_threads', '0'),
    _Flag('scylla_loader_cpu_threshold', '150'),
    _Flag('scylla_loader_saturation_action', 'ignore'),
    _Flag('scylla_loader_gc', 'shenandoah'),
    _Flag('scylla_loader_heap_gb', '-1'),
    # Apache's cassandra-stress of Cassandra 4.1 runs on Java 11 only.
    _Flags(
        '--scylla_loader_gc=zgc',
        '--scylla_stress_tool=apache',
        '--scylla_cassandra_version=4.1.10',
        named='--scylla_loader_gc',
    ),
    _Flag('scylla_phases', 'populate,warp'),
    _Flag('scylla_keyspace', 'bad;name'),
    _Flag('scylla_replication_factor', '5'),
    _Flag('scylla_consistency_level', 'SOME'),
    _Flag('scylla_compaction_strategy', 'Magic'),
    _Flag('scylla_num_keys', '-5'),
    _Flag('scylla_data_set_bytes', '-1'),
    _Flag('scylla_data_to_ram_ratio', '0'),
    _Flag('scylla_column_size', '0'),
    _Flag('scylla_column_count', '0'),
    _Flag('scylla_durations', 'warmup=-1'),
    _Flag('scylla_durations', 'read=0'),
    _Flag('scylla_durations', 'read_small=-1'),
    _Flag('scylla_durations', 'all=0'),
    _Flag('scylla_durations', 'read'),
    _Flag('scylla_durations', 'read=an_hour'),
    _Flag('scylla_durations', 'warp=60'),
    _Flag('scylla_durations', 'read=60,read=90'),
    _Flag('scylla_read_small_stdev', '0'),
    _Flag('scylla_medium_working_set_to_ram', '0'),
    _Flag('scylla_latency_rates', '5000,fast'),
    _Flag('scylla_durations', 'latency=0'),
    _Flag('scylla_repeats', '0'),
    _Flag('scylla_repeats', '101'),
    # PKB's run loop would populate a populated cluster again.
    _Flag('run_stage_iterations', '3'),
    _Flag('run_stage_time', '3600'),
    _Flag('run_stage_retries', '1'),
    _Flag('scylla_latency_threads', '0'),
    _Flag('scylla_rdw_write_rate', '0'),
    _Flag('scylla_rdw_writer_fraction', '1.5'),
    _Flag('scylla_rdw_write_range_fraction', '0'),
    _Flag('scylla_rdw_read_threads', '0'),
    _Flag('scylla_durations', 'rdw=0'),
    # The default rdw duration: readers would get no time.
    _Flag('scylla_durations', 'rdw_read_delay=1800'),
    _Flag('scylla_durations', 'mixed=0'),
    _Flag('scylla_mixed_write_ratio', '-1'),
    _Flag('scylla_mixed_read_ratio', '-1'),
    _Flag('scylla_durations', 'write_only=0'),
    _Flag('scylla_durations', 'read_cache=0'),
    _Flag('scylla_quiesce_poll_s', '0'),
    _Flag('scylla_quiesce_settle_s', '-1'),
    _Flag('scylla_quiesce_timeout_s', '1'),
    _Flag('scylla_hdr_interval_s', '0'),
    _Flag('scylla_server_price_per_hour', '-3'),
    _Flag('scylla_loader_price_per_hour', '-3'),
    _Flag('scylla_cluster_name', ''),
    _Flag('scylla_bringup_timeout_s', '0'),
    _Flag('scylla_nic', 'eth0; reboot'),
    _Flag('scylla_io_setup', 'guess'),
    _Flag('scylla_yaml_extra', '[not, a, mapping]'),
    _Flag('scylla_cassandra_heap_gb', '-1'),
    _Flag('scylla_cassandra_gc', 'ZGC'),
    _Flag('scylla_cassandra_compaction_throughput_mb', '-2'),
    _Flag('scylla_cassandra_concurrent_reads', '-1'),
    _Flag('scylla_cassandra_concurrent_writes', '-1'),
    _Flag('scylla_cassandra_concurrent_compactors', '-1'),
    _Flag('scylla_cassandra_memtable_allocation_type', 'unslabbed'),
    _Flag('scylla_cassandra_trickle_fsync', 'sometimes'),
    _Flag('scylla_mixed_distribution', 'zipf'),
    _Flag('scylla_allow_existing_data', 'perhaps'),
    _Flag('scylla_raid_devices', '/dev/nvme0n1'),
    _Flag('scylla_swap_setup', 'sometimes'),
    _Flag('scylla_cassandra_url', 'https://mirror/{release}/c.tar.gz'),
    _Flag('scylla_cassandra_checksum', 'md5:0123456789abcdef0123456789abcdef'),
    _Flag('scylla_stress_url', 'mirror/cassandra-stress.tar.gz'),
    _Flag('scylla_stress_checksum', 'sha256:1234'),
    _Flag('scylla_repo_url', 'http://mirror/scylla {version}.list'),
    _Flag('scylla_repo_key_url', 'key.asc'),
    _Flag('scylla_key_server', 'hkp://keys.example/pks'),
    _Flag('scylla_repo_key_fingerprints', 'c503c686b007f39e'),
    _Flag('scylla_step_grace_s', '5'),
    _Flag('scylla_sample_servers', 'sometimes'),
    # Config shapes that crashed GetConfig.
    _Config(
        _Groups('    servers:\n      vm_count: three\n'),
        named='config key vm_groups.servers.vm_count',
    ),
    _Config(
        _Groups('    servers:\n      vm_count: 0\n'),
        named='config key vm_groups.servers.vm_count',
    ),
    _Config(
        _Groups('    loaders:\n      vm_count: -2\n'),
        named='config key vm_groups.loaders.vm_count',
    ),
    _Config(
        _Groups('    servers:\n      vm_count: true\n'),
        named='config key vm_groups.servers.vm_count',
    ),
    _Config(
        _Groups(
            '    servers:\n      vm_spec:\n        GCP:\n'
            '          machine_type: 123\n'
        ),
        named='config key vm_groups.servers.vm_spec.GCP.machine_type',
    ),
    _Config(_Groups('    - servers\n'), named='config key vm_groups'),
    _Config(
        _Groups('    servers: [1, 2]\n'), named='config key vm_groups.servers'
    ),
    _Config(
        _Groups('    servers:\n      vm_spec: [GCP]\n'),
        named='config key vm_groups.servers.vm_spec',
    ),
    _Config(
        _Groups('    servers:\n      cloud: Azure\n'),
        named='config key vm_groups.servers.cloud',
    ),
    _Config(
        _Groups('    loaders:\n      cloud: Kubernetes\n'),
        named='config key vm_groups.loaders.cloud',
    ),
    _Flag('cloud', 'Azure'),
    _Flags('--cloud=OpenStack', '--scylla_loader_count=2', named='--cloud'),
    # Config keys that were silently ignored or replaced.
    _Config(
        _Groups(
            '    extra:\n      vm_spec:\n        GCP:\n'
            '          machine_type: n2-standard-4\n'
        ),
        named='config key vm_groups.extra',
    ),
    _Config(
        _Groups(
            '    servers:\n      disk_spec:\n        GCP:\n'
            '          disk_type: pd-ssd\n          disk_size: 500\n'
        ),
        named='config key vm_groups.servers.disk_spec',
    ),
    _Config(
        _Groups(
            '    servers:\n      vm_spec:\n        GCP:\n'
            '          machine_type: n2-highmem-16\n'
            '          num_local_ssds: 4\n'
        ),
        '--scylla_data_disk=network',
        named='--scylla_data_disk',
    ),
    _Flags(
        '--scylla_data_disk=network',
        '--gce_num_local_ssds=2',
        '--machine_type=n2-highmem-16',
        named='--scylla_data_disk',
    ),
    # NaN and infinity.
    _Flag('scylla_data_to_ram_ratio', 'nan'),
    _Flag('scylla_data_to_ram_ratio', 'inf'),
    _Flag('scylla_server_price_per_hour', 'nan'),
    _Flag('scylla_server_price_per_hour', 'inf'),
    _Flag('scylla_loader_price_per_hour', 'nan'),
    _Flag('scylla_medium_working_set_to_ram', 'nan'),
    _Flag('scylla_rdw_writer_fraction', 'nan'),
    _Flag('scylla_rdw_write_range_fraction', 'inf'),
    _Flag('scylla_loader_cpu_threshold', 'nan'),
    # A trailing newline passes no identifier.
    _Flag('scylla_keyspace', 'keyspace1\n'),
    _Flag('scylla_cluster_name', 'scylla_phases\n'),
    _Flag('scylla_nic', 'eth0\n'),
    _Flag('scylla_release', '2026.3\n'),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_cassandra_version=5.0.9\n',
        named='--scylla_cassandra_version',
    ),
    _Flag('scylla_stress_release', '3.18.1\n'),
    # Bounds no real cluster meets.
    _Flag('scylla_loader_count', '5000'),
    _Flag('scylla_loader_count', '100000'),
    _Flag('scylla_server_count', '5000'),
    _Flag('scylla_threads', '100000000'),
    _Flag('scylla_populate_threads', '1000000'),
    _Flag('scylla_latency_threads', '1000000'),
    _Flag('scylla_rdw_read_threads', '1000000'),
    _Flag('scylla_num_keys', '100000000000000000000'),
    _Flag('scylla_data_set_bytes', '100000000000000000000'),
    _Flag('scylla_data_to_ram_ratio', '1e12'),
    _Flag('scylla_column_size', '1099511627776'),
    _Flags(
        '--scylla_column_size=1048576',
        '--scylla_column_count=100',
        named='--scylla_column_size',
    ),
    _Flag('scylla_durations', 'read=100000000'),
    _Flag('scylla_quiesce_timeout_s', '100000000'),
    _Flag('scylla_latency_rates', '5000,1000000000'),
    _Flag('scylla_rdw_write_rate', '1000000000'),
    _Flag('scylla_server_price_per_hour', '1e9'),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_cassandra_heap_gb=4096',
        named='--scylla_cassandra_heap_gb',
    ),
    _Flags(
        '--scylla_data_disk=network',
        '--scylla_network_disk_gb=1000000',
        named='--scylla_network_disk_gb',
    ),
    _Flags(
        '--cloud=AWS',
        '--scylla_data_disk=network',
        '--scylla_network_disk_gb=20000',
        named='--scylla_network_disk_gb',
    ),
    # Combinations that cannot run.
    _Flags(
        '--scylla_quiesce_settle_s=1000',
        '--scylla_quiesce_timeout_s=500',
        named='--scylla_quiesce_settle_s',
    ),
    _Flag('scylla_hdr_interval_s', '100000'),
    _Flags(
        '--scylla_replication_factor=1',
        '--scylla_consistency_level=THREE',
        named='--scylla_consistency_level',
    ),
    _Flags(
        '--scylla_replication_factor=1',
        '--scylla_consistency_level=TWO',
        named='--scylla_consistency_level',
    ),
    _Flags(
        '--scylla_compaction_strategy=UnifiedCompactionStrategy',
        '--scylla_stress_tool=apache',
        named='--scylla_compaction_strategy',
    ),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_compaction_strategy=IncrementalCompactionStrategy',
        named='--scylla_compaction_strategy',
    ),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_cassandra_version=4.1.7',
        '--scylla_stress_tool=apache',
        '--scylla_compaction_strategy=UnifiedCompactionStrategy',
        named='--scylla_compaction_strategy',
    ),
    _Flag('scylla_phases', 'read'),
    _Flag('scylla_phases', 'quiesce,mixed'),
    _Flag('scylla_phases', 'write_only,read_cache'),
    _Flags(
        '--scylla_num_keys=1000',
        '--scylla_read_small_stdev=100000',
        named='--scylla_read_small_stdev',
    ),
    _Flags(
        '--scylla_num_keys=1000',
        '--scylla_data_set_bytes=100000000',
        named='--scylla_data_set_bytes',
    ),
    _Flags(
        '--scylla_num_keys=1000',
        '--scylla_data_to_ram_ratio=8',
        named='--scylla_data_to_ram_ratio',
    ),
    _Flags(
        '--scylla_tablets', '--scylla_release=5.4', named='--scylla_tablets'
    ),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_tablets',
        named='--scylla_tablets',
    ),
    # Releases the project does not know.
    _Flag('scylla_release', '9999.99'),
    _Flag('scylla_release', '2019.1'),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_cassandra_version=5.0.99',
        named='--scylla_cassandra_version',
    ),
    _Flags(
        '--scylla_stress_tool=apache',
        '--scylla_cassandra_version=4.1.99',
        named='--scylla_cassandra_version',
    ),
    _Flag('scylla_stress_release', '3.99.0'),
    # scylla.yaml keys the run relies on, and aliases.
    _Flag('scylla_yaml_extra', 'native_transport_port: 1'),
    _Flag('scylla_yaml_extra', 'data_file_directories: [/tmp]'),
    _Flag('scylla_yaml_extra', 'commitlog_directory: /tmp'),
    _Flag('scylla_yaml_extra', 'authenticator: PasswordAuthenticator'),
    _Flag('scylla_yaml_extra', 'api_address: 0.0.0.0'),
    _Flag('scylla_yaml_extra', 'listen_address: 0.0.0.0'),
    _Flag(
        'scylla_yaml_extra',
        'a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: [*a, *a, *a, *a, *a, *a]',
    ),
    _Flag('scylla_yaml_extra', 'x: ' + '1' * 20000),
    # Names that become options or system objects.
    _Flag('scylla_nic', '--help'),
    _Flag('scylla_nic', '-v'),
    _Flag('scylla_keyspace', 'system'),
    _Flag('scylla_keyspace', 'system_auth'),
    _Flag('scylla_keyspace', 'select'),
    _Flag('scylla_keyspace', 'KEYSPACE'),
    # Settings the chosen engine or tool would ignore.
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_yaml_extra=enable_cache: false',
        named='--scylla_yaml_extra',
    ),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_io_setup=iotune',
        named='--scylla_io_setup',
    ),
    _Flags(
        '--scylla_engine=cassandra', '--scylla_nic=eth1', named='--scylla_nic'
    ),
    _Flags(
        '--scylla_engine=cassandra',
        '--scylla_release=2025.1',
        named='--scylla_release',
    ),
    _Flag('scylla_cassandra_heap_gb', '8'),
    _Flag('scylla_cassandra_gc', 'G1'),
    _Flag('scylla_cassandra_trickle_fsync', 'true'),
    _Flag('scylla_cassandra_concurrent_reads', '32'),
    _Flag('scylla_cassandra_version', '4.1.7'),
    _Flags(
        '--scylla_stress_tool=apache',
        '--scylla_stress_release=3.18.0',
        named='--scylla_stress_release',
    ),
    # Machine types: unknown, or of another cloud, under the flag given.
    _Flags(
        '--machine_type=n2-typo-16',
        '--scylla_loader_count=2',
        '--scylla_data_disk=network',
        named='--machine_type',
    ),
    _Flags(
        '--cloud=AWS', '--machine_type=z3-highmem-88', named='--machine_type'
    ),
    _Flags(
        '--scylla_server_machine_type=i4i.4xlarge',
        named='--scylla_server_machine_type',
    ),
    _Flags(
        '--scylla_loader_machine_type=c6i.8xlarge',
        '--scylla_loader_count=2',
        named='--scylla_loader_machine_type',
    ),
    _Flags(
        '--cloud=AWS',
        '--scylla_loader_machine_type=n2-highcpu-32',
        named='--scylla_loader_machine_type',
    ),
    _Flag('machine_type', 'bogus-8'),
    _Config(
        _Groups(
            '    loaders:\n      vm_spec:\n        GCP:\n'
            '          machine_type: n2-nonsense\n'
        ),
        '--scylla_loader_count=2',
        named='config key vm_groups.loaders.vm_spec.GCP.machine_type',
    ),
    # Other PKB flags that would change the servers' data volume.
    _Flag('num_striped_disks', '4'),
    _Flags(
        '--scylla_engine=cassandra',
        '--num_striped_disks=4',
        named='--num_striped_disks',
    ),
    _Flag('scratch_dir', '/mnt/data'),
    _Flags(
        '--machine_type=n2-highmem-16',
        '--scylla_loader_count=2',
        named='--scylla_data_disk',
    ),
    # Local SSD counts GCE refuses only when it creates the VM (issue 21).
    _Flags(
        '--machine_type=n2-highmem-96',
        '--gce_num_local_ssds=20',
        named='--gce_num_local_ssds',
    ),
    _Flags(
        '--machine_type=z3-highmem-88',
        '--gce_num_local_ssds=4',
        named='--gce_num_local_ssds',
    ),
    _Config(
        _Groups(
            '    servers:\n      vm_spec:\n        GCP:\n'
            '          machine_type: n2-highmem-96\n'
            '          num_local_ssds: 20\n'
        ),
        named='config key vm_groups.servers.vm_spec.GCP.num_local_ssds',
    ),
    _Config(
        _Groups(
            '    loaders:\n      vm_spec:\n        GCP:\n'
            '          machine_type: c2-standard-30\n'
            '          num_local_ssds: 24\n'
        ),
        named='config key vm_groups.loaders.vm_spec.GCP.num_local_ssds',
    ),
    _Flags(
        '--cloud=AWS',
        '--machine_type=i4i.4xlarge',
        '--gce_num_local_ssds=2',
        named='--gce_num_local_ssds',
    ),
    # Local disks PKB would not set up or the benchmark cannot use.
    _Flags(
        '--machine_type=z3-highmem-192-highlssd-metal',
        '--scylla_loader_count=2',
        named='--scylla_data_disk',
    ),
    _Flags(
        '--cloud=AWS', '--machine_type=c3.2xlarge', named='--scylla_data_disk'
    ),
    _Flags(
        '--cloud=AWS', '--machine_type=d2.xlarge', named='--scylla_data_disk'
    ),
    # The pinned cassandra-stress needs Java 21, which Debian 12 lacks.
    _Flags('--os_type=debian12', named='--os_type'),
    # Releases the engine cannot serve (scylla-jmx, Enterprise packages).
    _Flag('scylla_release', '5.4'),
    _Flag('scylla_release', '2024.1'),
)

# Inputs that must pass: the harness refuses nothing by default.
GOOD = (
    _Flags(named=''),
    _Flags(
        '--scylla_engine=cassandra', '--scylla_cassandra_heap_gb=8', named=''
    ),
    _Flags(
        '--scylla_allow_unknown_releases', '--scylla_release=2027.1', named=''
    ),
    _Flags('--cloud=AWS', named=''),
    # Writes need no data.
    _Flags('--scylla_phases=latency,write_only', named=''),
    _Flags('--scylla_phases=read', '--scylla_allow_existing_data', named=''),
    _Flags(
        '--scylla_replication_factor=1',
        '--scylla_consistency_level=ALL',
        named='',
    ),
    _Config(
        _Groups('    loaders:\n      vm_count: 2\n'),
        named='',
    ),
    # Types of PKB's local SSD tables the benchmark refused (issue 21).
    _Flags('--machine_type=c3-standard-88-lssd', named=''),
    _Flags('--machine_type=c4a-highmem-72-lssd', named=''),
    _Flags('--cloud=AWS', '--machine_type=i7ie.6xlarge', named=''),
    _Flags('--cloud=AWS', '--machine_type=im4gn.16xlarge', named=''),
    _Flags(
        '--cloud=AWS',
        '--machine_type=c3.2xlarge',
        '--scylla_engine=cassandra',
        named='',
    ),
    _Flags('--machine_type=n2-highmem-96', '--gce_num_local_ssds=24', named=''),
    _Flags('--os_type=debian13', named=''),
    # An Apache cassandra-stress runs on Debian 12's Java 17.
    _Flags(
        '--os_type=debian12',
        '--scylla_stress_tool=apache',
        named='',
    ),
)


def test_the_catalogue_is_large_and_every_flag_has_a_row():
  assert len(CATALOGUE) >= 100
  single = {row['args'][0].split('=')[0] for row in CATALOGUE if row['args']}
  for holder in scylla_phases_flags.ALL:
    assert f'--{holder.name}' in single, holder.name


@pytest.fixture(scope='module')
def outcomes(tmp_path_factory):
  """{row index: (pkb.py's outcome, the plan command's)} for every row."""
  tmp_path = tmp_path_factory.mktemp('bad_inputs')
  rows = list(CATALOGUE) + list(GOOD)
  (tmp_path / 'rows.json').write_text(json.dumps(rows))
  script = tmp_path / 'harness.py'
  script.write_text(_HARNESS)
  result = subprocess.run(
      [sys.executable, str(script), str(tmp_path)],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONPATH=CHECKOUT, PYTHONWARNINGS='ignore'),
      timeout=600,
      check=False,
  )
  assert result.returncode == 0, result.stderr[-3000:]
  return json.loads((tmp_path / 'outcomes.json').read_text())


def _Id(row):
  return ' '.join(row['args']) + (' +config' if row['config'] else '')


@pytest.mark.parametrize(
    'index', range(len(CATALOGUE)), ids=[_Id(r) for r in CATALOGUE]
)
def test_bad_input_is_refused_naming_its_flag(outcomes, index):
  row = CATALOGUE[index]
  for path, (kind, message) in zip(('pkb.py', 'plan'), outcomes[index]):
    assert kind == 'refused', (path, row, kind, message)
    assert f"{row['named']}:" in message or f"{row['named']}=" in message, (
        path,
        row,
        message,
    )


@pytest.mark.parametrize('index', range(len(GOOD)), ids=[_Id(r) for r in GOOD])
def test_good_input_passes_the_same_harness(outcomes, index):
  for kind, message in outcomes[len(CATALOGUE) + index]:
    assert kind == 'accepted', (GOOD[index], message)


_HARNESS = r'''
import contextlib, io, json, logging, os, pathlib, sys
from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker import pkb
from perfkit_plugins.core.config import settings
from perfkit_plugins.tools import plan_command

FLAGS = flags.FLAGS
work = pathlib.Path(sys.argv[1])


class Errors(logging.Handler):
  """Keeps what pkb.py logs at ERROR (absl's flag errors)."""

  def __init__(self):
    super().__init__(logging.ERROR)
    self.messages = []

  def emit(self, record):
    self.messages.append(record.getMessage())


handler = Errors()
logging.getLogger().addHandler(handler)
logging.getLogger().setLevel(logging.ERROR)


def Attempt(call):
  """('accepted' | 'refused' | 'crashed', message)."""
  handler.messages.clear()
  stderr = io.StringIO()
  kind, message = 'accepted', ''
  try:
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(
        io.StringIO()):
      if call():
        kind = 'refused'
  except SystemExit as e:
    kind = 'refused' if e.code else 'accepted'
  except (errors.Error, settings.SettingsError) as e:
    kind, message = 'refused', str(e)
  except Exception as e:  # a raw crash is what the catalogue looks for
    kind, message = 'crashed', f'{type(e).__name__}: {e}'
  text = '\n'.join([message, stderr.getvalue(), *handler.messages])
  return kind, text


def PkbPath(argv):
  def Call():
    pkb.ParseArgs(argv)
    pkb._CreateBenchmarkSpecs()
  return Call


outcomes = []
for index, row in enumerate(json.loads((work / 'rows.json').read_text())):
  args = ['--benchmarks=scylla_phases', '--ignore_package_requirements',
          f'--temp_dir={work / "pkb"}', *row['args']]
  if row['config'] is not None:
    path = work / f'config{index}.yaml'
    path.write_text(row['config'])
    args.append(f'--benchmark_config_file={path}')
  FLAGS.unparse_flags()
  through_pkb = Attempt(PkbPath(['pkb.py', *args]))
  FLAGS.unparse_flags()
  through_plan = Attempt(
      lambda: plan_command.Main(['scylla-phases-plan', *args]))
  outcomes.append((through_pkb, through_plan))
(work / 'outcomes.json').write_text(json.dumps(outcomes))
'''
