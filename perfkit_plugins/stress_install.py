"""Installs cassandra-stress on loader VMs and checks that it runs.

The tool (ScyllaDB's release tarball or the one inside Apache Cassandra's
tarball, see core/stress_tools.py) goes to `<root>/<dir_name>` next to the
JDK it needs. `CheckVersion` runs `cassandra-stress version` on the loader:
a tool that cannot start (missing or wrong Java, broken download) fails there,
before any phase runs.
"""

import posixpath
import shlex

from perfkit_plugins import tarballs
from perfkit_plugins.core import cassandra_config
from perfkit_plugins.core import stress_output
from perfkit_plugins.core import stress_tools

# What Apache cassandra-stress 5.0 prints for `version`: its pattern only
# matches a version.properties whose last line is CassandraVersion, and 5.0's
# has GitSHA after it (checked against cassandra-all 5.0.9; 4.1.10 prints
# "Version: 4.1.10").
APACHE_NO_VERSION = 'Unable to find version information'


class StressInstallError(Exception):
  """cassandra-stress is not usable on a loader."""


def BinaryPath(tool, root=tarballs.INSTALL_ROOT):
  """The cassandra-stress launcher of a stress_tools.StressTool."""
  return posixpath.join(tarballs.InstallDir(tool.dir_name, root), tool.binary)


def StressBinaryPath(settings, root=tarballs.INSTALL_ROOT):
  """The cassandra-stress launcher the settings select, on every loader."""
  return BinaryPath(stress_tools.StressToolOf(settings), root)


def Install(vm, tool, package_manager, root=tarballs.INSTALL_ROOT):
  """Installs the tool and its JDK on a loader.

  Args:
    vm: the loader VM.
    tool: a stress_tools.StressTool.
    package_manager: 'apt' or 'yum', for the JDK package name.
    root: install root.

  Returns:
    The launcher's path.
  """
  java = cassandra_config.JavaPackage(tool.java, package_manager)
  vm.InstallPackages(f'curl {java}')
  tarballs.Fetch(vm, tool.url, tool.dir_name, root)
  return BinaryPath(tool, root)


def VersionCommand(binary):
  """The command that prints the tool's version."""
  return f'{shlex.quote(binary)} version'


def CheckVersion(vm, binary, tool=None):
  """Runs `cassandra-stress version` on a loader and parses it.

  Args:
    vm: the loader VM.
    binary: the launcher's path.
    tool: the StressTool installed there; lets Apache 5.0's known "Unable to
      find version information" answer count as the installed version.

  Returns:
    stress_output.StressVersion.

  Raises:
    StressInstallError: the tool ran but reported no version.
  """
  stdout, stderr = vm.RemoteCommand(VersionCommand(binary))
  if tool and tool.name == 'apache' and stdout.strip() == APACHE_NO_VERSION:
    return stress_output.StressVersion(
        version=tool.version, components={'reported': APACHE_NO_VERSION}
    )
  try:
    return stress_output.ParseVersion(stdout)
  except stress_output.StressOutputError as e:
    raise StressInstallError(
        f'{vm.name}: {binary} does not work: {e}\nstderr: {stderr}'
    ) from e
