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

"""The contract of what the benchmark publishes: every metric and key.

Every metric (name, unit, what it is per) and every `scylla_` metadata key
(name, type, where it appears, meaning) the benchmark's samples carry, so
a pipeline knows what it reads and a test (tests/core/results/
test_metadata_reference.py, tests/shell/test_run_pkb.py) fails when the
code publishes a metric, unit, key or type this does not list. A key has
one type in every run: a fact that has no single value on some samples
(nodes that differ, loaders with different thread counts) is left out
there, never turned into text.

docs/metadata.md is Markdown() of this module, written by
`python -m perfkit_plugins.tools.metadata_reference > docs/metadata.md`.
"""

import dataclasses
import re

from perfkit_plugins.core.results import publishable
from perfkit_plugins.core.results import step_results

INT = 'int'
FLOAT = 'float'
STR = 'str'
BOOL = 'bool'
LIST = 'list'
TYPES = {
    INT: 'a whole number',
    FLOAT: 'a number with a fraction (JSON writes 30.0 for thirty)',
    STR: 'text',
    BOOL: 'true or false',
    LIST: (
        'text: the values in brackets, comma-separated, whatever their'
        ' count: `[250]` with one loader, `[125,125]` with two, `[]` with'
        ' none, so that no index that guesses types from the first value it'
        ' sees takes a one-loader run for a number; more than'
        f' {publishable.MAX_LIST_ITEMS} values are summed up as'
        ' `[first,second,...,last] (N values)`'
    ),
}
"""Each type a key can have, and what a value of it looks like."""
_PYTHON_TYPES = {INT: int, FLOAT: float, STR: str, BOOL: bool, LIST: str}

COMMAND = (
    'python -m perfkit_plugins.tools.metadata_reference > docs/metadata.md'
)
"""The command that writes docs/metadata.md from this module."""


ALWAYS = 'every run'
"""The condition of a key that every run publishes on its samples."""
_WHEN_READS = 'the read, read_cache or mixed phase runs'
_WHEN_WRITES = 'the populate, latency or write_only phase runs'
_WHEN_RDW = 'the reads_during_writes phase runs (it needs two loaders)'
_WHEN_QUIESCE = (
    'the quiesce phase runs, latency runs two rates or more, or a writing'
    ' phase runs twice or more (`--scylla_repeats`): flush_quiesce steps'
)
_WHEN_FIXED_RATE = (
    'an op type runs at a fixed rate: latency, or populate, write_only and'
    ' reads_during_writes with a rate set'
)
_WHEN_SCYLLA = '`--scylla_engine=scylla`'
_WHEN_IO = _WHEN_SCYLLA + ' and its io_properties.yaml holds the figure'
_WHEN_PRICE = (
    'a price is known: a machine type of the catalog, or'
    ' `--scylla_server_price_per_hour` (own machines and scylla-phases-local'
    ' have none)'
)
_WHEN_SERVERS_AGREE = 'the servers agree in it'
_WHEN_LOADERS_AGREE = 'the loaders agree in it'


@dataclasses.dataclass(frozen=True)
class Metric:
  """A published metric.

  Attributes:
    name: the sample's metric.
    unit: the sample's unit ('' for none).
    per: what one sample of it describes.
    meaning: what it measures.
  """

  name: str
  unit: str
  per: str
  meaning: str


@dataclasses.dataclass(frozen=True)
class Key:
  """A published metadata key.

  Attributes:
    name: the key; a `<part>` in it stands for a name the run supplies
      (a family of keys, e.g. `scylla_stress_<component>`).
    type: one of TYPES.
    where: the samples that carry it.
    meaning: what its value says.
    when: the runs that publish it (ALWAYS: every run that reaches those
      samples), so that a key a run lacks is explained by its settings.
  """

  name: str
  type: str
  where: str
  meaning: str
  when: str = ALWAYS

  @property
  def pattern(self):
    """A regex every name of the key (or of its family) matches."""
    parts = re.split(r'<[a-z]+>', self.name)
    return re.compile('[A-Za-z0-9_]+'.join(re.escape(p) for p in parts) + r'\Z')


@dataclasses.dataclass(frozen=True)
class Section:
  """Keys about one subject, rendered as one table."""

  title: str
  keys: tuple[Key, ...]


_STRESS_OP = 'step and op type (`scylla_op`)'
_SERVER = 'stress step and server (`scylla_server`), when it was sampled'
_SERVER_DISK = _SERVER + ' and its data directory is on a disk'
_SERVER_SCYLLA = _SERVER + ' and its ScyllaDB metrics page was read'
_SERVER_POOLS = (
    _SERVER
    + ', Apache Cassandra, and its nodetool tpstats answered as the'
    ' step started and ended'
)
_LATENCY = 'step, op type and latency kind (`scylla_latency_kind`)'
_QUIESCE = 'quiesce and flush_quiesce step'

