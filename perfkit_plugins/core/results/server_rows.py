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

"""The sample rows of what the servers did during a stress step.

Every sample of a stress step says where its limit was (LimitMetadata:
`scylla_limit`, `scylla_limit_evidence`). Then, per step:

* server_busy_max: the busiest server's busy share, the figure the limit
  is judged on (its busiest shard's for ScyllaDB, else its CPU's;
  `scylla_server_busy_of` says which, `scylla_busiest_server` which
  server), and server_disk_busy_max, its busiest data disk's;

and per step and server (`scylla_server`, `scylla_server_index`; why a
figure is missing in `scylla_server_unknown`), each over the step's
measured window:

* every engine: server_cpu_busy (with `scylla_cpu_iowait_pct` and
  `scylla_cpu_steal_pct`), server_disk_read, server_disk_write,
  server_disk_busy (the data directory's disk), server_net_received,
  server_net_sent, the time series server_cpu_busy_series, and
  server_compactions_pending_end (the node's own count as the step ended;
  `scylla_compactions_running_end`);
* Apache Cassandra (nodetool tpstats as the step started and ended):
  server_dropped_messages (`scylla_dropped_by_type`) and
  server_blocked_tasks (`scylla_blocked_by_pool`,
  `scylla_pool_pending_end`), counts over the whole step;
* ScyllaDB (its metrics page): server_reactor_busiest (with
  `scylla_reactor_mean_pct`, `scylla_reactor_min_pct` and
  `scylla_reactor_shards`), server_cql_requests, server_cache_row_hits,
  server_cache_partition_hits, server_io_read, server_io_write,
  server_io_queue_delay, server_compaction_backlog,
  server_compactions_running, server_pending_compactions,
  server_foreground_writes, server_background_writes,
  server_foreground_reads, server_throttled_writes, server_queued_reads,
  server_timeouts.

A figure that is unknown has no row. sample_rows makes them SampleRows.
"""

import dataclasses
import statistics
from typing import Any, Mapping, Optional

from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.results import thread_pools


@dataclasses.dataclass(frozen=True)
class Figure:
  """One row: a value, or a time series of (interval start, value).

  A time series' interval_s is the median of its intervals (the sampler's
  interval, give or take the time a sample takes).
  """

  metric: str
  value: float
  unit: str
  metadata: Mapping[str, Any]
  points: Optional[tuple[tuple[float, float], ...]] = None
  interval_s: float = 0.0


# (metric, unit, HostEvidence attribute), per server.
_HOST_ROWS = (
    ('server_cpu_busy', '%', 'cpu_busy_pct'),
    ('server_disk_read', 'bytes/s', 'disk_read_bytes_per_s'),
    ('server_disk_write', 'bytes/s', 'disk_write_bytes_per_s'),
    ('server_disk_busy', '%', 'disk_busy_pct'),
    ('server_net_received', 'bytes/s', 'net_rx_bytes_per_s'),
    ('server_net_sent', 'bytes/s', 'net_tx_bytes_per_s'),
)
# (metric, unit, scylla_metrics.ScyllaEvidence attribute), per server.
_SCYLLA_ROWS = (
    ('server_reactor_busiest', '%', 'reactor_max_pct'),
    ('server_cql_requests', 'requests/s', 'cql_requests_per_s'),
    ('server_cache_row_hits', '%', 'cache_row_hit_pct'),
    ('server_cache_partition_hits', '%', 'cache_partition_hit_pct'),
    ('server_io_read', 'bytes/s', 'disk_read_bytes_per_s'),
    ('server_io_write', 'bytes/s', 'disk_write_bytes_per_s'),
    ('server_io_queue_delay', 'ms', 'io_queue_delay_ms'),
    ('server_compaction_backlog', '', 'compaction_backlog'),
    ('server_compactions_running', 'compactions', 'compactions_running_max'),
    ('server_pending_compactions', 'compactions', 'pending_compactions_mean'),
    ('server_foreground_writes', 'requests', 'foreground_writes_mean'),
    ('server_background_writes', 'requests', 'background_writes_mean'),
    ('server_foreground_reads', 'requests', 'foreground_reads_mean'),
    ('server_throttled_writes', 'requests', 'throttled_writes_mean'),
    ('server_queued_reads', 'requests', 'queued_reads_mean'),
    ('server_timeouts', 'timeouts/s', 'timeouts_per_s'),
)
# Metadata the CPU and reactor rows carry: (key, evidence attribute).
_CPU_KEYS = (
    ('scylla_cpu_iowait_pct', 'cpu_iowait_pct'),
    ('scylla_cpu_steal_pct', 'cpu_steal_pct'),
)
_REACTOR_KEYS = (
    ('scylla_reactor_mean_pct', 'reactor_mean_pct'),
    ('scylla_reactor_min_pct', 'reactor_min_pct'),
    ('scylla_reactor_shards', 'shards'),
)


