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

"""Limits and consistency of the settings, beyond each value's own syntax.

Values no real cluster could meet (5,000 loaders, 10^20 keys, a 1 TiB row),
numbers that are not numbers (NaN, infinity), combinations that cannot run
(a consistency level above the replication factor, a compaction strategy the
engine lacks) and settings the chosen engine or tool would silently ignore
are refused here, before anything is provisioned. settings.Validate calls
FirstProblem and raises its SettingsError.
"""

import dataclasses
import math

from perfkit_plugins.core.machines import machines

# Upper bounds: beyond them a run cannot be real. Each message gives the
# bound.
MAX_SERVERS = 1000
MAX_LOADERS = 1000
MAX_THREADS = 10000
# cassandra-stress keys are Java longs; 10^13 rows of 1 KiB are 10 PB.
MAX_KEYS = 10**13
MAX_DATA_SET_BYTES = 10**16
# Both databases refuse a mutation above half a commit log segment (32 MiB
# by default).
MAX_ROW_BYTES = 16 * 1024**2
MAX_STEP_S = 7 * 86400
MAX_RATE = 10**8
MAX_PRICE_PER_HOUR = 10000.0
# Rounds of the measured steps in one cluster: more would be cheaper on
# fresh clusters, which are the units a claim about a machine rests on.
MAX_REPEATS = 100
# Possible but unusual: the plan warns (see Large).
LARGE_VM_COUNT = 100
LARGE_THREADS = 2048
LARGE_KEYS = 10**11
# The largest network data disk each cloud provisions (GB): GCE Persistent
# Disk 64 TB, EBS gp3 16 TiB.
MAX_NETWORK_DISK_GB = {'GCP': 65536, 'AWS': 16384}
# Consistency levels that need a fixed number of replicas.
_REPLICAS_NEEDED = {'TWO': 2, 'THREE': 3}
# Compaction strategies only one engine (or series) has.
_ENGINE_ONLY_STRATEGIES = {
    'IncrementalCompactionStrategy': 'scylla',
    'UnifiedCompactionStrategy': 'cassandra',
}
# Settings only one engine or stress tool reads, and what reads them.
_SCYLLA_ONLY = (
    'release',
    'repo_url',
    'repo_key_url',
    'key_server',
    'repo_key_fingerprints',
    'nic',
    'io_setup',
    'yaml_extra',
)
_CASSANDRA_TUNING = (
    'cassandra_heap_gb',
    'cassandra_gc',
    'cassandra_compaction_throughput_mb',
    'cassandra_concurrent_reads',
    'cassandra_concurrent_writes',
    'cassandra_concurrent_compactors',
    'cassandra_memtable_allocation_type',
    'cassandra_trickle_fsync',
)
_APACHE_CASSANDRA = ('cassandra_version', 'cassandra_url', 'cassandra_checksum')
_SCYLLA_STRESS = ('stress_release', 'stress_url', 'stress_checksum')
# Phases that read what populate wrote.
READING_PHASES = ('read', 'reads_during_writes', 'mixed', 'read_cache')
_THREAD_FIELDS = (
    'threads',
    'populate_threads',
    'latency_threads',
    'rdw_read_threads',
)
_STEP_FIELDS = (
    'read_warmup_s',
    'read_duration_s',
    'read_small_duration_s',
    'latency_duration_s',
    'rdw_duration_s',
    'mixed_duration_s',
    'write_only_duration_s',
    'read_cache_duration_s',
    'quiesce_timeout_s',
    'step_grace_s',
    'bringup_timeout_s',
)


def _Above(s, fields, bound, unit=''):
  for field in fields:
    value = getattr(s, field)
    if value > bound:
      return (
          field,
          f'{value}{unit} is above {bound:,}, more than a run can use',
      )
  return None


def _NotFinite(s):
  for field in dataclasses.fields(s):
    value = getattr(s, field.name)
    if isinstance(value, float) and not math.isfinite(value):
      return field.name, f'{value} is not a finite number'
  return None


def _Bounds(s):
  """The first value above its upper bound, as (field, message), or None.

  Bounds keep a typo (an extra zero) from provisioning a cluster or a
  step no one meant to pay for, and rows and network disks within what
  the database and the cloud accept.
  """
  row_bytes = s.column_size * s.column_count
  checks = (
      _Above(s, ('server_count',), MAX_SERVERS),
      _Above(s, ('loader_count',), MAX_LOADERS),
      _Above(s, _THREAD_FIELDS, MAX_THREADS, ' threads per loader'),
      _Above(s, ('num_keys',), MAX_KEYS),
      _Above(s, ('data_set_bytes',), MAX_DATA_SET_BYTES),
      _Above(s, _STEP_FIELDS, MAX_STEP_S, ' s'),
      _Above(s, ('rdw_write_rate',), MAX_RATE, ' op/s'),
      _Above(s, ('repeats',), MAX_REPEATS),
      _Above(
          s,
          ('server_price_per_hour', 'loader_price_per_hour'),
          MAX_PRICE_PER_HOUR,
          ' USD/h',
      ),
  )
  for problem in checks:
    if problem:
      return problem
  if max(s.latency_rates, default=0) > MAX_RATE:
    return 'latency_rates', f'{max(s.latency_rates)} op/s is above {MAX_RATE:,}'
  if row_bytes > MAX_ROW_BYTES:
    return 'column_size', (
        f'{s.column_count} column(s) of {s.column_size} bytes make a'
        f' {row_bytes}-byte row, above the {MAX_ROW_BYTES} bytes a database'
        ' accepts in one write'
    )
  disk_max = MAX_NETWORK_DISK_GB.get(s.cloud)
  if s.data_disk == 'network' and disk_max and s.network_disk_gb > disk_max:
    return 'network_disk_gb', (
        f'{s.network_disk_gb} GB is above the {disk_max} GB of the largest'
        f' network disk on {s.cloud}'
    )
  shape = None if s.servers_static else machines.Shape(s.server_machine_type)
  if shape and s.cassandra_heap_gb >= shape.memory_gib:
    return 'cassandra_heap_gb', (
        f'{s.cassandra_heap_gb} GB is not below the {shape.memory_gib:g} GiB'
        f' of RAM of {s.server_machine_type}'
    )
  return None


