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

"""The systemd stand-in against what systemd's manuals say.

Parsing in this process; the commands as programs, with their unit,
runtime state and journal directories moved into the test's own directory
(`Standin`), so they run as any user on any host. The expected values are
the manuals' own examples where they give one. Private-system machines
run it for real: test_private_system_machines.py.
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from perfkit_plugins.local import host_machines
from perfkit_plugins.local import systemd_standin

PYTHON = sys.executable
STANDIN_PYTHON = host_machines.STANDIN_PYTHON


# Parsing.


def test_words_are_unquoted_as_systemd_syntax_says():
  # systemd.exec(5), Environment=: quotes only open a word.
  assert systemd_standin.SplitWords(
      "ONE='one' \"TWO='two two' too\" THREE="
  ) == ["ONE='one'", "TWO='two two' too", 'THREE=']
  assert systemd_standin.SplitWords(r'a\tb "c\x41 d" \s') == [
      'a\tb',
      'cA d',
      ' ',
  ]
  with pytest.raises(systemd_standin.UnitError, match='unbalanced'):
    systemd_standin.SplitWords('"open')


def test_command_lines_split_at_lone_semicolons():
  # systemd.service(5), "Command Lines": its example.
  words = systemd_standin.SplitWords(
      r'echo / >/dev/null & \; ls ; echo "two two"', commands=True
  )
  assert words == [
      'echo',
      '/',
      '>/dev/null',
      '&',
      ';',
      'ls',
      None,
      'echo',
      'two two',
  ]


def test_unit_files_continue_lines_skip_comments_and_keep_order():
  text = (
      '[Unit]\nDescription=A \\\n# a comment inside\n  long one\n'
      '; another comment\n[Service]\nExecStart=/bin/a\nExecStart=\n'
      'ExecStart=/bin/b x\nnot an assignment\n'
  )
  assert systemd_standin.ParseUnitFile(text) == [
      ('Unit', 'Description', 'A  long one'),
      ('Service', 'ExecStart', '/bin/a'),
      ('Service', 'ExecStart', ''),
      ('Service', 'ExecStart', '/bin/b x'),
  ]


def test_environment_files_are_read_as_systemd_exec_says():
  text = (
      'A=1\n# comment\n; comment\nno assignment\n9BAD=x\n'
      'B = " x \\" y "  \n'
      "C='multi\nline \\n kept'\n"
      'D=  interior  "quotes"  kept \\\n  continued  \n'
      'E="joined"tail\n'
      'F="\\q stays"\n'
  )
  assert systemd_standin.ParseEnvironmentFile(text) == [
      ('A', '1'),
      ('B', ' x " y '),
      ('C', 'multi\nline \\n kept'),
      ('D', 'interior  "quotes"  kept   continued'),
      ('E', 'joinedtail'),
      ('F', '\\q stays'),
  ]


@pytest.mark.parametrize(
    'path, name',
    [
        ('/var/lib/scylla', 'var-lib-scylla'),
        ('/', '-'),
        ('//a//b/', 'a-b'),
        ('/a b/-x/.y', 'a\\x20b-\\x2dx-.y'),
        ('/.hidden', '\\x2ehidden'),
    ],
)
def test_paths_are_escaped_as_systemd_escape_does(path, name):
  assert systemd_standin.EscapePath(path) == name
  assert systemd_standin.UnescapePath(name) == '/' + '/'.join(
      p for p in path.split('/') if p
  )
  escape = shutil.which('systemd-escape')
  if escape:
    result = subprocess.run(
        [escape, '--path', path], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == name


def test_unit_names_are_completed_as_systemctl_does():
  assert systemd_standin.UnitName('scylla-server') == 'scylla-server.service'
  assert systemd_standin.UnitName('fstrim.timer') == 'fstrim.timer'
  assert systemd_standin.UnitName('a.b') == 'a.b.service'
  assert systemd_standin.UnitName('/var/lib/scylla') == 'var-lib-scylla.mount'


def test_time_spans():
  assert systemd_standin.ParseTimespan('900', None) == 900
  assert systemd_standin.ParseTimespan('5min 20s', None) == 320
  assert systemd_standin.ParseTimespan('1y', None) == 31557600
  assert systemd_standin.ParseTimespan('100ms', None) == pytest.approx(0.1)
  assert systemd_standin.ParseTimespan('infinity', 90) is None
  assert systemd_standin.ParseTimespan('', 90) == 90


def _Unit(text, name='x.service'):
  return systemd_standin.Unit(
      name, f'/u/{name}', entries=systemd_standin.ParseUnitFile(text)
  )


def test_variables_expand_as_the_command_lines_section_says():
  # systemd.service(5), "Command Lines": its second example.
  unit = _Unit(
      '[Service]\n'
      "Environment=ONE='one' \"TWO='two two' too\" THREE=\n"
      'ExecStart=/bin/echo ${ONE} ${TWO} ${THREE}\n'
      'ExecStart=/bin/echo $ONE $TWO $THREE\n'
      'ExecStart=/bin/echo $$ONE x${TWO}y $UNSET ${UNSET}\n'
  )
  runner = systemd_standin._Runner(  # pylint: disable=protected-access
      systemd_standin.Service(unit), None, 'id'
  )
  environment = runner.Environment()
  first, second, third = [
      c.Expand(environment)
      for c in systemd_standin.ParseCommands(unit, 'ExecStart')
  ]
  assert first == ['/bin/echo', "'one'", "'two two' too", '']
  assert second == ['/bin/echo', 'one', 'two two', 'too']
  assert third == ['/bin/echo', '$ONE', "x'two two' tooy", '']


def test_executable_prefixes():
  unit = _Unit(
      '[Service]\nExecStartPre=-+/bin/a $X\nExecStartPre=@/bin/b name c\n'
      'ExecStartPre=:/bin/c $X ; !!/bin/d\n'
  )
  commands = systemd_standin.ParseCommands(unit, 'ExecStartPre')
  assert [(c.argv, c.argv0) for c in commands] == [
      (['/bin/a', '$X'], None),
      (['/bin/b', 'c'], 'name'),
      (['/bin/c', '$X'], None),
      (['/bin/d'], None),
  ]
  assert [c.ignore_failure for c in commands] == [True, False, False, False]
  assert [c.privileged for c in commands] == [True, False, False, True]
  assert commands[2].Expand({'X': 'y'}) == ['/bin/c', '$X']


def test_exit_statuses_and_signals_give_the_documented_results():
  service = systemd_standin.Service(
      _Unit('[Service]\nExecStart=/bin/a\nSuccessExitStatus=143 SIGUSR1\n')
  )
  assert service.Outcome(0, daemon=True) == ('success', 'exited', '0')
  assert service.Outcome(143, daemon=True)[0] == 'success'
  assert service.Outcome(1, daemon=True) == ('exit-code', 'exited', '1')
  assert service.Outcome(-15, daemon=True) == ('success', 'killed', 'TERM')
  assert service.Outcome(-15, daemon=False) == ('signal', 'killed', 'TERM')
  assert service.Outcome(-10, daemon=False)[0] == 'success'
  assert service.Outcome(-9, daemon=True) == ('signal', 'killed', 'KILL')
  assert service.type == 'simple'
  assert service.timeout_stop == systemd_standin.DEFAULT_TIMEOUT_S


# Unit files in a directory of the test's.


@pytest.fixture(name='dirs')
def _Dirs(tmp_path, monkeypatch):
  """The stand-in's directories under tmp_path, in this process."""
  for name, value in _Layout(tmp_path).items():
    monkeypatch.setattr(systemd_standin, name, value)
  for path in _Layout(tmp_path)['UNIT_DIRS']:
    pathlib.Path(path).mkdir(parents=True)
  return tmp_path


