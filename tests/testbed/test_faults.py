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

"""Real faults on the test bed: every failure ends with evidence and no trace.

Each test runs stock pkb.py on one Cassandra server and two loaders of the
test bed (RF 1, every read sub-phase 20 s) and injects one fault from here,
by PID or through the machine's namespaces: a loader's cassandra-stress
killed, a loader cut off, the server's database killed or never up, a
hung loader, compactions that outlast the quiesce timeout, a full output
directory, pkb.py interrupted. Every test checks that what was measured
before the fault is published, that the faulty step says what happened in
one line and later steps say they did not run, that the raw outputs that
exist were pulled, that Cleanup left no process and no data on the machines
it could reach (and named the one it could not), that pkb.py failed, and
that it all ended within a bound.
"""

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.testing import testbed as testbed_lib

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

SERVER = 'server-0'
LOADERS = testbed_lib.LOADERS
REMOTE_DIR = '/tmp/pkb/scylla_phases'
FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_replication_factor': 1,
    'scylla_consistency_level': 'ONE',
    'scylla_num_keys': 20000,
    'scylla_threads': 8,
    'scylla_populate_threads': 8,
    'scylla_phases': 'populate,quiesce,read',
    'scylla_durations': 'warmup=0,read=20',
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 3,
    'scylla_quiesce_timeout_s': 120,
} | testbed_lib.LOADER_FLAGS
STEPS = (
    'schema',
    'populate',
    'quiesce',
    'read_small',
    'read_medium',
    'read_large',
)
# PKB notices a machine that is gone within seconds, not minutes.
FAST_SSH = (
    '--ssh_server_alive_interval=2',
    '--ssh_server_alive_count_max=2',
    '--ssh_retries=2',
    '--ssh_connect_timeout=3',
)
# Provision, prepare (one server), the steps, cleanup: a run that ends well.
RUN_BOUND_S = 420


@pytest.fixture(name='fault_bed')
def _FaultBed(bed):
  """The session's test bed, reset after each fault."""
  yield bed
  bed.Reset()


def _Config(bed, tmp_path, **flags):
  return bed.Config(tmp_path / 'fault.yaml', (SERVER,), LOADERS, FLAGS | flags)


def _WaitFor(condition, process, timeout_s, what):
  deadline = time.monotonic() + timeout_s
  while not condition():
    if process.poll() is not None:
      raise AssertionError(f'pkb.py ended before {what}')
    if time.monotonic() > deadline:
      raise AssertionError(f'timed out waiting for {what}')
    time.sleep(0.2)


def _StepStress(bed, loader, step, index):
  """A function: the PID of a loader's cassandra-stress JVM in a step."""
  group_file = f'{REMOTE_DIR}/{step}.loader{index}.pgid'
  machine = bed.testbed.machines[loader]
  return lambda: machine.GroupStress(group_file)


def _Finish(process, timeout_s):
  try:
    return process.wait(timeout=timeout_s)
  except Exception:
    process.kill()
    process.wait()
    raise


def _StartUntilStep(bed, config, uri, loader, step):
  """Starts pkb.py; returns once `step` runs on `loader`.

  Returns:
    (the pkb.py process, its start on the monotonic clock, a function that
    gives the PID of the loader's cassandra-stress JVM in the step).
  """
  started = time.monotonic()
  process = bed.StartPkb(config, uri, *FAST_SSH)
  stress = _StepStress(bed, loader, step, LOADERS.index(loader))
  _WaitFor(stress, process, RUN_BOUND_S, f'{step} to start on {loader}')
  return process, started, stress


def _CheckFailedInTime(process, started):
  """pkb.py fails, and the whole run ends within RUN_BOUND_S."""
  assert _Finish(process, RUN_BOUND_S) != 0
  assert time.monotonic() - started < RUN_BOUND_S


def _Samples(bed, run_uri):
  path = bed.RunDir(run_uri) / 'perfkitbenchmarker_results.json'
  samples = []
  for line in path.read_text().splitlines():
    s = json.loads(line)
    s['labels'] = dict(
        p.split(':', 1) for p in s['labels'].strip('|').split('|,|') if p
    )
    samples.append(s)
  return samples


