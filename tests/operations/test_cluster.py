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

"""Bring-up order, Up/Normal waiting with a deadline, logs on failure."""

import pytest

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.software import token_ring
from perfkit_plugins.engines import cassandra
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import cluster
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import run_envs

# PKB's vm_util.VM_TMP_DIR, which the shell hands in.
VM_TMP_DIR = '/tmp/pkb'


class FakeClock:
  """Time that only moves when the code under test sleeps."""

  def __init__(self):
    self.now = 0.0
    self.sleeps = []

  def Sleep(self, seconds):
    self.sleeps.append(seconds)
    self.now += seconds

  def Now(self):
    return self.now


def _Status(lab, up):
  """The real 3-node `nodetool status`, keeping only the lines of `up`."""
  lines = lab('trio-nt-status.txt').splitlines()
  return (
      '\n'.join(
          l for l in lines if not l.startswith('UN ') or l.split()[1] in up
      )
      + '\n'
  )


# The CQL probe (node_status.CqlProbeCommand) and what it prints.
PROBE = r'^python3 -c '
SERVING = 'serving\n'
REFUSED = 'not serving: [Errno 111] Connection refused\n'


def _Servers():
  servers = [
      fake_vm.FakeVm(name=f'server-{i}', internal_ip=f'127.0.0.{i + 1}')
      for i in range(3)
  ]
  for vm in servers:
    vm.Reply(r'^sudo systemctl is-active scylla-server$', 'active\n')
    vm.Reply(PROBE, SERVING)
  return servers


def _Start(engine, servers, tmp_path, clock, timeout_s=600, poll_s=5):
  """cluster.Start on the fake clock, --scylla_bringup_timeout_s=timeout_s."""
  cluster.Start(
      _Env(engine, servers, tmp_path, timeout_s),
      poll_s=poll_s,
      sleep=clock.Sleep,
      clock=clock.Now,
  )


def _StartingServers(lab):
  """_Servers whose `nodetool status` shows the nodes started so far."""
  servers = _Servers()
  for vm in servers:
    vm.Reply(
        r'^nodetool status$', lambda _, s=servers: _Status(lab, _StartedIps(s))
    )
  return servers


class _AtOnce(scylla.ScyllaEngine):
  """An engine whose nodes need nothing from each other's joins."""

  JOINS_AT_ONCE = True

  def __init__(self):
    super().__init__(settings.Settings(), VM_TMP_DIR)


def _Steps(vm):
  """What each command of vm did: start, running, probe or status."""
  kinds = {
      'sudo systemctl start scylla-server': 'start',
      'sudo systemctl is-active scylla-server': 'running',
      'nodetool status': 'status',
  }
  return [
      'probe' if c.startswith('python3 -c ') else kinds.get(c, c)
      for c in vm.commands
  ]


def _Env(engine, servers, tmp_path, bringup_timeout_s):
  return run_envs.Make(
      str(tmp_path),
      settings.Settings(bringup_timeout_s=bringup_timeout_s),
      engine,
      servers,
  )


def _StartedIps(servers):
  return [
      vm.internal_ip
      for vm in servers
      if vm.CommandsMatching('systemctl start scylla-server')
  ]


def test_seed_first_then_one_at_a_time(lab, tmp_path):
  servers = _Servers()
  for vm in servers:
    # Each node sees the nodes started so far; the first poll of a node
    # fails as nodetool does while the node starts.
    vm.Reply(
        r'^nodetool status$', lambda _, s=servers: _Status(lab, _StartedIps(s))
    )
  servers[1].Reply(r'^nodetool status$', '', fail=True)
  clock = FakeClock()
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)

  with pytest.raises(cluster.BringUpError, match='server-1.*no answer'):
    _Start(engine, servers, tmp_path, clock, 60, poll_s=5)
  # The seed saw every node, but server-1 never answers: the deadline ends
  # the final check.
  assert _StartedIps(servers) == ['127.0.0.1', '127.0.0.2', '127.0.0.3']
  assert 60 <= clock.now <= 65

  servers = _StartingServers(lab)
  clock = FakeClock()
  _Start(engine, servers, tmp_path, clock, 600, poll_s=5)
  starts = [
      (vm.name, vm.commands.index('sudo systemctl start scylla-server'))
      for vm in servers
  ]
  assert [name for name, _ in starts] == ['server-0', 'server-1', 'server-2']
  # server-1 was started only after the seed, running, served CQL and saw
  # itself Up/Normal; then the seed saw it too, and at the end the others
  # saw everyone.
  assert _Steps(servers[0])[:5] == [
      'start',
      'running',
      'probe',
      'running',
      'status',
  ]
  assert _Steps(servers[1])[:3] == ['start', 'running', 'probe']
  assert _Steps(servers[1])[-1] == 'status'
  assert clock.sleeps == []


