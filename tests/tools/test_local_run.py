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

"""`scylla-phases-local` without root: its command line, refusals, state.

The whole run on real machines is tests/testbed/test_local_run.py; here
each refusal is reached by making one thing missing (not root, no
checkout, a bad work directory, a cluster of a live owner), and the state
file's owners are real processes of this host.
"""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

from perfkit_plugins.core.config import settings
from perfkit_plugins.local import cluster_state
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import pkb_process
from perfkit_plugins.local import processes
from perfkit_plugins.local import scylla_build
from perfkit_plugins.local import trusted_paths
from perfkit_plugins.shell import scylla_phases_flags
from perfkit_plugins.tools import local_run

REPO = pathlib.Path(__file__).resolve().parents[2]


def _Parse(*argv):
  return local_run.ParseArgs(list(argv))


def _ParseError(capsys, *argv):
  with pytest.raises(SystemExit) as exit_info:
    _Parse(*argv)
  assert exit_info.value.code == 2
  return capsys.readouterr().err


def test_no_arguments_run_three_servers_and_two_loaders():
  args, pkb_flags = _Parse()
  assert (args.command, args.servers, args.loaders, args.keep) == (
      'run',
      3,
      2,
      False,
  )
  assert args.work_dir == '/var/lib/scylla_phases_local'
  assert pkb_flags == []


def test_run_takes_its_options_and_pkb_flags_after_a_double_dash():
  args, pkb_flags = _Parse(
      'run',
      '--servers',
      '1',
      '--loaders=4',
      '--keep',
      '--',
      '--scylla_durations=all=60',
      '--scylla_num_keys',
      '--nosomething',
  )
  assert (args.servers, args.loaders, args.keep) == (1, 4, True)
  assert pkb_flags == [
      '--scylla_durations=all=60',
      '--scylla_num_keys',
      '--nosomething',
  ]


@pytest.mark.parametrize('count', ['0', '21', 'three', '-1'])
def test_machine_counts_outside_1_to_20_are_refused(capsys, count):
  err = _ParseError(capsys, '--servers', count)
  assert 'give a whole number from 1 to 20' in err


def test_flags_the_command_sets_itself_are_refused_after_the_dash(capsys):
  err = _ParseError(capsys, '--', '--benchmark_config_file=x.yaml')
  assert 'sets --benchmark_config_file itself' in err
  err = _ParseError(capsys, '--', '--run_uri', 'abc')
  assert 'sets --run_uri itself' in err


@pytest.mark.parametrize(
    'argument',
    [
        '--sysctl=vm.swappiness=1',
        '--disable_smt',
        '--nodisable_smt',
        '--append_kernel_command_line=mitigations=off',
        '--set_files=/etc/issue:x',
        '--kernel_modules_to_add=dummy',
        '--enable_transparent_hugepages=false',
        '--config_override=scylla_phases.flags.sysctl=a=1',
        '--flagfile=/tmp/flags.txt',
    ],
)
def test_pkb_flags_that_would_change_the_host_are_refused(capsys, argument):
  err = _ParseError(capsys, '--', argument)
  assert 'would change this host' in err
  assert '--sysctl' in err and '--disable_smt' in err


def test_other_pkb_flags_pass():
  _, pkb_flags = _Parse('--', '--log_level=debug', '--timeout_minutes=30')
  assert pkb_flags == ['--log_level=debug', '--timeout_minutes=30']


def test_words_after_the_dash_must_be_flags(capsys):
  err = _ParseError(capsys, '--', 'scylla_durations=all=60')
  assert 'give pkb.py flags only' in err


def test_down_takes_the_work_dir_only(capsys):
  args, _ = _Parse('down', '--work_dir', '/var/tmp/x')
  assert (args.command, args.work_dir) == ('down', '/var/tmp/x')
  err = _ParseError(capsys, 'down', '--servers', '1', '--keep')
  assert 'down takes --work_dir only, not --servers --keep' in err
  err = _ParseError(capsys, 'down', '--', '--scylla_num_keys=1')
  assert 'not --scylla_num_keys=1' in err


