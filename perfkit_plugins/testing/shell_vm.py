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

"""A machine whose remote commands run in a real shell, for the engines' tests.

A ShellVm has the part of PKB's VM interface the plugin uses (FakeVm's), but
every RemoteCommand runs: `/bin/sh -c` as the login user `perfkit`, with
the real sudo (passwordless, as on a cloud image), the real coreutils,
grep, awk, sed, gpg, findmnt, lsblk, ip, swapon, journalctl, systemctl's
unit-file verbs, mkfs.xfs and mount. So quoting, pipelines, exit statuses,
users, ownership, file systems and mounts are the real ones.

Each command runs in a throwaway mount and PID namespace (unshare) where
/etc, /var, /opt, /usr, /home, /root and /dev are overlays whose upper
layers are this machine's own directories, and /tmp is a directory of its
own: what a command writes (/etc/scylla, /var/lib/scylla, a mask in
/etc/systemd/system) stays for the next command and never reaches this
host. Loop devices stand for disks (AddDisk); file systems mounted on them
are mounted again in every command (stand_in.MOUNTS). Every process a
command leaves behind ends with it.

Programs that cannot run here (the database and its tools, systemd's
manager, package managers, the network) are stand-ins (stand_in.py):
scripts in /usr/local/bin, first on PATH and on sudo's secure_path, that
record their arguments and print recorded real outputs. What ran, how it
exited and what each stand-in was asked are kept for the test (runs,
Calls).

Needs root on a Linux host with overlayfs and util-linux (unshare,
setpriv, losetup); SkipReason says why not otherwise.
"""

import dataclasses
import json
import os
import pathlib
import shlex
import shutil
import signal
import subprocess

import jinja2

from perfkit_plugins.testing import stand_in
from perfkit_plugins.testing.fake_vm import RemoteCommandError

LOGIN_USER = 'perfkit'
# The machine's own directories (overlays over this host's).
PRIVATE_DIRS = ('etc', 'var', 'opt', 'usr', 'home', 'root', 'dev')
STAND_IN_DIR = '/usr/local/bin'
# PATH of a command PKB runs over ssh on Debian: sshd's compiled-in default
# (Debian's openssh is built --with-default-path=this; no PAM file adds to
# it), without the sbin directories. Ubuntu adds them in /etc/environment.
DEBIAN_SSH_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/games'
_ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
# Makes the machine's mounts, then runs the command as its user. Arguments:
# the machine's directory, the user, its PATH, the command.
_ENTER = r"""
set -e
machine=$1 user=$2 path=$3 command=$4
for dir in %(dirs)s; do
  upper=$machine/upper/$dir work=$machine/work/$dir
  mount -t overlay overlay -o "lowerdir=/$dir,upperdir=$upper,workdir=$work" \
    "/$dir"
done
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount --bind "$machine/harness" %(harness)s
mount --bind "$machine/tmp" /tmp
while IFS='	' read -r what where fstype options; do
  mount -t "$fstype" -o "$options" "$what" "$where"
done < %(mounts)s
home=$(getent passwd "$user" | cut -d: -f6)
cd "$home"
exec setpriv --reuid="$user" --regid="$user" --init-groups \
  env -i HOME="$home" USER="$user" LOGNAME="$user" SHELL=/bin/sh \
  PATH="$path" LANG=C.UTF-8 /bin/sh -c "$command"
""" % {
    'dirs': ' '.join(PRIVATE_DIRS),
    'harness': stand_in.HARNESS,
    'mounts': stand_in.MOUNTS,
}
_STAND_IN_SCRIPT = (
    f'#!/bin/sh\nexec /usr/bin/python3 {stand_in.HARNESS}/stand_in.py'
    ' "$0" "$@"\n'
)
# The harness directory's files and what they start with.
_HARNESS_FILES = {stand_in.CALLS: '', stand_in.UNITS: '{}', stand_in.MOUNTS: ''}


