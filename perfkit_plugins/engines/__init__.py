"""Database engines behind one small interface (see base.Engine)."""

from perfkit_plugins.engines import cassandra
from perfkit_plugins.engines import scylla


def ForSettings(settings, local_ssds=0, output_dir=None, owner=''):
  """The engine --scylla_engine chose.

  Args:
    settings: validated settings.Settings.
    local_ssds: local SSDs of one server (0 with a network data disk).
    output_dir: local directory for raw outputs of the set-up.
    owner: the run's id, recorded in the data directory the run claims.

  Returns:
    A base.Engine.
  """
  if settings.engine == scylla.ScyllaEngine.NAME:
    return scylla.ScyllaEngine(settings, local_ssds, output_dir, owner)
  return cassandra.CassandraEngine(
      settings,
      settings.data_dir,
      cluster_name=settings.cluster_name,
      owner=owner,
  )
