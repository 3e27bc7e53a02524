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

"""Package module for the ScyllaDB server (`vm.Install('scylla_server')`).

Installs the release given by --scylla_release (X.Y: the newest patch of the
series; X.Y.Z: exactly that) from ScyllaDB's package repositories, or from
the mirror --scylla_repo_url and --scylla_repo_key_url name. The work is
done by perfkit_plugins.engines.scylla.
"""

from perfkit_plugins.engines import scylla
from perfkit_plugins.shell import package_settings


def AptInstall(vm):
  """Installs ScyllaDB on Debian/Ubuntu."""
  scylla.AptInstall(vm, package_settings.ForPackage(vm))


def YumInstall(vm):
  """Installs ScyllaDB on RHEL-family systems."""
  scylla.YumInstall(vm, package_settings.ForPackage(vm))
