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

"""Tests for stress_install.py, tarballs.py and java_install.py.

Downloads, checksums and unpacking run for real in a local shell (LocalVm,
file:// URLs); the install sequences on recording fake VMs; version checks
on real `cassandra-stress version` outputs.
"""

import hashlib
import pathlib
import shlex
import subprocess
import tarfile
from unittest import mock

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import artifacts
from perfkit_plugins.core.software import java
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.operations import java_install
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import stress_install
from perfkit_plugins.operations import tarballs
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import local_vm

# PKB's linux_packages.INSTALL_DIR, which the shell hands in.
ROOT = '/opt/pkb'

NASTY = "x'; touch pwned; echo '$(touch pwned2) `touch pwned3`"
TESTDATA = pathlib.Path(__file__).parents[1] / 'testdata'


def Sh(command, cwd):
  """Runs a command with the POSIX sh, as a remote login shell would."""
  return subprocess.run(
      ['sh', '-c', command],
      cwd=cwd,
      capture_output=True,
      text=True,
      check=False,
  )


def MakeTarball(path, top):
  """A .tar.gz holding top/bin/cassandra-stress."""
  source = path.parent / 'src' / top / 'bin'
  source.mkdir(parents=True)
  (source / 'cassandra-stress').write_text('#!/bin/sh\necho "Version: 1"\n')
  with tarfile.open(path, 'w:gz') as tar:
    tar.add(path.parent / 'src' / top, arcname=top)
  return path


def _Artifact(archive, checksum=''):
  return artifacts.Make(
      'Tool 1 tarball',
      '1',
      f'file://{archive}',
      'scylla_stress_url',
      checksum,
      'scylla_stress_checksum',
      published_algorithm=artifacts.SHA256,
  )


def _Sha256(path):
  return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def test_fetch_verifies_unpacks_and_does_not_fetch_again(tmp_path):
  archive = MakeTarball(tmp_path / 'cs.tar.gz', 'cassandra-stress')
  root = tmp_path / f'root {NASTY}'
  vm = local_vm.LocalVm(cwd=tmp_path)
  artifact = _Artifact(archive, f'sha256:{_Sha256(archive)}')
  target, checksum = tarballs.Fetch(vm, artifact, 'tool', str(root))
  assert checksum.source == 'flag'
  assert (pathlib.Path(target) / 'bin' / 'cassandra-stress').is_file()
  assert sorted(p.name for p in root.iterdir()) == ['tool']
  record = pathlib.Path(target) / tarballs.CHECKSUM_RECORD
  assert record.read_text() == checksum.Text() + '\n'
  assert not list(tmp_path.glob('pwned*'))
  # Installed and verified already: not downloaded again (it is gone now).
  archive.unlink()
  assert tarballs.Fetch(vm, artifact, 'tool', str(root))[0] == target


def test_fetch_uses_the_checksum_published_beside_the_tarball(tmp_path):
  archive = MakeTarball(tmp_path / 'cs.tar.gz', 'cassandra-stress')
  vm = local_vm.LocalVm(cwd=tmp_path)
  artifact = _Artifact(archive)
  with pytest.raises(artifacts.ArtifactError) as raised:
    tarballs.Fetch(vm, artifact, 'tool', str(tmp_path / 'root'))
  assert 'no --scylla_stress_checksum given' in str(raised.value)
  assert not (tmp_path / 'root' / 'tool').exists()
  # As sha256sum writes it, as the release workflow publishes it.
  pathlib.Path(f'{archive}.sha256').write_text(
      Sh(f'sha256sum {archive.name}', tmp_path).stdout
  )
  _, checksum = tarballs.Fetch(vm, artifact, 'tool', str(tmp_path / 'root'))
  assert checksum == artifacts.Checksum('sha256', _Sha256(archive), 'published')


