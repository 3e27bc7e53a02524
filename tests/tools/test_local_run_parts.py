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

"""The parts of `scylla-phases-local` that need no root (perfkit_plugins/local).

What pkb.log lines a person sees, the host's checks and their messages,
the networks a set of machines picks, its record for the state file, the
mirror's checksum check and ending processes by PID.
"""

import hashlib
import ipaddress
import pathlib
import subprocess
import time

import pytest

from perfkit_plugins.core.software import java
from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import host_checks
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import mirror
from perfkit_plugins.local import pkb_process
from perfkit_plugins.local import processes

PLUGIN_FILES = frozenset({'phase_runner.py', 'step_signals.py'})


def _Log(
    file, level, message, thread='MainThread', label='scylla_phases(1/1) '
):
  return (
      f'2026-11-25 15:37:13,123 abc123 {thread} {label}{file}:42'
      f' {level:<8} {message}'
  )


def _View(everything=False):
  return pkb_process.ProgressView(
      '/nonexistent', everything=everything, plugin_files=PLUGIN_FILES
  )


def test_the_view_keeps_stages_steps_and_errors_only():
  lines = [
      _Log('pkb.py', 'INFO', 'PerfKitBenchmarker version: v1.12.0'),
      _Log('pkb.py', 'INFO', 'Provisioning resources for benchmark x'),
      _Log('vm_util.py', 'INFO', 'Running: ssh-keygen'),
      _Log('linux_virtual_machine.py', 'WARNING', 'Partition table not found'),
      _Log('phase_runner.py', 'INFO', 'Starting populate on 2 loaders'),
      _Log(
          'phase_runner.py',
          'INFO',
          'Running RobustRemoteCommand on pkb-1: true',
          thread='Thread-3 (_ExecuteBackgroundThreadTasks)',
      ),
      _Log('phase_runner.py', 'DEBUG', 'polled'),
      _Log('step_signals.py', 'WARNING', 'x' * 300),
      _Log('vm_util.py', 'ERROR', 'ssh failed'),
      _Log('pkb.py', 'INFO', 'PKB exiting with return_code 0'),
  ]
  view = _View()
  shown = view.Lines('\n'.join(lines))
  shown += view.Lines('')
  assert shown == [
      '15:37:13  Provisioning resources for benchmark x',
      '15:37:13  Starting populate on 2 loaders',
      '15:37:13  WARNING: ' + 'x' * 197 + '...',
      '15:37:13  ERROR: ssh failed',
      '15:37:13  PKB exiting with return_code 0',
  ]


def test_a_stage_record_is_shown_whole_an_error_by_its_last_line():
  text = '\n'.join([
      _Log('pkb.py', 'INFO', 'Benchmark run statuses:'),
      '------',
      'scylla_phases  scylla_phases0  SUCCEEDED',
      _Log('benchmark_spec.py', 'ERROR', 'Got an exception deleting disks.'),
      'Traceback (most recent call last):',
      '  File "x.py", line 1, in <module>',
      'OSError: gone',
      _Log('phase_runner.py', 'INFO', 'mixed finished in 38 s'),
  ])
  assert _View().Lines(text) == [
      '15:37:13  Benchmark run statuses:',
      '          ------',
      '          scylla_phases  scylla_phases0  SUCCEEDED',
      '15:37:13  ERROR: Got an exception deleting disks. ... OSError: gone',
      '15:37:13  mixed finished in 38 s',
  ]


def test_pkbs_known_teardown_error_is_one_note():
  error = [
      'Traceback (most recent call last):',
      '    for package_name in self._installed_packages:',
      pkb_process.KNOWN_TEARDOWN_ERROR,
  ]
  text = '\n'.join(
      [
          _Log(
              'background_tasks.py',
              'ERROR',
              'Exception occurred while calling DeleteVm(10.0.0.1):',
          )
      ]
      + error
      + [
          _Log(
              'background_tasks.py',
              'ERROR',
              'Exception occurred while calling DeleteVm(10.0.0.2):',
          )
      ]
      + error
      + [_Log('benchmark_spec.py', 'ERROR', 'Got an exception deleting VMs.')]
      + error
  )
  view = _View()
  shown = view.Lines(text) + view.Finish()
  assert len(shown) == 1
  assert shown[0].startswith("15:37:13  note: PKB's teardown of static VMs")


def test_the_view_follows_a_growing_file_line_by_line(tmp_path):
  log = tmp_path / 'pkb.log'
  view = pkb_process.ProgressView(log, plugin_files=PLUGIN_FILES)
  assert view.Poll() == []
  first = _Log('phase_runner.py', 'INFO', 'Starting mixed on 2 loaders')
  log.write_text(first[:30])
  assert view.Poll() == []
  log.write_text(first + '\n' + _Log('pkb.py', 'INFO', 'Cleaning up'))
  assert view.Poll() == ['15:37:13  Starting mixed on 2 loaders']
  with open(log, 'a') as f:
    f.write(' benchmark scylla_phases\n')
  assert view.Finish() == ['15:37:13  Cleaning up benchmark scylla_phases']


