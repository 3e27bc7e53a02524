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

"""Another local user against `scylla-phases-local`, which runs as root.

Each attack is made as `nobody` (setpriv) the way a user of a shared host
could make it: a work directory made first, a forged state file, links, a
results directory, a planted Python package in the caller's directory, a
race for the mirror's port, a planted file in a machine's /opt/pkb or
/tmp, a held lock, a checkout or tarball they can write (by mode or ACL,
through a gitlink or a linked directory), a `.mvn/` above the jar cache,
host accounts named like the machines' users, idle connections to the
mirror. The real command (its console script, as root) or the real part
(machines of namespaces, the mirror server) must refuse or stand, and
nothing of another user's may be deleted, killed or run as root.

Needs root (skipped otherwise); the machines' test needs what the local
run needs to make machines.
"""

import contextlib
import hashlib
import http.client
import os
import pathlib
import pwd
import resource
import shutil
import socket
import struct
import subprocess
import sys
import time
import urllib.request

import pytest

from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import cluster_state
from perfkit_plugins.local import host_checks
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import mirror
from perfkit_plugins.local import mirror_server
from perfkit_plugins.local import pkb_process
from perfkit_plugins.local import processes
from perfkit_plugins.local import trusted_paths
from perfkit_plugins.tools import local_run
from perfkit_plugins.tools import pkb_location

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which('setpriv'),
    reason='attacks by another user need root and setpriv',
)

NOBODY = 65534
NOGROUP = 65534


def _AsNobody(script, check=True):
  """Runs a shell script as `nobody`; returns the CompletedProcess."""
  return subprocess.run(
      [
          'setpriv',
          f'--reuid={NOBODY}',
          f'--regid={NOGROUP}',
          '--clear-groups',
          '--',
          'sh',
          '-c',
          script,
      ],
      capture_output=True,
      text=True,
      check=check,
      cwd='/',
      timeout=60,
  )


def _Command(*argv):
  script = pathlib.Path(sys.executable).parent / local_run.PROG
  if script.exists():
    return [str(script), *argv]
  return [sys.executable, '-m', 'perfkit_plugins.tools.local_run', *argv]


def _RunCommand(*argv):
  return subprocess.run(
      _Command(*argv),
      capture_output=True,
      text=True,
      check=False,
      timeout=120,
  )


@pytest.fixture(name='shared_dir')
def _SharedDir():
  """A directory like /var/tmp: everyone may write, sticky, not under /tmp."""
  path = pathlib.Path(f'/var/tmp/pkbatk{os.getpid()}')
  shutil.rmtree(path, ignore_errors=True)
  path.mkdir()
  path.chmod(0o1777)
  yield path
  shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(name='victims')
def _Victims(shared_dir):
  """A sleeping process of root and one of nobody's, and a root file."""
  mine = subprocess.Popen(['sleep', '300'])
  theirs = subprocess.Popen([
      'setpriv',
      f'--reuid={NOBODY}',
      f'--regid={NOGROUP}',
      '--clear-groups',
      'sleep',
      '300',
  ])
  victim_file = shared_dir / 'root_file'
  victim_file.write_text('root data\n')
  victim_dir = pathlib.Path(f'/var/tmp/pkbvictim{os.getpid()}')
  (victim_dir / 'pkblc1').mkdir(parents=True)
  (victim_dir / 'pkblc1' / 'keep').write_text('keep\n')
  yield {
      'mine': mine,
      'theirs': theirs,
      'file': victim_file,
      'dir': victim_dir,
  }
  for process in (mine, theirs):
    process.kill()
    process.wait()
  shutil.rmtree(victim_dir, ignore_errors=True)


def _Forge(work_dir, victims):
  """nobody makes work_dir with a state naming the victims, and links."""
  mine = processes.Of(victims['mine'].pid)
  theirs = processes.Of(victims['theirs'].pid)
  state = cluster_state.State(
      owner=theirs,
      pkb=mine,
      machines={
          'tag': 'pkblc1',
          'root': str(victims['dir']),
          'subnet': None,
          'os_type': 'debian12',
          'machines': {},
          'mirror': theirs.AsList(),
          'mirror_url': None,
      },
      made=['planted'],
  )
  # The owner must look dead for the old code to "remove a stale cluster".
  state.owner = processes.Process(theirs.pid, theirs.start + 1)
  _AsNobody(
      f'mkdir {work_dir} && cd {work_dir} && mkdir planted &&'
      f" printf '%s' '{state.ToJson()}' > state.json &&"
      f' ln -s {victims["file"]} state.tmp'
  )