def test_an_unknown_command_is_refused(capsys):
  err = _ParseError(capsys, 'up')
  assert "invalid choice: 'up'" in err


def test_the_console_script_is_the_command():
  setup = (REPO / 'setup.py').read_text()
  assert "'scylla-phases-local = perfkit_plugins.tools.local_run:Main'" in setup


def test_help_says_the_engine_is_cassandra_not_scylla():
  result = subprocess.run(
      [sys.executable, '-m', 'perfkit_plugins.tools.local_run', '--help'],
      capture_output=True,
      text=True,
      check=False,
      cwd=REPO,
  )
  assert result.returncode == 0
  text = ' '.join(result.stdout.split())
  assert 'Apache Cassandra 5.0.9' in text and 'not ScyllaDB' in text
  assert 'scylla-phases-local down' in text


def test_the_plan_is_every_phase_sized_for_two_cores():
  flags = local_run.PlanFlags(cpus=2, servers=3, loaders=2)
  assert 'scylla_phases' not in flags  # The default: every phase.
  assert flags['scylla_engine'] == 'cassandra'
  assert flags['scylla_cassandra_version'] == local_run.CASSANDRA_VERSION
  assert flags['scylla_replication_factor'] == 3
  assert flags['scylla_num_keys'] == 50000
  assert flags['scylla_latency_rates'] == '250,500,1000'
  durations = dict(
      item.split('=') for item in flags['scylla_durations'].split(',')
  )
  assert durations == {
      'all': '25',
      'warmup': '10',
      'rdw': '30',
      'rdw_read_delay': '5',
  }


def test_the_plan_grows_with_the_cores_and_fits_the_machines():
  flags = local_run.PlanFlags(cpus=8, servers=1, loaders=1)
  assert flags['scylla_num_keys'] == 200000
  assert flags['scylla_latency_rates'] == '1000,2000,4000'
  assert flags['scylla_replication_factor'] == 1
  # Reads during writes needs writers and readers on loaders of their own.
  phases = flags['scylla_phases'].split(',')
  assert phases == [
      p for p in settings.DEFAULT_PHASES if p != 'reads_during_writes'
  ]


def test_every_plan_flag_is_a_benchmark_flag():
  names = {holder.name for holder in scylla_phases_flags.ALL}
  assert set(local_run.PlanFlags(2, 3, 1)) <= names
  assert (
      set(scylla_build.ScyllaEngineFlags(local_run.PlanFlags(2, 3, 1))) <= names
  )


def test_a_rehearsal_runs_the_scylla_engine_on_the_machines_disk():
  args, _ = local_run.ParseArgs(['run', '--rehearse_scylla'])
  assert args.rehearse_scylla
  plan = local_run.PlanFlags(2, 3, 2) | {
      'scylla_cassandra_url': 'http://m/c.tgz',
      'scylla_cassandra_checksum': 'sha512:' + '0' * 128,
  }
  flags = scylla_build.ScyllaEngineFlags(plan)
  assert flags['scylla_engine'] == 'scylla'
  assert flags['scylla_raid_devices'] == host_machines.DISK_PATH
  assert not [name for name in flags if name.startswith('scylla_cassandra_')]
  assert flags['scylla_num_keys'] == plan['scylla_num_keys']


def test_a_rehearsal_needs_scyllas_setup_files(tmp_path):
  problem = local_run.RehearsalProblem(tmp_path)
  assert problem and (
      '--scylla_source' in problem or 'private-system' in problem
  ), problem


def _Sample(metric, value, labels, collapse=True):
  sample = {'metric': metric, 'value': value, 'unit': ''}
  if collapse:
    sample['labels'] = ','.join(f'|{k}:{v}|' for k, v in labels.items())
  else:
    sample['metadata'] = labels
  return json.dumps(sample)


