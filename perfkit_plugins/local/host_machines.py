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

"""Several real machines on this host, for stock pkb.py as static VMs.

Each machine is a Linux network namespace (its own address on a bridge made
here, its own loopback) and a mount namespace with its own /tmp, /root,
/opt/pkb, data disk at DATA_MOUNT and package manager state, running its
own sshd with key-only root login. Everything else (/usr, the JDKs, the
installed packages) is the host's, so an `apt-get install` of a package the
host has succeeds inside without a network. The host serves files to the
machines over HTTP on the bridge address (`StartMirror`). The machines have
no route beyond the bridge, so whatever tries the internet (apt-get update)
fails at once instead of waiting for a timeout.

Every interface and namespace is named after one tag (`<tag>` the bridge,
`<tag>-<i>` the namespaces, `<tag>v<i>` the host ends of their links); the
tag is unique per owner, and each set's /24 is one no address or route of
this host is in, chosen under a lock, so sets of several owners coexist.
Every process is started and stopped by its PID: sshd is the process
started in each machine; whatever runs over ssh lives in the machine's
network namespace and `Destroy` ends it by the PIDs `ip netns pids` lists,
then removes the namespaces, the links, the bridge and the directory.

Private-system machines (`HostMachines(system_machines=...)`), for what
installs system packages and runs them as services (the ScyllaDB engine),
have more of their own: a copy-on-write view of the host's /usr, /opt and
/var (an overlay in their mount namespace, its changes in their directory),
their own /run, a read-only root directory (whatever they write elsewhere
fails rather than reaching the host), a disk of their own (a sparse file on
a loop device, at DISK_PATH) and systemctl and journalctl that act as
systemd would (systemd_standin: no systemd runs in them). Nothing such a
machine installs or writes changes the host's files; what is not a file
is still shared: the kernel's settings (/proc/sys, /sys, IRQ affinities),
/dev and /dev/shm. `Destroy` detaches their loop devices, found by their
backing files (so also those of a set whose owner died unrecorded).

Needs root, iproute2, util-linux (unshare, nsenter) and openssh-server;
private-system machines also overlayfs, loop devices and SYSTEM_TOOLS.
"""

import contextlib
import dataclasses
import fcntl
import http.client
import ipaddress
import grp
import os
import pathlib
import posixpath
import pwd
import shlex
import shutil
import socket
import stat
import subprocess
import time
import zlib

from perfkit_plugins.local import mirror_server
from perfkit_plugins.local import processes
from perfkit_plugins.local import systemd_standin
from perfkit_plugins.local import trusted_paths

# Where each machine's data disk is mounted (a directory of the set, bound
# over a tmpfs on /mnt inside the machine).
DATA_MOUNT = '/mnt/data'
# The user PKB logs in as, as on a cloud image: unprivileged, with
# passwordless sudo. It exists in the machines only (each has a private
# copy of this host's /etc), with a UID no user of this host has.
LOGIN_USER = 'perfkit'
_FIRST_LOGIN_UID = 2000
# The machines' own users, {name: (home, shell)}: the login user, and the
# user the Cassandra engine runs its database as (it makes one only where
# `id -u cassandra` finds none). Made in each machine's /etc (PrivateEtc)
# in place of any host account of their names.
MACHINE_USERS = {
    LOGIN_USER: (f'/home/{LOGIN_USER}', '/bin/bash'),
    'cassandra': (DATA_MOUNT, '/usr/sbin/nologin'),
}
# Names no host account keeps in a machine: its users, and the user
# ScyllaDB's packages make there (their maintainer scripts take an
# existing one as theirs).
_MACHINE_ONLY_NAMES = frozenset(MACHINE_USERS) | {'scylla'}
# Package manager state each machine gets a private copy of: concurrent
# installs on several machines then never wait for one lock, and nothing a
# machine does changes the host's package database. The copies hold no
# package lists, so a machine knows exactly the packages the host has
# installed: installing one of them is a no-op (never an upgrade it could
# not download), any other is not found at once.
PRIVATE_STATE = ('/var/lib/dpkg', '/var/lib/apt', '/var/cache/apt')
# The directories of those kept empty (package lists and their caches).
EMPTIED = ('/var/lib/apt/lists', '/var/cache/apt')
REQUIRED_TOOLS = ('ip', 'unshare', 'nsenter', 'ssh', 'ssh-keygen', 'sshd')
SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin'
SSH_OPTIONS = (
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    'BatchMode=yes',
)
# Held while a set picks its /24 and puts it on its bridge: two sets made
# at once never pick the same one. In a directory only root can enter, so
# no other user can hold it or put a link in its place.
NETWORK_LOCK_DIR = pathlib.Path('/run/perfkit_plugins')
NETWORK_LOCK_NAME = 'networks.lock'
# The /24s a set may use: 10.200.0.0/24 to 10.249.249.0/24.
_SUBNETS = tuple(
    f'10.{second}.{third}.0/24'
    for second in range(200, 250)
    for third in range(250)
)
# Linux interface names hold at most 15 characters.
_MAX_INTERFACE_NAME = 15
# First host number of the machines in their /24 (.1 is the host's).
_FIRST_MACHINE = 10
MAX_MACHINES = 200
# The host's trees a private-system machine sees copy-on-write.
SYSTEM_TREES = ('/usr', '/opt', '/var')
# Where a private-system machine sees its disk: a link to its loop device,
# the same path on every machine.
DISK_PATH = '/mnt/disks/disk0'
# Every machine's network interface (a veth: no default route beyond the
# bridge, and no device perftune could tune).
NIC = 'eth0'
# A sparse file: what XFS and the database write is what it takes. ScyllaDB's
# scylla_io_setup refuses a data file system with less than 10 GB free
# (dist/common/scripts/scylla_io_setup:180-187).
DEFAULT_DISK_SIZE = 12 << 30
# What private-system machines need of this host, with its Debian package:
# the loop devices, and what ScyllaDB's scripts run there and would try to
# install otherwise, which fails offline (scylla_raid_setup:218-222 and
# :377-380, scylla_cpuscaling_setup:46-49; hwloc-calc: scylla_prepare:76).
SYSTEM_TOOLS = {
    'losetup': 'util-linux',
    'mkfs.xfs': 'xfsprogs',
    'mdadm': 'mdadm',
    'udevadm': 'udev',
    'update-initramfs': 'initramfs-tools',
    'cpufreq-set': 'cpufrequtils',
    'hwloc-calc': 'hwloc',
}
# The interpreter of the systemd stand-in inside the machines (the host's).
STANDIN_PYTHON = '/usr/bin/python3'
STANDIN_PROGRAMS = ('systemctl', 'journalctl')
# Where a private-system machine's start script first sees the machine's
# directory: the host's path of it may be under an overlaid tree.
_STAGING = '/mnt'
# Where it builds the machine's /mnt before moving it there.
_NEW_MNT = '/run/mnt'


