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
