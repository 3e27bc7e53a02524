"""Apache Cassandra server for --scylla_engine=cassandra.

Installs the Apache binary tarball of --scylla_cassandra_version (from
--scylla_cassandra_url, verified against its checksum) and links the JDK
that version runs on; the engine (perfkit_plugins/engines/cassandra.py)
configures and starts it.
"""

from absl import flags

from perfkit_plugins import scylla_phases_flags
from perfkit_plugins.engines import cassandra


def _Install(vm, package_manager):
  settings = scylla_phases_flags.SettingsFromFlags(flags.FLAGS, validate=False)
  cassandra.InstallServer(vm, settings, package_manager)


def AptInstall(vm):
  """Installs Apache Cassandra on a Debian or Ubuntu VM."""
  _Install(vm, 'apt')


def YumInstall(vm):
  """Installs Apache Cassandra on a RHEL-family VM."""
  _Install(vm, 'yum')