class HostMachinesError(Exception):
  """The machines could not be built or reached."""


def Problem():
  """Why no machines can be built here, or None when they can."""
  if os.geteuid() != 0:
    return (
        'needs root: the machines are network and mount namespaces of this'
        ' host (run it with sudo)'
    )
  missing = [
      tool
      for tool in REQUIRED_TOOLS
      if not shutil.which(tool, path=SYSTEM_PATH)
  ]
  if missing:
    return (
        f'needs {", ".join(missing)} to make machines of namespaces (Debian'
        ' and Ubuntu: apt-get install iproute2 util-linux openssh-client'
        ' openssh-server)'
    )
  return None


def SystemProblem():
  """Why no private-system machines can be built here, or None."""
  problem = Problem()
  if problem:
    return problem
  missing = [
      package
      for tool, package in SYSTEM_TOOLS.items()
      if not shutil.which(tool, path=SYSTEM_PATH)
  ]
  if not os.access(STANDIN_PYTHON, os.X_OK):
    missing.append('python3')
  if missing:
    return (
        'private-system machines need apt-get install'
        f' {" ".join(sorted(set(missing)))}'
    )
  with open('/proc/filesystems') as f:
    if 'overlay' not in f.read().split():
      return 'private-system machines need overlayfs (modprobe overlay)'
  if not os.path.exists('/dev/loop-control'):
    return 'private-system machines need loop devices (modprobe loop)'
  return None


def _Run(*args, check=True, **kwargs):
  return subprocess.run(
      args, check=check, capture_output=True, text=True, **kwargs
  )


def _Known(uid):
  """Whether this host's name services know `uid` as a user or group id."""
  for lookup in (pwd.getpwuid, grp.getgrgid):
    try:
      lookup(uid)
      return True
    except KeyError:
      pass
  return False


def _FreeUid(passwd_text, group_text, first=_FIRST_LOGIN_UID):
  """The first id from `first` that no user or group has.

  Neither in the machine's files nor in this host's name services (a
  directory service's user with that id could reach the login user's
  files and processes).
  """
  taken = set()
  for text in (passwd_text, group_text):
    for line in text.splitlines():
      fields = line.split(':')
      if len(fields) > 2 and fields[2].isdigit():
        taken.add(int(fields[2]))
  uid = first
  while uid in taken or _Known(uid):
    uid += 1
  return uid


# The fields of /etc files listing users, from which on (a group's
# members; gshadow's administrators and members).
_MEMBER_FIELDS = {'passwd': None, 'shadow': None, 'group': 3, 'gshadow': 2}


def _WithoutUsers(text, names, members_from):
  """An /etc file's text without the users `names`.

  Their lines go, and so do they from the lists of users in the fields
  from `members_from` on (None: the file has none).
  """
  kept = []
  for line in text.splitlines():
    fields = line.split(':')
    if fields[0] in names:
      continue
    if members_from is not None:
      fields[members_from:] = [
          ','.join(m for m in field.split(',') if m not in names)
          for field in fields[members_from:]
      ]
    kept.append(':'.join(fields) + '\n')
  return ''.join(kept)


