"""Package module for the ScyllaDB server (`vm.Install('scylla_server')`).

Installs the release given by --scylla_release (X.Y: the newest patch of the
series; X.Y.Z: exactly that) from ScyllaDB's package repositories, or from
the mirror --scylla_repo_url and --scylla_repo_key_url name. The work is
done by perfkit_plugins.engines.scylla.
"""

from absl import flags

from perfkit_plugins import scylla_phases_flags
from perfkit_plugins.engines import scylla


def _Settings():
  return scylla_phases_flags.SettingsFromFlags(flags.FLAGS, validate=False)


def AptInstall(vm):
  """Installs ScyllaDB on Debian/Ubuntu."""
  scylla.AptInstall(vm, _Settings())


def YumInstall(vm):
  """Installs ScyllaDB on RHEL-family systems."""
  scylla.YumInstall(vm, _Settings())