METRICS = (
    Metric(
        'op_rate',
        'op/s',
        _STRESS_OP,
        (
            "Operations per second of the op type's loaders together, over the"
            ' window they all ran (`scylla_window_start`..`scylla_window_end`).'
        ),
    ),
    Metric(
        'partition_rate',
        'pk/s',
        _STRESS_OP,
        (
            'Partitions per second over the same window: op_rate times the'
            " partitions per operation of the loaders' totals."
        ),
    ),
    Metric(
        'row_rate',
        'row/s',
        _STRESS_OP,
        'Rows per second over the same window, as partition_rate.',
    ),
    Metric(
        'operations',
        'operations',
        _STRESS_OP,
        "Operations the op type's loaders completed in the step, summed.",
    ),
    Metric(
        'errors',
        'errors',
        _STRESS_OP,
        'Errors cassandra-stress counted, summed over the loaders.',
    ),
    Metric(
        'duration',
        's',
        _STRESS_OP,
        "From the first of the op type's loaders to start to the last to end.",
    ),
    Metric(
        'op_rate_per_vcpu',
        'op/s/vCPU',
        _STRESS_OP,
        'op_rate divided by the vCPUs of all servers (`scylla_server_vcpus`).',
    ),
    Metric(
        'op_rate_per_shard',
        'op/s/shard',
        _STRESS_OP + ', when the shards are known (ScyllaDB)',
        'op_rate divided by the shards of all servers (`scylla_shards`).',
    ),
    Metric(
        'ops_per_dollar',
        'op/$',
        _STRESS_OP + ", when the servers' price is known",
        (
            'Operations one dollar buys at op_rate, counting the servers only'
            ' (`scylla_cost_counts`), at `scylla_price_usd_per_hour`.'
        ),
    ),
    Metric(
        'dollars_per_million_ops',
        '$',
        _STRESS_OP + ", when the servers' price is known",
        'Dollars a million operations cost at op_rate, servers only.',
    ),
    Metric(
        'latency_mean',
        'ms',
        _LATENCY,
        (
            "Mean latency of every operation of the step, from the loaders' HDR"
            ' histograms merged.'
        ),
    ),
    Metric(
        'latency_p50',
        'ms',
        _LATENCY,
        (
            'Median of the merged histograms (never an average of the'
            " loaders' percentiles)."
        ),
    ),
    Metric('latency_p95', 'ms', _LATENCY, '95th percentile, as latency_p50.'),
    Metric('latency_p99', 'ms', _LATENCY, '99th percentile, as latency_p50.'),
    Metric(
        'latency_p999', 'ms', _LATENCY, '99.9th percentile, as latency_p50.'
    ),
    Metric('latency_max', 'ms', _LATENCY, 'Slowest operation of the step.'),
    Metric(
        'op_rate_series',
        'op/s',
        _STRESS_OP,
        (
            'PKB time series: the op rate of each HDR interval (`values`,'
            ' `timestamps` in ms, `interval` in s); the value is 0.'
        ),
    ),
    Metric(
        'latency_p99_series',
        'ms',
        _LATENCY,
        'PKB time series: the p99 of each HDR interval that had operations.',
    ),
    Metric(
        'loader_cpu_max',
        '%',
        'stress step, when the loaders sampled their CPU',
        (
            'Busy share of the busiest loader over the step: what'
            ' `--scylla_loader_cpu_threshold` is compared with.'
        ),
    ),
    Metric(
        'loader_stop_max',
        'ms',
        'stress step, when the loaders logged their JVM stops (Java 17+)',
        (
            "Longest stop of any loader's JVM in the step's window: a"
            ' safepoint (collector pause or other) or a ZGC stall. Requests'
            ' scheduled during a stop are late by up to its length.'
        ),
    ),
    Metric(
        'loader_start_skew',
        's',
        'stress step',
        (
            "How far apart the loaders' first HDR intervals lie on the"
            " controller's clock (clock offsets applied; a run planned to"
            ' start late counts from its planned start): every second of it'
            ' is a second of the step outside the window all loaders share.'
        ),
    ),
    Metric(
        'loader_end_skew',
        's',
        'stress step',
        (
            "How far apart the loaders' last HDR intervals end (a counted"
            ' step such as populate ends each loader when its keys are'
            ' written).'
        ),
    ),
    Metric(
        'populate_time',
        's',
        'the quiesce step after populate',
        'From the start of the load (the earliest loader start) to its end.',
    ),
    Metric(
        'time_to_compact',
        's',
        'the quiesce step after populate; every flush_quiesce step',
        (
            'From the end of the load (populate; for a flush_quiesce step, the'
            ' step before it) to the end of the last compaction of the keyspace'
            ' (0 when none ended after the load).'
        ),
    ),
    Metric(
        'total_time_to_quiesce',
        's',
        'the quiesce step after populate',
        'populate_time plus time_to_compact.',
    ),
    Metric(
        'compactions',
        'compactions',
        _QUIESCE,
        (
            "Compactions of the keyspace the nodes' histories show ended after"
            ' the start of the load.'
        ),
    ),
    Metric(
        'compaction_bytes_in',
        'bytes',
        _QUIESCE,
        'Bytes those compactions read.',
    ),
    Metric(
        'compaction_bytes_out',
        'bytes',
        _QUIESCE,
        'Bytes those compactions wrote.',
    ),
    Metric(
        'server_busy_max',
        '%',
        "stress step, when a server's load is known",
        (
            "The busiest server's busy share over the step's window: its"
            " busiest shard's (ScyllaDB's reactor) or, for another engine, its"
            " CPU's (`scylla_server_busy_of`). The limit mark compares it with"
            ' its threshold.'
        ),
    ),
    Metric(
        'server_disk_busy_max',
        '%',
        'stress step, when a data disk is sampled',
        "The busiest data disk's share of the window with I/O in flight.",
    ),
    Metric(
        'server_cpu_busy',
        '%',
        _SERVER,
        (
            "Share of all the server's CPU time busy (neither idle nor waiting"
            ' for I/O), from /proc/stat. A ScyllaDB server polls for work, so'
            ' it looks busy when its shards are not.'
        ),
    ),
    Metric(
        'server_disk_read',
        'bytes/s',
        _SERVER_DISK,
        (
            'Bytes read from the device that holds the data directory'
            ' (/proc/diskstats).'
        ),
    ),
    Metric(
        'server_disk_write',
        'bytes/s',
        _SERVER_DISK,
        'Bytes written to it.',
    ),
    Metric(
        'server_disk_busy',
        '%',
        _SERVER_DISK,
        'Share of the window the device had I/O in flight.',
    ),
    Metric(
        'server_net_received',
        'bytes/s',
        _SERVER,
        'Bytes received by every interface but lo (/proc/net/dev).',
    ),
    Metric(
        'server_net_sent',
        'bytes/s',
        _SERVER,
        'Bytes sent by them.',
    ),
    Metric(
        'server_cpu_busy_series',
        '%',
        _SERVER,
        (
            'A time series of server_cpu_busy over the whole step, one value'
            ' per sample interval (about 5 s).'
        ),
    ),
    Metric(
        'server_compactions_pending_end',
        'compactions',
        _SERVER + ' and the node answered',
        (
            'Compactions waiting on the node as the step ended (its REST'
            ' API; nodetool compactionstats for Apache Cassandra): the'
            ' backlog the step left, which the steps after it pay for.'
        ),
    ),
    Metric(
        'server_dropped_messages',
        'messages',
        _SERVER_POOLS,
        (
            'Messages the node dropped during the step (nodetool tpstats as'
            ' it started and ended), every type: requests that waited in'
            ' its queues longer than their timeout, so failed inside the'
            ' node because it was behind. Any makes the step servers-limited.'
        ),
    ),
    Metric(
        'server_blocked_tasks',
        'tasks',
        _SERVER_POOLS,
        (
            "Tasks the node's thread pools blocked during the step because"
            " their queue was full (tpstats' All time blocked), every pool."
            ' Any makes the step servers-limited.'
        ),
    ),
    Metric(
        'server_reactor_busiest',
        '%',
        _SERVER_SCYLLA,
        (
            "Busy share of the server's busiest shard (from"
            ' `scylla_reactor_cpu_busy_ms`, else the'
            ' `scylla_reactor_utilization` gauge): one saturated shard caps the'
            ' node.'
        ),
    ),
    Metric(
        'server_cql_requests',
        'requests/s',
        _SERVER_SCYLLA,
        'CQL requests served to clients (`scylla_transport_requests_served`).',
    ),
    Metric(
        'server_cache_row_hits',
        '%',
        _SERVER_SCYLLA,
        'Rows read that the cache held.',
    ),
    Metric(
        'server_cache_partition_hits',
        '%',
        _SERVER_SCYLLA,
        'Partitions read that the cache held.',
    ),
    Metric(
        'server_io_read',
        'bytes/s',
        _SERVER_SCYLLA,
        (
            "Bytes ScyllaDB's I/O scheduler read, every class (queries,"
            ' compaction).'
        ),
    ),
    Metric(
        'server_io_write',
        'bytes/s',
        _SERVER_SCYLLA,
        'Bytes it wrote (commitlog, flushes, compaction).',
    ),
    Metric(
        'server_io_queue_delay',
        'ms',
        _SERVER_SCYLLA,
        (
            "Mean time an I/O request waited in ScyllaDB's queue: the disk is"
            ' the limit when it grows.'
        ),
    ),
    Metric(
        'server_compaction_backlog',
        '',
        _SERVER_SCYLLA,
        (
            "Compaction work owed (ScyllaDB's backlog, summed over shards),"
            ' mean over the scrapes.'
        ),
    ),
    Metric(
        'server_compactions_running',
        'compactions',
        _SERVER_SCYLLA,
        'Most compactions running at one scrape.',
    ),
    Metric(
        'server_pending_compactions',
        'compactions',
        _SERVER_SCYLLA,
        'Compactions waiting to run, mean over the scrapes.',
    ),
    Metric(
        'server_foreground_writes',
        'requests',
        _SERVER_SCYLLA,
        'Writes in flight that clients wait for, mean over the scrapes.',
    ),
    Metric(
        'server_background_writes',
        'requests',
        _SERVER_SCYLLA,
        'Writes answered but still applied on replicas, mean over the scrapes.',
    ),
    Metric(
        'server_foreground_reads',
        'requests',
        _SERVER_SCYLLA,
        'Reads in flight that clients wait for, mean over the scrapes.',
    ),
    Metric(
        'server_throttled_writes',
        'requests',
        _SERVER_SCYLLA,
        (
            'Writes held back because background writes reached their limit,'
            ' mean over the scrapes.'
        ),
    ),
    Metric(
        'server_queued_reads',
        'requests',
        _SERVER_SCYLLA,
        (
            'Client reads queued for a read permit (memory or disk), mean over'
            ' the scrapes.'
        ),
    ),
    Metric(
        'server_timeouts',
        'timeouts/s',
        _SERVER_SCYLLA,
        'Read and write timeouts clients saw.',
    ),
    Metric(
        'phase_status',
        '',
        'every step, also one that failed or did not run',
        (
            "1 when the step's figures stand (`scylla_status` ok,"
            ' rate_not_reached, or loader_saturated with the action mark), else'
            ' 0.'
        ),
    ),
)

