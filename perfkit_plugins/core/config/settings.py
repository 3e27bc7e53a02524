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

"""The benchmark's settings: one frozen object, validated once, early.

The PKB shell builds a `Settings` from flags and the benchmark config before
anything is provisioned and calls `Validate`; everything downstream trusts it.
Field defaults here are the flags' defaults (the flags module reads them), so
each default is written once. Every error names the flag it came from.
"""

import dataclasses
import re

from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.core.software import artifacts
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import releases
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_tools

FLAG_PREFIX = 'scylla_'

ENGINES = ('scylla', 'cassandra')
STRESS_TOOLS = ('scylla', 'apache')
CONSISTENCY_LEVELS = (
    'ONE',
    'TWO',
    'THREE',
    'QUORUM',
    'ALL',
    'LOCAL_QUORUM',
    'EACH_QUORUM',
    'LOCAL_ONE',
)
COMPACTION_STRATEGIES = (
    'SizeTieredCompactionStrategy',
    'LeveledCompactionStrategy',
    'TimeWindowCompactionStrategy',
    'IncrementalCompactionStrategy',
    'UnifiedCompactionStrategy',
)
# Phases in the order they run (docs/measurement.md says why).
PHASES = (
    'populate',
    'quiesce',
    'read',
    'latency',
    'reads_during_writes',
    'mixed',
    'write_only',
    'read_cache',
)
DEFAULT_PHASES = PHASES[:6]
SATURATION_ACTIONS = ('mark', 'fail')
# Key distributions of the read phase, reused by the mixed run.
READ_DISTRIBUTIONS = ('small', 'medium', 'large')
# Compaction strategies ScyllaDB's cassandra-stress 3.18.1 knows: it checks the
# class among those it bundles (org.apache.cassandra.db.compaction.*), which
# include IncrementalCompactionStrategy but not UnifiedCompactionStrategy.
SCYLLA_STRESS_COMPACTION_STRATEGIES = tuple(
    c for c in COMPACTION_STRATEGIES if c != 'UnifiedCompactionStrategy'
)
# ScyllaDB's data directory, and the servers' unless static VMs declare one.
SCYLLA_DATA_DIR = '/var/lib/scylla'
# 'local': all local SSDs in one RAID0 the benchmark builds; 'network': one
# network disk PKB provisions; 'declared': the mount point the servers'
# static VM entries declare (disk_specs), used as it is (own machines).
DATA_DISKS = ('local', 'network', 'declared')
# 'reuse': iotune on the first server, its result copied to the others;
# 'iotune': iotune on every server.
IO_SETUPS = ('reuse', 'iotune')

_RELEASE_RE = re.compile(r'^\d{1,4}\.\d{1,2}(\.\d{1,3})?$')
_VERSION_RE = re.compile(r'^\d+\.\d+\.\d+$')
# CQL's reserved keywords (Apache Cassandra 5.0.9's
# org/apache/cassandra/cql3/reserved_keywords.txt).
CQL_RESERVED_KEYWORDS = frozenset(
    'ADD ALLOW ALTER AND APPLY ASC AUTHORIZE BATCH BEGIN BY COLUMNFAMILY'
    ' CREATE DELETE DESC DESCRIBE DROP ENTRIES EXECUTE FROM FULL GRANT IF IN'
    ' INDEX INFINITY INSERT INTO IS KEYSPACE LIMIT MATERIALIZED MODIFY NAN'
    ' NORECURSIVE NOT NULL OF ON OR ORDER PRIMARY RENAME REVOKE SCHEMA SELECT'
    ' SET TABLE TO TOKEN TRUNCATE UNLOGGED UPDATE USE USING VIEW WHERE WITH'
    .split()
)
# First ScyllaDB releases where keyspaces can use tablets.
TABLETS_MIN_RELEASE = (6, 0)