def test_wrong_checksum_fails_naming_artifact_and_flags(tmp_path):
  archive = MakeTarball(tmp_path / 'cs.tar.gz', 'cassandra-stress')
  root = tmp_path / 'root'
  vm = local_vm.LocalVm(name='loader-1', cwd=tmp_path)
  artifact = _Artifact(archive, 'sha256:' + '0' * 64)
  with pytest.raises(artifacts.ArtifactError) as raised:
    tarballs.Fetch(vm, artifact, 'tool', str(root))
  message = str(raised.value)
  assert message.startswith('Tool 1 tarball: checksum mismatch')
  assert '--scylla_stress_checksum' in message
  assert '--scylla_stress_url' in message
  assert f'got sha256:{_Sha256(archive)}' in message
  # Nothing unpacked, the download removed.
  assert list(root.iterdir()) == []


def test_failed_download_names_the_url_flag_and_leaves_nothing(tmp_path):
  vm = local_vm.LocalVm(name='loader-1', cwd=tmp_path)
  artifact = _Artifact(tmp_path / 'missing.tar.gz', 'sha256:' + '0' * 64)
  with pytest.raises(artifacts.ArtifactError) as raised:
    tarballs.Fetch(vm, artifact, 'tool', str(tmp_path / 'root'))
  assert 'could not download file://' in str(raised.value)
  assert 'on loader-1' in str(raised.value)
  assert '--scylla_stress_url' in str(raised.value)
  assert not (tmp_path / 'root' / 'tool').exists()


def test_a_changed_checksum_replaces_the_install(tmp_path):
  first = MakeTarball(tmp_path / 'a' / 'cs.tar.gz', 'cassandra-stress')
  root = str(tmp_path / 'root')
  vm = local_vm.LocalVm(cwd=tmp_path)
  target, _ = tarballs.Fetch(
      vm, _Artifact(first, f'sha256:{_Sha256(first)}'), 'tool', root
  )
  (pathlib.Path(target) / 'stale').write_text('old')
  second = tmp_path / 'b' / 'cs.tar.gz'
  second.parent.mkdir()
  with tarfile.open(second, 'w:gz') as tar:
    tar.add(tmp_path / 'a' / 'src' / 'cassandra-stress', arcname='cs2')
  tarballs.Fetch(
      vm, _Artifact(second, f'sha256:{_Sha256(second)}'), 'tool', root
  )
  assert not (pathlib.Path(target) / 'stale').exists()


