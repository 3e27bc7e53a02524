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

"""Apache Cassandra behind the Engine interface.

How this relates to PKB's `linux_packages/cassandra.py`: that package pins
apache-cassandra-5.0.0 in a module constant, renders its own cassandra.yaml
from PKB's `cassandra_*` flags (fixed 256 tokens, heap buffers, 64 MiB/s
compaction), installs `openjdk` through the `--openjdk_version` flag and starts
nodes with fixed sleeps. None of that can honour `--scylla_cassandra_version`
or the tuning flags without monkey-patching module constants, so the engine
does not call it. It keeps PKB's approach and layout instead: the binary
tarball from archive.apache.org (same URL scheme), unpacked under PKB's
install directory (linux_packages.INSTALL_DIR, handed in by the shell),
`bin/cassandra -p <pid file>` to start, `kill` of that PID to stop, nodetool
for everything else, and a cassandra.yaml rendered from a template (ours, in
perfkit_plugins/data/scylla_phases/cassandra/).

The yaml is short: the keys this benchmark decides (names, seeds, addresses,
snitch, every directory on the data disk, token allocation) plus the tuning
flags that were set (core/software/cassandra_config.py picks 4.0 or 4.1+ key
names). Keys it does not write take Cassandra's built-in defaults, which equal
the shipped cassandra.yaml's for everything that matters here except the token
count (built-in 1, shipped 16): that one is written. Heap and GC go into the
shipped jvm options files: the engine appends its options to
jvm-server.options and, when a collector is chosen, comments out the shipped
collector lines first (two collectors make the JVM exit).

Every path and port is a constructor argument, so tests can point the engine
at a node running on this machine.
"""

import logging
import os
import posixpath
import shlex

from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.results import thread_pools
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import token_ring
from perfkit_plugins.engines import base
from perfkit_plugins.operations import data_dir as data_dir_lib
from perfkit_plugins.operations import java_install
from perfkit_plugins.operations import tarballs

# The PKB package module that installs the server (linux_packages/).
PACKAGE = 'scylla_apache_cassandra'
CLUSTER_NAME = 'scylla_phases'
TEMPLATE_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    'data',
    'scylla_phases',
    'cassandra',
)
YAML_TEMPLATE = os.path.join(TEMPLATE_DIR, 'cassandra.yaml.j2')
RACKDC_TEMPLATE = os.path.join(TEMPLATE_DIR, 'cassandra-rackdc.properties.j2')
# Header of the engine's block in jvm-server.options.
JVM_OPTIONS_HEADER = '# scylla_phases (perfkit_plugins) settings'
# Seconds Stop waits for the JVM to exit before it kills it.
STOP_GRACE_S = 120
# The system user Apache Cassandra's own packages run it as. The engine
# runs every server so (the user made where missing), and the directories
# the database writes are that user's; the ssh user configures it with sudo.
SYSTEM_USER = 'cassandra'


def InstallDirOf(settings, root):
  """Where InstallServer unpacks the settings' Cassandra under `root`."""
  return tarballs.InstallDir(
      cassandra_config.DirName(settings.cassandra_version), root
  )


def InstallServer(vm, settings, package_manager, root):
  """Installs the verified Cassandra tarball and links the JDK it runs on.

  Args:
    vm: the server VM.
    settings: settings.Settings (version, tarball URL and checksum).
    package_manager: 'apt' or 'yum', for the JDK package name.
    root: the install root (PKB's linux_packages.INSTALL_DIR).

  Returns:
    The install directory.
  """
  vm.InstallPackages('curl')
  install_dir, _ = tarballs.Fetch(
      vm,
      cassandra_config.Tarball(settings),
      cassandra_config.DirName(settings.cassandra_version),
      root,
  )
  java_install.Ensure(
      vm,
      cassandra_config.JavaOf(settings.cassandra_version),
      package_manager,
      install_dir,
  )
  return install_dir


