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

"""Apache Cassandra configuration, chosen by version: pure functions.

The Cassandra engine installs the Apache binary tarball of the version the
user pins (`--scylla_cassandra_version`) and writes its own `cassandra.yaml`.
What differs between the supported release series lives here:

* Java: 4.0 and 4.1 run on Java 11 (their newest supported JDK), 5.0 on 17.
* yaml key names: 4.1 renamed the unit-suffixed keys
  (`compaction_throughput_mb_per_sec: 64` became `compaction_throughput:
  64MiB/s`, `commitlog_sync_period_in_ms` became `commitlog_sync_period`);
  4.0 knows only the old names.
* Garbage collector: 4.0 and 4.1 ship CMS enabled in `jvm11-server.options`,
  5.0 ships G1 in `jvm11-server.options` and `jvm17-server.options`. CMS is
  gone from Java 14 on, so it is only offered for the Java 11 series.

Tuning values of 0 (or '', or -1 for compaction throughput, where 0 means
"unthrottled" to Cassandra) leave Cassandra's own default in force: the key
is not written at all.
"""

import dataclasses
import json
import re

from perfkit_plugins.core.software import artifacts
from perfkit_plugins.core.software import java

ARCHIVE_URL = (
    'https://archive.apache.org/dist/cassandra/{version}/'
    'apache-cassandra-{version}-bin.tar.gz'
)

GCS = ('', 'G1', 'CMS')
MEMTABLE_ALLOCATION_TYPES = (
    '',
    'heap_buffers',
    'offheap_buffers',
    'offheap_objects',
)
# cassandra_compaction_throughput_mb value that keeps Cassandra's default.
DEFAULT_COMPACTION_THROUGHPUT = -1
# Cassandra's own data center and rack names for a single-DC cluster.
DATACENTER = 'datacenter1'
# Tokens per node (vnodes): few, so that a small cluster's ranges stay even.
NUM_TOKENS = 16
RACK = 'rack1'
# Subdirectories of the data disk, by cassandra.yaml key.
DATA_SUBDIRS = (
    ('data_file_directories', 'data'),
    ('commitlog_directory', 'commitlog'),
    ('saved_caches_directory', 'saved_caches'),
    ('hints_directory', 'hints'),
    ('cdc_raw_directory', 'cdc_raw'),
)

# Options every node starts with. A node waits at least 8 s for gossip to
# settle before it opens CQL (5 s, then 3 polls a second apart without a
# change); here no node bootstraps (its tokens are in cassandra.yaml) and no
# client connects before every node sees every node Up/Normal (the bring-up
# asks each node), so that wait only delays the run. The ring delay stays:
# a node whose seeds have not answered yet waits that long for them.
START_OPTIONS = ('-Dcassandra.skip_wait_for_gossip_to_settle=0',)

# The collectors' settings as Cassandra itself ships them: G1 from 5.0's
# jvm17-server.options, CMS from 4.x's jvm11-server.options.
GC_OPTIONS = {
    'G1': (
        '-XX:+UseG1GC',
        '-XX:+ParallelRefProcEnabled',
        '-XX:MaxTenuringThreshold=1',
        '-XX:G1HeapRegionSize=16m',
        '-XX:G1RSetUpdatingPauseTimePercent=5',
        '-XX:MaxGCPauseMillis=300',
        '-XX:InitiatingHeapOccupancyPercent=70',
    ),
    'CMS': (
        '-XX:+UseConcMarkSweepGC',
        '-XX:+CMSParallelRemarkEnabled',
        '-XX:SurvivorRatio=8',
        '-XX:MaxTenuringThreshold=1',
        '-XX:CMSInitiatingOccupancyFraction=75',
        '-XX:+UseCMSInitiatingOccupancyOnly',
        '-XX:CMSWaitDuration=10000',
        '-XX:+CMSParallelInitialMarkEnabled',
        '-XX:+CMSEdenChunksRecordAlways',
        '-XX:+CMSClassUnloadingEnabled',
    ),
}
# sed -E expression that comments out every collector choice and collector
# tunable in a shipped jvm*-server.options file, so the GC_OPTIONS block the
# engine appends is the only one in force (two collectors make the JVM exit).
GC_LINES_SED = (
    r's/^-XX:[+-]?(Use(ConcMarkSweep|ParNew|G1)GC|UseCMS[A-Za-z]*'
    r'|CMS[A-Za-z]*|G1[A-Za-z]*|ParallelRefProcEnabled|MaxTenuringThreshold'
    r'|SurvivorRatio|MaxGCPauseMillis|InitiatingHeapOccupancyPercent'
    r'|ParallelGCThreads|ConcGCThreads)([=[:space:]]|$)/#&/'
)
# cassandra-env.sh's young generation rule for CMS: 100 MB per CPU, at most
# a quarter of the heap.
_YOUNG_MB_PER_CPU = 100