def test_verbose_shows_every_line_as_it_is():
  text = 'plain output\n' + _Log('vm_util.py', 'DEBUG', 'x')
  assert _View(everything=True).Lines(text) == text.splitlines()


def test_the_plugin_files_are_the_packages_modules():
  files = pkb_process.PluginFiles()
  assert {'phase_runner.py', 'compaction_poller.py', 'step_signals.py'} <= files
  assert '__init__.py' not in files and 'pkb.py' not in files


# The host's checks.

DEBIAN12 = (
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n'
)


def test_the_machines_os_type_is_the_hosts():
  assert host_checks.OsType(DEBIAN12) == 'debian12'
  assert host_checks.OsType('ID=ubuntu\nVERSION_ID="24.04"\n') == 'ubuntu2404'
  assert host_checks.OsProblem(DEBIAN12) is None
  problem = host_checks.OsProblem(
      'PRETTY_NAME="Fedora Linux 41"\nID=fedora\nVERSION_ID=41\n'
  )
  assert "this host's OS (Fedora Linux 41)" in problem
  assert 'Debian 12, Debian 13, Ubuntu 22.04, Ubuntu 24.04' in problem


def test_missing_machine_tools_are_named_with_their_packages(tmp_path):
  problem = host_checks.MachineToolsProblem(path=str(tmp_path))
  assert 'sudo, fdisk, curl, tar, python3 is missing' in problem
  assert 'apt-get install sudo fdisk curl tar python3' in problem


def test_cassandra_needs_java_17_on_the_host():
  java17 = java.InstalledJava('/usr/lib/jvm/java-17-openjdk-amd64', 17)
  java25 = java.InstalledJava('/usr/lib/jvm/temurin-25-jdk-amd64', 25)
  assert host_checks.JavaProblem('5.0.9', [java25, java17]) is None
  problem = host_checks.JavaProblem('5.0.9', [java25])
  assert problem.startswith('Apache Cassandra 5.0.9 needs Java 17')
  assert 'found: Java 25 at /usr/lib/jvm/temurin-25-jdk-amd64' in problem
  assert 'apt-get install openjdk-17-jdk-headless' in problem


def test_jars_need_the_cache_or_maven(monkeypatch, tmp_path):
  monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
  problem = host_checks.JarsProblem('5.0.9', tmp_path)
  assert 'its jars on Maven Central (about 100 MB' in problem
  assert 'apt-get install maven' in problem
  (tmp_path / '5.0.9').mkdir()
  (tmp_path / '5.0.9' / cassandra_build.COMPLETE_MARKER).write_text('')
  assert host_checks.JarsProblem('5.0.9', tmp_path) is None


def test_memory_for_the_machines():
  meminfo = 'MemTotal: 8000000 kB\nMemAvailable:    4194304 kB\n'
  assert host_checks.AvailableGib(meminfo) == 4.0
  assert host_checks.MemoryProblem(1, 1, meminfo) is None
  problem = host_checks.MemoryProblem(3, 2, meminfo)
  assert 'need about 7.5 GiB of memory and 4.0 GiB is available' in problem


def test_the_stress_tarball_must_match_its_checksum(tmp_path):
  tarball = tmp_path / mirror.STRESS_NAME
  assert 'with its .sha256 beside it' in mirror.StressProblem(tarball)
  tarball.write_bytes(b'stress')
  sums = tmp_path / f'{mirror.STRESS_NAME}.sha256'
  sums.write_text(f'{"0" * 64}  {mirror.STRESS_NAME}\n')
  assert 'does not match its checksum' in mirror.StressProblem(tarball)
  digest = hashlib.sha256(b'stress').hexdigest()
  sums.write_text(f'{digest}  {mirror.STRESS_NAME}\n')
  assert mirror.StressProblem(tarball) is None


def test_the_mirror_serves_both_tools_with_their_checksums(tmp_path):
  cassandra = tmp_path / 'apache-cassandra-5.0.9-bin.tar.gz'
  cassandra.write_bytes(b'cassandra')
  stress = tmp_path / mirror.STRESS_NAME
  stress.write_bytes(b'stress')
  stress_sha256 = hashlib.sha256(b'stress').hexdigest()
  (tmp_path / f'{mirror.STRESS_NAME}.sha256').write_text(
      f'{stress_sha256}  {mirror.STRESS_NAME}\n'
  )
  served = mirror.BuildMirror(tmp_path / 'm', cassandra, stress)
  flags = served.Flags('http://10.200.0.1:8000')
  assert flags['scylla_cassandra_checksum'] == (
      'sha512:' + hashlib.sha512(b'cassandra').hexdigest()
  )
  # Both checksums are fixed here, before anything is served: the machines
  # never rely on a .sha256 the server sends.
  assert flags['scylla_stress_checksum'] == f'sha256:{stress_sha256}'
  assert (tmp_path / 'm' / 'cassandra' / '5.0.9' / cassandra.name).exists()
  assert (tmp_path / 'm' / 'tools' / f'{mirror.STRESS_NAME}.sha256').exists()
  assert flags['scylla_stress_url'] == (
      'http://10.200.0.1:8000/tools/cassandra-stress-{version}-bin.tar.gz'
  )


