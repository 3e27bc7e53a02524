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

A local cluster lives in one work directory, which holds `state.json`: its
owner (a process, by PID and start time: the command while it runs; with
--keep, the mirror server, which lives as long as the cluster), pkb.py
while it runs, the machines' record (host_machines.HostMachines.Record)
and the config written for pkb.py. The file is written before anything is
made and updated as things are, atomically, so a cluster whose owner died
(killed, a crash, a reboot) can always be removed: `Teardown` ends its
processes by PID, removes its namespaces, links and bridge and the work
directory.
"""

import dataclasses
import json
import os
import pathlib
import shutil

from perfkit_plugins.local import host_machines
from perfkit_plugins.local import processes

FILE_NAME = 'state.json'


class StateError(Exception):
  """The state file cannot be read."""


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
  """

  owner: processes.Process
  kept: bool = False
  machines: dict | None = None
  config: str | None = None
  pkb: processes.Process | None = None
  servers: tuple = ()
  loaders: tuple = ()

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
    )


def FilePath(work_dir):
  return pathlib.Path(work_dir) / FILE_NAME


def Read(work_dir):
  """The State in `work_dir`, or None when there is none.

  Raises:
    StateError: the file exists but is not a state file.
  """
  path = FilePath(work_dir)
  try:
    text = path.read_text()
  except FileNotFoundError:
    return None
  try:
    return State.FromJson(text)
  except (ValueError, KeyError, TypeError) as e:
    raise StateError(f'{path} is not a local cluster state file: {e}') from e


def Write(work_dir, state):
  """Writes the state file atomically (a reader sees old or new, whole)."""
  path = FilePath(work_dir)
  scratch = path.with_suffix('.tmp')
  scratch.write_text(state.ToJson())
  os.replace(scratch, path)


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
    if command.startswith('ssh') and marker in command:
      pids.append(int(entry.name))
  return pids


def Teardown(work_dir, state, machines=None):
  """Removes a local cluster: processes by PID, network, work directory.

  Args:
    work_dir: its work directory (removed whole: it holds the state file).
    state: its State.
    machines: the HostMachines when this process made them (its child
      processes are reaped); else they are rebuilt from the state.

  Returns:
    What is left (host_machines.HostMachines.Leftovers; empty when all is
    gone).
  """
  if state.pkb is not None:
    processes.End(state.pkb)
  if machines is None and state.machines:
    machines = host_machines.HostMachines.FromRecord(state.machines)
  if machines is not None:
    machines.Destroy()
  processes.EndPids(lambda: _SshProcessesOf(work_dir), grace_s=5)
  left = machines.Leftovers() if machines is not None else []
  if not left:
    shutil.rmtree(work_dir, ignore_errors=True)
  return left