_VERSION_RE = re.compile(r'^(\d+)\.(\d+)\.(\d+)$')
_RELEASE_VERSION_RE = re.compile(r'^ReleaseVersion:\s*(\S+)\s*$', re.M)


@dataclasses.dataclass(frozen=True)
class Series:
  """What one Cassandra release series needs.

  Attributes:
    java: the JDK major version it runs on.
    unit_keys: whether cassandra.yaml takes the 4.1+ key names with units.
    default_gc: the collector its shipped jvm options enable.
  """

  java: int
  unit_keys: bool
  default_gc: str


SERIES = {
    (4, 0): Series(java=11, unit_keys=False, default_gc='CMS'),
    (4, 1): Series(java=11, unit_keys=True, default_gc='CMS'),
    (5, 0): Series(java=17, unit_keys=True, default_gc='G1'),
}


def SeriesOf(version):
  """The Series of a Cassandra version such as '5.0.6'.

  Raises:
    ValueError: not X.Y.Z, or a series this benchmark does not configure.
  """
  match = _VERSION_RE.fullmatch(version)
  if not match:
    raise ValueError(f'{version!r} is not a version such as 5.0.6')
  key = (int(match.group(1)), int(match.group(2)))
  if key not in SERIES:
    supported = ', '.join(f'{a}.{b}' for a, b in sorted(SERIES))
    raise ValueError(
        f'Cassandra {version} is not supported; supported series: {supported}'
    )
  return SERIES[key]


def Tarball(settings):
  """The Apache Cassandra binary tarball the settings select.

  From --scylla_cassandra_url (default: the Apache archive, PKB's URL
  scheme), checked against --scylla_cassandra_checksum, the pinned sha512
  of that version, or Apache's published `.sha512`.

  Returns:
    artifacts.Artifact.
  """
  version = settings.cassandra_version
  return artifacts.Make(
      f'Apache Cassandra {version} binary tarball',
      version,
      settings.cassandra_url,
      'scylla_cassandra_url',
      settings.cassandra_checksum,
      'scylla_cassandra_checksum',
      pinned=artifacts.PINNED_SHA512,
  )


def DirName(version):
  """The tarball's top directory, used as the install directory name."""
  return f'apache-cassandra-{version}'


def JavaOf(version):
  """The Java a Cassandra version (server and tools) runs on here.

  Exactly its series' JDK: the jvm options files the engine edits are the
  ones that JDK's launcher reads (jvm<N>-server.options).
  """
  return java.Exactly(f'Apache Cassandra {version}', SeriesOf(version).java)


def CheckGc(version, gc):
  """Raises ValueError when collector `gc` does not exist on the JDK used."""
  series = SeriesOf(version)
  if gc == 'CMS' and series.java > 11:
    raise ValueError(
        f'CMS does not exist on Java {series.java}, which Cassandra {version}'
        ' runs on; use G1 or the default'
    )


def _Quote(value):
  """A YAML double-quoted scalar (JSON strings are valid YAML)."""
  return json.dumps(str(value))


def TuningOptions(settings):
  """cassandra.yaml (key, value) pairs for the tuning settings that are set.

  Args:
    settings: a validated settings.Settings.

  Returns:
    list of (key, value text), in a fixed order; unset tuning is left out.
  """
  series = SeriesOf(settings.cassandra_version)
  options = []
  for key in ('concurrent_reads', 'concurrent_writes', 'concurrent_compactors'):
    value = getattr(settings, f'cassandra_{key}')
    if value:
      options.append((key, str(value)))
  throughput = settings.cassandra_compaction_throughput_mb
  if throughput != DEFAULT_COMPACTION_THROUGHPUT:
    if series.unit_keys:
      options.append(('compaction_throughput', f'{throughput}MiB/s'))
    else:
      options.append(('compaction_throughput_mb_per_sec', str(throughput)))
  if settings.cassandra_memtable_allocation_type:
    options.append((
        'memtable_allocation_type',
        settings.cassandra_memtable_allocation_type,
    ))
  if settings.cassandra_trickle_fsync:
    options.append(('trickle_fsync', 'true'))
  return options


