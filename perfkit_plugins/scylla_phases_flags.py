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

"""absl flags of the scylla_phases benchmark, one per Settings field.

Each flag is `--scylla_<field>` with the field's default from
core/settings.py, so defaults are written once. This module imports absl only
(not PKB), so the `plan` command can read the same flags without PKB. Flags
are grouped here as in the README.
"""

from absl import flags

from perfkit_plugins.core import cassandra_config
from perfkit_plugins.core import settings as settings_lib

_DEFAULTS = settings_lib.Settings()

# Flags whose default differs from the Settings default: 0 means "derive".
_FLAG_DEFAULTS = {'loader_count': 0}

# Bounds absl checks at parse time, for flags that reach PKB's config
# decoding before Settings validation runs.
_LOWER_BOUNDS = {'server_count': 1, 'loader_count': 0, 'network_disk_gb': 10}

# Settings fields that come from PKB's own flags or the benchmark config.
FROM_PKB = ('cloud', 'data_dir', 'servers_static', 'loaders_static')

_CHOICES = {
    'engine': settings_lib.ENGINES,
    'stress_tool': settings_lib.STRESS_TOOLS,
    'consistency_level': settings_lib.CONSISTENCY_LEVELS,
    'compaction_strategy': settings_lib.COMPACTION_STRATEGIES,
    'loader_saturation_action': settings_lib.SATURATION_ACTIONS,
    'data_disk': settings_lib.DATA_DISKS,
    'io_setup': settings_lib.IO_SETUPS,
    'mixed_distribution': settings_lib.READ_DISTRIBUTIONS,
    'cassandra_gc': cassandra_config.GCS,
    'cassandra_memtable_allocation_type': (
        cassandra_config.MEMTABLE_ALLOCATION_TYPES
    ),
}

