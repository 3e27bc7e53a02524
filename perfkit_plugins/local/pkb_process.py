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

"""Stock pkb.py of a checkout as a process, and what it logs, for a person.

PKB is not on PyPI: it runs from a checkout, under Python 3.12, with its
requirements and this plugin installed in the interpreter that runs it.
`Start` and `Run` run its pkb.py; `ProgressView` follows the run's pkb.log
(every record, with the file that logged it) and keeps the lines a person
follows a run by: PKB's stages, what the benchmark logs per step
(starts, progress, quiesce polls, ends, warnings) and every error.
"""

import os
import pathlib
import re
import subprocess
import sys

import perfkit_plugins

PYTHON = (3, 12)
# pkb.log's records: '%(asctime)s <run_uri> %(threadName)s %(pkb_label)s
# %(filename)s:%(lineno)d %(levelname)-8s %(message)s'.
_RECORD = re.compile(
    r'^\d{4}-\d\d-\d\d (?P<time>\d\d:\d\d:\d\d),\d+ \S+ .*?'
    r'(?P<file>[\w.-]+\.py):\d+ '
    r'(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) +(?P<message>.*)$'
)
# pkb.py's own lines a person follows a run by.
_STAGES = re.compile(
    r'^(Provisioning resources|Preparing benchmark|Running benchmark'
    r'|Cleaning up benchmark|Tearing down resources|Benchmark run statuses'
    r'|PKB exiting)'
)
# What PKB's helpers log under the plugin's file names: every remote
# command and its output, deduplication notes, whole settings.
_PLUGIN_NOISE = (
    'Running RobustRemoteCommand',
    'Waiting for original cmd',
    'Finished waiting',
    'Running on ',
    'Ran: ',
    'Message from ',
    'scylla_phases settings:',
    'scylla_phases decoded groups:',
)


# PKB's Debian VMs discard from the set of installed packages while
# PackageCleanup iterates it: its teardown of static VMs fails each time
# and goes on (the machines are the run's own and removed anyway).
KNOWN_TEARDOWN_ERROR = 'RuntimeError: Set changed size during iteration'
_TEARDOWN_MESSAGES = (
    'Exception occurred while calling DeleteVm',
    'Got an exception deleting VMs',
)


def Problem(checkout):
  """Why pkb.py of `checkout` cannot run here, or None when it can."""
  if not os.path.isfile(os.path.join(checkout, 'pkb.py')):
    return (
        f'no PerfKitBenchmarker checkout at {checkout}: set PKB_CHECKOUT to'
        ' one (git clone https://github.com/GoogleCloudPlatform/'
        'PerfKitBenchmarker; Python 3.12 with its requirements.txt,'
        " 'pint<0.26' and 'setuptools<81', and this plugin installed)"
    )
  if sys.version_info[:2] != PYTHON:
    return (
        f'PKB needs Python 3.12 and this is {sys.version.split()[0]}: run'
        ' this command from the Python 3.12 environment that runs pkb.py'
    )
  return None


def _Git(checkout, *args):
  """Runs git on a checkout already found trusted (trusted_paths).

  git refuses, as root, a repository another user owns; the owner is
  trusted here, and nothing of the repository's config runs a program.
  """
  return subprocess.run(
      [
          'git',
          '-c',
          f'safe.directory={checkout}',
          '-c',
          'core.fsmonitor=false',
          '-C',
          str(checkout),
          *args,
      ],
      capture_output=True,
      text=True,
      check=False,
  )


def CommitProblem(checkout, tested_commit):
  """Why `checkout` is not PKB at `tested_commit` as committed, or None.

  HEAD must be that commit and no tracked file changed.
  """
  head = _Git(checkout, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}')
  fix = (
      f'check out {tested_commit} (git -C {checkout} checkout --detach'
      f' {tested_commit}), or give --allow_untested_pkb'
  )
  if head.returncode:
    return (
        f'{checkout} is not a git checkout whose commit can be checked'
        f' ({head.stderr.strip() or "no HEAD"}): {fix}'
    )
  if head.stdout.strip() != tested_commit:
    return (
        f'PKB at {checkout} is at {head.stdout.strip()[:12]}, and this'
        f' release is tested with {tested_commit[:12]}: {fix}'
    )
  status = _Git(checkout, 'status', '--porcelain', '--untracked-files=no')
  if status.returncode or status.stdout.strip():
    changed = status.stdout.split('\n')[0].strip() or status.stderr.strip()
    return f'PKB at {checkout} has local changes ({changed}, ...): {fix}'
  return None


def Command(checkout, args, python=sys.executable, work_dir=None):
  """The command line of pkb.py of `checkout` with `args`.

  With `work_dir`, pkb.py looks for its data files there, not in the
  directory it runs in: PKB's --data_search_paths is '.' unless given, and
  PKB renders and runs what it finds there first (its ssh config template,
  the scripts it pushes to the machines).
  """
  command = [python, os.path.join(checkout, 'pkb.py'), *args]
  if work_dir is not None:
    command.append(f'--data_search_paths={work_dir}')
  return command


def Environment(env=None):
  """The environment pkb.py runs in: this one, without PYTHONPATH.

  The plugin comes from the interpreter's install, not from a path.
  """
  if env is None:
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  return env


