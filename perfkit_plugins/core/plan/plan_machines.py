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
import re

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
    server_shape: machines.MachineShape of a server (required: the estimates
      are sized from its vCPUs; its memory may be unknown).
    local_ssds: local SSDs of a server in the data RAID0; 0 with a network
      data disk.
    loader_shape: machines.MachineShape of a loader, or None when unknown.
    server_price: cost.Price of one server, or None when unknown.
    loader_price: cost.Price of one loader, or None when unknown.
    server_zone: the servers' zone ('' when not known).
    loader_zone: the loaders' zone ('' when not known).
    disk_iops: IOPS provisioned on the network data disk, or None.
    disk_mib_s: MiB/s provisioned on the network data disk, or None.
  """

  server_shape: machines.MachineShape
  local_ssds: int
  loader_shape: machines.MachineShape | None
  server_price: cost.Price | None
  loader_price: cost.Price | None
  server_zone: str = ''
  loader_zone: str = ''
  disk_iops: int | None = None
  disk_mib_s: int | None = None


def ServerPlaceholders(server_count):
  """Names standing for the servers' addresses: server0, server1, ..."""
  return [SERVER_PLACEHOLDER.format(i) for i in range(server_count)]


def RamIsEstimated(shapes):
  """Whether the server memory comes from the machine table (else stand-in)."""
  return shapes.server_shape.memory_gib is not None


def ClusterRamBytes(settings, shapes):
  """Total RAM of the servers to plan with, in bytes (an estimate).

  The machine table's memory of the server type, or a stand-in per server
  when the table has none; the run sizes from what the servers report.
  """
  if not RamIsEstimated(shapes):
    return machines.STAND_IN_RAM_PER_SERVER * settings.server_count
  return machines.ClusterRamBytes(shapes.server_shape, settings.server_count)


def PredictedShards(shape):
  """Shards perftune's rule leaves per server, or None when it cannot say."""
  if not shape.numa_nodes:
    return None
  cores = max(1, shape.vcpus // THREADS_PER_CORE)
  try:
    return tuning.PredictIrqLayout(shape.vcpus, cores, shape.numa_nodes)
  except ValueError:
    return None


def Region(zone):
  """The region of a GCE or EC2 zone (us-central1-a, us-east-1a), or ''."""
  if re.fullmatch(r'[a-z]+-[a-z]+\d+-[a-z]', zone):
    return zone.rsplit('-', 1)[0]
  if re.fullmatch(r'[a-z]+(-[a-z]+)+-\d+[a-z]', zone):
    return zone[:-1]
  return zone


@dataclasses.dataclass(frozen=True)
class QuotaLine:
  """VMs and vCPUs a run needs of one machine family in one region.

  Attributes:
    region: the region ('' when the zone is not known).
    family: the machine family (n2, z3, c6i...).
    roles: the groups that use it ('servers', 'loaders').
    vms: VMs.
    vcpus: vCPUs of those VMs, or None when a type's vCPUs are unknown.
  """

  region: str
  family: str
  roles: tuple[str, ...]
  vms: int
  vcpus: int | None


def Quota(settings, shapes):
  """The VMs and vCPUs of every machine family and region a run creates.

  Clouds cap vCPUs per region (GCE also per machine family, EC2 per
  instance class); a run past them fails after the VMs created before are
  paid for, so the plan lists them to check first.

  Returns:
    list of QuotaLine, in the order the groups are listed.
  """
  lines = {}
  for role, count, machine_type, shape, zone in (
      (
          'servers',
          settings.server_count,
          settings.server_machine_type,
          shapes.server_shape,
          shapes.server_zone,
      ),
      (
          'loaders',
          settings.loader_count,
          settings.loader_machine_type,
          shapes.loader_shape,
          shapes.loader_zone,
      ),
  ):
    key = (Region(zone), machines.Family(machine_type))
    vcpus = count * shape.vcpus if shape else None
    known = lines.get(key)
    if known:
      vcpus = (
          None
          if known.vcpus is None or vcpus is None
          else (known.vcpus + vcpus)
      )
      lines[key] = dataclasses.replace(
          known, roles=known.roles + (role,), vms=known.vms + count, vcpus=vcpus
      )
    else:
      lines[key] = QuotaLine(key[0], key[1], (role,), count, vcpus)
  return list(lines.values())
