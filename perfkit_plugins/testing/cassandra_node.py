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

Tests use it to drive the plugin's own code against a live database. The
jars and the install directory laid out like Apache's tarball come from the
product (perfkit_plugins/local/cassandra_build.py: `FetchJars`,
`WriteInstall`), which a local cluster's mirror serves as a tarball; so the
engine's own commands (`bin/cassandra -R -p <pid file>`, `nodetool ...`,
edits of `conf/`) work on it unchanged, and a node used only as a fixture is
started the same way (`CassandraNode`): on free loopback ports, data in its
directory, a small heap, stopped by its PID.
"""

import argparse
import os
import pathlib
import shlex
import signal
import socket
import subprocess
import time

import yaml

from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.local import cassandra_build

# The jars and the install: the product's (re-exported for the tests).
CASSANDRA_50 = cassandra_build.CASSANDRA_50
CASSANDRA_41 = cassandra_build.CASSANDRA_41
VERSIONS = cassandra_build.VERSIONS
CACHE_ENV = cassandra_build.CACHE_ENV
DEFAULT_CACHE_ROOT = cassandra_build.DEFAULT_CACHE_ROOT
COMPLETE_MARKER = cassandra_build.COMPLETE_MARKER
DEFAULT_HEAP = cassandra_build.DEFAULT_HEAP
DEFAULT_JMX_PORT = cassandra_build.DEFAULT_JMX_PORT
JAVA17_MODULE_OPTIONS = cassandra_build.JAVA17_MODULE_OPTIONS
CacheRoot = cassandra_build.CacheRoot
LibDir = cassandra_build.LibDir
FetchCommand = cassandra_build.FetchCommand
FetchJars = cassandra_build.FetchJars
VersionedOptionsFile = cassandra_build.VersionedOptionsFile
JammJar = cassandra_build.JammJar
CassandraScript = cassandra_build.CassandraScript
NodetoolScript = cassandra_build.NodetoolScript
WriteInstall = cassandra_build.WriteInstall
BuildTarball = cassandra_build.BuildTarball
# One error for the jars, the install and the node.
CassandraNodeError = cassandra_build.CassandraBuildError

LOOPBACK = cassandra_build.LOOPBACK
CLUSTER_NAME = 'perfkit_plugins_live'
# Start-up shortcuts for a lone seed: the engine's (no wait for gossip to
# settle) and a short ring delay (no peers to wait for). Not for clusters: a
# joining node gives up on its seeds after the ring delay, which a loaded
# host can overrun.
LONE_NODE_OPTIONS = (
    *cassandra_config.START_OPTIONS,
    '-Dcassandra.ring_delay_ms=1000',
)


def FreePort():
  """A TCP port on loopback that nothing listens on right now."""
  with socket.socket() as s:
    s.bind((LOOPBACK, 0))
    return s.getsockname()[1]


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


def ServesCql(port, timeout=2.0):
  """Whether a CQL server on loopback `port` answers OPTIONS with SUPPORTED.

  Asked with the product's probe (node_status.CqlProbeCommand), run here.
  """
  result = subprocess.run(
      ['sh', '-c', node_status.CqlProbeCommand(LOOPBACK, port, timeout)],
      capture_output=True,
      text=True,
      check=True,
  )
  return node_status.ParseCqlProbe(result.stdout).serving


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
    self.pid_file = self.log_dir / 'cassandra.pid'
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
