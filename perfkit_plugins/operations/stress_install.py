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

"""Installs cassandra-stress on loader VMs and checks that it is the one asked.

The tool (ScyllaDB's release tarball or the one inside Apache Cassandra's
tarball, see core/stress/stress_tools.py) goes to `<root>/<dir_name>`, verified
against its checksum (tarballs.py), with the JDK it needs linked beside it
(java_install.py). `CheckVersion` runs `cassandra-stress version` on the
loader and compares what it reports with the release asked for: a tool that
cannot start (missing or wrong Java, broken download) or is another release
fails there, before any phase runs.
"""

import math
import shlex

from perfkit_plugins.core.software import java
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.operations import java_install
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import tarballs

# What Apache cassandra-stress 5.0 prints for `version`: its pattern only
# matches a version.properties whose last line is CassandraVersion, and 5.0's
# has GitSHA after it (checked against cassandra-all 5.0.9; 4.1.10 prints
# "Version: 4.1.10").
APACHE_NO_VERSION = 'Unable to find version information'


class StressInstallError(Exception):
  """cassandra-stress is not usable on a loader, or not the one asked."""


def Install(vm, tool, package_manager, root):
  """Installs the verified tool, the JDK it needs and the loader's script.

  The script (phase_runner.PushScript) runs every cassandra-stress of a
  step.

  Args:
    vm: the loader VM.
    tool: a stress_tools.StressTool.
    package_manager: 'apt' or 'yum', for the JDK package name.
    root: the install root (PKB's linux_packages.INSTALL_DIR).

  Returns:
    The artifacts.Checksum the tarball was verified against.
  """
  vm.InstallPackages('curl')
  install_dir, checksum = tarballs.Fetch(vm, tool.artifact, tool.dir_name, root)
  java_install.Ensure(vm, tool.java, package_manager, install_dir)
  phase_runner.PushScript(vm, root)
  return checksum


def VersionCommand(tool, root):
  """The command that prints the tool's version, on its linked JDK."""
  return (
      f'{java_install.EnvPrefix(stress_tools.InstallDir(tool, root))}'
      f' {shlex.quote(stress_tools.LauncherPath(tool, root))} version'
  )


def CheckVersion(vm, tool, root):
  """Runs `cassandra-stress version` on a loader and checks the release.

  Args:
    vm: the loader VM.
    tool: the StressTool installed there.
    root: the install root (PKB's linux_packages.INSTALL_DIR).

  Returns:
    stress_output.StressVersion as the tool reported it (Apache 5.0's
    "Unable to find version information" counts as the installed version).

  Raises:
    StressInstallError: the tool does not start, reports no version, or
      reports another release than the one asked for.
  """
  binary = stress_tools.LauncherPath(tool, root)
  stdout, stderr = vm.RemoteCommand(
      VersionCommand(tool, root), ignore_failure=True
  )
  if tool.name == 'apache' and stdout.strip() == APACHE_NO_VERSION:
    return stress_output.StressVersion(
        version=tool.version, components={'reported': APACHE_NO_VERSION}
    )
  try:
    reported = stress_output.ParseVersion(stdout)
  except stress_output.StressOutputError as e:
    raise StressInstallError(
        f'{vm.name}: {binary} does not work: {e}\nstderr: {stderr}'
    ) from e
  if reported.version != tool.version:
    flag = (
        'scylla_stress_release'
        if tool.name == 'scylla'
        else 'scylla_cassandra_version'
    )
    raise StressInstallError(
        f'{vm.name}: {binary} reports version {reported.version}, not'
        f' {tool.version} (--{flag}); the tarball from {tool.artifact.url}'
        ' is another release'
    )
  return reported


def LoaderJvm(vm, settings, root):
  """How a loader's cassandra-stress JVMs run (core.stress.loader_jvm).

  From --scylla_loader_gc and --scylla_loader_heap_gb, the Java linked
  beside the tool on the loader and the loader's memory.

  Raises:
    StressInstallError: the linked Java reports no version, the collector
      asked does not exist on it, or the heap would take more than half
      the loader's memory; naming the flag.
  """
  tool = stress_tools.StressToolOf(settings)
  home = java.JavaHome(stress_tools.InstallDir(tool, root))
  stdout, _ = vm.RemoteCommand(java.VersionCommand(home), ignore_failure=True)
  major = java.MajorOf(stdout)
  if major is None:
    raise StressInstallError(
        f'{vm.name}: {home}/bin/java reports no version: {stdout.strip()!r}'
    )
  memory_bytes = vm.total_memory_kb * 1024
  try:
    jvm = loader_jvm.Choose(
        settings.loader_gc, settings.loader_heap_gb, major, memory_bytes
    )
  except ValueError as e:
    raise StressInstallError(f'--scylla_loader_gc: {vm.name}: {e}') from e
  if jvm.heap_mb * 2**20 > memory_bytes // 2:
    most = math.floor(memory_bytes / 2 / 2**30 * 10) / 10
    raise StressInstallError(
        f'--scylla_loader_heap_gb: {jvm.heap_mb / 1024:g} GiB is more than'
        f" half of {vm.name}'s {memory_bytes / 2**30:.1f} GiB: give at most"
        f' {most:.1f}, or 0 for'
        f' min({loader_jvm.MAX_DEFAULT_HEAP_MB // 1024}, RAM/'
        f'{loader_jvm.HEAP_SHARE})'
    )
  return jvm
