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

"""Private-system machines: their own system, their disk, their systemd.

One set made here with HostMachines (no PKB): `box`, a private-system
machine, and `plain`, one without. Commands run over ssh as PKB's login
user with sudo, as the ScyllaDB engine's do. The host must be left as it
was: nothing of what the machine installs or mounts, no loop device once
the set is destroyed.

The machines need root and what private-system machines need
(host_machines.SystemProblem): their tests are skipped with the reason
otherwise; those of the set's description run anywhere.
"""

import os
import pathlib
import shlex
import shutil
import time

import pytest

from perfkit_plugins.local import host_machines

TAG = f'pkbps{os.getpid() % 100000}'
# What the machine installs; the host must have none of it.
PLANTED = (
    f'/usr/bin/{TAG}-planted',
    f'/opt/{TAG}-planted',
    f'/var/lib/scylla/{TAG}-planted',
    '/var/lib/scylla',
    f'/etc/systemd/system/{TAG}.service',
)
# A Type=notify service: READY=1 after a second, then it waits for SIGTERM.
# Its output names the user it runs as and the arguments it was given.
NOTIFY_UNIT = """[Unit]
Description=Notifier {tag}

[Service]
Type=notify
User=nobody
EnvironmentFile=/etc/{tag}.d/*.conf
ExecStart=/usr/bin/python3 -c 'import os, pwd, socket, sys, time; \\
    print("as", pwd.getpwuid(os.getuid()).pw_name, sys.argv[1:], flush=True); \\
    time.sleep(1); \\
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto( \\
    b"READY=1", os.environ["NOTIFY_SOCKET"]); \\
    time.sleep(600)' $WORDS ${{WORDS}}
ExecStopPost=+/bin/sh -c 'echo stopped as $(id -un): $SERVICE_RESULT'

[Install]
WantedBy=multi-user.target
"""
# As ScyllaDB's scylla_raid_setup writes it.
MOUNT_UNIT = f"""[Unit]
Description=Scylla data directory
DefaultDependencies=no

[Mount]
What={host_machines.DISK_PATH}
Where=/var/lib/scylla
Type=xfs
Options=noatime,discard,lazytime

[Install]
WantedBy=local-fs.target
"""


def test_private_system_machines_must_be_among_the_machines():
  with pytest.raises(host_machines.HostMachinesError, match='not among'):
    host_machines.HostMachines(['a'], '/var/tmp', 'x', system_machines=['b'])


def test_a_private_system_machine_mounts_its_trees_under_its_binds():
  machines = host_machines.HostMachines(
      ['box', 'plain'], '/var/tmp/w', 'pkbps1', system_machines=['box']
  )
  box, plain = machines.machines['box'], machines.machines['plain']
  box.loop_device = '/dev/loop9'
  script = machines._StartScript(box, 'cfg')  # pylint: disable=protected-access
  lines = script.splitlines()

  def Index(start):
    (found,) = [i for i, line in enumerate(lines) if line.startswith(start)]
    return found

  # Its directory is staged first: the set lives under /var here.
  assert lines[2] == f'mount --bind {box.directory} /mnt'
  for tree in host_machines.SYSTEM_TREES:
    overlay = Index(f'mount -t overlay overlay -o lowerdir={tree},')
    assert overlay < Index('mount --bind /mnt/opt-pkb /opt/pkb')
    assert overlay < Index('mount --bind /mnt/state/var/lib/dpkg ')
  assert Index('ln -s /dev/loop9 /run/mnt/disks/disk0') < Index(
      'mount --move /run/mnt /mnt'
  )
  assert lines[-4:] == [
      'mount -o remount,bind,ro /',
      'mount --bind /proc/sys /proc/sys',
      'mount -o remount,bind,ro /proc/sys',
      'exec /usr/sbin/sshd -D -e -f cfg',
  ]
  # The other machines' scripts are as they were.
  plain_script = machines._StartScript(  # pylint: disable=protected-access
      plain, 'cfg'
  )
  assert 'overlay' not in plain_script and ' ro ' not in plain_script
  again = host_machines.HostMachines.FromRecord(machines.Record())
  assert [m.system for m in again.machines.values()] == [True, False]
  assert again.machines['box'].loop_device == '/dev/loop9'


