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

"""Expected write throughput of a planned cluster, from published runs.

Before anything runs, the plan needs a write rate: to estimate how long
populate takes (and costs) and to warn when a fixed rate is above what the
servers or the loaders can do. A single figure for every machine would be
wrong by a factor of four between the studies (8,450 op/s per vCPU for
ScyllaDB on z3 in 2023, 2,106 on c3.2xlarge in 2017), so the rate comes
from the measured run closest to the planned one:

* Servers: op/s per server vCPU measured for the engine on the same machine
  family (the part of the type's name before its first '-' or '.': 'z3',
  'n2', 'c3'). A family without a measurement gets the engine's fallback
  family, named in the note: for ScyllaDB the lowest figure measured on a
  current family (n2), for Apache Cassandra the only one there is (c3, on
  2013 hardware, so durations come out long rather than short).
* Loaders: op/s per loader vCPU that a cassandra-stress loader has been seen
  to sustain (the c3.2xlarge study's single latency loader), times the vCPUs
  of the loaders that write. The lower of the two bounds is the estimate.

Each figure includes its run's row size, disks and release; the populate
step prints the real rate, and the run measures it.
"""

import dataclasses
import re


@dataclasses.dataclass(frozen=True)
class Reference:
  """A measured write rate per vCPU and the run it comes from."""

  ops_per_vcpu: int
  source: str


SERVER_REFERENCES = {
    ('scylla', 'z3'): Reference(
        8450,
        'Z3 study: ScyllaDB wrote 2.23M op/s on 3 x z3-highmem-88 (264 vCPUs)',
    ),
    ('scylla', 'n2'): Reference(
        6850,
        'Z3 study: ScyllaDB wrote 1.97M op/s on 3 x n2-highmem-96 (288 vCPUs)',
    ),
    ('scylla', 'c3'): Reference(
        2106,
        (
            'c3.2xlarge study: ScyllaDB 1.6.1 populated 810,774,192'
            ' partitions in 16,039 s on 3 x c3.2xlarge (24 vCPUs), data on EBS'
        ),
    ),
    ('cassandra', 'c3'): Reference(
        1751,
        (
            'c3.2xlarge study: Apache Cassandra 3.0.9 populated 810,774,192'
            ' partitions in 19,289 s on 3 x c3.2xlarge (24 vCPUs), data on'
            ' EBS'
        ),
    ),
}
# The family whose figure stands in for a family without a measurement.
FALLBACK_FAMILY = {'scylla': 'n2', 'cassandra': 'c3'}
LOADER_REFERENCE = Reference(
    3750,
    (
        'c3.2xlarge study: one m4.2xlarge loader (8 vCPUs) wrote 30,000 op/s'
        ' at a fixed rate'
    ),
)
BOUND_SERVERS = 'servers'
BOUND_LOADERS = 'loaders'


def MachineFamily(machine_type):
  """'z3-highmem-88' -> 'z3'; 'c3.2xlarge' -> 'c3'."""
  return re.split(r'[-.]', machine_type.lower(), maxsplit=1)[0]


def ServerReference(engine, machine_type):
  """(Reference, family it was measured on) for servers of this type."""
  family = MachineFamily(machine_type)
  if (engine, family) not in SERVER_REFERENCES:
    family = FALLBACK_FAMILY[engine]
  return SERVER_REFERENCES[(engine, family)], family


@dataclasses.dataclass(frozen=True)
class WriteRate:
  """The write op/s a cluster and its loaders are expected to reach.

  Attributes:
    server_bound: op/s the servers are expected to sustain.
    loader_bound: op/s the writing loaders are expected to drive; None when
      their shape is unknown.
    server_note: how server_bound was obtained.
    loader_note: how loader_bound was obtained ('' when unknown).
  """

  server_bound: float
  loader_bound: float | None
  server_note: str
  loader_note: str

  @property
  def ops_per_second(self):
    """The lower bound: what the run is expected to reach."""
    if self.loader_bound is None:
      return self.server_bound
    return min(self.server_bound, self.loader_bound)

  @property
  def bound(self):
    """BOUND_SERVERS or BOUND_LOADERS: which one limits the rate."""
    if self.loader_bound is not None and self.loader_bound < self.server_bound:
      return BOUND_LOADERS
    return BOUND_SERVERS


def ExpectedWriteRate(
    engine, server_machine_type, server_vcpus, writer_vcpus=None
):
  """The write rate of a cluster driven by some loaders.

  Args:
    engine: 'scylla' or 'cassandra'.
    server_machine_type: the servers' machine type (chooses the reference).
    server_vcpus: vCPUs of all servers together.
    writer_vcpus: vCPUs of the loaders that write, None when unknown.

  Returns:
    WriteRate.
  """
  reference, family = ServerReference(engine, server_machine_type)
  measured_on = ''
  if family != MachineFamily(server_machine_type):
    measured_on = (
        f'no measurement on {MachineFamily(server_machine_type)}, the'
        f' {family} figure: '
    )
  server_note = (
      f'{server_vcpus:,} server vCPUs x {reference.ops_per_vcpu:,} op/s'
      f' ({measured_on}{reference.source})'
  )
  if writer_vcpus is None:
    return WriteRate(
        server_vcpus * reference.ops_per_vcpu, None, server_note, ''
    )
  return WriteRate(
      server_vcpus * reference.ops_per_vcpu,
      writer_vcpus * LOADER_REFERENCE.ops_per_vcpu,
      server_note,
      f'{writer_vcpus:,} loader vCPUs x {LOADER_REFERENCE.ops_per_vcpu:,}'
      f' op/s ({LOADER_REFERENCE.source})',
  )
