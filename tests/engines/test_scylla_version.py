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

"""The ScyllaDB engine on `scylla --version` outputs it cannot use.

scylla.yaml's tablets key depends on the installed release; a version
string that names none must stop the configuration with a clear error, not
pick a key from numbers of the build.
"""

import pytest

from perfkit_plugins.core.config import settings
from perfkit_plugins.engines import scylla
from perfkit_plugins.testing import fake_vm


def test_development_build_is_refused(tmp_path):
  """No release in `scylla --version`: a clear error, no scylla.yaml."""
  vm = fake_vm.FakeVm(name='server-0', internal_ip='10.0.0.2', num_cpus=8)
  # scylla --version of a development build, as scylla-cluster-tests
  # feeds it to its unit tests (test_cluster.py).
  vm.Reply(r'^scylla --version', '666.development-0.20200205.2816404f575\n')
  engine = scylla.ScyllaEngine(
      settings.Validate(settings.Settings()),
      '/tmp/pkb',
      local_ssds=0,
      output_dir=str(tmp_path),
  )
  with pytest.raises(ValueError, match='names no release'):
    # pylint: disable-next=protected-access  # the step that reads it
    engine._WriteConfig(vm, ['10.0.0.2'])
  assert not vm.rendered
