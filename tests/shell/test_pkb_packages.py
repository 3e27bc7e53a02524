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

"""Our package modules through PKB's own VM classes and tables.

Needs a PKB checkout under Python 3.12; skipped with a reason otherwise.
"""

import os

import pytest

from perfkit_plugins import discovery
from perfkit_plugins.testing import pkb_checkout

pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pylint: disable=g-import-not-at-top,g-bad-import-order
import mock
from perfkitbenchmarker import data
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker import linux_virtual_machine
from tests import pkb_common_test_case


class DebianTestVm(
    linux_virtual_machine.Debian12Mixin,
    pkb_common_test_case.TestVirtualMachine,
):
  """A Debian 12 VM whose remote commands go nowhere."""


@pytest.fixture
def debian_vm():
  vm = DebianTestVm(pkb_common_test_case.CreateTestVmSpec())
  vm.RemoteCommand = mock.Mock(return_value=('', ''))
  return vm


@pytest.mark.parametrize(
    'package',
    ['scylla_server', 'scylla_cassandra_stress', 'scylla_apache_cassandra'],
)
def test_vm_install_dispatches_to_our_apt_install(debian_vm, package):
  module = linux_packages.PACKAGES[package]
  assert module.__name__ == f'perfkitbenchmarker.linux_packages.{package}'
  with mock.patch.object(
      module, 'AptInstall'
  ) as apt_install, mock.patch.object(
      module, 'YumInstall', create=True
  ) as yum_install:
    debian_vm.Install(package)
  apt_install.assert_called_once_with(debian_vm)
  yum_install.assert_not_called()


def _OurResources():
  """Every data and config file of ours, by the name PKB resolves."""
  names = []
  for name in ('data', 'configs'):
    root = discovery.PluginDir(name)
    for parent, _, files in os.walk(root):
      for f in files:
        if not f.endswith(('.py', '.pyc')):
          names.append(os.path.relpath(os.path.join(parent, f), root))
  return sorted(names)


@pytest.mark.parametrize('resource', _OurResources())
def test_pkb_resource_path_finds_our_files(resource):
  """PKB's ResourcePath returns our file, not one of PKB's own."""
  assert 'scylla_phases' in linux_benchmarks.VALID_BENCHMARKS
  path = os.path.realpath(data.ResourcePath(resource))
  plugin_dirs = [
      os.path.realpath(discovery.PluginDir(n)) for n in ('data', 'configs')
  ]
  assert any(path.startswith(d + os.sep) for d in plugin_dirs), path


def test_resource_names_do_not_collide_with_pkb():
  pkb_data = os.path.dirname(data.__file__)
  assert os.path.isdir(pkb_data)
  collisions = [
      r for r in _OurResources() if os.path.exists(os.path.join(pkb_data, r))
  ]
  assert not collisions
  assert len(_OurResources()) >= 9
