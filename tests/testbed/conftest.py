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

"""One test bed of real machines for every test of this folder.

Fourteen machines (three Cassandra servers, two loaders, a ScyllaDB
server and eight more loaders only the test of many loaders runs on:
perfkit_plugins/testing/testbed.py) and a mirror on the host serving the
Apache Cassandra tarball built from Maven Central's jars, ScyllaDB's
cassandra-stress binary distribution, and ScyllaDB's packages built from
its setup files (../shared/scylladb) with their signing key. Built once
per session, destroyed at its end. Stock pkb.py reaches the machines as
static VMs.

Skipped with a reason when something it needs is missing (root, sshd, the
stress tarball, Java and the Cassandra jars, ScyllaDB's setup files, a PKB
checkout); `.ci/run` provides all of it and fails when it cannot.
"""

import pathlib
import shutil

import pytest

from perfkit_plugins.local import host_machines
from perfkit_plugins.local import scylla_build
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.testing import testbed as testbed_lib


def _Problem():
  problem = pkb_checkout.Problem() or testbed_lib.Problem()
  if problem:
    return problem
  tarball = testbed_lib.StressTarball()
  if not tarball.is_file() or not pathlib.Path(f'{tarball}.sha256').is_file():
    return (
        f'no cassandra-stress distribution at {tarball} (with its .sha256):'
        f' set {testbed_lib.STRESS_TARBALL_ENV}'
    )
  problem = host_machines.SystemProblem()
  if problem:
    return problem
  if not (scylla_build.SourceDir() / 'install.sh').is_file():
    return (
        f'no ScyllaDB setup files at {scylla_build.SourceDir()}: set'
        f' {scylla_build.SOURCE_ENV}'
    )
  version = cassandra_node.CASSANDRA_50
  lib_dir = cassandra_node.LibDir(version)
  if not (lib_dir.parent / cassandra_node.COMPLETE_MARKER).exists() and (
      not shutil.which('mvn')
  ):
    return f'no cassandra-all {version} jars and no mvn to fetch them'
  return None


@pytest.fixture(scope='session')
def bed(tmp_path_factory):
  problem = _Problem()
  if problem:
    pytest.skip(f'test bed: {problem}')
  pkb_checkout.RequireOrSkip()
  # PKB's run directories stay after the session, in pytest's temp dir.
  with testbed_lib.MirroredTestbed(
      testbed_lib.SERVERS
      + testbed_lib.LOADERS
      + testbed_lib.SCYLLA_SERVERS
      + testbed_lib.EXTRA_LOADERS,
      tmp_path_factory.mktemp('pkb'),
      system_machines=testbed_lib.SCYLLA_SERVERS,
      scylla_source=scylla_build.SourceDir(),
  ) as bed:
    yield bed
