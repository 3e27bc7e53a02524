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

"""Tests of the servers' sampling: the real script, in a real shell.

The "servers" are LocalVms (their commands run in bash on this machine):
the sampler script starts in the background, samples this machine's
/proc, reads a metrics page over HTTP with the real curl (a real ScyllaDB
5.x page, served on loopback), stops when told and is pulled; what it
wrote is read by the code the benchmark reads it with.
"""

import dataclasses
import functools
import http.server
import json
import pathlib
import subprocess
import sys
import threading

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.results import thread_pools
from perfkit_plugins.operations import run_files
from perfkit_plugins.operations import server_sampling
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import local_vm
from perfkit_plugins.testing import run_envs

_PAGE = (
    pathlib.Path(__file__).parents[1]
    / 'testdata'
    / 'scylla-metrics'
    / 'scylla-5.x-datadog-fixture.prom'
)


_LIVE = pathlib.Path(__file__).parents[1] / 'testdata' / 'live'


@dataclasses.dataclass
class _Engine:
  """The part of an Engine the sampling asks: its page, its compactions,
  its thread pools (when `tpstats` is set, real Cassandra 4.1 outputs: busy
  at the first call of each server, loaded at the next)."""

  url: str = None
  tpstats: bool = False
  calls: dict = dataclasses.field(default_factory=dict)

  def MetricsUrl(self, vm):
    del vm
    return self.url

  def CompactionStatus(self, vm):
    if isinstance(vm, fake_vm.FakeVm):
      raise fake_vm.RemoteCommandError(f'{vm.name}: ssh: no route to host')
    return compactions.CompactionStatus(running=1, pending=7)

  def ThreadPools(self, vm):
    if isinstance(vm, fake_vm.FakeVm):
      raise fake_vm.RemoteCommandError(f'{vm.name}: ssh: no route to host')
    if not self.tpstats:
      return None
    self.calls[vm.name] = self.calls.get(vm.name, 0) + 1
    when = ('busy', 'loaded')[self.calls[vm.name] - 1]
    return thread_pools.ParseTpstats(
        (_LIVE / f'c4110-{when}-tpstats.txt').read_text()
    )


@pytest.fixture(name='metrics_url')
def _MetricsUrl():
  """A loopback HTTP server of the real page; its URL."""
  handler = functools.partial(
      http.server.SimpleHTTPRequestHandler, directory=str(_PAGE.parent)
  )
  server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
  thread = threading.Thread(target=server.serve_forever, daemon=True)
  thread.start()
  yield f'http://127.0.0.1:{server.server_port}/{_PAGE.name}'
  server.shutdown()
  server.server_close()


def _Env(tmp_path, engine, servers):
  install = tmp_path / 'install'
  for vm in servers:
    server_sampling.PushScript(vm, str(install))
  return run_envs.Make(
      output_dir=str(tmp_path / 'out'),
      settings=settings_lib.Settings(data_dir=str(tmp_path)),
      engine=engine,
      servers=servers,
      install_dir=str(install),
      remote_dir=str(tmp_path / 'remote'),
  )