# --scylla_durations: the length of each timed step (and the readers' delay
# in reads during writes), by name, in seconds: {name: Settings field}.
DURATIONS_FLAG = 'durations'
DURATIONS = {
    'warmup': 'read_warmup_s',
    'read': 'read_duration_s',
    'read_small': 'read_small_duration_s',
    'latency': 'latency_duration_s',
    'rdw': 'rdw_duration_s',
    'rdw_read_delay': 'rdw_read_delay_s',
    'mixed': 'mixed_duration_s',
    'write_only': 'write_only_duration_s',
    'read_cache': 'read_cache_duration_s',
}
# `all=S` sets every step's length (the small read follows the read unless
# given; the readers' delay is not a length).
_ALL_DURATIONS = 'all'
_NOT_IN_ALL = ('read_small', 'rdw_read_delay')
_DURATION_NAMES = {field: name for name, field in DURATIONS.items()}


class SettingsError(ValueError):
  """A setting is invalid; the message starts with the flag's name.

  A duration is named in --scylla_durations (`--scylla_durations: read: ...`).
  """

  def __init__(self, field, message):
    name = _DURATION_NAMES.get(field)
    if name:
      field, message = DURATIONS_FLAG, f'{name}: {message}'
    self.flag = FLAG_PREFIX + field
    super().__init__(f'--{self.flag}: {message}')


def DurationFields(entries):
  """The Settings fields --scylla_durations sets: {field: seconds}.

  Args:
    entries: `name=seconds` items (names: DURATIONS and `all`); `all` first,
      then the others, so a named step overrides it.

  Raises:
    SettingsError: naming --scylla_durations, an item that is not
      name=seconds, an unknown name or a name given twice.
  """
  given = {}
  for entry in entries:
    name, equals, seconds = entry.partition('=')
    name = name.strip()
    if not equals or not re.fullmatch(r'-?\d+', seconds.strip()):
      raise SettingsError(
          DURATIONS_FLAG, f'{entry!r} is not name=seconds (e.g. read=3600)'
      )
    if name != _ALL_DURATIONS and name not in DURATIONS:
      raise SettingsError(
          DURATIONS_FLAG,
          f'unknown step {name!r}; allowed: '
          + ', '.join((_ALL_DURATIONS,) + tuple(DURATIONS)),
      )
    if name in given:
      raise SettingsError(DURATIONS_FLAG, f'{name} is given twice')
    given[name] = int(seconds)
  fields = {}
  if _ALL_DURATIONS in given:
    for name, field in DURATIONS.items():
      if name not in _NOT_IN_ALL:
        fields[field] = given[_ALL_DURATIONS]
  for name, seconds in given.items():
    if name != _ALL_DURATIONS:
      fields[DURATIONS[name]] = seconds
  return fields