def _Statuses(bed, run_uri):
  """{step: (phase_status, scylla_status, scylla_error)}."""
  return {
      s['labels']['scylla_step']: (
          s['value'],
          s['labels']['scylla_status'],
          s['labels']['scylla_error'],
      )
      for s in _Samples(bed, run_uri)
      if s['metric'] == 'phase_status'
  }


# What a step that measured is published with: ok, or honestly marked as
# measured on saturated loaders or short of its fixed rate (2 cores shared
# by every machine of the bed: a busy host saturates them and slows them).
MEASURED = (
    (1, 'ok'),
    (1, outcomes.STATUS_SATURATED),
    (1, outcomes.STATUS_RATE_NOT_REACHED),
)


def _CheckSteps(statuses, failed, error, status='failed', steps=STEPS):
  """Steps before `failed` measured, it failed saying `error`, the rest not
  run."""
  assert set(statuses) == set(steps)
  index = steps.index(failed)
  for step in steps[:index]:
    assert statuses[step][:2] in MEASURED, (step, statuses[step])
  value, said, why = statuses[failed]
  assert (value, said) == (0, status), statuses[failed]
  assert error in why, why
  assert '\n' not in why
  for step in steps[index + 1 :]:
    assert statuses[step][:2] == (0, 'not_run'), (step, statuses[step])


def _CheckCleaned(bed, run_uri, unreachable=()):
  """Nothing runs and no data is left on the machines Cleanup reached.

  unreachable: the test-bed names of the loaders Cleanup could not reach.
  """
  report = json.loads(
      (bed.RunDir(run_uri) / 'scylla_phases' / 'cleanup.json').read_text()
  )
  assert set(report['servers'].values()) == {''}, report
  unreachable_vms = {f'pkb-{run_uri}-{LOADERS.index(m)}' for m in unreachable}
  for name, what in report['loaders'].items():
    assert what.startswith('unreachable') == (name in unreachable_vms), report
  for name, machine in bed.testbed.machines.items():
    if name in unreachable or name not in (SERVER, *LOADERS):
      continue
    assert machine.Processes() == {}, name
  assert list(bed.testbed.machines[SERVER].data_dir.iterdir()) == []
  return report


def test_killed_stress_mid_step_and_mid_populate(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path)
  for step, uri in (('read_small', 'kill1'), ('populate', 'kill2')):
    process, started, stress = _StartUntilStep(
        fault_bed, config, uri, LOADERS[0], step
    )
    time.sleep(3)
    fault_bed.testbed.machines[LOADERS[0]].Signal(stress(), signal.SIGKILL)
    _CheckFailedInTime(process, started)
    _CheckSteps(
        _Statuses(fault_bed, uri),
        step,
        f'loader 0 (pkb-{uri}-0): cassandra-stress killed by SIGKILL'
        ' (exit 137)',
    )
    # Every file of both loaders was pulled, what the killed one wrote too.
    step_dir = fault_bed.RunDir(uri) / 'scylla_phases' / 'steps' / step
    record = json.loads((step_dir / 'loaders.json').read_text())
    assert [l['exit_code'] for l in record['loaders']] == [137, 0]
    assert (step_dir / f'{step}.loader0.out').exists()
    assert (step_dir / f'{step}.loader1.hdr').exists()
    _CheckCleaned(fault_bed, uri)
    fault_bed.Reset()


def test_server_killed_mid_step(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path)
  process, started, _ = _StartUntilStep(
      fault_bed, config, 'server1', LOADERS[0], 'read_small'
  )
  server = fault_bed.testbed.machines[SERVER]
  pid_file = (
      server.directory
      / 'opt-pkb'
      / 'apache-cassandra-5.0.9'
      / 'logs'
      / 'cassandra.pid'
  )
  server.Signal(int(pid_file.read_text()), signal.SIGKILL)
  _CheckFailedInTime(process, started)
  address = server.address
  _CheckSteps(
      _Statuses(fault_bed, 'server1'),
      'read_small',
      f'server pkb-server1-2 ({address}): the cassandra process is not running',
  )
  _CheckCleaned(fault_bed, 'server1')