def test_phase_statuses_are_read_from_collapsed_labels_or_metadata():
  text = '\n'.join([
      _Sample('phase_status', 1, {'scylla_step': 'populate'}),
      _Sample('op_rate', 99.0, {'scylla_step': 'populate'}),
      _Sample(
          'phase_status',
          0,
          {'scylla_step': 'read_small', 'scylla_status': 'interrupted'},
          collapse=False,
      ),
      '',
  ])
  assert local_run.PhaseStatuses(text) == [
      ('populate', 1, ''),
      ('read_small', 0, 'interrupted'),
  ]


def test_the_pkb_command_of_a_kept_cluster_names_its_config():
  command = local_run.PkbCommand(
      '/opt/pkb checkout', '/var/tmp/a b.yaml', '/var/lib/local run'
  )
  assert command == (
      "cd '/var/lib/local run/pkb' &&"
      f" {sys.executable} '/opt/pkb checkout/pkb.py'"
      " --benchmarks=scylla_phases '--benchmark_config_file=/var/tmp/a b.yaml'"
      " '--data_search_paths=/var/lib/local run/pkb'"
  )


# Refusals: Main returns 3 and says why on stderr.


def _Main(capsys, *argv):
  """Runs the command's Main; the umask it sets is undone after it."""
  umask = os.umask(0o022)
  os.umask(umask)
  try:
    code = local_run.Main(list(argv))
  finally:
    os.umask(umask)
  return code, capsys.readouterr()


def test_not_root_is_refused_at_once(monkeypatch, capsys, tmp_path):
  monkeypatch.setattr(os, 'geteuid', lambda: 1000)
  code, out = _Main(capsys, '--work_dir', str(tmp_path / 'w'))
  assert code == local_run.EXIT_REFUSED
  assert out.err.startswith('scylla-phases-local: cannot run: needs root')
  assert not (tmp_path / 'w').exists()
  code, out = _Main(capsys, 'down')
  assert code == local_run.EXIT_REFUSED
  assert 'cannot down: needs root' in out.err


def test_missing_namespace_tools_are_named_with_their_packages(monkeypatch):
  monkeypatch.setattr(os, 'geteuid', lambda: 0)
  monkeypatch.setattr(
      host_machines.shutil,
      'which',
      lambda tool, path=None: None if tool in ('sshd', 'nsenter') else tool,
  )
  problem = host_machines.Problem()
  assert problem.startswith('needs nsenter, sshd to make machines')
  assert 'openssh-server' in problem and 'util-linux' in problem


def test_a_missing_pkb_checkout_is_refused_saying_where_to_point(
    monkeypatch, capsys, tmp_path
):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  monkeypatch.setenv('PKB_CHECKOUT', str(tmp_path / 'nopkb'))
  work_dir = f'/var/tmp/pkblc-test-{os.getpid()}'
  code, out = _Main(capsys, '--work_dir', work_dir)
  assert not os.path.exists(work_dir)
  assert code == local_run.EXIT_REFUSED
  assert f'no PerfKitBenchmarker checkout at {tmp_path / "nopkb"}' in out.err
  assert 'set PKB_CHECKOUT' in out.err


def test_pkb_needs_python_3_12(monkeypatch, tmp_path):
  (tmp_path / 'pkb.py').write_text('')
  monkeypatch.setattr(pkb_process, 'PYTHON', (2, 7))
  assert 'PKB needs Python 3.12' in pkb_process.Problem(str(tmp_path))


@pytest.mark.parametrize(
    'work_dir, why',
    [
        ('/tmp/local', 'under /tmp, which every machine replaces'),
        ('/var/tmp/' + 'x' * 60, 'longer than 50 characters'),
    ],
)
def test_a_work_dir_the_machines_cannot_use_is_refused(
    monkeypatch, capsys, work_dir, why
):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  monkeypatch.setattr(pkb_process, 'Problem', lambda checkout: None)
  code, out = _Main(capsys, '--work_dir', work_dir)
  assert code == local_run.EXIT_REFUSED
  assert why in out.err
  assert not pathlib.Path(work_dir).exists()