def test_nodes_that_need_nothing_from_each_others_joins_start_at_once(
    lab, tmp_path
):

  servers = _StartingServers(lab)
  batches = []

  def RunThreaded(f, items):
    batches.append([vm.name for vm in items])
    return [f(i) for i in items]

  clock = FakeClock()
  env = run_envs.Make(
      str(tmp_path),
      settings.Settings(bringup_timeout_s=600),
      _AtOnce(),
      servers,
      run_threaded=RunThreaded,
  )
  cluster.Start(env, poll_s=5, sleep=clock.Sleep, clock=clock.Now)
  # Every node at once, every poll asks every node at once whether it
  # runs, then whether it is ready: each serves CQL, and then sees every
  # node Up/Normal.
  every = ['server-0', 'server-1', 'server-2']
  assert batches == [every] * 3
  for vm in servers:
    assert _Steps(vm) == ['start', 'running', 'probe', 'status']
  assert clock.sleeps == []


def test_which_engines_start_their_nodes_at_once():
  # Apache Cassandra's nodes get their tokens before they start and do not
  # bootstrap; ScyllaDB's take tokens as they join.
  assert cassandra.CassandraEngine.JOINS_AT_ONCE
  assert not scylla.ScyllaEngine.JOINS_AT_ONCE


def test_timeout_pulls_every_nodes_logs(lab, tmp_path):
  servers = _Servers()
  for vm in servers:
    vm.Reply(r'^nodetool status$', _Status(lab, ['127.0.0.1', '127.0.0.2']))
    vm.remote_files[f'{VM_TMP_DIR}/{scylla.JOURNAL_NAME}'] = (
        f'{vm.name} journal\n'
    )
    vm.remote_files[scylla.SCYLLA_YAML] = 'cluster_name: x\n'
  clock = FakeClock()
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)
  with pytest.raises(cluster.BringUpError, match='127.0.0.3'):
    _Start(engine, servers, tmp_path, clock, 120, poll_s=10)
  assert 120 <= clock.now <= 130
  for vm in servers:
    assert (
        tmp_path / cluster.BRINGUP_LOGS_DIR / vm.name / 'scylla-server.log'
    ).read_text() == f'{vm.name} journal\n'
    assert (
        tmp_path / cluster.BRINGUP_LOGS_DIR / vm.name / 'scylla.yaml'
    ).exists()
    assert vm.CommandsMatching(r'journalctl -u scylla-server')


def test_configure_seed_first_and_stop_cleans():
  calls = []

  class Recorder:

    def Configure(self, vm, seed_ips, ring_slot):
      calls.append(('configure', vm.name, tuple(seed_ips), ring_slot))

    def Stop(self, vm):
      calls.append(('stop', vm.name))

    def Clean(self, vm):
      calls.append(('clean', vm.name))

  servers = _Servers()
  parallel = []
  seeds = cluster.Configure(
      run_envs.Make(
          engine=Recorder(),
          servers=servers,
          run_threaded=lambda f, items: parallel.append(items)
          or [f(i) for i in items],
      )
  )
  assert seeds == ['127.0.0.1']
  assert calls == [
      ('configure', f'server-{i}', ('127.0.0.1',), token_ring.RingSlot(i, 3))
      for i in range(3)
  ]
  assert parallel == [servers[1:]]
  calls.clear()
  cluster.Stop(run_envs.Make(engine=Recorder(), servers=servers[:1]))
  assert calls == [('stop', 'server-0'), ('clean', 'server-0')]


