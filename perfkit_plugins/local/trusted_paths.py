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
private group (named after them, no other member, no other user's
primary group); so does a POSIX ACL entry that grants write to another
user or group, and a directory's default ACL, which every file made in it
takes. Symbolic links count, and so does what they lead to. Paths that do
not exist yet are checked again once made (MakeDirs makes them without
following a link another user could have put on the way).

Each check returns None when the path can be used, else one sentence
saying who could change what, and how to fix it; nothing is changed.
"""

import contextlib
import errno
import grp
import os
import pathlib
import pwd
import stat
import struct

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


def _GroupIsOwners(gid, uid):
  """Whether group `gid` is root's, or user `uid`'s own alone.

  A user's private group (same name, no other member, no other user's
  primary group) is theirs: a checkout made with umask 002 (Ubuntu's) is
  group-writable by them only.
  """
  if gid == 0:
    return True
  try:
    group = grp.getgrgid(gid)
    owner = pwd.getpwuid(uid).pw_name
  except KeyError:
    return False
  return (
      group.gr_name == owner
      and set(group.gr_mem) <= {owner}
      and all(u.pw_name == owner for u in pwd.getpwall() if u.pw_gid == gid)
  )


# POSIX ACLs as Linux stores them in extended attributes: a version, then
# (tag, permissions, id) entries (include/uapi/linux/posix_acl_xattr.h).
_ACL_ACCESS = 'system.posix_acl_access'
_ACL_DEFAULT = 'system.posix_acl_default'
_ACL_HEADER = 4
_ACL_USER = 0x02
_ACL_GROUP = 0x08
_ACL_MASK = 0x10
_ACL_WRITE = 0x02


def _AclEntries(path, name):
  """The (tag, permissions, id) entries of ACL `name` of `path`, or ()."""
  try:
    raw = os.getxattr(path, name, follow_symlinks=False)
  except OSError as e:
    if e.errno in (errno.ENODATA, errno.ENOTSUP, errno.ENOENT):
      return ()
    raise
  return tuple(struct.iter_unpack('<HHI', raw[_ACL_HEADER:]))


def _AclWriter(path, st, trusted_uids):
  """Who else an ACL of `path` lets write it (or, by default, what is
  made in it), as 'user NAME' or 'group NAME' and the ACL's name, or None.

  Named users and groups count with the write permission the ACL's mask
  leaves them; a directory's default ACL counts as its own, since it is
  the ACL of every file made in it.
  """
  names = [_ACL_ACCESS]
  if stat.S_ISDIR(st.st_mode):
    names.append(_ACL_DEFAULT)
  for name in names:
    entries = _AclEntries(path, name)
    masks = [perm for tag, perm, _ in entries if tag == _ACL_MASK]
    if masks and not masks[0] & _ACL_WRITE:
      continue
    for tag, perm, who in entries:
      if not perm & _ACL_WRITE:
        continue
      if tag == _ACL_USER and who not in trusted_uids:
        return f'user {_Owner(who)}', name
      if tag == _ACL_GROUP and not _GroupIsOwners(who, st.st_uid):
        return f'group {_Group(who)}', name
  return None


def _Group(gid):
  try:
    return grp.getgrgid(gid).gr_name
  except KeyError:
    return f'GID {gid}'


def _OthersWrite(path, st, trusted_uids):
  """Who else may write `path` (its lstat `st`), by what, and the fix.

  Returns:
    None, or (who, by what, fix) such as ('other users', 'mode 0777',
    'chmod go-w it').
  """
  mode = f'mode {stat.S_IMODE(st.st_mode):04o}'
  if st.st_mode & stat.S_IWOTH:
    return 'other users', mode, 'chmod go-w it'
  if st.st_mode & stat.S_IWGRP and not _GroupIsOwners(st.st_gid, st.st_uid):
    return f'group {_Group(st.st_gid)}', mode, 'chmod go-w it'
  acl = _AclWriter(path, st, trusted_uids)
  if acl is None:
    return None
  who, name = acl
  if name == _ACL_DEFAULT:
    return (
        who,
        'its default ACL, which what is made in it takes',
        'setfacl -k it',
    )
  return who, 'its ACL', 'setfacl -b it'


def EntryProblem(path, st, trusted_uids, sticky_counts=True):
  """Why one file or directory (its lstat) is not trusted, or None.

  Args:
    path: its path.
    st: its lstat.
    trusted_uids: TrustedUids().
    sticky_counts: whether a directory others can write is trusted with
      its sticky bit (a directory above a trusted path, as /var/tmp); not
      inside a trusted tree, where no one else may add anything.
  """
  if st.st_uid not in trusted_uids:
    kind = 'is a symbolic link of' if stat.S_ISLNK(st.st_mode) else 'belongs to'
    return (
        f'{path} {kind} {_Owner(st.st_uid)}, who could change what root'
        ' runs or removes there'
    )
  if stat.S_ISLNK(st.st_mode):
    return None
  writer = _OthersWrite(path, st, trusted_uids)
  sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
  if writer and not (sticky and sticky_counts):
    who, how, fix = writer
    return f'{path} can be written by {who} ({how}): {fix}'
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

  Inside the tree no directory may be writable by others, sticky or not.
  Symbolic links are followed into what they lead to, and a gitlink (a
  `.git` file naming a git directory elsewhere, as submodules and work
  trees have) into the git directory it names, which git reads as root:
  each is checked as a tree of its own, wherever it is.

  Args:
    root: a directory (a PKB checkout, a jar cache).
    trusted_uids: default TrustedUids().

  Returns:
    None, or the first problem found.
  """
  trusted_uids = TrustedUids() if trusted_uids is None else trusted_uids
  pending = [root]
  seen = set()
  while pending:
    top = pending.pop()
    problem = PathProblem(top, trusted_uids)
    if problem:
      return problem
    real = os.path.realpath(top)
    if real in seen or not os.path.isdir(real):
      continue
    seen.add(real)
    problem = _InsideProblem(real, trusted_uids, pending)
    if problem:
      return problem
  return None


def _Inside(top):
  """Yields the path of `top` and of everything in it, links not followed."""
  yield top
  for directory, dirs, files in os.walk(top):
    for name in dirs + files:
      yield os.path.join(directory, name)


def _InsideProblem(top, trusted_uids, pending):
  """Why directory `top` or anything in it is not trusted, or None.

  Appends to `pending` the symbolic links and the git directories of the
  gitlinks found, to check as trees of their own.
  """
  for path in _Inside(top):
    try:
      st = os.lstat(path)
    except FileNotFoundError:
      continue
    problem = EntryProblem(path, st, trusted_uids, sticky_counts=False)
    if problem:
      return problem
    if stat.S_ISLNK(st.st_mode):
      pending.append(path)
    elif os.path.basename(path) == '.git' and stat.S_ISREG(st.st_mode):
      pending.extend(_GitDirsNamed(path))
  return None


def _GitDirsNamed(gitlink):
  """The git directories a `.git` file leads git to.

  Its `gitdir: <path>` (relative to the file's directory), and that
  directory's `commondir` (a work tree's repository), if any.
  """
  text = pathlib.Path(gitlink).read_text(errors='replace').strip()
  if not text.startswith('gitdir:'):
    return []
  git_dir = os.path.join(
      os.path.dirname(gitlink), text.removeprefix('gitdir:').strip()
  )
  named = [git_dir]
  try:
    common = pathlib.Path(git_dir, 'commondir').read_text().strip()
  except OSError:
    return named
  return named + [os.path.join(git_dir, common)]


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
  MakeDirs(path.parent)
  os.mkdir(path, 0o700)
  os.chmod(path, 0o700, follow_symlinks=False)
  problem = PrivateDirProblem(path)
  if problem:
    raise PermissionError(problem)


def MakeDirs(path, mode=0o755):
  """Makes directory `path` and those missing above it (`mkdir -p`).

  Each directory is reached from the one above by its descriptor, so no
  link swapped in on the way is followed unseen; a symbolic link on the
  way is followed only where no other user could have put it (its
  directory writable by root and the owner alone), else refused. `mode`
  is taken with the umask, as mkdir does.

  Raises:
    PermissionError: a symbolic link on the way is in a directory others
      can write (/var/tmp, /tmp).
    OSError: a part is not a directory.
  """
  trusted_uids = TrustedUids()
  parent = '/'
  fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
  try:
    for name in pathlib.PurePosixPath(os.path.abspath(path)).parts[1:]:
      with contextlib.suppress(FileExistsError):
        os.mkdir(name, mode, dir_fd=fd)
      try:
        child = os.open(
            name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd
        )
      except OSError as e:
        entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if e.errno not in (errno.ELOOP, errno.ENOTDIR) or not stat.S_ISLNK(
            entry.st_mode
        ):
          raise
        writer = _OthersWrite(parent, os.fstat(fd), trusted_uids)
        if writer:
          raise PermissionError(
              f'{os.path.join(parent, name)} is a symbolic link in a'
              f' directory {writer[0]} can write: not followed'
          ) from e
        child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
      os.close(fd)
      fd = child
      parent = os.path.join(parent, name)
  finally:
    os.close(fd)
