"""Package module for the ScyllaDB server (`vm.Install('scylla_server')`).

Installs the release given by --scylla_release (X.Y: the newest patch of the
series; X.Y.Z: exactly that) from ScyllaDB's package repositories. The work
is done by perfkit_plugins.engines.scylla.
"""

from absl import flags

from perfkit_plugins.core import scylla_config
from perfkit_plugins.engines import scylla

FLAGS = flags.FLAGS


def _Release():
  """--scylla_release, checked (the flag is defined by the benchmark).

  Raises:
    ValueError: a malformed release, naming the flag.
  """
  release = FLAGS['scylla_release'].value
  try:
    scylla_config.ReleaseSeries(release)
  except ValueError as e:
    raise ValueError(f'--scylla_release: {e}') from e
  return release


def AptInstall(vm):
  """Installs ScyllaDB on Debian/Ubuntu."""
  scylla.AptInstall(vm, _Release())


def YumInstall(vm):
  """Installs ScyllaDB on RHEL-family systems."""
  scylla.YumInstall(vm, _Release())