def test_a_step_is_sampled_from_start_to_stop(tmp_path, metrics_url):
  servers = [
      local_vm.LocalVm(name=f'server-{i}', cwd=tmp_path) for i in range(2)
  ]
  env = _Env(tmp_path, _Engine(metrics_url), servers)
  sampling = server_sampling.Sampling(env, 'read_small')
  sampling.Start()
  pulled = tmp_path / 'pulled'
  pulled.mkdir()
  files = sampling.StopAndPull(str(pulled))
  assert [f.vm_name for f in files] == ['server-0', 'server-1']
  for f in files:
    assert f.error is None and not f.missing_files
    assert sorted(f.local_files) == [server_sampling.HOST, server_sampling.PROM]
  (output,) = server_sampling.Outputs(files[:1])
  assert output.shards and not output.problems
  # The first and the last sample, each with a scrape of the page.
  host = output.host.splitlines()
  assert host[0].startswith('# device ')
  assert sum(' cpu ' in line for line in host) == 2
  scrapes = scylla_metrics.ParseScrapes(output.metrics)
  assert len(scrapes) == 2 and not any(s.failed for s in scrapes)
  page = scylla_metrics.ParseExposition(_PAGE.read_text())
  assert scrapes[0].samples['scylla_reactor_cpu_busy_ms'] == tuple(
      (labels, value) for labels, value in page['scylla_reactor_cpu_busy_ms']
  )
  assert set(scrapes[0].samples) == set(scylla_metrics.FAMILIES) & set(page)
  evidence = server_evidence.EvidenceOfServer(output, 0, 1e10)
  assert evidence.host.cpu_busy_pct is not None
  assert evidence.compactions == compactions.CompactionStatus(1, 7)
  # The same page twice: nothing moved, and the gauges are the page's.
  assert evidence.scylla.cql_requests_per_s == 0
  assert evidence.scylla.shards == 4


def test_an_engine_without_a_page_is_sampled_on_its_host_only(tmp_path):
  vm = local_vm.LocalVm(name='server-0', cwd=tmp_path)
  env = _Env(tmp_path, _Engine(), [vm])
  sampling = server_sampling.Sampling(env, 'populate')
  sampling.Start()
  (files,) = sampling.StopAndPull(str(tmp_path))
  assert sorted(files.local_files) == [server_sampling.HOST]
  (output,) = server_sampling.Outputs([files])
  assert not output.shards and output.metrics is None
  assert not list(tmp_path.glob('remote/*.page'))


def test_a_cassandra_node_says_what_its_pools_did_from_start_to_stop(
    tmp_path,
):
  servers = [
      local_vm.LocalVm(name=f'server-{i}', cwd=tmp_path) for i in range(2)
  ]
  engine = _Engine(tpstats=True)
  env = _Env(tmp_path, engine, servers)
  sampling = server_sampling.Sampling(env, 'mixed')
  sampling.Start()
  # Read as the step started, before any loader.
  assert engine.calls == {'server-0': 1, 'server-1': 1}
  files = sampling.StopAndPull(str(tmp_path))
  assert engine.calls == {'server-0': 2, 'server-1': 2}
  assert files[0].node.pools_start.dropped['MUTATION_REQ'] == 9170
  assert files[0].node.pools_end.dropped['MUTATION_REQ'] == 34528
  output, _ = server_sampling.Outputs(files)
  evidence = server_evidence.EvidenceOfServer(output, 0, 1e10)
  assert evidence.pools.dropped_by_type == (
      ('READ_REQ', 66774),
      ('MUTATION_REQ', 34528 - 9170),
  )
  assert not evidence.problems
  # The whole record goes to the step's servers.json.
  path = tmp_path / 'servers.json'
  run_files.WriteJson(str(path), files)
  written = json.loads(path.read_text())
  assert written[1]['node']['pools_end']['dropped']['READ_REQ'] == 66774


def test_an_unreadable_page_is_recorded_as_failed_scrapes(tmp_path):
  vm = local_vm.LocalVm(name='server-0', cwd=tmp_path)
  env = _Env(tmp_path, _Engine('http://127.0.0.1:9/metrics'), [vm])
  sampling = server_sampling.Sampling(env, 'populate')
  sampling.Start()
  (files,) = sampling.StopAndPull(str(tmp_path))
  (output,) = server_sampling.Outputs([files])
  scrapes = scylla_metrics.ParseScrapes(output.metrics)
  assert [s.failed for s in scrapes] == [True, True]
  evidence = server_evidence.EvidenceOfServer(output, 0, 1e10)
  assert evidence.scylla.reactor_max_pct is None
  assert evidence.busy_pct is None


