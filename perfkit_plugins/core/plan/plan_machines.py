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

"""The cluster a run is planned for, before any of its VMs exists.

The `scylla-phases-plan` command resolves machine shapes and prices with
PKB's config machinery; the planner, the estimates and the report size
everything from them. Planned commands name servers that have no address
yet, so placeholders stand for them, and the shard count is predicted from
the shape with perftune's rule, since no server can be asked.
"""

import dataclasses

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.machines import tuning

# Hyperthreads per core on the clouds' x86 types, for the shard prediction.
THREADS_PER_CORE = 2
# Stands for server i's address in planned commands (no VM exists yet).
SERVER_PLACEHOLDER = 'server{}'


@dataclasses.dataclass(frozen=True)
class Machines:
  """Shapes and prices of one server and one loader, before provisioning.

  Attributes:
    server_shape: machines.MachineShape of a server (required: the data set
      and the estimates are sized from it).
    local_ssds: local SSDs of a server in the data RAID0; 0 with a network
      data disk.
    loader_shape: machines.MachineShape of a loader, or None when unknown.
    server_price: cost.Price of one server, or None when unknown.
    loader_price: cost.Price of one loader, or None when unknown.
  """

  server_shape: machines.MachineShape
  local_ssds: int
  loader_shape: machines.MachineShape | None
  server_price: cost.Price | None
  loader_price: cost.Price | None


def ServerPlaceholders(server_count):
  """Names standing for the servers' addresses: server0, server1, ..."""
  return [SERVER_PLACEHOLDER.format(i) for i in range(server_count)]


def ClusterRamBytes(settings, shapes):
  """Total RAM of the servers, in bytes."""
  return machines.ClusterRamBytes(shapes.server_shape, settings.server_count)


def PredictedShards(shape):
  """Shards perftune's rule leaves per server, or None when it cannot say."""
  cores = max(1, shape.vcpus // THREADS_PER_CORE)
  try:
    return tuning.PredictIrqLayout(shape.vcpus, cores, shape.numa_nodes)
  except ValueError:
    return None
