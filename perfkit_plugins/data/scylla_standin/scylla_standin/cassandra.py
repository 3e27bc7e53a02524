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

"""The Apache Cassandra node behind the stand-in server.

Configured from scylla.yaml: the cluster, seeds, addresses and ports,
snitch, tokens and the settings both databases share, with every data
directory a `cassandra` directory inside ScyllaDB's own (data, commitlog,
hints, saved caches), so what removes ScyllaDB's data removes the node's.
It runs from the package's Cassandra install (bin/cassandra in the
foreground, Java from JAVA_HOME) in a home of its own in ScyllaDB's workdir:
bin/ (links to the install's scripts), conf/ (the install's jvm options with
the heap appended, cassandra.yaml, cassandra-rackdc.properties and a
logback.xml that logs to the console, which systemd's journal keeps),
lib/ (a link to the install's jars) and logs/ (the GC log).
"""

import ctypes
import os
import pathlib
import shlex
import signal
import subprocess

import yaml

from scylla_standin import package

SUBDIR = 'cassandra'
HOME_NAME = 'standin-cassandra'
# Snitches, authenticators and authorizers named alike in both databases.
SNITCHES = (
    'SimpleSnitch',
    'GossipingPropertyFileSnitch',
    'RackInferringSnitch',
)
AUTHENTICATORS = ('AllowAllAuthenticator', 'PasswordAuthenticator')
AUTHORIZERS = ('AllowAllAuthorizer', 'CassandraAuthorizer')
PARTITIONER = 'org.apache.cassandra.dht.Murmur3Partitioner'
RACKDC = 'cassandra-rackdc.properties'
# ScyllaDB's millisecond settings and Cassandra 4.1+'s names for them.
_MILLISECONDS = {
    'read_request_timeout_in_ms': 'read_request_timeout',
    'write_request_timeout_in_ms': 'write_request_timeout',
    'range_request_timeout_in_ms': 'range_request_timeout',
    'counter_write_request_timeout_in_ms': 'counter_write_request_timeout',
    'cas_contention_timeout_in_ms': 'cas_contention_timeout',
    'truncate_request_timeout_in_ms': 'truncate_request_timeout',
    'request_timeout_in_ms': 'request_timeout',
    'commitlog_sync_period_in_ms': 'commitlog_sync_period',
}
_KIBIBYTES = {
    'batch_size_warn_threshold_in_kb': 'batch_size_warn_threshold',
    'batch_size_fail_threshold_in_kb': 'batch_size_fail_threshold',
}
# Settings both take under the same name and meaning.
_SAME = (
    'listen_address',
    'listen_interface',
    'broadcast_address',
    'rpc_address',
    'rpc_interface',
    'broadcast_rpc_address',
    'storage_port',
    'native_transport_port',
    'start_native_transport',
    'initial_token',
    'auto_snapshot',
    'commitlog_sync',
)
# ScyllaDB's defaults of the settings above that Cassandra's differ from or
# lacks (db/config.cc:739, 808, 835, 911, 926, 1047, 1062).
_SCYLLA_DEFAULTS = {
    'listen_address': 'localhost',
    'rpc_address': 'localhost',
    'num_tokens': 1,
    'compaction_throughput_mb_per_sec': 0,
    'auto_snapshot': True,
    'commitlog_sync': 'periodic',
    'commitlog_sync_period_in_ms': 10000,
}
LOGBACK = """<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.out</target>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
"""
_PR_SET_PDEATHSIG = 1


class ConfigError(Exception):
  """A scylla.yaml setting the node behind cannot take."""


def _ShortName(name):
  """`org.apache.cassandra.locator.SimpleSnitch` -> `SimpleSnitch`."""
  return str(name).rsplit('.', 1)[-1]


def Seeds(cfg):
  """The seeds of seed_provider, else 127.0.0.1 (init.cc:31-48)."""
  for provider in cfg.get('seed_provider') or ():
    for parameters in provider.get('parameters') or ():
      if parameters.get('seeds'):
        return str(parameters['seeds'])
  return '127.0.0.1'