def _Untouched(work_dir, victims):
  assert victims['mine'].poll() is None and victims['theirs'].poll() is None
  assert victims['file'].read_text() == 'root data\n'
  assert (victims['dir'] / 'pkblc1' / 'keep').read_text() == 'keep\n'
  assert (work_dir / 'planted').is_dir()
  assert (work_dir / 'state.json').stat().st_uid == NOBODY


def _NeedsMachines():
  problem = host_machines.Problem()
  if problem:
    pytest.skip(f'local machines: {problem}')


def test_a_work_dir_another_user_made_is_refused_and_nothing_is_touched(
    shared_dir, victims
):
  _NeedsMachines()
  work_dir = shared_dir / 'w'
  _Forge(work_dir, victims)
  for argv in (('run',), ('down',)):
    result = _RunCommand(*argv, '--work_dir', str(work_dir))
    assert result.returncode == local_run.EXIT_REFUSED, result
    assert f'{work_dir} belongs to nobody, not to root' in result.stderr
    _Untouched(work_dir, victims)


def test_a_state_file_root_did_not_write_is_refused(shared_dir, victims):
  _NeedsMachines()
  work_dir = shared_dir / 'w'
  trusted_paths.MakePrivateDir(work_dir)
  state = cluster_state.State(
      owner=processes.Process(victims['theirs'].pid, 1),
      pkb=processes.Of(victims['mine'].pid),
  )
  (work_dir / 'state.json').write_text(state.ToJson())
  os.chown(work_dir / 'state.json', NOBODY, NOGROUP)
  result = _RunCommand('down', '--work_dir', str(work_dir))
  assert result.returncode == local_run.EXIT_REFUSED, result
  assert 'was not written by this user' in result.stderr
  assert victims['mine'].poll() is None and victims['theirs'].poll() is None
  assert (work_dir / 'state.json').exists()


def test_a_state_file_that_is_a_link_is_refused(tmp_path, victims):
  trusted_paths.MakePrivateDir(tmp_path / 'w')
  (tmp_path / 'w' / 'state.json').symlink_to(victims['file'])
  with pytest.raises(cluster_state.StateError, match='cannot be read'):
    cluster_state.Read(tmp_path / 'w')


def test_a_state_naming_what_is_not_a_local_clusters_is_refused(tmp_path):
  trusted_paths.MakePrivateDir(tmp_path / 'w')
  forged = {
      'tag': 'eth0',
      'root': str(tmp_path / 'w'),
      'machines': {},
  }
  for machines, made, why in (
      (forged, [], "tag 'eth0' is not a local cluster's"),
      (forged | {'tag': 'pkblc7', 'root': '/etc'}, [], "in '/etc'"),
      (None, ['../../etc'], "names '../../etc'"),
  ):
    state = cluster_state.State(
        owner=processes.Process(1, 1), machines=machines, made=made
    )
    cluster_state.Write(tmp_path / 'w', state)
    with pytest.raises(cluster_state.StateError, match=why):
      cluster_state.Read(tmp_path / 'w')


def test_a_results_dir_another_user_can_change_is_refused(shared_dir):
  _NeedsMachines()
  _AsNobody(f'mkdir {shared_dir}/results')
  work_dir = shared_dir / 'w'
  result = _RunCommand(
      '--work_dir', str(work_dir), '--results_dir', f'{shared_dir}/results'
  )
  assert result.returncode == local_run.EXIT_REFUSED, result
  assert f'{shared_dir}/results belongs to nobody' in result.stderr
  assert not work_dir.exists()


def test_no_other_user_can_hold_the_locks(tmp_path):
  with host_machines._NetworkLock():  # pylint: disable=protected-access
    pass
  lock = host_machines.NETWORK_LOCK_DIR / host_machines.NETWORK_LOCK_NAME
  work_dir = tmp_path / 'w'
  trusted_paths.MakePrivateDir(work_dir)
  for path in (lock, work_dir):
    result = _AsNobody(f'flock -n {path} true', check=False)
    assert result.returncode != 0
    assert 'Permission denied' in result.stderr


