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

"""The Cassandra engine brings a real node up and down, on each version.

A fresh node directory (the tarball stand-in, no cassandra.yaml) is
configured by the engine (data directories, cassandra.yaml from the plugin's
template, rack file, jvm options) through cluster.Configure, started through
cluster.Start (the engine's `bin/cassandra -R -p <pid file>`, then polling
the engine's CQL probe until the node serves CQL and `nodetool status` until
it is Up/Normal), looked at through CQL and
JMX, its logs pulled, and stopped by the engine's PID-file command. Only
installing (package manager, Apache archive) cannot run here.

One bring-up per version records what it saw; the tests check the record.
"""

import dataclasses
import re

import pytest

from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.operations import cluster
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import run_envs

pytestmark = pytest.mark.live

# Settings the node must show it received.
HEAP_GB = 1
GC = 'G1'
COMPACTION_THROUGHPUT_MB = 8
CONCURRENT_COMPACTORS = 1


@dataclasses.dataclass
class Lifecycle:
  """What one engine bring-up and stop saw.

  Attributes:
    node: the CassandraNode whose directory the engine ran.
    seeds: cluster.Configure's seed addresses.
    states: engine.NodeStates once started.
    version: engine.Version once started.
    served_cql: the engine's CQL probe once started (node_status.CqlAnswer).
    throughput: `nodetool getcompactionthroughput` stdout.
    compactors: `nodetool getconcurrentcompactors` stdout.
    thread_pools: engine.ThreadPools once started.
    jvm_arguments: the JVM arguments the server logged.
    pulled: local copies cluster.PullLogs made.
    pid: the server's PID before the engine stopped it.
    ran_before_stop, ran_after_stop: whether that PID ran.
    served_cql_after_stop: the engine's CQL probe after Stop.
  """

  node: cassandra_node.CassandraNode
  seeds: list
  states: list
  version: str
  served_cql: node_status.CqlAnswer
  throughput: str
  compactors: str
  thread_pools: object
  jvm_arguments: list
  pulled: dict
  pid: int
  ran_before_stop: bool
  ran_after_stop: bool
  served_cql_after_stop: node_status.CqlAnswer
  data_before_stop: tuple
  data_after_stop: tuple


@pytest.fixture(
    scope='module',
    params=cassandra_node.VERSIONS,
    ids=[f'cassandra-{v}' for v in cassandra_node.VERSIONS],
)
def lifecycle(request, new_node, vm_for, engine_for, tmp_path_factory):
  """Configures, starts, inspects and stops one node with the engine."""
  node = new_node(request.param)
  vm = vm_for(node)
  engine = engine_for(
      node,
      cassandra_heap_gb=HEAP_GB,
      cassandra_gc=GC,
      cassandra_compaction_throughput_mb=COMPACTION_THROUGHPUT_MB,
      cassandra_concurrent_compactors=CONCURRENT_COMPACTORS,
  )
  log_dir = tmp_path_factory.mktemp(f'logs-{node.version}')
  env = run_envs.Make(
      str(log_dir),
      dataclasses.replace(engine.settings, bringup_timeout_s=240),
      engine,
      [vm],
  )
  seeds = cluster.Configure(env)
  cluster.Start(env, poll_s=2)
  states = engine.NodeStates(vm)
  version = engine.Version(vm)
  served_cql = engine.ServesClients(vm)
  throughput, _ = vm.RemoteCommand('nodetool getcompactionthroughput')
  compactors, _ = vm.RemoteCommand('nodetool getconcurrentcompactors')
  pools = engine.ThreadPools(vm)
  pulled = {
      path.rsplit('/', 1)[-1]: path
      for path in cluster.PullLogs(env, str(log_dir))
  }
  pid = node.pid
  ran_before_stop = cassandra_node.ProcessRuns(pid)
  data_before_stop = _Listing(node.data_dir)
  cluster.Stop(env)
  return Lifecycle(
      node=node,
      seeds=seeds,
      states=states,
      version=version,
      served_cql=served_cql,
      throughput=throughput,
      compactors=compactors,
      thread_pools=pools,
      jvm_arguments=_JvmArguments(node),
      pulled=pulled,
      pid=pid,
      ran_before_stop=ran_before_stop,
      ran_after_stop=cassandra_node.ProcessRuns(pid),
      served_cql_after_stop=engine.ServesClients(vm),
      data_before_stop=data_before_stop,
      data_after_stop=_Listing(node.data_dir),
  )


def test_thread_pools_are_read_from_the_node(lifecycle):
  pools = {p.name: p for p in lifecycle.thread_pools.pools}
  assert 'Native-Transport-Requests' in pools
  assert pools['CompactionExecutor'].completed > 0
  # A node that just started dropped nothing, and lists every verb.
  assert len(lifecycle.thread_pools.dropped) > 50
  assert not any(lifecycle.thread_pools.dropped.values())


def _Listing(directory):
  """Every path below directory, relative to it."""
  return tuple(
      sorted(str(p.relative_to(directory)) for p in directory.rglob('*'))
  )


def _JvmArguments(node):
  """The JVM arguments the server logged at start-up."""
  log = (node.log_dir / 'system.log').read_text()
  match = re.search(r'JVM Arguments: \[(.*)\]', log)
  assert match, 'no JVM Arguments line in system.log'
  return match.group(1).split(', ')


def test_configure_names_this_node_the_seed(lifecycle):
  assert lifecycle.seeds == ['127.0.0.1']


def test_started_node_is_up_normal_and_serves_cql(lifecycle):
  assert [(s.address, s.status, s.state) for s in lifecycle.states] == [
      ('127.0.0.1', 'U', 'N')
  ]
  assert lifecycle.served_cql == node_status.CqlAnswer(True)
  assert lifecycle.version == lifecycle.node.version


def test_node_runs_with_the_rendered_yaml(lifecycle):
  assert re.search(
      rf'throughput: {COMPACTION_THROUGHPUT_MB} MB/s', lifecycle.throughput
  )
  assert lifecycle.compactors.split()[-1] == str(CONCURRENT_COMPACTORS)
  before = lifecycle.data_before_stop
  assert 'commitlog' in before and '.scylla_phases_owner' in before
  assert any(p.startswith('data/system/') for p in before)


def test_stop_removes_the_data_the_run_wrote(lifecycle):
  # The run (here with the owner '') claimed the empty directory: Cleanup
  # leaves it empty.
  assert lifecycle.data_after_stop == ()


def test_jvm_got_the_heap_and_one_collector(lifecycle):
  heap = [a for a in lifecycle.jvm_arguments if a.startswith('-Xmx')]
  assert heap[-1] == f'-Xmx{HEAP_GB}G'
  assert lifecycle.jvm_arguments.count('-XX:+UseG1GC') == 1
  assert not [a for a in lifecycle.jvm_arguments if 'ConcMarkSweep' in a]


def test_pull_logs_copies_log_and_config(lifecycle):
  assert {'system.log', 'cassandra.yaml'} <= set(lifecycle.pulled)
  with open(lifecycle.pulled['cassandra.yaml']) as f:
    yaml_text = f.read()
  assert f'native_transport_port: {lifecycle.node.native_port}' in yaml_text


def test_stop_ends_the_process_by_its_pid(lifecycle):
  assert lifecycle.ran_before_stop
  assert not lifecycle.ran_after_stop
  assert not lifecycle.node.pid_file.exists()
  assert lifecycle.served_cql_after_stop == node_status.CqlAnswer(
      False, '[Errno 111] Connection refused'
  )