def SystemUserCommand(user, home):
  """Makes `user` a system user (with a group of its own) where missing."""
  return (
      f'id -u {shlex.quote(user)} >/dev/null 2>&1 || sudo useradd --system'
      f' --user-group --no-create-home --home-dir {shlex.quote(home)}'
      f' --shell /usr/sbin/nologin {shlex.quote(user)}'
  )


def _DataSubdirs(data_dir):
  return [
      posixpath.join(data_dir, sub) for _, sub in cassandra_config.DATA_SUBDIRS
  ]


def PrepareDirsCommand(data_dir, log_dir, run_as=None):
  """Creates the directories the database writes, as its user's own.

  The database's subdirectories of the claimed data directory and its log
  directory; with `run_as`, owned by that user (sudo), else by the ssh user.
  """
  dirs = ' '.join(shlex.quote(d) for d in [*_DataSubdirs(data_dir), log_dir])
  if run_as:
    user = shlex.quote(run_as)
    return f'sudo install -d -o {user} -g {user} -m 755 {dirs}'
  return f'mkdir -p {dirs}'


def ReadableInstallCommand(install_dir, log_dir):
  """Lets every user read the install the ssh user unpacked and configured.

  The database's own user runs it: whatever the ssh user's umask, it must
  read the scripts, jars and config files (not the logs: its own).
  """
  return (
      f'find {shlex.quote(install_dir)} -path {shlex.quote(log_dir)} -prune'
      ' -o ! -type l -exec chmod a+rX {} +'
  )


def JvmOptionsCommand(conf_dir, file_name, options=(), comment_gc=False):
  """Rewrites one shipped jvm options file from its pristine copy.

  The first run saves `<file>.orig`; every run writes the file anew from it,
  so configuring twice gives the same result.

  Args:
    conf_dir: Cassandra's conf directory.
    file_name: e.g. 'jvm-server.options'.
    options: JVM options to append, one per line.
    comment_gc: comment out the shipped collector lines
      (cassandra_config.GC_LINES_SED).

  Returns:
    A POSIX shell command.
  """
  path = shlex.quote(posixpath.join(conf_dir, file_name))
  orig = shlex.quote(posixpath.join(conf_dir, file_name + '.orig'))
  if comment_gc:
    source = f'sed -E {shlex.quote(cassandra_config.GC_LINES_SED)} {orig}'
  else:
    source = f'cat {orig}'
  if options:
    lines = ' '.join(shlex.quote(o) for o in (JVM_OPTIONS_HEADER, *options))
    source += f" && printf '%s\\n' {lines}"
  return f'{{ [ -f {orig} ] || cp {path} {orig}; }} && {{ {source}; }} > {path}'


def StartCommand(install_dir, pid_file, out_file, run_as=None):
  """Starts Cassandra in the background (`-R`: also when run as root).

  On the JDK linked into the install (java_install.Ensure); as `run_as`
  (sudo) when given, else as the ssh user.
  """
  start = (
      f'cd {shlex.quote(install_dir)}'
      f' && {java_install.EnvPrefix(install_dir)} bin/cassandra -R'
      f' -p {shlex.quote(pid_file)} > {shlex.quote(out_file)} 2>&1'
  )
  if run_as:
    return f'sudo -u {shlex.quote(run_as)} sh -c {shlex.quote(start)}'
  return f'mkdir -p {shlex.quote(posixpath.dirname(out_file))} && {start}'


def RunningCommand(pid_file):
  """Prints `running` while the process of `pid_file` exists (any user's)."""
  pid_path = shlex.quote(pid_file)
  return (
      f'if [ -f {pid_path} ] && ps -p "$(cat {pid_path})" >/dev/null 2>&1;'
      ' then echo running; else echo stopped; fi'
  )