# The work directory and its state file.


def _Dead():
  """A Process record of a process that has ended."""
  child = subprocess.Popen(['true'])
  record = processes.Of(child.pid)
  child.wait()
  return record or processes.Process(child.pid, 0)


def _State(owner, **fields):
  return cluster_state.State(owner=owner, **fields)


def _Claim(work_dir, results_dir=None):
  new = _State(processes.Of(os.getpid()), servers=('server-0',))
  local_run.ClaimWorkDir(
      work_dir, '/opt/PerfKitBenchmarker', new, results_dir=results_dir
  )
  return cluster_state.Read(work_dir)


def _WorkDir(path):
  """A work directory as the command makes it (0700, this user's)."""
  trusted_paths.MakePrivateDir(path)
  return path


def test_a_new_work_dir_gets_this_process_as_owner(tmp_path):
  state = _Claim(tmp_path / 'w')
  assert state.owner == processes.Of(os.getpid()) and state.Alive()
  assert state.servers == ('server-0',) and not state.kept
  assert state.made_work_dir


def test_a_new_work_dir_and_state_are_private_whatever_the_umask(tmp_path):
  previous = os.umask(0)
  try:
    _Claim(tmp_path / 'w')
  finally:
    os.umask(previous)
  assert (tmp_path / 'w').stat().st_mode & 0o777 == 0o700
  assert (tmp_path / 'w' / 'state.json').stat().st_mode & 0o777 == 0o600


def test_a_cluster_of_a_running_command_is_refused(tmp_path):
  work_dir = tmp_path / 'w'
  with subprocess.Popen(['sleep', '60']) as owner:
    try:
      _WorkDir(work_dir)
      cluster_state.Write(work_dir, _State(processes.Of(owner.pid)))
      with pytest.raises(local_run.Refusal) as refusal:
        _Claim(work_dir)
      assert f'a local run (PID {owner.pid}) is using {work_dir}' in str(
          refusal.value
      )
      assert f'kill -INT {owner.pid}' in str(refusal.value)
    finally:
      owner.kill()


def test_a_kept_cluster_is_refused_naming_pkb_and_down(tmp_path):
  work_dir = tmp_path / 'w'
  with subprocess.Popen(['sleep', '60']) as mirror:
    try:
      _WorkDir(work_dir)
      cluster_state.Write(
          work_dir,
          _State(
              processes.Of(mirror.pid),
              kept=True,
              config=str(work_dir / 'scylla_phases_local.yaml'),
          ),
      )
      with pytest.raises(local_run.Refusal) as refusal:
        _Claim(work_dir)
      message = str(refusal.value)
      assert 'a local cluster is already up' in message
      assert (
          f'--benchmark_config_file={work_dir}/scylla_phases_local.yaml'
          in message
      )
      assert f'scylla-phases-local down --work_dir={work_dir}' in message
    finally:
      mirror.kill()


def test_a_stale_cluster_of_a_dead_owner_is_removed(tmp_path, capsys):
  work_dir = _WorkDir(tmp_path / 'w')
  (work_dir / 'mirror').mkdir()
  cluster_state.Write(
      work_dir,
      _State(_Dead(), kept=True, made=['mirror'], made_work_dir=True),
  )
  state = _Claim(work_dir)
  assert state.owner == processes.Of(os.getpid())
  assert state.made_work_dir
  assert not (work_dir / 'mirror').exists()
  assert 'Removing a local cluster left in' in capsys.readouterr().out


def test_only_what_a_stale_run_recorded_making_is_removed(tmp_path):
  work_dir = _WorkDir(tmp_path / 'w')
  for name in ('mirror', 'notes'):
    (work_dir / name).mkdir()
  cluster_state.Write(work_dir, _State(_Dead(), made=['mirror']))
  state = _Claim(work_dir)
  assert not (work_dir / 'mirror').exists()
  assert (work_dir / 'notes').is_dir()
  assert not state.made_work_dir