def Start(
    checkout,
    args,
    stdout,
    python=sys.executable,
    env=None,
    new_session=False,
    work_dir=None,
):
  """Starts pkb.py with `args`; returns its Popen (output: stdout).

  Args:
    checkout: the PKB checkout.
    args: pkb.py's arguments.
    stdout: file receiving its stdout and stderr.
    python: the interpreter (one with the plugin installed).
    env: environment; default this process's, without PYTHONPATH.
    new_session: start it in a session of its own, so a Ctrl-C in the
      terminal reaches only the caller, which decides what pkb.py gets.
    work_dir: a directory only the caller may write: pkb.py runs there and
      takes data files from it (Command), never from the caller's
      directory; None: the caller's directory (tests).

  pkb.py runs with the usual umask (022), whatever the caller's: the files
  it sends its VMs are read there by other users (a database's own).
  """
  return subprocess.Popen(
      Command(checkout, args, python, work_dir),
      stdin=subprocess.DEVNULL,
      stdout=stdout,
      stderr=subprocess.STDOUT,
      cwd=work_dir,
      env=Environment(env),
      start_new_session=new_session,
      umask=0o022,
  )


def Run(checkout, args, timeout, python=sys.executable, env=None):
  """Runs pkb.py with `args`; returns the CompletedProcess (text output).

  Raises:
    subprocess.TimeoutExpired: it ran longer than `timeout` seconds (it is
      killed).
  """
  return subprocess.run(
      Command(checkout, args, python),
      capture_output=True,
      text=True,
      timeout=timeout,
      env=Environment(env),
      check=False,
  )


def PluginFiles():
  """Base names of the plugin's modules, as pkb.log names who logged."""
  root = pathlib.Path(perfkit_plugins.__file__).parent
  names = {p.name for p in root.rglob('*.py')}
  names.discard('__init__.py')
  return frozenset(names)


class ProgressView:
  """The lines of pkb.log a person follows a run by, as they are written.

  One line per record kept (Keep), cut at MAX_LINE characters, except
  pkb.py's stage records, shown whole (the run statuses table). An error's
  traceback is summed up by its last line; PKB's known teardown error on
  Debian static VMs (KNOWN_TEARDOWN_ERROR) by one note.

  Attributes:
    path: the file followed.
    everything: keep every line as it is (no filter).
  """

  MAX_LINE = 200

  def __init__(self, path, everything=False, plugin_files=None):
    self.path = pathlib.Path(path)
    self.everything = everything
    self._plugin_files = plugin_files or PluginFiles()
    self._offset = 0
    self._partial = ''
    # Further lines of the last record: shown (a stage's), kept (an
    # error's, until the record ends), or dropped.
    self._more = None
    self._error = None
    self._noted = False

  def Keep(self, file, level, message):
    """Whether a record of `file` at `level` is one to show."""
    if level in ('ERROR', 'CRITICAL'):
      return True
    if file == 'pkb.py':
      return level == 'INFO' and bool(_STAGES.match(message))
    return (
        file in self._plugin_files
        and level in ('INFO', 'WARNING')
        and not message.startswith(_PLUGIN_NOISE)
    )

  def _Short(self, text):
    if len(text) <= self.MAX_LINE:
      return text
    return text[: self.MAX_LINE - 3] + '...'

  def _EndError(self):
    """The line of the error record that ended, if any."""
    if self._error is None:
      return []
    time, level, message, more = self._error
    self._error = None
    last = next((line.strip() for line in reversed(more) if line.strip()), '')
    if KNOWN_TEARDOWN_ERROR in last and message.startswith(_TEARDOWN_MESSAGES):
      if self._noted:
        return []
      self._noted = True
      return [
          f"{time}  note: PKB's teardown of static VMs hit its own bug"
          f' ({last} in PackageCleanup); nothing of the run is lost'
      ]
    text = f'{message} ... {last}' if last else message
    return [f'{time}  {level}: {self._Short(text)}']

  def Lines(self, text):
    """The lines to show of complete pkb.log lines `text`, formatted."""
    shown = []
    for line in text.splitlines():
      if self.everything:
        shown.append(line)
        continue
      record = _RECORD.match(line)
      if record is None:
        if self._error is not None:
          self._error[3].append(line)
        elif self._more and line.strip():
          shown.append(f'          {line}')
        continue
      shown += self._EndError()
      self._more = False
      time, level = record['time'], record['level']
      message = record['message']
      if not self.Keep(record['file'], level, message):
        continue
      if level in ('ERROR', 'CRITICAL'):
        self._error = (time, level, message, [])
      elif record['file'] == 'pkb.py':
        self._more = True
        shown.append(f'{time}  {message}')
      else:
        prefix = '' if level == 'INFO' else f'{level}: '
        shown.append(f'{time}  {prefix}{self._Short(message)}')
    return shown

  def Poll(self):
    """The lines to show written since the last call."""
    try:
      with open(self.path, 'rb') as f:
        f.seek(self._offset)
        data = f.read()
    except FileNotFoundError:
      return []
    self._offset += len(data)
    text = self._partial + data.decode(errors='replace')
    complete, _, self._partial = text.rpartition('\n')
    return self.Lines(complete) if complete else []

  def Finish(self):
    """The lines still to show once the file is complete."""
    shown = self.Poll()
    if self._partial:
      shown += self.Lines(self._partial)
      self._partial = ''
    return shown + self._EndError()