def test_a_machines_opt_pkb_and_tmp_cannot_be_reached_by_other_users(
    tmp_path,
):
  _NeedsMachines()
  work_dir = pathlib.Path(f'/var/tmp/pkbatkm{os.getpid()}')
  local_run.ClaimWorkDir(
      work_dir,
      '/opt/PerfKitBenchmarker',
      cluster_state.State(owner=processes.Of(os.getpid())),
  )
  previous = os.umask(0o077)
  try:
    with host_machines.HostMachines(
        ['box'], work_dir, f'pkbatk{os.getpid() % 100000}'
    ) as machines:
      box = machines.machines['box']
      # As PKB's LinuxVirtualMachine does on every static VM.
      box.Enter('chmod a+rwxt /opt/pkb && mkdir -p /tmp/pkb')
      assert box.Enter(
          'stat -c %a /etc/hosts /etc/resolv.conf'
      ).stdout.split() == ['644', '644']
      for inside in ('opt-pkb', 'tmp/pkb', 'data'):
        result = _AsNobody(
            f'touch {box.directory / inside}/planted', check=False
        )
        assert result.returncode != 0, inside
        assert 'Permission denied' in result.stderr
      assert box.Enter('ls -A /opt/pkb /tmp/pkb').stdout.split() == [
          '/opt/pkb:',
          '/tmp/pkb:',
      ]
      # Sessions get a machine's usual umask, not the owner's 077: what PKB
      # unpacks is read by the database's own user.
      assert machines.Ssh('box', 'umask').stdout.strip() == '0022'
  finally:
    os.umask(previous)
    shutil.rmtree(work_dir, ignore_errors=True)


def _ServedByMirror(tmp_path):
  """Starts a mirror of a set with no machines, on loopback; fetches a file.

  Returns what the mirror served.
  """
  served = tmp_path / 'served'
  served.mkdir()
  (served / 'file').write_text('payload')
  machines = host_machines.HostMachines(
      [],
      tmp_path / 'set',
      f'pkbatk{os.getpid() % 100000}',
      subnet='127.0.0.0/24',
  )
  machines.root.mkdir(parents=True)
  try:
    url = machines.StartMirror(served)
    with urllib.request.urlopen(f'{url}/file', timeout=5) as response:
      return response.read()
  finally:
    machines.Destroy()


def test_the_mirrors_port_is_held_from_before_its_server_starts(
    monkeypatch, tmp_path
):
  popen = subprocess.Popen
  free_at_start = []

  def Start(args, **kwargs):
    if 'http.server' not in args and (
        'perfkit_plugins.local.mirror_server' not in args
    ):
      return popen(args, **kwargs)
    # The moment the server is started: could another user bind its port?
    if kwargs.get('pass_fds'):
      (fd,) = kwargs['pass_fds']
      with socket.socket(fileno=os.dup(fd)) as held:
        port = held.getsockname()[1]
    else:
      port = int(args[-1])
    result = _AsNobody(
        '/usr/bin/python3 -I -c "import socket;'
        f" socket.socket().bind(('127.0.0.1', {port}))\"",
        check=False,
    )
    free_at_start.append(result.returncode == 0)
    return popen(args, **kwargs)

  monkeypatch.setattr(host_machines.subprocess, 'Popen', Start)
  assert _ServedByMirror(tmp_path) == b'payload'
  assert free_at_start == [False]


def test_the_mirror_imports_nothing_from_the_callers_directory(
    monkeypatch, tmp_path, shared_dir
):
  caller = shared_dir
  marker = shared_dir / 'ran_as_root'
  _AsNobody(
      f'mkdir {caller}/http {caller}/perfkit_plugins &&'
      f' echo \'open("{marker}", "w").write("x")\' |'
      f' tee {caller}/http/__init__.py {caller}/perfkit_plugins/__init__.py'
      ' >/dev/null'
  )
  monkeypatch.chdir(caller)
  monkeypatch.setenv('PYTHONPATH', str(caller))
  assert _ServedByMirror(tmp_path) == b'payload'
  assert not marker.exists()


