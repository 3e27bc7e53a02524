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

"""`scylla` (`scylla server`): ScyllaDB's start-up, a Cassandra node behind.

In the order of ScyllaDB's main.cc, with its checks and messages: reads
scylla.yaml (--options-file, else $SCYLLA_CONF/scylla.yaml, else
$SCYLLA_HOME/conf/scylla.yaml: db/config.cc:1981-2000), the command line
over it; derives the directories (db/config.cc:1853-1878); checks the
NOFILE limit and the I/O scheduler's configuration unless in developer mode
(main.cc:454-484, 527-546); creates and verifies the directories ScyllaDB
verifies, locking each (main.cc:1203-1225, utils/directories.cc): not owned
by the running user (unless root) or not readable, writable and searchable,
they stop the start-up. Then it starts the Cassandra node (bin/cassandra, on
the --cpuset's CPUs), serves the REST API and opens the maintenance socket
(transport/controller.cc:174-230), whose connections reach the node's CQL
port, and tells systemd READY=1 (a Type=notify unit) once the node serves
CQL: ScyllaDB says it earlier, when it starts its storage service
(main.cc:2302), but its CQL follows within the same start-up, and
`systemctl start` then returns with the node serving. Every step is also a
STATUS= for systemd and a log line (supervisor.hh:30-44). SIGTERM or SIGINT
stop the node and end the server with exit status 0, as ScyllaDB's
shutdown; a failed start-up ends it with 1 (`Startup failed: ...`,
main.cc:2840-2845).
"""

import dataclasses
import fcntl
import grp
import os
import pathlib
import re
import resource
import signal
import socket
import stat
import threading

import yaml

from scylla_standin import cassandra
from scylla_standin import cql
from scylla_standin import nodetool
from scylla_standin import package
from scylla_standin import rest_api

MAINTENANCE_SOCKET_NAME = 'cql.m'
LOCK_NAME = '.lock'
# main.cc:474-475.
NOFILE_RECOMMENDED = 200_000
NOFILE_MIN = 10_000
# sockaddr_un's sun_path.
MAX_SOCKET_PATH = 108
# How long the Cassandra node may take to drain and stop (the unit's
# TimeoutStopSec is 900 s).
STOP_GRACE_S = 300
POLL_S = 1.0
EXIT_STARTUP_FAILED = 1
# main.cc:2861-2864: an exception before the reactor runs.
EXIT_FATAL = 7
DEFAULT_WORKDIR = '/var/lib/scylla'
# seastar src/core/resource.cc:62-90.
_CPUSET_PART = r'(\d+-)?\d+'


class StartupFailure(Exception):
  """What stops ScyllaDB's start-up; logged as std::runtime_error (...)."""


@dataclasses.dataclass(frozen=True)
class Directories:
  """ScyllaDB's directories, with its defaults (db/config.cc:1853-1878)."""

  workdir: str
  data: tuple
  commitlog: str
  schema_commitlog: str
  hints: str
  view_hints: str
  saved_caches: str


def ConfDir(environ):
  """$SCYLLA_CONF, else $SCYLLA_HOME/conf (db/config.cc:1981-1997)."""
  if environ.get('SCYLLA_CONF') is not None:
    return pathlib.Path(environ['SCYLLA_CONF'])
  return pathlib.Path(environ.get('SCYLLA_HOME', '')) / 'conf'


def ConfigPath(options_file, environ):
  """--options-file, else <conf dir>/scylla.yaml (main.cc:213-220)."""
  if options_file:
    return pathlib.Path(options_file)
  return ConfDir(environ) / 'scylla.yaml'


def ReadConfig(path):
  """scylla.yaml's settings.

  Raises:
    StartupFailure: unreadable, or not a YAML mapping.
  """
  try:
    data = yaml.safe_load(pathlib.Path(path).read_text()) or {}
  except (OSError, yaml.YAMLError) as e:
    raise StartupFailure(
        f'Could not read configuration file {path}: {e}'
    ) from e
  if not isinstance(data, dict):
    raise StartupFailure(f'Could not read configuration file {path}: not a map')
  return data