def PrivateEtc(etc_dir, machine_name, address):
  """Fills `etc_dir`, a copy of this host's /etc, for one machine.

  Its own name and hosts, no name server (a lookup fails at once), and
  the machines' own users (MACHINE_USERS), whatever this host has of
  those names: LOGIN_USER, a user and group of their own (home
  /home/LOGIN_USER) with passwordless sudo, and the database's user, each
  with an id no user or group of this host has. A host account named
  like them (or like ScyllaDB's `scylla`) is dropped from the copy, and
  from its groups: it would otherwise be theirs in the machine (the login
  user's sudo, the database's files). Their key: AuthorizeKeys.

  Returns:
    (uid, gid) of LOGIN_USER.
  """
  etc_dir = pathlib.Path(etc_dir)
  for name, members_from in _MEMBER_FIELDS.items():
    path = etc_dir / name
    if path.exists():
      path.write_text(
          _WithoutUsers(path.read_text(), _MACHINE_ONLY_NAMES, members_from)
      )
  ids = {}
  for user, (home, shell) in MACHINE_USERS.items():
    ids[user] = _FreeUid(
        (etc_dir / 'passwd').read_text(), (etc_dir / 'group').read_text()
    )
    uid = ids[user]
    for name, line in (
        ('passwd', f'{user}:x:{uid}:{uid}::{home}:{shell}'),
        ('group', f'{user}:x:{uid}:'),
        # '*': no password, and not a locked account (sshd refuses those).
        ('shadow', f'{user}:*:19000:0:99999:7:::'),
        ('gshadow', f'{user}:!::'),
    ):
      path = etc_dir / name
      if path.exists():
        with open(path, 'a') as f:
          f.write(line + '\n')
  sudoers = etc_dir / 'sudoers.d' / LOGIN_USER
  sudoers.parent.mkdir(exist_ok=True)
  sudoers.write_text(f'{LOGIN_USER} ALL=(ALL:ALL) NOPASSWD:ALL\n')
  sudoers.chmod(0o440)
  for name, text in (
      ('resolv.conf', 'nameserver 127.0.0.1\n'),
      # Its own name resolves (sudo complains, and mails root, otherwise).
      ('hosts', f'127.0.0.1 localhost\n{address} {machine_name}\n'),
      ('hostname', f'{machine_name}\n'),
  ):
    path = etc_dir / name
    if path.is_symlink() or path.exists():
      path.unlink()
    path.write_text(text)
    path.chmod(0o644)
  return ids[LOGIN_USER], ids[LOGIN_USER]


def AuthorizeKeys(etc_dir, public_key, users):
  """The keys sshd takes for each of `users`: <etc>/ssh/keys/<user>.

  Root's files in the machine's own /etc, which sshd reads by an absolute
  path (AuthorizedKeysFile): no user's home is ever consulted, so a user
  of this host with keys in a home the machines can see logs in nowhere.
  """
  keys_dir = pathlib.Path(etc_dir) / 'ssh' / 'keys'
  keys_dir.mkdir(parents=True, exist_ok=True)
  keys_dir.chmod(0o755)
  for user in users:
    path = keys_dir / user
    path.write_text(public_key)
    path.chmod(0o644)


def _CopyOwnerAndMode(source, target):
  info = os.stat(source)
  os.chown(target, info.st_uid, info.st_gid)
  os.chmod(target, stat.S_IMODE(info.st_mode))


def _Wait(predicate, timeout, what):
  deadline = time.monotonic() + timeout
  while not predicate():
    if time.monotonic() > deadline:
      raise HostMachinesError(f'timed out after {timeout} s waiting for {what}')
    time.sleep(0.1)


def _MountPointsOf(device):
  """This namespace's mount points of a block device, innermost first."""
  number = os.stat(device).st_rdev
  wanted = f'{os.major(number)}:{os.minor(number)}'
  return [
      point
      for device_number, point in reversed(systemd_standin.MountTable())
      if device_number == wanted
  ]


def NetnsNames():
  """The network namespaces of this host, by name."""
  out = _Run('ip', 'netns', 'list', check=False).stdout
  return [line.split()[0] for line in out.splitlines() if line.strip()]


def LinkNames():
  """The network interfaces of this host, by name (without `@peer`)."""
  out = _Run('ip', '-o', 'link', 'show', check=False).stdout
  return [
      line.split(':')[1].strip().split('@')[0]
      for line in out.splitlines()
      if line.count(':') >= 2
  ]


def _UsedNetworks():
  """Every IPv4 network this host has an address in or a route to."""
  used = []
  out = _Run('ip', '-o', '-4', 'addr', 'show', check=False).stdout
  for line in out.splitlines():
    words = line.split()
    if 'inet' in words:
      address = words[words.index('inet') + 1]
      used.append(ipaddress.ip_interface(address).network)
  routes = _Run('ip', '-4', 'route', 'show', 'table', 'all', check=False)
  for line in routes.stdout.splitlines():
    words = line.split()
    if words and words[0] in (
        'local',
        'broadcast',
        'unicast',
        'unreachable',
        'blackhole',
        'prohibit',
        'throw',
        'anycast',
        'multicast',
    ):
      words = words[1:]
    if not words or words[0] == 'default':
      continue
    try:
      network = ipaddress.ip_network(words[0], strict=False)
    except ValueError:
      continue
    if network.prefixlen:
      used.append(network)
  return used


def FreeSubnet(tag, used=None):
  """A /24 of _SUBNETS that overlaps no network in `used`.

  The search starts at a place derived from the tag, so sets of different
  owners usually differ at the first try.

  Args:
    tag: the set's tag.
    used: networks in use; default this host's (_UsedNetworks).

  Raises:
    HostMachinesError: every candidate is in use.
  """
  used = _UsedNetworks() if used is None else used
  start = zlib.crc32(tag.encode()) % len(_SUBNETS)
  for i in range(len(_SUBNETS)):
    candidate = ipaddress.ip_network(_SUBNETS[(start + i) % len(_SUBNETS)])
    if not any(candidate.overlaps(network) for network in used):
      return candidate
  raise HostMachinesError('no free /24 in 10.200.0.0-10.249.249.0')