def YamlContext(
    settings,
    *,
    cluster_name,
    seed_ips,
    initial_tokens,
    listen_address,
    data_dir,
    storage_port=7000,
    native_port=9042,
):
  """The context of the cassandra.yaml.j2 template.

  Strings that reach YAML are already quoted; `options` holds the
  version-dependent and tuning keys as (key, value) pairs.

  Args:
    settings: a validated settings.Settings.
    cluster_name: the cluster's name (the same on every node).
    seed_ips: addresses of the seed nodes.
    initial_tokens: this node's NUM_TOKENS tokens (token_ring.EvenTokens).
    listen_address: this node's address (listen and CQL).
    data_dir: the data disk's mount point; every directory goes below it.
    storage_port: internode port.
    native_port: CQL port.

  Returns:
    dict for the template.
  """
  series = SeriesOf(settings.cassandra_version)
  if series.unit_keys:
    sync_period = ('commitlog_sync_period', '10000ms')
  else:
    sync_period = ('commitlog_sync_period_in_ms', '10000')
  dirs = {key: f'{data_dir}/{sub}' for key, sub in DATA_SUBDIRS}
  return {
      'cluster_name': _Quote(cluster_name),
      'num_tokens': NUM_TOKENS,
      'initial_token': ','.join(str(int(t)) for t in initial_tokens),
      'seeds': _Quote(','.join(f'{ip}:{storage_port}' for ip in seed_ips)),
      'listen_address': _Quote(listen_address),
      'storage_port': int(storage_port),
      'native_port': int(native_port),
      'data_file_directory': _Quote(dirs.pop('data_file_directories')),
      'directories': [(k, _Quote(v)) for k, v in dirs.items()],
      'options': [sync_period] + TuningOptions(settings),
  }


def RackdcContext():
  """The context of cassandra-rackdc.properties.j2 (one DC, one rack)."""
  return {'datacenter': DATACENTER, 'rack': RACK}


def EffectiveGc(settings):
  """The collector the node runs: the chosen one or the series default."""
  series = SeriesOf(settings.cassandra_version)
  return settings.cassandra_gc or series.default_gc


def JvmOptions(settings, num_cpus):
  """JVM options the engine appends to jvm-server.options.

  START_OPTIONS always. Heap: -Xms and -Xmx both (cassandra-env.sh insists on
  the pair), plus -Xmn under CMS by cassandra-env.sh's own young generation
  rule. GC: the chosen collector's block (GC_OPTIONS).

  Args:
    settings: a validated settings.Settings.
    num_cpus: the server's vCPU count (cassandra-env.sh counts processors).

  Returns:
    tuple of options.
  """
  options = list(START_OPTIONS)
  heap_gb = settings.cassandra_heap_gb
  if heap_gb:
    options += [f'-Xms{heap_gb}G', f'-Xmx{heap_gb}G']
    if EffectiveGc(settings) == 'CMS':
      young_mb = min(_YOUNG_MB_PER_CPU * num_cpus, heap_gb * 1024 // 4)
      options.append(f'-Xmn{young_mb}M')
  if settings.cassandra_gc:
    options += GC_OPTIONS[settings.cassandra_gc]
  return tuple(options)


def JvmOptionsFiles(version):
  """Shipped jvm options files the JVM of `version` reads, common one first."""
  return ('jvm-server.options', f'jvm{SeriesOf(version).java}-server.options')


def ParseReleaseVersion(text):
  """Parses `nodetool version` ('ReleaseVersion: 5.0.9') into '5.0.9'.

  Raises:
    ValueError: no ReleaseVersion line (nodetool failed).
  """
  match = _RELEASE_VERSION_RE.search(text)
  if not match:
    raise ValueError(f'no ReleaseVersion in nodetool version output:\n{text}')
  return match.group(1)