@pytest.fixture(name='machines', scope='module')
def _Machines():
  problem = host_machines.SystemProblem()
  if problem:
    pytest.skip(f'private-system machines: {problem}')
  root = pathlib.Path(f'/var/tmp/{TAG}')
  machines = host_machines.HostMachines(
      ['box', 'plain'], root, TAG, system_machines=['box']
  )
  try:
    yield machines.Create()
  finally:
    machines.Destroy()
    shutil.rmtree(root, ignore_errors=True)


def _Login(machines, command, name='box'):
  """Runs a command as PKB's login user; its CompletedProcess."""
  return machines.Ssh(name, command, check=False, user=host_machines.LOGIN_USER)


def _HostHasNone(paths):
  present = [p for p in paths if os.path.lexists(p)]
  assert not present, present


def _Write(machines, path, text):
  result = _Login(
      machines,
      f'sudo mkdir -p {shlex.quote(os.path.dirname(path))} && echo'
      f' {shlex.quote(text)} | sudo tee {shlex.quote(path)} >/dev/null',
  )
  assert result.returncode == 0, result


def test_the_machine_installs_into_its_own_system(machines):
  _HostHasNone(PLANTED)
  result = _Login(
      machines,
      f'sudo touch {PLANTED[0]} {PLANTED[1]} && sudo mkdir {PLANTED[3]}'
      f' && sudo touch {PLANTED[2]} && ls {" ".join(PLANTED[:3])}',
  )
  assert result.returncode == 0, result
  _HostHasNone(PLANTED)
  # Its root directory is read-only: nothing lands on the host's; its own
  # directories are writable.
  result = _Login(
      machines,
      'touch /tmp/t ~/t && sudo touch /root/t /opt/pkb/t'
      f' {host_machines.DATA_MOUNT}/t',
  )
  assert result.returncode == 0, result
  result = _Login(machines, 'sudo touch /swapfile')
  assert 'Read-only file system' in result.stderr
  assert not os.path.lexists('/swapfile')
  # The kernel's settings are the host's: read-only there.
  swappiness = pathlib.Path('/proc/sys/vm/swappiness').read_text()
  result = _Login(machines, 'sudo sysctl -w vm.swappiness=7')
  assert result.returncode != 0
  assert pathlib.Path('/proc/sys/vm/swappiness').read_text() == swappiness
  mounts = _Login(
      machines,
      'for p in /usr /opt /var /run /var/lib/dpkg /opt/pkb; do'
      ' findmnt -n -o FSTYPE --mountpoint $p || echo none; done',
  ).stdout.split()
  assert mounts[:4] == ['overlay', 'overlay', 'overlay', 'tmpfs']
  # Its own package state and /opt/pkb are on top of the overlays.
  assert 'overlay' not in mounts[4:], mounts
  plain = _Login(machines, 'findmnt -n --mountpoint /usr || echo none', 'plain')
  assert plain.stdout == 'none\n'
  # The systemd stand-in is the private-system machine's alone.
  shebang = f'#!{host_machines.STANDIN_PYTHON} -I'
  head = f'head -c {len(shebang)} /usr/bin/systemctl | tr -c "[:print:]" .'
  assert _Login(machines, head).stdout == shebang
  assert _Login(machines, head, 'plain').stdout != shebang


