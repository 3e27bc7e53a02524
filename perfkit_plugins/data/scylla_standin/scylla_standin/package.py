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

"""The installed package: its files, its build's settings, Java, logging.

The package lays this directory out as <prefix>/share/standin/lib/
scylla_standin. Beside lib/ are standin.json, the settings the package
build recorded (SETTINGS_KEYS), and cassandra/, the Apache Cassandra install
(bin/cassandra, bin/nodetool, conf/, lib/) the server runs.
"""

import dataclasses
import hashlib
import json
import logging
import os
import pathlib
import shutil
import sys
import time

# <prefix>/share/standin.
SHARE_DIR = pathlib.Path(__file__).resolve().parents[2]
SETTINGS_NAME = 'standin.json'
CASSANDRA_DIR_NAME = 'cassandra'
# What standin.json holds (written by perfkit_plugins.local.scylla_build).
SETTINGS_KEYS = (
    'version',
    'release',
    'cassandra_version',
    'heap',
    'config_options',
)
# The Cassandra node's heap (a JVM size: 768M, 1G), default the package's.
HEAP_ENV = 'SCYLLA_STANDIN_HEAP'
# More JVM options of the Cassandra node, split as a shell would.
JVM_OPTIONS_ENV = 'SCYLLA_STANDIN_JVM_OPTIONS'
# Where JDKs are, and the Java releases Cassandra 4.1 and 5.0 both run on,
# most preferred first.
JVM_ROOT = pathlib.Path('/usr/lib/jvm')
JAVA_RELEASES = ('17', '11')


class StandinError(Exception):
  """The stand-in cannot do what it was asked (not a ScyllaDB refusal)."""


@dataclasses.dataclass(frozen=True)
class Settings:
  """What the package build recorded.

  Attributes:
    version: ScyllaDB's version, as its SCYLLA-VERSION-FILE with `-` read as
      `~` (2026.3.0~rc3).
    release: its SCYLLA-RELEASE-FILE (0.20260817.a6e1be00632f).
    cassandra_version: the Cassandra install's version (5.0.9).
    heap: the Cassandra node's default heap (768M).
    config_options: scylla.yaml keys the server accepts as command-line
      options (as --key-with-dashes).
    share_dir: <prefix>/share/standin.
  """

  version: str
  release: str
  cassandra_version: str
  heap: str
  config_options: tuple
  share_dir: pathlib.Path = SHARE_DIR

  @property
  def scylla_version(self):
    """`scylla --version`: version-release (release.cc:21-24)."""
    return f'{self.version}-{self.release}'

  @property
  def build_id(self):
    """A stand-in build id: 40 hex digits, as a real one (a SHA-1)."""
    return hashlib.sha1(self.scylla_version.encode()).hexdigest()

  @property
  def cassandra_home(self):
    return self.share_dir / CASSANDRA_DIR_NAME

  def Heap(self, environ=None):
    """The Cassandra node's heap: $SCYLLA_STANDIN_HEAP, else the package's."""
    environ = os.environ if environ is None else environ
    return environ.get(HEAP_ENV) or self.heap


def LoadSettings(share_dir=SHARE_DIR):
  """The Settings in share_dir/standin.json.

  Raises:
    StandinError: no such file, or keys missing.
  """
  path = pathlib.Path(share_dir) / SETTINGS_NAME
  try:
    data = json.loads(path.read_text())
  except (OSError, ValueError) as e:
    raise StandinError(f'cannot read the package settings {path}: {e}') from e
  missing = [k for k in SETTINGS_KEYS if k not in data]
  if missing:
    raise StandinError(f'{path} lacks {missing}')
  values = {k: data[k] for k in SETTINGS_KEYS}
  values['config_options'] = tuple(values['config_options'])
  return Settings(share_dir=pathlib.Path(share_dir), **values)


def _JavaRelease(home):
  """The major Java release of a JDK/JRE home (its `release` file), or None."""
  try:
    text = (pathlib.Path(home) / 'release').read_text()
  except OSError:
    return None
  for line in text.splitlines():
    key, _, value = line.partition('=')
    if key == 'JAVA_VERSION':
      version = value.strip().strip('"')
      major = version.split('.')[0]
      # Java 8 calls itself 1.8.
      return version.split('.')[1] if major == '1' else major
  return None


def JavaHome(environ=None, jvm_root=JVM_ROOT):
  """A Java home Cassandra runs on: 17, else 11.

  Looked for in $JAVA_HOME, the home of the `java` on PATH, then every
  directory of /usr/lib/jvm: machines of a test bed may see the host's
  JDKs without its /etc/alternatives.

  Raises:
    StandinError: none found.
  """
  environ = os.environ if environ is None else environ
  candidates = []
  if environ.get('JAVA_HOME'):
    candidates.append(pathlib.Path(environ['JAVA_HOME']))
  java = shutil.which('java', path=environ.get('PATH', os.defpath))
  if java:
    candidates.append(pathlib.Path(os.path.realpath(java)).parents[1])
  if jvm_root.is_dir():
    candidates += sorted(p for p in jvm_root.iterdir() if p.is_dir())
  for release in JAVA_RELEASES:
    for home in candidates:
      if (home / 'bin' / 'java').exists() and _JavaRelease(home) == release:
        return home
  raise StandinError(
      f'no Java {" or ".join(JAVA_RELEASES)} for Cassandra in'
      f' {[str(c) for c in candidates]}'
  )


def ChildEnvironment(environ=None, java_home=None):
  """The environment of a Java child: JAVA_HOME set, the thunk's libs unset.

  /opt/scylladb/bin/scylla points LD_LIBRARY_PATH at ScyllaDB's own
  libraries (install.sh:158), which Java must not load.
  """
  env = dict(os.environ if environ is None else environ)
  env.pop('LD_LIBRARY_PATH', None)
  env['JAVA_HOME'] = str(java_home or JavaHome(env))
  return env


class _SeastarFormatter(logging.Formatter):
  """Seastar's log line: `INFO  2026-08-17 10:11:12,345 [shard 0:main] init`.

  Then ` - ` and the message (seastar src/util/log.cc: level, the real-time
  timestamp with milliseconds, the shard and scheduling group, the logger's
  name).
  """

  _LEVELS = {'WARNING': 'WARN', 'CRITICAL': 'ERROR'}

  def format(self, record):
    level = self._LEVELS.get(record.levelname, record.levelname)
    stamp = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(record.created))
    millis = int(record.msecs)
    return (
        f'{level:<5} {stamp},{millis:03d} [shard 0:main] {record.name} -'
        f' {record.getMessage()}'
    )


class _StderrHandler(logging.StreamHandler):
  """Writes to whatever sys.stderr is when a record comes."""

  @property
  def stream(self):
    return sys.stderr

  @stream.setter
  def stream(self, value):
    del value


def Logger(name):
  """A logger printing seastar's lines to stderr (its default stream)."""
  logger = logging.getLogger(name)
  if not logger.handlers:
    handler = _StderrHandler()
    handler.setFormatter(_SeastarFormatter())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
  return logger
