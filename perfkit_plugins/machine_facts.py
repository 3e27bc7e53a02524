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

"""What the machines report of themselves, for the sample metadata.

Machines of a type the benchmark knows are described by the type; own
machines (static VMs) and unknown types only by what they report. Both get
the reported figures: vCPUs, memory and NUMA nodes of each server and
loader, one value per group when its machines agree and every machine's
otherwise.
"""

import logging

from perfkit_plugins.core import tuning

LSCPU_COMMAND = 'lscpu -p=CPU,CORE,SOCKET,NODE'


def Facts(vm, role):
  """One machine's reported vCPUs, memory (GiB) and NUMA nodes."""
  lscpu, _ = vm.RemoteCommand(LSCPU_COMMAND)
  topology = tuning.ParseLscpuTopology(lscpu)
  return {
      f'scylla_{role}_node_vcpus': topology.vcpus,
      f'scylla_{role}_node_memory_gib': round(vm.total_memory_kb / 1024**2, 1),
      f'scylla_{role}_node_numa_nodes': topology.numa_nodes,
  }


def ClusterFacts(vms, role):
  """Facts of a group of machines (role 'server' or 'loader') as metadata."""
  if not vms:
    return {}
  metadata, differences = tuning.ClusterMetadata(
      {vm.name: Facts(vm, role) for vm in vms}, uniform_key=None
  )
  for difference in differences:
    logging.warning('%ss differ: %s', role, difference)
  return metadata
