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

"""cassandra-stress for the loaders of the scylla_phases benchmark.

--scylla_stress_tool picks ScyllaDB's release (pinned by
--scylla_stress_release) or the one inside the Apache Cassandra tarball of
--scylla_cassandra_version; --scylla_stress_url / --scylla_cassandra_url
and their checksum flags say where it comes from and what it must be. The
JDK it needs is linked beside it. Installing also runs `cassandra-stress
version`, so a tool that cannot start, or is another release, fails here.
"""

from perfkitbenchmarker import linux_packages

from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.operations import stress_install
from perfkit_plugins.shell import package_settings


def _Install(vm, package_manager):
  settings = package_settings.ForPackage(vm)
  tool = stress_tools.StressToolOf(settings)
  stress_install.Install(vm, tool, package_manager, linux_packages.INSTALL_DIR)
  stress_install.CheckVersion(vm, tool, linux_packages.INSTALL_DIR)


def AptInstall(vm):
  """Installs cassandra-stress on a Debian or Ubuntu VM."""
  _Install(vm, 'apt')


def YumInstall(vm):
  """Installs cassandra-stress on a RHEL-family VM."""
  _Install(vm, 'yum')