def test_pkb_takes_no_data_file_from_the_callers_directory(
    monkeypatch, tmp_path, shared_dir
):
  """PKB searches '.' for data files first; pkb.py runs in root's own dir.

  A ssh_config.j2 planted where the admin runs the command would be
  rendered as root's ssh config (and execute_command.py pushed to the
  machines); pkb.py must find PKB's own files, whatever the caller's
  directory.
  """
  checkout = pkb_location.Path()
  if not os.path.isfile(os.path.join(checkout, 'pkb.py')):
    pytest.skip(f'no PKB checkout at {checkout}')
  _AsNobody(
      f'cd {shared_dir} && echo planted | tee ssh_config.j2'
      ' execute_command.py >/dev/null'
  )
  stub = tmp_path / 'checkout'
  stub.mkdir()
  # pkb.py's own resolution of data files, from the checkout it names.
  (stub / 'pkb.py').write_text(
      'import os, sys\n'
      f'sys.path.insert(0, {str(checkout)!r})\n'
      'from absl import flags\n'
      'from perfkitbenchmarker import data\n'
      'flags.FLAGS(sys.argv, known_only=True)\n'
      'print(os.getcwd())\n'
      "for name in ('ssh_config.j2', 'execute_command.py'):\n"
      '  print(data.ResourcePath(name))\n'
  )
  work_dir = tmp_path / 'pkb'
  work_dir.mkdir(mode=0o700)
  out = tmp_path / 'out'
  monkeypatch.chdir(shared_dir)
  with open(out, 'wb') as f:
    process = pkb_process.Start(stub, [], f, work_dir=work_dir)
    assert process.wait(timeout=120) == 0, out.read_text()
  cwd, *found = out.read_text().splitlines()[-3:]
  assert cwd == str(work_dir)
  for path in found:
    assert not path.startswith(str(shared_dir)), path
    assert path.startswith(str(checkout)), path


