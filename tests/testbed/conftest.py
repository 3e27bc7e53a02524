"""One test bed of real machines for every test of this folder.

Five machines (three servers, two loaders: perfkit_plugins/testing/
testbed.py) and a mirror on the host serving the Apache Cassandra tarball
built from Maven Central's jars and ScyllaDB's cassandra-stress binary
distribution. Built once per session, destroyed at its end. Stock pkb.py
reaches the machines as static VMs.

Skipped with a reason when something it needs is missing (root, sshd, the
stress tarball, Java and the Cassandra jars, a PKB checkout); `.ci/run`
provides all of it and fails when it cannot.
"""

import dataclasses
import pathlib
import shutil

import pytest
import yaml

from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.testing import testbed as testbed_lib

SERVERS = ('server-0', 'server-1', 'server-2')
LOADERS = ('loader-0', 'loader-1')
CASSANDRA_VERSION = cassandra_node.CASSANDRA_50


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
  lib_dir = cassandra_node.LibDir(CASSANDRA_VERSION)
  if not (lib_dir.parent / cassandra_node.COMPLETE_MARKER).exists() and (
      not shutil.which('mvn')
  ):
    return f'no cassandra-all {CASSANDRA_VERSION} jars and no mvn to fetch them'
  return None


@dataclasses.dataclass
class Bed:
  """The session's test bed, its mirror flags and how to run PKB on it."""

  testbed: testbed_lib.Testbed
  mirror_flags: dict
  temp_dir: pathlib.Path
  servers: tuple = SERVERS
  loaders: tuple = LOADERS

  def Config(self, path, flags):
    """Writes a config of every machine with the mirror's and these flags."""
    config = self.testbed.PkbConfig(
        self.servers, self.loaders, self.mirror_flags | flags
    )
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path

  def RunDir(self, run_uri):
    return self.temp_dir / 'runs' / run_uri

  def Pkb(self, config, run_uri, *args, timeout=1800):
    """Runs stock pkb.py on the test bed; returns the CompletedProcess."""
    return pkb_checkout.RunPkb(
        [
            '--benchmarks=scylla_phases',
            f'--benchmark_config_file={config}',
            f'--run_uri={run_uri}',
            f'--temp_dir={self.temp_dir}',
            *args,
        ],
        timeout=timeout,
    )


@pytest.fixture(scope='session')
def bed(tmp_path_factory):
  problem = _Problem()
  if problem:
    pytest.skip(f'test bed: {problem}')
  pkb_checkout.RequireOrSkip()
  scratch = tmp_path_factory.mktemp('mirror-build')
  tarball = cassandra_node.BuildTarball(
      CASSANDRA_VERSION,
      cassandra_node.FetchJars(CASSANDRA_VERSION),
      scratch,
      extra_options=testbed_lib.SMALL_MEMTABLES,
  )
  with testbed_lib.Testbed(SERVERS + LOADERS) as testbed:
    mirror = testbed_lib.BuildMirror(
        testbed.root / 'mirror', tarball, testbed_lib.StressTarball()
    )
    url = testbed.StartMirror(mirror.directory)
    # PKB's --temp_dir (run directories kept after the session; short
    # enough for PKB's ssh control sockets).
    yield Bed(testbed, mirror.Flags(url), tmp_path_factory.mktemp('pkb'))
