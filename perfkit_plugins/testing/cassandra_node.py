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

"""A real Apache Cassandra node on loopback, run from Maven Central's jars.

Tests use it to drive the plugin's own code against a live database. The jars
of `org.apache.cassandra:cassandra-all` and its runtime dependencies are
fetched once with Maven into a cache directory (`FetchJars`). Each node gets
a directory laid out like the unpacked Apache tarball the Cassandra engine
installs (`WriteInstall`): `bin/cassandra` and `bin/nodetool` scripts that run
the cached jars with Java 17, `conf/` with the jvm options files, logback
configuration and (once configured) cassandra.yaml, and `logs/`. So the
engine's own commands (`bin/cassandra -R -p <pid file>`, `nodetool ...`,
edits of `conf/`) work on it unchanged, and a node used only as a fixture is
started the same way (`CassandraNode`): on free loopback ports, data in its
directory, a small heap, stopped by its PID.
"""

import argparse
import os
import pathlib
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

import yaml

from perfkit_plugins.core.software import cassandra_config

# Newest patch releases of each series on Maven Central (2026-11). 4.1 prints
# `nodetool compactionstats` in ScyllaDB's format; 5.0 has its own.
CASSANDRA_50 = '5.0.9'
CASSANDRA_41 = '4.1.10'
VERSIONS = (CASSANDRA_50, CASSANDRA_41)

CACHE_ENV = 'PERFKIT_PLUGINS_CASSANDRA_CACHE'
DEFAULT_CACHE_ROOT = pathlib.Path('~/.cache/perfkit_plugins/cassandra')
DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1'
# Written last into a version's cache directory: its jars are complete.
COMPLETE_MARKER = 'COMPLETE'

LOOPBACK = '127.0.0.1'
CLUSTER_NAME = 'perfkit_plugins_live'
# Heap unless the jvm options files set one (they come later and win).
DEFAULT_HEAP = '768M'
# Cassandra's own JMX port (cassandra-env.sh).
DEFAULT_JMX_PORT = 7199

# Module access Cassandra 4.1 and 5.0 need on Java 17: the union of the
# server and client lists in Cassandra's conf/jvm17-server.options and
# conf/jvm17-clients.options (4.1 ships no Java 17 list).
JAVA17_MODULE_OPTIONS = (
    tuple(
        f'--add-exports={m}=ALL-UNNAMED'
        for m in (
            'java.base/jdk.internal.misc',
            'java.base/jdk.internal.ref',
            'java.base/sun.nio.ch',
            'java.base/java.lang.ref',
            'java.management.rmi/com.sun.jmx.remote.internal.rmi',
            'java.rmi/sun.rmi.registry',
            'java.rmi/sun.rmi.server',
            'java.sql/java.sql',
            'jdk.unsupported/sun.misc',
            'jdk.compiler/com.sun.tools.javac.file',
            'jdk.attach/sun.tools.attach',
        )
    )
    + tuple(
        f'--add-opens={m}=ALL-UNNAMED'
        for m in (
            'java.base/java.lang.module',
            'java.base/jdk.internal.loader',
            'java.base/jdk.internal.ref',
            'java.base/jdk.internal.reflect',
            'java.base/jdk.internal.math',
            'java.base/jdk.internal.module',
            'java.base/jdk.internal.util.jar',
            'jdk.management/com.sun.management.internal',
            'java.base/sun.nio.ch',
            'java.base/java.io',
            'java.base/java.lang',
            'java.base/java.lang.reflect',
            'java.base/java.math',
            'java.base/java.net',
            'java.base/java.nio',
            'java.base/java.util',
            'java.base/java.util.concurrent',
            'java.base/java.util.concurrent.atomic',
            'jdk.compiler/com.sun.tools.javac',
        )
    )
    + (
        '-Djdk.attach.allowAttachSelf=true',
        '-Dio.netty.tryReflectionSetAccessible=true',
    )
)
# What the tarball's cassandra-env.sh would add.
SERVER_ENV_OPTIONS = ('-XX:+HeapDumpOnOutOfMemoryError',)
# Start-up shortcuts for a lone seed (no gossip to settle, no peers to wait
# for). Not for clusters: a joining node gives up on its seeds after the
# ring delay, which a loaded host can overrun.
LONE_NODE_OPTIONS = (
    '-Dcassandra.skip_wait_for_gossip_to_settle=0',
    '-Dcassandra.ring_delay_ms=1000',
)
# Nodetool is a short-lived client: start it fast and small.
CLIENT_JVM_OPTIONS = (
    '-Xmx256M',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
)