def _Repository(path):
  """A git repository of two commits holding pkb.py; returns HEAD."""

  def Git(*args):
    return subprocess.run(
        ['git', '-C', str(path), '-c', 'user.name=t', '-c', 'user.email=t@t']
        + list(args),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()

  path.mkdir()
  Git('init', '-q')
  Git('commit', '-q', '--allow-empty', '-m', 'one')
  (path / 'pkb.py').write_text('')
  Git('add', 'pkb.py')
  Git('commit', '-q', '-m', 'two')
  return Git('rev-parse', 'HEAD')


def test_a_pkb_checkout_another_user_can_write_is_refused(tmp_path):
  checkout = tmp_path / 'pkb'
  _Repository(checkout)
  assert trusted_paths.TreeProblem(checkout) is None
  os.chown(checkout / 'pkb.py', NOBODY, NOGROUP)
  assert 'pkb.py belongs to nobody' in trusted_paths.TreeProblem(checkout)
  os.chown(checkout / 'pkb.py', 0, 0)
  os.chown(checkout / '.git' / 'config', NOBODY, NOGROUP)
  assert '.git/config belongs to nobody' in trusted_paths.TreeProblem(checkout)
  os.chown(checkout / '.git' / 'config', 0, 0)
  (checkout / 'perfkitbenchmarker').mkdir(mode=0o777)
  (checkout / 'perfkitbenchmarker').chmod(0o777)
  assert 'can be written by other users (mode 0777)' in (
      trusted_paths.TreeProblem(checkout)
  )


def test_a_pkb_checkout_is_run_only_at_the_tested_commit(tmp_path):
  checkout = tmp_path / 'pkb'
  head = _Repository(checkout)
  assert pkb_process.CommitProblem(checkout, head) is None
  problem = pkb_process.CommitProblem(checkout, '0' * 40)
  assert f'is at {head[:12]}' in problem and '--allow_untested_pkb' in problem
  (checkout / 'pkb.py').write_text('print("changed")\n')
  assert 'has local changes (M pkb.py' in pkb_process.CommitProblem(
      checkout, head
  )
  assert 'is not a git checkout' in pkb_process.CommitProblem(tmp_path, head)


def test_a_stress_tarball_or_jar_another_user_can_write_is_refused(tmp_path):
  tarball = tmp_path / mirror.STRESS_NAME
  tarball.write_bytes(b'stress')
  (tmp_path / f'{tarball.name}.sha256').write_text(
      f'{hashlib.sha256(b"stress").hexdigest()}  {tarball.name}\n'
  )
  assert mirror.StressProblem(tarball) is None
  tarball.chmod(0o666)
  assert 'can be written by other users' in mirror.StressProblem(tarball)
  cache = tmp_path / 'cache'
  lib = cassandra_build.LibDir('5.0.9', cache)
  lib.mkdir(parents=True)
  (lib / 'cassandra-all.jar').write_bytes(b'jar')
  assert host_checks.JarCacheProblem(cache) is None
  os.chown(lib / 'cassandra-all.jar', NOBODY, NOGROUP)
  assert 'cassandra-all.jar belongs to nobody' in host_checks.JarCacheProblem(
      cache
  )


def test_a_link_through_another_users_link_is_refused(shared_dir):
  """A trusted link whose way leads through a link another user can swap."""
  (shared_dir / 'target').mkdir()
  _AsNobody(f'ln -s {shared_dir}/target {shared_dir}/theirs')
  mine = shared_dir.parent / f'pkbatklink{os.getpid()}'
  mine.symlink_to(shared_dir / 'theirs')
  try:
    problem = trusted_paths.PathProblem(mine / 'results')
    assert f'{shared_dir}/theirs is a symbolic link of nobody' in problem
  finally:
    mine.unlink()


def test_dot_dot_after_a_link_is_checked_where_the_kernel_goes(shared_dir):
  """`link/../x` is x beside the link's target, not beside the link."""
  _AsNobody(f'mkdir -p {shared_dir}/theirs/sub')
  link = shared_dir.parent / f'pkbatkdots{os.getpid()}'
  link.symlink_to(shared_dir / 'theirs' / 'sub')
  try:
    assert 'belongs to nobody' in trusted_paths.PathProblem(f'{link}/../x')
  finally:
    link.unlink()


def test_a_results_dir_made_by_another_user_meanwhile_is_refused(
    monkeypatch, shared_dir
):
  """Between the check and the mkdir another user makes the directory."""
  results = shared_dir / 'results'
  make_dirs = trusted_paths.MakeDirs

  def Raced(path, *args, **kwargs):
    if path == results:
      _AsNobody(f'mkdir {results}')
    return make_dirs(path, *args, **kwargs)

  monkeypatch.setattr(trusted_paths, 'MakeDirs', Raced)
  with pytest.raises(PermissionError, match='belongs to nobody'):
    local_run._MakeResultsDir(results)  # pylint: disable=protected-access


def test_results_are_readable_by_the_sudo_user_whatever_the_umask(tmp_path):
  previous = os.umask(0o077)
  try:
    results = tmp_path / 'a' / 'results'
    local_run._MakeResultsDir(results)  # pylint: disable=protected-access
  finally:
    os.umask(previous)
  assert results.stat().st_mode & 0o777 == 0o755
  assert (tmp_path / 'a').stat().st_mode & 0o777 == 0o755


def test_a_group_of_the_owner_alone_may_write(tmp_path):
  """Ubuntu's umask 002 leaves a user's files writable by their own
  group; a group with other members (or another name) may not write."""
  path = tmp_path / 'checkout'
  path.mkdir()
  path.chmod(0o775)
  daemon = pwd.getpwnam('daemon')
  trusted = frozenset({0, daemon.pw_uid})
  # daemon's own group: named after it, with no other member.
  os.chown(path, daemon.pw_uid, daemon.pw_gid)
  assert trusted_paths.PathProblem(path, trusted) is None
  # nogroup is not daemon's own group (another name).
  os.chown(path, daemon.pw_uid, NOGROUP)
  assert 'can be written by group nogroup' in trusted_paths.PathProblem(
      path, trusted
  )


def test_only_this_users_ssh_clients_are_ended_by_a_teardown(tmp_path):
  marker = f'{tmp_path}/'
  theirs = subprocess.Popen([
      'setpriv',
      f'--reuid={NOBODY}',
      f'--regid={NOGROUP}',
      '--clear-groups',
      # An ssh-named process of another user naming the work directory.
      '/usr/bin/python3',
      '-c',
      (
          'import os, sys;'
          " os.execv('/bin/sh', ['ssh', '-c', 'sleep 300; true', sys.argv[1]])"
      ),
      marker,
  ])
  try:
    deadline = 50
    while deadline and processes.CommandLine(theirs.pid).split()[:1] != ['ssh']:
      deadline -= 1
      time.sleep(0.1)
    assert processes.CommandLine(theirs.pid).endswith(marker)
    assert theirs.pid not in cluster_state._SshProcessesOf(tmp_path)  # pylint: disable=protected-access
  finally:
    theirs.kill()
    theirs.wait()


def test_the_machines_take_keys_from_root_files_only(tmp_path):
  """No home is consulted for keys: a user of this host whose home the
  machines can see logs in nowhere."""
  etc = tmp_path / 'etc'
  (etc / 'ssh').mkdir(parents=True)
  host_machines.AuthorizeKeys(
      etc, 'ssh-ed25519 AAAA key\n', ('perfkit', 'root')
  )
  keys = etc / 'ssh' / 'keys'
  assert sorted(p.name for p in keys.iterdir()) == ['perfkit', 'root']
  assert {
      (p.stat().st_uid, p.stat().st_mode & 0o777) for p in keys.iterdir()
  } == {(0, 0o644)}


def _GrantByAcl(path, uid, default=False):
  """Lets user `uid` write `path` by a POSIX ACL entry, as `setfacl -m
  u:UID:rwx` does (with default: `setfacl -d -m`, what is made in it)."""
  undefined = 0xFFFFFFFF
  entries = (
      (0x01, 7, undefined),  # the owner
      (0x02, 7, uid),  # the named user
      (0x04, 5, undefined),  # the group
      (0x10, 7, undefined),  # the mask
      (0x20, 5, undefined),  # others
  )
  os.setxattr(
      path,
      'system.posix_acl_default' if default else 'system.posix_acl_access',
      struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *e) for e in entries),
  )


