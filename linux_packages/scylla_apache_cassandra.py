"""Apache Cassandra server for --scylla_engine=cassandra.

Installs the Apache binary tarball of --scylla_cassandra_version and the JDK
that version runs on; the engine (perfkit_plugins/engines/cassandra.py)
configures and starts it.
"""

from absl import flags

from perfkit_plugins.engines import cassandra


def _Install(vm, package_manager):
  version = flags.FLAGS['scylla_cassandra_version'].value
  cassandra.InstallServer(vm, version, package_manager)


def AptInstall(vm):
  """Installs Apache Cassandra on a Debian or Ubuntu VM."""
  _Install(vm, 'apt')


def YumInstall(vm):
  """Installs Apache Cassandra on a RHEL-family VM."""
  _Install(vm, 'yum')