def Configuration(file_settings, command_line, config_options):
  """scylla.yaml's settings with the command line's config options over them.

  Args:
    file_settings: ReadConfig's.
    command_line: parsed option values (name with dashes -> value).
    config_options: the config keys that are options.
  """
  cfg = dict(file_settings)
  for key in config_options:
    value = command_line.get(key.replace('_', '-'))
    if value is None:
      continue
    if isinstance(value, str):
      value = yaml.safe_load(value) if value else value
    cfg[key] = value
  return cfg


def SetupDirectories(cfg):
  """db::config::setup_directories (db/config.cc:1853-1878)."""
  workdir = str(cfg.get('workdir') or DEFAULT_WORKDIR)

  def InWorkdir(key, sub):
    return str(cfg.get(key) or f'{workdir}/{sub}')

  commitlog = InWorkdir('commitlog_directory', 'commitlog')
  data = cfg.get('data_file_directories') or [f'{workdir}/data']
  if isinstance(data, str):
    data = [data]
  return Directories(
      workdir=workdir,
      data=tuple(str(d) for d in data),
      commitlog=commitlog,
      schema_commitlog=str(
          cfg.get('schema_commitlog_directory') or f'{commitlog}/schema'
      ),
      hints=InWorkdir('hints_directory', 'hints'),
      view_hints=InWorkdir('view_hints_directory', 'view_hints'),
      saved_caches=InWorkdir('saved_caches_directory', 'saved_caches'),
  )


def AdjustAndVerifyRlimit(developer_mode, log):
  """RLIMIT_NOFILE up to its hard limit; too low refuses (main.cc:454-484)."""
  soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
  if soft < hard:
    try:
      resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
      soft = hard
    except (OSError, ValueError) as e:
      log.warning('adjusting RLIMIT_NOFILE failed with %s', e)
  if soft < NOFILE_MIN:
    message = (
        f'NOFILE rlimit too low (recommended setting {NOFILE_RECOMMENDED},'
        f' minimum setting {NOFILE_MIN};'
    )
    if developer_mode:
      log.warning('%s you may run out of file descriptors.', message)
    else:
      log.error('%s refusing to start.', message)
      raise StartupFailure('NOFILE rlimit too low')


def VerifyIoScheduler(command_line, developer_mode, log):
  """--io-properties(-file) are given (main.cc:527-546) and readable.

  Seastar reads the file's `disks` list before anything runs.
  """
  cause = None
  if command_line.get('io-properties-file'):
    path = command_line['io-properties-file']
    try:
      disks = (yaml.safe_load(pathlib.Path(path).read_text()) or {}).get(
          'disks'
      )
    except (OSError, yaml.YAMLError, AttributeError) as e:
      raise StartupFailure(
          f'cannot read --io-properties-file {path}: {e}'
      ) from e
    if not disks:
      raise StartupFailure(f'no disks in --io-properties-file {path}')
  elif not command_line.get('io-properties'):
    cause = 'none of --io-properties and --io-properties-file are set.'
  if cause is None:
    return
  message = (
      'I/O Scheduler is not properly configured! This is a non-supported'
      ' setup, and performance is expected to be unpredictably bad.\n'
      f' Reason found: {cause}\nTo properly configure the I/O Scheduler, run'
      ' the scylla_io_setup utility shipped with Scylla.\n'
  )
  if developer_mode:
    log.warning('%s', message)
    return
  log.error(
      '%sTo ignore this, see the developer-mode configuration option.', message
  )
  raise StartupFailure('Bad I/O Scheduler configuration')


def ParseCpuset(text):
  """A cpuset(7) list as seastar reads it, or None (resource.cc:62-90)."""
  if not re.fullmatch(rf'{_CPUSET_PART}(,{_CPUSET_PART})*', text):
    return None
  cpus = set()
  for part in text.split(','):
    begin, _, end = part.partition('-')
    first, last = int(begin), int(end or begin)
    if first > last:
      return None
    cpus.update(range(first, last + 1))
  return cpus


