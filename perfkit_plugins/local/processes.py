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

"""Processes of this host named by PID and start time, and ended by PID.

A PID alone may be reused once its process is gone: a record of a process
(a state file's owner, a mirror, pkb.py) keeps its start time as well
(`/proc/<pid>/stat` field 22, clock ticks since boot), and only a live
process with both is taken for it. Processes are only ever signalled by
PID: never by name.
"""

import contextlib
import dataclasses
import os
import pathlib
import signal
import threading
import time

# The signals that stop a command: Ctrl-C, kill, a lost terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclasses.dataclass(frozen=True)
class Process:
  """One process: its PID and its start time (ticks since boot).

  Attributes:
    pid: the process ID.
    start: field 22 of its /proc/<pid>/stat.
  """

  pid: int
  start: int

  def Running(self):
    """Whether this very process still runs (not a zombie, PID not reused)."""
    stat = _Stat(self.pid)
    return stat is not None and stat[0] != 'Z' and int(stat[19]) == self.start

  def AsList(self):
    return [self.pid, self.start]

  @classmethod
  def FromList(cls, value):
    pid, start = value
    return cls(int(pid), int(start))


def _Stat(pid):
  """The fields of /proc/<pid>/stat after the command name, or None."""
  try:
    text = pathlib.Path(f'/proc/{pid}/stat').read_text()
  except (OSError, ValueError):
    return None
  return text.rsplit(')', 1)[1].split()


def Of(pid):
  """The Process running as `pid` now, or None when there is none."""
  stat = _Stat(pid)
  if stat is None or stat[0] == 'Z':
    return None
  return Process(pid, int(stat[19]))


def Runs(pid):
  """Whether a process `pid` exists and is not a zombie."""
  return Of(pid) is not None


def CommandLine(pid):
  """The command line of process `pid` as one string ('' when gone)."""
  try:
    raw = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
  except OSError:
    return ''
  return raw.replace(b'\0', b' ').decode(errors='replace').strip()


def Signal(pid, sig):
  """Sends `sig` to `pid`; a process already gone is no error."""
  try:
    os.kill(pid, sig)
  except ProcessLookupError:
    pass


def KillGroup(pgid):
  """SIGKILL to every process of group `pgid`; one already gone is no error.

  For a child started in a session of its own (its PID is its group's),
  not yet reaped or whose group outlives it: the kernel gives no new
  process a PID in use as a group's, so the group is the child's.
  """
  try:
    os.killpg(pgid, signal.SIGKILL)
  except ProcessLookupError:
    pass


def EndPids(list_pids, grace_s=10):
  """SIGTERM to every listed PID, then SIGKILL to what is left.

  Args:
    list_pids: a function returning the PIDs still to end (it is called
      again after each signal, so it sees processes started meanwhile).
    grace_s: seconds a SIGTERM gets before the SIGKILL.

  Returns:
    Whether none is left.
  """
  for sig in (signal.SIGTERM, signal.SIGKILL):
    for pid in list_pids():
      Signal(pid, sig)
    deadline = time.monotonic() + grace_s
    while list_pids() and time.monotonic() < deadline:
      time.sleep(0.1)
    if not list_pids():
      return True
  return False


def End(process, grace_s=10):
  """Ends one recorded Process (if it still runs) by its PID."""
  return EndPids(
      lambda: [process.pid] if process.Running() else [], grace_s=grace_s
  )


@contextlib.contextmanager
def StopSignalsHandledBy(handler):
  """SIGINT, SIGTERM and SIGHUP go to `handler` while in the block.

  signal.default_int_handler: they stop the run as a Ctrl-C does.
  signal.SIG_IGN: cleanup runs to its end.
  """
  previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
  try:
    yield
  finally:
    for sig, previous_handler in previous.items():
      signal.signal(sig, previous_handler)


@contextlib.contextmanager
def StopSignalsHeld():
  """A stop signal that comes in the block takes effect when it ends.

  For starting a process and recording it: a Ctrl-C never falls between
  the two, which would leave a process nobody knows of. Only the main
  thread receives signals; elsewhere the block runs as it is.
  """
  if threading.current_thread() is not threading.main_thread():
    yield
    return
  received = []
  with StopSignalsHandledBy(lambda signum, _: received.append(signum)):
    yield
  if received:
    handler = signal.getsignal(received[0])
    if callable(handler):
      handler(received[0], None)
    elif handler == signal.SIG_DFL:
      os.kill(os.getpid(), received[0])
