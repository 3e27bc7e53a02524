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

"""The interface every database engine implements.

The benchmark drives ScyllaDB and Apache Cassandra through these methods only,
so phases, quiesce and bring-up code never know which database runs. Methods
take the server VM they act on; engines hold their settings.
"""

import abc

from perfkit_plugins.core.quiesce import node_status


class Engine(abc.ABC):
  """One database, on any number of server VMs.

  Attributes:
    settings: validated settings.Settings.
    volumes: data_dir.DataVolume of each server whose data volume this engine
      built, by VM name (Configure fills it; the benchmark keeps it on the
      spec from Prepare to Run, which may run in another process).
  """

  # 'scylla' or 'cassandra', as in settings.ENGINES.
  NAME = ''
  # Whether every node of a new cluster may start at once, the seed
  # included (else the seed first, then one at a time, each after the
  # previous one is Up/Normal).
  JOINS_AT_ONCE = False
  # The CQL port the loaders connect to.
  native_port = 9042

  def __init__(self, settings):
    self.settings = settings
    self.volumes = {}

  @abc.abstractmethod
  def Install(self, vm):
    """Installs the database (packages, Java) on a server VM."""

  @abc.abstractmethod
  def Configure(self, vm, seed_ips, ring_slot):
    """Writes the database configuration (and tunes the node).

    Args:
      vm: the server.
      seed_ips: the seed nodes' addresses.
      ring_slot: token_ring.RingSlot, the node's place in the new cluster.
    """

  @abc.abstractmethod
  def Start(self, vm):
    """Starts the database on one node."""

  @abc.abstractmethod
  def Stop(self, vm):
    """Stops the database on one node; no error when it is not running."""

  @abc.abstractmethod
  def Running(self, vm):
    """Whether the database's process runs on one node (False: it ended)."""

  def ServesClients(self, vm):
    """Whether the node serves CQL on its client address: a CqlAnswer.

    Asked on the node (node_status.CqlProbeCommand), where the loaders'
    address is reachable and no JVM has to start. A node is Up/Normal in
    gossip before its native transport listens; loaders started in
    between are refused.
    """
    out, _ = vm.RemoteCommand(
        node_status.CqlProbeCommand(vm.internal_ip, self.native_port)
    )
    return node_status.ParseCqlProbe(out)

  @abc.abstractmethod
  def NodetoolCommand(self, *args):
    """The node's nodetool command line with these arguments."""

  def MetricsUrl(self, vm):
    """The node's metrics page (Prometheus text), or None: it serves none."""
    del vm  # Only ScyllaDB's nodes serve one (ScyllaEngine.MetricsUrl).

  def ThreadPools(self, vm):
    """The node's thread pools (thread_pools.ThreadPools), or None.

    Apache Cassandra's (`nodetool tpstats`); ScyllaDB's queues are on its
    metrics page instead.
    """
    del vm  # Only Apache Cassandra's (CassandraEngine.ThreadPools).

  @abc.abstractmethod
  def NodeStates(self, vm):
    """The ring as this node sees it: list[node_status.NodeState]."""

  @abc.abstractmethod
  def Flush(self, vm, keyspace):
    """Flushes the keyspace's memtables on one node."""

  @abc.abstractmethod
  def CompactionStatus(self, vm):
    """Running and pending compactions: compactions.CompactionStatus."""

  @abc.abstractmethod
  def CompactionHistory(self, vm):
    """Finished compactions: list[compactions.HistoryEntry]."""

  @abc.abstractmethod
  def Version(self, vm):
    """The database version string reported by the node."""

  @abc.abstractmethod
  def LogPaths(self):
    """Remote paths of logs and configs to pull into the run directory."""

  def Tuning(self, vms):
    """What the nodes run with, read back from them.

    Args:
      vms: the server VMs.

    Returns:
      (sample metadata with `scylla_` keys, total shards or None when the
      database has no shards).
    """
    return {'scylla_version': self.Version(vms[0])}, None

  def PrepareLogs(self, vm):
    """Writes logs that are not plain files (e.g. journald) to LogPaths."""

  def Clean(self, vm):
    """Removes the node's data after Stop; nothing by default."""
