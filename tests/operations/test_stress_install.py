"""Tests for stress_install.py and tarballs.py on fake and local shells."""

import subprocess
import tarfile

import pytest

from perfkit_plugins import stress_install
from perfkit_plugins import tarballs
from perfkit_plugins.core import settings as settings_lib
from perfkit_plugins.core import stress_output
from perfkit_plugins.core import stress_tools
from perfkit_plugins.testing import fake_vm

NASTY = "x'; touch pwned; echo '$(touch pwned2) `touch pwned3`"


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


def test_fetch_command_unpacks_without_top_dir_and_only_once(tmp_path):
  archive = MakeTarball(tmp_path / 'cs.tar.gz', 'cassandra-stress')
  target = tmp_path / 'root' / f'tool {NASTY}'
  target.parent.mkdir()
  command = tarballs.FetchCommand(f'file://{archive}', str(target))
  result = Sh(command, tmp_path)
  assert result.returncode == 0, result.stderr
  assert (target / 'bin' / 'cassandra-stress').is_file()
  assert sorted(p.name for p in target.parent.iterdir()) == [target.name]
  assert not list(tmp_path.glob('pwned*'))
  # Installed already: not fetched again (the URL is gone now).
  archive.unlink()
  assert Sh(command, tmp_path).returncode == 0


def test_fetch_command_failure_leaves_no_install_dir(tmp_path):
  target = tmp_path / 'tool'
  result = Sh(
      tarballs.FetchCommand(f'file://{tmp_path}/missing.tar.gz', str(target)),
      tmp_path,
  )
  assert result.returncode != 0
  assert not target.exists()


def test_install_scylla_tool_installs_java_21_and_the_release():
  vm = fake_vm.FakeVm()
  tool = stress_tools.StressToolFor('scylla', '3.18.1', '5.0.6')
  binary = stress_install.Install(vm, tool, 'apt')
  assert (
      binary == '/opt/pkb/scylla-cassandra-stress-3.18.1/bin/cassandra-stress'
  )
  assert vm.installed == ['curl', 'openjdk-21-jdk-headless']
  assert vm.commands == [
      tarballs.FetchCommand(tool.url, '/opt/pkb/scylla-cassandra-stress-3.18.1')
  ]
  assert tool.url in vm.commands[0]


def test_install_apache_tool_on_yum():
  vm = fake_vm.FakeVm()
  tool = stress_tools.StressToolFor('apache', '3.18.1', '5.0.6')
  binary = stress_install.Install(vm, tool, 'yum', root='/srv/x')
  assert binary == '/srv/x/apache-cassandra-5.0.6/tools/bin/cassandra-stress'
  assert vm.installed == ['curl', 'java-17-openjdk-devel']


def test_stress_binary_path_follows_the_settings():
  s = settings_lib.Validate(settings_lib.Settings(stress_tool='apache'))
  assert stress_install.StressBinaryPath(s) == (
      '/opt/pkb/apache-cassandra-5.0.9/tools/bin/cassandra-stress'
  )


def test_check_version_parses_real_output(lab):
  vm = fake_vm.FakeVm()
  vm.Reply(r' version$', lab('cs-version.txt'))
  binary = f'/opt/{NASTY}/cassandra-stress'
  version = stress_install.CheckVersion(vm, binary)
  assert version.version == '3.12.0-SNAPSHOT'
  assert version.components['scylla-java-driver'] == '3.11.5.7'
  assert vm.commands == [stress_install.VersionCommand(binary)]
  # The path is one shell word.
  result = subprocess.run(
      ['sh', '-c', 'printf "%s\\n" ' + stress_install.VersionCommand(binary)],
      capture_output=True,
      text=True,
      check=True,
  )
  assert result.stdout.splitlines() == [binary, 'version']


def test_check_version_fails_when_the_tool_reports_nothing():
  vm = fake_vm.FakeVm(name='loader-3')
  vm.Reply('version', '', stderr='UnsupportedClassVersionError')
  with pytest.raises(stress_install.StressInstallError, match='loader-3'):
    stress_install.CheckVersion(vm, '/opt/pkb/cs/bin/cassandra-stress')


def test_check_version_accepts_apache_5_0_missing_version():
  tool = stress_tools.StressToolFor('apache', '3.18.1', '5.0.6')
  vm = fake_vm.FakeVm()
  vm.Reply('version', stress_install.APACHE_NO_VERSION + '\n')
  version = stress_install.CheckVersion(vm, 'cs', tool)
  assert version == stress_output.StressVersion(
      version='5.0.6',
      components={'reported': stress_install.APACHE_NO_VERSION},
  )
  # Only for the Apache tool: ScyllaDB's always prints its version.
  scylla = stress_tools.StressToolFor('scylla', '3.18.1', '5.0.6')
  with pytest.raises(stress_install.StressInstallError):
    stress_install.CheckVersion(vm, 'cs', scylla)
