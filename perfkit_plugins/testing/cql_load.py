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

"""Writes through CQL that leave a live node with compaction work to do.

Tests that need real compactions (quiesce, compaction status) build them with
these functions: a table with compression off (bytes on disk = bytes written,
so a throughput cap gives predictable durations), rows of random bytes, and
flushes in between so each batch becomes one SSTable.
"""

import os

from cassandra import cluster as cql_cluster
from cassandra import concurrent as cql_concurrent
from cassandra import policies as cql_policies

LOOPBACK = '127.0.0.1'


def Connect(port):
  """A cassandra-driver Cluster and Session for one node on loopback."""
  cluster = cql_cluster.Cluster(
      [LOOPBACK],
      port=port,
      load_balancing_policy=cql_policies.RoundRobinPolicy(),
      protocol_version=4,
  )
  return cluster, cluster.connect()


def CreateTable(session, keyspace, table):
  """Creates `keyspace.table` (RF 1, size-tiered, uncompressed) if absent."""
  session.execute(
      f'CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication ='
      " {'class': 'SimpleStrategy', 'replication_factor': 1}"
  )
  session.execute(
      f'CREATE TABLE IF NOT EXISTS {keyspace}.{table}'
      ' (key bigint PRIMARY KEY, value blob)'
      " WITH compaction = {'class': 'SizeTieredCompactionStrategy'}"
      " AND compression = {'enabled': false}"
  )


def WriteRows(session, keyspace, table, first_key, count, value_size):
  """Writes `count` rows of `value_size` random bytes from `first_key` on.

  Raises:
    RuntimeError: if any write failed.
  """
  insert = session.prepare(
      f'INSERT INTO {keyspace}.{table} (key, value) VALUES (?, ?)'
  )
  rows = (
      (key, os.urandom(value_size))
      for key in range(first_key, first_key + count)
  )
  results = cql_concurrent.execute_concurrent_with_args(
      session, insert, rows, concurrency=64, raise_on_first_error=True
  )
  failed = [r for r in results if not r.success]
  if failed:
    raise RuntimeError(
        f'{len(failed)} writes failed: {failed[0].result_or_exc}'
    )
