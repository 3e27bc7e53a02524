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

"""LocalVm: PKB's VM interface (as the plugin uses it) on local processes."""

import os
import pathlib
import time

import jinja2
import pytest

from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import local_vm


@pytest.fixture
def vm(tmp_path):
  return local_vm.LocalVm(name='box', cwd=tmp_path)


def test_remote_command_returns_stdout_and_stderr_and_records(vm):
  stdout, stderr = vm.RemoteCommand('echo out; echo err >&2')
  assert (stdout, stderr) == ('out\n', 'err\n')
  assert vm.commands == ['echo out; echo err >&2']


def test_remote_command_runs_bash_in_cwd_with_env(tmp_path):
  vm = local_vm.LocalVm(cwd=tmp_path, env={'GREETING': 'hi', 'PATH': '/bin'})
  stdout, _ = vm.RemoteCommand('[[ -n $GREETING ]] && echo $GREETING; pwd')
  assert stdout.split() == ['hi', str(tmp_path)]


def test_remote_command_failure_raises_with_output(vm):
  with pytest.raises(fake_vm.RemoteCommandError) as error:
    vm.RemoteCommand('echo partial; echo broken >&2; exit 3')
  message = str(error.value)
  assert 'exit code 3' in message
  assert 'partial' in message and 'broken' in message


def test_remote_command_ignore_failure_returns(vm):
  assert vm.RemoteCommand('echo x; exit 1', ignore_failure=True) == ('x\n', '')


def test_remote_command_timeout_kills_every_process_and_raises(vm, tmp_path):
  with pytest.raises(fake_vm.RemoteCommandError, match='timed out'):
    vm.RemoteCommand('sleep 60 & echo $! > child.pid; wait', timeout=1)
  child = int((tmp_path / 'child.pid').read_text())
  for _ in range(50):
    if not _Alive(child):
      break
    time.sleep(0.1)
  assert not _Alive(child)


def test_robust_remote_command_runs_too(vm):
  assert vm.RobustRemoteCommand('echo ok', timeout=5) == ('ok\n', '')


def test_push_file_into_directory_and_relative_to_cwd(vm, tmp_path):
  source = tmp_path / 'src.txt'
  source.write_text('payload')
  (tmp_path / 'remote').mkdir()
  vm.PushFile(str(source), 'remote')
  vm.PushFile(str(source), str(tmp_path / 'remote' / 'renamed.txt'))
  assert (tmp_path / 'remote' / 'src.txt').read_text() == 'payload'
  assert (tmp_path / 'remote' / 'renamed.txt').read_text() == 'payload'


def test_push_file_copies_directories(vm, tmp_path):
  (tmp_path / 'tree' / 'sub').mkdir(parents=True)
  (tmp_path / 'tree' / 'sub' / 'f').write_text('x')
  (tmp_path / 'dest').mkdir()
  vm.PushFile(str(tmp_path / 'tree'), 'dest')
  assert (tmp_path / 'dest' / 'tree' / 'sub' / 'f').read_text() == 'x'


def test_pull_file_into_local_directory(vm, tmp_path):
  vm.RemoteCommand('mkdir -p logs && echo line > logs/system.log')
  local = tmp_path / 'pulled'
  local.mkdir()
  vm.PullFile(str(local), 'logs/system.log')
  assert (local / 'system.log').read_text() == 'line\n'


def test_pull_file_missing_raises(vm, tmp_path):
  with pytest.raises(FileNotFoundError):
    vm.PullFile(str(tmp_path), 'no/such/file')


def test_render_template_like_pkb(vm, tmp_path):
  template = tmp_path / 'conf.j2'
  template.write_text('name: {{ name }}\nhost: {{ vm.internal_ip }}\n')
  vm.RenderTemplate(str(template), 'conf.yaml', {'name': 'n1'})
  assert (tmp_path / 'conf.yaml').read_text() == 'name: n1\nhost: 127.0.0.1'


def test_render_template_undefined_variable_raises(vm, tmp_path):
  template = tmp_path / 'conf.j2'
  template.write_text('{{ missing }}')
  with pytest.raises(jinja2.UndefinedError):
    vm.RenderTemplate(str(template), 'conf.yaml', {})


def test_install_records_only(vm):
  vm.Install('openjdk')
  vm.InstallPackages('a b')
  assert vm.installed == ['openjdk', 'a', 'b']
  assert vm.commands == []


def test_identity(vm):
  assert (vm.name, vm.internal_ip, vm.ip_address) == (
      'box',
      '127.0.0.1',
      '127.0.0.1',
  )
  assert vm.num_cpus == os.cpu_count()


def _Alive(pid):
  """Whether `pid` runs (a zombie waiting for its reaper does not)."""
  try:
    stat = pathlib.Path(f'/proc/{pid}/stat').read_text()
  except FileNotFoundError:
    return False
  return stat.rsplit(')', 1)[1].split()[0] != 'Z'
