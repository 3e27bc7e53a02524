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

"""Tests for engines/cassandra.py with recording fake VMs and local shells."""

import os
import pathlib
import shlex
import signal
import subprocess
import threading

import pytest
import yaml

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.results import thread_pools
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import token_ring
from perfkit_plugins import engines
from perfkit_plugins.engines import cassandra
from perfkit_plugins.operations import tarballs
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import study_settings

NASTY = "x'; touch pwned; echo '$(touch pwned2) `touch pwned3`"
# `findmnt -n -o SOURCE,FSTYPE,OPTIONS --target /mnt/data` in a test-bed
# machine (perfkit_plugins/testing/testbed.py), whose data disk is a bound
# host directory, as it printed on 2026-11-24.
FINDMNT = (
    '/dev/vda[/var/tmp/perfkit_plugins_testbed/pkbtb20134/server-0/data]'
    ' ext4   rw,relatime,discard,resv_strict,resuid=65534,resgid=65534\n'
)
DATA_DIR = '/var/lib/cassandra'
# The second of three nodes.
SLOT = token_ring.RingSlot(1, 3)
INSTALL_DIR = '/opt/pkb/apache-cassandra-5.0.9'
CONF_DIR = INSTALL_DIR + '/conf'
# Lines as they stand in the shipped files: 4.1's jvm11-server.options runs
# CMS and keeps G1 commented out; 5.0's jvm17-server.options runs G1.
JVM11_41 = """\
-XX:-UseBiasedLocking
### CMS Settings
-XX:+UseConcMarkSweepGC
-XX:+CMSParallelRemarkEnabled
-XX:SurvivorRatio=8
-XX:MaxTenuringThreshold=1
-XX:CMSInitiatingOccupancyFraction=75
-XX:+UseCMSInitiatingOccupancyOnly
-XX:CMSWaitDuration=10000
-XX:+CMSParallelInitialMarkEnabled
-XX:+CMSEdenChunksRecordAlways
-XX:+CMSClassUnloadingEnabled
### G1 Settings
#-XX:+UseG1GC
#-XX:MaxGCPauseMillis=300
#-XX:ParallelGCThreads=16
-Djdk.attach.allowAttachSelf=true
--add-exports java.base/jdk.internal.misc=ALL-UNNAMED
"""
JVM17_50 = """\
-XX:+UseG1GC
-XX:+ParallelRefProcEnabled
-XX:MaxTenuringThreshold=1
-XX:G1HeapRegionSize=16m
-XX:G1RSetUpdatingPauseTimePercent=5
-XX:MaxGCPauseMillis=300
-XX:InitiatingHeapOccupancyPercent=70
#-XX:ParallelGCThreads=16
-XX:+UseStringDeduplication
--add-opens java.base/java.lang=ALL-UNNAMED
"""
JVM_SERVER = """\
-ea
-XX:+UseThreadPriorities
-XX:+HeapDumpOnOutOfMemoryError
-Xss256k
#-Xms4G
#-Xmx4G
"""


def Settings(**kwargs):
  return settings_lib.Validate(settings_lib.Settings(**kwargs))


def Engine(**kwargs):
  return cassandra.CassandraEngine(Settings(**kwargs), DATA_DIR, INSTALL_DIR)


def Server(**kwargs):
  """A fake server whose data directory is on a real findmnt's answer."""
  vm = fake_vm.FakeVm(**kwargs)
  vm.Reply(r'^findmnt ', FINDMNT)
  return vm


def Sh(command, cwd):
  return subprocess.run(
      ['sh', '-c', command],
      cwd=cwd,
      capture_output=True,
      text=True,
      check=False,
  )


def ActiveLines(text):
  return [l for l in text.splitlines() if l.startswith('-')]


def test_paths_follow_the_version_and_can_be_overridden():
  engine = Engine(engine='cassandra')
  assert engine.install_dir == INSTALL_DIR
  assert engine.conf_dir == CONF_DIR
  assert engine.nodetool == INSTALL_DIR + '/bin/nodetool'
  assert engine.pid_file == INSTALL_DIR + '/logs/cassandra.pid'
  local = cassandra.CassandraEngine(
      Settings(),
      '/tmp/node/data',
      install_dir='/tmp/node',
      nodetool='/tmp/node/bin/nodetool',
      jmx_port=7299,
  )
  assert local.conf_dir == '/tmp/node/conf'
  assert local.NodetoolCommand('status') == (
      'JAVA_HOME=/tmp/node/jdk /tmp/node/bin/nodetool -p 7299 status'
  )


