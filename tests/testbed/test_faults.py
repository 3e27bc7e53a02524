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
import signal
import time

import pytest

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
    'scylla_read_warmup_s': 0,
    'scylla_read_duration_s': 20,
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 3,
    'scylla_quiesce_timeout_s': 120,
}
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


def _StepJava(bed, loader, step, index):
  """A function: the PID of a loader's cassandra-stress JVM in a step."""
  group_file = f'{REMOTE_DIR}/{step}.loader{index}.pgid'
  machine = bed.testbed.machines[loader]
  return lambda: machine.GroupJava(group_file)


def _Finish(process, timeout_s):
  try:
    return process.wait(timeout=timeout_s)
  except Exception:
    process.kill()
    process.wait()
    raise


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


def _CheckSteps(statuses, failed, error, status='failed'):
  """Steps before `failed` ok, it failed saying `error`, the rest not run."""
  index = STEPS.index(failed)
  for step in STEPS[:index]:
    assert statuses[step][:2] == (1, 'ok'), (step, statuses[step])
  value, said, why = statuses[failed]
  assert (value, said) == (0, status), statuses[failed]
  assert error in why, why
  assert '\n' not in why
  for step in STEPS[index + 1 :]:
    assert statuses[step][:2] == (0, 'not_run'), (step, statuses[step])


def _CheckCleaned(bed, run_uri, unreachable=()):
  """Nothing runs and no data is left on the machines Cleanup reached."""
  report = json.loads(
      (bed.RunDir(run_uri) / 'scylla_phases' / 'cleanup.json').read_text()
  )
  assert set(report['servers'].values()) == {''}, report
  for name, what in report['loaders'].items():
    assert what.startswith('unreachable') == (name in unreachable), report
  for name, machine in bed.testbed.machines.items():
    if name in unreachable or name not in (SERVER, *LOADERS):
      continue
    assert machine.Processes() == {}, name
  assert list(bed.testbed.machines[SERVER].data_dir.iterdir()) == []
  return report


def test_killed_stress_mid_step_and_mid_populate(fault_bed, tmp_path):
  config = _Config(fault_bed, tmp_path)
  for step, uri in (('read_small', 'kill1'), ('populate', 'kill2')):
    started = time.monotonic()
    process = fault_bed.StartPkb(config, uri, *FAST_SSH)
    java = _StepJava(fault_bed, LOADERS[0], step, 0)
    _WaitFor(java, process, RUN_BOUND_S, f'{step} to start on loader 0')
    time.sleep(3)
    fault_bed.testbed.machines[LOADERS[0]].Signal(java(), signal.SIGKILL)
    assert _Finish(process, RUN_BOUND_S) != 0
    assert time.monotonic() - started < RUN_BOUND_S
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
  started = time.monotonic()
  process = fault_bed.StartPkb(config, 'server1', *FAST_SSH)
  _WaitFor(
      _StepJava(fault_bed, LOADERS[0], 'read_small', 0),
      process,
      RUN_BOUND_S,
      'read_small',
  )
  server = fault_bed.testbed.machines[SERVER]
  pid_file = (
      server.directory / 'opt-pkb' / 'apache-cassandra-5.0.9' / 'cassandra.pid'
  )
  server.Signal(int(pid_file.read_text()), signal.SIGKILL)
  assert _Finish(process, RUN_BOUND_S) != 0
  assert time.monotonic() - started < RUN_BOUND_S
  address = server.address
  _CheckSteps(
      _Statuses(fault_bed, 'server1'),
      'read_small',
      f'server pkb-server1-2 ({address}): the cassandra process is not running',
  )
  _CheckCleaned(fault_bed, 'server1')