def test_write_granted_by_an_acl_counts_as_others_write(shared_dir):
  """The usual way a shared checkout is shared: an ACL, not the mode."""
  checkout = shared_dir / 'pkb'
  checkout.mkdir(mode=0o755)
  (checkout / 'pkb.py').write_text('')
  (checkout / 'pkb.py').chmod(0o644)
  _GrantByAcl(checkout / 'pkb.py', NOBODY)
  _AsNobody(f'echo planted >> {checkout}/pkb.py')
  assert 'pkb.py can be written by user nobody (its ACL' in (
      trusted_paths.TreeProblem(checkout)
  )
  # A results directory made under a default ACL takes it.
  shared = shared_dir / 'shared'
  shared.mkdir(mode=0o755)
  _GrantByAcl(shared, NOBODY, default=True)
  with pytest.raises(PermissionError, match='by user nobody .its default ACL'):
    # pylint: disable-next=protected-access
    local_run._MakeResultsDir(shared / 'results')
  assert not (shared / 'results').exists()


def test_a_group_that_is_another_accounts_primary_group_is_not_private(
    monkeypatch, tmp_path
):
  """Named after the owner and no member listed, but another account's
  primary group: its members may write."""
  path = tmp_path / 'checkout'
  path.mkdir()
  path.chmod(0o775)
  daemon = pwd.getpwnam('daemon')
  os.chown(path, daemon.pw_uid, daemon.pw_gid)
  trusted = frozenset({0, daemon.pw_uid})
  assert trusted_paths.PathProblem(path, trusted) is None
  other = pwd.struct_passwd(
      ('intruder', 'x', 4242, daemon.pw_gid, '', '/', '/bin/sh')
  )
  accounts = pwd.getpwall() + [other]
  monkeypatch.setattr(pwd, 'getpwall', lambda: accounts)
  assert 'can be written by group daemon' in trusted_paths.PathProblem(
      path, trusted
  )


def test_a_gitlink_is_checked_where_it_leads(shared_dir):
  """git, as root, reads the git directory a `.git` file names."""
  checkout = shared_dir / 'pkb'
  checkout.mkdir(mode=0o755)
  _AsNobody(
      f'mkdir {shared_dir}/theirs.git && touch {shared_dir}/theirs.git/config'
  )
  (checkout / '.git').write_text(f'gitdir: ../theirs.git\n')
  assert f'{shared_dir}/theirs.git belongs to nobody' in (
      trusted_paths.TreeProblem(checkout)
  )


def test_a_linked_directory_is_checked_inside(tmp_path):
  target = tmp_path / 'elsewhere'
  target.mkdir()
  os.chown(target, 0, 0)
  (target / 'module.py').write_text('')
  os.chown(target / 'module.py', NOBODY, NOGROUP)
  checkout = tmp_path / 'pkb'
  checkout.mkdir()
  (checkout / 'lib').symlink_to(target)
  assert 'module.py belongs to nobody' in trusted_paths.TreeProblem(checkout)