def _Settings(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def _Loader(tool, listing):
  """A fake loader whose tarball has the expected digest and JDK listing."""
  vm = fake_vm.FakeVm(name='loader-0')
  digest = (
      tool.artifact.checksum.digest if tool.artifact.checksum else 'ab' * 32
  )
  digest = (
      digest if tool.artifact.published_algorithm == 'sha256' else (digest * 2)
  )
  vm.Reply(r'^curl .*\.sha(256|512)$', f'{digest}  cs.tar.gz\n')
  vm.Reply(r'^sha(256|512)sum ', f'{digest}  cs.tar.gz\n')
  vm.Reply(r'/usr/lib/jvm/\*', lambda _: ''.join(listing))
  return vm


def test_install_scylla_asset_uses_an_installed_java_21_or_newer():
  tool = stress_tools.StressToolOf(_Settings())
  listing = (TESTDATA / 'java' / 'list-debian12-temurin25.txt').read_text()
  vm = _Loader(tool, [listing])
  checksum = stress_install.Install(vm, tool, 'apt', ROOT)
  assert checksum.source == 'published'
  assert vm.installed == ['curl']
  install_dir = '/opt/pkb/scylla-cassandra-stress-3.18.1'
  # The JDK linked, then the loader's script pushed.
  assert vm.CommandsMatching('^ln -sfn') == [
      f'ln -sfn /usr/lib/jvm/temurin-25-jdk-amd64 {install_dir}/jdk'
  ]
  assert vm.CommandsMatching(
      r'curl .* https://github\.com/scylladb/cassandra-stress/releases/'
      r'download/v3\.18\.1/cassandra-stress-bin-java21\.tar\.gz$'
  )


def test_install_installs_a_packaged_jdk_only_when_offered():
  tool = stress_tools.StressToolOf(_Settings(stress_tool='apache'))
  listing = []
  vm = _Loader(tool, listing)
  vm.available_packages = {'java-17-openjdk-devel'}

  def Install(packages):
    fake_vm.FakeVm.InstallPackages(vm, packages)
    if packages == 'java-17-openjdk-devel':
      listing.append(
          '/usr/lib/jvm/java-17-openjdk/bin/java\topenjdk version "17.0.9"\n'
      )

  vm.InstallPackages = Install
  stress_install.Install(vm, tool, 'yum', ROOT)
  assert vm.installed == ['curl', 'java-17-openjdk-devel']
  (link,) = vm.CommandsMatching('^ln -sfn')
  assert link.startswith('ln -sfn /usr/lib/jvm/java-17-openjdk ')
  assert vm.pushed == [(
      phase_runner.SCRIPT_SOURCE,
      '/opt/pkb/scylla_phases/loader/stress_run.sh',
  )]


def test_install_fails_at_once_when_the_image_has_no_fitting_jdk():
  tool = stress_tools.StressToolOf(_Settings())
  listing = (
      '/usr/lib/jvm/java-17-openjdk-amd64/bin/java\topenjdk version "17.0.15"\n'
  )
  vm = _Loader(tool, [listing])
  with pytest.raises(java.JavaError) as raised:
    stress_install.Install(vm, tool, 'apt', ROOT)
  message = str(raised.value)
  assert 'ScyllaDB cassandra-stress 3.18.1 needs Java 21 or newer' in message
  assert 'loader-0 (debian12)' in message
  assert 'openjdk-21-jdk-headless, openjdk-25-jdk-headless' in message
  # Nothing was installed that could not be.
  assert vm.installed == ['curl']


def test_java_ensure_on_this_machines_real_jdks(tmp_path):
  vm = local_vm.LocalVm(cwd=tmp_path)
  installed = java_install.Installed(vm)
  assert any(j.major == 17 for j in installed), installed
  chosen = java_install.Ensure(
      vm, java.Exactly('Apache Cassandra 5.0.9', 17), 'apt', str(tmp_path)
  )
  assert chosen.major == 17
  java_bin = tmp_path / 'jdk' / 'bin' / 'java'
  version = subprocess.run(
      [str(java_bin), '-version'], capture_output=True, text=True, check=True
  )
  assert 'version "17.' in version.stderr


def test_check_version_accepts_the_release_it_was_asked_for():
  tool = stress_tools.StressToolOf(_Settings())
  vm = fake_vm.FakeVm()
  vm.Reply(
      r' version$',
      (TESTDATA / 'stress_tool' / 'version-3.18.1.txt').read_text(),
  )
  version = stress_install.CheckVersion(vm, tool, f'/opt/{NASTY}')
  assert version.version == '3.18.1'
  assert version.components['scylla-java-driver'] == '3.11.5.7'
  assert vm.commands == [stress_install.VersionCommand(tool, f'/opt/{NASTY}')]
  # JAVA_HOME and the launcher are one word each.
  assert shlex.split(vm.commands[0]) == [
      f'JAVA_HOME=/opt/{NASTY}/scylla-cassandra-stress-3.18.1/jdk',
      f'/opt/{NASTY}/scylla-cassandra-stress-3.18.1/bin/cassandra-stress',
      'version',
  ]


def test_check_version_rejects_another_release(lab):
  tool = stress_tools.StressToolOf(_Settings())
  vm = fake_vm.FakeVm(name='loader-2')
  vm.Reply(r' version$', lab('cs-version.txt'))
  with pytest.raises(stress_install.StressInstallError) as raised:
    stress_install.CheckVersion(vm, tool, ROOT)
  assert 'reports version 3.12.0-SNAPSHOT, not 3.18.1' in str(raised.value)
  assert '--scylla_stress_release' in str(raised.value)


def test_check_version_fails_when_the_tool_reports_nothing():
  tool = stress_tools.StressToolOf(_Settings())
  vm = fake_vm.FakeVm(name='loader-3')
  vm.Reply('version', '', stderr='UnsupportedClassVersionError')
  with pytest.raises(stress_install.StressInstallError, match='loader-3'):
    stress_install.CheckVersion(vm, tool, ROOT)


def test_check_version_accepts_apache_5_0_missing_version():
  tool = stress_tools.StressToolOf(
      _Settings(stress_tool='apache', cassandra_version='5.0.6')
  )
  vm = fake_vm.FakeVm()
  vm.Reply('version', stress_install.APACHE_NO_VERSION + '\n')
  version = stress_install.CheckVersion(vm, tool, ROOT)
  assert version == stress_output.StressVersion(
      version='5.0.6',
      components={'reported': stress_install.APACHE_NO_VERSION},
  )
  # Only for the Apache tool: ScyllaDB's always prints its version.
  scylla = stress_tools.StressToolOf(_Settings())
  with pytest.raises(stress_install.StressInstallError):
    stress_install.CheckVersion(vm, scylla, ROOT)


def _LoaderWithJava(version_file, memory_gib=32, name='loader-0'):
  vm = fake_vm.FakeVm(name=name, total_memory_kb=int(memory_gib * 2**20))
  vm.Reply(
      r"/jdk/bin/java'? -version 2>&1 \| grep ",
      (TESTDATA / 'java' / version_file).read_text(),
  )
  return vm


def test_loader_jvm_is_read_from_the_java_linked_beside_the_tool():
  vm = _LoaderWithJava('version-temurin25.txt', memory_gib=16)
  jvm = stress_install.LoaderJvm(vm, _Settings(), f'/opt/{NASTY}')
  assert jvm == stress_install.loader_jvm.LoaderJvm('zgc', 4096, 25)
  assert shlex.split(vm.commands[0])[0] == (
      f'/opt/{NASTY}/scylla-cassandra-stress-3.18.1/jdk/bin/java'
  )


def test_loader_jvm_on_java_17_is_g1():
  vm = _LoaderWithJava('version-debian12-17.txt')
  jvm = stress_install.LoaderJvm(vm, _Settings(), ROOT)
  assert (jvm.collector, jvm.java, jvm.heap_mb) == ('g1', 17, 8192)


def test_zgc_on_a_loader_without_it_names_the_flag_and_the_loader():
  vm = _LoaderWithJava('version-debian12-17.txt', name='loader-7')
  settings = _Settings(loader_gc='zgc')
  with mock.patch.object(java, 'MajorOf', return_value=11):
    with pytest.raises(stress_install.StressInstallError) as raised:
      stress_install.LoaderJvm(vm, settings, ROOT)
  assert str(raised.value).startswith('--scylla_loader_gc: loader-7: zgc')


def test_the_largest_heap_the_refusal_names_is_accepted():
  # What a VM of '8 GB' reports: a little less.
  vm = _LoaderWithJava('version-temurin25.txt', memory_gib=7.77)
  with pytest.raises(stress_install.StressInstallError) as raised:
    stress_install.LoaderJvm(vm, _Settings(loader_heap_gb=4), ROOT)
  assert 'give at most 3.8,' in str(raised.value)
  vm = _LoaderWithJava('version-temurin25.txt', memory_gib=7.77)
  jvm = stress_install.LoaderJvm(vm, _Settings(loader_heap_gb=3.8), ROOT)
  assert jvm.heap_mb == 3891


def test_a_heap_over_half_the_loaders_memory_is_refused():
  vm = _LoaderWithJava('version-temurin25.txt', memory_gib=8)
  with pytest.raises(stress_install.StressInstallError) as raised:
    stress_install.LoaderJvm(vm, _Settings(loader_heap_gb=6), ROOT)
  assert str(raised.value) == (
      "--scylla_loader_heap_gb: 6 GiB is more than half of loader-0's 8.0"
      ' GiB: give at most 4.0, or 0 for min(8, RAM/4)'
  )


def test_a_java_that_prints_no_version_is_named():
  vm = fake_vm.FakeVm(name='loader-1')
  vm.Reply('-version', 'sh: 1: /opt/pkb/x/jdk/bin/java: not found\n')
  with pytest.raises(stress_install.StressInstallError, match='loader-1'):
    stress_install.LoaderJvm(vm, _Settings(), ROOT)