def _RunDir(work_dir, run_uri):
  run_dir = cluster_state.RunDir(work_dir, run_uri)
  run_dir.mkdir(parents=True)
  (run_dir / 'perfkitbenchmarker_results.json').write_text('{}\n')
  (run_dir / 'pkb.log').write_text('log\n')
  return run_dir


def _StaleRun(work_dir, results_dir):
  """A dead run's state: PKB's run directory made, not copied yet."""
  cluster_state.Write(
      work_dir,
      _State(
          _Dead(), made=['pkb'], run_uri='abc123', results_dir=str(results_dir)
      ),
  )
  return cluster_state.RunDir(work_dir, 'abc123')


def test_a_stale_runs_evidence_is_copied_to_its_results_before_removal(
    tmp_path,
):
  work_dir = _WorkDir(tmp_path / 'w')
  _RunDir(work_dir, 'abc123')
  results = tmp_path / 'results'
  _StaleRun(work_dir, results)
  _Claim(work_dir)
  assert (results / 'abc123' / 'pkb.log').read_text() == 'log\n'
  assert not (work_dir / 'pkb').exists()


def test_a_runs_evidence_that_cannot_be_copied_is_never_removed(
    monkeypatch, tmp_path, capsys
):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  work_dir = _WorkDir(tmp_path / 'w')
  run_dir = _RunDir(work_dir, 'abc123')
  blocked = tmp_path / 'blocked'
  blocked.write_text('a file where the results directory would be')
  _StaleRun(work_dir, blocked)
  with pytest.raises(local_run.Refusal, match='not copied'):
    _Claim(work_dir)
  assert (run_dir / 'pkb.log').read_text() == 'log\n'
  # The state stays, naming what is left, for `down` to try again.
  assert cluster_state.Read(work_dir).run_uri == 'abc123'
  code, out = _Main(capsys, 'down', '--work_dir', str(work_dir))
  assert code == local_run.EXIT_FAILED and 'not copied' in out.out
  assert (run_dir / 'pkb.log').exists()
  blocked.unlink()
  code, out = _Main(capsys, 'down', '--work_dir', str(work_dir))
  assert code == 0, out
  assert (blocked / 'abc123' / 'pkb.log').exists()
  assert not work_dir.exists() or not any(work_dir.iterdir())


def test_an_owner_whose_pid_was_reused_is_dead():
  me = processes.Of(os.getpid())
  assert not processes.Process(me.pid, me.start + 1).Running()
  assert not _Dead().Running()


def test_a_work_dir_with_other_files_is_refused(tmp_path):
  _WorkDir(tmp_path / 'w')
  (tmp_path / 'w' / 'notes.txt').write_text('mine')
  with pytest.raises(local_run.Refusal, match='no local cluster.s state'):
    _Claim(tmp_path / 'w')
  assert (tmp_path / 'w' / 'notes.txt').exists()


def test_a_broken_state_file_is_refused(tmp_path):
  _WorkDir(tmp_path / 'w')
  (tmp_path / 'w' / 'state.json').write_text('{"owner": ')
  with pytest.raises(local_run.Refusal, match='not a local cluster state'):
    _Claim(tmp_path / 'w')


def test_the_state_file_round_trips(tmp_path):
  state = _State(
      processes.Process(12, 34),
      kept=True,
      machines={'tag': 'pkblc12', 'root': str(tmp_path), 'machines': {}},
      config='/var/tmp/c.yaml',
      pkb=processes.Process(56, 78),
      servers=('server-0',),
      loaders=('loader-0', 'loader-1'),
      made=['pkblc12', 'pkb'],
      made_work_dir=True,
      run_uri='abc123',
      results_dir='/root/results',
      results_kept=True,
  )
  cluster_state.Write(tmp_path, state)
  assert cluster_state.Read(tmp_path) == state
  assert [p.name for p in tmp_path.iterdir()] == ['state.json']
  assert cluster_state.Read(tmp_path / 'none') is None


