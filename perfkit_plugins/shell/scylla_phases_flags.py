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

"""The flags of the scylla_phases benchmark, as absl FlagHolders.

One flag per Settings field (core/config/settings.py) but those PKB's own flags
and the config give (FROM_PKB): `--scylla_<field>`, whose default is the
field's default (but --scylla_loader_count's), so defaults are written once.
GROUPS lists every flag once, as the README groups them; a test checks that
it holds every flag defined here and every Settings field. The shell
(shell/run_settings.py) and the package modules build the one settings
object everything below the shell receives with SettingsFromFlags; the
shell reads a few holders directly where a flag's presence matters. This
module imports absl only, not PKB.
"""

import functools

from absl import flags

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.stress import loader_jvm

_DEFAULTS = settings_lib.Settings()

# Settings fields that come from PKB's own flags or the benchmark config.
FROM_PKB = ('cloud', 'data_dir', 'servers_static', 'loaders_static')


def _Define(define, name, *args, **kwargs):
  """Defines flag `name` with absl's `define`, or defers to PKB's flag.

  absl refuses a second flag of a name (DuplicateFlagError), and pkb.py
  would then stop whatever it runs, --helpmatch included: a `scylla_*` flag
  PKB comes to define itself (one moved upstream) would break every run of
  users who keep the plugin. A name already defined is PKB's: the holder
  reads that flag. A flag PKB defines later replaces this one
  (allow_override), and the holder, which reads by name, reads PKB's.

  Returns:
    The flag's FlagHolder.
  """
  if name in flags.FLAGS:
    return flags.FlagHolder(flags.FLAGS, flags.FLAGS[name])
  return define(name, *args, allow_override=True, **kwargs)


def _ListDefault(values):
  return [str(v) for v in values]


# Cluster: database, release, servers and their data disk.

ENGINE = _Define(
    flags.DEFINE_enum,
    'scylla_engine',
    _DEFAULTS.engine,
    settings_lib.ENGINES,
    'Database on the servers.',
)
RELEASE = _Define(
    flags.DEFINE_string,
    'scylla_release',
    _DEFAULTS.release,
    'ScyllaDB release (X.Y or X.Y.Z) to install.',
)
CASSANDRA_VERSION = _Define(
    flags.DEFINE_string,
    'scylla_cassandra_version',
    _DEFAULTS.cassandra_version,
    'Apache Cassandra version (X.Y.Z).',
)
ALLOW_UNKNOWN_RELEASES = _Define(
    flags.DEFINE_boolean,
    'scylla_allow_unknown_releases',
    _DEFAULTS.allow_unknown_releases,
    (
        'Try a ScyllaDB release, Cassandra version or cassandra-stress release'
        " newer than the project's table as given."
    ),
)
SERVER_MACHINE_TYPE = _Define(
    flags.DEFINE_string,
    'scylla_server_machine_type',
    _DEFAULTS.server_machine_type,
    'Server machine type. --machine_type sets it too (and only it).',
)
SERVER_COUNT = _Define(
    flags.DEFINE_integer,
    'scylla_server_count',
    _DEFAULTS.server_count,
    'Number of database servers.',
    lower_bound=1,
)
DATA_DISK = _Define(
    flags.DEFINE_enum,
    'scylla_data_disk',
    _DEFAULTS.data_disk,
    settings_lib.DATA_DISKS,
    (
        "Server data disk: 'local' RAID0 of all local SSDs, 'network', or"
        " 'declared' by static VMs' disk_specs (own machines)."
    ),
)
NETWORK_DISK_GB = _Define(
    flags.DEFINE_integer,
    'scylla_network_disk_gb',
    _DEFAULTS.network_disk_gb,
    'Size of the network data disk (GB).',
    lower_bound=10,
)
RAID_DEVICES = _Define(
    flags.DEFINE_list,
    'scylla_raid_devices',
    _ListDefault(_DEFAULTS.raid_devices),
    (
        'Static servers (own machines): block devices every server has, from'
        " which ScyllaDB's scylla_raid_setup builds the data volume at"
        ' /var/lib/scylla (RAID0, or XFS on one). ERASES them.'
    ),
)
ALLOW_EXISTING_DATA = _Define(
    flags.DEFINE_boolean,
    'scylla_allow_existing_data',
    _DEFAULTS.allow_existing_data,
    'Start on a data directory holding files this run did not write.',
)
TABLETS = _Define(
    flags.DEFINE_boolean,
    'scylla_tablets',
    _DEFAULTS.tablets,
    'Create the keyspace with ScyllaDB tablets.',
)
CLUSTER_NAME = _Define(
    flags.DEFINE_string,
    'scylla_cluster_name',
    _DEFAULTS.cluster_name,
    'Cluster name in the database config.',
)
BRINGUP_TIMEOUT_S = _Define(
    flags.DEFINE_integer,
    'scylla_bringup_timeout_s',
    _DEFAULTS.bringup_timeout_s,
    'Longest wait for all nodes Up/Normal.',
)