SERVER_LOGBACK = """<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
"""
# Tools log warnings to stderr only, so their stdout is the tool's output.
TOOLS_LOGBACK = """<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{ISO8601} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
"""

FETCH_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>perfkit_plugins.testing</groupId>
  <artifactId>cassandra-jars</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""

# bin/cassandra: the tarball script's options -f, -p <pid file> and -R
# (accepted, root is not refused here), Java from $JAVA_HOME when it is set
# (as the tarball's cassandra.in.sh does), jars from the install's lib/. In
# the background, a subshell stays the server's parent and reaps it when it
# exits, as init does on a real host (where PID 1 does not reap, a `kill -0`
# loop would otherwise wait on a zombie); the script returns once the PID
# file is written.
CASSANDRA_SCRIPT = """#!/bin/sh
# Stand-in for the Apache tarball's bin/cassandra (perfkit_plugins.testing).
home=$(cd "$(dirname "$0")/.." && pwd)
conf="$home/conf"
java="${{JAVA_HOME:+$JAVA_HOME/bin/}}java"
pidfile=
foreground=
while [ $# -gt 0 ]; do
  case "$1" in
    -f) foreground=yes; shift ;;
    -p) pidfile=$2; shift 2 ;;
    -R) shift ;;
    *) echo "bin/cassandra: unsupported option $1" >&2; exit 1 ;;
  esac
done
options=$(grep -h '^-' "$conf/jvm-server.options" "$conf/{versioned_options}")
if [ -n "$foreground" ]; then options="$options -Dcassandra-foreground=yes"; fi
set -- "$java" -javaagent:"$home/lib/{jamm_jar}" {env_options} \\
  -Dcassandra.config="file://$conf/cassandra.yaml" \\
  -Dlogback.configurationFile="$conf/logback.xml" \\
  -Dcassandra.logdir="$home/logs" -Dcassandra.storagedir="$home/data" \\
  $options -cp "$conf:$home/lib/*" \\
  org.apache.cassandra.service.CassandraDaemon
mkdir -p "$home/logs"
if [ -n "$foreground" ]; then
  exec "$@"
fi
if [ -z "$pidfile" ]; then
  ("$@" <&- & wait) &
  exit 0
fi
rm -f "$pidfile"
("$@" <&- & echo $! > "$pidfile"; wait) &
while [ ! -s "$pidfile" ]; do sleep 0.1; done
"""


class CassandraNodeError(Exception):
  """The node could not be fetched, started or reached."""


def CacheRoot():
  """The directory holding one jar directory per Cassandra version."""
  return pathlib.Path(
      os.environ.get(CACHE_ENV) or DEFAULT_CACHE_ROOT
  ).expanduser()


def LibDir(version, cache_root=None):
  """The directory of a version's jars (complete only after FetchJars)."""
  return (cache_root or CacheRoot()) / version / 'lib'


def FetchCommand(pom_path, lib_dir):
  """The Maven command that copies cassandra-all and its runtime jars."""
  return [
      'mvn',
      '--batch-mode',
      '--quiet',
      '--file',
      str(pom_path),
      f'{DEPENDENCY_PLUGIN}:copy-dependencies',
      f'-DoutputDirectory={lib_dir}',
      '-DincludeScope=runtime',
  ]


