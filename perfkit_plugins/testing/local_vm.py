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

"""A VM whose remote commands are local processes, for tests on a live node.

It has the part of PKB's VM interface the plugin uses (the same as FakeVm's),
so the plugin's own operations code drives a real database in tests: commands
run in `bash -c` on this machine, file transfers are copies, templates render
with jinja2 as PKB renders them. An environment (e.g. PATH with a node's
`nodetool` first) and a working directory stand in for the remote login.
"""

import os
import pathlib
import shutil
import signal
import subprocess

import jinja2

from perfkit_plugins.testing.fake_vm import RemoteCommandError


class LocalVm:
  """Runs "remote" commands and file transfers on this machine.

  Attributes:
    name: VM name, as PKB's `vm.name`.
    hostname: same as name.
    internal_ip: loopback.
    ip_address: loopback.
    num_cpus: this machine's CPU count.
    env: environment of every command (None: this process's).
    cwd: working directory of commands and of relative remote paths, as a
      remote home directory is for PKB.
    commands: every command run, in order.
    installed: package names given to Install/InstallPackages (nothing is
      installed: the machine running the tests provides the tools).
  """

  def __init__(self, name='local', env=None, cwd=None):
    self.name = name
    self.hostname = name
    self.internal_ip = '127.0.0.1'
    self.ip_address = '127.0.0.1'
    self.num_cpus = os.cpu_count()
    self.env = env
    self.cwd = str(cwd) if cwd else os.getcwd()
    self.commands = []
    self.installed = []

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **_):
    """Runs `command` with bash, like PKB's RemoteCommand over ssh.

    Args:
      command: a bash command line.
      ignore_failure: return instead of raising on a non-zero exit.
      timeout: seconds after which the command (and every process it
        started) is killed; that counts as a failure.

    Returns:
      (stdout, stderr) as text.

    Raises:
      RemoteCommandError: on a non-zero exit or a timeout, unless
        ignore_failure; the message holds the command, stdout and stderr.
    """
    self.commands.append(command)
    process = subprocess.Popen(
        ['bash', '-c', command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=self.env,
        cwd=self.cwd,
        start_new_session=True,
    )
    try:
      stdout, stderr = process.communicate(timeout=timeout)
      failure = f'exit code {process.returncode}' if process.returncode else ''
    except subprocess.TimeoutExpired:
      os.killpg(process.pid, signal.SIGKILL)
      stdout, stderr = process.communicate()
      failure = f'timed out after {timeout} s'
    if failure and not ignore_failure:
      raise RemoteCommandError(
          f'{self.name}: {failure} executing {command}\n'
          f'STDOUT: {stdout}STDERR: {stderr}'
      )
    return stdout, stderr

  RobustRemoteCommand = RemoteCommand

  def _Local(self, remote_path):
    """The local path of a remote path (relative ones are under cwd)."""
    return pathlib.Path(self.cwd, os.path.expanduser(remote_path or '.'))

  def PushFile(self, source_path, remote_path=''):
    """Copies a file or directory to `remote_path` (a file or a directory)."""
    _Copy(pathlib.Path(source_path), self._Local(remote_path))

  PushDataFile = PushFile

  def PullFile(self, local_path, remote_path):
    """Copies `remote_path` to `local_path` (a file or a directory)."""
    _Copy(self._Local(remote_path), pathlib.Path(local_path))

  def RenderTemplate(self, template_path, remote_path, context):
    """Renders a jinja2 template to `remote_path` as PKB does.

    Like PKB, undefined variables are errors and `vm` is this VM.
    """
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    template = environment.from_string(pathlib.Path(template_path).read_text())
    self._Local(remote_path).write_text(template.render({'vm': self} | context))

  def Install(self, package_name):
    self.installed.append(package_name)

  def InstallPackages(self, packages):
    self.installed.extend(packages.split())


def _Copy(source, target):
  """Copies like `scp -pr`: into `target` when it is a directory."""
  if target.is_dir():
    target = target / source.name
  if source.is_dir():
    shutil.copytree(source, target, dirs_exist_ok=True)
  else:
    shutil.copy2(source, target)
