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

"""Apache Cassandra from Maven Central's jars, laid out as Apache's tarball.

The jars of `org.apache.cassandra:cassandra-all` and its runtime
dependencies are fetched once with Maven into a cache directory
(`FetchJars`; about 100 MB from Maven Central, well under a minute on a fast
link). An install directory laid out like the unpacked Apache tarball the
Cassandra engine installs (`WriteInstall`) runs them: `bin/cassandra` and
`bin/nodetool` launchers in place of the tarball's scripts (Java from
$JAVA_HOME, as the tarball's cassandra.in.sh), `conf/` with the jvm options
files and logback configurations, and `lib/`. `BuildTarball` packs it as
`apache-cassandra-<version>-bin.tar.gz`, which a local mirror serves to the
benchmark; the live tests run the same install directly.
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import tempfile

from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.local import trusted_paths

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
# What a first fetch downloads (the jars and Maven's plugin), for messages.
FETCH_SIZE = 'about 100 MB'

LOOPBACK = '127.0.0.1'
# Heap unless the jvm options files set one (they come later and win).
DEFAULT_HEAP = '768M'
# Cassandra's own JMX port (cassandra-env.sh).
DEFAULT_JMX_PORT = 7199

# JVM options of the servers of a cluster on one host. Small memtables
# (system properties overriding cassandra.yaml, Cassandra 4.1 on): tens of
# MB of writes then flush and compact, as hundreds of GB do on a real
# cluster. The ring delay stays Cassandra's (30 s): no node bootstraps and
# waits it, and a node that starts with its seed waits up to twice as long
# for the seed to answer, time a loaded 2-core host may need.
CLUSTER_OPTIONS = (
    '-Dcassandra.config.allow_system_properties=true',
    '-Dcassandra.settings.memtable_heap_space=4MiB',
    '-Dcassandra.settings.memtable_offheap_space=4MiB',
)

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
# Nodetool is a short-lived client: start it fast and small.
CLIENT_JVM_OPTIONS = (
    '-Xmx256M',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
)

# As the Apache tarball's logback.xml: system.log at INFO, debug.log with
# Cassandra's own DEBUG records (asynchronously).
SERVER_LOGBACK = """<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter">
      <level>INFO</level>
    </filter>
    <file>${cassandra.logdir}/system.log</file>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <appender name="DEBUGLOG" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/debug.log</file>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <appender name="ASYNCDEBUGLOG" class="ch.qos.logback.classic.AsyncAppender">
    <queueSize>1024</queueSize>
    <discardingThreshold>0</discardingThreshold>
    <includeCallerData>true</includeCallerData>
    <appender-ref ref="DEBUGLOG"/>
  </appender>
  <root level="INFO">
    <appender-ref ref="FILE"/>
    <appender-ref ref="ASYNCDEBUGLOG"/>
  </root>
  <logger name="org.apache.cassandra" level="DEBUG"/>
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
  <groupId>perfkit_plugins.local</groupId>
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
# (as the tarball's cassandra.in.sh does), jars from the install's lib/, GC
# log in logs/gc.log (as its cassandra-env.sh does). In
# the background, a subshell stays the server's parent and reaps it when it
# exits, as init does on a real host (where PID 1 does not reap, a `kill -0`
# loop would otherwise wait on a zombie); the script returns once the PID
# file is written.
CASSANDRA_SCRIPT = """#!/bin/sh
# Stand-in for the Apache tarball's bin/cassandra (perfkit_plugins.local).
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
  -Xlog:gc=info,safepoint=info:file="$home/logs/gc.log":time,uptime,level \\
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


class CassandraBuildError(Exception):
  """The jars could not be fetched or the install not built."""


def CacheRoot():
  """The directory holding one jar directory per Cassandra version."""
  return pathlib.Path(
      os.environ.get(CACHE_ENV) or DEFAULT_CACHE_ROOT
  ).expanduser()


def LibDir(version, cache_root=None):
  """The directory of a version's jars (complete only after FetchJars)."""
  return (cache_root or CacheRoot()) / version / 'lib'


