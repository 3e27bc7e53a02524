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

"""The state file of a local cluster: who owns it and what it is made of.

A local cluster lives in one work directory, which only root can enter
(trusted_paths.PrivateDirProblem) and which holds `state.json`: its owner
(a process, by PID and start time: the command while it runs; with
--keep, the mirror server, which lives as long as the cluster), pkb.py
while it runs, the machines' record (host_machines.HostMachines.Record),
the config written for pkb.py, every entry of the work directory the
command made, and where the run's results go. The file is written before
anything is made and updated as things are, atomically, so a cluster whose
owner died (killed, a crash, a reboot) can always be removed: `Teardown`
ends its processes by PID, removes its namespaces, links and bridge, and
then what the run recorded making, and nothing else. PKB's run directory
is the run's evidence: it is removed only once a copy of it is in the
results directory.

A state file is read only when root (the user running the command) wrote
it: one that another user could have written (or linked) is refused, as
are records that name interfaces or directories that are not a local
cluster's.
"""

import dataclasses
import json
import os
import pathlib
import re
import shutil
import stat

from perfkit_plugins.local import host_machines
from perfkit_plugins.local import processes

FILE_NAME = 'state.json'
# Interface names of a local cluster start with this and the PID of the
# command that made it (the test beds' start with 'pkbtb').
TAG_PREFIX = 'pkblc'
_TAG = re.compile(rf'{TAG_PREFIX}\d{{1,8}}')
# PKB's temp dir in the work directory; its runs/<run_uri>/ is the run's
# evidence.
PKB_DIR = 'pkb'


def BootId():
  """This boot's id (the kernel's random boot_id), or '' where none."""
  try:
    return pathlib.Path('/proc/sys/kernel/random/boot_id').read_text().strip()
  except OSError:
    return ''


class StateError(Exception):
  """The state file cannot be read, or cannot be trusted."""


@dataclasses.dataclass
class State:
  """A local cluster's state.

  Attributes:
    owner: the process that keeps the cluster (processes.Process).
    kept: whether it was left up for more runs (--keep).
    machines: HostMachines.Record() once the machines are being made.
    config: the benchmark config written for pkb.py, once written.
    pkb: pkb.py while it runs (processes.Process), else None.
    servers: machine names of the servers.
    loaders: machine names of the loaders.
    made: names of the work directory's entries the command made, in the
      order made (the state file is not among them).
    made_work_dir: whether the command made the work directory itself.
    run_uri: pkb.py's run URI, once it runs.
    results_dir: where the run's results are copied (<it>/<run_uri>/).
    results_kept: whether PKB's run directory was copied there.
    results_owner: [uid, gid] the results are given to (who ran sudo), or
      None.
    boot_id: the boot the cluster was made in (after a reboot its
      processes and network are gone, and their names may be another
      cluster's).
  """

  owner: processes.Process
  kept: bool = False
  machines: dict | None = None
  config: str | None = None
  pkb: processes.Process | None = None
  servers: tuple = ()
  loaders: tuple = ()
  made: list = dataclasses.field(default_factory=list)
  made_work_dir: bool = False
  run_uri: str | None = None
  results_dir: str | None = None
  results_kept: bool = False
  results_owner: list | None = None
  boot_id: str = dataclasses.field(default_factory=BootId)

  def Alive(self):
    """Whether its owner still runs (else the cluster is stale)."""
    return self.owner.Running()

  def ToJson(self):
    return json.dumps(
        {
            'owner': self.owner.AsList(),
            'kept': self.kept,
            'machines': self.machines,
            'config': self.config,
            'pkb': self.pkb.AsList() if self.pkb else None,
            'servers': list(self.servers),
            'loaders': list(self.loaders),
            'made': list(self.made),
            'made_work_dir': self.made_work_dir,
            'run_uri': self.run_uri,
            'results_dir': self.results_dir,
            'results_kept': self.results_kept,
            'results_owner': self.results_owner,
            'boot_id': self.boot_id,
        },
        indent=1,
    )

  @classmethod
  def FromJson(cls, text):
    data = json.loads(text)
    return cls(
        owner=processes.Process.FromList(data['owner']),
        kept=bool(data.get('kept')),
        machines=data.get('machines'),
        config=data.get('config'),
        pkb=processes.Process.FromList(data['pkb'])
        if data.get('pkb')
        else None,
        servers=tuple(data.get('servers', ())),
        loaders=tuple(data.get('loaders', ())),
        made=list(data.get('made', ())),
        made_work_dir=bool(data.get('made_work_dir')),
        run_uri=data.get('run_uri'),
        results_dir=data.get('results_dir'),
        results_kept=bool(data.get('results_kept')),
        results_owner=data.get('results_owner'),
        boot_id=str(data.get('boot_id', '')),
    )

  def Problem(self, work_dir):
    """Why this state does not describe a local cluster in work_dir, or None.

    Its machines must carry a local cluster's tag and live in work_dir;
    what it made must be entries of work_dir.
    """
    work_dir = pathlib.Path(work_dir)
    for name in self.made:
      if not isinstance(name, str) or not _IsEntryName(name):
        return f'it names {name!r} among what it made'
    if self.run_uri is not None and not re.fullmatch(r'\w{1,32}', self.run_uri):
      return f'its run URI {self.run_uri!r} is not one'
    if not self.machines:
      return None
    tag = self.machines.get('tag')
    if not isinstance(tag, str) or not _TAG.fullmatch(tag):
      return f"its machines' tag {tag!r} is not a local cluster's"
    if pathlib.Path(self.machines.get('root') or '') != work_dir:
      return f'its machines are in {self.machines.get("root")!r}'
    for index, entry in enumerate(self.machines.get('machines', {}).values()):
      if entry.get('netns') != f'{tag}-{index}':
        return f'it names the namespace {entry.get("netns")!r}'
    return None


