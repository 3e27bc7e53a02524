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

"""A recording fake VM with the part of PKB's VM interface the plugin uses.

Operations code takes VM objects and never imports PKB, so tests drive it with
this class: every command is recorded in order, and replies come from rules
(a regular expression on the command and the stdout to return, or a callable),
typically serving real tool outputs from tests/testdata.
"""

import os
import re

import jinja2


class RemoteCommandError(Exception):
  """Raised like PKB's errors.VirtualMachine.RemoteCommandError."""


class FakeVm:
  """Records remote commands and file transfers; replies by rules.

  Attributes:
    name: VM name, as PKB's `vm.name`.
    internal_ip: private address.
    ip_address: public address.
    num_cpus: vCPU count.
    total_memory_kb: memory in KiB, as PKB's `vm.total_memory_kb`.
    commands: every command run, in order (RemoteCommand and
      RobustRemoteCommand alike).
    robust_commands: (command, timeout) of every RobustRemoteCommand, the
      call PKB makes survive ssh drops during long runs.
    pushed: (local_path, remote_path) of every PushFile/PushDataFile.
    pulled: (local_dir, remote_path) of every PullFile.
    installed: package names given to Install/InstallPackages.
    remote_files: remote path -> text or bytes served by PullFile; files
      written by RenderTemplate land here too.
    rendered: (template_path, remote_path) of every RenderTemplate.
    available_packages: packages HasPackage says the OS offers.
  """

  OS_TYPE = 'debian12'

  def __init__(
      self,
      name='vm0',
      internal_ip='10.0.0.2',
      num_cpus=8,
      total_memory_kb=32 * 1024 * 1024,
  ):
    self.name = name
    self.hostname = name
    self.internal_ip = internal_ip
    self.ip_address = internal_ip
    self.num_cpus = num_cpus
    self.total_memory_kb = total_memory_kb
    self.commands = []
    self.robust_commands = []
    self.pushed = []
    self.pulled = []
    self.installed = []
    self.remote_files = {}
    self.rendered = []
    self.available_packages = set()
    self._rules = []

  def Reply(self, pattern, stdout='', stderr='', fail=False):
    """Adds a reply rule; the newest matching rule wins.

    Args:
      pattern: regular expression searched in the command.
      stdout: text to return, or a callable(command) -> text.
      stderr: text to return as stderr.
      fail: raise RemoteCommandError instead of returning.
    """
    self._rules.insert(0, (re.compile(pattern), stdout, stderr, fail))

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **_):
    self.commands.append(command)
    for pattern, stdout, stderr, fail in self._rules:
      if pattern.search(command):
        if fail and not ignore_failure:
          raise RemoteCommandError(
              f'{self.name}: command failed: {command}\n{stderr}'
          )
        text = stdout(command) if callable(stdout) else stdout
        return text, stderr
    return '', ''

  def RobustRemoteCommand(self, command, timeout=None, **kwargs):
    self.robust_commands.append((command, timeout))
    return self.RemoteCommand(command, timeout=timeout, **kwargs)

  def PushFile(self, source_path, remote_path=''):
    self.pushed.append((source_path, remote_path))

  PushDataFile = PushFile

  def PullFile(self, local_path, remote_path):
    self.pulled.append((local_path, remote_path))
    if remote_path not in self.remote_files:
      raise RemoteCommandError(f'{self.name}: no such file {remote_path}')
    target = local_path
    if os.path.isdir(local_path):
      target = os.path.join(local_path, os.path.basename(remote_path))
    content = self.remote_files[remote_path]
    with open(target, 'wb' if isinstance(content, bytes) else 'w') as f:
      f.write(content)

  def RenderTemplate(self, template_path, remote_path, context):
    """Renders a jinja2 template as PKB does, into remote_files.

    Like PKB, undefined variables are errors and `vm` is this VM.
    """
    self.rendered.append((template_path, remote_path))
    with open(template_path) as f:
      template = jinja2.Environment(
          undefined=jinja2.StrictUndefined
      ).from_string(f.read())
    self.remote_files[remote_path] = template.render({'vm': self} | context)

  def Install(self, package_name):
    self.installed.append(package_name)

  def InstallPackages(self, packages):
    self.installed.extend(packages.split())

  def HasPackage(self, package):
    return package in self.available_packages

  def CommandsMatching(self, pattern):
    """The recorded commands in which `pattern` is found."""
    regex = re.compile(pattern)
    return [c for c in self.commands if regex.search(c)]


def LscpuListing(vcpus, numa_nodes):
  """`lscpu -p` lines of a machine shape, for its tuning to be read back.

  Two threads per core, each NUMA node holding consecutive cores (no real
  listing of the large shapes exists here).
  """
  cores = vcpus // 2
  lines = ['# CPU,Core,Socket,Node']
  for cpu in range(vcpus):
    core = cpu % cores
    node = core * numa_nodes // cores
    lines.append(f'{cpu},{core},{node},{node}')
  return '\n'.join(lines) + '\n'
