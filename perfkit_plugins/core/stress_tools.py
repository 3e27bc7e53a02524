"""Which cassandra-stress the loaders run, and where it comes from.

Two tools, chosen by `--scylla_stress_tool`:

* 'scylla': ScyllaDB's fork (github.com/scylladb/cassandra-stress), pinned by
  `--scylla_stress_release`. Its bundled ScyllaDB Java driver is shard-aware.
  From v3.18.0 on every release attaches `cassandra-stress-bin-java21.tar.gz`
  (built with `-Dtarget.version=21`, so it needs Java 21; the tarball's top
  directory is `cassandra-stress/`, the launcher `bin/cassandra-stress`).
  Earlier releases named their tarballs differently (or attached none), so
  they are not offered.
* 'apache': the cassandra-stress inside the Apache Cassandra binary tarball
  of `--scylla_cassandra_version` (`tools/bin/cassandra-stress`), as PKB's
  `cassandra_stress` package does, on that version's Java.
"""

import dataclasses
import re

from perfkit_plugins.core import cassandra_config

SCYLLA_RELEASE_URL = (
    'https://github.com/scylladb/cassandra-stress/releases/download/'
    'v{release}/{asset}'
)
SCYLLA_ASSET = 'cassandra-stress-bin-java21.tar.gz'
SCYLLA_JAVA = 21
SCYLLA_MIN_RELEASE = (3, 18, 0)

_RELEASE_RE = re.compile(r'^\d+\.\d+\.\d+$')


@dataclasses.dataclass(frozen=True)
class StressTool:
  """One installable cassandra-stress.

  Attributes:
    name: 'scylla' or 'apache'.
    version: the release or Cassandra version it comes from.
    url: the binary tarball.
    dir_name: directory under the install root that holds the tarball's
      contents (its top directory stripped).
    binary: the launcher, relative to that directory.
    java: the JDK major version it runs on.
  """

  name: str
  version: str
  url: str
  dir_name: str
  binary: str
  java: int


def CheckScyllaRelease(release):
  """Raises ValueError unless `release` is X.Y.Z and at least 3.18.0."""
  if not _RELEASE_RE.match(release):
    raise ValueError(f'{release!r} is not a release such as 3.18.1')
  if tuple(int(p) for p in release.split('.')) < SCYLLA_MIN_RELEASE:
    minimum = '.'.join(map(str, SCYLLA_MIN_RELEASE))
    raise ValueError(
        f'scylladb/cassandra-stress {release} has no'
        f' {SCYLLA_ASSET} release asset; use {minimum} or later'
    )


def StressToolFor(tool, stress_release, cassandra_version):
  """The StressTool for the chosen tool.

  Args:
    tool: 'scylla' or 'apache' (settings.STRESS_TOOLS).
    stress_release: scylladb/cassandra-stress release, e.g. '3.18.1'.
    cassandra_version: Apache Cassandra version, e.g. '5.0.6'.

  Returns:
    StressTool.

  Raises:
    ValueError: unknown tool, or a release/version that cannot be installed.
  """
  if tool == 'scylla':
    CheckScyllaRelease(stress_release)
    return StressTool(
        name='scylla',
        version=stress_release,
        url=SCYLLA_RELEASE_URL.format(
            release=stress_release, asset=SCYLLA_ASSET
        ),
        dir_name=f'scylla-cassandra-stress-{stress_release}',
        binary='bin/cassandra-stress',
        java=SCYLLA_JAVA,
    )
  if tool == 'apache':
    return StressTool(
        name='apache',
        version=cassandra_version,
        url=cassandra_config.TarballUrl(cassandra_version),
        dir_name=cassandra_config.DirName(cassandra_version),
        binary='tools/bin/cassandra-stress',
        java=cassandra_config.SeriesOf(cassandra_version).java,
    )
  raise ValueError(f'unknown cassandra-stress tool {tool!r}')


def StressToolOf(settings):
  """The StressTool a validated settings.Settings selects."""
  return StressToolFor(
      settings.stress_tool, settings.stress_release, settings.cassandra_version
  )