def _IsEntryName(name):
  return name not in ('', '.', '..', FILE_NAME) and '/' not in name


def FilePath(work_dir):
  return pathlib.Path(work_dir) / FILE_NAME


def Read(work_dir):
  """The State in `work_dir`, or None when there is none.

  Raises:
    StateError: the file exists but is not a state file, was not written
      by root, or does not describe a local cluster in work_dir.
  """
  path = FilePath(work_dir)
  try:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
  except FileNotFoundError:
    return None
  except OSError as e:
    raise StateError(f'{path} cannot be read ({e}): remove it') from e
  with os.fdopen(fd) as f:
    st = os.fstat(f.fileno())
    if (
        not stat.S_ISREG(st.st_mode)
        or st.st_uid != os.geteuid()
        or st.st_mode & 0o022
    ):
      raise StateError(
          f'{path} was not written by this user (UID {os.geteuid()}: its'
          f' owner is UID {st.st_uid}, its mode'
          f' {stat.S_IMODE(st.st_mode):04o}), so nothing it names is'
          ' touched. Remove it after checking what is in it'
      )
    text = f.read()
  try:
    state = State.FromJson(text)
  except (ValueError, KeyError, TypeError, AttributeError) as e:
    raise StateError(f'{path} is not a local cluster state file: {e}') from e
  problem = state.Problem(work_dir)
  if problem:
    raise StateError(
        f'{path} does not describe a local cluster in {work_dir}: {problem}'
    )
  return state


def Write(work_dir, state):
  """Writes the state file atomically (a reader sees old or new, whole)."""
  path = FilePath(work_dir)
  scratch = path.with_suffix('.tmp')
  fd = os.open(
      scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600
  )
  with os.fdopen(fd, 'w') as f:
    f.write(state.ToJson())
  os.replace(scratch, path)


def RunDir(work_dir, run_uri):
  """PKB's run directory of a run in the work directory."""
  return pathlib.Path(work_dir) / PKB_DIR / 'runs' / run_uri


def _SshProcessesOf(work_dir):
  """PIDs of ssh clients whose command line names the work directory.

  pkb.py's shared ssh connections (ControlMaster, their sockets under the
  work directory) outlive it by design.
  """
  marker = f'{pathlib.Path(work_dir)}/'
  pids = []
  for entry in pathlib.Path('/proc').iterdir():
    if not entry.name.isdigit():
      continue
    command = processes.CommandLine(int(entry.name))
    try:
      mine = entry.stat().st_uid == os.geteuid()
    except OSError:
      continue
    if mine and command.startswith('ssh') and marker in command:
      pids.append(int(entry.name))
  return pids


def _Remove(path):
  if path.is_dir() and not path.is_symlink():
    shutil.rmtree(path, ignore_errors=True)
  else:
    path.unlink(missing_ok=True)
  return not os.path.lexists(path)


def Teardown(work_dir, state, machines=None, keep_results=None):
  """Removes a local cluster: processes by PID, network, what it made.

  Args:
    work_dir: its work directory.
    state: its State.
    machines: the HostMachines when this process made them (its child
      processes are reaped); else they are rebuilt from the state.
    keep_results: called with the State when PKB's run directory was not
      copied into the results yet; copies it and returns the copy (or
      raises OSError). Without it, or when it fails, PKB's directory stays.

  Returns:
    What is left (namespaces, links, paths); empty when all is gone. The
    state file stays while anything is left, so `down` can try again.
  """
  this_boot = state.boot_id == BootId()
  if state.pkb is not None and this_boot:
    processes.End(state.pkb)
  if machines is None and state.machines:
    machines = host_machines.HostMachines.FromRecord(state.machines)
  left = []
  if machines is not None and this_boot:
    machines.Destroy()
    left = machines.Leftovers()
  elif machines is not None:
    # Made before a reboot: its processes and network went with it, and
    # its names may be a live cluster's now. Only its files remain.
    shutil.rmtree(machines.root, ignore_errors=True)
  processes.EndPids(lambda: _SshProcessesOf(work_dir), grace_s=5)
  work_dir = pathlib.Path(work_dir)
  unsaved = (
      state.run_uri
      and not state.results_kept
      and RunDir(work_dir, state.run_uri).is_dir()
  )
  why = 'not copied'
  if unsaved and keep_results is not None:
    try:
      keep_results(state)
      state.results_kept, unsaved = True, False
    except OSError as e:
      why = f'not copied: {e}'
  if unsaved:
    left.append(f'{RunDir(work_dir, state.run_uri)} ({why})')
  for name in reversed(state.made):
    if name == PKB_DIR and unsaved:
      continue
    if not _Remove(work_dir / name):
      left.append(str(work_dir / name))
  if left:
    Write(work_dir, state)
    return left
  FilePath(work_dir).unlink(missing_ok=True)
  if state.made_work_dir:
    try:
      work_dir.rmdir()
    except OSError:
      left.append(f'{work_dir} (holds files the run did not make)')
  return left