def StopCommand(pid_file, grace_s=STOP_GRACE_S, sudo=False):
  """Stops the process of `pid_file`: TERM, then KILL after grace_s.

  With sudo: the process is another user's (the database's own).
  """
  pid_path = shlex.quote(pid_file)
  as_owner = 'sudo ' if sudo else ''
  return (
      f'if [ -f {pid_path} ]; then pid=$(cat {pid_path});'
      f' {as_owner}kill "$pid" 2>/dev/null; i=0;'
      f' while ps -p "$pid" >/dev/null 2>&1 && [ "$i" -lt {int(grace_s)} ];'
      ' do sleep 1; i=$((i+1)); done;'
      f' {as_owner}kill -9 "$pid" 2>/dev/null; {as_owner}rm -f {pid_path}; fi'
  )


class CassandraEngine(base.Engine):
  """Apache Cassandra from the Apache tarball, tuned by the settings.

  Attributes:
    data_dir: the data disk's mount point (data, commitlog, caches, hints).
    install_dir: the unpacked tarball.
    conf_dir: its conf/ directory.
    log_dir: where Cassandra writes system.log, debug.log and gc.log.
    pid_file: written by bin/cassandra -p, in log_dir.
    out_file: the start command's stdout and stderr.
    nodetool: the nodetool launcher.
    jmx_port: nodetool's JMX port, or None for nodetool's default (7199).
    storage_port: internode port written into cassandra.yaml.
    native_port: CQL port written into cassandra.yaml.
    cluster_name: cluster_name in cassandra.yaml.
    owner: the run's id, recorded in the data directory it claims.
    run_as: the system user the database runs as (SYSTEM_USER on servers),
      or None for the ssh user (a node on this machine, in tests).
  """

  NAME = 'cassandra'

  def __init__(
      self,
      settings,
      data_dir,
      install_dir,
      nodetool=None,
      jmx_port=None,
      storage_port=7000,
      native_port=9042,
      cluster_name=CLUSTER_NAME,
      owner='',
      run_as=None,
  ):
    super().__init__(settings)
    self.owner = owner
    self.run_as = run_as
    self.data_dir = data_dir
    self.install_dir = install_dir
    self.conf_dir = posixpath.join(self.install_dir, 'conf')
    self.log_dir = posixpath.join(self.install_dir, 'logs')
    self.pid_file = posixpath.join(self.log_dir, 'cassandra.pid')
    self.out_file = posixpath.join(self.log_dir, 'startup.out')
    self.nodetool = nodetool or posixpath.join(
        self.install_dir, 'bin', 'nodetool'
    )
    self.jmx_port = jmx_port
    self.storage_port = storage_port
    self.native_port = native_port
    self.cluster_name = cluster_name

  def NodetoolCommand(self, *args, utc=False):
    """A nodetool command line on the install's JDK; utc=True: UTC times."""
    words = [self.nodetool]
    if self.jmx_port:
      words += ['-p', str(self.jmx_port)]
    command = (
        f'{java_install.EnvPrefix(self.install_dir)}'
        f' {shlex.join([*words, *args])}'
    )
    return f'TZ=UTC {command}' if utc else command

  def _Nodetool(self, vm, *args, utc=False):
    stdout, _ = vm.RemoteCommand(self.NodetoolCommand(*args, utc=utc))
    return stdout

  def Install(self, vm):
    """Installs the tarball and JDK through the PKB package (apt or yum)."""
    vm.Install(PACKAGE)

  # Every node's tokens are in its cassandra.yaml before it starts and no
  # node bootstraps (cassandra.yaml.j2), so none waits for another's join;
  # one that starts before its seed answers waits for it (up to twice the
  # ring delay, as Cassandra's own in-JVM tests start such nodes).
  JOINS_AT_ONCE = True

  def Configure(self, vm, seed_ips, ring_slot):
    """Claims the data directory; writes cassandra.yaml, rack file, JVM options.

    Raises:
      data_dir.DataDirError: the data directory holds files this run did
        not write (and --scylla_allow_existing_data is not set).
    """
    s = self.settings
    if self.run_as:
      vm.RemoteCommand(SystemUserCommand(self.run_as, self.data_dir))
    data_dir_lib.Claim(vm, self.data_dir, self.owner, s.allow_existing_data)
    vm.RemoteCommand(
        PrepareDirsCommand(self.data_dir, self.log_dir, self.run_as)
    )
    self.volumes[vm.name] = data_dir_lib.Describe(vm, self.data_dir)
    vm.RenderTemplate(
        YAML_TEMPLATE,
        posixpath.join(self.conf_dir, 'cassandra.yaml'),
        cassandra_config.YamlContext(
            s,
            cluster_name=self.cluster_name,
            seed_ips=seed_ips,
            initial_tokens=token_ring.EvenTokens(
                ring_slot, cassandra_config.NUM_TOKENS
            ),
            listen_address=vm.internal_ip,
            data_dir=self.data_dir,
            storage_port=self.storage_port,
            native_port=self.native_port,
        ),
    )
    vm.RenderTemplate(
        RACKDC_TEMPLATE,
        posixpath.join(self.conf_dir, 'cassandra-rackdc.properties'),
        cassandra_config.RackdcContext(),
    )
    comment_gc = bool(s.cassandra_gc)
    common, versioned = cassandra_config.JvmOptionsFiles(s.cassandra_version)
    vm.RemoteCommand(
        JvmOptionsCommand(
            self.conf_dir,
            common,
            cassandra_config.JvmOptions(s, vm.num_cpus),
            comment_gc,
        )
    )
    if comment_gc:
      vm.RemoteCommand(
          JvmOptionsCommand(self.conf_dir, versioned, comment_gc=True)
      )
    vm.RemoteCommand(ReadableInstallCommand(self.install_dir, self.log_dir))

  def Start(self, vm):
    vm.RemoteCommand(
        StartCommand(
            self.install_dir, self.pid_file, self.out_file, self.run_as
        )
    )

  def Stop(self, vm):
    vm.RemoteCommand(StopCommand(self.pid_file, sudo=bool(self.run_as)))

  def Running(self, vm):
    out, _ = vm.RemoteCommand(RunningCommand(self.pid_file))
    return out.strip() == 'running'

  def Clean(self, vm):
    """Removes the data this run wrote (never data it started on)."""
    subdirs = ' '.join(shlex.quote(d) for d in _DataSubdirs(self.data_dir))
    remove = f'{"sudo " if self.run_as else ""}rm -rf {subdirs}'
    vm.RemoteCommand(
        data_dir_lib.ReleaseCommand(self.data_dir, self.owner, remove)
    )

  def Tuning(self, vms):
    """Version and each node's data volume, as the cluster's metadata."""
    per_node = {
        vm.name: (
            {'scylla_version': self.Version(vm)}
            | (
                self.volumes[vm.name].Metadata()
                if vm.name in self.volumes
                else {}
            )
        )
        for vm in vms
    }
    metadata, differences = tuning.ClusterMetadata(per_node)
    for difference in differences:
      logging.warning('Cassandra nodes differ: %s', difference)
    return metadata, None

  def NodeStates(self, vm):
    return node_status.ParseNodetoolStatus(self._Nodetool(vm, 'status'))

  def Flush(self, vm, keyspace):
    self._Nodetool(vm, 'flush', keyspace)

  def CompactionStatus(self, vm):
    return compactions.ParseCompactionStats(
        self._Nodetool(vm, 'compactionstats')
    )

  def ThreadPools(self, vm):
    return thread_pools.ParseTpstats(self._Nodetool(vm, 'tpstats'))

  def CompactionHistory(self, vm):
    return compactions.ParseCompactionHistory(
        self._Nodetool(vm, 'compactionhistory', utc=True)
    )

  def Version(self, vm):
    return cassandra_config.ParseReleaseVersion(self._Nodetool(vm, 'version'))

  def LogPaths(self):
    common, versioned = cassandra_config.JvmOptionsFiles(
        self.settings.cassandra_version
    )
    logs = ('system.log', 'debug.log', 'gc.log', 'startup.out')
    confs = (
        'cassandra.yaml',
        'cassandra-rackdc.properties',
        common,
        versioned,
    )
    return [posixpath.join(self.log_dir, f) for f in logs] + [
        posixpath.join(self.conf_dir, f) for f in confs
    ]