# ScyllaDB tuning.

NIC = _Define(
    flags.DEFINE_string,
    'scylla_nic',
    _DEFAULTS.nic,
    "NIC perftune tunes; '' for the default route's.",
)
IO_SETUP = _Define(
    flags.DEFINE_enum,
    'scylla_io_setup',
    _DEFAULTS.io_setup,
    settings_lib.IO_SETUPS,
    (
        "'reuse': iotune on the first node, its io_properties on the others"
        " (identical nodes); 'iotune': iotune on every node."
    ),
)
YAML_EXTRA = _Define(
    flags.DEFINE_string,
    'scylla_yaml_extra',
    _DEFAULTS.yaml_extra,
    'YAML mapping of extra scylla.yaml settings, e.g. "{a: 1, b: x}".',
)
SWAP_SETUP = _Define(
    flags.DEFINE_boolean,
    'scylla_swap_setup',
    _DEFAULTS.swap_setup,
    (
        "Let scylla_setup make a swap file on a server without swap (ScyllaDB's"
        ' recommendation); false keeps the servers as they are.'
    ),
)

# Where installs come from and what they must be.

CASSANDRA_URL = _Define(
    flags.DEFINE_string,
    'scylla_cassandra_url',
    _DEFAULTS.cassandra_url,
    'Apache Cassandra tarball URL template ({version}); a mirror.',
)
CASSANDRA_CHECKSUM = _Define(
    flags.DEFINE_string,
    'scylla_cassandra_checksum',
    _DEFAULTS.cassandra_checksum,
    "sha256:<hex> or sha512:<hex> of that tarball; '': pinned/published.",
)
STRESS_URL = _Define(
    flags.DEFINE_string,
    'scylla_stress_url',
    _DEFAULTS.stress_url,
    "ScyllaDB's cassandra-stress tarball URL template ({version}).",
)
STRESS_CHECKSUM = _Define(
    flags.DEFINE_string,
    'scylla_stress_checksum',
    _DEFAULTS.stress_checksum,
    "sha256:<hex> or sha512:<hex> of that tarball; '': published.",
)
REPO_URL = _Define(
    flags.DEFINE_string,
    'scylla_repo_url',
    _DEFAULTS.repo_url,
    "ScyllaDB apt list / yum repo URL template ({version}: series); ''.",
)
REPO_KEY_URL = _Define(
    flags.DEFINE_string,
    'scylla_repo_key_url',
    _DEFAULTS.repo_key_url,
    "Apt signing keys URL (armored); '': from --scylla_key_server.",
)
KEY_SERVER = _Define(
    flags.DEFINE_string,
    'scylla_key_server',
    _DEFAULTS.key_server,
    (
        'Key server apt signing keys are fetched from (hkp://, hkps://,'
        ' http:// or https://, host and optional port), then its HKP lookup'
        ' over HTTP(S).'
    ),
)
REPO_KEY_FINGERPRINTS = _Define(
    flags.DEFINE_list,
    'scylla_repo_key_fingerprints',
    _ListDefault(_DEFAULTS.repo_key_fingerprints),
    (
        "Full fingerprints of the mirror's own apt signing keys (with"
        " --scylla_repo_url), imported and required instead of ScyllaDB's."
    ),
)

# Apache Cassandra tuning (--scylla_engine=cassandra).

