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

"""Apache Cassandra server for --scylla_engine=cassandra.

Installs the Apache binary tarball of --scylla_cassandra_version (from
--scylla_cassandra_url, verified against its checksum) and links the JDK
that version runs on; the engine (perfkit_plugins/engines/cassandra.py)
configures and starts it.
"""

from perfkitbenchmarker import linux_packages

from perfkit_plugins.engines import cassandra
from perfkit_plugins.shell import package_settings


def _Install(vm, package_manager):
  settings = package_settings.ForPackage(vm)
  cassandra.InstallServer(
      vm, settings, package_manager, linux_packages.INSTALL_DIR
  )


def AptInstall(vm):
  """Installs Apache Cassandra on a Debian or Ubuntu VM."""
  _Install(vm, 'apt')


def YumInstall(vm):
  """Installs Apache Cassandra on a RHEL-family VM."""
  _Install(vm, 'yum')