@contextlib.contextmanager
def _NetworkLock():
  """Holds the network lock, in a root-only directory made if missing."""
  try:
    trusted_paths.EnsurePrivateDir(NETWORK_LOCK_DIR)
  except PermissionError as e:
    raise HostMachinesError(f'the network lock: {e}') from e
  fd = os.open(
      NETWORK_LOCK_DIR / NETWORK_LOCK_NAME,
      os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW,
      0o600,
  )
  try:
    fcntl.flock(fd, fcntl.LOCK_EX)
    yield
  finally:
    os.close(fd)


@dataclasses.dataclass
class Machine:
  """One machine.

  Attributes:
    name: its hostname.
    netns: its network namespace.
    address: its address on the bridge (and its internal IP).
    directory: host directory holding its private directories.
    sshd_pid: the PID of its sshd; the machine's namespaces are that
      process's.
    system: whether it is a private-system machine (see the module doc).
    loop_device: the host's loop device of its disk (DISK_PATH inside),
      once made; private-system machines only.
  """

  name: str
  netns: str
  address: str
  directory: pathlib.Path
  sshd_pid: int = 0
  system: bool = False
  loop_device: str = ''

  @property
  def data_dir(self):
    """The host directory behind DATA_MOUNT inside the machine."""
    return self.directory / 'data'

  @property
  def system_dir(self):
    """The host directory of its overlays' changes (private system only)."""
    return self.directory / 'system'

  @property
  def disk_image(self):
    """The sparse file behind its disk (private system only)."""
    return self.directory / 'disk0.img'

  def Pids(self):
    """PIDs of every process in the machine's network namespace."""
    out = _Run('ip', 'netns', 'pids', self.netns, check=False).stdout
    return [int(pid) for pid in out.split()]

  def Processes(self):
    """{pid: command line} of the machine's processes, sshd excluded."""
    found = {}
    for pid in self.Pids():
      if pid == self.sshd_pid:
        continue
      command = processes.CommandLine(pid)
      if not command or command.startswith('sshd:'):
        continue
      found[pid] = command
    return found

  def SetLink(self, up):
    """Brings the machine's network link up or down (it vanishes)."""
    _Run('ip', '-n', self.netns, 'link', 'set', NIC, 'up' if up else 'down')

  def Signal(self, pid, sig):
    """Sends a signal to one of the machine's processes, by PID."""
    if pid not in self.Pids():
      raise HostMachinesError(f'{pid} is not a process of {self.name}')
    os.kill(pid, sig)

  def Enter(self, command, check=True, timeout=60):
    """Runs a shell command inside the machine's namespaces (as root)."""
    return _Run(
        'nsenter',
        '-t',
        str(self.sshd_pid),
        '-n',
        '-m',
        '-u',
        'sh',
        '-c',
        command,
        check=check,
        timeout=timeout,
    )