def test_a_server_that_cannot_be_reached_is_recorded_not_raised(tmp_path):
  vm = fake_vm.FakeVm('server-0', '10.0.0.2')
  vm.Reply(r'setsid sh ', 'ssh: connect: No route to host', fail=True)
  env = _Env(tmp_path, _Engine(), [vm])
  sampling = server_sampling.Sampling(env, 'populate')
  sampling.Start()
  (files,) = sampling.StopAndPull(str(tmp_path))
  assert files.error.startswith('could not start its sampler: ')
  assert 'host' in files.missing_files
  (output,) = server_sampling.Outputs([files])
  assert output.host is None and output.problems[0] == files.error
  assert output.node.problems == (
      'compactions unknown: server-0: ssh: no route to host',
      'thread pools unknown: server-0: ssh: no route to host',
  )
  # A stopped server is not asked to stop.
  assert not vm.CommandsMatching(r'^touch ')


def test_every_value_of_the_commands_is_quoted(tmp_path):
  odd = tmp_path / "it's here"
  command = server_sampling.StartCommand(
      '/opt/pkb/x.sh', str(odd / 's'), str(odd), 'http://h:9180/m?a=1&b=2'
  )
  stop = server_sampling.StopCommand(str(odd / 's'))
  for text in (command, stop):
    result = subprocess.run(
        ['bash', '-n', '-c', text], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
  assert "'http://h:9180/m?a=1&b=2'" in command


def test_the_script_passes_shellcheck():
  shellcheck = pathlib.Path(sys.executable).with_name('shellcheck')
  result = subprocess.run(
      [str(shellcheck), '--shell=sh', server_sampling.SCRIPT_SOURCE],
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 0, result.stdout


def test_cleanup_stops_a_sampler_its_step_left_running(tmp_path):
  vm = local_vm.LocalVm(name='server-0', cwd=tmp_path)
  env = _Env(tmp_path, _Engine(), [vm])
  server_sampling.Sampling(env, 'populate').Start()
  server_sampling.Sampling(env, 'read').Start()
  stem = server_sampling.Stem(env.remote_dir, 'read', 0)
  vm.RemoteCommand(server_sampling.StopCommand(stem))
  assert server_sampling.StopAll(env) == {'server-0': '1 sampler(s) stopped'}
  stem = server_sampling.Stem(env.remote_dir, 'populate', 0)
  vm.RemoteCommand(
      'for i in $(seq 50); do [ -e {0} ] && break; sleep 0.2; done; [ -e {0} ]'
      .format(f'{stem}.done')
  )
  assert server_sampling.StopAll(env) == {'server-0': '0 sampler(s) stopped'}


def test_a_start_clears_what_an_earlier_run_left_on_its_stem(tmp_path):
  vm = local_vm.LocalVm(name='server-0', cwd=tmp_path)
  env = _Env(tmp_path, _Engine(), [vm])
  stem = pathlib.Path(server_sampling.Stem(env.remote_dir, 'read', 0))
  stem.parent.mkdir(parents=True)
  for suffix in ('host', 'stop', 'done'):
    stem.with_name(f'{stem.name}.{suffix}').write_text('an earlier run\n')
  sampling = server_sampling.Sampling(env, 'read')
  sampling.Start()
  (files,) = sampling.StopAndPull(str(tmp_path))
  assert files.error is None
  host = pathlib.Path(files.local_files['host']).read_text()
  assert 'an earlier run' not in host and host.count(' cpu ') == 2


def test_no_sampler_runs_when_the_servers_are_not_sampled(tmp_path):
  vm = fake_vm.FakeVm('server-0', '10.0.0.2')
  env = dataclasses.replace(
      _Env(tmp_path, _Engine(), [vm]),
      settings=settings_lib.Settings(sample_servers=False),
  )
  sampling = server_sampling.Sampling(env, 'populate')
  sampling.Start()
  assert sampling.StopAndPull(str(tmp_path)) == ()
  assert not vm.CommandsMatching(r'setsid|touch') and not vm.pulled