def test_loader_cut_off_mid_step(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path)
  process, started, _ = _StartUntilStep(
      fault_bed, config, 'cut1', LOADERS[1], 'read_small'
  )
  fault_bed.testbed.machines[LOADERS[1]].SetLink(False)
  _CheckFailedInTime(process, started)
  _CheckSteps(
      _Statuses(fault_bed, 'cut1'),
      'read_small',
      'loader 1 (pkb-cut1-1): unreachable over ssh after',
  )
  # What it could not give is named, not silently missing.
  step_dir = fault_bed.RunDir('cut1') / 'scylla_phases' / 'steps' / 'read_small'
  record = json.loads((step_dir / 'loaders.json').read_text())
  assert record['loaders'][0]['missing_files'] == {}
  assert sorted(record['loaders'][1]['missing_files']) == sorted(
      loader_files.FILE_KINDS
  )
  report = _CheckCleaned(fault_bed, 'cut1', unreachable=('loader-1',))
  assert report['loaders']['pkb-cut1-1'].startswith('unreachable')
  out = (fault_bed.temp_dir / 'cut1.out').read_text()
  assert 'CleanupError: scylla_phases could not clean every machine' in out


@pytest.mark.parametrize(
    'step, keys',
    [
        # A counted step has no bound but its progress: enough keys to run
        # for minutes unless stopped.
        ('populate', 2000000),
        ('read_small', FLAGS['scylla_num_keys']),
    ],
)
def test_hung_stress_is_stopped_when_its_progress_stalls(
    fault_bed, tmp_path, step, keys
):
  uri = f'hang{STEPS.index(step)}'
  config = _Config(
      fault_bed, tmp_path, scylla_step_grace_s=15, scylla_num_keys=keys
  )
  process, started, stress = _StartUntilStep(
      fault_bed, config, uri, LOADERS[0], step
  )
  fault_bed.testbed.machines[LOADERS[0]].Signal(stress(), signal.SIGSTOP)
  stopped = time.time()
  _CheckFailedInTime(process, started)
  _CheckSteps(_Statuses(fault_bed, uri), step, 'loader 0 (pkb-')
  _, _, error = _Statuses(fault_bed, uri)[step]
  # Its count stopped moving (or never appeared, when the JVM was stopped
  # as it started): stopped after --scylla_step_grace_s of that.
  assert re.search(r'(made|printed) no progress', error), error
  step_dir = fault_bed.RunDir(uri) / 'scylla_phases' / 'steps' / step
  record = json.loads((step_dir / 'loaders.json').read_text())
  # 15 s of grace and a few polls of 3.75 s after the stop, not PKB's
  # default timeouts nor (for the 20 s read) the step's bound.
  assert record['ended_at'] - stopped < 40
  _CheckCleaned(fault_bed, uri)


def test_node_that_never_comes_up(fault_bed, tmp_path):
  server = fault_bed.testbed.machines[SERVER]
  # Another process holds the node's storage port: Cassandra exits at start.
  holder = subprocess.Popen([
      'ip',
      'netns',
      'exec',
      server.netns,
      sys.executable,
      '-c',
      (
          'import socket, time; s = socket.socket();'
          f' s.bind(("{server.address}", 7000)); s.listen(); time.sleep(600)'
      ),
  ])
  try:
    config = _Config(fault_bed, tmp_path)
    started = time.monotonic()
    result = fault_bed.Pkb(config, 'never1', *FAST_SSH, timeout=RUN_BOUND_S)
  finally:
    holder.kill()
    holder.wait()
  assert result.returncode != 0
  # Not the 30-minute bring-up timeout: the first look after the start.
  assert time.monotonic() - started < 240
  log = (fault_bed.RunDir('never1') / 'pkb.log').read_text()
  assert re.search(
      rf'BringUpError: pkb-never1-2 \({re.escape(server.address)}\): the'
      ' cassandra process ended during bring-up',
      log,
  )
  logs = fault_bed.RunDir('never1') / 'scylla_phases' / 'bringup_logs'
  assert (
      f'/{server.address}:7000 is in use by another process'
      in (logs / 'pkb-never1-2' / 'system.log').read_text()
  )
  _CheckCleaned(fault_bed, 'never1')


