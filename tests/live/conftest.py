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

"""Fixtures that run real Apache Cassandra nodes on loopback.

Each version starts once per session (pytest groups the tests by version)
and is stopped by its PID when the session moves on to the next version or
ends. The jars come from the cache that `python -m
perfkit_plugins.testing.cassandra_node --fetch-all` fills; a version not yet
cached is fetched with Maven on first use.
"""

import shutil

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import java
from perfkit_plugins.engines import cassandra as cassandra_engine_lib
from perfkit_plugins.operations import java_install
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import local_vm


def RequireTools(version):
  """Skips the test when java, or mvn for jars not yet cached, is missing."""
  if not shutil.which('java'):
    pytest.skip('live Cassandra tests need `java` (17) on PATH: not found')
  lib_dir = cassandra_node.LibDir(version)
  cached = (lib_dir.parent / cassandra_node.COMPLETE_MARKER).exists()
  if not cached and not shutil.which('mvn'):
    pytest.skip(
        'live Cassandra tests need `mvn` on PATH to fetch cassandra-all'
        f' {version} (not cached in {lib_dir.parent}): not found'
    )


@pytest.fixture(scope='session')
def new_node(tmp_path_factory):
  """Makes unstarted CassandraNodes: new_node(version); stops them at the end.

  Each has its tarball stand-in written but no cassandra.yaml, for tests
  that configure and start it with the plugin's own code.
  """
  nodes = []

  def Make(version):
    RequireTools(version)
    base_dir = tmp_path_factory.mktemp(f'cassandra-{version}')
    node = cassandra_node.CassandraNode(
        version, base_dir, cassandra_node.FetchJars(version)
    )
    nodes.append(node)
    return node

  yield Make
  for node in nodes:
    node.Stop()
    shutil.rmtree(node.data_dir, ignore_errors=True)


@pytest.fixture(
    scope='session',
    params=cassandra_node.VERSIONS,
    ids=[f'cassandra-{v}' for v in cassandra_node.VERSIONS],
)
def cassandra(request, new_node):
  """A running CassandraNode; tests using it run once per version.

  Restrict a test to some versions with
  `@pytest.mark.parametrize('cassandra', [...], indirect=True)`.
  """
  node = new_node(request.param)
  try:
    node.Start()
    yield node
  finally:
    node.Stop()


def _LocalVmFor(node):
  """A LocalVm whose commands find the node's `nodetool` first on PATH."""
  return local_vm.LocalVm(
      name=f'cassandra-{node.version}',
      env=node.Environment(),
      cwd=node.base_dir,
  )


def _EngineFor(node, **settings):
  """The plugin's CassandraEngine pointed at `node`'s directories and ports.

  The node's install gets the JDK link the engine's commands run with
  (java_install.Ensure, on this machine's JDKs): Java 17, which the
  stand-in runs every version on.

  Args:
    node: a CassandraNode.
    **settings: Settings fields besides engine, version and cluster size.
  """
  java_install.Ensure(
      _LocalVmFor(node),
      java.Exactly(f'the Cassandra {node.version} stand-in', 17),
      'apt',
      str(node.install_dir),
  )
  s = settings_lib.Settings(
      engine='cassandra',
      cassandra_version=node.version,
      server_count=1,
      replication_factor=1,
      **settings,
  )
  return cassandra_engine_lib.CassandraEngine(
      settings_lib.Validate(s),
      data_dir=str(node.data_dir),
      install_dir=str(node.install_dir),
      jmx_port=node.jmx_port,
      storage_port=node.storage_port,
      native_port=node.native_port,
  )


@pytest.fixture(scope='session')
def vm_for():
  """vm_for(node): a LocalVm whose commands find node's nodetool first."""
  return _LocalVmFor


@pytest.fixture(scope='session')
def engine_for():
  """engine_for(node, **settings): the plugin's CassandraEngine on node."""
  return _EngineFor


@pytest.fixture
def cassandra_vm(cassandra):
  """A LocalVm on the running node of `cassandra`."""
  return _LocalVmFor(cassandra)


@pytest.fixture
def cassandra_engine(cassandra):
  """The plugin's CassandraEngine on the running node of `cassandra`."""
  return _EngineFor(cassandra)