def test_down_without_a_cluster_says_so(monkeypatch, capsys, tmp_path):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  code, out = _Main(capsys, 'down', '--work_dir', str(tmp_path / 'none'))
  assert code == 0 and 'No local cluster in' in out.out


def test_down_refuses_a_running_command_s_cluster(
    monkeypatch, capsys, tmp_path
):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  cluster_state.Write(tmp_path, _State(processes.Of(os.getpid())))
  code, out = _Main(capsys, 'down', '--work_dir', str(tmp_path))
  assert code == local_run.EXIT_REFUSED
  assert re.search(r'a local run \(PID \d+\) is using .* Ctrl-C', out.err)
  assert (tmp_path / 'state.json').exists()


def test_down_removes_a_stale_cluster(monkeypatch, capsys, tmp_path):
  monkeypatch.setattr(host_machines, 'Problem', lambda: None)
  work_dir = _WorkDir(tmp_path / 'w')
  (work_dir / 'pkb').mkdir()
  cluster_state.Write(
      work_dir, _State(_Dead(), made=['pkb'], made_work_dir=True)
  )
  code, out = _Main(capsys, 'down', '--work_dir', str(work_dir))
  assert code == 0 and 'Removed' in out.out
  assert not work_dir.exists()


def test_jars_that_cannot_be_fetched_are_refused_before_anything_is_made(
    monkeypatch, capsys, tmp_path
):
  monkeypatch.setattr(local_run, 'Problems', lambda *args: None)
  bin_dir = tmp_path / 'bin'
  bin_dir.mkdir()
  (bin_dir / 'mvn').write_text('#!/bin/sh\necho "Could not transfer"; exit 1\n')
  (bin_dir / 'mvn').chmod(0o755)
  monkeypatch.setenv('PATH', f'{bin_dir}{os.pathsep}{os.environ["PATH"]}')
  monkeypatch.setenv('PERFKIT_PLUGINS_CASSANDRA_CACHE', str(tmp_path / 'cache'))
  code, out = _Main(capsys, '--work_dir', str(tmp_path / 'w'))
  assert code == local_run.EXIT_REFUSED
  assert "Fetching Apache Cassandra 5.0.9's jars from Maven Central" in out.out
  assert 'about 100 MB' in out.out
  assert 'mvn could not fetch cassandra-all 5.0.9' in out.err
  assert 'Could not transfer' in out.err and 'Maven Central' in out.err
  assert not (tmp_path / 'w').exists()


def test_a_lost_terminal_does_not_stop_the_command(monkeypatch):
  class Gone:

    def write(self, text):
      raise OSError(5, 'Input/output error')

    def flush(self):
      raise OSError(5, 'Input/output error')

  monkeypatch.setattr(sys, 'stdout', Gone())
  local_run._Say('== Interrupted')  # pylint: disable=protected-access
  local_run._Say('== pkb.py stops the step')  # pylint: disable=protected-access
  assert not isinstance(sys.stdout, Gone)


def test_a_stop_signal_while_a_process_starts_waits_for_its_record():
  recorded = []
  with pytest.raises(KeyboardInterrupt):
    with processes.StopSignalsHandledBy(signal.default_int_handler):
      with processes.StopSignalsHeld():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        recorded.append('started and recorded')
  assert recorded == ['started and recorded']


# A stand-in pkb.py: runs until SIGINT, then says so and exits 1 as PKB
# does after cleaning up.
_STUB_PKB = """
import signal, sys, time
def Stop(*_):
  print('stub: SIGINT', flush=True)
  sys.exit(1)
signal.signal(signal.SIGINT, Stop)
while True:
  time.sleep(0.1)
"""