def test_a_sticky_directory_others_can_write_is_refused_inside_a_tree(
    tmp_path,
):
  """Sticky or not, others could add files root would then run."""
  checkout = tmp_path / 'pkb'
  (checkout / 'cache').mkdir(parents=True)
  (checkout / 'cache').chmod(0o1777)
  assert 'cache can be written by other users (mode 1777)' in (
      trusted_paths.TreeProblem(checkout)
  )


def test_directories_are_made_without_following_another_users_link(
    shared_dir, tmp_path
):
  """A link planted in a sticky directory on the way is never followed."""
  target = tmp_path / 'roots'
  target.mkdir()
  _AsNobody(f'ln -s {target} {shared_dir}/work')
  with pytest.raises(PermissionError, match='symbolic link in a directory'):
    trusted_paths.MakePrivateDir(shared_dir / 'work' / 'cluster')
  assert not (target / 'cluster').exists()
  # A link no other user could have put there is followed.
  mine = tmp_path / 'mine'
  mine.symlink_to(target)
  trusted_paths.MakeDirs(mine / 'a' / 'b')
  assert (target / 'a' / 'b').is_dir()


def test_host_accounts_named_like_the_machines_users_are_not_theirs(
    tmp_path,
):
  """A host account `perfkit` would get the login user's sudo, one named
  `cassandra` the database's files: the machines make their own."""
  etc = tmp_path / 'etc'
  etc.mkdir()
  (etc / 'passwd').write_text(
      'root:x:0:0::/root:/bin/bash\n'
      f'perfkit:x:{NOBODY}:{NOGROUP}::/home/perfkit:/bin/sh\n'
      'cassandra:x:4242:4242::/var/lib/cassandra:/bin/sh\n'
  )
  (etc / 'group').write_text(
      'root:x:0:\nsudo:x:27:perfkit,cassandra\ncassandra:x:4242:\n'
  )
  (etc / 'shadow').write_text('perfkit:$6$theirs:19000::::::\n')
  uid, gid = host_machines.PrivateEtc(etc, 'server-0', '10.200.0.10')
  users = {}
  for line in (etc / 'passwd').read_text().splitlines():
    name, _, user_id, group_id, _ = line.split(':', 4)
    # The first line of a name is the one the system takes.
    users.setdefault(name, (int(user_id), int(group_id)))
  assert users['perfkit'] == (uid, gid)
  assert uid not in (NOBODY, 4242) and users['cassandra'][0] not in (
      NOBODY,
      4242,
      uid,
  )
  with pytest.raises(KeyError):
    pwd.getpwuid(users['cassandra'][0])
  assert 'sudo:x:27:\n' in (etc / 'group').read_text()
  assert '$6$theirs' not in (etc / 'shadow').read_text()


def test_the_jar_fetch_reads_no_mvn_directory_above_the_cache(
    monkeypatch, shared_dir
):
  """Maven takes JVM options from the nearest `.mvn/` above its POM: one
  planted in a shared directory above the cache would run as root."""
  if not shutil.which('mvn'):
    pytest.skip('no mvn')
  agent = shared_dir / 'planted.jar'
  _AsNobody(
      f'mkdir {shared_dir}/.mvn && echo -javaagent:{agent} >'
      f' {shared_dir}/.mvn/jvm.config'
  )
  monkeypatch.chdir(shared_dir)
  # Offline: what Maven reads shows before it would download anything.
  command = cassandra_build.FetchCommand
  monkeypatch.setattr(
      cassandra_build,
      'FetchCommand',
      lambda *args: command(*args) + ['--offline'],
  )
  with pytest.raises(cassandra_build.CassandraBuildError) as error:
    cassandra_build.FetchJars('5.0.9', shared_dir / 'cache')
  assert 'planted.jar' not in str(error.value)
  assert 'offline' in str(error.value)