def FetchJars(version, cache_root=None):
  """Fetches cassandra-all `version` and its runtime jars into the cache.

  Does nothing when the version's jars are already complete. The jars are
  copied into a scratch directory first and moved into place at the end, so
  an interrupted fetch never leaves a half-filled cache.

  Args:
    version: a cassandra-all version on Maven Central, e.g. '5.0.9'.
    cache_root: cache directory; default CacheRoot().

  Returns:
    The directory holding the jars.

  Raises:
    CassandraNodeError: if Maven fails.
  """
  lib_dir = LibDir(version, cache_root)
  version_dir = lib_dir.parent
  if (version_dir / COMPLETE_MARKER).exists():
    return lib_dir
  version_dir.parent.mkdir(parents=True, exist_ok=True)
  scratch = pathlib.Path(tempfile.mkdtemp(dir=version_dir.parent))
  try:
    pom_path = scratch / 'pom.xml'
    pom_path.write_text(FETCH_POM.format(version=version))
    result = subprocess.run(
        FetchCommand(pom_path, scratch / 'lib'),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
      raise CassandraNodeError(
          f'mvn could not fetch cassandra-all {version}:\n'
          f'{result.stdout}\n{result.stderr}'
      )
    pom_path.unlink()
    (scratch / COMPLETE_MARKER).write_text(f'cassandra-all {version}\n')
    shutil.rmtree(version_dir, ignore_errors=True)
    scratch.rename(version_dir)
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
  return lib_dir


def FreePort():
  """A TCP port on loopback that nothing listens on right now."""
  with socket.socket() as s:
    s.bind((LOOPBACK, 0))
    return s.getsockname()[1]


def VersionedOptionsFile(version):
  """The jvm options file the tarball's bin/cassandra reads on Java 17.

  4.x scripts read jvm11-server.options on any Java from 11 on; 5.0 scripts
  read jvm17-server.options on Java 17.
  """
  major = int(version.split('.')[0])
  return 'jvm11-server.options' if major < 5 else 'jvm17-server.options'


def JammJar(lib_dir):
  """The jamm jar, which Cassandra's own scripts load as a Java agent.

  Without the agent, jamm 0.3 (Cassandra 4.1) measures objects through
  Unsafe, which Java 17 refuses for hidden classes: start-up fails.
  """
  jars = sorted(pathlib.Path(lib_dir).glob('jamm-*.jar'))
  if len(jars) != 1:
    raise CassandraNodeError(f'expected one jamm jar in {lib_dir}: {jars}')
  return jars[0]


def CassandraScript(version, lib_dir, jmx_port, extra_options=()):
  """The text of bin/cassandra for a node of `version` on `jmx_port`."""
  env_options = (
      f'-Dcassandra.jmx.local.port={jmx_port}',
      f'-Xms{DEFAULT_HEAP}',
      f'-Xmx{DEFAULT_HEAP}',
      *SERVER_ENV_OPTIONS,
      *extra_options,
  )
  return CASSANDRA_SCRIPT.format(
      versioned_options=VersionedOptionsFile(version),
      jamm_jar=JammJar(lib_dir).name,
      env_options=shlex.join(env_options),
  )


def NodetoolScript(jmx_port):
  """The text of bin/nodetool: the node's JMX port unless -p/--port is given.

  Like the tarball's script, which takes the port from cassandra-env.sh,
  and Java from $JAVA_HOME when it is set.
  """
  options = shlex.join([
      *JAVA17_MODULE_OPTIONS,
      *CLIENT_JVM_OPTIONS,
  ])
  return (
      '#!/bin/sh\n'
      "# Stand-in for the Apache tarball's bin/nodetool.\n"
      'home=$(cd "$(dirname "$0")/.." && pwd)\n'
      f'port={jmx_port}\n'
      'for arg in "$@"; do\n'
      '  case "$arg" in -p|--port|--port=*) port= ;; esac\n'
      'done\n'
      'exec "${JAVA_HOME:+$JAVA_HOME/bin/}java"'
      f' {options}'
      ' -Dlogback.configurationFile="$home/conf/logback-tools.xml"'
      ' -cp "$home/lib/*" org.apache.cassandra.tools.NodeTool'
      f' -h {LOOPBACK}'
      ' ${port:+-p "$port"} "$@"\n'
  )


def WriteInstall(install_dir, version, lib_dir, jmx_port, extra_options=()):
  """Writes a stand-in for the unpacked Apache tarball of `version`.

  bin/cassandra and bin/nodetool run the jars of the install's lib/, a
  link to `lib_dir`; conf/ holds jvm-server.options and the versioned jvm
  options file (the collector and module options), logback configurations,
  but no cassandra.yaml. Every path in the scripts is relative to the
  install, so the directory can be packed into a tarball (BuildTarball).

  Args:
    install_dir: the directory to fill (created if needed).
    version: cassandra-all version of the jars.
    lib_dir: the jars (FetchJars).
    jmx_port: the server's JMX port on loopback, nodetool's default port.
    extra_options: more JVM options of the server (bin/cassandra).
  """
  install_dir = pathlib.Path(install_dir)
  bin_dir, conf_dir = install_dir / 'bin', install_dir / 'conf'
  for d in (bin_dir, conf_dir, install_dir / 'logs'):
    d.mkdir(parents=True, exist_ok=True)
  lib_link = install_dir / 'lib'
  if not lib_link.is_symlink():
    lib_link.symlink_to(pathlib.Path(lib_dir).resolve())
  header = '# Stand-in written by perfkit_plugins.testing.cassandra_node\n'
  (conf_dir / 'jvm-server.options').write_text(header + '-Xss256k\n')
  (conf_dir / VersionedOptionsFile(version)).write_text(
      header
      + '\n'.join(cassandra_config.GC_OPTIONS['G1'] + JAVA17_MODULE_OPTIONS)
      + '\n'
  )
  (conf_dir / 'logback.xml').write_text(SERVER_LOGBACK)
  (conf_dir / 'logback-tools.xml').write_text(TOOLS_LOGBACK)
  scripts = {
      'cassandra': CassandraScript(version, lib_dir, jmx_port, extra_options),
      'nodetool': NodetoolScript(jmx_port),
  }
  for name, text in scripts.items():
    (bin_dir / name).write_text(text)
    (bin_dir / name).chmod(0o755)


def BuildTarball(
    version, lib_dir, out_dir, jmx_port=DEFAULT_JMX_PORT, extra_options=()
):
  """Packs a stand-in install into `apache-cassandra-<version>-bin.tar.gz`.

  The archive has the Apache tarball's name and top directory
  (`apache-cassandra-<version>/`), the jars inside its lib/, and the JMX
  port Cassandra's own cassandra-env.sh uses, so the Cassandra engine
  installs and runs it as it would the real one.

  Args:
    version: cassandra-all version of the jars.
    lib_dir: the jars (FetchJars).
    out_dir: existing directory receiving the archive.
    jmx_port: the JMX port of every node started from it.
    extra_options: more JVM options of its servers.

  Returns:
    The archive's path.
  """
  top = cassandra_config.DirName(version)
  archive = pathlib.Path(out_dir) / f'{top}-bin.tar.gz'
  with tempfile.TemporaryDirectory() as scratch:
    WriteInstall(
        pathlib.Path(scratch) / top, version, lib_dir, jmx_port, extra_options
    )
    subprocess.run(
        ['tar', '--dereference', '-czf', str(archive), '-C', scratch, top],
        check=True,
    )
  return archive


def NodeConfig(data_dir, storage_port, native_port):
  """The cassandra.yaml settings of a small single-node cluster.

  Loopback only; every directory under `data_dir`; a small memtable so
  moderate writes flush and compact; understood by Cassandra 4.1 and 5.0.
  """
  data_dir = pathlib.Path(data_dir)
  return {
      'cluster_name': CLUSTER_NAME,
      # Cassandra 5.0's default; with 1, `nodetool status` prints a Token
      # column instead of Tokens, a layout multi-token clusters never show.
      'num_tokens': 16,
      'partitioner': 'org.apache.cassandra.dht.Murmur3Partitioner',
      'endpoint_snitch': 'SimpleSnitch',
      'seed_provider': [{
          'class_name': 'org.apache.cassandra.locator.SimpleSeedProvider',
          'parameters': [{'seeds': f'{LOOPBACK}:{storage_port}'}],
      }],
      'listen_address': LOOPBACK,
      'rpc_address': LOOPBACK,
      'storage_port': storage_port,
      'native_transport_port': native_port,
      'start_native_transport': True,
      'commitlog_sync': 'periodic',
      'commitlog_sync_period': '10000ms',
      'data_file_directories': [str(data_dir / 'data')],
      'commitlog_directory': str(data_dir / 'commitlog'),
      'saved_caches_directory': str(data_dir / 'saved_caches'),
      'hints_directory': str(data_dir / 'hints'),
      'cdc_raw_directory': str(data_dir / 'cdc_raw'),
      'memtable_heap_space': '64MiB',
      'memtable_offheap_space': '64MiB',
      'concurrent_compactors': 1,
      'auto_snapshot': False,
  }


def CqlOptionsFrame():
  """A CQL protocol v4 OPTIONS request frame (header only, no body)."""
  return struct.pack('>BBhBi', 0x04, 0, 0, 0x05, 0)


def ServesCql(port, timeout=2.0):
  """Whether a CQL server on loopback `port` answers OPTIONS with SUPPORTED."""
  try:
    with socket.create_connection((LOOPBACK, port), timeout=timeout) as s:
      s.sendall(CqlOptionsFrame())
      header = s.recv(9)
  except OSError:
    return False
  return len(header) >= 5 and header[4] == 0x06


def ProcessRuns(pid):
  """Whether process `pid` exists and is not a zombie."""
  try:
    stat = pathlib.Path(f'/proc/{pid}/stat').read_text()
  except FileNotFoundError:
    return False
  return stat.rsplit(')', 1)[1].split()[0] != 'Z'


class CassandraNode:
  """One Cassandra node in a directory of its own.

  The directory holds `cassandra/` (the tarball stand-in: WriteInstall) and
  `data/`. Its ports are free loopback ports chosen at construction.

  Attributes:
    version: cassandra-all version.
    base_dir: the node's directory.
    lib_dir: the jars it runs from.
    install_dir: base_dir/cassandra; its bin/ goes first on PATH.
    data_dir: base_dir/data, for every data directory.
    storage_port, native_port, jmx_port: its loopback ports.
    pid_file: where bin/cassandra writes the server's PID (the Cassandra
      engine's default place).
  """

  def __init__(self, version, base_dir, lib_dir):
    self.version = version
    self.base_dir = pathlib.Path(base_dir)
    self.lib_dir = pathlib.Path(lib_dir)
    self.install_dir = self.base_dir / 'cassandra'
    self.data_dir = self.base_dir / 'data'
    self.bin_dir = self.install_dir / 'bin'
    self.conf_dir = self.install_dir / 'conf'
    self.log_dir = self.install_dir / 'logs'
    self.pid_file = self.install_dir / 'cassandra.pid'
    self.storage_port = FreePort()
    self.native_port = FreePort()
    self.jmx_port = FreePort()
    WriteInstall(
        self.install_dir,
        version,
        self.lib_dir,
        self.jmx_port,
        LONE_NODE_OPTIONS,
    )

  @property
  def pid(self):
    """The server's PID from the PID file, or None."""
    try:
      return int(self.pid_file.read_text())
    except (FileNotFoundError, ValueError):
      return None

  def Configure(self):
    """Writes this node's cassandra.yaml (NodeConfig)."""
    (self.conf_dir / 'cassandra.yaml').write_text(
        yaml.safe_dump(
            NodeConfig(self.data_dir, self.storage_port, self.native_port)
        )
    )

  def Start(self, timeout=180):
    """Configures and starts the server, and waits until it serves CQL."""
    self.Configure()
    with open(self.log_dir / 'startup.out', 'ab') as out:
      subprocess.run(
          [str(self.bin_dir / 'cassandra'), '-p', str(self.pid_file)],
          stdout=out,
          stderr=subprocess.STDOUT,
          stdin=subprocess.DEVNULL,
          check=True,
      )
    self.WaitForCql(timeout)

  def WaitForCql(self, timeout=180):
    """Waits until the server serves CQL.

    Raises:
      CassandraNodeError: if the server is not running or does not serve
        CQL within `timeout` seconds (then it is stopped); the error carries
        the end of its logs.
    """
    deadline = time.monotonic() + timeout
    while not ServesCql(self.native_port):
      pid = self.pid
      if pid is None or not ProcessRuns(pid):
        raise CassandraNodeError(
            f'Cassandra {self.version} is not running:\n{self.LogTail()}'
        )
      if time.monotonic() > deadline:
        self.Stop()
        raise CassandraNodeError(
            f'Cassandra {self.version} did not serve CQL on port '
            f'{self.native_port} within {timeout} s:\n{self.LogTail()}'
        )
      time.sleep(0.5)

  def Stop(self, grace=30):
    """Stops the server by its PID: SIGTERM, then SIGKILL after `grace` s."""
    pid = self.pid
    if pid is None or not ProcessRuns(pid):
      return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while ProcessRuns(pid) and time.monotonic() < deadline:
      time.sleep(0.2)
    if ProcessRuns(pid):
      os.kill(pid, signal.SIGKILL)
      while ProcessRuns(pid):
        time.sleep(0.2)

  def LogTail(self, lines=40):
    """The last lines of the server's console output and log."""
    tails = []
    for path in (self.log_dir / 'startup.out', self.log_dir / 'system.log'):
      if path.exists():
        text = path.read_text(errors='replace').splitlines()[-lines:]
        tails.append(f'--- {path}\n' + '\n'.join(text))
    return '\n'.join(tails)

  def Environment(self):
    """os.environ with this node's bin/ first on PATH."""
    env = dict(os.environ)
    env['PATH'] = f'{self.bin_dir}{os.pathsep}{env.get("PATH", "")}'
    return env

  def Nodetool(self, *args, timeout=120):
    """Runs this node's nodetool; returns its stdout.

    Raises:
      CassandraNodeError: if nodetool exits non-zero.
    """
    result = subprocess.run(
        [str(self.bin_dir / 'nodetool'), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode:
      raise CassandraNodeError(
          f'nodetool {shlex.join(args)} exited {result.returncode}:\n'
          f'{result.stdout}\n{result.stderr}'
      )
    return result.stdout


def Main(argv=None):
  """Command line: pre-fetches the jars, e.g. for a CI cache step."""
  parser = argparse.ArgumentParser(description=Main.__doc__)
  parser.add_argument(
      '--fetch-all',
      action='store_true',
      help=f'fetch every version the live tests run: {", ".join(VERSIONS)}',
  )
  parser.add_argument(
      '--fetch',
      action='append',
      default=[],
      metavar='VERSION',
      help='fetch this cassandra-all version (repeatable)',
  )
  args = parser.parse_args(argv)
  versions = (list(VERSIONS) if args.fetch_all else []) + args.fetch
  if not versions:
    parser.error('nothing to fetch: give --fetch-all or --fetch VERSION')
  for version in versions:
    start = time.monotonic()
    lib_dir = FetchJars(version)
    print(
        f'cassandra-all {version}: {lib_dir} ({time.monotonic() - start:.1f} s)'
    )


if __name__ == '__main__':
  Main()
