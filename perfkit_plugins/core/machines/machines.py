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

"""Shapes of the machine types the benchmark sizes itself from.

Before provisioning (GetConfig, the plan command) the benchmark needs each
type's vCPUs, memory and NUMA layout to size loaders, choose the data set and
predict shards. Known types come from a table (values from the clouds'
machine-type pages as quoted by the seed studies and ScyllaDB's test-suite
catalog); other types are derived from their naming scheme. After
provisioning the real values are read from the VMs and win.
"""

import dataclasses
import re

GIB = 1024**3
# Memory per server a run on static VMs is planned with before the machines
# are reached (plan command, checks before provisioning): the steps and the
# splits of keys and rates are known; commands and working sets wait for
# the memory the machines report.
STAND_IN_RAM_PER_SERVER = 64 * GIB


@dataclasses.dataclass(frozen=True)
class MachineShape:
  """vCPUs, memory and NUMA nodes of one machine type."""

  vcpus: int
  memory_gib: float
  numa_nodes: int = 1


KNOWN_SHAPES = {
    'z3-highmem-88': MachineShape(88, 704, 2),
    'z3-highmem-88-highlssd': MachineShape(88, 704, 2),
    'z3-highmem-88-standardlssd': MachineShape(88, 704, 2),
    'z3-highmem-176': MachineShape(176, 1408, 2),
    'z3-highmem-176-standardlssd': MachineShape(176, 1408, 2),
    'n2-highmem-96': MachineShape(96, 768, 2),
    'n2-highmem-128': MachineShape(128, 864, 2),
    'c3.2xlarge': MachineShape(8, 15, 1),
    'm4.2xlarge': MachineShape(8, 32, 1),
    'i4i.32xlarge': MachineShape(128, 1024, 2),
    'i4i.metal': MachineShape(128, 1024, 2),
    'i3en.24xlarge': MachineShape(96, 768, 2),
    'i3en.metal': MachineShape(96, 768, 2),
    'i7i.48xlarge': MachineShape(192, 1536, 2),
}

# GiB per vCPU by GCE machine class.
_GCE_MEMORY_PER_VCPU = {'highmem': 8, 'standard': 4, 'highcpu': 1}
# GiB per vCPU by AWS family letter.
_AWS_MEMORY_PER_VCPU = {'c': 2, 'm': 4, 'r': 8, 'i': 8, 'x': 16}

_GCE_RE = re.compile(r'^[a-z]\d[a-z]?-(highmem|standard|highcpu)-(\d+)(-.*)?$')
_AWS_RE = re.compile(r'^([a-z])[a-z0-9-]*\.(?:(\d*)xlarge|large|medium)$')


def _AwsVcpus(size_multiplier, name):
  if name.endswith('.medium'):
    return 1
  if name.endswith('.large') and not name.endswith('xlarge'):
    return 2
  return 4 * int(size_multiplier or 1)


def Shape(machine_type):
  """The shape of `machine_type`, or None when it cannot be known."""
  if machine_type in KNOWN_SHAPES:
    return KNOWN_SHAPES[machine_type]
  match = _GCE_RE.fullmatch(machine_type)
  if match:
    vcpus = int(match.group(2))
    memory = vcpus * _GCE_MEMORY_PER_VCPU[match.group(1)]
    return MachineShape(vcpus, memory, 2 if vcpus >= 64 else 1)
  match = _AWS_RE.fullmatch(machine_type)
  if match and match.group(1) in _AWS_MEMORY_PER_VCPU:
    vcpus = _AwsVcpus(match.group(2), machine_type)
    memory = vcpus * _AWS_MEMORY_PER_VCPU[match.group(1)]
    return MachineShape(vcpus, memory, 2 if vcpus >= 96 else 1)
  return None


# The clouds' naming schemes: GCE `<family>-<class>[-<vCPUs>...]`, EC2
# `<family>.<size>`.
_GCE_NAME_RE = re.compile(
    r'[a-z]\d[a-z]?-(standard|highmem|highcpu|megamem|ultramem|hypermem'
    r'|highgpu|megagpu|ultragpu|edgegpu|custom|micro|small|medium)'
    r'(-[a-z0-9-]+)?'
)
_AWS_NAME_RE = re.compile(
    r'[a-z][a-z0-9-]*\.(nano|micro|small|medium|large|\d*xlarge|metal(-\d+xl)?)'
)
_NAME_RES = {'GCP': _GCE_NAME_RE, 'AWS': _AWS_NAME_RE}


def TypeProblem(machine_type, cloud):
  """Why `machine_type` is not a machine type of `cloud`, or None.

  A name in the benchmark's table or of the cloud's naming scheme is
  accepted (the cloud itself has the last word); a name of the other
  cloud's scheme, or of none, is not.
  """
  pattern = _NAME_RES.get(cloud)
  if pattern is None or pattern.fullmatch(machine_type):
    return None
  others = [c for c, p in _NAME_RES.items() if p.fullmatch(machine_type)]
  hint = f' (it names a machine type of {others[0]})' if others else ''
  return f'unknown machine type {machine_type!r} on {cloud}{hint}'


def ClusterRamBytes(shape, count):
  """Nominal RAM of `count` machines of `shape`, in bytes.

  The planner sizes the data set from it, so the plan command, the checks
  before provisioning and the run must all use this one function.
  """
  return round(count * shape.memory_gib * GIB)