def test_a_notify_service_runs_as_its_user_and_logs_to_the_journal(
    machines,
):
  _Write(machines, f'/etc/{TAG}.d/words.conf', 'WORDS="two words"')
  _Write(
      machines,
      f'/etc/systemd/system/{TAG}.service',
      NOTIFY_UNIT.format(tag=TAG),
  )
  started = time.monotonic()
  result = _Login(
      machines,
      f'sudo systemctl enable --now {TAG} && systemctl is-active {TAG}',
  )
  # The start returned once the service was ready, not before.
  assert time.monotonic() - started >= 1
  assert result.returncode == 0, result
  assert result.stdout == 'active\n'
  pid = _Login(machines, f'systemctl show -p MainPID --value {TAG}').stdout
  user = _Login(machines, f'ps -o user= -p {pid}').stdout.strip()
  assert user == 'nobody'
  # It outlives the login that started it.
  assert _Login(machines, f'systemctl is-active {TAG}').stdout == 'active\n'
  result = _Login(
      machines, f'sudo systemctl stop {TAG}; systemctl is-active {TAG}'
  )
  assert result.stdout == 'inactive\n'
  assert _Login(machines, f'ps -p {pid}').returncode != 0
  journal = _Login(
      machines, f'sudo journalctl -u {TAG} --no-pager -o short-precise'
  ).stdout
  assert f'box python3[{pid.strip()}]: as nobody' in journal
  assert "['two', 'words', 'two words']" in journal
  assert 'stopped as root: success' in journal
  assert journal.splitlines()[-1].endswith(f'Stopped Notifier {TAG}.')
  _HostHasNone(PLANTED[4:])


def test_a_mount_unit_mounts_the_disk_formatted_xfs(machines):
  box = machines.machines['box']
  assert os.path.realpath(box.loop_device) == box.loop_device
  link = _Login(machines, f'readlink {host_machines.DISK_PATH}').stdout
  assert link.strip() == box.loop_device
  result = _Login(
      machines,
      'sudo rm -rf /var/lib/scylla && sudo mkfs.xfs -K'
      f' {host_machines.DISK_PATH}',
  )
  assert result.returncode == 0, result
  _Write(machines, '/etc/systemd/system/var-lib-scylla.mount', MOUNT_UNIT)
  result = _Login(
      machines,
      'sudo systemctl daemon-reload && systemctl cat var-lib-scylla.mount'
      ' >/dev/null && sudo systemctl start var-lib-scylla.mount'
      ' && systemctl is-active var-lib-scylla.mount'
      ' && findmnt -n -o SOURCE,FSTYPE /var/lib/scylla'
      ' && echo data | sudo tee /var/lib/scylla/file',
  )
  assert result.returncode == 0, result
  assert result.stdout.split()[:3] == ['active', box.loop_device, 'xfs']
  # The host sees no mount of it.
  assert not host_machines._MountPointsOf(  # pylint: disable=protected-access
      box.loop_device
  )
  result = _Login(
      machines,
      'sudo systemctl disable --now var-lib-scylla.mount'
      ' && sudo rm -f /etc/systemd/system/var-lib-scylla.mount'
      ' && sudo systemctl daemon-reload && sudo mdadm --stop --scan'
      ' && systemctl is-active var-lib-scylla.mount',
  )
  assert result.stdout == 'inactive\n', result
  assert _Login(machines, 'findmnt /var/lib/scylla').returncode != 0


def test_the_record_names_the_private_system_machines_and_disks(machines):
  again = host_machines.HostMachines.FromRecord(machines.Record())
  box = machines.machines['box']
  assert again.machines['box'].system and not again.machines['plain'].system
  assert again.machines['box'].loop_device == box.loop_device
  assert again.disk_size == host_machines.DEFAULT_DISK_SIZE
  assert list(again.LoopDevices()) == [box.loop_device]


def test_a_stale_set_is_destroyed_disks_and_all(machines):
  # As testbed.RemoveStale rebuilds a set whose owner died: from its tag,
  # root and namespaces only, no record of its disks.
  stale = host_machines.HostMachines.FromRecord({
      'tag': TAG,
      'root': str(machines.root.parent),
      'subnet': None,
      'os_type': 'debian12',
      'machines': {
          m.netns: {'netns': m.netns, 'sshd_pid': 0}
          for m in machines.machines.values()
      },
  })
  stale.Destroy()
  assert not machines.Leftovers()
  assert not machines.LoopDevices()
  _HostHasNone(PLANTED)
