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

"""`scylla-phases-local`, the README's command, on this host for real.

The command runs as a user runs it (the console script, else `python -m`),
with the test bed's short durations passed through to pkb.py after `--`,
once to its end and once interrupted with SIGINT in the middle of a step.
Both times everything it made must be gone when it exits: every process
seen in its machines' namespaces while it ran (and its mirror and pkb.py),
its namespaces, links and bridge, its work directory. A watcher follows
the command's state file to learn what it made, as another process would.
"""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from perfkit_plugins.core.results import results_tables
from perfkit_plugins.local import cluster_state
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import processes
from perfkit_plugins.testing import testbed as testbed_lib
from perfkit_plugins.tools import local_run
from perfkit_plugins.tools import pkb_location

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

WORK_DIR = pathlib.Path(local_run.DEFAULT_WORK_DIR)
# The test bed's whole-run flags: every phase in seconds, here shorter
# still (CI's budget; a step's cassandra-stress start takes longer). Reads
# during writes stay long: with three servers and a writer on two cores, a
# reader's cassandra-stress took 13 s from its start to its first interval
# (its writer 6 s), and at rdw=10 a reader began after its writer had ended.
SHORT_FLAGS = tuple(
    f'--{name}={value}'
    for name, value in (
        testbed_lib.SHORT_RUN_FLAGS
        | {
            'scylla_num_keys': 10000,
            'scylla_read_small_stdev': 2000,
            'scylla_durations': 'all=6,warmup=3,rdw=20,rdw_read_delay=2',
        }
    ).items()
)
RUN_TIMEOUT_S = 900
# From the SIGINT to the command's exit: pkb.py stops the step, publishes,
# cleans; then the cluster is removed.
INTERRUPT_BOUND_S = 120


def _Problem():
  """Why the command cannot run here (it would refuse), or None."""
  args, _ = local_run.ParseArgs([])
  problem = local_run.Problems(args, WORK_DIR, pkb_location.Path())
  if problem:
    return problem
  try:
    state = cluster_state.Read(WORK_DIR)
  except cluster_state.StateError as e:
    return str(e)
  if state is not None and state.Alive():
    return f'a local cluster of PID {state.owner.pid} is up in {WORK_DIR}'
  return None


@pytest.fixture(name='local_host')
def _LocalHost():
  problem = _Problem()
  if problem:
    pytest.skip(f'scylla-phases-local: {problem}')


def _Command(*argv):
  script = pathlib.Path(sys.executable).parent / local_run.PROG
  if script.exists():
    return [str(script), *argv]
  return [sys.executable, '-m', 'perfkit_plugins.tools.local_run', *argv]


class _Watcher(threading.Thread):
  """Records what the command's state file says it made, as it runs.

  Attributes:
    tags: the tags of its machines.
    seen: every process (processes.Process) of its machines' namespaces,
      its mirror and pkb.py.
  """

  def __init__(self):
    super().__init__(daemon=True)
    self.tags = set()
    self.seen = set()
    self.work_dir_modes = set()
    self.done = threading.Event()

  def run(self):
    while not self.done.wait(0.5):
      self.Sample()

  def Sample(self):
    try:
      self.work_dir_modes.add(WORK_DIR.stat().st_mode & 0o7777)
    except FileNotFoundError:
      pass
    try:
      state = cluster_state.Read(WORK_DIR)
    except (cluster_state.StateError, OSError):
      return
    if state is None:
      return
    if state.pkb:
      self.seen.add(state.pkb)
    if not state.machines:
      return
    self.tags.add(state.machines['tag'])
    record = state.machines
    if record.get('mirror'):
      self.seen.add(processes.Process.FromList(record['mirror']))
    for entry in record['machines'].values():
      out = subprocess.run(
          ['ip', 'netns', 'pids', entry['netns']],
          capture_output=True,
          text=True,
          check=False,
      ).stdout
      for pid in out.split():
        found = processes.Of(int(pid))
        if found is not None:
          self.seen.add(found)

  def Stop(self):
    self.done.set()
    self.join()


def _CheckNothingLeft(watcher, owner_pid):
  assert watcher.tags == {f'{local_run.TAG_PREFIX}{owner_pid}'}
  # Its sshd, Cassandra, cassandra-stress, mirror, pkb.py: seen, then gone.
  assert len(watcher.seen) > 3
  assert [p for p in watcher.seen if p.Running()] == []
  (tag,) = watcher.tags
  names = host_machines.NetnsNames() + host_machines.LinkNames()
  assert [n for n in names if n.startswith(tag)] == []
  assert not WORK_DIR.exists()
  marker = str(WORK_DIR)
  left = [
      (pid, processes.CommandLine(pid))
      for pid in map(int, filter(str.isdigit, os.listdir('/proc')))
      if marker in processes.CommandLine(pid)
  ]
  assert left == []


def _Results(results_dir):
  (run_dir,) = results_dir.iterdir()
  path = run_dir / 'perfkitbenchmarker_results.json'
  return run_dir, path.read_text()


