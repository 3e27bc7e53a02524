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

"""The Cassandra engine's node commands against a live node of each version.

Status (Up/Normal), version, flush and idle compaction status go through
`CassandraEngine` and `LocalVm`, so the plugin's own command lines and
parsers meet the real `nodetool` output of Cassandra 4.1 and 5.0.
"""

import pytest

from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import cql_load

pytestmark = pytest.mark.live

KEYSPACE = 'live_node'
TABLE = 'flushed'


def test_node_serves_cql_and_runs_under_its_pid(cassandra):
  assert cassandra_node.ServesCql(cassandra.native_port)
  assert cassandra_node.ProcessRuns(cassandra.pid)


def test_node_states_see_the_node_up_normal(cassandra_engine, cassandra_vm):
  states = cassandra_engine.NodeStates(cassandra_vm)
  assert [(s.address, s.status, s.state) for s in states] == [
      ('127.0.0.1', 'U', 'N')
  ]
  assert not node_status.NotUpNormal(states, ['127.0.0.1'])
  assert node_status.NotUpNormal(states, ['127.0.0.1', '127.0.0.2']) == [
      '127.0.0.2'
  ]


def test_version_is_the_running_release(
    cassandra, cassandra_engine, cassandra_vm
):
  assert cassandra_engine.Version(cassandra_vm) == cassandra.version


def test_commands_ran_through_the_vm(cassandra, cassandra_engine, cassandra_vm):
  cassandra_engine.CompactionStatus(cassandra_vm)
  [command] = cassandra_vm.commands
  assert 'compactionstats' in command
  assert str(cassandra.jmx_port) in command


def test_flush_writes_the_memtable_to_an_ss_table(
    cassandra, cassandra_engine, cassandra_vm
):
  cluster, session = cql_load.Connect(cassandra.native_port)
  try:
    cql_load.CreateTable(session, KEYSPACE, TABLE)
    cql_load.WriteRows(session, KEYSPACE, TABLE, 0, 100, 100)
    before = _DataFiles(cassandra)
    cassandra_engine.Flush(cassandra_vm, KEYSPACE)
    after = _DataFiles(cassandra)
    rows = session.execute(f'SELECT count(*) FROM {KEYSPACE}.{TABLE}').one()
  finally:
    cluster.shutdown()
  assert len(after) == len(before) + 1
  assert rows[0] == 100


def _DataFiles(node):
  """The SSTable data files of KEYSPACE.TABLE on the node's disk."""
  table_dirs = (node.data_dir / 'data' / KEYSPACE).glob(f'{TABLE}-*')
  return sorted(f for d in table_dirs for f in d.glob('*-Data.db'))