CASSANDRA_HEAP_GB = _Define(
    flags.DEFINE_integer,
    'scylla_cassandra_heap_gb',
    _DEFAULTS.cassandra_heap_gb,
    'Heap GB (-Xms/-Xmx); 0: default.',
)
CASSANDRA_GC = _Define(
    flags.DEFINE_enum,
    'scylla_cassandra_gc',
    _DEFAULTS.cassandra_gc,
    cassandra_config.GCS,
    "Collector; CMS only on 4.x; '': default.",
)
CASSANDRA_COMPACTION_THROUGHPUT_MB = _Define(
    flags.DEFINE_integer,
    'scylla_cassandra_compaction_throughput_mb',
    _DEFAULTS.cassandra_compaction_throughput_mb,
    'Compaction MB/s; 0: unthrottled; -1: default.',
)
CASSANDRA_CONCURRENT_READS = _Define(
    flags.DEFINE_integer,
    'scylla_cassandra_concurrent_reads',
    _DEFAULTS.cassandra_concurrent_reads,
    'concurrent_reads; 0: default.',
)
CASSANDRA_CONCURRENT_WRITES = _Define(
    flags.DEFINE_integer,
    'scylla_cassandra_concurrent_writes',
    _DEFAULTS.cassandra_concurrent_writes,
    'concurrent_writes; 0: default.',
)
CASSANDRA_CONCURRENT_COMPACTORS = _Define(
    flags.DEFINE_integer,
    'scylla_cassandra_concurrent_compactors',
    _DEFAULTS.cassandra_concurrent_compactors,
    'concurrent_compactors; 0: default.',
)
CASSANDRA_MEMTABLE_ALLOCATION_TYPE = _Define(
    flags.DEFINE_enum,
    'scylla_cassandra_memtable_allocation_type',
    _DEFAULTS.cassandra_memtable_allocation_type,
    cassandra_config.MEMTABLE_ALLOCATION_TYPES,
    "memtable_allocation_type; '': default.",
)
CASSANDRA_TRICKLE_FSYNC = _Define(
    flags.DEFINE_boolean,
    'scylla_cassandra_trickle_fsync',
    _DEFAULTS.cassandra_trickle_fsync,
    'trickle_fsync.',
)

# Loaders: cassandra-stress machines, release and threads.

LOADER_MACHINE_TYPE = _Define(
    flags.DEFINE_string,
    'scylla_loader_machine_type',
    _DEFAULTS.loader_machine_type,
    'Loader (cassandra-stress) type.',
)
LOADER_COUNT = _Define(
    flags.DEFINE_integer,
    'scylla_loader_count',
    0,  # Not the Settings default: 0 asks GetConfig to size the loaders.
    'Number of loader VMs; 0 sizes them from the servers vCPUs.',
    lower_bound=0,
)
STRESS_TOOL = _Define(
    flags.DEFINE_enum,
    'scylla_stress_tool',
    _DEFAULTS.stress_tool,
    settings_lib.STRESS_TOOLS,
    "'scylla': ScyllaDB's cassandra-stress.",
)
STRESS_RELEASE = _Define(
    flags.DEFINE_string,
    'scylla_stress_release',
    _DEFAULTS.stress_release,
    'scylladb/cassandra-stress release.',
)
THREADS = _Define(
    flags.DEFINE_integer,
    'scylla_threads',
    _DEFAULTS.threads,
    'cassandra-stress threads per loader (max rate).',
)
POPULATE_THREADS = _Define(
    flags.DEFINE_integer,
    'scylla_populate_threads',
    _DEFAULTS.populate_threads,
    'Threads per loader while populating.',
)
LOADER_CPU_THRESHOLD = _Define(
    flags.DEFINE_float,
    'scylla_loader_cpu_threshold',
    _DEFAULTS.loader_cpu_threshold,
    'Loader CPU percent at or above which a phase counts as loader-bound.',
)
LOADER_GC = _Define(
    flags.DEFINE_enum,
    'scylla_loader_gc',
    _DEFAULTS.loader_gc,
    loader_jvm.GC_CHOICES,
    'Loader JVM collector; auto: zgc on Java 21+, else g1.',
)
LOADER_HEAP_GB = _Define(
    flags.DEFINE_float,
    'scylla_loader_heap_gb',
    _DEFAULTS.loader_heap_gb,
    'Loader JVM fixed heap GiB; 0: min(8, RAM/4).',
    lower_bound=0,
)
LOADER_SATURATION_ACTION = _Define(
    flags.DEFINE_enum,
    'scylla_loader_saturation_action',
    _DEFAULTS.loader_saturation_action,
    settings_lib.SATURATION_ACTIONS,
    'What a loader-bound phase gets: mark it, or fail it.',
)

# Workload: phases, keyspace, table and data set.