def ClusterName(cfg):
  """cluster_name, `Test Cluster` when empty (main.cc:1764-1767)."""
  return cfg.get('cluster_name') or 'Test Cluster'


def Subdirs(dirs):
  """The node's directories: a `cassandra` one inside each of ScyllaDB's."""
  return {
      'data_file_directories': [f'{d}/{SUBDIR}' for d in dirs.data],
      'commitlog_directory': f'{dirs.commitlog}/{SUBDIR}',
      'hints_directory': f'{dirs.hints}/{SUBDIR}',
      'saved_caches_directory': f'{dirs.saved_caches}/{SUBDIR}',
      'cdc_raw_directory': f'{dirs.workdir}/{HOME_NAME}/cdc_raw',
  }


def CassandraYaml(cfg, dirs):
  """The node's cassandra.yaml settings from ScyllaDB's configuration.

  Args:
    cfg: scylla.yaml's settings with the command line's over them.
    dirs: server.Directories.

  Returns:
    dict.

  Raises:
    ConfigError: a snitch, partitioner, authenticator or authorizer the
      node behind has no counterpart of.
  """

  def Value(key):
    return cfg[key] if cfg.get(key) is not None else _SCYLLA_DEFAULTS.get(key)

  snitch = _ShortName(cfg.get('endpoint_snitch') or 'SimpleSnitch')
  if snitch not in SNITCHES:
    raise ConfigError(f'endpoint_snitch {snitch}: the stand-in runs {SNITCHES}')
  partitioner = cfg.get('partitioner') or PARTITIONER
  if _ShortName(partitioner) != _ShortName(PARTITIONER):
    raise ConfigError(f'partitioner {partitioner}: only {PARTITIONER}')
  out = {
      'cluster_name': ClusterName(cfg),
      'num_tokens': int(Value('num_tokens')),
      'partitioner': PARTITIONER,
      'endpoint_snitch': snitch,
      'seed_provider': [{
          'class_name': 'org.apache.cassandra.locator.SimpleSeedProvider',
          'parameters': [{'seeds': Seeds(cfg)}],
      }],
      'compaction_throughput': (
          f'{int(Value("compaction_throughput_mb_per_sec"))}MiB/s'
      ),
  }
  for key, (known, default) in {
      'authenticator': (AUTHENTICATORS, 'AllowAllAuthenticator'),
      'authorizer': (AUTHORIZERS, 'AllowAllAuthorizer'),
  }.items():
    name = _ShortName(cfg.get(key) or default)
    if name not in known:
      raise ConfigError(f'{key} {name}: the stand-in runs {known}')
    out[key] = name
  for key in _SAME:
    if Value(key) is not None:
      out[key] = Value(key)
  for key, new_key in _MILLISECONDS.items():
    if Value(key) is not None:
      out[new_key] = f'{int(Value(key))}ms'
  for key, new_key in _KIBIBYTES.items():
    if cfg.get(key) is not None:
      out[new_key] = f'{int(cfg[key])}KiB'
  hinted = cfg.get('hinted_handoff_enabled')
  if hinted is not None:
    # ScyllaDB also takes a list of data centers: hints on for those.
    out['hinted_handoff_enabled'] = hinted is not False and hinted != 'false'
  out.update(Subdirs(dirs))
  return out


def ReadProperties(text):
  """A Java properties text's `key=value` (or `key: value`) pairs."""
  values = {}
  for line in text.splitlines():
    line = line.strip()
    if not line or line[0] in '#!':
      continue
    separator = min(
        (i for i in (line.find('='), line.find(':')) if i >= 0), default=-1
    )
    if separator < 0:
      values[line] = ''
    else:
      values[line[:separator].strip()] = line[separator + 1 :].strip()
  return values


