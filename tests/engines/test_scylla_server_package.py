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

"""linux_packages/scylla_server.py: the release and mirror flags reach it.

--scylla_release is validated with every other flag before provisioning
(core/config/settings.py); the package reads what it installs.
"""

import importlib.util
import pathlib

from absl.testing import flagsaver
import pytest

from perfkit_plugins.shell import scylla_phases_flags
from perfkit_plugins.testing import fake_vm

PACKAGE = (
    pathlib.Path(__file__).parents[2] / 'linux_packages' / 'scylla_server.py'
)


@pytest.fixture(name='package')
def _Package():
  spec = importlib.util.spec_from_file_location('scylla_server_pkg', PACKAGE)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_apt_install_uses_the_release_flag(package):
  vm = fake_vm.FakeVm()
  with flagsaver.flagsaver((scylla_phases_flags.RELEASE, '2026.2.5')):
    package.AptInstall(vm)
  assert vm.CommandsMatching(r'scylla-2026\.2\.list$')
  assert vm.CommandsMatching(r'Pin: version 2026\.2\.5-\*')
  assert vm.installed == ['gnupg', 'dirmngr', 'curl', 'scylla']


def test_yum_install_pins_the_patch_release(package):
  vm = fake_vm.FakeVm()
  with flagsaver.flagsaver((scylla_phases_flags.RELEASE, '2026.3.1')):
    package.YumInstall(vm)
  assert vm.installed == ['scylla-2026.3.1']


def test_mirror_flags_reach_the_installer(package):
  vm = fake_vm.FakeVm()
  with flagsaver.flagsaver(
      (scylla_phases_flags.REPO_URL, 'http://m/s-{version}.list'),
      (scylla_phases_flags.REPO_KEY_URL, 'http://m/key.asc'),
  ):
    package.AptInstall(vm)
  assert vm.CommandsMatching(
      r'curl -fsSL --retry 3 --max-time 60 http://m/key\.asc \|'
  )
  assert vm.CommandsMatching(r'http://m/s-2026\.3\.list$')


def test_mirror_key_server_and_fingerprints_reach_the_installer(package):
  vm = fake_vm.FakeVm()
  fingerprint = '0123456789ABCDEF0123456789ABCDEF01234567'
  with flagsaver.flagsaver(
      (scylla_phases_flags.REPO_URL, 'http://m/s-{version}.list'),
      (scylla_phases_flags.KEY_SERVER, 'hkp://10.0.0.1:8080'),
      (scylla_phases_flags.REPO_KEY_FINGERPRINTS, [fingerprint]),
  ):
    package.AptInstall(vm)
  assert vm.CommandsMatching(
      f'--keyserver hkp://10.0.0.1:8080 --recv-keys {fingerprint} &&'
  )
  assert not vm.CommandsMatching('C503C686B007F39E')