# (group, field, help). Groups are the README's flag groups.
FLAG_HELP = (
    ('cluster', 'engine', 'Database on the servers.'),
    ('cluster', 'release', 'ScyllaDB release (X.Y or X.Y.Z) to install.'),
    ('cluster', 'cassandra_version', 'Apache Cassandra version (X.Y.Z).'),
    (
        'cluster',
        'allow_unknown_releases',
        (
            'Try a ScyllaDB release, Cassandra version or cassandra-stress'
            " release newer than the project's table as given."
        ),
    ),
    (
        'cluster',
        'server_machine_type',
        'Server machine type. --machine_type sets it too (and only it).',
    ),
    ('cluster', 'server_count', 'Number of database servers.'),
    (
        'cluster',
        'data_disk',
        (
            "Server data disk: 'local' RAID0 of all local SSDs, 'network', or"
            " 'declared' by static VMs' disk_specs (own machines)."
        ),
    ),
    ('cluster', 'network_disk_gb', 'Size of the network data disk (GB).'),
    (
        'cluster',
        'allow_existing_data',
        'Start on a data directory holding files this run did not write.',
    ),
    ('cluster', 'tablets', 'Create the keyspace with ScyllaDB tablets.'),
    ('cluster', 'cluster_name', 'Cluster name in the database config.'),
    ('cluster', 'bringup_timeout_s', 'Longest wait for all nodes Up/Normal.'),
    ('scylla', 'nic', "NIC perftune tunes; '' for the default route's."),
    (
        'scylla',
        'io_setup',
        (
            "'reuse': iotune on the first node, its io_properties on the others"
            " (identical nodes); 'iotune': iotune on every node."
        ),
    ),
    (
        'scylla',
        'yaml_extra',
        'YAML mapping of extra scylla.yaml settings, e.g. "{a: 1, b: x}".',
    ),
    (
        'sources',
        'cassandra_url',
        'Apache Cassandra tarball URL template ({version}); a mirror.',
    ),
    (
        'sources',
        'cassandra_checksum',
        "sha256:<hex> or sha512:<hex> of that tarball; '': pinned/published.",
    ),
    (
        'sources',
        'stress_url',
        "ScyllaDB's cassandra-stress tarball URL template ({version}).",
    ),
    (
        'sources',
        'stress_checksum',
        "sha256:<hex> or sha512:<hex> of that tarball; '': published.",
    ),
    (
        'sources',
        'repo_url',
        "ScyllaDB apt list / yum repo URL template ({version}: series); ''.",
    ),
    (
        'sources',
        'repo_key_url',
        "ScyllaDB signing key URL (armored); '': the Ubuntu key server.",
    ),
    ('cassandra', 'cassandra_heap_gb', 'Heap GB (-Xms/-Xmx); 0: default.'),
    ('cassandra', 'cassandra_gc', "Collector; CMS only on 4.x; '': default."),
    (
        'cassandra',
        'cassandra_compaction_throughput_mb',
        'Compaction MB/s; 0: unthrottled; -1: default.',
    ),
    (
        'cassandra',
        'cassandra_concurrent_reads',
        'concurrent_reads; 0: default.',
    ),
    (
        'cassandra',
        'cassandra_concurrent_writes',
        'concurrent_writes; 0: default.',
    ),
    (
        'cassandra',
        'cassandra_concurrent_compactors',
        'concurrent_compactors; 0: default.',
    ),
    (
        'cassandra',
        'cassandra_memtable_allocation_type',
        "memtable_allocation_type; '': default.",
    ),
    ('cassandra', 'cassandra_trickle_fsync', 'trickle_fsync.'),
    ('loaders', 'loader_machine_type', 'Loader (cassandra-stress) type.'),
    (
        'loaders',
        'loader_count',
        'Number of loader VMs; 0 sizes them from the servers vCPUs.',
    ),
    ('loaders', 'stress_tool', "'scylla': ScyllaDB's cassandra-stress."),
    ('loaders', 'stress_release', 'scylladb/cassandra-stress release.'),
    ('loaders', 'threads', 'cassandra-stress threads per loader (max rate).'),
    ('loaders', 'populate_threads', 'Threads per loader while populating.'),
    (
        'loaders',
        'loader_cpu_threshold',
        'Loader CPU percent at or above which a phase counts as loader-bound.',
    ),
    (
        'loaders',
        'loader_saturation_action',
        'What a loader-bound phase gets: mark it, or fail it.',
    ),
    (
        'workload',
        'phases',
        'Phases to run, in the order of docs/measurement.md.',
    ),
    ('workload', 'keyspace', 'Keyspace cassandra-stress writes into.'),
    ('workload', 'replication_factor', 'Replication factor.'),
    ('workload', 'consistency_level', 'Consistency level of every operation.'),
    ('workload', 'compaction_strategy', 'Compaction strategy of the table.'),
    ('workload', 'num_keys', 'Partitions to write; 0 derives it.'),
    (
        'workload',
        'data_set_bytes',
        'Data set size in bytes when --scylla_num_keys is 0; 0 derives it.',
    ),
    (
        'workload',
        'data_to_ram_ratio',
        'Data set size over cluster RAM when no key count or size is given.',
    ),
    ('workload', 'column_size', 'Bytes per column (1024: 1 KB rows).'),
    ('workload', 'column_count', 'Columns per row.'),
    ('read', 'read_warmup_s', 'Cache warm-up before the small read.'),
    ('read', 'read_duration_s', 'Duration of each read sub-phase.'),
    (
        'read',
        'read_small_duration_s',
        'Duration of the small read; 0: --scylla_read_duration_s.',
    ),
    ('read', 'read_small_stdev', 'Gaussian stdev of the small read.'),
    (
        'read',
        'medium_working_set_to_ram',
        'Working set of the medium read over cluster RAM.',
    ),
    ('latency', 'latency_rates', 'Cluster write rates (op/s) of the ladder.'),
    ('latency', 'latency_duration_s', 'Duration of each ladder step.'),
    ('latency', 'latency_threads', 'Threads per loader on the ladder.'),
    ('rdw', 'rdw_write_rate', 'Cluster write rate during reads.'),
    ('rdw', 'rdw_writer_fraction', 'Share of the loaders that write.'),
    ('rdw', 'rdw_write_range_fraction', 'Share of the keys the writers hit.'),
    ('rdw', 'rdw_read_threads', 'Threads per reading loader.'),
    ('rdw', 'rdw_duration_s', 'Duration of reads during writes.'),
    (
        'rdw',
        'rdw_read_delay_s',
        (
            'Seconds the readers start after the writers, so they read while'
            ' the writes build a compaction backlog; both stop together.'
        ),
    ),
    ('mixed', 'mixed_duration_s', 'Duration of the mixed run.'),
    ('mixed', 'mixed_write_ratio', 'Write share of the mixed ratio.'),
    ('mixed', 'mixed_read_ratio', 'Read share of the mixed ratio.'),
    (
        'mixed',
        'mixed_distribution',
        'Keys the mixed run visits: a read phase distribution.',
    ),
    ('mixed', 'write_only_duration_s', 'Duration of the write-only run.'),
    ('mixed', 'read_cache_duration_s', 'Duration of the read-from-cache run.'),
    ('quiesce', 'quiesce_poll_s', 'Seconds between compaction polls.'),
    (
        'quiesce',
        'quiesce_settle_s',
        'Seconds every node must stay idle to count as quiesced.',
    ),
    ('quiesce', 'quiesce_timeout_s', 'Longest wait for compactions to end.'),
    ('quiesce', 'hdr_interval_s', 'Seconds per HDR/interval log line.'),
    (
        'quiesce',
        'step_grace_s',
        "Seconds after a timed step's length at which its loaders are stopped.",
    ),
    ('cost', 'server_price_per_hour', 'USD/h per server; 0: price table.'),
    ('cost', 'loader_price_per_hour', 'USD/h per loader; 0: price table.'),
)


