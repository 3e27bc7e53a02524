"""cassandra-stress for the loaders of the scylla_phases benchmark.

--scylla_stress_tool picks ScyllaDB's release (pinned by
--scylla_stress_release, on Java 21) or the one inside the Apache Cassandra
tarball of --scylla_cassandra_version. Installing also runs
`cassandra-stress version`, so a tool that cannot start fails here.
"""

from absl import flags

from perfkit_plugins import stress_install
from perfkit_plugins.core import stress_tools


def _Install(vm, package_manager):
  tool = stress_tools.StressToolFor(
      flags.FLAGS['scylla_stress_tool'].value,
      flags.FLAGS['scylla_stress_release'].value,
      flags.FLAGS['scylla_cassandra_version'].value,
  )
  binary = stress_install.Install(vm, tool, package_manager)
  stress_install.CheckVersion(vm, binary, tool)


def AptInstall(vm):
  """Installs cassandra-stress on a Debian or Ubuntu VM."""
  _Install(vm, 'apt')


def YumInstall(vm):
  """Installs cassandra-stress on a RHEL-family VM."""
  _Install(vm, 'yum')