def test_a_stress_tarball_changed_after_its_check_is_not_served(
    monkeypatch, tmp_path
):
  cassandra = tmp_path / 'apache-cassandra-5.0.9-bin.tar.gz'
  cassandra.write_bytes(b'cassandra')
  stress = tmp_path / mirror.STRESS_NAME
  stress.write_bytes(b'stress')
  (tmp_path / f'{mirror.STRESS_NAME}.sha256').write_text(
      f'{hashlib.sha256(b"stress").hexdigest()}  {mirror.STRESS_NAME}\n'
  )
  assert mirror.StressProblem(stress) is None
  copy = mirror.shutil.copy

  def SwappedThenCopied(source, target):
    if pathlib.Path(source) == stress:
      stress.write_bytes(b'planted')
    return copy(source, target)

  monkeypatch.setattr(mirror.shutil, 'copy', SwappedThenCopied)
  with pytest.raises(mirror.ChecksumError, match='changed after it was'):
    mirror.BuildMirror(tmp_path / 'm', cassandra, stress)


# Machines: networks, names, records.


def test_a_set_picks_a_24_no_host_network_overlaps():
  tag = 'pkblc4242'
  first = host_machines.FreeSubnet(tag, used=[])
  assert first.prefixlen == 24 and first.subnet_of(
      ipaddress.ip_network('10.192.0.0/10')
  )
  taken = [first, ipaddress.ip_network('10.0.0.0/8')]
  with pytest.raises(host_machines.HostMachinesError, match='no free /24'):
    host_machines.FreeSubnet(tag, used=taken)
  second = host_machines.FreeSubnet(tag, used=[first])
  assert second != first and not second.overlaps(first)


def test_sets_of_different_owners_start_their_search_apart():
  subnets = {host_machines.FreeSubnet(f'pkbtb{p}', used=[]) for p in range(50)}
  assert len(subnets) > 45


def test_the_hosts_networks_are_read_from_ip(monkeypatch):
  outputs = {
      'addr': (
          '1: lo    inet 127.0.0.1/8 scope host lo\n'
          '2: eth0    inet 10.230.5.7/24 brd 10.230.5.255 scope global eth0\n'
      ),
      'route': (
          'default via 10.230.5.1 dev eth0\n'
          '10.240.0.0/16 via 10.230.5.1 dev eth0\n'
          'local 10.230.5.7 dev eth0 table local proto kernel\n'
          'broadcast 10.230.5.255 dev eth0 table local\n'
      ),
  }

  def Run(*args, check=True):
    del check
    key = 'addr' if 'addr' in args else 'route'
    return subprocess.CompletedProcess(args, 0, outputs[key], '')

  monkeypatch.setattr(host_machines, '_Run', Run)
  used = host_machines._UsedNetworks()
  assert ipaddress.ip_network('10.230.5.0/24') in used
  assert ipaddress.ip_network('10.240.0.0/16') in used
  assert not any(n.prefixlen == 0 for n in used)


def test_interface_names_must_fit_linux():
  with pytest.raises(host_machines.HostMachinesError, match='longer than 15'):
    host_machines.HostMachines(
        [f'm{i}' for i in range(101)], '/var/tmp/x', 'pkblc4194304'
    )
  with pytest.raises(host_machines.HostMachinesError, match='at most 200'):
    host_machines.HostMachines([f'm{i}' for i in range(201)], '/var/tmp', 'a')


def test_a_record_rebuilds_the_set_for_another_process():
  machines = host_machines.HostMachines(
      ['server-0', 'loader-0'],
      '/var/tmp/w',
      'pkblc77',
      subnet='10.201.3.0/24',
      os_type='ubuntu2404',
  )
  machines.machines['server-0'].sshd_pid = 11
  machines.mirror = processes.Process(5, 6)
  machines.mirror_url = 'http://10.201.3.1:80'
  again = host_machines.HostMachines.FromRecord(machines.Record())
  assert again.Record() == machines.Record()
  assert (
      again.root
      == machines.root
      == host_machines.pathlib.Path('/var/tmp/w/pkblc77')
  )
  assert [m.netns for m in again.machines.values()] == [
      'pkblc77-0',
      'pkblc77-1',
  ]
  assert again.machines['loader-0'].address == '10.201.3.12'
  assert again.host_address == '10.201.3.1'
  vm = again.StaticVm('server-0')
  assert vm['os_type'] == 'ubuntu2404' and vm['ip_address'] == '10.201.3.11'


# Processes by PID.


def test_a_process_is_ended_by_pid_term_then_kill():
  stubborn = subprocess.Popen(
      ['sh', '-c', 'trap "" TERM; sleep 30'], start_new_session=True
  )
  try:
    record = processes.Of(stubborn.pid)
    time.sleep(0.2)  # The trap is set.
    started = time.monotonic()
    assert processes.End(record, grace_s=0.5)
    stubborn.wait(timeout=5)
    assert time.monotonic() - started < 5
    assert not record.Running()
  finally:
    stubborn.kill()
    stubborn.wait()
