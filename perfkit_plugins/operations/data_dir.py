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

"""The servers' data directory: claimed by a run, described, given back.

A run claims the data directory before the database first starts: it
refuses one that holds files it did not write (a previous run's data, or
anybody's), unless --scylla_allow_existing_data; then it writes an owner
record with the run's id. Cleanup removes what it wrote (the database's
subdirectories and the record) only from a directory this run claimed, so
data it was allowed to start on is never deleted. `Describe` reads what
backs the directory (device, file system, mount options, member disks) for
the sample metadata.
"""

import dataclasses
import logging
import posixpath
import shlex

# In the data directory: the id of the run that created what is in it.
OWNER_RECORD = '.scylla_phases_owner'
# First line ClaimCommand prints for a directory holding others' files.
FOREIGN = 'scylla_phases: foreign files'
EXISTING = 'scylla_phases: starting on existing files'


class DataDirError(Exception):
  """The data directory holds files this run did not write."""


@dataclasses.dataclass(frozen=True)
class DataVolume:
  """What backs ScyllaDB's data directory on one server.

  Attributes:
    disks: member devices of the array the benchmark built (() for a
      network disk), or None when not known.
    source: mounted device (findmnt SOURCE).
    fstype: file system type.
    options: mount options.
  """

  disks: tuple
  source: str
  fstype: str
  options: str

  def Metadata(self):
    """Sample metadata (keys prefixed scylla_)."""
    metadata = (
        {} if self.disks is None else {'scylla_data_disks': len(self.disks)}
    )
    return metadata | {
        'scylla_data_device': self.source,
        'scylla_data_fstype': self.fstype,
        'scylla_data_mount_options': self.options,
    }


def _WithSudoIfNeeded(command):
  """`command`, else the same with sudo (a directory of another user's)."""
  return f'{{ {command}; }} 2>/dev/null || sudo sh -c {shlex.quote(command)}'


def ClaimCommand(path, owner, allow_existing=False):
  """Creates `path` if missing and records `owner` in it, never its owner.

  The directory stays whose it is: the database's own user (ScyllaDB's
  packages run it as `scylla`, which must write there, e.g. its socket
  `cql.m`). What the ssh user may not do there is done with sudo.

  When the directory holds a regular file and its owner record is not
  `owner`, prints FOREIGN and a few of the files instead, or with
  allow_existing prints EXISTING and records nothing (the data is not this
  run's, so Cleanup leaves it).
  """
  top = shlex.quote(path)
  record = shlex.quote(posixpath.join(path, OWNER_RECORD))
  owner_q = shlex.quote(owner)
  create = _WithSudoIfNeeded(f'mkdir -p {top}')
  files = f'find {top} -type f ! -name {OWNER_RECORD}'
  foreign = (
      f'[ "$(cat {record} 2>/dev/null || sudo cat {record} 2>/dev/null)"'
      f' != {owner_q} ]'
      f' && [ -n "$({_WithSudoIfNeeded(files + " -print -quit")})" ]'
  )
  if allow_existing:
    found = f"echo '{EXISTING}'"
  else:
    found = f"echo '{FOREIGN}'; {{ {_WithSudoIfNeeded(files)}; }} | head -n 5"
  write = _WithSudoIfNeeded(f'printf "%s\\n" {owner_q} > {record}')
  return f'{create} && if {foreign}; then {found}; else {write}; fi'


def Claim(vm, path, owner, allow_existing=False):
  """Claims the data directory on one server (ClaimCommand).

  Returns:
    True when it held other files and allow_existing let the run start on
    them.

  Raises:
    DataDirError: it holds files of another run or of someone else.
  """
  out, _ = vm.RemoteCommand(ClaimCommand(path, owner, allow_existing))
  lines = out.splitlines()
  if lines and lines[0] == FOREIGN:
    raise DataDirError(
        f'{vm.name}: the data directory {path} holds files this run did not'
        f' write (e.g. {", ".join(lines[1:4])}): a previous run or someone'
        ' else left them. Remove them, or start on them with'
        ' --scylla_allow_existing_data.'
    )
  existing = bool(lines) and lines[0] == EXISTING
  if existing:
    logging.warning(
        (
            '%s: starting on files in %s that this run did not write'
            ' (--scylla_allow_existing_data); Cleanup leaves them'
        ),
        vm.name,
        path,
    )
  return existing


def ReleaseCommand(path, owner, remove_command):
  """Runs `remove_command`, then drops the record, if `owner` claimed `path`.

  Args:
    path: the data directory.
    owner: the run's id.
    remove_command: shell command removing what the database wrote there.

  Returns:
    A POSIX shell command; it does nothing on a directory the run did not
    claim (it started on existing files, or another run owns them).
  """
  record = shlex.quote(posixpath.join(path, OWNER_RECORD))
  return (
      f'if [ "$(cat {record} 2>/dev/null)" = {shlex.quote(owner)} ]; then'
      f' {{ {remove_command}; }} && {{ rm -f {record} 2>/dev/null'
      f' || sudo rm -f {record}; }}; fi'
  )


def DescribeCommand(path):
  """The source, type and options of the file system holding `path`."""
  return 'findmnt -n -o SOURCE,FSTYPE,OPTIONS --target ' + shlex.quote(path)


def Describe(vm, path):
  """What backs `path` on one server, as a DataVolume.

  The file system holding it (findmnt --target; a bind-mounted directory
  shows its device with the directory in brackets). Its member disks are
  not listed (disks None): only the array the benchmark builds itself knows
  them.
  """
  out, _ = vm.RemoteCommand(DescribeCommand(path))
  fields = out.split()
  if len(fields) != 3:
    raise ValueError(f'{vm.name}: no file system holds {path}: {out!r}')
  return DataVolume(None, *fields)