def _Layout(root):
  """The stand-in's directory constants, moved under `root`."""
  unit_dirs = tuple(
      f'{root}{d}'
      for d in ('/etc/systemd/system', '/run/systemd/system', '/lib/units')
  )
  return {
      'UNIT_DIRS': unit_dirs,
      'CONFIG_DIR': unit_dirs[0],
      'RUNTIME_DIR': unit_dirs[1],
      'PRESET_DIRS': (f'{root}/preset',),
      'STATE_DIR': f'{root}/state',
      'JOURNAL_DIR': f'{root}/journal',
  }


def _Write(path, text):
  path = pathlib.Path(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(text)
  return path


def test_drop_ins_apply_by_name_and_etc_wins_over_lib(dirs):
  lib, etc = dirs / 'lib/units', dirs / 'etc/systemd/system'
  _Write(lib / 'a-b.service', '[Service]\nEnvironmentFile=/one\n')
  _Write(lib / 'a-b.service.d/20-x.conf', '[Service]\nEnvironmentFile=/lib20\n')
  _Write(etc / 'a-b.service.d/20-x.conf', '[Service]\nEnvironmentFile=/etc20\n')
  _Write(lib / 'a-.service.d/10-y.conf', '[Service]\nEnvironmentFile=\n')
  _Write(lib / 'service.d/30-z.conf', '[Service]\nEnvironmentFile=-/z*\n')
  # A drop-in masked in /etc hides the one of its name in /lib.
  _Write(lib / 'a-b.service.d/40-m.conf', '[Service]\nEnvironmentFile=/m\n')
  os.symlink('/dev/null', etc / 'a-b.service.d/40-m.conf')
  unit = systemd_standin.LoadUnit('a-b.service')
  assert [os.path.relpath(d, dirs) for d in unit.dropins] == [
      'lib/units/a-.service.d/10-y.conf',
      'etc/systemd/system/a-b.service.d/20-x.conf',
      'lib/units/service.d/30-z.conf',
  ]
  # The empty assignment of 10-y.conf reset the file's.
  assert unit.Values('Service', 'EnvironmentFile') == ['/etc20', '-/z*']
  assert systemd_standin.LoadUnit('nothing.service') is None


def test_a_mask_in_etc_hides_the_unit(dirs):
  _Write(dirs / 'lib/units/m.timer', '[Timer]\n')
  os.symlink('/dev/null', dirs / 'etc/systemd/system/m.timer')
  assert systemd_standin.LoadUnit('m.timer').masked
  assert systemd_standin.UnitFileState('m.timer') == 'masked'


def test_environment_files_are_read_when_a_process_starts(dirs):
  _Write(dirs / 'conf.d/b.conf', 'B=2\nA=from-b\n')
  _Write(dirs / 'conf.d/a.conf', 'A=from-a\n')
  unit = _Unit(
      '[Service]\nEnvironment=A=env X=1\n'
      f'EnvironmentFile={dirs}/conf.d/*.conf\n'
      f'EnvironmentFile=-{dirs}/missing\n'
  )
  runner = systemd_standin._Runner(  # pylint: disable=protected-access
      systemd_standin.Service(unit), None, 'id'
  )
  environment = runner.Environment()
  # Files override Environment=; the later file the earlier.
  assert (environment['A'], environment['B'], environment['X']) == (
      'from-b',
      '2',
      '1',
  )
  assert environment['PATH'] == systemd_standin.EXEC_PATH
  _Write(dirs / 'conf.d/c.conf', 'C=late\n')
  assert runner.Environment()['C'] == 'late'
  for missing in (f'{dirs}/none', f'{dirs}/none.d/*.conf'):
    unit.entries.append(('Service', 'EnvironmentFile', missing))
    with pytest.raises(systemd_standin.UnitError):
      runner.Environment()
    unit.entries.pop()


def _Options(**changes):
  return {
      'now': False,
      'no_legend': False,
      'quiet': False,
      'value': False,
      'property': [],
  } | changes


def test_enable_disable_mask_unmask_as_systemctl_does(dirs, capsys):
  etc = dirs / 'etc/systemd/system'
  _Write(
      dirs / 'lib/units/s.service',
      '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n'
      'Alias=t.service\n',
  )
  _Write(dirs / 'lib/units/static.service', '[Service]\nExecStart=/bin/a\n')
  assert systemd_standin.UnitFileState('s.service') == 'disabled'
  assert systemd_standin.UnitFileState('static.service') == 'static'
  assert systemd_standin.Enable(_Options(), ['s']) == 0
  assert os.readlink(etc / 'multi-user.target.wants/s.service') == str(
      dirs / 'lib/units/s.service'
  )
  assert systemd_standin.UnitFileState('s.service') == 'enabled'
  assert systemd_standin.UnitFileState('t.service') == 'alias'
  assert systemd_standin.Disable(_Options(), ['s.service']) == 0
  assert not os.path.lexists(etc / 'multi-user.target.wants/s.service')
  assert not os.path.lexists(etc / 't.service')
  assert systemd_standin.Mask(_Options(), ['s.service']) == 0
  assert systemd_standin.UnitFileState('s.service') == 'masked'
  assert systemd_standin.Enable(_Options(), ['s.service']) == 1
  assert systemd_standin.Unmask(_Options(), ['s.service']) == 0
  assert systemd_standin.UnitFileState('s.service') == 'disabled'
  # A unit file in /etc cannot be masked over.
  _Write(etc / 'own.mount', '[Mount]\nWhat=/a\nWhere=/own\n')
  assert systemd_standin.Mask(_Options(), ['own.mount']) == 1
  assert systemd_standin.Disable(_Options(), ['none.service']) == 1
  errors = capsys.readouterr().err
  assert 'Created symlink' in errors and 'Removed' in errors
  assert 'Unit file none.service does not exist.' in errors


def test_list_unit_files_aligns_columns_and_fails_when_none_matches(
    dirs, capsys
):
  _Write(dirs / 'lib/units/fstrim.timer', '[Install]\nWantedBy=timers.target\n')
  _Write(dirs / 'lib/units/fstrim.service', '[Service]\nExecStart=/bin/a\n')
  _Write(dirs / 'preset/90.preset', 'disable fstrim.*\n')
  assert systemd_standin.ListUnitFiles(_Options(), ['fstrim*']) == 0
  assert capsys.readouterr().out.splitlines() == [
      'UNIT FILE      STATE    PRESET',
      'fstrim.service static   -',
      'fstrim.timer   disabled disabled',
      '',
      '2 unit files listed.',
  ]
  options = _Options(no_legend=True)
  assert systemd_standin.ListUnitFiles(options, ['apt-daily.timer']) == 1
  assert not capsys.readouterr().out


# The programs, with their directories in the test's.


class Standin:
  """Runs systemctl and journalctl with their directories under `root`."""

  def __init__(self, root):
    self.root = root
    # As a package installs them.
    self.units = root / 'lib/units'
    self.units.mkdir(parents=True)

  def Run(self, program, *args):
    """The CompletedProcess of one command."""
    code = (
        'import sys\n'
        'from perfkit_plugins.local import systemd_standin as s\n'
        f'for k, v in {_Layout(self.root)!r}.items(): setattr(s, k, v)\n'
        # Commands that change units are root's; these work on the test's
        # own directories, as any user.
        's.os.geteuid = lambda: 0\n'
        'sys.exit(s.main(sys.argv[1:]))\n'
    )
    return subprocess.run(
        [PYTHON, '-c', code, program, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

  def Systemctl(self, *args):
    return self.Run('systemctl', *args)

  def Journal(self, unit, *args):
    return self.Run('journalctl', '-u', unit, '-o', 'cat', *args).stdout

  def State(self, unit):
    path = self.root / 'state' / f'{unit}.json'
    return json.loads(path.read_text()) if path.exists() else {}

  def EndAll(self):
    """Ends what the tests' services left running, by their recorded PIDs."""
    for path in (self.root / 'state').glob('*.json'):
      record = json.loads(path.read_text())
      for key in ('main', 'supervisor'):
        if systemd_standin.Running(record.get(key)):
          os.kill(record[key][0], signal.SIGKILL)


@pytest.fixture(name='standin')
def _Standin(tmp_path):
  standin = Standin(tmp_path)
  yield standin
  standin.EndAll()


# A Type=notify service: READY=1 after a second, then it waits for SIGTERM.
NOTIFY_MAIN = (
    'import os, socket, sys, time;'
    ' print("main", sys.argv[1:], flush=True);'
    ' time.sleep(1);'
    ' socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto('
    'b"READY=1", os.environ["NOTIFY_SOCKET"]);'
    ' print("ready", flush=True);'
    ' time.sleep(600)'
)


def test_a_notify_service_starts_once_ready_and_stops(standin):
  (standin.root / 'env.d').mkdir()
  (standin.root / 'env.d/args.conf').write_text('ARGS="a b" c\n')
  (standin.units / 'n.service').write_text(
      '[Unit]\nDescription=Notifier\n[Service]\nType=notify\n'
      f'EnvironmentFile={standin.root}/env.d/*.conf\n'
      f'ExecStartPre=/bin/sh -c "echo pre $$PPID > {standin.root}/pre"\n'
      f"ExecStart={PYTHON} -c '{NOTIFY_MAIN}' $ARGS ${{ARGS}}\n"
      'ExecStopPost=/bin/sh -c "echo post $SERVICE_RESULT $EXIT_STATUS"\n'
  )
  started = time.monotonic()
  result = standin.Systemctl('start', 'n')
  assert result.returncode == 0, result
  assert time.monotonic() - started >= 1
  assert standin.Systemctl('is-active', 'n').stdout == 'active\n'
  main = standin.State('n.service')['main']
  assert systemd_standin.Running(main)
  assert os.getsid(main[0]) == main[0]
  assert standin.Systemctl('show', '-p', 'MainPID', 'n').stdout == (
      f'MainPID={main[0]}\n'
  )
  result = standin.Systemctl('stop', 'n')
  assert result.returncode == 0, result
  assert not systemd_standin.Running(main)
  assert standin.Systemctl('is-active', 'n').stdout == 'inactive\n'
  lines = standin.Journal('n').splitlines()
  assert lines[0] == 'Starting Notifier...'
  # $ARGS split, ${ARGS} one word; written before the start was done.
  assert lines.index("main ['a', 'bc', 'a bc']") < lines.index(
      'Started Notifier.'
  )
  assert lines[-3:] == [
      'post success TERM',
      'n.service: Deactivated successfully.',
      'Stopped Notifier.',
  ]
  precise = standin.Run(
      'journalctl', '-u', 'n', '--no-pager', '-o', 'short-precise', '-n', '1'
  ).stdout
  assert precise.endswith(' Stopped Notifier.\n')
  assert len(precise.split()[2].split('.')[1]) == 6


def test_a_notify_service_that_ends_before_ready_fails(standin):
  (standin.units / 'early.service').write_text(
      '[Service]\nType=notify\nExecStart=/bin/sh -c "echo bye; exit 3"\n'
      'ExecStopPost=/bin/sh -c "echo post $SERVICE_RESULT $EXIT_STATUS"\n'
  )
  result = standin.Systemctl('start', 'early')
  assert result.returncode == 1
  assert 'Job for early.service failed because the control process' in (
      result.stderr
  )
  assert standin.Systemctl('is-active', 'early').stdout == 'failed\n'
  journal = standin.Journal('early')
  assert 'bye' in journal and 'post exit-code 3' in journal
  assert standin.Systemctl('reset-failed', 'early').returncode == 0
  assert standin.Systemctl('is-active', 'early').stdout == 'inactive\n'


def test_a_failing_start_pre_stops_the_start_unless_ignored(standin):
  (standin.units / 'pre.service').write_text(
      '[Service]\nExecStartPre=-/bin/false\nExecStartPre=/bin/false\n'
      'ExecStart=/bin/sleep 600\n'
  )
  assert standin.Systemctl('start', 'pre').returncode == 1
  journal = standin.Journal('pre')
  assert journal.count('Control process exited, code=exited, status=1') == 2
  assert "Failed with result 'exit-code'" in journal
  assert not standin.State('pre.service').get('main')


def test_a_simple_service_that_dies_is_failed_and_a_oneshot_remains(standin):
  (standin.units / 'dies.service').write_text(
      '[Service]\nExecStart=/bin/sh -c "sleep 0.3; exit 2"\n'
  )
  (standin.units / 'once.service').write_text(
      '[Service]\nType=oneshot\nRemainAfterExit=yes\n'
      'ExecStart=/bin/echo one\nExecStart=/bin/echo two\n'
      'ExecStop=/bin/echo stopping\n'
  )
  assert standin.Systemctl('start', 'dies').returncode == 0
  deadline = time.monotonic() + 10
  while standin.Systemctl('is-active', 'dies').stdout != 'failed\n':
    assert time.monotonic() < deadline
    time.sleep(0.1)
  assert 'Main process exited, code=exited, status=2' in standin.Journal('dies')
  assert standin.Systemctl('start', 'once').returncode == 0
  assert standin.Systemctl('is-active', 'once').stdout == 'active\n'
  assert standin.Systemctl('stop', 'once').returncode == 0
  assert standin.Systemctl('is-active', 'once').stdout == 'inactive\n'
  assert standin.Journal('once').split('\n')[1:3] == ['one', 'two']
  assert 'stopping' in standin.Journal('once')


def test_timers_are_only_recorded_and_masks_refuse_starts(standin):
  (standin.units / 'f.timer').write_text('[Timer]\nOnCalendar=weekly\n')
  assert standin.Systemctl('start', 'f.timer').returncode == 0
  assert standin.Systemctl('is-active', 'f.timer').stdout == 'active\n'
  assert standin.Systemctl('mask', '--now', 'f.timer').returncode == 0
  assert standin.Systemctl('is-active', 'f.timer').stdout == 'inactive\n'
  result = standin.Systemctl('start', 'f.timer')
  assert (result.returncode, result.stderr) == (
      1,
      'Failed to start f.timer: Unit f.timer is masked.\n',
  )
  # `cat` of a masked unit succeeds (ScyllaDB's scripts check units so).
  assert standin.Systemctl('cat', 'f.timer').stdout == (
      '# Unit f.timer is masked.\n'
  )


def test_unknown_units_get_systemctls_exit_codes(standin):
  assert standin.Systemctl('start', 'none').returncode == 5
  assert standin.Systemctl('stop', 'none').returncode == 5
  assert standin.Systemctl('restart', 'none').returncode == 5
  assert standin.Systemctl('cat', 'none').returncode == 1
  assert standin.Systemctl('is-enabled', 'none').returncode == 1
  result = standin.Systemctl('is-active', 'none')
  assert (result.returncode, result.stdout) == (3, 'inactive\n')
  assert standin.Systemctl('status', 'none').returncode == 4
  assert standin.Run('journalctl', '-u', 'none').stdout == '-- No entries --\n'


def test_what_the_stand_in_cannot_do_is_refused(standin):
  (standin.units / 'fork.service').write_text(
      '[Service]\nType=forking\nExecStart=/bin/true\n'
  )
  (standin.units / 'swapfile.swap').write_text('[Swap]\nWhat=/swapfile\n')
  for args, message in (
      (('start', 'fork'), 'Type=forking is not supported'),
      (('start', 'swapfile.swap'), '.swap units are not supported'),
      (('--user', 'start', 'x'), "unrecognized option '--user'"),
      (('isolate', 'x'), "unsupported command 'isolate'"),
  ):
    result = standin.Systemctl(*args)
    assert result.returncode == 1 and message in result.stderr, result
  result = standin.Run('journalctl', '--since', 'today')
  assert result.returncode == 1


def test_changing_units_is_roots_only():
  # As in the machines: the host's python3 runs the module as a program.
  command = [STANDIN_PYTHON, '-I', systemd_standin.__file__]
  if os.geteuid() == 0:
    if not shutil.which('setpriv'):
      pytest.skip('as root, needs setpriv to run as another user')
    user = ['--reuid=65534', '--regid=65534', '--clear-groups']
    command = ['setpriv', *user, *command]
  for verb in ('start', 'enable', 'mask', 'daemon-reload'):
    result = subprocess.run(
        command + [verb, 'x'], capture_output=True, text=True, check=False
    )
    assert result.returncode == 4, result
    assert 'Access denied' in result.stderr


def test_timeouts_end_a_service_that_never_gets_ready_or_ignores_sigterm(
    standin,
):
  (standin.units / 'slow.service').write_text(
      '[Service]\nType=notify\nTimeoutStartSec=1\nExecStart=/bin/sleep 600\n'
  )
  (standin.units / 'stubborn.service').write_text(
      '[Service]\nTimeoutStopSec=1\n'
      'ExecStart=/bin/sh -c "trap \\"\\" TERM; sleep 600"\n'
  )
  started = time.monotonic()
  result = standin.Systemctl('start', 'slow')
  assert result.returncode == 1
  assert 'because a timeout was exceeded' in result.stderr
  assert time.monotonic() - started < 30
  assert standin.Systemctl('is-active', 'slow').stdout == 'failed\n'
  assert standin.Systemctl('start', 'stubborn').returncode == 0
  main = standin.State('stubborn.service')['main']
  started = time.monotonic()
  assert standin.Systemctl('restart', 'stubborn').returncode == 0
  assert time.monotonic() - started < 30
  assert not systemd_standin.Running(main)
  assert standin.Systemctl('is-active', 'stubborn').stdout == 'active\n'
  journal = standin.Journal('stubborn')
  assert 'State stop-sigterm timed out. Killing.' in journal
  assert journal.count('Started stubborn.service.') == 2


def test_limits_working_directory_and_identifier_apply_to_each_process(
    standin,
):
  (standin.units / 'props.service').write_text(
      '[Service]\nType=oneshot\nLimitNOFILE=1000\nSyslogIdentifier=props\n'
      f'WorkingDirectory={standin.root}\n'
      "ExecStart=/bin/sh -c 'ulimit -n; pwd; printf %%s $INVOCATION_ID"
      " | wc -c'\n"
  )
  assert standin.Systemctl('start', 'props').returncode == 0
  result = standin.Run('journalctl', '-t', 'props', '-o', 'cat')
  assert result.stdout.split() == ['1000', str(standin.root), '32']


def test_a_limit_above_what_this_host_allows_is_clamped_and_said(standin):
  """systemd (PID 1) may raise a hard limit; a stand-in may not always.

  Above fs.nr_open setrlimit(2) fails for every process, so the stand-in
  takes the present hard limit and says so, and the service starts.
  """
  nr_open = int(pathlib.Path('/proc/sys/fs/nr_open').read_text())
  (standin.units / 'big.service').write_text(
      f'[Service]\nType=oneshot\nLimitNOFILE={nr_open + 1}\n'
      "SyslogIdentifier=big\nExecStart=/bin/sh -c 'ulimit -Hn'\n"
  )
  assert standin.Systemctl('start', 'big').returncode == 0
  printed = standin.Run('journalctl', '-t', 'big', '-o', 'cat').stdout.split()
  assert printed and int(printed[-1]) <= nr_open
  assert f'LimitNOFILE={nr_open + 1} is above this host' in standin.Journal(
      'big'
  )