def Shards(command_line, cpus):
  """--smp, else the cpuset's CPUs, else the CPUs this process may use."""
  if command_line.get('smp'):
    return int(command_line['smp'])
  return len(cpus or os.sched_getaffinity(0))


def VerifyOwnerAndMode(path, recursive, log, level=0, euid=None):
  """utils/directories.cc:108-156: owned by the euid (unless 0), accessible.

  Raises:
    StartupFailure: a file or directory that fails.
  """
  euid = os.geteuid() if euid is None else euid

  def Fail(message):
    log.error('%s: %s', path, message)
    raise StartupFailure(message)

  try:
    st = os.lstat(path)
  except OSError as e:
    log.warning("Could not stat %s: '%s'. Skipping the file", path, e)
    return
  if euid not in (0, st.st_uid):
    Fail(f'File not owned by current euid: {euid}. Owner is: {st.st_uid}')
  if stat.S_ISREG(st.st_mode):
    if not os.access(path, os.R_OK):
      Fail('File cannot be accessed for read')
  elif stat.S_ISDIR(st.st_mode):
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
      Fail('Directory cannot be accessed for read, write, and execute')
    if level and not recursive:
      return
    for name in sorted(os.listdir(path)):
      if not name.startswith('.'):
        VerifyOwnerAndMode(
            os.path.join(path, name), recursive, log, level + 1, euid
        )
  else:
    Fail(
        'Must be either a regular file or a directory'
        f' (type={stat.S_IFMT(st.st_mode)})'
    )


class DirectoryLocks:
  """utils::directories: creates, locks and verifies directories."""

  def __init__(self, log):
    self._log = log
    self._locks = []

  def CreateAndVerify(self, paths, recursive=True):
    """directories.cc:32-97: mkdir -p, lock `.lock`, verify owner and mode."""
    for path in paths:
      try:
        os.makedirs(path, exist_ok=True)
      except OSError as e:
        self._log.error(
            (
                "Directory '%s' cannot be initialized. Tried to do it but"
                ' failed with: %s'
            ),
            path,
            e,
        )
        raise StartupFailure(str(e)) from e
      lock_path = os.path.join(path, LOCK_NAME)
      try:
        lock = open(lock_path, 'a')  # pylint: disable=consider-using-with
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
      except OSError as e:
        self._log.error('Could not initialize %s: %s', path, e)
        raise StartupFailure(f'Could not initialize {path}: {e}') from e
      self._locks.append(lock)
      try:
        VerifyOwnerAndMode(path, recursive, self._log)
      except StartupFailure as e:
        self._log.error('Failed owner and mode verification: %s', e)
        raise

  def Release(self):
    for lock in self._locks:
      lock.close()
    self._locks = []


class MaintenanceSocket:
  """The maintenance socket (transport/controller.cc:174-230).

  A unix socket, rw for its owner and group (and given to
  maintenance_socket_group when set), whose connections are passed on to
  the node's CQL port: ScyllaDB's serves CQL on it.
  """

  def __init__(self, path, target, group=None):
    self.path = str(path)
    self.target = target
    if len(self.path) > MAX_SOCKET_PATH - 1:
      raise StartupFailure(
          f'Maintenance socket path is too long: {self.path}. Change it to'
          f' string shorter than {MAX_SOCKET_PATH} chars.'
      )
    if os.path.lexists(self.path):
      if not stat.S_ISSOCK(os.lstat(self.path).st_mode):
        raise StartupFailure(
            f'Under maintenance socket path ({self.path}) there is something'
            ' else.'
        )
      os.remove(self.path)
    self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    self.socket.bind(self.path)
    os.chmod(self.path, 0o660)
    if group:
      try:
        gid = grp.getgrnam(group).gr_gid
      except KeyError as e:
        raise StartupFailure(
            f'Group id of {group} not found. Make sure the group exists.'
        ) from e
      try:
        os.chown(self.path, os.geteuid(), gid)
      except PermissionError as e:
        raise StartupFailure(
            f'Failed to change group of {self.path}: Permission denied. Make'
            ' sure the user has the root privilege or is a member of the'
            f' group {group}.'
        ) from e
    self.socket.listen(64)
    self._thread = threading.Thread(target=self._Accept, daemon=True)

  def Start(self):
    self._thread.start()

  def _Accept(self):
    while True:
      try:
        client, _ = self.socket.accept()
      except OSError:
        return
      threading.Thread(target=self._Serve, args=(client,), daemon=True).start()

  def _Serve(self, client):
    try:
      server = socket.create_connection(self.target, timeout=10)
    except OSError:
      client.close()
      return
    server.settimeout(None)
    threading.Thread(target=_Pipe, args=(server, client), daemon=True).start()
    _Pipe(client, server)

  def Stop(self):
    self.socket.close()
    try:
      os.remove(self.path)
    except OSError:
      pass


