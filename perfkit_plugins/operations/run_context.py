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

"""What every sample of a run says about the cluster, read from the VMs.

The servers' tuning, what every machine reports of itself (vCPUs, memory and
NUMA nodes of each server and loader, one value per group when its machines
agree and every machine's otherwise), the units masked on each loader, and
the version of cassandra-stress every loader reports. Machines of a type the
benchmark knows are also described by the type; own machines (static VMs)
and unknown types only by what they report.
"""

import logging
import re

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_tools
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.operations import stress_install
from perfkit_plugins.operations import vm_clocks

LSCPU_COMMAND = 'lscpu -p=CPU,CORE,SOCKET,NODE'
# What the published JVM options show for each run's own .jvm file.
LOG_STAND_IN = 'STEM.jvm'


def MachineFacts(vm, role):
  """One machine's reported vCPUs, memory (GiB) and NUMA nodes."""
  lscpu, _ = vm.RemoteCommand(LSCPU_COMMAND)
  topology = tuning.ParseLscpuTopology(lscpu)
  return {
      f'scylla_{role}_node_vcpus': topology.vcpus,
      f'scylla_{role}_node_memory_gib': round(vm.total_memory_kb / 1024**2, 1),
      f'scylla_{role}_node_numa_nodes': topology.numa_nodes,
  }


def GroupFacts(vms, role, run_threaded, more=None):
  """Facts of a group of machines (role 'server' or 'loader') as metadata.

  Every machine is asked at once (run_threaded): one after the other, a
  group of 60 loaders would take 60 round trips before the first step.
  `more`: {machine name: further facts of that machine}.
  """
  if not vms:
    return {}
  vms = list(vms)
  facts = run_threaded(lambda vm: MachineFacts(vm, role), vms)
  per_node = {vm.name: fact for vm, fact in zip(vms, facts)}
  for name, facts in (more or {}).items():
    per_node[name].update(facts)
  metadata, differences = tuning.ClusterMetadata(
      per_node,
      uniform_key=None,
      differences_key=f'scylla_{role}_node_differences',
  )
  for difference in differences:
    logging.warning('%ss differ: %s', role, difference)
  return metadata


def ReadLoaderJvms(env):
  """Each loader's LoaderJvm, in the loaders' order (for RunEnv)."""
  return tuple(
      env.run_threaded(
          lambda vm: stress_install.LoaderJvm(
              vm, env.settings, env.install_dir
          ),
          list(env.loaders),
      )
  )


def LoaderJvmFacts(env):
  """{loader name: what env.loader_jvms chose for it, as metadata}."""
  return {
      vm.name: {
          'scylla_loader_gc': jvm.collector,
          'scylla_loader_heap_mib': jvm.heap_mb,
          'scylla_loader_java': jvm.java,
          'scylla_loader_jvm_options': loader_jvm.Options(jvm, LOG_STAND_IN),
      }
      for vm, jvm in zip(env.loaders, env.loader_jvms)
  }


def LoaderMaskedUnits(env):
  """{loader name: the quieted units masked on it, as metadata}."""
  units = scylla_config.QuietUnits(env.settings.cloud)
  masked = env.run_threaded(
      lambda vm: quiet_units.Masked(vm, units), list(env.loaders)
  )
  return {
      vm.name: {'scylla_loader_masked_units': quiet_units.Metadata(m)}
      for vm, m in zip(env.loaders, masked)
  }


def ReadRunContext(env, cluster):
  """What every sample says about the cluster, read from the VMs.

  Args:
    env: run_env.RunEnv (settings, engine, servers, loaders, run_threaded
      to ask every loader at once, the install directory of
      cassandra-stress, the controller's clock: the Run's start, the
      loaders' JVMs).
    cluster: the cluster's identity (PKB's benchmark spec uuid).

  Returns:
    sample_rows.RunContext.
  """
  settings, servers, loaders = env.settings, env.servers, env.loaders
  tuning_metadata, shards = env.engine.Tuning(servers)
  tuning_metadata = dict(tuning_metadata)
  tuning_metadata.update(GroupFacts(servers, 'server', env.run_threaded))
  loader_facts = LoaderJvmFacts(env)
  for name, facts in LoaderMaskedUnits(env).items():
    loader_facts.setdefault(name, {}).update(facts)
  tuning_metadata.update(
      GroupFacts(loaders, 'loader', env.run_threaded, loader_facts)
  )
  # The RAM the data set was sized from (what the servers report) and, when
  # it differs, the machine table's estimate the plan used.
  tuning_metadata.update(
      machines.RamMetadata(
          sum(vm.total_memory_kb for vm in servers) * 1024,
          None
          if settings.servers_static
          else machines.PlannedClusterRamBytes(
              settings.server_machine_type, len(servers)
          ),
      )
  )
  tool = stress_tools.StressToolOf(settings)
  versions = env.run_threaded(
      lambda vm: stress_install.CheckVersion(vm, tool, env.install_dir),
      list(loaders),
  )
  tuning_metadata['scylla_stress_tool'] = tool.name
  tuning_metadata['scylla_stress_version'] = versions[0].version
  tuning_metadata.update({
      'scylla_stress_' + re.sub(r'\W', '_', name): version
      for name, version in versions[0].components.items()
  })
  return sample_rows.RunContext(
      engine=settings.engine,
      version=tuning_metadata.get('scylla_version', ''),
      servers=len(servers),
      server_machine_type=settings.server_machine_type,
      server_vcpus=sum(vm.num_cpus for vm in servers),
      shards=shards,
      server_price=cost.ServerPrice(settings, vm_clocks.UtcDate()),
      tuning=tuning_metadata,
      cluster=cluster,
      run_start=int(env.clock()),
      repeats=settings.repeats,
  )