def _Labels(sample):
  return sample.get('metadata') or results_tables.ParseLabels(sample['labels'])


def test_the_readme_command_runs_every_phase_and_leaves_nothing(
    local_host, tmp_path
):
  del local_host
  watcher = _Watcher()
  watcher.start()
  started = time.monotonic()
  try:
    with subprocess.Popen(
        _Command('--', *SHORT_FLAGS),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as command:
      out, _ = command.communicate(timeout=RUN_TIMEOUT_S)
  finally:
    watcher.Stop()
  elapsed = time.monotonic() - started
  (tmp_path / 'out.txt').write_text(out)
  assert command.returncode == 0, out[-5000:]
  # What it says it runs, its progress and the report's tables.
  text = ' '.join(out.split())
  assert 'Apache Cassandra 5.0.9' in text and 'not ScyllaDB' in text
  for line in (
      'Provisioning resources for benchmark scylla_phases',
      'Starting populate on 2 loaders',
      'Quiesce quiesced',
      'scylla_phases RUN: step 12 of 12, mixed',
      'PKB exiting with return_code 0',
      '\nThroughput\n',
      '\nLatency at fixed rates (ms)\n',
      '\nQuiesce\n',
      '12 of 12 steps ended with phase_status 1',
  ):
    assert line in out, line
  run_dir, results = _Results(tmp_path / local_run.DEFAULT_RESULTS_DIR)
  statuses = {}
  for line in results.splitlines():
    sample = json.loads(line)
    if sample['metric'] == 'phase_status':
      statuses[_Labels(sample)['scylla_step']] = sample['value']
  assert set(statuses) == {
      'schema',
      'populate',
      'quiesce',
      'read_warmup',
      'read_small',
      'read_medium',
      'read_large',
      'latency_200',
      'flush_quiesce_before_latency_400',
      'latency_400',
      'reads_during_writes',
      'mixed',
  }
  assert set(statuses.values()) == {1}, statuses
  assert (run_dir / 'report.txt').read_text().strip() in out
  # Where each stress step's limit was, from the servers' own samples.
  servers = out.split('\nServers (limit of each step;')[1].split('\n\n')[0]
  limits = dict(
      re.findall(r'^  (\w+) +([a-z+]+) ', servers, flags=re.MULTILINE)
  )
  for step in ('populate', 'read_small', 'latency_200', 'mixed'):
    assert set(limits[step].split('+')) <= {'loaders', 'servers', 'disk'} or (
        limits[step] == 'none'
    ), (step, servers)
  assert (run_dir / local_run.CONFIG_NAME).exists()
  assert (run_dir / 'scylla_phases' / 'steps' / 'mixed').is_dir()
  assert sorted(p.name for p in (run_dir / 'plots').iterdir())
  # Root's alone while it ran; the results readable by every user.
  assert watcher.work_dir_modes == {0o700}
  assert {p.stat().st_mode & 0o777 for p in run_dir.rglob('*')} <= {
      0o755,
      0o644,
  }
  _CheckNothingLeft(watcher, command.pid)
  print(f'local run: {elapsed:.0f} s')


def test_sigint_mid_step_stops_the_run_and_leaves_nothing(local_host, tmp_path):
  del local_host
  watcher = _Watcher()
  watcher.start()
  out_path = tmp_path / 'out.txt'
  try:
    with open(out_path, 'w') as out, subprocess.Popen(
        _Command(
            'run',
            '--servers',
            '1',
            '--loaders',
            '1',
            '--keep',
            '--',
            *SHORT_FLAGS,
        ),
        cwd=tmp_path,
        stdout=out,
        stderr=subprocess.STDOUT,
    ) as command:
      deadline = time.monotonic() + RUN_TIMEOUT_S
      while 'Starting populate on 1 loaders' not in out_path.read_text():
        assert command.poll() is None, out_path.read_text()[-5000:]
        assert time.monotonic() < deadline
        time.sleep(0.2)
      time.sleep(2)
      interrupted_at = time.monotonic()
      command.send_signal(signal.SIGINT)
      code = command.wait(timeout=INTERRUPT_BOUND_S + 60)
      ended_in = time.monotonic() - interrupted_at
  finally:
    watcher.Stop()
  text = out_path.read_text()
  assert code == local_run.EXIT_INTERRUPTED, text[-5000:]
  assert ended_in < INTERRUPT_BOUND_S, ended_in
  assert '== Interrupted: pkb.py stops the step' in text
  assert 'PKB exiting with return_code 1' in text
  # --keep keeps a cluster after a run, not after a Ctrl-C.
  assert 'The cluster stays up' not in text
  _, results = _Results(tmp_path / local_run.DEFAULT_RESULTS_DIR)
  populate = [
      _Labels(s)
      for s in map(json.loads, results.splitlines())
      if s['metric'] == 'phase_status'
      and _Labels(s)['scylla_step'] == 'populate'
  ]
  assert [p['scylla_status'] for p in populate] == ['interrupted']
  _CheckNothingLeft(watcher, command.pid)