def _Pipe(source, target):
  """Copies source to target until either closes."""
  try:
    while data := source.recv(1 << 16):
      target.sendall(data)
  except OSError:
    pass
  finally:
    try:
      target.shutdown(socket.SHUT_WR)
    except OSError:
      pass


def Notify(message, log, ready=False, environ=None):
  """supervisor::notify (supervisor.hh:30-44): log, and tell systemd."""
  log.info('%s', message)
  environ = os.environ if environ is None else environ
  address = environ.get('NOTIFY_SOCKET')
  if not address:
    return
  if address.startswith('@'):
    address = '\0' + address[1:]
  text = f'READY=1\nSTATUS={message}\n' if ready else f'STATUS={message}\n'
  try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
      s.sendto(text.encode(), address)
  except OSError as e:
    log.warning('could not notify systemd at %s: %s', address, e)


class _StopSignal:
  """SIGINT and SIGTERM request a shutdown; SIGHUP is logged."""

  def __init__(self, log):
    self.event = threading.Event()
    self._log = log
    for signum in (signal.SIGINT, signal.SIGTERM):
      signal.signal(signum, self._Stop)
    signal.signal(signal.SIGHUP, self._Hup)

  def _Stop(self, signum, frame):
    del signum, frame
    self.event.set()

  def _Hup(self, signum, frame):
    del signum, frame
    self._log.warning(
        'SIGHUP: the stand-in does not re-read scylla.yaml (ScyllaDB would)'
    )


def DeveloperMode(cfg):
  value = cfg.get('developer_mode', False)
  return value is True or str(value).lower() in ('1', 'true', 'yes', 'on')


