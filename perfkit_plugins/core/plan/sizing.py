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

"""How many loader VMs a cluster needs so they are not the bottleneck.

The Z3 study drove 3 x z3-highmem-88 (264 vCPUs) with 30 loaders of 30 vCPUs:
3.4 loader vCPUs per server vCPU. ScyllaDB's shard-per-core servers answer
faster than a Java cassandra-stress process can ask, so the ratio is well
above 1; the run still checks loader CPU during every phase.
"""

import math

LOADER_VCPUS_PER_SERVER_VCPU = 3.4


def LoaderCount(server_count, server_vcpus, loader_vcpus):
  """Loaders needed for `server_count` servers of `server_vcpus` each.

  Args:
    server_count: database servers.
    server_vcpus: vCPUs of one server.
    loader_vcpus: vCPUs of one loader.

  Returns:
    At least 1 loader.
  """
  needed = server_count * server_vcpus * LOADER_VCPUS_PER_SERVER_VCPU
  return max(1, math.ceil(needed / loader_vcpus))
