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

"""Fixtures for the ScyllaDB stand-in packages (perfkit_plugins.local).

The stand-in programs' modules import one another as `scylla_standin`, as
they do where the package installs them: their directory goes on sys.path
for the tests. The packages are built once per session, from ScyllaDB's
files in shared/ (scylla_build.SourceDir) and a Cassandra tarball on a free
JMX port, into a temporary directory, with their apt repository, and
extracted into a root that the tests run the packaged programs from.
"""

import dataclasses
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import scylla_build
from perfkit_plugins.testing import cassandra_node

sys.path.insert(0, str(scylla_build.STANDIN_SOURCE))

# What building the packages and the repository runs.
BUILD_TOOLS = ('dpkg-deb', 'dpkg-scanpackages', 'gpg', 'gpgconf', 'apt-get')


@dataclasses.dataclass(frozen=True)
class Built:
  """The session's packages.

  Attributes:
    debs: the .deb files.
    repository: scylla_build.Repository of them (repo_dir holds it).
    repo_dir: the directory served as the repository's base URL.
    root: the packages extracted (dpkg-deb -x), as on a machine.
    jmx_port: the JMX port of the packaged Cassandra install.
  """

  debs: list
  repository: scylla_build.Repository
  repo_dir: pathlib.Path
  root: pathlib.Path
  jmx_port: int

  @property
  def python(self):
    """The packaged Python (a link to the host's /usr/bin/python3)."""
    return self.root / scylla_build.PYTHON3.lstrip('/')

  def Program(self, location):
    """The command running a packaged stand-in program: [python, file]."""
    return [str(self.python), str(self.root / location.lstrip('/'))]


def RequireBuildTools():
  """Skips unless the packages can be built here."""
  missing = [t for t in BUILD_TOOLS if not shutil.which(t)]
  if missing:
    pytest.skip(f'building the ScyllaDB packages needs {missing}: not found')
  if not scylla_build.SourceDir().is_dir():
    pytest.skip(
        f"ScyllaDB's setup files are not at {scylla_build.SourceDir()} (set"
        f' {scylla_build.SOURCE_ENV})'
    )
  version = cassandra_build.CASSANDRA_50
  if not cassandra_build.Cached(version) and not shutil.which('mvn'):
    pytest.skip(
        f'the stand-in server packs Cassandra {version}: its jars are not'
        ' cached and `mvn` is not on PATH to fetch them'
    )


@pytest.fixture(scope='session')
def built():
  """Builds the packages and their repository once: a Built.

  In a directory of /tmp that every user may read, so that the packaged
  programs also run as another user than root.
  """
  RequireBuildTools()
  work = pathlib.Path(tempfile.mkdtemp(prefix='scylla-packages-'))
  work.chmod(0o755)
  try:
    yield _Build(work)
  finally:
    shutil.rmtree(work, ignore_errors=True)


def _Build(work):
  version = cassandra_build.CASSANDRA_50
  jmx_port = cassandra_node.FreePort()
  tarball = cassandra_build.BuildTarball(
      version, cassandra_build.FetchJars(version), work, jmx_port=jmx_port
  )
  out = work / 'debs'
  out.mkdir()
  debs = scylla_build.BuildPackages(scylla_build.SourceDir(), tarball, out)
  repo_dir = work / 'repo'
  repository = scylla_build.BuildAptRepository(debs, repo_dir, work / 'gnupg')
  root = work / 'root'
  for deb in debs:
    subprocess.run(['dpkg-deb', '-x', str(deb), str(root)], check=True)
  return Built(debs, repository, repo_dir, root, jmx_port)