@dataclasses.dataclass(frozen=True)
class Settings:
  """Everything the benchmark does, resolved from flags and config.

  Durations are seconds, rates are operations per second for the whole
  cluster (the planner splits them across loaders).
  """

  engine: str = 'scylla'
  release: str = '2026.3'
  cassandra_version: str = '5.0.9'
  stress_tool: str = 'scylla'
  stress_release: str = '3.18.1'
  # Try releases newer than the project's table (core/software/releases.py)
  # as given.
  allow_unknown_releases: bool = False
  # Where installs come from (URL templates naming {version}) and the
  # checksums they are verified against ('' : the pinned or published one;
  # see core/software/artifacts.py). repo_url: ScyllaDB's apt list or yum
  # repo file ({version}: the release series), '' for ScyllaDB's;
  # repo_key_url: its signing key (ASCII armored), '' for the key server;
  # key_server: where apt signing keys are fetched from otherwise;
  # repo_key_fingerprints: a mirror's own signing keys (full fingerprints),
  # imported and required instead of ScyllaDB's.
  cassandra_url: str = cassandra_config.ARCHIVE_URL
  cassandra_checksum: str = ''
  stress_url: str = stress_tools.SCYLLA_RELEASE_URL
  stress_checksum: str = ''
  repo_url: str = ''
  repo_key_url: str = ''
  key_server: str = scylla_config.APT_KEYSERVER
  repo_key_fingerprints: tuple[str, ...] = ()
  # Apache Cassandra tuning (--scylla_engine=cassandra). 0, '' and -1 keep
  # Cassandra's own default. The 2017 c3.2xlarge study used G1,
  # concurrent_reads 16, concurrent_writes 64, concurrent_compactors 8,
  # offheap_buffers and trickle_fsync, and compared the default compaction
  # throughput (16 MB/s then) with 0 (unthrottled).
  cassandra_heap_gb: int = 0
  cassandra_gc: str = ''
  cassandra_compaction_throughput_mb: int = (
      cassandra_config.DEFAULT_COMPACTION_THROUGHPUT
  )
  cassandra_concurrent_reads: int = 0
  cassandra_concurrent_writes: int = 0
  cassandra_concurrent_compactors: int = 0
  cassandra_memtable_allocation_type: str = ''
  cassandra_trickle_fsync: bool = False
  phases: tuple[str, ...] = DEFAULT_PHASES
  cloud: str = 'GCP'
  server_machine_type: str = ''
  loader_machine_type: str = ''
  server_count: int = 3
  # 'local': all local SSDs in one RAID0 (rejected on types without them);
  # 'network': one network disk of network_disk_gb; 'declared': see
  # DATA_DISKS.
  data_disk: str = 'local'
  network_disk_gb: int = 1000
  # The servers' data directory: ScyllaDB's, or the mount point the static
  # VMs declare (data_disk 'declared').
  data_dir: str = SCYLLA_DATA_DIR
  # Static servers only: block devices scylla_raid_setup builds the data
  # volume from (erasing them); () uses the declared disk as it is.
  raid_devices: tuple[str, ...] = ()
  # Whether the group's VMs are static VMs (own machines, PKB's
  # `static_vms`): their type and size are what they report, never a
  # table's, and a price comes only from the user.
  servers_static: bool = False
  loaders_static: bool = False
  # Start on a data directory that holds files this run did not write.
  allow_existing_data: bool = False
  # ScyllaDB server (engine 'scylla'). nic: interface perftune tunes, ''
  # for the default route's; yaml_extra: YAML mapping of extra
  # scylla.yaml settings; bringup_timeout_s: until every node sees every
  # node Up/Normal.
  cluster_name: str = 'scylla_phases'
  nic: str = ''
  io_setup: str = 'reuse'
  # Whether scylla_setup may make a swap file where a server has no swap.
  swap_setup: bool = True
  yaml_extra: str = ''
  bringup_timeout_s: int = 1800
  loader_count: int = 4
  replication_factor: int = 3
  consistency_level: str = 'QUORUM'
  compaction_strategy: str = 'SizeTieredCompactionStrategy'
  tablets: bool = False
  keyspace: str = 'keyspace1'
  # Data set: a key count, or 0 to derive it from data_set_bytes, or from
  # data_to_ram_ratio times the cluster's RAM when that is 0 too.
  num_keys: int = 0
  data_set_bytes: int = 0
  data_to_ram_ratio: float = 4.0
  column_size: int = 1024
  column_count: int = 1
  # Loader concurrency.
  threads: int = 256
  populate_threads: int = 256
  # read phase: warm-up, then small / medium / large sub-phases.
  read_warmup_s: int = 300
  read_duration_s: int = 1800
  # The small read's own duration (the c3.2xlarge study: 20 min against 60
  # for medium and large); 0 means read_duration_s.
  read_small_duration_s: int = 0
  read_small_stdev: int = 10000
  medium_working_set_to_ram: float = 2.0
  # latency phase: a ladder of fixed cluster rates.
  latency_rates: tuple[int, ...] = (5000, 10000, 20000, 30000)
  latency_duration_s: int = 1800
  latency_threads: int = 64
  # reads during writes.
  rdw_write_rate: int = 10000
  rdw_writer_fraction: float = 0.5
  rdw_write_range_fraction: float = 0.1
  rdw_read_threads: int = 8
  rdw_duration_s: int = 1800
  rdw_read_delay_s: int = 0
  # mixed and the Z3 study's single-type runs.
  mixed_duration_s: int = 1800
  mixed_write_ratio: int = 1
  mixed_read_ratio: int = 1
  # keys the mixed run visits: one of the read phase's distributions.
  mixed_distribution: str = 'medium'
  write_only_duration_s: int = 1800
  read_cache_duration_s: int = 1800
  # quiesce.
  quiesce_poll_s: int = 5
  quiesce_settle_s: int = 180
  quiesce_timeout_s: int = 86400
  # measurement. step_grace_s: a timed step's commands are stopped this
  # long after its length (a hung loader ends the step at that bound).
  hdr_interval_s: int = 10
  step_grace_s: int = 600
  # Each server samples itself during every stress step (its CPU, data
  # disk, network and the database's metrics page): the evidence of where
  # a step's limit was.
  sample_servers: bool = True
  loader_cpu_threshold: float = 95.0
  loader_saturation_action: str = 'mark'
  # The loaders' JVMs (core/stress/loader_jvm.py): collector, and fixed heap
  # in GB (0: the smaller of 8 GB and a quarter of the loader's memory).
  loader_gc: str = 'auto'
  loader_heap_gb: float = 0.0
  # Rounds of the measured steps in one cluster (populate and its quiesce
  # run once); each repeat is published with its number.
  repeats: int = 1
  # cost overrides, USD per hour per VM; 0 means "use the price table".
  server_price_per_hour: float = 0.0
  loader_price_per_hour: float = 0.0