def FlagName(field):
  return settings_lib.FLAG_PREFIX + field


def _Define(field, help_text, flag_values):
  """Defines one flag typed after the Settings field's default."""
  name = FlagName(field)
  default = _FLAG_DEFAULTS.get(field, getattr(_DEFAULTS, field))
  if field in _CHOICES:
    flags.DEFINE_enum(
        name, default, _CHOICES[field], help_text, flag_values=flag_values
    )
  elif isinstance(default, bool):
    flags.DEFINE_boolean(name, default, help_text, flag_values=flag_values)
  elif isinstance(default, int):
    flags.DEFINE_integer(
        name,
        default,
        help_text,
        lower_bound=_LOWER_BOUNDS.get(field),
        flag_values=flag_values,
    )
  elif isinstance(default, float):
    flags.DEFINE_float(name, default, help_text, flag_values=flag_values)
  elif isinstance(default, tuple):
    flags.DEFINE_list(
        name, [str(v) for v in default], help_text, flag_values=flag_values
    )
  else:
    flags.DEFINE_string(name, default, help_text, flag_values=flag_values)


def DefineFlags(flag_values=flags.FLAGS):
  """Defines every benchmark flag on `flag_values` (once per process)."""
  for _, field, help_text in FLAG_HELP:
    _Define(field, help_text, flag_values)


DefineFlags()


def _Convert(field, value):
  """Flag value -> Settings field value (lists become typed tuples)."""
  default = getattr(_DEFAULTS, field)
  if isinstance(default, tuple):
    item_type = type(default[0]) if default else str
    try:
      return tuple(item_type(v) for v in value)
    except ValueError as e:
      raise settings_lib.SettingsError(field, f'{value}: {e}') from e
  return value


def SettingsFromFlags(flag_values=flags.FLAGS, validate=True, **overrides):
  """Builds and validates Settings from flags.

  Args:
    flag_values: parsed absl FlagValues.
    validate: False for the package modules, which read only what they
      install (the benchmark validated everything before provisioning).
    **overrides: fields resolved by the caller from the benchmark config (e.g.
      server_count, loader_count and machine types of the VM groups).

  Returns:
    A (validated) settings.Settings.

  Raises:
    settings.SettingsError: naming the flag.
  """
  values = {
      field: _Convert(field, flag_values[FlagName(field)].value)
      for _, field, _ in FLAG_HELP
  }
  values.update(overrides)
  settings = settings_lib.Settings(**values)
  return settings_lib.Validate(settings) if validate else settings


def FlagGroups():
  """Group name -> list of flag names, for documentation."""
  groups = {}
  for group, field, _ in FLAG_HELP:
    groups.setdefault(group, []).append(FlagName(field))
  return groups
