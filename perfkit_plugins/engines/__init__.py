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

"""Database engines behind one small interface (see base.Engine)."""

from perfkit_plugins.engines import cassandra
from perfkit_plugins.engines import scylla

# The PKB package module (linux_packages/) that installs each engine.
PACKAGES = {
    scylla.ScyllaEngine.NAME: scylla.PACKAGE,
    cassandra.CassandraEngine.NAME: cassandra.PACKAGE,
}


def ForSettings(
    settings, install_root, vm_tmp_dir, local_ssds=0, output_dir=None, owner=''
):
  """The engine --scylla_engine chose.

  Args:
    settings: validated settings.Settings.
    install_root: where tarballs are unpacked on the servers (PKB's
      linux_packages.INSTALL_DIR).
    vm_tmp_dir: the ssh user's temp directory on the servers (PKB's
      vm_util.VM_TMP_DIR).
    local_ssds: local SSDs of one server (0 with a network data disk).
    output_dir: local directory for raw outputs of the set-up.
    owner: the run's id, recorded in the data directory the run claims.

  Returns:
    A base.Engine.
  """
  if settings.engine == scylla.ScyllaEngine.NAME:
    return scylla.ScyllaEngine(
        settings, vm_tmp_dir, local_ssds, output_dir, owner
    )
  return cassandra.CassandraEngine(
      settings,
      settings.data_dir,
      cassandra.InstallDirOf(settings, install_root),
      cluster_name=settings.cluster_name,
      owner=owner,
      run_as=cassandra.SYSTEM_USER,
  )