_EVERY = 'every sample'
_STRESS = 'stress steps'
_OP_SAMPLES = "an op type's samples"
_WRITES = 'populate, latency and write_only steps'
_RDW = 'reads_during_writes'
_QUIESCE_STEPS = 'quiesce and flush_quiesce steps'
_QUIESCE_RESULTS = _QUIESCE_STEPS + ' but phase_status'
_SCYLLA = 'ScyllaDB; left out where the nodes differ'
_SCYLLA_TEXT = (
    "ScyllaDB; each node's value ('node: value; ...') where the nodes differ"
)
_INTERVAL = (
    'op_rate, op_rate_per_vcpu, op_rate_per_shard, ops_per_dollar,'
    ' latency_p50/p95/p99/p999'
)

SECTIONS = (
    Section(
        'Step',
        (
            Key(
                'scylla_phase',
                STR,
                _EVERY,
                (
                    'The phase the step belongs to: populate, quiesce, read,'
                    ' latency, reads_during_writes, mixed, write_only or'
                    ' read_cache (the schema step: the first phase run).'
                ),
            ),
            Key(
                'scylla_step',
                STR,
                _EVERY,
                (
                    'The step: schema, populate, quiesce, read_small,'
                    ' latency_5000, flush_quiesce_before_latency_10000, ...;'
                    ' the same for every repeat of it.'
                ),
            ),
            Key(
                'scylla_sub_phase',
                STR,
                _EVERY,
                "The step's name within its phase (equal to `scylla_step`).",
            ),
            Key(
                'scylla_repeat',
                INT,
                _EVERY,
                (
                    'Which repeat of the measured steps (1..`scylla_repeats`);'
                    ' 0 for a figure across the repeats.'
                ),
            ),
            Key(
                'scylla_warmup',
                BOOL,
                'the read warm-up step (read_warmup, read_cache_warmup)',
                (
                    'True: the step readies the cache for the next one; no'
                    ' statistic counts it.'
                ),
                when=(
                    'the read or read_cache phase runs with a warm-up (the'
                    ' `warmup` of `--scylla_durations`, 300 s unless set to 0)'
                ),
            ),
            Key(
                'scylla_status',
                STR,
                _EVERY,
                (
                    'How the step ended: ok, rate_not_reached, loader_saturated'
                    ' (figures published, marked), failed, timeout, not_run or'
                    ' interrupted.'
                ),
            ),
            Key(
                'scylla_error',
                STR,
                'phase_status',
                "Why the step failed or timed out ('' when it did not).",
            ),
        ),
    ),
    Section(
        'Data set and workload',
        (
            Key(
                'scylla_keys',
                INT,
                _EVERY,
                'Partitions in the data set (K): the keys populate writes.',
            ),
            Key(
                'scylla_row_bytes',
                INT,
                _EVERY,
                'Bytes of column data per partition (column size times count).',
            ),
            Key(
                'scylla_loaders',
                INT,
                _EVERY,
                (
                    "Loaders of the run; on an op type's samples, the loaders"
                    ' that ran that op type.'
                ),
            ),
            Key(
                'scylla_consistency_level',
                STR,
                _EVERY,
                'Consistency level of every request (QUORUM, ONE, ...).',
            ),
            Key(
                'scylla_replication_factor',
                INT,
                _EVERY,
                "Replication factor of the benchmark's keyspace.",
            ),
            Key(
                'scylla_compaction_strategy',
                STR,
                _EVERY,
                "Compaction strategy of the benchmark's table.",
            ),
            Key(
                'scylla_distribution',
                STR,
                _STRESS,
                (
                    'The keys the loaders visit: seq (each key in turn),'
                    ' uniform(first..last) or gaussian(first..last,mean,stdev);'
                    " on an op type's samples, each of its loaders' distinct"
                    ' ones, comma-separated.'
                ),
            ),
            Key(
                'scylla_distribution_size',
                STR,
                'read, read_cache and mixed steps',
                'Which of the read distributions: small, medium or large.',
                when=_WHEN_READS,
            ),
            Key(
                'scylla_working_set_to_ram',
                FLOAT,
                'read_medium',
                (
                    "The medium distribution's working set as a multiple of the"
                    " servers' RAM."
                ),
                when='the read phase runs',
            ),
            Key(
                'scylla_key_range',
                STR,
                _STRESS,
                (
                    "Keys the step's (or the op type's) loaders visit, as"
                    ' first..last.'
                ),
            ),
            Key(
                'scylla_loader_key_ranges',
                LIST,
                _WRITES,
                "Each loader's slice of the keys it writes, in loader order.",
                when=_WHEN_WRITES,
            ),
            Key(
                'scylla_threads',
                INT,
                _STRESS,
                (
                    "cassandra-stress threads of each of the samples' loaders;"
                    ' left out where they differ (in reads_during_writes but on'
                    ' its READ and WRITE samples: see `scylla_write_threads`,'
                    ' `scylla_read_threads`).'
                ),
                when='the loaders of the samples run one thread count',
            ),
            Key(
                'scylla_duration_s',
                INT,
                'timed stress steps',
                (
                    "The step's planned length; a counted step (populate writes"
                    ' each key once) has none.'
                ),
                when=(
                    'a timed stress step runs (every stress phase but populate)'
                ),
            ),
            Key(
                'scylla_cluster_rate',
                INT,
                _WRITES,
                (
                    'Fixed op/s of the cluster the loaders share (0: as fast as'
                    ' they can).'
                ),
                when=_WHEN_WRITES,
            ),
            Key(
                'scylla_loader_rates',
                LIST,
                _WRITES,
                "Each loader's fixed op/s, in loader order.",
                when=_WHEN_WRITES,
            ),
            Key(
                'scylla_rate',
                INT,
                _OP_SAMPLES,
                (
                    "Fixed op/s of the op type's loaders summed (0: as fast as"
                    ' they can).'
                ),
            ),
            Key(
                'scylla_write_ratio',
                INT,
                'mixed',
                'Writes in the write:read ratio of the mix.',
                when='the mixed phase runs',
            ),
            Key(
                'scylla_read_ratio',
                INT,
                'mixed',
                'Reads in the write:read ratio of the mix.',
                when='the mixed phase runs',
            ),
            Key('scylla_writers', INT, _RDW, 'Loaders that write.'),
            Key('scylla_readers', INT, _RDW, 'Loaders that read.'),
            Key(
                'scylla_write_rate',
                INT,
                _RDW,
                "The writers' fixed op/s together.",
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_writer_rates',
                LIST,
                _RDW,
                "Each writer's fixed op/s, in loader order.",
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_write_threads',
                INT,
                _RDW,
                'cassandra-stress threads of each writer.',
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_write_key_range',
                STR,
                _RDW,
                'Keys the writers write, as 1..last.',
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_writer_key_ranges',
                LIST,
                _RDW,
                "Each writer's slice of them, in loader order.",
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_read_threads',
                INT,
                _RDW,
                'cassandra-stress threads of each reader.',
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_read_delay_s',
                INT,
                _RDW,
                'Seconds the readers start after the writers.',
                when=_WHEN_RDW,
            ),
            Key(
                'scylla_read_duration_s',
                INT,
                _RDW,
                "The readers' planned length.",
                when=_WHEN_RDW,
            ),
        ),
    ),
    Section(
        'Stress results',
        (
            Key(
                'scylla_op',
                STR,
                _OP_SAMPLES,
                (
                    "The op type: WRITE, READ, ..., or total (every loader's"
                    ' operations, when a step has several op types).'
                ),
            ),
            Key(
                'scylla_latency_kind',
                STR,
                'latency metrics and latency_p99_series',
                (
                    'st: service time; rt: response time from the intended'
                    ' schedule, for op types run at a fixed rate (corrected for'
                    ' coordinated omission).'
                ),
            ),
            Key(
                'scylla_window_start',
                FLOAT,
                _OP_SAMPLES,
                (
                    "Start of the window all the op type's loaders ran"
                    " (controller's clock, epoch seconds)."
                ),
            ),
            Key(
                'scylla_window_end',
                FLOAT,
                _OP_SAMPLES,
                'End of that window.',
            ),
            Key(
                'scylla_interval_s',
                INT,
                'stress samples but phase_status',
                'Length of the HDR intervals of the time series, seconds.',
            ),
            Key(
                'scylla_loader_saturated',
                BOOL,
                'stress samples but phase_status',
                (
                    'Whether the busiest loader reached'
                    ' `--scylla_loader_cpu_threshold`.'
                ),
            ),
            Key(
                'scylla_loader_cpu_max',
                FLOAT,
                'stress samples but phase_status',
                'Busy share of the busiest loader over the step, percent.',
                when='every loader of the step has CPU figures',
            ),
            Key(
                'scylla_loader_cpu_peak',
                FLOAT,
                'stress samples but phase_status',
                (
                    'Busiest interval of any loader, percent'
                    " (cassandra-stress's start-up makes it high; not judged)."
                ),
                when='every loader of the step has CPU figures',
            ),
            Key(
                'scylla_loader_cpu_unknown',
                STR,
                'stress samples but phase_status',
                "Why some loaders' CPU use is unknown, separated by '; '.",
                when='a loader of the step has no CPU figures',
            ),
            Key(
                'scylla_start_skew_pct',
                FLOAT,
                'loader_start_skew',
                'The start skew as a share of the step, percent.',
            ),
            Key(
                'scylla_start_skew_marked',
                BOOL,
                'loader_start_skew',
                (
                    'Whether the start skew reached'
                    f' {step_results.START_SKEW_MARK_PCT:g}% of the step: the'
                    ' figures cover a window that much shorter than the step.'
                ),
            ),
            Key(
                'scylla_loader_stop_max_ms',
                FLOAT,
                'stress samples but phase_status',
                'As the metric `loader_stop_max`, ms.',
                when='every loader of the step has a JVM stop log',
            ),
            Key(
                'scylla_loader_stopped_pct',
                FLOAT,
                'stress samples but phase_status',
                (
                    "Largest share of the step's window a loader's JVM spent"
                    ' stopped at safepoints, percent: at or above 0.1% the'
                    " p99.9 can be the loader's own."
                ),
                when='every loader of the step has a JVM stop log',
            ),
            Key(
                'scylla_loader_stop_unknown',
                STR,
                'stress samples but phase_status',
                "Why some loaders' JVM stops are unknown, separated by '; '.",
                when='a loader of the step has no JVM stop log',
            ),
            Key(
                'scylla_rate_reached',
                BOOL,
                (
                    'stress samples but phase_status of a step with fixed-rate'
                    ' op types'
                ),
                (
                    'False when a fixed-rate op type completed less than 95% of'
                    ' its schedule (status rate_not_reached).'
                ),
                when=_WHEN_FIXED_RATE,
            ),
            Key(
                'scylla_achieved_rate',
                FLOAT,
                "a fixed-rate op type's samples",
                (
                    'The op rate it achieved (op_rate), beside its target'
                    ' `scylla_rate`.'
                ),
                when=_WHEN_FIXED_RATE,
            ),
            Key(
                'scylla_schedule_share',
                FLOAT,
                "a fixed-rate op type's samples",
                (
                    'Share of the operations its schedule held that its loaders'
                    ' completed (1.0: all); decides `scylla_rate_reached`.'
                ),
                when=_WHEN_FIXED_RATE,
            ),
        ),
    ),
    Section(
        'Quiesce',
        (
            Key(
                'scylla_keyspace',
                STR,
                _QUIESCE_STEPS,
                'The keyspace whose compactions count.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_poll_s',
                INT,
                _QUIESCE_STEPS,
                'Seconds between polls of the nodes.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_settle_s',
                INT,
                _QUIESCE_STEPS,
                'Seconds every node must stay idle to count as quiesced.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_timeout_s',
                INT,
                _QUIESCE_STEPS,
                'Seconds after which the wait ends with status timeout.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_after_populate',
                BOOL,
                'the quiesce step',
                (
                    'Whether populate ran before it in this run: only then does'
                    ' it publish populate_time and total_time_to_quiesce.'
                ),
                when='the quiesce phase runs',
            ),
            Key(
                'scylla_quiesce_polls',
                INT,
                _QUIESCE_RESULTS,
                'Polls made while waiting.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_quiesce_wait_s',
                FLOAT,
                _QUIESCE_RESULTS,
                'From the start of the wait to its last poll.',
                when=_WHEN_QUIESCE,
            ),
            Key(
                'scylla_busy_until_s',
                FLOAT,
                _QUIESCE_RESULTS,
                (
                    'From the start of the load to the last poll in which a'
                    ' node reported work: later than the compaction history'
                    ' says when the polls saw work the history does not record.'
                ),
                when='a poll of the step saw compactions or pending work',
            ),
            Key(
                'scylla_nodes_without_history',
                LIST,
                _QUIESCE_RESULTS,
                (
                    'Nodes whose compaction history could not be read (their'
                    ' compactions are missing from the figures); [] when none.'
                ),
                when=_WHEN_QUIESCE,
            ),
        ),
    ),
    Section(
        'Confidence intervals',
        (
            Key(
                'scylla_ci_level',
                FLOAT,
                _INTERVAL,
                'Confidence level of the interval (0.95).',
            ),
            Key(
                'scylla_ci_low',
                FLOAT,
                _INTERVAL,
                "Lower bound, in the figure's unit.",
                when='the interval is bounded',
            ),
            Key(
                'scylla_ci_high',
                FLOAT,
                _INTERVAL,
                "Upper bound, in the figure's unit.",
                when='the interval is bounded',
            ),
            Key(
                'scylla_ci_method',
                STR,
                _INTERVAL,
                (
                    'How it was computed: batch_means (a rate within a run),'
                    ' woodruff (a percentile within a run), t_repeats'
                    ' (across repeats), or unbounded when it could not be.'
                ),
            ),
            Key(
                'scylla_ci_covers',
                STR,
                _INTERVAL,
                (
                    'The variation it accounts for: within_run, or'
                    " within_cluster (this cluster's repeats; nothing about"
                    ' other clusters).'
                ),
            ),
            Key(
                'scylla_ci_units',
                FLOAT,
                _INTERVAL,
                'The effective number of independent units it rests on.',
            ),
            Key(
                'scylla_ci_se_log',
                FLOAT,
                _INTERVAL,
                (
                    'Standard error of log(figure): the relative standard error'
                    ' comparisons combine.'
                ),
                when='the standard error is known',
            ),
            Key(
                'scylla_ci_dof',
                FLOAT,
                _INTERVAL,
                'Degrees of freedom of that standard error (0 when unknown).',
            ),
            Key(
                'scylla_ci_warning',
                STR,
                _INTERVAL,
                (
                    "Why not to trust the interval as it stands ('' when"
                    ' nothing is known against it).'
                ),
            ),
            Key(
                'scylla_repeats_aggregated',
                LIST,
                'figures across repeats (`scylla_repeat` 0)',
                'The repeats averaged, e.g. [1,3] when repeat 2 failed.',
                when=(
                    '`--scylla_repeats` is 2 or more and a step ran in two'
                    ' repeats or more'
                ),
            ),
        ),
    ),
    Section(
        'Run and cluster',
        (
            Key(
                'scylla_phases_version',
                STR,
                _EVERY,
                (
                    'The release and git revision of the code that made the'
                    ' sample (0.2.0+g1a2b3c4d5e6f; .dirty for uncommitted'
                    ' changes).'
                ),
            ),
            Key(
                'scylla_cluster',
                STR,
                _EVERY,
                (
                    "The cluster's identity: PKB's benchmark spec uuid (the"
                    " sample's run_uri), shared by the stages of a staged run."
                ),
            ),
            Key(
                'scylla_run_start',
                INT,
                _EVERY,
                (
                    "When this Run started (controller's clock, epoch seconds):"
                    ' tells apart several Runs on one cluster.'
                ),
            ),
            Key(
                'scylla_repeats',
                INT,
                _EVERY,
                'Rounds of the measured steps (`--scylla_repeats`).',
            ),
            Key(
                'scylla_engine',
                STR,
                _EVERY,
                'The database: scylla or cassandra.',
            ),
            Key(
                'scylla_version',
                STR,
                _EVERY,
                (
                    'The version the servers report (each server\'s, "node:'
                    ' version; ...", when they differ).'
                ),
            ),
            Key(
                'scylla_servers',
                INT,
                _EVERY,
                'Server VMs.',
            ),
            Key(
                'scylla_server_machine_type',
                STR,
                _EVERY,
                (
                    "The servers' machine type; for own machines, the label the"
                    " user gives ('' without one)."
                ),
            ),
            Key(
                'scylla_server_vcpus',
                INT,
                _EVERY,
                'vCPUs of all servers together.',
            ),
            Key(
                'scylla_cluster_ram_bytes',
                INT,
                _EVERY,
                (
                    'Memory the servers report together: what the data set was'
                    ' sized from.'
                ),
            ),
            Key(
                'scylla_cluster_ram_planned_bytes',
                INT,
                _EVERY,
                "The machine table's estimate of it the plan used.",
                when=(
                    "the plan's estimate of the servers' RAM differs from what"
                    ' they have'
                ),
            ),
            Key(
                'scylla_server_node_vcpus',
                INT,
                _EVERY,
                'vCPUs each server reports (lscpu).',
                when=_WHEN_SERVERS_AGREE,
            ),
            Key(
                'scylla_server_node_memory_gib',
                FLOAT,
                _EVERY,
                'Memory each server reports, GiB to one decimal.',
                when=_WHEN_SERVERS_AGREE,
            ),
            Key(
                'scylla_server_node_numa_nodes',
                INT,
                _EVERY,
                'NUMA nodes of each server.',
                when=_WHEN_SERVERS_AGREE,
            ),
            Key(
                'scylla_server_node_differences',
                STR,
                _EVERY,
                (
                    "Every server's value of each of those facts they differ in"
                    " ('scylla_server_node_vcpus server-0: 8; server-1: 16',"
                    " facts separated by ' / ')."
                ),
                when='the servers differ in a machine fact',
            ),
            Key(
                'scylla_loader_node_vcpus',
                INT,
                _EVERY,
                'vCPUs each loader reports (lscpu).',
                when=_WHEN_LOADERS_AGREE,
            ),
            Key(
                'scylla_loader_node_memory_gib',
                FLOAT,
                _EVERY,
                'Memory each loader reports, GiB to one decimal.',
                when=_WHEN_LOADERS_AGREE,
            ),
            Key(
                'scylla_loader_node_numa_nodes',
                INT,
                _EVERY,
                'NUMA nodes of each loader.',
                when=_WHEN_LOADERS_AGREE,
            ),
            Key(
                'scylla_loader_node_differences',
                STR,
                _EVERY,
                'As `scylla_server_node_differences`, for the loaders.',
                when='the loaders differ in a machine fact',
            ),
            Key(
                'scylla_loader_gc',
                STR,
                _EVERY
                + ', once the loaders are read; each loader listed'
                " ('loader-0: zgc; ...') where they differ",
                (
                    "The loaders' JVM collector: zgc (generational), g1 or"
                    ' jvm_default (`--scylla_loader_gc`; auto is resolved).'
                ),
            ),
            Key(
                'scylla_loader_heap_mib',
                INT,
                _EVERY
                + ', once the loaders are read; left out where they differ',
                (
                    "Fixed heap of each loader's JVMs, MiB; 0: the JVM's own"
                    ' sizing (`--scylla_loader_heap_gb`).'
                ),
            ),
            Key(
                'scylla_loader_java',
                INT,
                _EVERY
                + ', once the loaders are read; left out where they differ',
                'Java major the loaders run cassandra-stress on.',
            ),
            Key(
                'scylla_loader_jvm_options',
                STR,
                _EVERY
                + ', once the loaders are read; each loader listed'
                ' where they differ (their memory sizes the heap)',
                (
                    "JVM options of the loaders' cassandra-stress (JVM_OPTS),"
                    " with STEM.jvm for each run's own stop log."
                ),
            ),
            Key(
                'scylla_loader_masked_units',
                STR,
                _EVERY
                + ', once the loaders are read; each loader listed'
                ' where they differ',
                (
                    'As `scylla_masked_units`, on the loaders: masked before'
                    ' cassandra-stress is installed, except on own machines'
                    ' (static VMs), which stay as they are.'
                ),
            ),
            Key(
                'scylla_stress_tool',
                STR,
                _EVERY,
                (
                    "The cassandra-stress the loaders run: scylla (ScyllaDB's"
                    ' fork) or apache.'
                ),
            ),
            Key(
                'scylla_stress_version',
                STR,
                _EVERY,
                (
                    'Its version as the tool reports it, checked against the'
                    ' release asked for.'
                ),
            ),
            Key(
                'scylla_stress_<component>',
                STR,
                _EVERY,
                (
                    'The version of each other component `cassandra-stress'
                    " version` prints, its name's non-word characters as _:"
                    ' scylla_stress_scylla_java_driver; scylla_stress_reported'
                    " for Apache 5.0's 'Unable to find version information'."
                ),
            ),
        ),
    ),
    Section(
        'Price',
        (
            Key(
                'scylla_price_source',
                STR,
                _EVERY,
                (
                    "Where the servers' price comes from (the catalog, or the"
                    " user's override); 'none: ...' with what to give when no"
                    ' price is known.'
                ),
            ),
            Key(
                'scylla_price_usd_per_hour',
                FLOAT,
                _EVERY,
                (
                    'Price of all servers together, USD per hour: the'
                    ' per-dollar figures divide by it.'
                ),
                when=_WHEN_PRICE,
            ),
            Key(
                'scylla_server_price_usd_per_hour',
                FLOAT,
                _EVERY,
                'Price of one server, USD per hour.',
                when=_WHEN_PRICE,
            ),
            Key(
                'scylla_price_date',
                STR,
                _EVERY,
                (
                    "When the catalog's price was taken (YYYY-MM); for an"
                    " override, the Run's date (YYYY-MM-DD)."
                ),
                when=_WHEN_PRICE,
            ),
            Key(
                'scylla_price_region',
                STR,
                _EVERY,
                "The region the catalog's price is for ('' for an override).",
                when=_WHEN_PRICE,
            ),
            Key(
                'scylla_cost_counts',
                STR,
                'ops_per_dollar and dollars_per_million_ops',
                (
                    "What the per-dollar figures count: 'servers only' (not the"
                    ' loaders).'
                ),
                when=_WHEN_PRICE,
            ),
        ),
    ),
    Section(
        'Server tuning and data volume',
        (
            Key(
                'scylla_tuning_uniform',
                BOOL,
                _EVERY,
                (
                    'Whether every server agreed in every tuning fact and data'
                    " volume key (each server's own `scylla_data_device`"
                    ' path may differ).'
                ),
            ),
            Key(
                'scylla_tuning_differences',
                STR,
                _EVERY,
                (
                    "Every server's value of each number or yes/no tuning key"
                    " they differ in ('scylla_nproc server-0: 80; server-1:"
                    " 88', keys separated by ' / '); those keys are left out."
                    " Text keys list each server's value themselves."
                ),
                when='the servers differ in a tuning fact',
            ),
            Key(
                'scylla_shards',
                INT,
                'ScyllaDB',
                (
                    'Shards of all servers together: op_rate_per_shard divides'
                    " by it (in `scylla_tuning_differences`, each node's own)."
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_shards_total',
                INT,
                'ScyllaDB',
                'The same total, summed from every node as tuned.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_vcpus',
                INT,
                _SCYLLA,
                'vCPUs (hardware threads) of each server, from lscpu.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_cores',
                INT,
                _SCYLLA,
                'Physical cores of each server.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_numa_nodes',
                INT,
                _SCYLLA,
                'NUMA nodes of each server, from lscpu.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_nproc',
                INT,
                _SCYLLA,
                'CPUs available to processes (nproc) on each server.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_cpuset',
                STR,
                _SCYLLA_TEXT,
                (
                    "CPUs ScyllaDB runs on, from cpuset.conf ('0-3,8-11'; ''"
                    ' when unrestricted).'
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_irq_cpus',
                STR,
                _SCYLLA_TEXT,
                'CPUs perftune binds network and disk interrupts to.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_irq_vcpus',
                INT,
                _SCYLLA,
                'How many they are.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_irq_cpus_source',
                STR,
                _SCYLLA_TEXT,
                (
                    'perftune.yaml (what scylla_prepare applied when the server'
                    " started) or computed (perftune's rule, asked before the"
                    ' first start).'
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_predicted_shards',
                INT,
                _SCYLLA + ', or where perftune cannot auto-detect',
                "Shards per server perftune's rule predicts for its topology.",
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_predicted_irq_vcpus',
                INT,
                _SCYLLA + ', or where perftune cannot auto-detect',
                'IRQ vCPUs per server the rule predicts.',
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_io_read_iops',
                INT,
                _SCYLLA,
                (
                    'Read IOPS iotune measured (the first disk of'
                    ' io_properties.yaml).'
                ),
                when=_WHEN_IO,
            ),
            Key(
                'scylla_io_read_bandwidth',
                INT,
                _SCYLLA,
                'Read bandwidth iotune measured, bytes per second.',
                when=_WHEN_IO,
            ),
            Key(
                'scylla_io_write_iops',
                INT,
                _SCYLLA,
                'Write IOPS iotune measured.',
                when=_WHEN_IO,
            ),
            Key(
                'scylla_io_write_bandwidth',
                INT,
                _SCYLLA,
                'Write bandwidth iotune measured, bytes per second.',
                when=_WHEN_IO,
            ),
            Key(
                'scylla_swap',
                STR,
                _SCYLLA_TEXT,
                (
                    "The swap areas scylla_setup left ('/swapfile 16.0 GiB'),"
                    ' or none.'
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_repo_keys',
                STR,
                _SCYLLA_TEXT,
                (
                    "Full fingerprints of the keys the servers' apt keyring"
                    " trusts for ScyllaDB's packages, separated by spaces;"
                    ' none on yum installs (keys in the RPM database).'
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_masked_units',
                STR,
                _SCYLLA_TEXT,
                (
                    'The systemd units masked on the servers of those'
                    " ScyllaDB's images mask (apt's timers, snapd, the"
                    " cloud's agent), read back; space-separated, or none."
                ),
                when=_WHEN_SCYLLA,
            ),
            Key(
                'scylla_data_device',
                STR,
                (
                    'every engine, once the servers were configured; each'
                    " server's value ('node: value; ...') where they differ"
                ),
                'The device mounted as the data directory (findmnt SOURCE).',
            ),
            Key(
                'scylla_data_fstype',
                STR,
                'as `scylla_data_device`',
                'Its file system.',
            ),
            Key(
                'scylla_data_mount_options',
                STR,
                'as `scylla_data_device`',
                'Its mount options, name=value kept as they are.',
            ),
            Key(
                'scylla_data_disks',
                INT,
                'as `scylla_data_device`',
                'Member disks of the RAID0 array the benchmark built.',
                when=(
                    'the benchmark built the data RAID array (local NVMe disks)'
                ),
            ),
        ),
    ),
    Section(
        'Servers',
        (
            Key(
                'scylla_limit',
                STR,
                'stress samples but phase_status',
                (
                    "Where the step's limit was: loaders, servers, disk,"
                    " several joined by '+', none (then the clients'"
                    ' concurrency, the network or a fixed rate set the'
                    ' throughput), or unknown (no evidence from the servers).'
                ),
            ),
            Key(
                'scylla_limit_evidence',
                STR,
                'stress samples but phase_status',
                (
                    "The figures scylla_limit rests on, e.g. 'busiest loader"
                    ' CPU 62%; busiest shard 97% busy on server-1; data disk'
                    " 40% busy on server-0'."
                ),
            ),
            Key(
                'scylla_server',
                STR,
                "a server's samples",
                'The VM name of the server the sample describes.',
            ),
            Key(
                'scylla_server_index',
                INT,
                "a server's samples",
                "The server's index in the run's servers (0: the seed).",
            ),
            Key(
                'scylla_server_unknown',
                STR,
                "a server's samples",
                (
                    "Why some of the server's figures are unknown, or were"
                    ' taken over a wider interval than the window, separated by'
                    " '; '."
                ),
                when=(
                    'a figure of the server is unknown or its interval is wider'
                    ' than the window'
                ),
            ),
            Key(
                'scylla_server_busy_of',
                STR,
                'server_busy_max',
                (
                    "What the busy share is of: 'busiest shard' (ScyllaDB) or"
                    " 'CPU'."
                ),
            ),
            Key(
                'scylla_busiest_server',
                STR,
                'server_busy_max and server_disk_busy_max',
                'The VM name of the server with the largest figure.',
            ),
            Key(
                'scylla_cpu_iowait_pct',
                FLOAT,
                'server_cpu_busy',
                (
                    "Share of the server's CPU time idle with I/O outstanding,"
                    ' percent.'
                ),
            ),
            Key(
                'scylla_cpu_steal_pct',
                FLOAT,
                'server_cpu_busy',
                'Share the hypervisor gave to other guests, percent.',
            ),
            Key(
                'scylla_compactions_running_end',
                INT,
                'server_compactions_pending_end',
                'Compactions running on the node as the step ended.',
            ),
            Key(
                'scylla_dropped_by_type',
                STR,
                'server_dropped_messages',
                (
                    'The message types dropped during the step, most first:'
                    " 'MUTATION_REQ 28147, READ_REQ 68724'."
                ),
                when='the node dropped a message during the step',
            ),
            Key(
                'scylla_blocked_by_pool',
                STR,
                'server_blocked_tasks',
                (
                    'The thread pools that blocked tasks during the step, most'
                    " first: 'Native-Transport-Requests 12'."
                ),
                when='a pool of the node blocked a task during the step',
            ),
            Key(
                'scylla_pool_pending_end',
                INT,
                'server_blocked_tasks',
                (
                    "Tasks waiting in the node's thread pools as the step"
                    ' ended, every pool: the backlog its loaders left.'
                ),
            ),
            Key(
                'scylla_reactor_mean_pct',
                FLOAT,
                'server_reactor_busiest',
                "Busy share of the server's shards, mean over shards, percent.",
            ),
            Key(
                'scylla_reactor_min_pct',
                FLOAT,
                'server_reactor_busiest',
                'Busy share of its least busy shard, percent.',
            ),
            Key(
                'scylla_reactor_shards',
                INT,
                'server_reactor_busiest',
                'Shards the metrics page listed.',
            ),
        ),
    ),
)

KEYS = tuple(key for section in SECTIONS for key in section.keys)
_BY_NAME = {key.name: key for key in KEYS}
_FAMILIES = tuple(key for key in KEYS if '<' in key.name)


def MetricOf(name):
  """The registered Metric of that name, or None."""
  return next((m for m in METRICS if m.name == name), None)


def KeyOf(name):
  """The registered Key of that name (or of its family), or None."""
  if name in _BY_NAME:
    return _BY_NAME[name]
  return next((k for k in _FAMILIES if k.pattern.match(name)), None)


def HasType(key, value):
  """Whether `value` is of the key's type (a bool is no number)."""
  if isinstance(value, bool):
    return key.type == BOOL
  if key.type == LIST:
    return isinstance(value, str) and value.startswith('[')
  return isinstance(value, _PYTHON_TYPES[key.type])


def SampleProblems(metric, unit, metadata, typed=True):
  """What a published sample does that this reference does not say.

  Args:
    metric: the sample's metric.
    unit: its unit.
    metadata: its metadata; keys without the `scylla_` prefix (PKB's
      own) are not checked.
    typed: whether the values keep their types (False for PKB's collapsed
      labels, where every value is text).

  Returns:
    One message per problem; [] when the sample keeps the contract.
  """
  problems = []
  registered = MetricOf(metric)
  if registered is None:
    problems.append(f'metric {metric!r} is not registered')
  elif registered.unit != unit:
    problems.append(
        f'metric {metric!r} has unit {unit!r}, registered {registered.unit!r}'
    )
  for name, value in metadata.items():
    if not name.startswith('scylla_'):
      continue
    key = KeyOf(name)
    if key is None:
      problems.append(f'key {name!r} is not registered')
    elif typed and not HasType(key, value):
      problems.append(
          f'key {name!r} is {value!r} ({type(value).__name__}), registered'
          f' {key.type}'
      )
  return problems


def _Table(header, rows):
  lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
  lines += ['| ' + ' | '.join(row) + ' |' for row in rows]
  return lines


def _UnitText(unit):
  """A unit as the tables show it: `op/s`, or (none)."""
  return f'`{unit}`' if unit else '(none)'


def Markdown():
  """docs/metadata.md: the metrics, then the keys by subject."""
  lines = [
      '# Published metrics and metadata keys',
      '',
      (
          'Generated from `perfkit_plugins/core/results/metadata_reference.py`'
          f' by `{COMMAND}`; do not edit it by hand. A test fails when the code'
          ' publishes a metric, unit, key or type this does not list, and when'
          ' this file is not what that command writes.'
      ),
      '',
      (
          'Every metadata key of the benchmark starts with `scylla_`. Besides'
          " them, a sample carries PKB's own metadata (run_uri, vm_names,"
          ' `servers_*` and `loaders_*` of each VM group, ...) and, for a time'
          ' series, the `values`, `timestamps` and `interval` PKB adds. A key'
          " has one type in every run; with collapsed labels (PKB's default"
          ' for its JSON and BigQuery publishers) every value is text,'
          ' `--nocollapse_labels` keeps the types.'
      ),
      '',
      '## Metrics',
      '',
  ]
  lines += _Table(
      ('metric', 'unit', 'one sample per', 'meaning'),
      [(f'`{m.name}`', _UnitText(m.unit), m.per, m.meaning) for m in METRICS],
  )
  lines += ['', '## Metadata keys', '', 'Types:', '']
  lines += [f'* `{name}`: {text}.' for name, text in TYPES.items()]
  lines += [
      '',
      (
          'A key appears on the samples its `on` names when its run meets'
          f' the condition of `when`; "{ALWAYS}" is every run that reaches'
          ' those samples. A run of scylla-phases-local (Apache Cassandra on'
          ' own machines, one repeat) has, for instance, none of the'
          ' ScyllaDB, price and repeats keys.'
      ),
  ]
  for section in SECTIONS:
    lines += ['', f'### {section.title}', '']
    lines += _Table(
        ('key', 'type', 'on', 'when', 'meaning'),
        [
            (f'`{k.name}`', f'`{k.type}`', k.where, k.when, k.meaning)
            for k in section.keys
        ],
    )
  return '\n'.join(lines) + '\n'