def test_a_node_whose_process_ends_fails_the_bring_up_at_once(lab, tmp_path):
  servers = _StartingServers(lab)
  # server-1's database exits as it starts (its port is taken, say).
  servers[1].Reply(r'^sudo systemctl is-active scylla-server$', 'failed\n')
  clock = FakeClock()
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)
  with pytest.raises(
      cluster.BringUpError,
      match=r'server-1 \(127\.0\.0\.2\): the scylla process ended',
  ):
    _Start(engine, servers, tmp_path, clock, 1800, poll_s=5)
  # Not the deadline: the first look after its start.
  assert clock.now <= 5
  assert _StartedIps(servers) == ['127.0.0.1', '127.0.0.2']
  logs = tmp_path / cluster.BRINGUP_LOGS_DIR
  assert {p.name for p in logs.iterdir()} == {v.name for v in servers}


def test_bring_up_waits_until_every_node_serves_cql(lab, tmp_path):
  servers = _StartingServers(lab)
  # server-2's native transport starts a while after the process.
  answers = iter([REFUSED, REFUSED, SERVING])
  servers[2].Reply(PROBE, lambda _: next(answers))
  clock = FakeClock()
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)
  _Start(engine, servers, tmp_path, clock, 600, poll_s=5)
  # Whether the started nodes run, then whether server-2 serves, thrice.
  assert _Steps(servers[2])[:7] == ['start'] + ['running', 'probe'] * 3
  # The seed is asked whether it sees server-2 only once it serves CQL.
  assert _Steps(servers[0]).count('status') == 3
  assert clock.sleeps == [5, 5]


def test_a_node_is_asked_for_the_ring_only_once_it_serves_cql(lab, tmp_path):
  servers = _StartingServers(lab)
  # server-1's native transport starts two polls after the others'.
  answers = iter([REFUSED, REFUSED, SERVING])
  servers[1].Reply(PROBE, lambda _: next(answers))
  clock = FakeClock()
  _Start(_AtOnce(), servers, tmp_path, clock, poll_s=1)
  assert (
      _Steps(servers[0])
      == ['start', 'running', 'probe', 'status'] + ['running'] * 2
  )
  assert _Steps(servers[1]) == ['start'] + ['running', 'probe'] * 3 + ['status']
  assert clock.sleeps == [1, 1]


def test_a_slow_round_is_followed_at_once_by_the_next(lab, tmp_path):
  clock = FakeClock()
  servers = _StartingServers(lab)

  def SlowStatus(_):
    clock.now += 3  # a nodetool JVM on a busy host
    return _Status(lab, _StartedIps(servers))

  servers[0].Reply(r'^nodetool status$', SlowStatus)
  answers = iter([REFUSED, SERVING])
  servers[1].Reply(PROBE, lambda _: next(answers))
  _Start(_AtOnce(), servers, tmp_path, clock, poll_s=1)
  # The first round took 3 s: server-1 is asked again without a pause.
  assert clock.sleeps == [0.0]
  assert _Steps(servers[1])[-2:] == ['probe', 'status']


def test_a_node_that_never_serves_cql_is_named_with_why(lab, tmp_path):
  servers = _StartingServers(lab)
  servers[1].Reply(PROBE, REFUSED)
  clock = FakeClock()
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)
  with pytest.raises(
      cluster.BringUpError,
      match=r'^server-1 does not serve CQL on 127\.0\.0\.2:9042'
      r' \(\[Errno 111\] Connection refused\)$',
  ):
    _Start(engine, servers, tmp_path, clock, 30, poll_s=1)
  assert 30 <= clock.now <= 31
  assert _StartedIps(servers) == ['127.0.0.1', '127.0.0.2']
