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

"""The shard layout predicted for a server type before provisioning."""

import pytest

from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import plan_machines


@pytest.mark.parametrize(
    'machine_type, shards, irq_vcpus',
    [
        ('z3-highmem-88', 80, 8),  # The Z3 study: 8 IRQ vCPUs, 80 shards.
        ('n2-highmem-96', 88, 8),
        ('c3.2xlarge', 7, 1),
        ('z3-highmem-176-standardlssd', 164, 12),
    ],
)
def test_predicted_shards_follow_the_reference_table(
    machine_type, shards, irq_vcpus
):
  layout = plan_machines.PredictedShards(machines.Shape(machine_type))
  assert (layout.shards, layout.irq_vcpus) == (shards, irq_vcpus)
