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
import posixpath
import re

from perfkit_plugins.core.software import artifacts
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import java
from perfkit_plugins.core.stress import loader_jvm

# The release asset; a URL template naming {version} (the release).
SCYLLA_ASSET = 'cassandra-stress-bin-java21.tar.gz'
SCYLLA_RELEASE_URL = (
    'https://github.com/scylladb/cassandra-stress/releases/download/'
    f'v{{version}}/{SCYLLA_ASSET}'
)
# The release asset is built for Java 21 (`-Dtarget.version=21`); builds of
# the same source without that option run on Java 11 and newer, which is
# all the launcher itself requires.
SCYLLA_ASSET_JAVA = 21
SCYLLA_LAUNCHER_JAVA = 11
SCYLLA_MIN_RELEASE = (3, 18, 0)

_RELEASE_RE = re.compile(r'\d+\.\d+\.\d+')


@dataclasses.dataclass(frozen=True)
class StressTool:
  """One installable cassandra-stress.

  Attributes:
    name: 'scylla' or 'apache'.
    version: the release or Cassandra version it comes from; what
      `cassandra-stress version` must report.
    artifact: the binary tarball (artifacts.Artifact).
    dir_name: directory under the install root that holds the tarball's
      contents (its top directory stripped).
    binary: the launcher, relative to that directory.
    java: the Java it runs on (java.JavaRequirement).
  """

  name: str
  version: str
  artifact: artifacts.Artifact
  dir_name: str
  binary: str
  java: java.JavaRequirement


def CheckScyllaRelease(release):
  """Raises ValueError unless `release` is X.Y.Z and at least 3.18.0."""
  if not _RELEASE_RE.fullmatch(release):
    raise ValueError(f'{release!r} is not a release such as 3.18.1')
  if tuple(int(p) for p in release.split('.')) < SCYLLA_MIN_RELEASE:
    minimum = '.'.join(map(str, SCYLLA_MIN_RELEASE))
    raise ValueError(
        f'scylladb/cassandra-stress {release} has no'
        f' {SCYLLA_ASSET} release asset; use {minimum} or later'
    )


def ScyllaJava(release, url_template, loader_gc='auto'):
  """The Java ScyllaDB's cassandra-stress from `url_template` runs on.

  The release asset needs Java 21. Another URL (a mirror) may serve it or
  a build for an older Java: any Java from 11 on is accepted, 21 first;
  one with ZGC when the loaders are asked for it (--scylla_loader_gc=zgc).
  """
  who = f'ScyllaDB cassandra-stress {release}'
  if url_template == SCYLLA_RELEASE_URL:
    return java.AtLeast(who, SCYLLA_ASSET_JAVA, (SCYLLA_ASSET_JAVA,))
  if loader_gc == 'zgc':
    return java.AtLeast(
        f'{who} on ZGC', loader_jvm.ZGC_JAVA, (SCYLLA_ASSET_JAVA, 17)
    )
  return java.AtLeast(who, SCYLLA_LAUNCHER_JAVA, (SCYLLA_ASSET_JAVA, 17, 11))


def StressToolOf(settings):
  """The StressTool the settings select.

  Args:
    settings: settings.Settings (stress tool, releases, download sources).

  Returns:
    StressTool.

  Raises:
    ValueError: unknown tool, or a release/version that cannot be installed
      (Settings validation reports these under their flags first).
  """
  if settings.stress_tool == 'scylla':
    release = settings.stress_release
    CheckScyllaRelease(release)
    return StressTool(
        name='scylla',
        version=release,
        artifact=artifacts.Make(
            f'ScyllaDB cassandra-stress {release} tarball',
            release,
            settings.stress_url,
            'scylla_stress_url',
            settings.stress_checksum,
            'scylla_stress_checksum',
            published_algorithm=artifacts.SHA256,
        ),
        dir_name=f'scylla-cassandra-stress-{release}',
        binary='bin/cassandra-stress',
        java=ScyllaJava(release, settings.stress_url, settings.loader_gc),
    )
  if settings.stress_tool == 'apache':
    version = settings.cassandra_version
    return StressTool(
        name='apache',
        version=version,
        artifact=cassandra_config.Tarball(settings),
        dir_name=cassandra_config.DirName(version),
        binary='tools/bin/cassandra-stress',
        java=cassandra_config.JavaOf(version),
    )
  raise ValueError(f'unknown cassandra-stress tool {settings.stress_tool!r}')


def InstallDir(tool, root):
  """Where a StressTool is unpacked, under the install root."""
  return posixpath.join(root, tool.dir_name)


def LauncherPath(tool, root):
  """The cassandra-stress launcher of a StressTool."""
  return posixpath.join(InstallDir(tool, root), tool.binary)


def Launcher(settings, root):
  """(launcher path, its JAVA_HOME) of the tool the settings select."""
  tool = StressToolOf(settings)
  return LauncherPath(tool, root), java.JavaHome(InstallDir(tool, root))