def test_compactions_outlasting_the_quiesce_timeout(fault_bed, tmp_path):
  steps = ('schema', 'populate', 'quiesce')
  config = _Config(
      fault_bed,
      tmp_path,
      scylla_phases='populate,quiesce',
      scylla_num_keys=40000,
      scylla_cassandra_compaction_throughput_mb=1,
      scylla_quiesce_timeout_s=10,
  )
  result = fault_bed.Pkb(config, 'slow1', *FAST_SSH, timeout=RUN_BOUND_S)
  assert result.returncode != 0
  statuses = _Statuses(fault_bed, 'slow1')
  _CheckSteps(
      statuses,
      'quiesce',
      'compactions did not settle within 10 s',
      status='timeout',
      steps=steps,
  )
  polls = (
      (
          fault_bed.RunDir('slow1')
          / 'scylla_phases/steps/quiesce/compaction_polls.jsonl'
      )
      .read_text()
      .splitlines()
  )
  # Polled every second until the timeout (each poll an ssh round trip).
  assert len(polls) >= 3
  assert any(
      n['running'] or n['pending']
      for n in json.loads(polls[-1])['nodes'].values()
  )
  # The populate's figures were published before the timeout failed the run.
  assert any(
      s['metric'] == 'op_rate' and s['labels']['scylla_step'] == 'populate'
      for s in _Samples(fault_bed, 'slow1')
  )
  _CheckCleaned(fault_bed, 'slow1')


def test_full_output_directory(fault_bed, tmp_path):
  loader = fault_bed.testbed.machines[LOADERS[0]]
  loader.Enter(
      f'mkdir -p {REMOTE_DIR} && mount -t tmpfs -o size=1m fault-full'
      f' {REMOTE_DIR}'
  )
  config = _Config(fault_bed, tmp_path)
  process, started, _ = _StartUntilStep(
      fault_bed, config, 'full1', LOADERS[0], 'read_small'
  )
  # The directory fills while cassandra-stress writes its outputs.
  loader.Enter(f'dd if=/dev/zero of={REMOTE_DIR}/filler bs=4k', check=False)
  _CheckFailedInTime(process, started)
  # The cut files are blamed on the disk that filled, first. (Reset
  # removes the tmpfs.)
  _CheckSteps(
      _Statuses(fault_bed, 'full1'),
      'read_small',
      f'read_small: loader 0 (pkb-full1-0): no space left in {REMOTE_DIR} (',
  )
  _CheckCleaned(fault_bed, 'full1')


def test_pkb_interrupted_during_run(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path)
  process, started, _ = _StartUntilStep(
      fault_bed, config, 'int1', LOADERS[0], 'read_small'
  )
  interrupted_at = time.time()
  process.send_signal(signal.SIGINT)
  _CheckFailedInTime(process, started)
  _CheckSteps(
      _Statuses(fault_bed, 'int1'),
      'read_small',
      'pkb.py was interrupted (SIGINT)',
      status='interrupted',
  )
  step_dir = fault_bed.RunDir('int1') / 'scylla_phases' / 'steps' / 'read_small'
  record = json.loads((step_dir / 'loaders.json').read_text())
  # Its runs were stopped at once (kill -INT reaches pkb.py, not its ssh
  # sessions), not after the step's 20 s; what they wrote was pulled.
  # (The machines share the host's clock.)
  assert record['ended_at'] - interrupted_at < 10
  for loader in record['loaders']:
    assert 'times' in loader['local_files'], loader
  report = _CheckCleaned(fault_bed, 'int1')
  assert set(report['loaders'].values()) == {'0 run(s) stopped'}


def test_staged_runs_in_separate_processes(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path, scylla_phases='populate,mixed')
  config_flags = (*FAST_SSH, '--scylla_durations=mixed=10')
  for stage in ('provision,prepare', 'run', 'run', 'cleanup,teardown'):
    result = fault_bed.Pkb(
        config,
        'staged1',
        f'--run_stage={stage}',
        *config_flags,
        timeout=RUN_BOUND_S,
    )
    assert result.returncode == 0, (stage, result.stdout[-3000:])
  statuses = [
      (s['labels']['scylla_step'], s['value'])
      for s in _Samples(fault_bed, 'staged1')
      if s['metric'] == 'phase_status'
  ]
  # Two runs on the one prepared cluster, each of every step.
  assert sorted(statuses) == sorted(
      [('schema', 1), ('populate', 1), ('mixed', 1)] * 2
  )
  _CheckCleaned(fault_bed, 'staged1')
