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

"""Which files a root command may use: only those no other user can change.

`scylla-phases-local` runs as root and its machines share this host's
files, so a file another local user can write (or replace, through a
directory they can write) is a way for that user to run code as root or to
aim root's writes and deletions. A path is trusted when it and every
directory above it belong to a trusted user (root, and the user who ran
sudo: they can become root anyway) and no one else can write them: a
directory writable by others counts only with its sticky bit, which keeps
others from renaming or removing what they do not own (/var/tmp). Group
write counts as others' unless the group is root's.

Each check returns None when the path can be used, else one sentence
saying who could change what, and how to fix it; nothing is changed.
"""

import os
import pathlib
import pwd
import stat

# The environment variable sudo sets to the invoking user's ID.
SUDO_UID_ENV = 'SUDO_UID'


def TrustedUids(environ=None):
  """Root, this process's user and, through sudo, the user who ran it."""
  environ = os.environ if environ is None else environ
  uids = {0, os.geteuid()}
  value = environ.get(SUDO_UID_ENV, '')
  if value.isdigit():
    uids.add(int(value))
  return frozenset(uids)


def _Owner(uid):
  try:
    return pwd.getpwuid(uid).pw_name
  except KeyError:
    return f'UID {uid}'


def EntryProblem(path, st, trusted_uids):
  """Why one file or directory (its lstat) is not trusted, or None."""
  if stat.S_ISLNK(st.st_mode):
    if st.st_uid in trusted_uids:
      return None
    return f'{path} is a symbolic link of {_Owner(st.st_uid)}'
  if st.st_uid not in trusted_uids:
    return (
        f'{path} belongs to {_Owner(st.st_uid)}, who could change what root'
        ' runs or removes there'
    )
  others_write = st.st_mode & stat.S_IWOTH or (
      st.st_mode & stat.S_IWGRP and st.st_gid != 0
  )
  if others_write and not (
      stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
  ):
    return (
        f'{path} can be written by other users (mode'
        f' {stat.S_IMODE(st.st_mode):04o}): chmod go-w it'
    )
  return None


def PathProblem(path, trusted_uids=None):
  """Why `path` (and every directory above it) is not trusted, or None.

  Symbolic links on the way are followed: the path checked is the real
  one, and each link must be trusted too. A path that does not exist yet
  is checked up to its last existing directory.
  """
  trusted_uids = TrustedUids() if trusted_uids is None else trusted_uids
  path = pathlib.Path(os.path.abspath(path))
  for link in [path, *path.parents]:
    try:
      st = os.lstat(link)
    except FileNotFoundError:
      continue
    if stat.S_ISLNK(st.st_mode):
      problem = EntryProblem(link, st, trusted_uids)
      if problem:
        return problem
  real = pathlib.Path(os.path.realpath(path))
  return _FirstProblem(reversed([real, *real.parents]), trusted_uids)


def _FirstProblem(paths, trusted_uids):
  """The first EntryProblem of the existing ones of `paths`, or None."""
  for path in paths:
    try:
      st = os.lstat(path)
    except FileNotFoundError:
      continue
    problem = EntryProblem(path, st, trusted_uids)
    if problem:
      return problem
  return None


def TreeProblem(root, trusted_uids=None):
  """Why `root`, a directory above it or anything inside it is not trusted.

  Args:
    root: a directory (a PKB checkout, a jar cache).
    trusted_uids: default TrustedUids().

  Returns:
    None, or the first problem found.
  """
  trusted_uids = TrustedUids() if trusted_uids is None else trusted_uids
  problem = PathProblem(root, trusted_uids)
  for directory, dirs, files in os.walk(os.path.realpath(root)):
    if problem:
      break
    problem = _FirstProblem(
        (os.path.join(directory, name) for name in dirs + files),
        trusted_uids,
    )
  return problem


def PrivateDirProblem(path):
  """Why an existing `path` is not a directory only its user enters, or None.

  It must be a real directory (no link) of this process's user (root, for
  the local run), with no access for group or others (0700), as the local
  cluster's work directory is made.
  """
  try:
    st = os.lstat(path)
  except FileNotFoundError:
    return None
  if not stat.S_ISDIR(st.st_mode):
    return f'{path} exists and is not a directory: remove it'
  if st.st_uid != os.geteuid():
    return (
        f'{path} belongs to {_Owner(st.st_uid)}, not to'
        f' {_Owner(os.geteuid())}: another user could have put files there'
        f' for {_Owner(os.geteuid())} to run or remove. Remove it (after'
        ' checking what is in it), or give another --work_dir'
    )
  if stat.S_IMODE(st.st_mode) & 0o077:
    return (
        f'{path} can be entered by other users (mode'
        f' {stat.S_IMODE(st.st_mode):04o}; a work directory is 0700):'
        f' chmod 700 {path} if nothing in it came from another user, else'
        ' remove it'
    )
  return None


def MakePrivateDir(path):
  """Makes `path` a new directory of this process's user, mode 0700.

  Missing directories above it are made 0755. Checks the result: a
  directory someone else made first is never taken for this one.

  Raises:
    FileExistsError: `path` exists.
    PermissionError: what was made is not a private directory.
  """
  path = pathlib.Path(path)
  path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
  os.mkdir(path, 0o700)
  os.chmod(path, 0o700, follow_symlinks=False)
  problem = PrivateDirProblem(path)
  if problem:
    raise PermissionError(problem)