def _LongestStep(s):
  """The longest timed step the phases run (s), 0 when none is timed."""
  durations = {
      'read': (s.read_duration_s, s.read_small_duration_s, s.read_warmup_s),
      'latency': (s.latency_duration_s,),
      'reads_during_writes': (s.rdw_duration_s,),
      'mixed': (s.mixed_duration_s,),
      'write_only': (s.write_only_duration_s,),
      'read_cache': (s.read_cache_duration_s,),
  }
  return max((max(durations.get(p, (0,))) for p in s.phases), default=0)


def _Combinations(s):
  """The first impossible combination, as (field, message), or None.

  Each value is valid alone but not with another one (a consistency
  level needing more replicas than the replication factor, a strategy
  of the other engine, a settle window longer than its timeout...):
  the run would fail or measure nothing, after provisioning.
  """
  needed = _REPLICAS_NEEDED.get(s.consistency_level, 1)
  if needed > s.replication_factor:
    return 'consistency_level', (
        f'{s.consistency_level} needs {needed} replicas and'
        f' --scylla_replication_factor is {s.replication_factor}'
    )
  owner = _ENGINE_ONLY_STRATEGIES.get(s.compaction_strategy, s.engine)
  if owner != s.engine:
    return 'compaction_strategy', (
        f'{s.compaction_strategy} exists only with --scylla_engine={owner}'
    )
  if (
      s.compaction_strategy == 'UnifiedCompactionStrategy'
      and int(s.cassandra_version.split('.')[0]) < 5
  ):
    return 'compaction_strategy', (
        f'Apache Cassandra {s.cassandra_version} has no'
        ' UnifiedCompactionStrategy (first in 5.0)'
    )
  if 'quiesce' in s.phases and s.quiesce_settle_s >= s.quiesce_timeout_s:
    return 'quiesce_settle_s', (
        f'{s.quiesce_settle_s} s of quiet can never be seen within'
        f' --scylla_quiesce_timeout_s={s.quiesce_timeout_s}'
    )
  longest = _LongestStep(s)
  if longest and s.hdr_interval_s > longest:
    return 'hdr_interval_s', (
        f'{s.hdr_interval_s} s is longer than every step (the longest is'
        f' {longest} s): no interval would be recorded'
    )
  if s.num_keys and s.data_set_bytes:
    return 'data_set_bytes', (
        'give --scylla_num_keys or --scylla_data_set_bytes, not both (the'
        ' key count would win and the size be ignored)'
    )
  return None


def _Ignored(s, defaults):
  """A setting that differs from its default but nothing would read."""
  unread = []
  if s.engine != 'scylla':
    unread += [(f, 'with --scylla_engine=scylla') for f in _SCYLLA_ONLY]
  if s.engine != 'cassandra':
    unread += [(f, 'with --scylla_engine=cassandra') for f in _CASSANDRA_TUNING]
  if s.engine != 'cassandra' and s.stress_tool != 'apache':
    unread += [
        (f, 'with --scylla_engine=cassandra or --scylla_stress_tool=apache')
        for f in _APACHE_CASSANDRA
    ]
  if s.stress_tool != 'scylla':
    unread += [(f, 'with --scylla_stress_tool=scylla') for f in _SCYLLA_STRESS]
  if s.num_keys or s.data_set_bytes:
    unread.append((
        'data_to_ram_ratio',
        'when neither --scylla_num_keys nor --scylla_data_set_bytes is given',
    ))
  for field, needs in unread:
    if getattr(s, field) != getattr(defaults, field):
      return field, (
          f'{getattr(s, field)!r} is read only {needs}; it would be ignored'
      )
  return None


def FirstProblem(s, defaults):
  """The first limit or combination `s` breaks.

  Args:
    s: a settings.Settings whose values each passed their own checks.
    defaults: settings.Settings() (the flags' defaults).

  Returns:
    (field, message), or None when there is none.
  """
  return (
      _NotFinite(s) or _Bounds(s) or _Combinations(s) or _Ignored(s, defaults)
  )


def Large(s, keys):
  """Possible but very large values, as warnings naming their flags.

  Args:
    s: validated settings.
    keys: the key count the run will populate.

  Returns:
    list of str.
  """
  warnings = []
  for field in ('server_count', 'loader_count'):
    if getattr(s, field) > LARGE_VM_COUNT:
      warnings.append(
          f'--scylla_{field}: {getattr(s, field)} VMs is a very large'
          " cluster: check the project's quotas and the cost below"
      )
  for field in _THREAD_FIELDS:
    if getattr(s, field) > LARGE_THREADS:
      warnings.append(
          f'--scylla_{field}: {getattr(s, field)} threads per loader is far'
          ' above what one cassandra-stress JVM schedules well; add loaders'
          ' instead (--scylla_loader_count)'
      )
  if keys > LARGE_KEYS:
    warnings.append(
        f'keys: {keys:,} partitions take days to populate; check the'
        ' estimate below (--scylla_num_keys, --scylla_data_set_bytes,'
        ' --scylla_data_to_ram_ratio)'
    )
  return warnings