PHASES = _Define(
    flags.DEFINE_list,
    'scylla_phases',
    _ListDefault(_DEFAULTS.phases),
    'Phases to run, in the order of docs/measurement.md.',
)
KEYSPACE = _Define(
    flags.DEFINE_string,
    'scylla_keyspace',
    _DEFAULTS.keyspace,
    'Keyspace cassandra-stress writes into.',
)
REPLICATION_FACTOR = _Define(
    flags.DEFINE_integer,
    'scylla_replication_factor',
    _DEFAULTS.replication_factor,
    'Replication factor.',
)
CONSISTENCY_LEVEL = _Define(
    flags.DEFINE_enum,
    'scylla_consistency_level',
    _DEFAULTS.consistency_level,
    settings_lib.CONSISTENCY_LEVELS,
    'Consistency level of every operation.',
)
COMPACTION_STRATEGY = _Define(
    flags.DEFINE_enum,
    'scylla_compaction_strategy',
    _DEFAULTS.compaction_strategy,
    settings_lib.COMPACTION_STRATEGIES,
    'Compaction strategy of the table.',
)
NUM_KEYS = _Define(
    flags.DEFINE_integer,
    'scylla_num_keys',
    _DEFAULTS.num_keys,
    'Partitions to write; 0 derives it.',
)
DATA_SET_BYTES = _Define(
    flags.DEFINE_integer,
    'scylla_data_set_bytes',
    _DEFAULTS.data_set_bytes,
    'Data set size in bytes when --scylla_num_keys is 0; 0 derives it.',
)
DATA_TO_RAM_RATIO = _Define(
    flags.DEFINE_float,
    'scylla_data_to_ram_ratio',
    _DEFAULTS.data_to_ram_ratio,
    'Data set size over cluster RAM when no key count or size is given.',
)
COLUMN_SIZE = _Define(
    flags.DEFINE_integer,
    'scylla_column_size',
    _DEFAULTS.column_size,
    'Bytes per column (1024: 1 KB rows).',
)
COLUMN_COUNT = _Define(
    flags.DEFINE_integer,
    'scylla_column_count',
    _DEFAULTS.column_count,
    'Columns per row.',
)

# Repetition.

REPEATS = _Define(
    flags.DEFINE_integer,
    'scylla_repeats',
    _DEFAULTS.repeats,
    (
        'Rounds of the measured steps (reads, ladder rates, reads during'
        ' writes, mixed, write-only, read-from-cache) in one cluster,'
        ' interleaved round-robin, each round after a flush and quiesce when'
        ' the one before wrote; populate runs once. Every sample says its'
        ' repeat; each figure is also published across the repeats, with'
        ' its interval.'
    ),
)

# Durations of the timed steps.

DURATIONS = _Define(
    flags.DEFINE_list,
    'scylla_durations',
    [],
    (
        'Seconds each timed step runs, as name=seconds items: all (every'
        ' step), '
        + ', '.join(
            f'{name} (default {getattr(_DEFAULTS, field)})'
            for name, field in settings_lib.DURATIONS.items()
        )
        + '. warmup: the cache warm-up before the small read; read: each'
        ' read; read_small: the small read (0: read); rdw_read_delay: how'
        ' long after the writers the readers of reads during writes start.'
    ),
)

# Read phases.

READ_SMALL_STDEV = _Define(
    flags.DEFINE_integer,
    'scylla_read_small_stdev',
    _DEFAULTS.read_small_stdev,
    'Gaussian stdev of the small read.',
)
MEDIUM_WORKING_SET_TO_RAM = _Define(
    flags.DEFINE_float,
    'scylla_medium_working_set_to_ram',
    _DEFAULTS.medium_working_set_to_ram,
    'Working set of the medium read over cluster RAM.',
)

# Fixed-rate latency ladder.

LATENCY_RATES = _Define(
    flags.DEFINE_list,
    'scylla_latency_rates',
    _ListDefault(_DEFAULTS.latency_rates),
    'Cluster write rates (op/s) of the ladder.',
)
LATENCY_THREADS = _Define(
    flags.DEFINE_integer,
    'scylla_latency_threads',
    _DEFAULTS.latency_threads,
    'Threads per loader on the ladder.',
)

# Reads during writes.