class HostMachines:
  """A bridge, its machines and (optionally) a mirror on the host.

  Attributes:
    tag: names the bridge, namespaces and links; unique per owner.
    root: host directory of the set (root/tag).
    bridge: the bridge's interface name.
    subnet: its /24 (chosen by Create unless given).
    host_address: the host's address on the bridge (the mirror's).
    key_path: the private key every machine accepts for root.
    machines: Machine by name, in creation order.
    os_type: PKB's os_type of the machines (the host's OS).
    mirror: the mirror server's processes.Process, once started.
    mirror_url: base URL of the mirror, once started.
    disk_size: bytes of each private-system machine's disk.
  """

  machine_class = Machine

  def __init__(
      self,
      names,
      root,
      tag,
      subnet=None,
      os_type='debian12',
      system_machines=(),
      disk_size=DEFAULT_DISK_SIZE,
  ):
    """Describes a set of machines; Create() builds it.

    Args:
      names: machine names (hostnames), at most MAX_MACHINES.
      root: host directory under which the set's directory is made (never
        under /tmp: each machine mounts its own /tmp).
      tag: a name no other set on this host uses (letters and digits).
      subnet: an IPv4 /24 to use; default a free one (FreeSubnet).
      os_type: PKB's os_type of the host's OS.
      system_machines: names of the machines that are private-system
        machines (see the module doc).
      disk_size: bytes of each private-system machine's disk (sparse: the
        host's disk holds what is written).

    Raises:
      HostMachinesError: too many machines, a private-system machine not
        among them, or a tag too long for the interface names.
    """
    names = tuple(names)
    if len(names) > MAX_MACHINES:
      raise HostMachinesError(f'{len(names)} machines: at most {MAX_MACHINES}')
    unknown = sorted(set(system_machines) - set(names))
    if unknown:
      raise HostMachinesError(
          f'private-system machines {", ".join(unknown)} are not among'
          f' {", ".join(names)}'
      )
    longest = f'{tag}v{max(len(names) - 1, 0)}'
    if len(longest) > _MAX_INTERFACE_NAME:
      raise HostMachinesError(
          f'interface name {longest} is longer than {_MAX_INTERFACE_NAME}'
      )
    self.tag = tag
    self.root = pathlib.Path(root) / tag
    self.bridge = tag
    self.subnet = ipaddress.ip_network(subnet) if subnet else None
    self.host_address = None
    self.key_path = self.root / 'id_ed25519'
    self.os_type = os_type
    self.machines = {
        name: self.machine_class(
            name=name,
            netns=f'{tag}-{index}',
            address='',
            directory=self.root / name,
            system=name in system_machines,
        )
        for index, name in enumerate(names)
    }
    self.disk_size = disk_size
    self.mirror = None
    self.mirror_url = None
    self._mirror_process = None
    self._sshd_processes = []
    if self.subnet is not None:
      self._Address(self.subnet)

  def _Address(self, subnet):
    hosts = list(subnet.hosts())
    self.subnet = subnet
    self.host_address = str(hosts[0])
    for index, machine in enumerate(self.machines.values()):
      machine.address = str(hosts[_FIRST_MACHINE + index])

  @property
  def prefix_length(self):
    return self.subnet.prefixlen

  def Record(self):
    """What Destroy needs to remove the set from another process (JSON)."""
    return {
        'tag': self.tag,
        'root': str(self.root.parent),
        'subnet': str(self.subnet) if self.subnet else None,
        'os_type': self.os_type,
        'disk_size': self.disk_size,
        'machines': {
            name: {
                'netns': m.netns,
                'sshd_pid': m.sshd_pid,
                'system': m.system,
                'loop_device': m.loop_device,
            }
            for name, m in self.machines.items()
        },
        'mirror': self.mirror.AsList() if self.mirror else None,
        'mirror_url': self.mirror_url,
    }

  @classmethod
  def FromRecord(cls, record):
    """The set a Record describes (made by this or another process)."""
    machines = cls(
        record['machines'],
        record['root'],
        record['tag'],
        subnet=record['subnet'],
        os_type=record['os_type'],
        system_machines=[
            name
            for name, entry in record['machines'].items()
            if entry.get('system')
        ],
        disk_size=record.get('disk_size', DEFAULT_DISK_SIZE),
    )
    for name, entry in record['machines'].items():
      machines.machines[name].netns = entry['netns']
      machines.machines[name].sshd_pid = entry['sshd_pid']
      machines.machines[name].loop_device = entry.get('loop_device', '')
    if record.get('mirror'):
      machines.mirror = processes.Process.FromList(record['mirror'])
    machines.mirror_url = record.get('mirror_url')
    return machines

  def HostProblem(self):
    """Why this host cannot have these machines, or None when it can.

    Private-system machines keep their overlays' upper layers under the
    set's root, which overlayfs refuses on an overlay (a container's root
    file system, say).
    """
    if not any(m.system for m in self.machines.values()):
      return Problem()
    problem = SystemProblem()
    if problem:
      return problem
    existing = self.root
    while not existing.exists():
      existing = existing.parent
    kind = _Run('findmnt', '-n', '-o', 'FSTYPE', '-T', str(existing)).stdout
    if kind.strip() == 'overlay':
      return (
          'private-system machines cannot keep their changes under'
          f' {self.root}, on overlayfs: make the set under another file'
          ' system (ext4, xfs, tmpfs)'
      )
    return None

  def Create(self):
    """Builds the bridge and every machine and waits for their sshd.

    Raises:
      HostMachinesError: this host cannot have these machines
        (HostProblem), the tag is taken, or a machine's sshd does not
        answer.
    """
    problem = self.HostProblem()
    if problem:
      raise HostMachinesError(problem)
    if self.root.exists():
      shutil.rmtree(self.root)
    # Only root enters it: the machines' /opt/pkb, /tmp and data are in it,
    # and PKB makes /opt/pkb writable by everyone inside a machine.
    trusted_paths.MakeDirs(self.root.parent)
    self.root.mkdir(mode=0o700)
    self.root.chmod(0o700)
    _Run(
        'ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(self.key_path)
    )
    public_key = self.key_path.with_suffix('.pub').read_text()
    pathlib.Path('/run/sshd').mkdir(exist_ok=True)
    with _NetworkLock():
      taken = [
          name
          for name in NetnsNames() + LinkNames()
          if name == self.tag
          or name.startswith((f'{self.tag}-', f'{self.tag}v'))
      ]
      if taken:
        raise HostMachinesError(
            f'{", ".join(taken)} already exist(s): another set uses the tag'
            f' {self.tag}'
        )
      if self.host_address is None:
        self._Address(FreeSubnet(self.tag))
      _Run('ip', 'link', 'add', self.bridge, 'type', 'bridge')
      _Run(
          'ip',
          'addr',
          'add',
          f'{self.host_address}/{self.prefix_length}',
          'dev',
          self.bridge,
      )
    _Run('ip', 'link', 'set', self.bridge, 'up')
    for index, machine in enumerate(self.machines.values()):
      self._CreateMachine(index, machine, public_key)
    for machine in self.machines.values():
      _Wait(
          lambda m=machine: self._SshAnswers(m),
          30,
          f'sshd on {machine.name} ({machine.address})',
      )
    return self

  def _CreateMachine(self, index, machine, public_key):
    """Its directories, /etc, namespace, link and address; starts its sshd.

    PKB logs in as LOGIN_USER; the set's owner (tests, fault injection) may
    log in as root with the same key.
    """
    d = machine.directory
    for sub in ('tmp', 'root', 'opt-pkb', 'data', 'home'):
      (d / sub).mkdir(parents=True)
    # Explicit modes: the owner may run with a umask of 077.
    for name, mode in (
        ('tmp', 0o1777),
        ('root', 0o700),
        ('opt-pkb', 0o755),
        ('data', 0o755),
        ('home', 0o755),
    ):
      (d / name).chmod(mode)
    shutil.copytree('/etc', d / 'etc', symlinks=True)
    login = PrivateEtc(d / 'etc', machine.name, machine.address)
    home = d / 'home' / LOGIN_USER
    home.mkdir()
    os.chown(home, *login)
    AuthorizeKeys(d / 'etc', public_key, (LOGIN_USER, 'root'))
    for path in PRIVATE_STATE:
      if os.path.isdir(path):
        shutil.copytree(
            path,
            d / 'state' / path.strip('/'),
            symlinks=True,
            ignore=lambda directory, _: (
                os.listdir(directory) if directory in EMPTIED else ()
            ),
        )
    for path in EMPTIED:
      (d / 'state' / path.strip('/') / 'partial').mkdir(
          parents=True, exist_ok=True
      )
      (d / 'state' / path.strip('/') / 'archives' / 'partial').mkdir(
          parents=True, exist_ok=True
      )
    if machine.system:
      self._PrepareSystem(machine)
    veth = f'{self.tag}v{index}'
    _Run('ip', 'netns', 'add', machine.netns)
    _Run(
        'ip',
        'link',
        'add',
        veth,
        'type',
        'veth',
        'peer',
        'name',
        NIC,
        'netns',
        machine.netns,
    )
    _Run('ip', 'link', 'set', veth, 'master', self.bridge, 'up')
    ns = ('ip', '-n', machine.netns)
    _Run(
        *ns,
        'addr',
        'add',
        f'{machine.address}/{self.prefix_length}',
        'dev',
        NIC,
    )
    _Run(*ns, 'link', 'set', NIC, 'up')
    _Run(*ns, 'link', 'set', 'lo', 'up')
    host_key = d / 'ssh_host_ed25519_key'
    _Run('ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(host_key))
    config = d / 'sshd_config'
    config.write_text(
        f'ListenAddress {machine.address}\n'
        f'HostKey {host_key}\n'
        'AuthorizedKeysFile /etc/ssh/keys/%u\n'
        f'AllowUsers {LOGIN_USER} root\n'
        'DisableForwarding yes\n'
        'PermitRootLogin prohibit-password\n'
        'PasswordAuthentication no\n'
        'KbdInteractiveAuthentication no\n'
        'UsePAM no\n'
        'StrictModes yes\n'
        'MaxSessions 100\n'
        'Subsystem sftp internal-sftp\n'
        'MaxStartups 100\n'
        # A private-system machine's own /run, where nothing is the host's.
        f'PidFile {"/run/sshd.pid" if machine.system else d / "sshd.pid"}\n'
    )
    script = d / 'start.sh'
    script.write_text(self._StartScript(machine, config))
    with open(d / 'sshd.log', 'ab') as log, processes.StopSignalsHeld():
      # Ended by PID in Destroy, also when this process is gone.
      # pylint: disable-next=consider-using-with
      process = subprocess.Popen(
          [
              'ip',
              'netns',
              'exec',
              machine.netns,
              'unshare',
              '--mount',
              '--uts',
              '--propagation',
              'private',
              'sh',
              str(script),
          ],
          stdin=subprocess.DEVNULL,
          stdout=log,
          stderr=subprocess.STDOUT,
          start_new_session=True,
          # A machine's usual umask, whatever its owner's: what is made
          # over ssh is read by the machine's other users (a database's).
          umask=0o022,
      )
      self._sshd_processes.append(process)
      # `ip netns exec`, `unshare` and `sh` all exec: the PID is sshd's.
      machine.sshd_pid = process.pid

  def _PrepareSystem(self, machine):
    """A private-system machine's overlay layers, stand-in and disk.

    The upper layer of an overlay gives the merged tree's top directory its
    owner and mode, so each takes the host's tree's; so does the upper /usr/bin
    that holds the systemd stand-in's programs (found there by sudo's
    secure_path). The disk is a sparse file of disk_size bytes on a loop
    device of this host, recorded in the machine.
    """
    for tree in SYSTEM_TREES:
      layer = machine.system_dir / tree.strip('/')
      for part in ('upper', 'work'):
        (layer / part).mkdir(parents=True)
      _CopyOwnerAndMode(tree, layer / 'upper')
    bin_dir = machine.system_dir / 'usr' / 'upper' / 'bin'
    bin_dir.mkdir()
    _CopyOwnerAndMode('/usr/bin', bin_dir)
    program = (
        f'#!{STANDIN_PYTHON} -I\n'
        + pathlib.Path(systemd_standin.__file__).read_text()
    )
    for name in STANDIN_PROGRAMS:
      (bin_dir / name).write_text(program)
      (bin_dir / name).chmod(0o755)
    with open(machine.disk_image, 'wb') as f:
      f.truncate(self.disk_size)
    machine.loop_device = _Run(
        'losetup', '--find', '--show', str(machine.disk_image)
    ).stdout.strip()

  @staticmethod
  def _StartScript(machine, config):
    """Mounts the machine's private directories, then becomes its sshd.

    /tmp is bound last: the set's own directories are never under it.

    A private-system machine first binds its directory on /mnt, so its
    layers and private directories are reached by a path no overlay hides
    (the set may live under /var); it overlays SYSTEM_TREES and mounts its
    own /run, binds its private directories over the overlays (dpkg's and
    apt's state, /opt/pkb), builds its /mnt (data, the disk's link) in
    /run and moves it over the staging bind, then makes the root directory
    read-only, and /proc/sys: the kernel's settings are the host's, and
    ScyllaDB's packages apply sysctl files as they install (they expect
    that to fail where virtualized: scylla-kernel-conf.postinst).
    """
    d = machine.directory
    lines = ['set -e', f'hostname {shlex.quote(machine.name)}']
    if machine.system:
      lines.append(f'mount --bind {shlex.quote(str(d))} {_STAGING}')
      d = pathlib.PurePosixPath(_STAGING)
      for tree in SYSTEM_TREES:
        layer = d / 'system' / tree.strip('/')
        lines.append(
            f'mount -t overlay overlay -o lowerdir={tree},upperdir='
            f'{layer / "upper"},workdir={layer / "work"} {tree}'
        )
      lines += [
          'mount -t tmpfs -o size=64m,mode=755 machine-run /run',
          'mkdir -m 755 /run/sshd',
          'mkdir -m 1777 /run/lock',
      ]
    # /etc first: its own users, sudoers, name and hosts.
    binds = [(d / 'etc', '/etc'), (d / 'home', '/home')]
    binds += [(d / 'root', '/root'), (d / 'opt-pkb', '/opt/pkb')]
    binds += [
        (d / 'state' / path.strip('/'), path)
        for path in PRIVATE_STATE
        if os.path.isdir(path)
    ]
    lines.append('mkdir -p /opt/pkb')
    for source, target in binds:
      lines.append(f'mount --bind {shlex.quote(str(source))} {target}')
    if machine.system:
      data = posixpath.join(_NEW_MNT, posixpath.relpath(DATA_MOUNT, '/mnt'))
      disk = posixpath.join(_NEW_MNT, posixpath.relpath(DISK_PATH, '/mnt'))
      lines += [
          f'mount --bind {d / "tmp"} /tmp',
          f'mkdir {_NEW_MNT}',
          f'mount -t tmpfs -o size=1m,mode=755 local-mnt {_NEW_MNT}',
          f'mkdir -p {data} {posixpath.dirname(disk)}',
          f'mount --bind {d / "data"} {data}',
          f'ln -s {shlex.quote(machine.loop_device)} {disk}',
          f'umount {_STAGING}',
          f'mount --move {_NEW_MNT} /mnt',
          f'rmdir {_NEW_MNT}',
          'mount -o remount,bind,ro /',
          'mount --bind /proc/sys /proc/sys',
          'mount -o remount,bind,ro /proc/sys',
      ]
    else:
      lines += [
          'mount -t tmpfs -o size=1m,mode=755 local-mnt /mnt',
          f'mkdir -p {DATA_MOUNT}',
          f'mount --bind {shlex.quote(str(d / "data"))} {DATA_MOUNT}',
          f'mount --bind {shlex.quote(str(d / "tmp"))} /tmp',
      ]
    lines.append(f'exec /usr/sbin/sshd -D -e -f {shlex.quote(str(config))}')
    return '\n'.join(lines) + '\n'

  def SshCommand(self, machine, command, user='root'):
    """The ssh command line that runs `command` on a machine as `user`.

    root, or LOGIN_USER as PKB logs in.
    """
    return [
        'ssh',
        *SSH_OPTIONS,
        '-i',
        str(self.key_path),
        f'{user}@{machine.address}',
        command,
    ]

  def _SshAnswers(self, machine):
    if not processes.Runs(machine.sshd_pid):
      log = (machine.directory / 'sshd.log').read_text(errors='replace')
      raise HostMachinesError(f'sshd of {machine.name} exited:\n{log}')
    result = _Run(*self.SshCommand(machine, 'true'), check=False, timeout=10)
    return result.returncode == 0

  def Ssh(self, name, command, check=True, timeout=120, user='root'):
    """Runs a command on a machine over ssh; returns the CompletedProcess."""
    return _Run(
        *self.SshCommand(self.machines[name], command, user=user),
        check=check,
        timeout=timeout,
    )

  def StartMirror(self, directory):
    """Serves `directory` over HTTP on the bridge address, to the machines.

    The socket is bound and listening before the server starts, which is
    handed it (perfkit_plugins.local.mirror_server): no other process can
    take the port in between. It serves the machines' addresses only: no
    other user of this host gets a file, or holds a connection. The server
    runs in a session of its own, from `/` in Python's isolated mode
    (nothing imported from the caller's directory or environment); a
    Ctrl-C in the terminal reaches the process that owns the set, which
    ends the server by PID. SIGINT, SIGTERM and SIGHUP wait while it
    starts, so it is recorded once started.

    Returns:
      The mirror's base URL (no trailing slash).
    """
    with socket.socket() as sock:
      sock.bind((self.host_address, 0))
      sock.listen(64)
      port = sock.getsockname()[1]
      with open(self.root / 'mirror.log', 'ab') as log:
        with processes.StopSignalsHeld():
          # Ended by PID in Destroy, also when this process is gone.
          self._mirror_process = mirror_server.Start(
              sock,
              directory,
              log,
              clients=[m.address for m in self.machines.values()],
              start_new_session=True,
          )
          self.mirror = processes.Of(self._mirror_process.pid)
    self.mirror_url = f'http://{self.host_address}:{port}'

    def Serves():
      if self._mirror_process.poll() is not None:
        raise HostMachinesError(
            f'the mirror exited: {(self.root / "mirror.log").read_text()}'
        )
      connection = http.client.HTTPConnection(
          self.host_address, port, timeout=1
      )
      try:
        connection.request('HEAD', '/')
        connection.getresponse()
      except TimeoutError:
        # Not accepted yet: the socket listens from before the server.
        return False
      except OSError:
        # Closed unanswered: the server runs and serves the machines
        # only, not this host's address.
        pass
      finally:
        connection.close()
      return True

    _Wait(Serves, 30, f'the mirror at {self.mirror_url}')
    return self.mirror_url

  def PkbConfig(self, servers, loaders, flags, data_mount=DATA_MOUNT):
    """A benchmark config whose groups are these machines as static VMs.

    Args:
      servers: machine names of the servers.
      loaders: machine names of the loaders.
      flags: the config's `flags:`.
      data_mount: the mount point the servers declare for their data disk:
        DATA_MOUNT, or the ScyllaDB engine's /var/lib/scylla, where
        --scylla_raid_devices builds the volume on DISK_PATH.

    Returns:
      The config as a dict, for YAML.
    """
    return {
        'scylla_phases': {
            'vm_groups': {
                'servers': {
                    'static_vms': [
                        self.StaticVm(
                            n, disk_specs=[{'mount_point': data_mount}]
                        )
                        for n in servers
                    ]
                },
                'loaders': {'static_vms': [self.StaticVm(n) for n in loaders]},
            },
            'flags': dict(flags),
        }
    }

  def StaticVm(self, name, **extra):
    """The `static_vms` entry of a PKB config for one machine."""
    machine = self.machines[name]
    return {
        'ip_address': machine.address,
        'internal_ip': machine.address,
        'user_name': LOGIN_USER,
        'ssh_private_key': str(self.key_path),
        'ssh_port': 22,
        'os_type': self.os_type,
        **extra,
    }

  def LoopDevices(self):
    """{device: backing file} of this host's loop devices on the set's files.

    Read from /sys/block/loop*/loop/backing_file: a device number alone
    (a record's) could be another's by now, the backing file says whose it
    is; and it finds the disks of a set whose owner died before recording
    them.
    """
    root = os.path.realpath(self.root)
    found = {}
    for path in sorted(pathlib.Path('/sys/block').glob('loop*/loop')):
      try:
        backing = (path / 'backing_file').read_text().strip()
      except OSError:
        continue
      backing = backing.removesuffix(' (deleted)')
      if backing.startswith(root + os.sep):
        found[f'/dev/{path.parent.name}'] = backing
    return found

  def _DetachDisks(self):
    """Unmounts the set's loop devices here and detaches them.

    The machines' own mounts of them went with their mount namespaces when
    their processes ended; a device still held is detached when it is let
    go (the kernel's lazy detach), waited for here a few seconds.
    """
    for device in self.LoopDevices():
      for mount_point in _MountPointsOf(device):
        _Run('umount', mount_point, check=False)
      _Run('losetup', '--detach', device, check=False)
    deadline = time.monotonic() + 10
    while self.LoopDevices() and time.monotonic() < deadline:
      time.sleep(0.1)

  def Destroy(self):
    """Ends every process by PID, removes namespaces, links and files.

    Safe to call on a set that is partly built or already gone.
    """
    for machine in self.machines.values():
      processes.EndPids(machine.Pids)
    if self.mirror is not None:
      processes.End(self.mirror)
    for process in self._sshd_processes + [self._mirror_process]:
      if process is not None:
        process.poll()  # Reaps it: it is ended above.
    self._DetachDisks()
    netns = set(NetnsNames())
    for machine in self.machines.values():
      if machine.netns in netns:
        _Run('ip', 'netns', 'del', machine.netns, check=False)
    links = set(LinkNames())
    for index in range(len(self.machines)):
      if f'{self.tag}v{index}' in links:
        _Run('ip', 'link', 'del', f'{self.tag}v{index}', check=False)
    if self.bridge in links:
      _Run('ip', 'link', 'del', self.bridge, check=False)
    shutil.rmtree(self.root, ignore_errors=True)

  def Leftovers(self):
    """What of the set still exists: namespaces, links, disks, directory."""
    left = [
        n for n in NetnsNames() if n == self.tag or n.startswith(f'{self.tag}-')
    ]
    left += [
        n for n in LinkNames() if n == self.tag or n.startswith(f'{self.tag}v')
    ]
    left += [f'{d} ({f})' for d, f in self.LoopDevices().items()]
    if self.root.exists():
      left.append(str(self.root))
    return left

  def __enter__(self):
    try:
      return self.Create()
    except BaseException:
      self.Destroy()
      raise

  def __exit__(self, *exc):
    self.Destroy()