def LimitMetadata(result):
  """`scylla_limit` and `scylla_limit_evidence` of a StepResult, or {}."""
  if result.limit is None:
    return {}
  return {
      'scylla_limit': result.limit.kind,
      'scylla_limit_evidence': result.limit.evidence,
  }


def _Known(evidence, keys):
  """{key: value} of the attributes of `evidence` that are known."""
  values = {key: getattr(evidence, name) for key, name in keys}
  return {key: value for key, value in values.items() if value is not None}


def _PoolRows(pools, metadata):
  """The dropped messages and blocked tasks of a node's step."""
  dropped, blocked = dict(metadata), dict(metadata)
  if pools.dropped_by_type:
    dropped['scylla_dropped_by_type'] = thread_pools.Counts(
        pools.dropped_by_type
    )
  if pools.blocked_by_pool:
    blocked['scylla_blocked_by_pool'] = thread_pools.Counts(
        pools.blocked_by_pool
    )
  blocked['scylla_pool_pending_end'] = pools.pending_end
  return [
      Figure('server_dropped_messages', pools.dropped, 'messages', dropped),
      Figure('server_blocked_tasks', pools.blocked, 'tasks', blocked),
  ]


def _ServerRows(server, base):
  """The rows of one server (module docstring)."""
  metadata = dict(
      base, scylla_server=server.name, scylla_server_index=server.index
  )
  problems = list(server.problems)
  for part in (server.host, server.scylla):
    if part is not None:
      problems += part.problems
  if problems:
    metadata['scylla_server_unknown'] = '; '.join(problems)
  rows = []
  for part, table, extra in (
      (server.host, _HOST_ROWS, _CPU_KEYS),
      (server.scylla, _SCYLLA_ROWS, _REACTOR_KEYS),
  ):
    if part is None:
      continue
    for index, (metric, unit, name) in enumerate(table):
      value = getattr(part, name)
      if value is None:
        continue
      # The first row of each part carries the part's extra keys.
      keys = dict(metadata, **_Known(part, extra)) if index == 0 else metadata
      rows.append(Figure(metric, value, unit, keys))
  if server.compactions is not None:
    rows.append(
        Figure(
            'server_compactions_pending_end',
            server.compactions.pending,
            'compactions',
            dict(
                metadata,
                scylla_compactions_running_end=server.compactions.running,
            ),
        )
    )
  if server.pools is not None:
    rows += _PoolRows(server.pools, metadata)
  series = server.host.cpu_series if server.host else ()
  if len(series) > 1:
    starts = [start for start, _ in series]
    rows.append(
        Figure(
            'server_cpu_busy_series',
            0.0,
            '%',
            metadata,
            series,
            statistics.median(b - a for a, b in zip(starts, starts[1:])),
        )
    )
  return rows


def ServerRows(result, base):
  """Every server row of a stress step (module docstring).

  Args:
    result: step_results.StepResult.
    base: the metadata every sample of the step carries.

  Returns:
    list of Figure: the step's, then each server's.
  """
  servers = result.servers
  rows = []
  busy, busiest = server_evidence.BusiestServer(servers)
  if busiest is not None:
    rows.append(
        Figure(
            'server_busy_max',
            busy,
            '%',
            dict(
                base,
                scylla_server_busy_of=busiest.busy_of,
                scylla_busiest_server=busiest.name,
            ),
        )
    )
  disk, busiest = server_evidence.BusiestDisk(servers)
  if busiest is not None:
    rows.append(
        Figure(
            'server_disk_busy_max',
            disk,
            '%',
            dict(base, scylla_busiest_server=busiest.name),
        )
    )
  for server in servers:
    rows += _ServerRows(server, base)
  return rows
