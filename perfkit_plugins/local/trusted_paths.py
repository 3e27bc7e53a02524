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
write counts as others' unless the group is root's or the owner's own
private group. Symbolic links count, and so does what they lead to.
Paths that do not exist yet are checked again once made.

Each check returns None when the path can be used, else one sentence
saying who could change what, and how to fix it; nothing is changed.
"""

import grp
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


def _GroupIsOwners(st):
  """Whether the group of a file is root's, or its owner's own alone.

  A user's private group (same name, no other member) is theirs: a
  checkout made with umask 002 (Ubuntu's) is group-writable by them only.
  """
  if st.st_gid == 0:
    return True
  try:
    group = grp.getgrgid(st.st_gid)
    owner = pwd.getpwuid(st.st_uid).pw_name
  except KeyError:
    return False
  return group.gr_name == owner and set(group.gr_mem) <= {owner}


def EntryProblem(path, st, trusted_uids):
  """Why one file or directory (its lstat) is not trusted, or None."""
  if st.st_uid not in trusted_uids:
    kind = 'is a symbolic link of' if stat.S_ISLNK(st.st_mode) else 'belongs to'
    return (
        f'{path} {kind} {_Owner(st.st_uid)}, who could change what root'
        ' runs or removes there'
    )
  if stat.S_ISLNK(st.st_mode):
    return None
  others_write = st.st_mode & stat.S_IWOTH or (
      st.st_mode & stat.S_IWGRP and not _GroupIsOwners(st)
  )
  if others_write and not (
      stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
  ):
    return (
        f'{path} can be written by other users (mode'
        f' {stat.S_IMODE(st.st_mode):04o}): chmod go-w it'
    )
  return None


# Links followed while resolving one path, at most (the kernel's limit).
_MAX_LINKS = 40


def _Traversed(path):
  """Yields (path, lstat) of every entry the kernel passes to reach `path`.

  From `/`, each directory in turn, each symbolic link and then what it
  points to, as the kernel resolves them (`..` after a link applies to
  where the link led); stops at the first entry that does not exist.

  Raises:
    OSError: more than _MAX_LINKS links.
  """
  absolute = os.path.join(os.getcwd(), os.fspath(path))
  pending = list(reversed(pathlib.PurePosixPath(absolute).parts[1:]))
  current = '/'
  yield current, os.lstat(current)
  links = 0
  while pending:
    name = pending.pop()
    if name == '.':
      continue
    if name == '..':
      current = os.path.dirname(current)
      continue
    candidate = os.path.join(current, name)
    try:
      st = os.lstat(candidate)
    except FileNotFoundError:
      return
    yield candidate, st
    if not stat.S_ISLNK(st.st_mode):
      current = candidate
      continue
    links += 1
    if links > _MAX_LINKS:
      raise OSError(f'{path}: more than {_MAX_LINKS} symbolic links')
    target = pathlib.PurePosixPath(os.readlink(candidate)).parts
    if target[:1] == ('/',):
      current, target = '/', target[1:]
    pending.extend(reversed(target))


def PathProblem(path, trusted_uids=None):
  """Why `path` (and every directory above it) is not trusted, or None.

  Every entry on the way counts (trusted_paths' rule), symbolic links and
  what they lead to included, as the kernel resolves them. A path that
  does not exist yet is checked up to its last existing part: check it
  again once made.
  """
  trusted_uids = TrustedUids() if trusted_uids is None else trusted_uids
  try:
    for entry, st in _Traversed(path):
      problem = EntryProblem(entry, st, trusted_uids)
      if problem:
        return problem
  except OSError as e:
    return str(e)
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
    for name in dirs + files:
      if problem:
        return problem
      path = os.path.join(directory, name)
      try:
        st = os.lstat(path)
      except FileNotFoundError:
        continue
      problem = EntryProblem(path, st, trusted_uids)
      if not problem and stat.S_ISLNK(st.st_mode):
        # What the link leads to, wherever it is.
        problem = PathProblem(path, trusted_uids)
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


def EnsurePrivateDir(path):
  """Makes `path` a private directory (MakePrivateDir) unless it exists.

  Returns:
    Whether it was made here.

  Raises:
    PermissionError: it exists and is not private (PrivateDirProblem), or
      what was made is not.
  """
  try:
    MakePrivateDir(path)
    return True
  except FileExistsError:
    problem = PrivateDirProblem(path)
  if problem:
    raise PermissionError(problem)
  return False


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