def test_install_goes_through_the_pkb_package():
  vm = fake_vm.FakeVm()
  Engine(engine='cassandra').Install(vm)
  assert vm.installed == [cassandra.PACKAGE]


@pytest.mark.parametrize(
    'version,package',
    [
        ('5.0.6', 'openjdk-17-jdk-headless'),
        ('4.1.7', 'openjdk-11-jdk-headless'),
    ],
)
def test_install_server_fetches_the_verified_tarball_and_a_jdk(
    version, package
):
  vm = fake_vm.FakeVm()
  settings = Settings(engine='cassandra', cassandra_version=version)
  tarball = cassandra_config.Tarball(settings)
  vm.Reply(r'^sha512sum ', f'{tarball.checksum.digest}  x.tar.gz\n')
  vm.available_packages = {package}
  listing = []
  vm.Reply(r'/usr/lib/jvm/\*', lambda _: ''.join(listing))

  def Install(packages):
    fake_vm.FakeVm.InstallPackages(vm, packages)
    if packages == package:
      major = package.split('-')[1]
      listing.append(
          f'/usr/lib/jvm/java-{major}/bin/java\topenjdk version "{major}.0.1"\n'
      )

  vm.InstallPackages = Install
  install_dir = cassandra.InstallServer(vm, settings, 'apt', '/opt/pkb')
  assert install_dir == f'/opt/pkb/apache-cassandra-{version}'
  assert vm.installed == ['curl', package]
  assert vm.CommandsMatching(shlex.quote(tarball.url) + '$')
  assert vm.CommandsMatching(r'^rm -rf .*&& tar -xzf')
  assert vm.commands[-1] == (
      f'ln -sfn /usr/lib/jvm/java-{package.split("-")[1]} {install_dir}/jdk'
  )


