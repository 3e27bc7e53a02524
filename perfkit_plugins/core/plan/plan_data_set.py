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

"""The data set a planned run writes, and the share of it each read visits.

Whether a read measures disks or memory depends on how its working set
compares with the cluster's RAM; these figures let the plan show that
before anything is provisioned, and let its warnings point at reads that
would be served from memory.
"""

import dataclasses

from perfkit_plugins.core.plan import plan


@dataclasses.dataclass(frozen=True)
class DataSet:
  """The data set of a run against the cluster's RAM.

  Bytes are column data (plan.RowBytes) without per-row overheads, as the
  planner sizes them; "stored" counts every replica.
  """

  keys: int
  row_bytes: int
  replication_factor: int
  server_count: int
  cluster_ram_bytes: int

  @property
  def unique_bytes(self):
    return self.keys * self.row_bytes

  @property
  def stored_bytes(self):
    return self.unique_bytes * self.replication_factor

  @property
  def per_node_bytes(self):
    return self.stored_bytes / self.server_count

  @property
  def ram_ratio(self):
    """Stored bytes over cluster RAM (what each node must cache)."""
    return self.stored_bytes / self.cluster_ram_bytes

  def StoredBytes(self, keys):
    """Bytes stored on the cluster for `keys` distinct partitions."""
    return keys * self.row_bytes * self.replication_factor


def DataSetOf(settings, cluster_ram_bytes):
  """The DataSet the planner will write for these settings."""
  return DataSet(
      keys=plan.KeyCount(settings, cluster_ram_bytes),
      row_bytes=plan.RowBytes(settings),
      replication_factor=settings.replication_factor,
      server_count=settings.server_count,
      cluster_ram_bytes=cluster_ram_bytes,
  )


def WorkingSets(settings, data_set):
  """Distinct keys each read distribution visits (95.4% of a gaussian).

  Returns:
    {'small'|'medium'|'large': keys}, capped at the data set.
  """
  distributions = plan.ReadDistributions(
      data_set.keys, data_set.cluster_ram_bytes, data_set.row_bytes, settings
  )
  sets = {}
  for size, population in distributions.items():
    keys = data_set.keys
    if population.kind == 'gaussian':
      keys = plan.GAUSSIAN_WORKING_SET_STDEVS * population.stdev
    sets[size] = min(data_set.keys, keys)
  return sets


def UsedDistributions(settings):
  """Read distributions the selected phases use -> the phases using them."""
  used = {}
  uses = (
      ('read', ('small', 'medium', 'large')),
      ('read_cache', ('small',)),
      ('reads_during_writes', ('large',)),
      ('mixed', (settings.mixed_distribution,)),
  )
  for phase, sizes in uses:
    if phase in settings.phases:
      for size in sizes:
        used.setdefault(size, []).append(phase)
  return used