def ParseRelease(release):
  """'2025.1' -> (2025, 1); '6.2.3' -> (6, 2, 3)."""
  return tuple(int(p) for p in release.split('.'))


def _ValidateLoaderJvm(s):
  """The loader collector exists on the Java the stress tool runs on."""
  _Choice('loader_gc', s.loader_gc, loader_jvm.GC_CHOICES)
  _AtLeast('loader_heap_gb', s.loader_heap_gb, 0)
  if s.loader_gc != 'zgc':
    return
  requirement = stress_tools.StressToolOf(s).java
  if requirement.maximum is not None:
    try:
      loader_jvm.Collector(
          s.loader_gc, requirement.maximum, f'for {requirement.who}'
      )
    except ValueError as e:
      raise SettingsError('loader_gc', str(e)) from e


def _Choice(field, value, allowed):
  if value not in allowed:
    raise SettingsError(field, f'{value!r} is not one of: {", ".join(allowed)}')


def _AtLeast(field, value, minimum):
  if value < minimum:
    raise SettingsError(field, f'{value} must be at least {minimum}')


def _Fraction(field, value):
  if not 0 < value < 1:
    raise SettingsError(field, f'{value} must be between 0 and 1 (exclusive)')


def _ValidateCassandra(s):
  """Checks the Cassandra version and tuning, where they are used."""
  _Choice('cassandra_gc', s.cassandra_gc, cassandra_config.GCS)
  _Choice(
      'cassandra_memtable_allocation_type',
      s.cassandra_memtable_allocation_type,
      cassandra_config.MEMTABLE_ALLOCATION_TYPES,
  )
  for field in (
      'cassandra_heap_gb',
      'cassandra_concurrent_reads',
      'cassandra_concurrent_writes',
      'cassandra_concurrent_compactors',
  ):
    _AtLeast(field, getattr(s, field), 0)
  _AtLeast(
      'cassandra_compaction_throughput_mb',
      s.cassandra_compaction_throughput_mb,
      cassandra_config.DEFAULT_COMPACTION_THROUGHPUT,
  )
  if s.engine == 'cassandra' or s.stress_tool == 'apache':
    try:
      cassandra_config.SeriesOf(s.cassandra_version)
    except ValueError as e:
      raise SettingsError('cassandra_version', str(e)) from e
  if s.engine == 'cassandra':
    try:
      cassandra_config.CheckGc(s.cassandra_version, s.cassandra_gc)
    except ValueError as e:
      raise SettingsError('cassandra_gc', str(e)) from e


def _ValidateSources(s):
  """Checks the download URL templates and checksums."""
  for field, version in (
      ('cassandra_url', s.cassandra_version),
      ('stress_url', s.stress_release),
      ('repo_url', s.release),
      ('repo_key_url', s.release),
  ):
    template = getattr(s, field)
    if field.startswith('repo') and not template:
      continue
    try:
      artifacts.ExpandUrl(template, version)
    except ValueError as e:
      raise SettingsError(field, str(e)) from e
  for field in ('cassandra_checksum', 'stress_checksum'):
    if getattr(s, field):
      try:
        artifacts.ParseChecksum(getattr(s, field))
      except ValueError as e:
        raise SettingsError(field, str(e)) from e
  _ValidateAptKeys(s)


