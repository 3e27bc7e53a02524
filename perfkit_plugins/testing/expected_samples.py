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

"""The metrics each kind of step publishes, as the tests expect them.

One list for the tests of phase_runner, run_sequence and the benchmark's Run
(README.md, "Published samples", documents the same set).
"""

# A cassandra-stress step, per op type (loader_cpu_max, loader_stop_max, the
# loaders' start and end skew and phase_status once per step).
STRESS_METRICS = frozenset({
    'op_rate',
    'partition_rate',
    'row_rate',
    'operations',
    'errors',
    'duration',
    'op_rate_per_vcpu',
    'op_rate_per_shard',
    'ops_per_dollar',
    'dollars_per_million_ops',
    'latency_mean',
    'latency_p50',
    'latency_p95',
    'latency_p99',
    'latency_p999',
    'latency_max',
    'op_rate_series',
    'latency_p99_series',
    'loader_cpu_max',
    'loader_stop_max',
    'loader_start_skew',
    'loader_end_skew',
    'phase_status',
})
# What a stress step publishes of its servers when they were sampled: per
# step, then per server (its host's figures).
SERVER_METRICS = frozenset({
    'server_busy_max',
    'server_disk_busy_max',
    'server_cpu_busy',
    'server_cpu_busy_series',
    'server_disk_read',
    'server_disk_write',
    'server_disk_busy',
    'server_net_received',
    'server_net_sent',
    'server_compactions_pending_end',
})
# And per ScyllaDB server, from its metrics page.
SCYLLA_SERVER_METRICS = frozenset({
    'server_reactor_busiest',
    'server_cql_requests',
    'server_cache_row_hits',
    'server_cache_partition_hits',
    'server_io_read',
    'server_io_write',
    'server_io_queue_delay',
    'server_compaction_backlog',
    'server_compactions_running',
    'server_pending_compactions',
    'server_foreground_writes',
    'server_background_writes',
    'server_foreground_reads',
    'server_throttled_writes',
    'server_queued_reads',
    'server_timeouts',
})
# And per Apache Cassandra server, from its nodetool tpstats.
CASSANDRA_SERVER_METRICS = frozenset({
    'server_dropped_messages',
    'server_blocked_tasks',
})
# A quiesce step (the first one adds populate_time, time_to_compact and
# total_time_to_quiesce; a flush quiesce time_to_compact).
COMPACTION_METRICS = frozenset({
    'compactions',
    'compaction_bytes_in',
    'compaction_bytes_out',
    'phase_status',
})
