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

"""data_dir.py on a real directory: claim, refuse, allow, release."""

import shlex

import pytest

from perfkit_plugins.operations import data_dir
from perfkit_plugins.testing import local_vm

NASTY = "x'; touch pwned; echo '$(touch pwned2)"


@pytest.fixture(name='vm')
def _Vm(tmp_path):
  return local_vm.LocalVm(name='server-0', cwd=tmp_path)


def test_a_run_claims_an_empty_directory_and_removes_only_its_data(
    vm, tmp_path
):
  path = tmp_path / f'data {NASTY}'
  assert not data_dir.Claim(vm, str(path), 'run1')
  (path / 'data').mkdir()
  (path / 'data' / 'sstable').write_text('x')
  # The same run claims it again (a second Run stage, say).
  assert not data_dir.Claim(vm, str(path), 'run1')
  vm.RemoteCommand(
      data_dir.ReleaseCommand(
          str(path), 'run1', f'rm -rf {shlex.quote(str(path / "data"))}'
      )
  )
  assert list(path.iterdir()) == []
  assert not list(tmp_path.glob('pwned*'))


def test_another_runs_data_is_refused_naming_the_flag(vm, tmp_path):
  path = tmp_path / 'data'
  data_dir.Claim(vm, str(path), 'run1')
  (path / 'commitlog').mkdir()
  (path / 'commitlog' / 'segment').write_text('x')
  with pytest.raises(data_dir.DataDirError) as raised:
    data_dir.Claim(vm, str(path), 'run2')
  message = str(raised.value)
  assert message.startswith(f'server-0: the data directory {path} holds')
  assert 'commitlog/segment' in message
  assert '--scylla_allow_existing_data' in message


def test_files_nobody_claimed_are_refused_too(vm, tmp_path):
  (tmp_path / 'data').mkdir()
  (tmp_path / 'data' / 'keep').write_text('yours')
  with pytest.raises(data_dir.DataDirError):
    data_dir.Claim(vm, str(tmp_path / 'data'), 'run1')


def test_allowed_existing_files_are_used_and_never_removed(vm, tmp_path):
  path = tmp_path / 'data'
  path.mkdir()
  (path / 'keep').write_text('yours')
  assert data_dir.Claim(vm, str(path), 'run2', allow_existing=True)
  vm.RemoteCommand(
      data_dir.ReleaseCommand(str(path), 'run2', f'rm -rf {path}/*')
  )
  assert (path / 'keep').read_text() == 'yours'


def test_describe_reads_the_file_system_holding_the_directory(vm, tmp_path):
  volume = data_dir.Describe(vm, str(tmp_path))
  assert volume.source.startswith('/')
  assert volume.fstype and volume.options
  assert volume.disks is None
  assert set(volume.Metadata()) == {
      'scylla_data_device',
      'scylla_data_fstype',
      'scylla_data_mount_options',
  }