def _ValidateAptKeys(s):
  """Checks where the apt signing keys come from and which they must be."""
  try:
    scylla_config.ParseKeyServer(s.key_server)
  except ValueError as e:
    raise SettingsError('key_server', str(e)) from e
  if s.repo_key_url and s.key_server != scylla_config.APT_KEYSERVER:
    raise SettingsError(
        'key_server',
        f'{s.key_server} would not be asked: the keys come from'
        ' --scylla_repo_key_url; give one of the two',
    )
  for fingerprint in s.repo_key_fingerprints:
    if not scylla_config.IsFingerprint(fingerprint):
      raise SettingsError(
          'repo_key_fingerprints',
          f'{fingerprint!r} is not a full key fingerprint (40 hex digits,'
          ' as gpg --with-colons prints it in its fpr records)',
      )
  if s.repo_key_fingerprints and not s.repo_url:
    raise SettingsError(
        'repo_key_fingerprints',
        (
            "names a mirror's own signing keys: give the mirror"
            " (--scylla_repo_url) too; ScyllaDB's repositories are checked"
            " against ScyllaDB's keys"
        ),
    )


def _ValidateReleases(s):
  """Checks the releases to install against the project's table."""
  if s.engine == 'scylla':
    try:
      releases.CheckScyllaServed(s.release)
    except ValueError as e:
      raise SettingsError('release', str(e)) from e
  if s.allow_unknown_releases:
    return
  checks = []
  if s.engine == 'scylla':
    checks.append(('release', releases.CheckScylla, s.release))
  if s.engine == 'cassandra' or s.stress_tool == 'apache':
    checks.append(
        ('cassandra_version', releases.CheckCassandra, s.cassandra_version)
    )
  if s.stress_tool == 'scylla':
    checks.append(
        ('stress_release', releases.CheckScyllaStress, s.stress_release)
    )
  for field, check, value in checks:
    try:
      check(value)
    except ValueError as e:
      raise SettingsError(field, str(e)) from e


def _ValidateDataDisk(s):
  """Checks the data disk against the kind of server VMs."""
  _Choice('data_disk', s.data_disk, DATA_DISKS)
  if s.servers_static and s.data_disk != 'declared':
    raise SettingsError(
        'data_disk',
        f'{s.data_disk!r}: the servers are static VMs (your own machines);'
        ' the benchmark never builds an array or formats a disk on them: use'
        " 'declared', the mount point their disk_specs declare",
    )
  if s.data_disk == 'declared' and not s.servers_static:
    raise SettingsError(
        'data_disk',
        (
            "'declared' needs the servers to be static VMs whose disk_specs"
            " declare the data disk's mount_point"
        ),
    )
  if not re.fullmatch(r'/[A-Za-z0-9_./-]*', s.data_dir) or '..' in s.data_dir:
    raise SettingsError(
        'data_disk', f'{s.data_dir!r} is not an absolute, plain directory path'
    )
  if s.engine == 'scylla' and s.data_dir != SCYLLA_DATA_DIR:
    raise SettingsError(
        'data_disk',
        f'ScyllaDB keeps its data in {SCYLLA_DATA_DIR} (its packages'
        ' and scylla_setup expect it): mount the data disk there, not at'
        f' {s.data_dir}',
    )
  _ValidateRaidDevices(s)


def _ValidateRaidDevices(s):
  """Checks --scylla_raid_devices: device paths, for static ScyllaDB servers.

  Only static servers take devices by name: a cloud server's local SSDs are
  found by the benchmark (data_disk 'local'), and PKB mounts a network disk.
  """
  if not s.raid_devices:
    return
  if s.engine != 'scylla' or not s.servers_static:
    raise SettingsError(
        'raid_devices',
        (
            'names devices of static ScyllaDB servers (your own machines,'
            ' with --scylla_engine=scylla); cloud servers use'
            ' --scylla_data_disk'
        ),
    )
  for device in s.raid_devices:
    if not re.fullmatch(r'/[A-Za-z0-9_./-]+', device) or '..' in device:
      raise SettingsError(
          'raid_devices',
          f'{device!r} is not an absolute device path such as /dev/nvme0n1',
      )
  if len(set(s.raid_devices)) != len(s.raid_devices):
    raise SettingsError(
        'raid_devices', f'{",".join(s.raid_devices)} names a device twice'
    )