def CheckRackDc(text, path):
  """GossipingPropertyFileSnitch needs dc and rack.

  (locator/gossiping_property_file_snitch.cc:121, 136-137.)
  """
  values = ReadProperties(text)
  if not values.get('dc') or not values.get('rack'):
    raise ConfigError(f'Failed to parse a properties file ({path}). Halting...')


def ProbeAddress(cfg):
  """Where the node's CQL port is reached from this machine."""
  address = str(cfg.get('rpc_address') or _SCYLLA_DEFAULTS['rpc_address'])
  return '127.0.0.1' if address in ('0.0.0.0', '::') else address


def _DieWithParent(cpus):
  """In the child: SIGTERM when the stand-in dies; the cpuset's CPUs."""
  ctypes.CDLL(None, use_errno=True).prctl(
      _PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0
  )
  if cpus:
    os.sched_setaffinity(0, cpus)


class Node:
  """The Cassandra node: its home, its configuration and its process.

  Attributes:
    home: its directory (workdir/standin-cassandra).
    install: the package's Cassandra install.
    process: the running bin/cassandra, or None.
  """

  def __init__(self, install, workdir):
    self.install = pathlib.Path(install)
    self.home = pathlib.Path(workdir) / HOME_NAME
    self.process = None

  def Write(self, settings_yaml, rackdc_text, heap, jvm_options=()):
    """Lays out the home: bin/ and lib/ links, conf/, logs/.

    Args:
      settings_yaml: CassandraYaml's dict.
      rackdc_text: cassandra-rackdc.properties, or None.
      heap: the JVM heap (-Xms and -Xmx).
      jvm_options: more JVM options, after the install's.
    """
    for name in ('bin', 'conf', 'logs'):
      (self.home / name).mkdir(parents=True, exist_ok=True)
    for script in ('cassandra', 'nodetool'):
      link = self.home / 'bin' / script
      link.unlink(missing_ok=True)
      link.symlink_to(self.install / 'bin' / script)
    lib = self.home / 'lib'
    if lib.is_symlink() or lib.exists():
      lib.unlink()
    lib.symlink_to(self.install / 'lib')
    conf, source = self.home / 'conf', self.install / 'conf'
    for options in source.glob('jvm*.options'):
      text = options.read_text()
      if options.name == 'jvm-server.options':
        # Later than bin/cassandra's own -Xms/-Xmx on its command line.
        text += ''.join(f'{o}\n' for o in (f'-Xms{heap}', f'-Xmx{heap}'))
        text += ''.join(f'{o}\n' for o in jvm_options)
      (conf / options.name).write_text(text)
    (conf / 'logback.xml').write_text(LOGBACK)
    (conf / 'cassandra.yaml').write_text(
        yaml.safe_dump(settings_yaml, default_flow_style=False)
    )
    if rackdc_text is not None:
      (conf / RACKDC).write_text(rackdc_text)

  def Start(self, env, cpus=None):
    """Starts bin/cassandra in the foreground, its output on ours.

    Before the server starts any thread: preexec_fn runs in the child alone.
    """
    # Ended by Stop, or by the kernel when this process dies.
    # pylint: disable-next=consider-using-with,subprocess-popen-preexec-fn
    self.process = subprocess.Popen(
        [str(self.home / 'bin' / 'cassandra'), '-f'],
        cwd=self.home,
        env=env,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: _DieWithParent(cpus),
    )

  def Running(self):
    return self.process is not None and self.process.poll() is None

  def Stop(self, grace_s):
    """SIGTERM (Cassandra drains), then SIGKILL after grace_s; its status."""
    if not self.Running():
      return None if self.process is None else self.process.returncode
    self.process.terminate()
    try:
      return self.process.wait(grace_s)
    except subprocess.TimeoutExpired:
      self.process.kill()
      return self.process.wait()


def JvmOptions(environ):
  """$SCYLLA_STANDIN_JVM_OPTIONS, split as a shell splits it."""
  return tuple(shlex.split(environ.get(package.JVM_OPTIONS_ENV, '')))
