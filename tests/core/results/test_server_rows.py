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

"""Tests of the rows of what the servers did during a step."""

import dataclasses

from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.results import metadata_reference
from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.results import server_rows
from perfkit_plugins.core.results import thread_pools

_BASE = {'scylla_step': 'read_small'}


@dataclasses.dataclass(frozen=True)
class _Result:
  """The part of a StepResult the rows read."""

  servers: tuple
  limit: server_evidence.Limit = None


def _Rows(*servers):
  return server_rows.ServerRows(_Result(servers), _BASE)


def test_a_scylla_server_publishes_its_host_and_its_shards():
  server = server_evidence.ServerEvidence(
      0,
      'server-0',
      server_evidence.HostEvidence(
          cpu_busy_pct=99.0,
          cpu_iowait_pct=0.5,
          cpu_steal_pct=0.0,
          net_rx_bytes_per_s=1e6,
          cpu_series=((10.0, 98.0), (15.0, 99.0), (20.0, 100.0)),
      ),
      shards=True,
      scylla=scylla_metrics.ScyllaEvidence(
          shards=4,
          reactor_mean_pct=60.0,
          reactor_max_pct=91.0,
          reactor_min_pct=40.0,
          cql_requests_per_s=1e4,
          problems=('scylla_io_queue_total_delay_sec: not on the page',),
      ),
      compactions=compactions.CompactionStatus(running=2, pending=5),
  )
  rows = {row.metric: row for row in _Rows(server)}
  # The limit is judged on the busiest shard, not the polling host.
  assert rows['server_busy_max'].value == 91.0
  assert rows['server_busy_max'].metadata['scylla_server_busy_of'] == (
      'busiest shard'
  )
  cpu = rows['server_cpu_busy']
  assert cpu.value == 99.0 and cpu.metadata['scylla_cpu_iowait_pct'] == 0.5
  assert cpu.metadata['scylla_server'] == 'server-0'
  reactor = rows['server_reactor_busiest']
  assert reactor.metadata['scylla_reactor_mean_pct'] == 60.0
  assert reactor.metadata['scylla_reactor_shards'] == 4
  assert 'scylla_reactor_mean_pct' not in rows['server_cql_requests'].metadata
  # What is unknown has no row, and says why.
  assert 'server_io_queue_delay' not in rows
  assert 'server_disk_busy_max' not in rows
  assert reactor.metadata['scylla_server_unknown'] == (
      'scylla_io_queue_total_delay_sec: not on the page'
  )
  pending = rows['server_compactions_pending_end']
  assert pending.value == 5
  assert pending.metadata['scylla_compactions_running_end'] == 2
  series = rows['server_cpu_busy_series']
  assert series.points == ((10.0, 98.0), (15.0, 99.0), (20.0, 100.0))
  assert series.interval_s == 5.0


def test_the_busiest_server_and_disk_of_a_step():
  servers = [
      server_evidence.ServerEvidence(
          i,
          f'server-{i}',
          server_evidence.HostEvidence(cpu_busy_pct=busy, disk_busy_pct=disk),
      )
      for i, (busy, disk) in enumerate(((50.0, 95.0), (80.0, 10.0)))
  ]
  rows = {row.metric: row for row in _Rows(*servers)}
  assert rows['server_busy_max'].value == 80.0
  assert rows['server_busy_max'].metadata['scylla_busiest_server'] == 'server-1'
  assert rows['server_busy_max'].metadata['scylla_server_busy_of'] == 'CPU'
  assert rows['server_disk_busy_max'].value == 95.0
  assert rows['server_disk_busy_max'].metadata['scylla_busiest_server'] == (
      'server-0'
  )


def test_a_server_without_evidence_publishes_nothing_but_why():
  server = server_evidence.ServerEvidence(
      0, 'server-0', None, problems=('no host file: unreachable',)
  )
  assert _Rows(server) == []
  assert server_rows.LimitMetadata(_Result((server,))) == {}
  limit = server_evidence.StepLimit(None, False, [server], False)
  assert server_rows.LimitMetadata(_Result((server,), limit)) == {
      'scylla_limit': 'unknown',
      'scylla_limit_evidence': 'no evidence from the servers',
  }


def test_a_cassandra_server_publishes_what_its_pools_dropped_and_blocked():
  pools = thread_pools.PoolsOfStep(
      dropped=96727,
      dropped_by_type=(('READ_REQ', 69367), ('MUTATION_REQ', 27360)),
      blocked=0,
      blocked_by_pool=(),
      pending_end=3,
  )
  server = server_evidence.ServerEvidence(
      1,
      'server-1',
      server_evidence.HostEvidence(cpu_busy_pct=70.0),
      pools=pools,
  )
  rows = {row.metric: row for row in _Rows(server)}
  dropped = rows['server_dropped_messages']
  assert (dropped.value, dropped.unit) == (96727, 'messages')
  assert dropped.metadata['scylla_dropped_by_type'] == (
      'READ_REQ 69367, MUTATION_REQ 27360'
  )
  assert dropped.metadata['scylla_server'] == 'server-1'
  blocked = rows['server_blocked_tasks']
  # None blocked is evidence too: a row of 0, without a breakdown.
  assert (blocked.value, blocked.unit) == (0, 'tasks')
  assert blocked.metadata['scylla_pool_pending_end'] == 3
  assert 'scylla_blocked_by_pool' not in blocked.metadata
  for row in rows.values():
    assert not metadata_reference.SampleProblems(
        row.metric, row.unit, row.metadata
    ), row.metric
