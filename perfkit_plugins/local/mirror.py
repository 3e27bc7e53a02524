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

"""A mirror directory of the artifacts a local cluster installs.

It holds the Apache Cassandra tarball (cassandra_build) and ScyllaDB's
cassandra-stress binary distribution with its `.sha256`, laid out in the
URL schemes the benchmark's flags name (`--scylla_cassandra_url`,
`--scylla_stress_url`); the host serves it over HTTP to its machines
(host_machines.HostMachines.StartMirror). Both are checked on the machines
against checksums given by flag, fixed before the mirror serves anything:
the Cassandra tarball's is taken from the file built here, and
cassandra-stress's from its `.sha256`, which the copy in the mirror (the
file served) must match; nothing the server sends is trusted.
"""

import dataclasses
import hashlib
import os
import pathlib
import shutil

from perfkit_plugins.local import trusted_paths

# ScyllaDB's cassandra-stress, a binary distribution of its release asset's
# layout (`cassandra-stress/bin/cassandra-stress`, jars in lib/), with its
# `.sha256` beside it. A source checkout finds it in ../shared/tools/.
STRESS_TARBALL_ENV = 'PERFKIT_PLUGINS_STRESS_TARBALL'
STRESS_RELEASE = '3.18.1'
STRESS_NAME = f'cassandra-stress-{STRESS_RELEASE}-bin.tar.gz'
_DEFAULT_STRESS_TARBALL = (
    pathlib.Path(__file__).resolve().parents[2].parent
    / 'shared'
    / 'tools'
    / STRESS_NAME
)


class ChecksumError(Exception):
  """A file copied into the mirror is not the file that was checked."""


def StressTarball():
  """The cassandra-stress distribution: $PERFKIT_PLUGINS_STRESS_TARBALL.

  Else ../shared/tools/ beside a source checkout of this project.
  """
  return pathlib.Path(
      os.environ.get(STRESS_TARBALL_ENV) or _DEFAULT_STRESS_TARBALL
  )


def Sha256(path):
  """The hex SHA-256 of a file."""
  digest = hashlib.sha256()
  with open(path, 'rb') as f:
    for block in iter(lambda: f.read(1 << 20), b''):
      digest.update(block)
  return digest.hexdigest()


def StressProblem(tarball):
  """Why `tarball` cannot be served, or None.

  It must exist with its `.sha256` beside it (`<hex digest>  <name>`, as
  sha256sum writes), and match it.
  """
  tarball = pathlib.Path(tarball)
  sums = pathlib.Path(f'{tarball}.sha256')
  if not tarball.is_file() or not sums.is_file():
    return (
        f'no cassandra-stress distribution at {tarball} with its .sha256'
        f" beside it: set {STRESS_TARBALL_ENV} to ScyllaDB's"
        f' {STRESS_NAME} (the release asset of scylladb/cassandra-stress,'
        ' or a build of it with the same layout)'
    )
  problem = trusted_paths.PathProblem(tarball) or trusted_paths.PathProblem(
      sums
  )
  if problem:
    return problem
  if Sha256(tarball) != _PublishedSha256(tarball):
    return f'{tarball} does not match its checksum in {sums}'
  return None


def _PublishedSha256(tarball):
  """The digest in the `.sha256` beside `tarball` ('' when none)."""
  words = pathlib.Path(f'{tarball}.sha256').read_text().split()
  return words[0].lower() if words else ''


@dataclasses.dataclass(frozen=True)
class Mirror:
  """What a mirror directory serves, as the benchmark's flags name it.

  Attributes:
    directory: the directory served.
    cassandra_path: the Cassandra tarball's URL path template ({version}).
    cassandra_sha512: its digest.
    stress_path: the cassandra-stress tarball's URL path template.
    stress_sha256: its digest.
  """

  directory: pathlib.Path
  cassandra_path: str
  cassandra_sha512: str
  stress_path: str
  stress_sha256: str

  def Flags(self, base_url):
    """The benchmark flags that install from this mirror at base_url."""
    return {
        'scylla_cassandra_url': f'{base_url}/{self.cassandra_path}',
        'scylla_cassandra_checksum': f'sha512:{self.cassandra_sha512}',
        'scylla_stress_url': f'{base_url}/{self.stress_path}',
        'scylla_stress_checksum': f'sha256:{self.stress_sha256}',
    }


def BuildMirror(directory, cassandra_tarball, stress_tarball):
  """Lays out a mirror: Apache's and the stress tool's URL schemes.

  Args:
    directory: a directory that does not exist yet.
    cassandra_tarball: an apache-cassandra-<version>-bin.tar.gz.
    stress_tarball: a cassandra-stress-<release>-bin.tar.gz, with its
      `.sha256` beside it.

  Returns:
    Mirror.

  Raises:
    ChecksumError: the copy of cassandra-stress does not match its `.sha256`
      (the source changed after StressProblem checked it).
  """
  directory = pathlib.Path(directory)
  cassandra_tarball = pathlib.Path(cassandra_tarball)
  version = cassandra_tarball.name.split('-')[2]
  cassandra_dir = directory / 'cassandra' / version
  cassandra_dir.mkdir(parents=True)
  shutil.copy(cassandra_tarball, cassandra_dir)
  tools = directory / 'tools'
  tools.mkdir()
  expected = _PublishedSha256(stress_tarball)
  for path in (stress_tarball, pathlib.Path(f'{stress_tarball}.sha256')):
    shutil.copy(path, tools)
  stress_sha256 = Sha256(tools / pathlib.Path(stress_tarball).name)
  if stress_sha256 != expected:
    raise ChecksumError(
        f'{stress_tarball} changed after it was checked: its copy does not'
        f' match {stress_tarball}.sha256'
    )
  return Mirror(
      directory=directory,
      cassandra_path=(
          'cassandra/{version}/apache-cassandra-{version}-bin.tar.gz'
      ),
      cassandra_sha512=hashlib.sha512(
          cassandra_tarball.read_bytes()
      ).hexdigest(),
      stress_path='tools/cassandra-stress-{version}-bin.tar.gz',
      stress_sha256=stress_sha256,
  )