def test_the_report_is_written_before_the_single_hand_over(
    monkeypatch, tmp_path
):
  """Root writes nothing into results the sudo user already owns (a link
  they put there would lead root's write elsewhere)."""
  monkeypatch.setenv('SUDO_UID', str(NOBODY))
  monkeypatch.setenv('SUDO_GID', str(NOGROUP))
  monkeypatch.setattr(local_run, 'Problems', lambda *_: None)
  monkeypatch.setattr(local_run, '_FetchJars', lambda: tmp_path / 'lib')
  monkeypatch.setattr(host_checks, 'JarCacheProblem', lambda: None)

  def Build(run, _):
    # pylint: disable-next=protected-access
    config = run._Making(local_run.CONFIG_NAME)
    config.write_text('{}\n')
    return config

  def RunPkb(run, _, run_uri):
    """What pkb.py leaves: its run directory with its results."""
    run.state.run_uri = run_uri
    run._Making(cluster_state.PKB_DIR)  # pylint: disable=protected-access
    run_dir = cluster_state.RunDir(run.work_dir, run_uri)
    run_dir.mkdir(parents=True)
    (run_dir / 'perfkitbenchmarker_results.json').write_text('')
    run.pkb_code, run.pkb_ended = 0, True
    return 0, False

  owners = []
  report = local_run._Report  # pylint: disable=protected-access

  def Report(results, out_dir):
    owners.append(out_dir.stat().st_uid)
    return report(results, out_dir)

  # pylint: disable-next=protected-access
  monkeypatch.setattr(local_run._LocalRun, 'Build', Build)
  # pylint: disable-next=protected-access
  monkeypatch.setattr(local_run._LocalRun, 'RunPkb', RunPkb)
  monkeypatch.setattr(local_run, '_Report', Report)
  results = tmp_path / 'results'
  args, _ = local_run.ParseArgs(
      ['--work_dir', str(tmp_path / 'w'), '--results_dir', str(results)]
  )
  local_run._Run(args, [])  # pylint: disable=protected-access
  assert owners == [0]
  [kept] = results.iterdir()
  for path in (kept, kept / 'report.txt'):
    assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOGROUP)
  assert not (tmp_path / 'w').exists()


@pytest.fixture(name='served')
def _Served(tmp_path):
  """A directory the mirror serves, holding `file`."""
  served = tmp_path / 'served'
  served.mkdir()
  (served / 'file').write_text('payload')
  return served


@contextlib.contextmanager
def _Mirror(served, **kwargs):
  """The mirror's server on 127.0.0.1; yields its port."""
  with socket.socket() as sock:
    sock.bind(('127.0.0.1', 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    server = mirror_server.Start(sock, served, **kwargs)
  try:
    # Connections wait in the socket's queue until the server takes them.
    yield port
  finally:
    server.kill()
    server.wait()


def _Fetch(port, source='127.0.0.1'):
  """GET /file from `source`; the body, or the error."""
  connection = http.client.HTTPConnection(
      '127.0.0.1', port, timeout=60, source_address=(source, 0)
  )
  try:
    connection.request('GET', '/file')
    return connection.getresponse().read()
  except OSError as e:
    return e
  finally:
    connection.close()


def test_the_mirror_serves_its_clients_only(served):
  """On the bridge, another user of this host connects from the host's
  own address: only the machines' addresses are served."""
  with _Mirror(served, clients=['127.0.0.3']) as port:
    assert _Fetch(port, '127.0.0.3') == b'payload'
    assert isinstance(_Fetch(port, '127.0.0.2'), ConnectionError)


# Another user's connections to the mirror, held open and idle; prints how
# many once all are made.
_IDLE_CONNECTIONS = """
import socket, sys, time
held = []
for _ in range(1100):
  s = socket.socket()
  s.settimeout(0.5)
  try:
    s.connect(('127.0.0.1', int(sys.argv[1])))
  except OSError:
    pass
  held.append(s)
print(len(held), flush=True)
time.sleep(300)
"""


def test_idle_connections_do_not_starve_the_mirror(served):
  """1,100 idle connections, with the usual limit of 1024 open files."""
  hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
  with _Mirror(
      served,
      clients=['127.0.0.1'],
      preexec_fn=lambda: resource.setrlimit(
          resource.RLIMIT_NOFILE, (1024, hard)
      ),
  ) as port:
    assert _Fetch(port) == b'payload'
    attacker = subprocess.Popen(
        [
            'setpriv',
            f'--reuid={NOBODY}',
            f'--regid={NOGROUP}',
            '--clear-groups',
            '/usr/bin/python3',
            '-I',
            '-c',
            _IDLE_CONNECTIONS,
            str(port),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
      assert attacker.stdout.readline() == '1100\n'
      assert _Fetch(port) == b'payload'
    finally:
      attacker.kill()
      attacker.wait()
      attacker.stdout.close()