def SkipReason():
  """Why ShellVm cannot run on this host, or '' when it can."""
  if os.geteuid() != 0:
    return 'ShellVm makes mounts and loop devices: it needs root'
  for tool in ('unshare', 'setpriv', 'losetup', 'sudo', 'python3'):
    if shutil.which(tool) is None:
      return f'ShellVm needs {tool}'
  probe = subprocess.run(
      ['unshare', '--mount', '--pid', '--fork', 'true'],
      capture_output=True,
      check=False,
  )
  if probe.returncode:
    return f'no mount namespaces here: {probe.stderr.decode().strip()}'
  return ''


def HostUnits(units):
  """Those of `units` this host has unit files for, sorted.

  A machine's unit files are this host's (its lower layer), so these are
  the units a machine's real systemctl finds.
  """
  return tuple(
      sorted(
          unit
          for unit in units
          if subprocess.run(
              ['systemctl', 'list-unit-files', '--no-legend', unit],
              capture_output=True,
              text=True,
              check=False,
          ).stdout.strip()
      )
  )


@dataclasses.dataclass(frozen=True)
class ShellRun:
  """One command as the machine ran it."""

  command: str
  user: str
  exit_code: int
  stdout: str
  stderr: str


class ShellVm:
  """A machine of this host's programs, its own files and stand-ins.

  Attributes:
    name: VM name, as PKB's `vm.name`.
    hostname: same as name.
    internal_ip: the address the engine configures (loopback: the machine
      shares this host's network).
    ip_address: same.
    num_cpus: vCPU count (PKB's attribute; commands see this host's).
    total_memory_kb: memory in KiB, as PKB's.
    root: this machine's directory on the host.
    login_path: PATH of RemoteCommand's commands.
    commands: every RemoteCommand, in order.
    runs: ShellRun of every RemoteCommand, in order.
    installed: packages given to Install/InstallPackages.
    rendered: (template_path, remote_path) of every RenderTemplate.
  """

  OS_TYPE = 'debian12'

  def __init__(
      self,
      root,
      name='vm0',
      internal_ip='127.0.0.1',
      num_cpus=16,
      total_memory_kb=64 * 1024 * 1024,
      packages=None,
      modules=None,
      vm_tmp_dir='/tmp/pkb',
      login_path=DEBIAN_SSH_PATH,
  ):
    """Makes the machine: its login user with sudo, PKB's scratch dir.

    Args:
      root: an empty directory of this host for the machine's files.
      name: VM name.
      internal_ip: the machine's address as the engine sees it.
      num_cpus: as PKB's VM attribute.
      total_memory_kb: as PKB's VM attribute.
      packages: {package name: function(vm)} laying out what the package
        installs; other names are only recorded.
      modules: {PKB package module name: function(vm)} run by Install, as
        PKB runs the module's AptInstall.
      vm_tmp_dir: PKB's VM_TMP_DIR, made as PKB makes it.
      login_path: PATH of the login user's commands (the image's ssh PATH).
    """
    self.name = name
    self.hostname = name
    self.internal_ip = internal_ip
    self.ip_address = internal_ip
    self.num_cpus = num_cpus
    self.total_memory_kb = total_memory_kb
    self.root = pathlib.Path(root)
    self.login_path = login_path
    self.commands = []
    self.runs = []
    self.installed = []
    self.rendered = []
    self._packages = packages or {}
    self._modules = modules or {}
    self._stand_ins = {}
    self._loops = []
    self._harness = self.root / 'harness'
    for directory in PRIVATE_DIRS:
      (self.root / 'upper' / directory).mkdir(parents=True)
      (self.root / 'work' / directory).mkdir(parents=True)
    (self.root / 'upper' / stand_in.HARNESS.lstrip('/')).mkdir()
    (self.root / 'tmp').mkdir(mode=0o1777)
    (self.root / 'tmp').chmod(0o1777)
    self._harness.mkdir()
    self._harness.chmod(0o777)
    for machine_path, text in _HARNESS_FILES.items():
      path = self._Harness(machine_path)
      path.write_text(text)
      path.chmod(0o666)
    shutil.copy(stand_in.__file__, self._harness / 'stand_in.py')
    self._WriteStandIns()
    self.RunAsRoot(
        f'useradd --create-home --shell /bin/sh {LOGIN_USER} && printf "%s\\n"'
        f' {shlex.quote(LOGIN_USER + " ALL=(ALL:ALL) NOPASSWD:ALL")} >'
        f' /etc/sudoers.d/{LOGIN_USER} && chmod 440 /etc/sudoers.d/{LOGIN_USER}'
        ' && mkdir -p /dev/disk/by-id'
    )
    self._Run(f'mkdir -p {shlex.quote(vm_tmp_dir)}', LOGIN_USER, check=True)

  def _Harness(self, machine_path):
    """This host's path of a file of the harness directory."""
    return self._harness / os.path.basename(machine_path)

  # Running.

  def _Run(self, command, user, stdin=None, timeout=None, check=False):
    """Runs `command` in the machine as `user`; returns a ShellRun."""
    process = subprocess.Popen(
        [
            'unshare',
            '--mount',
            '--pid',
            '--fork',
            '--kill-child',
            '/bin/sh',
            '-c',
            _ENTER,
            'shell-vm',
            str(self.root),
            user,
            _ROOT_PATH if user == 'root' else self.login_path,
            command,
        ],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
      stdout, stderr = process.communicate(stdin, timeout=timeout)
      code = process.returncode
    except subprocess.TimeoutExpired:
      os.killpg(process.pid, signal.SIGKILL)
      stdout, stderr = process.communicate()
      code = -signal.SIGKILL
    run = ShellRun(
        command,
        user,
        code,
        stdout.decode(errors='replace'),
        stderr.decode(errors='replace'),
    )
    if check and code:
      raise RemoteCommandError(
          f'{self.name}: exit code {code} running as {user}: {command}\n'
          f'STDOUT: {run.stdout}STDERR: {run.stderr}'
      )
    return run

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **_):
    """Runs `command` with /bin/sh as the login user, like PKB's over ssh.

    Returns:
      (stdout, stderr).

    Raises:
      RemoteCommandError: a non-zero exit (or the timeout), unless
        ignore_failure; the message holds the command and its output.
    """
    self.commands.append(command)
    run = self._Run(command, LOGIN_USER, timeout=timeout)
    self.runs.append(run)
    if run.exit_code and not ignore_failure:
      raise RemoteCommandError(
          f'{self.name}: exit code {run.exit_code} executing {command}\n'
          f'STDOUT: {run.stdout}STDERR: {run.stderr}'
      )
    return run.stdout, run.stderr

  def RobustRemoteCommand(self, command, timeout=None, **kwargs):
    return self.RemoteCommand(command, timeout=timeout, **kwargs)

  def RunAsRoot(self, command, stdin=None):
    """Sets the machine up as root (not a command of the code under test).

    Returns:
      stdout.
    """
    return self._Run(command, 'root', stdin=stdin, check=True).stdout

  # Files.

  def WriteFile(self, path, data, owner='root', mode=0o644):
    """Writes `data` (text or bytes) to `path`, its directories made."""
    if isinstance(data, str):
      data = data.encode()
    self.RunAsRoot(
        f'install -D -o {owner} -g {owner} -m {mode:o} /dev/stdin'
        f' {shlex.quote(path)}',
        stdin=data,
    )

  def ReadFile(self, path):
    """The text of the machine's file `path`."""
    return self.RunAsRoot(f'cat {shlex.quote(path)}')

  def Owner(self, path):
    """`user:group` of the machine's `path`."""
    return self.RunAsRoot(f'stat -c %U:%G {shlex.quote(path)}').strip()

  def Exists(self, path):
    return self._Run(f'test -e {shlex.quote(path)}', 'root').exit_code == 0

  def PushFile(self, source_path, remote_path=''):
    """Copies a local file to `remote_path` as the login user (scp does)."""
    target = remote_path or os.path.basename(source_path)
    self._Run(
        f'cat > {shlex.quote(target)}',
        LOGIN_USER,
        stdin=pathlib.Path(source_path).read_bytes(),
        check=True,
    )

  PushDataFile = PushFile

  def PullFile(self, local_path, remote_path):
    """Copies the machine's `remote_path` as the login user to local_path."""
    data = self._Run(
        f'cat {shlex.quote(remote_path)}', LOGIN_USER, check=True
    ).stdout
    target = pathlib.Path(local_path)
    if target.is_dir():
      target = target / os.path.basename(remote_path)
    target.write_text(data)

  def RenderTemplate(self, template_path, remote_path, context):
    """Renders a jinja2 template as PKB does and pushes it as PKB does."""
    self.rendered.append((template_path, remote_path))
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    template = environment.from_string(pathlib.Path(template_path).read_text())
    self._Run(
        f'cat > {shlex.quote(remote_path)}',
        LOGIN_USER,
        stdin=template.render({'vm': self} | context).encode(),
        check=True,
    )

  # Packages.

  def Install(self, package_name):
    """PKB's vm.Install: runs the package module given for it."""
    self.installed.append(package_name)
    self._modules[package_name](self)

  def InstallPackages(self, packages):
    """Lays out each package given in `packages` (__init__); records all."""
    for package in packages.split():
      self.installed.append(package)
      if package in self._packages:
        self._packages[package](self)

  # Stand-ins.

  def StandIn(self, program, at=None, **config):
    """Makes `program` a stand-in (stand_in.py) with this configuration.

    Args:
      program: the program's file name.
      at: its directory in the machine (default STAND_IN_DIR, first on
        PATH and on sudo's secure_path).
      **config: rules, behaviour, real and the behaviour's own keys
        (stand_in.py).
    """
    self._stand_ins[program] = config
    self._WriteStandIns()
    self.WriteFile(
        f'{at or STAND_IN_DIR}/{program}', _STAND_IN_SCRIPT, mode=0o755
    )

  def StandInConfig(self, program):
    """The stand-in's configuration, to change; then call Reconfigure."""
    return self._stand_ins[program]

  def Reconfigure(self):
    self._WriteStandIns()

  def _WriteStandIns(self):
    path = self._Harness(stand_in.STAND_INS)
    path.write_text(json.dumps(self._stand_ins))
    path.chmod(0o644)

  def Calls(self, program):
    """The arguments of every call of the stand-in `program`, in order."""
    calls = []
    with open(self._Harness(stand_in.CALLS), encoding='utf-8') as f:
      for line in f:
        call = json.loads(line)
        if os.path.basename(call['path']) == program:
          calls.append(call['args'])
    return calls

  def ActiveUnits(self):
    """The units the stand-in systemd manager has active."""
    state = json.loads(self._Harness(stand_in.UNITS).read_text())
    return sorted(unit for unit, active in state.items() if active)

  # Disks.

  def AddDisk(self, name, size_mib=320):
    """A disk at /dev/<name>: a loop device over a sparse file of this host.

    The smallest XFS mkfs.xfs makes is 300 MiB.
    """
    image = self.root / f'{name}.img'
    with open(image, 'wb') as f:
      f.truncate(size_mib * 2**20)
    loop = subprocess.run(
        ['losetup', '--find', '--show', str(image)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    self._loops.append(loop)
    rdev = os.stat(loop).st_rdev
    self.RunAsRoot(
        f'mknod {shlex.quote("/dev/" + name)} b {os.major(rdev)}'
        f' {os.minor(rdev)}'
    )
    return f'/dev/{name}'

  def Close(self):
    """Detaches the loop devices (the machine's files stay in root)."""
    for loop in self._loops:
      subprocess.run(['losetup', '--detach', loop], check=False)
    self._loops = []