class Server:
  """One run of the server."""

  def __init__(self, settings, command_line, environ=None):
    """Args: settings: package.Settings; command_line: parsed option values."""
    self.settings = settings
    self.command_line = command_line
    self.environ = dict(os.environ if environ is None else environ)
    self.log = package.Logger('init')
    self.locks = DirectoryLocks(self.log)
    self.node = None
    self.api = None
    self.maintenance = None

  def Run(self):
    """Starts, serves until stopped; returns the exit status."""
    stop = _StopSignal(self.log)
    try:
      serving = self._Start(stop.event)
    except (
        StartupFailure,
        cassandra.ConfigError,
        package.StandinError,
        OSError,
    ) as e:
      self.log.error('Startup failed: std::runtime_error (%s)', e)
      self._Shutdown()
      return EXIT_STARTUP_FAILED
    if serving:
      Notify('serving', self.log, ready=True, environ=self.environ)
      self.log.info(
          'Scylla version %s initialization completed.',
          self.settings.scylla_version,
      )
      while not stop.event.wait(POLL_S):
        if not self.node.Running():
          self.log.error(
              'the Cassandra node exited with status %s',
              self.node.process.returncode,
          )
          self._Shutdown()
          return EXIT_STARTUP_FAILED
    self.log.info('Signal received; shutting down')
    self._Shutdown()
    self.log.info(
        'Scylla version %s shutdown complete.', self.settings.scylla_version
    )
    return 0

  def _Start(self, stop):
    """Up to serving CQL: True, or False when asked to stop first."""
    path = ConfigPath(self.command_line.get('options-file'), self.environ)
    try:
      file_settings = ReadConfig(path)
    except StartupFailure as e:
      self.log.error('%s', e)
      raise
    cfg = Configuration(
        file_settings, self.command_line, self.settings.config_options
    )
    dirs = SetupDirectories(cfg)
    developer_mode = DeveloperMode(cfg)
    AdjustAndVerifyRlimit(developer_mode, self.log)
    VerifyIoScheduler(self.command_line, developer_mode, self.log)
    cpus = None
    if self.command_line.get('cpuset'):
      cpus = ParseCpuset(self.command_line['cpuset'])
    node_settings = cassandra.CassandraYaml(cfg, dirs)
    rackdc_text = None
    if node_settings['endpoint_snitch'] == 'GossipingPropertyFileSnitch':
      rackdc = ConfDir(self.environ) / cassandra.RACKDC
      try:
        rackdc_text = rackdc.read_text()
      except OSError as e:
        raise StartupFailure(f'Failed to open {rackdc} for read: {e}') from e
      cassandra.CheckRackDc(rackdc_text, rackdc)

    Notify('creating and verifying directories', self.log, environ=self.environ)
    self.locks.CreateAndVerify([dirs.commitlog, dirs.schema_commitlog])
    self.locks.CreateAndVerify(dirs.data, recursive=False)
    for data in dirs.data:
      VerifyOwnerAndMode(data, True, self.log)
    shards = Shards(self.command_line, cpus)
    for hints in (dirs.hints, dirs.view_hints):
      self.locks.CreateAndVerify([f'{hints}/{i}' for i in range(shards)])

    Notify('starting the Cassandra node', self.log, environ=self.environ)
    java_home = package.JavaHome(self.environ)
    self.node = cassandra.Node(self.settings.cassandra_home, dirs.workdir)
    self.node.Write(
        node_settings,
        rackdc_text,
        self.settings.Heap(self.environ),
        cassandra.JvmOptions(self.environ),
    )
    self.node.Start(package.ChildEnvironment(self.environ, java_home), cpus)

    Notify('starting REST API', self.log, environ=self.environ)
    api_address = str(cfg.get('api_address') or cassandra.ProbeAddress(cfg))
    api_port = int(cfg.get('api_port') or 10000)
    try:
      self.api = rest_api.RestApi(api_address, api_port, self._Nodetool)
    except OSError as e:
      raise StartupFailure(f'REST API on {api_address}:{api_port}: {e}') from e
    self.api.Start()
    self.log.info(
        'Scylla API server listening on %s:%s ...', api_address, api_port
    )

    cql_address = (
        cassandra.ProbeAddress(cfg),
        int(cfg.get('native_transport_port') or 9042),
    )
    socket_setting = str(cfg.get('maintenance_socket') or 'workdir')
    if socket_setting != 'ignore':
      socket_path = (
          f'{dirs.workdir}/{MAINTENANCE_SOCKET_NAME}'
          if socket_setting == 'workdir'
          else socket_setting
      )
      self.log.info('Setting up maintenance socket on %s', socket_path)
      try:
        self.maintenance = MaintenanceSocket(
            socket_path,
            cql_address,
            cfg.get('maintenance_socket_group') or None,
        )
      except OSError as e:
        raise StartupFailure(f'maintenance socket {socket_path}: {e}') from e
      self.maintenance.Start()

    Notify(
        'waiting for the Cassandra node to serve CQL',
        self.log,
        environ=self.environ,
    )
    while not stop.is_set():
      if not self.node.Running():
        raise StartupFailure(
            'the Cassandra node exited with status'
            f' {self.node.process.returncode}'
        )
      if cql.ServesCql(*cql_address):
        return True
      stop.wait(POLL_S)
    return False

  def _Nodetool(self, *args):
    status, out, err = nodetool.CassandraNodetool(
        self.settings, args, self.environ
    )
    if status:
      raise rest_api.NodetoolFailed(f'nodetool {" ".join(args)}: {out}{err}')
    return out

  def _Shutdown(self):
    if self.maintenance:
      self.maintenance.Stop()
    if self.api:
      self.api.Stop()
    if self.node:
      self.node.Stop(STOP_GRACE_S)
    self.locks.Release()