def _ValidateScyllaServer(s):
  """Checks the ScyllaDB server settings."""
  _Choice('io_setup', s.io_setup, IO_SETUPS)
  if not re.fullmatch(r'[A-Za-z0-9_.-]{1,64}', s.cluster_name):
    raise SettingsError(
        'cluster_name', f'{s.cluster_name!r}: use 1-64 of A-Z a-z 0-9 _ . -'
    )
  if not re.fullmatch(r'([A-Za-z0-9_][A-Za-z0-9_.:-]{0,14})?', s.nic):
    raise SettingsError(
        'nic',
        f'{s.nic!r} is not a network interface name (1-15 of A-Z a-z 0-9'
        ' _ . : -, not starting with -)',
    )
  try:
    scylla_config.ParseYamlExtra(s.yaml_extra)
  except ValueError as e:
    raise SettingsError('yaml_extra', str(e)) from e
  _AtLeast('bringup_timeout_s', s.bringup_timeout_s, 60)


def Validate(s):
  """Checks every setting and their combinations.

  Args:
    s: a Settings.

  Returns:
    s, for chaining.

  Raises:
    SettingsError: naming the flag and the allowed values.
  """
  _Choice('engine', s.engine, ENGINES)
  _Choice('stress_tool', s.stress_tool, STRESS_TOOLS)
  _Choice('consistency_level', s.consistency_level, CONSISTENCY_LEVELS)
  _Choice('compaction_strategy', s.compaction_strategy, COMPACTION_STRATEGIES)
  if not _RELEASE_RE.fullmatch(s.release):
    raise SettingsError(
        'release',
        f'{s.release!r} is not a ScyllaDB release such as 2025.1 or 6.2.3',
    )
  if not _VERSION_RE.fullmatch(s.cassandra_version):
    raise SettingsError(
        'cassandra_version',
        f'{s.cassandra_version!r} is not a version such as 5.0.6',
    )
  if not _RELEASE_RE.fullmatch(s.stress_release):
    raise SettingsError(
        'stress_release', f'{s.stress_release!r} is not a version like 3.18.1'
    )
  _ValidateDataDisk(s)
  _AtLeast('network_disk_gb', s.network_disk_gb, 10)
  _ValidateScyllaServer(s)
  _ValidateSources(s)
  _Choice('mixed_distribution', s.mixed_distribution, READ_DISTRIBUTIONS)
  if (
      s.stress_tool == 'scylla'
      and s.compaction_strategy not in SCYLLA_STRESS_COMPACTION_STRATEGIES
  ):
    raise SettingsError(
        'compaction_strategy',
        f"ScyllaDB's cassandra-stress rejects {s.compaction_strategy}; use"
        ' --scylla_stress_tool=apache or another strategy',
    )
  _Choice(
      'loader_saturation_action',
      s.loader_saturation_action,
      SATURATION_ACTIONS,
  )
  if s.stress_tool == 'scylla':
    try:
      stress_tools.CheckScyllaRelease(s.stress_release)
    except ValueError as e:
      raise SettingsError('stress_release', str(e)) from e
  _ValidateCassandra(s)
  if not s.phases:
    raise SettingsError('phases', 'select at least one phase')
  for phase in s.phases:
    _Choice('phases', phase, PHASES)
  if len(set(s.phases)) != len(s.phases):
    raise SettingsError('phases', f'{",".join(s.phases)} repeats a phase')
  if not re.fullmatch(r'[A-Za-z][A-Za-z0-9_]{0,47}', s.keyspace):
    raise SettingsError('keyspace', f'{s.keyspace!r} is not a CQL identifier')
  if s.keyspace.lower().startswith('system'):
    raise SettingsError(
        'keyspace', f'{s.keyspace!r}: system* keyspaces belong to the database'
    )
  if s.keyspace.upper() in CQL_RESERVED_KEYWORDS:
    raise SettingsError(
        'keyspace',
        f'{s.keyspace!r} is a reserved CQL keyword, which cassandra-stress'
        ' cannot use unquoted',
    )
  for field in ('server_count', 'loader_count', 'replication_factor'):
    _AtLeast(field, getattr(s, field), 1)
  if s.replication_factor > s.server_count:
    raise SettingsError(
        'replication_factor',
        f'{s.replication_factor} is above the server count {s.server_count}',
    )
  if s.tablets and s.engine != 'scylla':
    raise SettingsError(
        'tablets', 'tablets exist only with --scylla_engine=scylla'
    )
  if s.tablets and ParseRelease(s.release)[:2] < TABLETS_MIN_RELEASE:
    raise SettingsError(
        'tablets',
        f'ScyllaDB {s.release} has no tablets (first in'
        f' {".".join(map(str, TABLETS_MIN_RELEASE))})',
    )
  for field in (
      'num_keys',
      'data_set_bytes',
      'read_warmup_s',
      'read_small_duration_s',
  ):
    _AtLeast(field, getattr(s, field), 0)
  for field in (
      'column_size',
      'column_count',
      'threads',
      'populate_threads',
      'read_duration_s',
      'read_small_stdev',
      'latency_duration_s',
      'latency_threads',
      'rdw_write_rate',
      'rdw_read_threads',
      'rdw_duration_s',
      'mixed_duration_s',
      'write_only_duration_s',
      'read_cache_duration_s',
      'quiesce_poll_s',
      'hdr_interval_s',
  ):
    _AtLeast(field, getattr(s, field), 1)
  _AtLeast('step_grace_s', s.step_grace_s, 10)
  _AtLeast('repeats', s.repeats, 1)
  _AtLeast('mixed_write_ratio', s.mixed_write_ratio, 0)
  _AtLeast('mixed_read_ratio', s.mixed_read_ratio, 0)
  if s.mixed_write_ratio + s.mixed_read_ratio == 0:
    raise SettingsError('mixed_write_ratio', 'write and read ratios are both 0')
  _AtLeast('quiesce_settle_s', s.quiesce_settle_s, 0)
  _AtLeast('quiesce_timeout_s', s.quiesce_timeout_s, s.quiesce_poll_s)
  if s.data_to_ram_ratio <= 0:
    raise SettingsError('data_to_ram_ratio', 'must be positive')
  if s.medium_working_set_to_ram <= 0:
    raise SettingsError('medium_working_set_to_ram', 'must be positive')
  if not s.latency_rates:
    raise SettingsError('latency_rates', 'give at least one rate')
  for rate in s.latency_rates:
    _AtLeast('latency_rates', rate, 1)
  if len(set(s.latency_rates)) != len(s.latency_rates):
    raise SettingsError(
        'latency_rates',
        f'{",".join(map(str, s.latency_rates))} repeats a rate (each rate'
        ' names its step)',
    )
  _Fraction('rdw_writer_fraction', s.rdw_writer_fraction)
  _AtLeast('rdw_read_delay_s', s.rdw_read_delay_s, 0)
  if s.rdw_read_delay_s >= s.rdw_duration_s:
    raise SettingsError(
        'rdw_read_delay_s',
        f'{s.rdw_read_delay_s} s leaves the readers no time: it must be'
        f' below rdw ({s.rdw_duration_s} s)',
    )
  _Fraction('rdw_write_range_fraction', s.rdw_write_range_fraction)
  if 'reads_during_writes' in s.phases and s.loader_count < 2:
    raise SettingsError(
        'loader_count',
        'reads_during_writes needs at least 2 loaders (writers and readers)',
    )
  if not 0 < s.loader_cpu_threshold <= 100:
    raise SettingsError('loader_cpu_threshold', 'must be in (0, 100] percent')
  _ValidateLoaderJvm(s)
  _AtLeast('server_price_per_hour', s.server_price_per_hour, 0)
  _AtLeast('loader_price_per_hour', s.loader_price_per_hour, 0)
  _ValidateReleases(s)
  problem = settings_limits.FirstProblem(s, Settings())
  if problem:
    raise SettingsError(*problem)
  return s