def Cached(version, cache_root=None):
  """Whether a version's jars are complete in the cache."""
  return (LibDir(version, cache_root).parent / COMPLETE_MARKER).exists()


# Maven settings of the jar fetch: none of the host's (its own file, as
# both the user's and the global settings).
_MAVEN_SETTINGS = (
    '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0"></settings>\n'
)


def FetchCommand(pom_path, lib_dir):
  """The Maven command that copies cassandra-all and its runtime jars.

  Beside `pom_path` (a directory of the fetch alone, FetchJars) it takes
  its own settings and local repository, nothing of a home's `.m2/`.
  """
  base = pathlib.Path(pom_path).parent
  return [
      'mvn',
      '--batch-mode',
      '--quiet',
      # A jar whose checksum does not match Maven Central's fails the fetch.
      '--strict-checksums',
      '--settings',
      str(base / 'settings.xml'),
      '--global-settings',
      str(base / 'settings.xml'),
      f'-Dmaven.repo.local={base / "repository"}',
      '--file',
      str(pom_path),
      f'{DEPENDENCY_PLUGIN}:copy-dependencies',
      f'-DoutputDirectory={lib_dir}',
      '-DincludeScope=runtime',
  ]


def FetchEnvironment(base, environ=None):
  """The environment of FetchCommand, run in `base`.

  Maven's script takes `.mvn/` (JVM options, more arguments) from the
  nearest directory above the POM that has one, which in a shared cache
  (under /var/tmp) another user could make: MAVEN_BASEDIR pins it to
  `base`, which has none.
  """
  environ = os.environ if environ is None else environ
  return dict(environ, MAVEN_BASEDIR=str(base))


def FetchJars(version, cache_root=None):
  """Fetches cassandra-all `version` and its runtime jars into the cache.

  Does nothing when the version's jars are already complete. The jars are
  copied into a scratch directory first and moved into place at the end, so
  an interrupted fetch never leaves a half-filled cache. Maven runs in a
  directory of its own there, with its POM, settings and local repository
  (removed after): nothing of the caller's directory, of a directory above
  the cache or of a home's `.m2/` is read.

  Args:
    version: a cassandra-all version on Maven Central, e.g. '5.0.9'.
    cache_root: cache directory; default CacheRoot().

  Returns:
    The directory holding the jars.

  Raises:
    CassandraBuildError: if Maven fails.
  """
  lib_dir = LibDir(version, cache_root)
  version_dir = lib_dir.parent
  if (version_dir / COMPLETE_MARKER).exists():
    return lib_dir
  trusted_paths.MakeDirs(version_dir.parent)
  scratch = pathlib.Path(tempfile.mkdtemp(dir=version_dir.parent))
  maven = scratch / 'maven'
  try:
    maven.mkdir()
    pom_path = maven / 'pom.xml'
    pom_path.write_text(FETCH_POM.format(version=version))
    (maven / 'settings.xml').write_text(_MAVEN_SETTINGS)
    result = subprocess.run(
        FetchCommand(pom_path, scratch / 'lib'),
        capture_output=True,
        text=True,
        check=False,
        cwd=maven,
        env=FetchEnvironment(maven),
    )
    if result.returncode:
      raise CassandraBuildError(
          f'mvn could not fetch cassandra-all {version}:\n'
          f'{result.stdout}\n{result.stderr}'
      )
    shutil.rmtree(maven)
    (scratch / COMPLETE_MARKER).write_text(f'cassandra-all {version}\n')
    shutil.rmtree(version_dir, ignore_errors=True)
    scratch.rename(version_dir)
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
  return lib_dir


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
    raise CassandraBuildError(f'expected one jamm jar in {lib_dir}: {jars}')
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
  header = '# Stand-in written by perfkit_plugins.local.cassandra_build\n'
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
        [
            'tar',
            '--dereference',
            # Readable by every user of a machine, whatever the umask.
            '--mode=u+rw,go-w,a+rX',
            '--owner=0',
            '--group=0',
            '-czf',
            str(archive),
            '-C',
            scratch,
            top,
        ],
        check=True,
    )
  return archive
