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

Each machine is a Linux network namespace (its own address on a bridge the
test bed makes, its own loopback) and a mount namespace with its own /tmp,
/root, /opt/pkb, data disk at DATA_MOUNT and package manager state, running
its own sshd with key-only root login. Everything else (/usr, the JDKs, the
installed packages) is the host's, so an `apt-get install` of a package the
host has succeeds inside without a network. The host serves files to the
machines over HTTP on the bridge address (`StartMirror`). The machines have
no route beyond the bridge, so whatever tries the internet (apt-get update)
fails at once instead of waiting for a timeout.

Every process is started and stopped by its PID: sshd is the process the
test bed starts in each machine; whatever runs over ssh lives in the
machine's network namespace and `Destroy` ends it by the PIDs `ip netns
pids` lists, then removes the namespaces, the bridge and the directories.

Needs root, iproute2, util-linux (unshare, nsenter) and openssh-server.
"""

import contextlib
import dataclasses
import hashlib
import ipaddress
import os
import pathlib
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import yaml

from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import pkb_checkout

# Where each machine's data disk is mounted (a directory of the test bed,
# bound over a tmpfs on /mnt inside the machine).
DATA_MOUNT = '/mnt/data'
# Package manager state each machine gets a private copy of: concurrent
# installs on several machines then never wait for one lock, and nothing a
# machine does changes the host's package database. The copies hold no
# package lists, so a machine knows exactly the packages the host has
# installed: installing one of them is a no-op (never an upgrade it could
# not download), any other is not found at once.
PRIVATE_STATE = ('/var/lib/dpkg', '/var/lib/apt', '/var/cache/apt')
# The directories of those kept empty (package lists and their caches).
EMPTIED = ('/var/lib/apt/lists', '/var/cache/apt')
DEFAULT_ROOT = pathlib.Path('/var/tmp/perfkit_plugins_testbed')
# Interface names the test bed makes start with this (+ the owner's PID).
PREFIX = 'pkbtb'
# The machines of a test bed for a whole run: 3 servers, 2 loaders.
SERVERS = ('server-0', 'server-1', 'server-2')
LOADERS = ('loader-0', 'loader-1')
# A whole run's flags on those machines: every phase, in seconds rather
# than hours.
SHORT_RUN_FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_num_keys': 20000,
    'scylla_threads': 8,
    'scylla_populate_threads': 8,
    'scylla_durations': 'all=10,warmup=5,rdw=15,rdw_read_delay=3',
    'scylla_latency_rates': '200,400',
    'scylla_latency_threads': 4,
    'scylla_rdw_write_rate': 200,
    'scylla_rdw_read_threads': 2,
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 5,
    'scylla_quiesce_timeout_s': 300,
}
REQUIRED_TOOLS = ('ip', 'unshare', 'nsenter', 'ssh', 'ssh-keygen', 'sshd')
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


# ScyllaDB's cassandra-stress, a binary distribution of its release asset's
# layout (`cassandra-stress/bin/cassandra-stress`, jars in lib/), with its
# `.sha256` beside it; CI keeps it beside this checkout.
STRESS_TARBALL_ENV = 'PERFKIT_PLUGINS_STRESS_TARBALL'
STRESS_RELEASE = '3.18.1'
_DEFAULT_STRESS_TARBALL = (
    pathlib.Path(__file__).resolve().parents[2].parent
    / 'shared'
    / 'tools'
    / f'cassandra-stress-{STRESS_RELEASE}-bin.tar.gz'
)
# The main class cassandra-stress's launcher starts its JVM with.
_STRESS_MAIN_CLASS = b'org.apache.cassandra.stress.Stress'
# JVM options of the test bed's Cassandra servers. Small memtables (system
# properties overriding cassandra.yaml, Cassandra 4.1 on): tens of MB of
# writes then flush and compact, as hundreds of GB do on a real cluster. A
# ring delay of 10 s instead of 30: each joining node waits it once, and
# shorter ones let a node on the loaded 2-core host give up on its seeds.
CASSANDRA_OPTIONS = (
    '-Dcassandra.config.allow_system_properties=true',
    '-Dcassandra.settings.memtable_heap_space=4MiB',
    '-Dcassandra.settings.memtable_offheap_space=4MiB',
    '-Dcassandra.ring_delay_ms=10000',
)


class TestbedError(Exception):
  """The test bed could not be built or reached."""


def StressTarball():
  """The cassandra-stress binary distribution the test bed's mirror serves."""
  return pathlib.Path(
      os.environ.get(STRESS_TARBALL_ENV) or _DEFAULT_STRESS_TARBALL
  )


@dataclasses.dataclass(frozen=True)
class Mirror:
  """What a mirror directory serves, as the benchmark's flags name it.

  Attributes:
    directory: the directory served.
    cassandra_path: the Cassandra tarball's URL path template ({version}).
    cassandra_sha512: its digest.
    stress_path: the cassandra-stress tarball's URL path template.
  """

  directory: pathlib.Path
  cassandra_path: str
  cassandra_sha512: str
  stress_path: str

  def Flags(self, base_url):
    """The benchmark flags that install from this mirror at base_url."""
    return {
        'scylla_cassandra_url': f'{base_url}/{self.cassandra_path}',
        'scylla_cassandra_checksum': f'sha512:{self.cassandra_sha512}',
        # Verified against the .sha256 published beside it.
        'scylla_stress_url': f'{base_url}/{self.stress_path}',
    }


def BuildMirror(directory, cassandra_tarball, stress_tarball):
  """Lays out a mirror: Apache's and the stress tool's URL schemes.

  Args:
    directory: an empty directory.
    cassandra_tarball: an apache-cassandra-<version>-bin.tar.gz.
    stress_tarball: a cassandra-stress-<release>-bin.tar.gz, with its
      `.sha256` beside it.

  Returns:
    Mirror.
  """
  directory = pathlib.Path(directory)
  version = cassandra_tarball.name.split('-')[2]
  cassandra_dir = directory / 'cassandra' / version
  cassandra_dir.mkdir(parents=True)
  shutil.copy(cassandra_tarball, cassandra_dir)
  tools = directory / 'tools'
  tools.mkdir()
  for path in (stress_tarball, pathlib.Path(f'{stress_tarball}.sha256')):
    shutil.copy(path, tools)
  return Mirror(
      directory=directory,
      cassandra_path=(
          'cassandra/{version}/apache-cassandra-{version}-bin.tar.gz'
      ),
      cassandra_sha512=hashlib.sha512(
          cassandra_tarball.read_bytes()
      ).hexdigest(),
      stress_path='tools/cassandra-stress-{version}-bin.tar.gz',
  )


def Problem():
  """Why no test bed can be built here, or None when one can."""
  if os.geteuid() != 0:
    return 'the test bed needs root (network and mount namespaces)'
  missing = [
      tool
      for tool in REQUIRED_TOOLS
      if not shutil.which(tool, path='/usr/sbin:/usr/bin:/sbin:/bin')
  ]
  if missing:
    return (
        f'the test bed needs {", ".join(missing)} (Debian: iproute2,'
        ' util-linux, openssh-client, openssh-server)'
    )
  return None


def _Run(*args, check=True, **kwargs):
  return subprocess.run(
      args, check=check, capture_output=True, text=True, **kwargs
  )


def _Exists(pid):
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  return True


def _Wait(predicate, timeout, what):
  deadline = time.monotonic() + timeout
  while not predicate():
    if time.monotonic() > deadline:
      raise TestbedError(f'timed out after {timeout} s waiting for {what}')
    time.sleep(0.1)


@dataclasses.dataclass
class Machine:
  """One machine of the test bed.

  Attributes:
    name: its hostname.
    netns: its network namespace.
    address: its address on the bridge (and its internal IP).
    directory: host directory holding its private directories.
    sshd_pid: the PID of its sshd; the machine's namespaces are that
      process's.
  """

  name: str
  netns: str
  address: str
  directory: pathlib.Path
  sshd_pid: int = 0

  @property
  def data_dir(self):
    """The host directory behind DATA_MOUNT inside the machine."""
    return self.directory / 'data'

  def Pids(self):
    """PIDs of every process in the machine's network namespace."""
    out = _Run('ip', 'netns', 'pids', self.netns, check=False).stdout
    return [int(pid) for pid in out.split()]

  def Processes(self):
    """{pid: command line} of the machine's processes, sshd excluded."""
    processes = {}
    for pid in self.Pids():
      if pid == self.sshd_pid:
        continue
      try:
        raw = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
      except OSError:
        continue
      command = raw.replace(b'\0', b' ').decode(errors='replace').strip()
      if command.startswith('sshd:'):
        continue
      processes[pid] = command
    return processes

  def SetLink(self, up):
    """Brings the machine's network link up or down (it vanishes)."""
    _Run('ip', '-n', self.netns, 'link', 'set', 'eth0', 'up' if up else 'down')

  def Signal(self, pid, sig):
    """Sends a signal to one of the machine's processes, by PID."""
    if pid not in self.Pids():
      raise TestbedError(f'{pid} is not a process of {self.name}')
    os.kill(pid, sig)

  def GroupStress(self, group_file):
    """The PID of the cassandra-stress JVM of a run's process group, or None.

    The launcher script runs `java -version` in the same group first; only
    a live process running cassandra-stress's main class counts, so a
    signal sent to the PID reaches the loader, not that short-lived check.

    group_file: the run's group file (perfkit_plugins.operations.phase_runner
    .GroupFile), a path inside the machine, read through its mount
    namespace (a fault's tmpfs shows only there).
    """
    path = pathlib.Path(f'/proc/{self.sshd_pid}/root{group_file}')
    try:
      group = int(path.read_text())
    except (OSError, ValueError):
      return None
    for pid in self.Pids():
      try:
        stat = pathlib.Path(f'/proc/{pid}/stat').read_text()
        command = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
      except OSError:
        continue
      state, _, process_group = stat.rsplit(')', 1)[1].split()[:3]
      if (
          state != 'Z'
          and int(process_group) == group
          and _STRESS_MAIN_CLASS in command.split(b'\0')
      ):
        return pid
    return None

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


def RemoveStale(root=DEFAULT_ROOT):
  """Removes test beds whose owning process is gone (killed, say).

  Their processes are ended by PID (those in their network namespaces),
  then their namespaces, interfaces and directories are removed.

  Returns:
    The tags of the test beds removed.
  """
  tags = set()
  for line in _Run('ip', 'netns', 'list', check=False).stdout.splitlines():
    tags.add(line.split()[0].rsplit('-', 1)[0])
  for line in _Run('ip', '-o', 'link', 'show', check=False).stdout.splitlines():
    tags.add(line.split(':')[1].strip().split('@')[0].split('v')[0])
  if pathlib.Path(root).is_dir():
    tags.update(p.name for p in pathlib.Path(root).iterdir())
  removed = []
  for tag in sorted(tags):
    owner = tag[len(PREFIX) :]
    if not tag.startswith(PREFIX) or not owner.isdigit() or _Exists(int(owner)):
      continue
    stale = Testbed((), root=root)
    stale.tag = stale.bridge = tag
    stale.root = pathlib.Path(root) / tag
    netns = [
        line.split()[0]
        for line in _Run('ip', 'netns', 'list', check=False).stdout.splitlines()
        if line.startswith(f'{tag}-')
    ]
    stale.machines = {n: Machine(n, n, '', stale.root / n) for n in netns}
    stale.Destroy()
    for line in _Run(
        'ip', '-o', 'link', 'show', check=False
    ).stdout.splitlines():
      name = line.split(':')[1].strip().split('@')[0]
      if name.startswith(f'{tag}v'):
        _Run('ip', 'link', 'del', name, check=False)
    removed.append(tag)
  return removed


class Testbed:
  """A bridge, its machines and (optionally) a mirror on the host.

  Attributes:
    root: host directory of the test bed.
    bridge: the bridge's interface name.
    host_address: the host's address on the bridge (the mirror's).
    key_path: the private key every machine accepts for root.
    machines: Machine by name, in creation order.
    mirror_url: base URL of the mirror, once started.
  """

  def __init__(self, names, root=DEFAULT_ROOT, subnet=None):
    """Describes a test bed; Create() builds it.

    Args:
      names: machine names (hostnames), at most 200.
      root: host directory under which this test bed's directory is made
        (never under /tmp: each machine mounts its own /tmp).
      subnet: an IPv4 /24 in a private range; default one derived from
        this process's PID.
    """
    self.tag = f'{PREFIX}{os.getpid()}'
    self.root = pathlib.Path(root) / self.tag
    self.bridge = self.tag
    network = ipaddress.ip_network(
        subnet or f'10.{200 + os.getpid() % 50}.{os.getpid() % 250}.0/24'
    )
    hosts = list(network.hosts())
    self.host_address = str(hosts[0])
    self.key_path = self.root / 'id_ed25519'
    self.machines = {
        name: Machine(
            name=name,
            netns=f'{self.tag}-{index}',
            address=str(hosts[10 + index]),
            directory=self.root / name,
        )
        for index, name in enumerate(names)
    }
    self.prefix_length = network.prefixlen
    self.mirror_url = None
    self._mirror = None

  def Create(self):
    """Builds the bridge and every machine and waits for their sshd."""
    problem = Problem()
    if problem:
      raise TestbedError(problem)
    RemoveStale(self.root.parent)
    if self.root.exists():
      shutil.rmtree(self.root)
    self.root.mkdir(parents=True)
    _Run(
        'ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(self.key_path)
    )
    authorized = self.root / 'authorized_keys'
    shutil.copy(self.key_path.with_suffix('.pub'), authorized)
    authorized.chmod(0o600)
    pathlib.Path('/run/sshd').mkdir(exist_ok=True)
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
      self._CreateMachine(index, machine, authorized)
    for machine in self.machines.values():
      _Wait(
          lambda m=machine: self._SshAnswers(m),
          30,
          f'sshd on {machine.name} ({machine.address})',
      )
    return self

  def _CreateMachine(self, index, machine, authorized):
    d = machine.directory
    for sub in ('tmp', 'root', 'opt-pkb', 'data'):
      (d / sub).mkdir(parents=True)
    # No name server: a lookup (apt-get update) fails at once. Its own name
    # resolves (sudo complains, and mails root, about one that does not).
    (d / 'resolv.conf').write_text('nameserver 127.0.0.1\n')
    (d / 'hosts').write_text(
        f'127.0.0.1 localhost\n{machine.address} {machine.name}\n'
    )
    (d / 'tmp').chmod(0o1777)
    (d / 'root').chmod(0o700)
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
        'eth0',
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
        'eth0',
    )
    _Run(*ns, 'link', 'set', 'eth0', 'up')
    _Run(*ns, 'link', 'set', 'lo', 'up')
    host_key = d / 'ssh_host_ed25519_key'
    _Run('ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(host_key))
    config = d / 'sshd_config'
    config.write_text(
        f'ListenAddress {machine.address}\n'
        f'HostKey {host_key}\n'
        f'AuthorizedKeysFile {authorized}\n'
        'PermitRootLogin prohibit-password\n'
        'PasswordAuthentication no\n'
        'KbdInteractiveAuthentication no\n'
        'UsePAM no\n'
        'StrictModes no\n'
        'MaxSessions 100\n'
        'Subsystem sftp internal-sftp\n'
        'MaxStartups 100\n'
        f'PidFile {d / "sshd.pid"}\n'
    )
    script = d / 'start.sh'
    script.write_text(self._StartScript(machine, config))
    with open(d / 'sshd.log', 'ab') as log:
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
      )
    # `ip netns exec`, `unshare` and `sh` all exec: the PID is sshd's.
    machine.sshd_pid = process.pid

  @staticmethod
  def _StartScript(machine, config):
    """Mounts the machine's private directories, then becomes its sshd.

    /tmp is bound last: the test bed's own directories are never under it.
    """
    d = machine.directory
    lines = ['set -e', f'hostname {shlex.quote(machine.name)}']
    binds = [(d / 'root', '/root'), (d / 'opt-pkb', '/opt/pkb')]
    binds += [
        (d / 'state' / path.strip('/'), path)
        for path in PRIVATE_STATE
        if os.path.isdir(path)
    ]
    binds.append((d / 'resolv.conf', '/etc/resolv.conf'))
    binds.append((d / 'hosts', '/etc/hosts'))
    lines.append('mkdir -p /opt/pkb')
    for source, target in binds:
      lines.append(f'mount --bind {shlex.quote(str(source))} {target}')
    lines += [
        'mount -t tmpfs -o size=1m,mode=755 testbed-mnt /mnt',
        f'mkdir -p {DATA_MOUNT}',
        f'mount --bind {shlex.quote(str(d / "data"))} {DATA_MOUNT}',
        f'mount --bind {shlex.quote(str(d / "tmp"))} /tmp',
        f'exec /usr/sbin/sshd -D -e -f {shlex.quote(str(config))}',
    ]
    return '\n'.join(lines) + '\n'

  def SshCommand(self, machine, command):
    """The ssh command line that runs `command` on a machine as root."""
    return [
        'ssh',
        *SSH_OPTIONS,
        '-i',
        str(self.key_path),
        f'root@{machine.address}',
        command,
    ]

  def _SshAnswers(self, machine):
    if not _Exists(machine.sshd_pid):
      log = (machine.directory / 'sshd.log').read_text(errors='replace')
      raise TestbedError(f'sshd of {machine.name} exited:\n{log}')
    result = _Run(*self.SshCommand(machine, 'true'), check=False, timeout=10)
    return result.returncode == 0

  def Ssh(self, name, command, check=True, timeout=120):
    """Runs a command on a machine over ssh; returns the CompletedProcess."""
    return _Run(
        *self.SshCommand(self.machines[name], command),
        check=check,
        timeout=timeout,
    )

  def StartMirror(self, directory):
    """Serves `directory` over HTTP on the bridge address.

    Returns:
      The mirror's base URL (no trailing slash).
    """
    with socket.socket() as s:
      s.bind((self.host_address, 0))
      port = s.getsockname()[1]
    # The mirror process keeps its own copy; ours is closed once it starts.
    # pylint: disable-next=consider-using-with
    log = open(self.root / 'mirror.log', 'ab')
    self._mirror = subprocess.Popen(
        [
            sys.executable,
            '-m',
            'http.server',
            '--bind',
            self.host_address,
            '--directory',
            str(directory),
            str(port),
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    self.mirror_url = f'http://{self.host_address}:{port}'

    def Serves():
      try:
        with socket.create_connection((self.host_address, port), timeout=1):
          return True
      except OSError:
        return False

    _Wait(Serves, 30, f'the mirror at {self.mirror_url}')
    return self.mirror_url

  def PkbConfig(self, servers, loaders, flags):
    """A benchmark config whose groups are these machines as static VMs.

    Args:
      servers: machine names of the servers (their data disk declared at
        DATA_MOUNT).
      loaders: machine names of the loaders.
      flags: the config's `flags:`.

    Returns:
      The config as a dict, for YAML.
    """
    return {
        'scylla_phases': {
            'vm_groups': {
                'servers': {
                    'static_vms': [
                        self.StaticVm(
                            n, disk_specs=[{'mount_point': DATA_MOUNT}]
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
        'user_name': 'root',
        'ssh_private_key': str(self.key_path),
        'ssh_port': 22,
        'os_type': 'debian12',
        **extra,
    }

  def Destroy(self):
    """Ends every process by PID, removes namespaces, bridge and files."""
    for machine in self.machines.values():
      _EndPids(machine.Pids)
    if self._mirror is not None:
      _EndPids(
          lambda: [self._mirror.pid] if self._mirror.poll() is None else []
      )
      self._mirror.wait()
    for machine in self.machines.values():
      _Run('ip', 'netns', 'del', machine.netns, check=False)
    for index in range(len(self.machines)):
      _Run('ip', 'link', 'del', f'{self.tag}v{index}', check=False)
    _Run('ip', 'link', 'del', self.bridge, check=False)
    shutil.rmtree(self.root, ignore_errors=True)

  def __enter__(self):
    try:
      return self.Create()
    except BaseException:
      self.Destroy()
      raise

  def __exit__(self, *exc):
    self.Destroy()


def _EndPids(list_pids, grace_s=10):
  """SIGTERM to every listed PID, then SIGKILL to what is left."""
  for sig in (signal.SIGTERM, signal.SIGKILL):
    pids = list_pids()
    for pid in pids:
      try:
        os.kill(pid, sig)
      except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace_s
    while list_pids() and time.monotonic() < deadline:
      time.sleep(0.1)
    if not list_pids():
      return


@dataclasses.dataclass
class Bed:
  """A test bed with its mirror, and stock pkb.py pointed at it.

  Attributes:
    testbed: the Testbed.
    mirror_flags: the benchmark flags that install from its mirror.
    temp_dir: PKB's --temp_dir (short: PKB's ssh control sockets live in
      it).
  """

  testbed: Testbed
  mirror_flags: dict
  temp_dir: pathlib.Path

  def Config(self, path, servers, loaders, flags):
    """Writes a config of these machines with the mirror's and these flags."""
    config = self.testbed.PkbConfig(
        servers, loaders, self.mirror_flags | dict(flags)
    )
    pathlib.Path(path).write_text(yaml.safe_dump(config, sort_keys=False))
    return path

  def RunDir(self, run_uri):
    return pathlib.Path(self.temp_dir) / 'runs' / run_uri

  def Arguments(self, config, run_uri, *args):
    return [
        '--benchmarks=scylla_phases',
        f'--benchmark_config_file={config}',
        f'--run_uri={run_uri}',
        f'--temp_dir={self.temp_dir}',
        *args,
    ]

  def StartPkb(self, config, run_uri, *args):
    """Starts stock pkb.py on the test bed; returns its Popen.

    Its output goes to pkb.out in the temp dir.
    """
    # pylint: disable-next=consider-using-with
    out = open(pathlib.Path(self.temp_dir) / f'{run_uri}.out', 'ab')
    try:
      return pkb_checkout.StartPkb(
          self.Arguments(config, run_uri, *args), stdout=out
      )
    finally:
      out.close()

  def Reset(self):
    """Leaves every machine as the test bed made it: after a fault test.

    Every process but sshd ended (by PID), links up, tmpfs mounts of
    faults removed, the runs' outputs (group files included, which the next
    fault test looks for) and data directories emptied.
    """
    for machine in self.testbed.machines.values():
      machine.SetLink(True)
      _EndPids(lambda m=machine: list(m.Processes()))
      machine.Enter(
          'while grep -q " /tmp/pkb/scylla_phases tmpfs " /proc/mounts;'
          ' do umount /tmp/pkb/scylla_phases; done;'
          ' rm -rf /tmp/pkb/scylla_phases',
          check=False,
      )
      for path in machine.data_dir.iterdir():
        if path.is_dir() and not path.is_symlink():
          shutil.rmtree(path)
        else:
          path.unlink()

  def Pkb(self, config, run_uri, *args, timeout=1800):
    """Runs stock pkb.py on the test bed; returns the CompletedProcess."""
    return pkb_checkout.RunPkb(
        self.Arguments(config, run_uri, *args), timeout=timeout
    )


@contextlib.contextmanager
def MirroredTestbed(
    names, temp_dir, cassandra_version=cassandra_node.CASSANDRA_50
):
  """A test bed of `names` serving Cassandra and cassandra-stress; a Bed.

  The Cassandra tarball is built from Maven Central's jars (servers started
  with CASSANDRA_OPTIONS), cassandra-stress is StressTarball().
  Everything is destroyed on exit.
  """
  with tempfile.TemporaryDirectory() as scratch:
    tarball = cassandra_node.BuildTarball(
        cassandra_version,
        cassandra_node.FetchJars(cassandra_version),
        scratch,
        extra_options=CASSANDRA_OPTIONS,
    )
    with Testbed(names) as testbed:
      mirror = BuildMirror(testbed.root / 'mirror', tarball, StressTarball())
      url = testbed.StartMirror(mirror.directory)
      yield Bed(testbed, mirror.Flags(url), pathlib.Path(temp_dir))
