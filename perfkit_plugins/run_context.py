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

"""What every sample of a run says about the cluster, read from the VMs."""

import re

from perfkit_plugins import machine_facts
from perfkit_plugins import stress_install
from perfkit_plugins import vm_clocks
from perfkit_plugins.core import cost
from perfkit_plugins.core import sample_rows
from perfkit_plugins.core import stress_tools


def ReadRunContext(
    settings, engine, servers, loaders, run_threaded, install_root
):
  """What every sample says about the cluster, read from the VMs.

  The servers' tuning and what they report of themselves, the version of
  cassandra-stress every loader reports (checked against the release asked
  for).

  Args:
    settings: the run's settings.Settings.
    engine: the servers' engine (engines.base.Engine).
    servers: the server VMs.
    loaders: the loader VMs.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      signature, to ask every loader at once.
    install_root: where cassandra-stress is installed (PKB's
      linux_packages.INSTALL_DIR).

  Returns:
    sample_rows.RunContext.
  """
  tuning, shards = engine.Tuning(servers)
  tuning = dict(tuning)
  tuning.update(machine_facts.ClusterFacts(servers, 'server'))
  tuning.update(machine_facts.ClusterFacts(loaders, 'loader'))
  tool = stress_tools.StressToolOf(settings)
  versions = run_threaded(
      lambda vm: stress_install.CheckVersion(vm, tool, install_root),
      list(loaders),
  )
  tuning['scylla_stress_tool'] = tool.name
  tuning['scylla_stress_version'] = versions[0].version
  tuning.update({
      'scylla_stress_' + re.sub(r'\W', '_', name): version
      for name, version in versions[0].components.items()
  })
  return sample_rows.RunContext(
      engine=settings.engine,
      version=tuning.get('scylla_version', ''),
      servers=len(servers),
      server_machine_type=settings.server_machine_type,
      server_vcpus=sum(vm.num_cpus for vm in servers),
      shards=shards,
      server_price=cost.ServerPrice(settings, vm_clocks.UtcDate()),
      tuning=tuning,
  )