def test_configure_defaults_writes_yaml_rack_file_and_start_options():
  vm = Server(internal_ip='10.0.0.4')
  engine = Engine(engine='cassandra')
  engine.Configure(vm, ['10.0.0.2', '10.0.0.3'], SLOT)
  assert vm.commands[1:] == [
      cassandra.PrepareDirsCommand(DATA_DIR, INSTALL_DIR + '/logs'),
      f'findmnt -n -o SOURCE,FSTYPE,OPTIONS --target {DATA_DIR}',
      cassandra.JvmOptionsCommand(
          CONF_DIR, 'jvm-server.options', cassandra_config.START_OPTIONS
      ),
      cassandra.ReadableInstallCommand(INSTALL_DIR, INSTALL_DIR + '/logs'),
  ]
  assert vm.commands[0].startswith(f'{{ mkdir -p {DATA_DIR}; }}')
  assert engine.volumes[vm.name].Metadata() == {
      'scylla_data_device': FINDMNT.split()[0],
      'scylla_data_fstype': 'ext4',
      'scylla_data_mount_options': (
          'rw,relatime,discard,resv_strict,resuid=65534,resgid=65534'
      ),
  }
  assert [r for _, r in vm.rendered] == [
      CONF_DIR + '/cassandra.yaml',
      CONF_DIR + '/cassandra-rackdc.properties',
  ]
  config = yaml.safe_load(vm.remote_files[CONF_DIR + '/cassandra.yaml'])
  assert config == {
      'cluster_name': 'scylla_phases',
      'num_tokens': 16,
      'initial_token': ','.join(
          str(-(2**63) + k * 2**64 // 48) for k in range(1, 48, 3)
      ),
      'auto_bootstrap': False,
      'partitioner': 'org.apache.cassandra.dht.Murmur3Partitioner',
      'endpoint_snitch': 'GossipingPropertyFileSnitch',
      'seed_provider': [{
          'class_name': 'org.apache.cassandra.locator.SimpleSeedProvider',
          'parameters': [{'seeds': '10.0.0.2:7000,10.0.0.3:7000'}],
      }],
      'listen_address': '10.0.0.4',
      'rpc_address': '10.0.0.4',
      'storage_port': 7000,
      'native_transport_port': 9042,
      'start_native_transport': True,
      'data_file_directories': [DATA_DIR + '/data'],
      'commitlog_directory': DATA_DIR + '/commitlog',
      'saved_caches_directory': DATA_DIR + '/saved_caches',
      'hints_directory': DATA_DIR + '/hints',
      'cdc_raw_directory': DATA_DIR + '/cdc_raw',
      'commitlog_sync': 'periodic',
      'commitlog_sync_period': '10000ms',
  }
  rackdc = vm.remote_files[CONF_DIR + '/cassandra-rackdc.properties']
  assert rackdc.split() == ['dc=datacenter1', 'rack=rack1']


@pytest.mark.parametrize(
    'version,expected',
    [
        (
            '5.0.6',
            {
                'compaction_throughput': '0MiB/s',
                'commitlog_sync_period': '10000ms',
            },
        ),
        (
            '4.1.7',
            {
                'compaction_throughput': '0MiB/s',
                'commitlog_sync_period': '10000ms',
            },
        ),
        (
            '4.0.13',
            {
                'compaction_throughput_mb_per_sec': 0,
                'commitlog_sync_period_in_ms': 10000,
            },
        ),
    ],
)
def test_configure_renders_the_study_tuning_per_version(version, expected):
  vm = Server()
  engine = Engine(
      **(study_settings.CASSANDRA_2017 | dict(cassandra_version=version))
  )
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  config = yaml.safe_load(vm.remote_files[engine.conf_dir + '/cassandra.yaml'])
  assert {k: config[k] for k in expected} == expected
  assert config['concurrent_reads'] == 16
  assert config['concurrent_writes'] == 64
  assert config['concurrent_compactors'] == 8
  assert config['memtable_allocation_type'] == 'offheap_buffers'
  assert config['trickle_fsync'] is True


def test_configure_keeps_odd_names_and_paths_intact():
  vm = Server(internal_ip='10.0.0.4')
  engine = cassandra.CassandraEngine(
      Settings(engine='cassandra'),
      f'/mnt/{NASTY}: #x',
      INSTALL_DIR,
      cluster_name='a: "b" #c',
  )
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  config = yaml.safe_load(vm.remote_files[engine.conf_dir + '/cassandra.yaml'])
  assert config['cluster_name'] == 'a: "b" #c'
  assert config['commitlog_directory'] == f'/mnt/{NASTY}: #x/commitlog'


def test_configure_heap_and_gc_rewrites_both_jvm_files():
  vm = Server(num_cpus=8)
  engine = Engine(**study_settings.CASSANDRA_2017)
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  options = cassandra_config.JvmOptions(engine.settings, 8)
  assert vm.CommandsMatching('jvm') == [
      cassandra.JvmOptionsCommand(
          CONF_DIR, 'jvm-server.options', options, comment_gc=True
      ),
      cassandra.JvmOptionsCommand(
          CONF_DIR, 'jvm17-server.options', comment_gc=True
      ),
  ]


def test_configure_heap_only_leaves_the_collector_alone():
  vm = Server()
  Engine(engine='cassandra', cassandra_heap_gb=12).Configure(
      vm, ['10.0.0.2'], SLOT
  )
  assert vm.CommandsMatching('jvm') == [
      cassandra.JvmOptionsCommand(
          CONF_DIR,
          'jvm-server.options',
          (*cassandra_config.START_OPTIONS, '-Xms12G', '-Xmx12G'),
      )
  ]


def ConfDir(tmp_path, versioned_name, versioned_text):
  conf = tmp_path / f'conf {NASTY}'
  conf.mkdir()
  (conf / 'jvm-server.options').write_text(JVM_SERVER)
  (conf / versioned_name).write_text(versioned_text)
  return conf


def test_g1_on_4_1_replaces_the_shipped_cms(tmp_path):
  conf = ConfDir(tmp_path, 'jvm11-server.options', JVM11_41)
  s = Settings(
      **(study_settings.CASSANDRA_2017 | dict(cassandra_version='4.1.7'))
  )
  options = cassandra_config.JvmOptions(s, 8)
  commands = [
      cassandra.JvmOptionsCommand(
          str(conf), 'jvm-server.options', options, True
      ),
      cassandra.JvmOptionsCommand(str(conf), 'jvm11-server.options', (), True),
  ]
  for _ in range(2):  # configuring twice gives the same files
    for command in commands:
      result = Sh(command, tmp_path)
      assert result.returncode == 0, result.stderr
    active = ActiveLines((conf / 'jvm-server.options').read_text()) + (
        ActiveLines((conf / 'jvm11-server.options').read_text())
    )
    assert active == [
        '-ea',
        '-XX:+UseThreadPriorities',
        '-XX:+HeapDumpOnOutOfMemoryError',
        '-Xss256k',
        *cassandra_config.START_OPTIONS,
        '-Xms8G',
        '-Xmx8G',
        *cassandra_config.GC_OPTIONS['G1'],
        '-XX:-UseBiasedLocking',
        '-Djdk.attach.allowAttachSelf=true',
        '--add-exports java.base/jdk.internal.misc=ALL-UNNAMED',
    ]
  assert (conf / 'jvm11-server.options.orig').read_text() == JVM11_41
  assert not list(tmp_path.glob('pwned*'))


def test_g1_on_5_0_keeps_non_collector_options(tmp_path):
  conf = ConfDir(tmp_path, 'jvm17-server.options', JVM17_50)
  result = Sh(
      cassandra.JvmOptionsCommand(str(conf), 'jvm17-server.options', (), True),
      tmp_path,
  )
  assert result.returncode == 0, result.stderr
  assert ActiveLines((conf / 'jvm17-server.options').read_text()) == [
      '-XX:+UseStringDeduplication',
      '--add-opens java.base/java.lang=ALL-UNNAMED',
  ]


def test_prepare_dirs_creates_the_database_directories(tmp_path):
  data_dir = tmp_path / f'data {NASTY}'
  log_dir = tmp_path / f'logs {NASTY}'
  result = Sh(
      cassandra.PrepareDirsCommand(str(data_dir), str(log_dir)), tmp_path
  )
  assert result.returncode == 0, result.stderr
  assert log_dir.is_dir()
  assert sorted(p.name for p in data_dir.iterdir()) == [
      'cdc_raw',
      'commitlog',
      'data',
      'hints',
      'saved_caches',
  ]
  assert not list(tmp_path.glob('pwned*'))


def test_the_database_runs_as_its_own_user_owning_its_directories():
  """As Apache Cassandra's packages run it: the servers' engine makes the
  system user, gives it the directories it writes (never the data disk's
  mount point), starts, stops and cleans it with sudo."""
  engine = engines.ForSettings(
      settings_lib.Validate(
          Settings(engine='cassandra', cassandra_version='5.0.9')
      ),
      '/opt/pkb',
      '/tmp/pkb',
  )
  assert engine.run_as == cassandra.SYSTEM_USER == 'cassandra'
  vm = Server(internal_ip='10.0.0.4')
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  engine.Start(vm)
  engine.Stop(vm)
  engine.Clean(vm)
  data_dir, logs = engine.data_dir, engine.log_dir
  assert vm.commands[0] == (
      'id -u cassandra >/dev/null 2>&1 || sudo useradd --system --user-group'
      f' --no-create-home --home-dir {data_dir} --shell /usr/sbin/nologin'
      ' cassandra'
  )
  assert vm.CommandsMatching(
      rf'^sudo install -d -o cassandra -g cassandra -m 755 {data_dir}/data'
      rf' .* {logs}$'
  )
  assert not vm.CommandsMatching(r'\bchown\b')
  assert vm.CommandsMatching(r'^sudo -u cassandra sh -c .*bin/cassandra -R')
  assert vm.CommandsMatching(r' sudo kill "\$pid"')
  assert vm.CommandsMatching(rf'sudo rm -rf {data_dir}/data ')


def test_the_install_is_readable_by_the_database_whatever_the_umask(
    tmp_path,
):
  install = tmp_path / f'c {NASTY}'
  logs = install / 'logs'
  for directory in (install / 'conf', logs):
    directory.mkdir(parents=True, mode=0o700)
  (install / 'conf' / 'cassandra.yaml').write_text('x')
  (install / 'conf' / 'cassandra.yaml').chmod(0o600)
  (logs / 'system.log').write_text('mine')
  (logs / 'system.log').chmod(0o600)
  install.chmod(0o700)
  result = Sh(
      cassandra.ReadableInstallCommand(str(install), str(logs)), tmp_path
  )
  assert result.returncode == 0, result.stderr
  modes = {
      p.relative_to(install).as_posix(): p.stat().st_mode & 0o777
      for p in [install, *install.rglob('*')]
  }
  assert modes == {
      '.': 0o755,
      'conf': 0o755,
      'conf/cassandra.yaml': 0o644,
      'logs': 0o700,
      'logs/system.log': 0o600,
  }


def test_start_command_runs_bin_cassandra_in_the_install_dir(tmp_path):
  install = tmp_path / f'c {NASTY}'
  (install / 'bin').mkdir(parents=True)
  script = install / 'bin' / 'cassandra'
  script.write_text('#!/bin/sh\necho "$@"; echo started >&2\n')
  script.chmod(0o755)
  pid_file = str(install / 'cassandra.pid')
  out_file = str(install / 'logs' / 'startup.out')
  result = Sh(
      cassandra.StartCommand(str(install), pid_file, out_file), tmp_path
  )
  assert result.returncode == 0, result.stderr
  assert pathlib.Path(out_file).read_text() == f'-R -p {pid_file}\nstarted\n'


def test_stop_command_stops_the_pid_and_tolerates_none(tmp_path):
  pid_file = tmp_path / f'pid {NASTY}'
  assert Sh(cassandra.StopCommand(str(pid_file)), tmp_path).returncode == 0
  sleeper = subprocess.Popen(['sleep', '600'], start_new_session=True)
  # Reap it as soon as it exits: a JVM is not the test's child, and a zombie
  # would still answer `kill -0`.
  reaper = threading.Thread(target=sleeper.wait)
  reaper.start()
  try:
    pid_file.write_text(f'{sleeper.pid}\n')
    result = Sh(cassandra.StopCommand(str(pid_file), grace_s=30), tmp_path)
    assert result.returncode == 0, result.stderr
    reaper.join(timeout=30)
    assert sleeper.returncode == -signal.SIGTERM
    assert not pid_file.exists()
  finally:
    if sleeper.poll() is None:
      os.killpg(sleeper.pid, signal.SIGKILL)


def test_nodetool_queries_parse_real_outputs(testdata):
  vm = fake_vm.FakeVm()
  vm.Reply(r'nodetool status$', testdata('live', 'c509-status.txt'))
  vm.Reply(
      r'nodetool compactionstats$',
      testdata('live', 'c509-busy-compactionstats.txt'),
  )
  vm.Reply(
      r'^TZ=UTC JAVA_HOME=\S+ \S+nodetool compactionhistory$',
      testdata('live', 'c509-after-compactionhistory.txt'),
  )
  vm.Reply(r'nodetool version$', testdata('live', 'c509-version.txt'))
  vm.Reply(r'nodetool tpstats$', testdata('live', 'c509-loaded-tpstats.txt'))
  engine = Engine(engine='cassandra')
  states = engine.NodeStates(vm)
  assert states and all(s.up_normal for s in states)
  status = engine.CompactionStatus(vm)
  assert status == compactions.ParseCompactionStats(
      testdata('live', 'c509-busy-compactionstats.txt')
  )
  assert status.running + status.pending > 0
  history = engine.CompactionHistory(vm)
  assert history and all(h.compacted_at_ms > 0 for h in history)
  assert engine.Version(vm) == '5.0.9'
  assert engine.ThreadPools(vm) == thread_pools.ParseTpstats(
      testdata('live', 'c509-loaded-tpstats.txt')
  )


def test_flush_quotes_the_keyspace():
  vm = fake_vm.FakeVm()
  Engine(engine='cassandra').Flush(vm, NASTY)
  assert [shlex.split(c) for c in vm.commands] == [[
      f'JAVA_HOME={INSTALL_DIR}/jdk',
      INSTALL_DIR + '/bin/nodetool',
      'flush',
      NASTY,
  ]]


def test_log_paths():
  paths = Engine(engine='cassandra').LogPaths()
  assert INSTALL_DIR + '/logs/system.log' in paths
  assert INSTALL_DIR + '/logs/gc.log' in paths
  assert CONF_DIR + '/cassandra.yaml' in paths
  assert CONF_DIR + '/jvm17-server.options' in paths