def test_pkb_that_outlives_its_bound_is_interrupted_as_by_a_ctrl_c(
    monkeypatch, tmp_path, capsys
):
  checkout = tmp_path / 'pkb'
  checkout.mkdir()
  (checkout / 'pkb.py').write_text(_STUB_PKB)
  monkeypatch.setattr(local_run, 'POLL_S', 0.05)
  args, _ = _Parse('--pkb_timeout_min', '1')
  args.pkb_timeout_min = 0.02
  work_dir = tmp_path / 'w'
  run = local_run._LocalRun(  # pylint: disable=protected-access
      args, [], work_dir, str(checkout)
  )
  local_run.ClaimWorkDir(work_dir, str(checkout), run.state)
  started = time.monotonic()
  code, interrupted = run.RunPkb(work_dir / 'config.yaml', 'abc123')
  assert (code, interrupted, run.timed_out) == (1, True, True)
  assert time.monotonic() - started < 30
  console = work_dir / 'pkb' / 'abc123.console.log'
  assert console.read_text() == 'stub: SIGINT\n'
  assert 'pkb.py ran 0.02 minutes (--pkb_timeout_min)' in (
      capsys.readouterr().out
  )
  assert cluster_state.Read(work_dir).pkb is None


def test_the_pkb_bound_is_whole_minutes(capsys):
  assert _Parse('--pkb_timeout_min', '30')[0].pkb_timeout_min == 30
  assert 'give whole minutes' in _ParseError(capsys, '--pkb_timeout_min', '0')


def test_pkbs_output_is_kept_when_it_dies_before_its_run_directory(
    tmp_path,
):
  checkout = tmp_path / 'pkb'
  checkout.mkdir()
  (checkout / 'pkb.py').write_text(
      'print("bad flag: --nope")\nraise SystemExit(1)\n'
  )
  args, _ = _Parse('--results_dir', str(tmp_path / 'results'))
  work_dir = tmp_path / 'w'
  run = local_run._LocalRun(  # pylint: disable=protected-access
      args, [], work_dir, str(checkout)
  )
  local_run.ClaimWorkDir(work_dir, str(checkout), run.state)
  assert run.RunPkb(work_dir / 'config.yaml', 'abc123') == (1, False)
  kept = run.KeepResults()
  assert kept == tmp_path / 'results' / 'abc123'
  assert (kept / 'pkb_console.log').read_text() == 'bad flag: --nope\n'
  # pylint: disable-next=protected-access
  assert local_run._Teardown(work_dir, run.state) == []


# A stand-in pkb.py that ignores SIGINT, with a child in its process group
# (as PKB's ssh clients and helpers are); the child's PID in a file of its
# directory.
_STUCK_PKB = """
import signal, subprocess, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
child = subprocess.Popen(['sleep', '300'])
open('child', 'w').write(str(child.pid))
while True:
  time.sleep(0.1)
"""


def test_after_the_grace_pkbs_whole_process_group_is_killed(
    monkeypatch, tmp_path
):
  checkout = tmp_path / 'pkb'
  checkout.mkdir()
  (checkout / 'pkb.py').write_text(_STUCK_PKB)
  monkeypatch.setattr(local_run, 'POLL_S', 0.05)
  monkeypatch.setattr(local_run, 'INTERRUPT_GRACE_S', 0.5)
  args, _ = _Parse()
  args.pkb_timeout_min = 0.01
  work_dir = tmp_path / 'w'
  run = local_run._LocalRun(  # pylint: disable=protected-access
      args, [], work_dir, str(checkout)
  )
  local_run.ClaimWorkDir(work_dir, str(checkout), run.state)
  code, interrupted = run.RunPkb(work_dir / 'config.yaml', 'abc123')
  assert (code, interrupted) == (-signal.SIGKILL, True)
  child = int((work_dir / 'pkb' / 'child').read_text())
  try:
    for _ in range(100):
      if not processes.Runs(child):
        break
      time.sleep(0.1)
    assert not processes.Runs(child)
  finally:
    processes.Signal(child, signal.SIGKILL)