RDW_WRITE_RATE = _Define(
    flags.DEFINE_integer,
    'scylla_rdw_write_rate',
    _DEFAULTS.rdw_write_rate,
    'Cluster write rate during reads.',
)
RDW_WRITER_FRACTION = _Define(
    flags.DEFINE_float,
    'scylla_rdw_writer_fraction',
    _DEFAULTS.rdw_writer_fraction,
    'Share of the loaders that write.',
)
RDW_WRITE_RANGE_FRACTION = _Define(
    flags.DEFINE_float,
    'scylla_rdw_write_range_fraction',
    _DEFAULTS.rdw_write_range_fraction,
    'Share of the keys the writers hit.',
)
RDW_READ_THREADS = _Define(
    flags.DEFINE_integer,
    'scylla_rdw_read_threads',
    _DEFAULTS.rdw_read_threads,
    'Threads per reading loader.',
)

# Mixed, write-only and read-from-cache runs.

MIXED_WRITE_RATIO = _Define(
    flags.DEFINE_integer,
    'scylla_mixed_write_ratio',
    _DEFAULTS.mixed_write_ratio,
    'Write share of the mixed ratio.',
)
MIXED_READ_RATIO = _Define(
    flags.DEFINE_integer,
    'scylla_mixed_read_ratio',
    _DEFAULTS.mixed_read_ratio,
    'Read share of the mixed ratio.',
)
MIXED_DISTRIBUTION = _Define(
    flags.DEFINE_enum,
    'scylla_mixed_distribution',
    _DEFAULTS.mixed_distribution,
    settings_lib.READ_DISTRIBUTIONS,
    'Keys the mixed run visits: a read phase distribution.',
)

# Compaction quiesce, logging and step bounds.

QUIESCE_POLL_S = _Define(
    flags.DEFINE_integer,
    'scylla_quiesce_poll_s',
    _DEFAULTS.quiesce_poll_s,
    'Seconds between compaction polls.',
)
QUIESCE_SETTLE_S = _Define(
    flags.DEFINE_integer,
    'scylla_quiesce_settle_s',
    _DEFAULTS.quiesce_settle_s,
    'Seconds every node must stay idle to count as quiesced.',
)
QUIESCE_TIMEOUT_S = _Define(
    flags.DEFINE_integer,
    'scylla_quiesce_timeout_s',
    _DEFAULTS.quiesce_timeout_s,
    'Longest wait for compactions to end.',
)
HDR_INTERVAL_S = _Define(
    flags.DEFINE_integer,
    'scylla_hdr_interval_s',
    _DEFAULTS.hdr_interval_s,
    'Seconds per HDR/interval log line.',
)
STEP_GRACE_S = _Define(
    flags.DEFINE_integer,
    'scylla_step_grace_s',
    _DEFAULTS.step_grace_s,
    "Seconds after a timed step's length at which its loaders are stopped.",
)
SAMPLE_SERVERS = _Define(
    flags.DEFINE_boolean,
    'scylla_sample_servers',
    _DEFAULTS.sample_servers,
    "Sample each server's CPU, disk, network and metrics during every step.",
)

# Prices.

SERVER_PRICE_PER_HOUR = _Define(
    flags.DEFINE_float,
    'scylla_server_price_per_hour',
    _DEFAULTS.server_price_per_hour,
    'USD/h per server; 0: price table.',
)
LOADER_PRICE_PER_HOUR = _Define(
    flags.DEFINE_float,
    'scylla_loader_price_per_hour',
    _DEFAULTS.loader_price_per_hour,
    'USD/h per loader; 0: price table.',
)

