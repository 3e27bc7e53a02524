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

"""The sample_rows.RunContext of the clusters tests describe, built once."""

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.results import sample_rows


def ScyllaZ3(**changes):
  """Three z3-highmem-88 ScyllaDB servers (240 shards), with `changes`."""
  fields = dict(
      engine='scylla',
      version='2026.3.0',
      servers=3,
      server_machine_type='z3-highmem-88',
      server_vcpus=264,
      shards=240,
      server_price=cost.LookUp('z3-highmem-88'),
  )
  fields.update(changes)
  return sample_rows.RunContext(**fields)


def LabHost():
  """The lab host: one Apache Cassandra 5.0.2 node on 2 vCPUs."""
  return sample_rows.RunContext(
      engine='cassandra',
      version='5.0.2',
      servers=1,
      server_machine_type='lab-host',
      server_vcpus=2,
      server_price=cost.LookUp('lab-host', override=0.1),
  )