# Flag groups, as the README lists them.
GROUPS = {
    'cluster': (
        ENGINE,
        RELEASE,
        CASSANDRA_VERSION,
        ALLOW_UNKNOWN_RELEASES,
        SERVER_MACHINE_TYPE,
        SERVER_COUNT,
        DATA_DISK,
        NETWORK_DISK_GB,
        RAID_DEVICES,
        ALLOW_EXISTING_DATA,
        TABLETS,
        CLUSTER_NAME,
        BRINGUP_TIMEOUT_S,
    ),
    'scylla': (
        NIC,
        IO_SETUP,
        YAML_EXTRA,
        SWAP_SETUP,
    ),
    'sources': (
        CASSANDRA_URL,
        CASSANDRA_CHECKSUM,
        STRESS_URL,
        STRESS_CHECKSUM,
        REPO_URL,
        REPO_KEY_URL,
        KEY_SERVER,
        REPO_KEY_FINGERPRINTS,
    ),
    'cassandra': (
        CASSANDRA_HEAP_GB,
        CASSANDRA_GC,
        CASSANDRA_COMPACTION_THROUGHPUT_MB,
        CASSANDRA_CONCURRENT_READS,
        CASSANDRA_CONCURRENT_WRITES,
        CASSANDRA_CONCURRENT_COMPACTORS,
        CASSANDRA_MEMTABLE_ALLOCATION_TYPE,
        CASSANDRA_TRICKLE_FSYNC,
    ),
    'loaders': (
        LOADER_MACHINE_TYPE,
        LOADER_COUNT,
        STRESS_TOOL,
        STRESS_RELEASE,
        THREADS,
        POPULATE_THREADS,
        LOADER_CPU_THRESHOLD,
        LOADER_SATURATION_ACTION,
        LOADER_GC,
        LOADER_HEAP_GB,
    ),
    'workload': (
        PHASES,
        KEYSPACE,
        REPLICATION_FACTOR,
        CONSISTENCY_LEVEL,
        COMPACTION_STRATEGY,
        NUM_KEYS,
        DATA_SET_BYTES,
        DATA_TO_RAM_RATIO,
        COLUMN_SIZE,
        COLUMN_COUNT,
    ),
    'durations': (DURATIONS,),
    'repeats': (REPEATS,),
    'read': (
        READ_SMALL_STDEV,
        MEDIUM_WORKING_SET_TO_RAM,
    ),
    'latency': (
        LATENCY_RATES,
        LATENCY_THREADS,
    ),
    'rdw': (
        RDW_WRITE_RATE,
        RDW_WRITER_FRACTION,
        RDW_WRITE_RANGE_FRACTION,
        RDW_READ_THREADS,
    ),
    'mixed': (
        MIXED_WRITE_RATIO,
        MIXED_READ_RATIO,
        MIXED_DISTRIBUTION,
    ),
    'quiesce': (
        QUIESCE_POLL_S,
        QUIESCE_SETTLE_S,
        QUIESCE_TIMEOUT_S,
        HDR_INTERVAL_S,
        STEP_GRACE_S,
        SAMPLE_SERVERS,
    ),
    'cost': (
        SERVER_PRICE_PER_HOUR,
        LOADER_PRICE_PER_HOUR,
    ),
}

ALL = tuple(holder for holders in GROUPS.values() for holder in holders)


class _RetiredParser(flags.ArgumentParser):
  """Refuses every value of a retired flag, naming the flag that replaced it.

  PKB parses a config file's `flags:` with the same parser as the command
  line, so both are refused before anything is provisioned.
  """

  syntactic_help = 'retired'

  def __init__(self, replacement):
    self.replacement = replacement

  def parse(self, argument):
    raise ValueError(f'retired: use {self.replacement} instead')

  def flag_type(self):
    return 'retired'


def _DefineRetired(name, replacement):
  """Defines a retired flag whose every use is refused (_RetiredParser)."""
  return _Define(
      functools.partial(flags.DEFINE, _RetiredParser(replacement)),
      name,
      None,
      f'Retired: use {replacement}.',
  )


# Flags of earlier releases, each refused with the name of its replacement.
RETIRED = tuple(
    _DefineRetired(
        settings_lib.FLAG_PREFIX + field,
        f'--scylla_durations={name}=SECONDS',
    )
    for name, field in settings_lib.DURATIONS.items()
)


def FieldOf(holder):
  """The Settings field a flag sets (--scylla_engine: engine).

  --scylla_durations sets several (settings_lib.DURATIONS).
  """
  return holder.name[len(settings_lib.FLAG_PREFIX) :]


def _Convert(holder):
  """A flag's value as its Settings field's (lists become typed tuples)."""
  field = FieldOf(holder)
  default = getattr(_DEFAULTS, field)
  if isinstance(default, tuple):
    item_type = type(default[0]) if default else str
    try:
      return tuple(item_type(v) for v in holder.value)
    except ValueError as e:
      raise settings_lib.SettingsError(field, f'{holder.value}: {e}') from e
  return holder.value


def SettingsFromFlags(validate=True, **overrides):
  """Builds and validates Settings from the flags.

  Args:
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
      FieldOf(holder): _Convert(holder)
      for holder in ALL
      if holder is not DURATIONS
  }
  values.update(settings_lib.DurationFields(DURATIONS.value))
  values.update(overrides)
  settings = settings_lib.Settings(**values)
  return settings_lib.Validate(settings) if validate else settings
