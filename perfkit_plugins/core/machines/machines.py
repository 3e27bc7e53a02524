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

"""Shapes of the machine types the benchmark plans with, before provisioning.

Before provisioning (GetConfig, the plan command) the benchmark needs a
type's vCPUs to size the loaders, and its memory to estimate the data set.
vCPUs come from the table below or from the clouds' naming schemes, which
carry them; memory comes only from the table, whose entries each record
their source: a type's memory is never guessed from its name (a wrong guess
is worse than "unknown"). The run never uses these figures for memory: it
sizes the data set from what the servers report (ClusterRamBytes in the
shell).
"""

import dataclasses
import re

GIB = 1024**3
# Memory per server a run is planned with when no table gives it (static VMs,
# types without an entry): the steps and the splits of keys and rates are
# known; commands and working sets wait for the memory the machines report.
STAND_IN_RAM_PER_SERVER = 64 * GIB

# Where the table's figures come from; each entry names one of these.
# GCE's "GB" of memory are GiB (n1-standard-1's memoryMb is 3,840).
SOURCE_GCE_GENERAL = (
    "GCP's general-purpose machine family page"
    ' (cloud.google.com/compute/docs/general-purpose-machines), machine type'
    ' tables, read 2026-11-25'
)
SOURCE_GCE_CATALOG = (
    "GCP's machine types as listed in Cyclenerd/google-cloud-pricing-cost-"
    'calculator build/gcp.yml (commit 7a2c55d3), read 2026-11-25'
)
SOURCE_GCE_Z3 = (
    "GCP's storage-optimized machine family page (Z3 tables), as the Compute"
    ' Engine API lists them (memoryMb 720,896 for z3-highmem-88-highlssd),'
    ' read 2026-11-25'
)
SOURCE_SCYLLA_DOCS = (
    "ScyllaDB's cloud instance recommendations"
    ' (docs/getting-started/cloud-instance-recommendations.rst), read'
    ' 2026-11-25'
)
SOURCE_AWS_I7IE = (
    "AWS's i7ie instance page, as quoted in a public write-up's size table,"
    ' read 2026-11-25'
)
SOURCE_STUDIES = (
    "the clouds' machine-type pages as quoted by the seed studies and"
    " ScyllaDB's test-suite catalog (2026-05)"
)


@dataclasses.dataclass(frozen=True)
class MachineShape:
  """vCPUs, memory and NUMA nodes of one machine type, as far as known.

  Attributes:
    vcpus: vCPUs.
    memory_gib: memory in GiB; None when no table gives it.
    numa_nodes: NUMA nodes; None when unknown.
    source: where the figures come from.
  """

  vcpus: int
  memory_gib: float | None
  numa_nodes: int | None = None
  source: str = ''


def _Shape(vcpus, memory_gib, numa_nodes, source=SOURCE_STUDIES):
  return MachineShape(vcpus, memory_gib, numa_nodes, source)


# Types whose NUMA layout is known too (the seed studies' machines).
KNOWN_SHAPES = {
    'z3-highmem-88': _Shape(88, 704, 2),
    'z3-highmem-88-highlssd': _Shape(88, 704, 2),
    'z3-highmem-88-standardlssd': _Shape(88, 704, 2),
    'z3-highmem-176': _Shape(176, 1408, 2),
    'z3-highmem-176-standardlssd': _Shape(176, 1408, 2),
    'n2-highmem-96': _Shape(96, 768, 2),
    'n2-highmem-128': _Shape(128, 864, 2),
    'c3.2xlarge': _Shape(8, 15, 1),
    'm4.2xlarge': _Shape(8, 32, 1),
    'i4i.32xlarge': _Shape(128, 1024, 2),
    'i4i.metal': _Shape(128, 1024, 2),
    'i3en.24xlarge': _Shape(96, 768, 2),
    'i3en.metal': _Shape(96, 768, 2),
    'i7i.48xlarge': _Shape(192, 1536, 2),
}


def _PerVcpu(gib_per_vcpu, sizes):
  return {n: n * gib_per_vcpu for n in sizes}


# GCE memory (GiB) by (family, class, Titanium SSD suffix) and vCPUs: only
# the sizes the source lists, never extrapolated (c3d-highcpu-30 has 59 GiB,
# not 60; n2-highmem-128 864, not 1,024).
_GCE_MEMORY = {
    ('n1', 'standard', ''): (
        _PerVcpu(3.75, (1, 2, 4, 8, 16, 32, 64, 96)),
        SOURCE_GCE_CATALOG,
    ),
    ('n1', 'highmem', ''): (
        _PerVcpu(6.5, (2, 4, 8, 16, 32, 64, 96)),
        SOURCE_GCE_CATALOG,
    ),
    ('n1', 'highcpu', ''): (
        {2: 1.8, 4: 3.6, 8: 7.2, 16: 14.4, 32: 28.8, 64: 57.6, 96: 86.4},
        SOURCE_GCE_CATALOG,
    ),
    ('n2', 'standard', ''): (
        _PerVcpu(4, (2, 4, 8, 16, 32, 48, 64, 80, 96, 128)),
        SOURCE_GCE_CATALOG,
    ),
    ('n2', 'highmem', ''): (
        {**_PerVcpu(8, (2, 4, 8, 16, 32, 48, 64, 80, 96)), 128: 864},
        SOURCE_GCE_CATALOG,
    ),
    ('n2', 'highcpu', ''): (
        _PerVcpu(1, (2, 4, 8, 16, 32, 48, 64, 80, 96)),
        SOURCE_GCE_CATALOG,
    ),
    ('n2d', 'standard', ''): (
        _PerVcpu(4, (2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224)),
        SOURCE_GCE_CATALOG,
    ),
    ('n2d', 'highmem', ''): (
        _PerVcpu(8, (2, 4, 8, 16, 32, 48, 64, 80, 96)),
        SOURCE_GCE_CATALOG,
    ),
    ('n2d', 'highcpu', ''): (
        _PerVcpu(1, (2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224)),
        SOURCE_GCE_CATALOG,
    ),
    ('e2', 'standard', ''): (
        _PerVcpu(4, (2, 4, 8, 16, 32)),
        SOURCE_GCE_CATALOG,
    ),
    ('e2', 'highmem', ''): (_PerVcpu(8, (2, 4, 8, 16)), SOURCE_GCE_CATALOG),
    ('e2', 'highcpu', ''): (
        _PerVcpu(1, (2, 4, 8, 16, 32)),
        SOURCE_GCE_CATALOG,
    ),
    ('n4', 'standard', ''): (
        _PerVcpu(4, (2, 4, 8, 16, 32, 48, 64, 80)),
        SOURCE_GCE_CATALOG,
    ),
    ('n4', 'highmem', ''): (
        _PerVcpu(8, (2, 4, 8, 16, 32, 48, 64, 80)),
        SOURCE_GCE_CATALOG,
    ),
    ('n4', 'highcpu', ''): (
        _PerVcpu(2, (2, 4, 8, 16, 32, 48, 64, 80)),
        SOURCE_GCE_CATALOG,
    ),
    ('t2d', 'standard', ''): (
        _PerVcpu(4, (1, 2, 4, 8, 16, 32, 48, 60)),
        SOURCE_GCE_CATALOG,
    ),
    ('t2a', 'standard', ''): (
        _PerVcpu(4, (1, 2, 4, 8, 16, 32, 48)),
        SOURCE_GCE_CATALOG,
    ),
    ('c2', 'standard', ''): (
        _PerVcpu(4, (4, 8, 16, 30, 60)),
        SOURCE_GCE_CATALOG,
    ),
    ('c2d', 'standard', ''): (
        _PerVcpu(4, (2, 4, 8, 16, 32, 56, 112)),
        SOURCE_GCE_CATALOG,
    ),
    ('c2d', 'highmem', ''): (
        _PerVcpu(8, (2, 4, 8, 16, 32, 56, 112)),
        SOURCE_GCE_CATALOG,
    ),
    ('c2d', 'highcpu', ''): (
        _PerVcpu(2, (2, 4, 8, 16, 32, 56, 112)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3', 'standard', ''): (
        _PerVcpu(4, (4, 8, 22, 44, 88, 176)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3', 'standard', 'lssd'): (
        _PerVcpu(4, (4, 8, 22, 44, 88, 176)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3', 'highmem', ''): (
        _PerVcpu(8, (4, 8, 22, 44, 88, 176)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3', 'highcpu', ''): (
        _PerVcpu(2, (4, 8, 22, 44, 88, 176)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3d', 'standard', ''): (
        _PerVcpu(4, (4, 8, 16, 30, 60, 90, 180, 360)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3d', 'standard', 'lssd'): (
        _PerVcpu(4, (8, 16, 30, 60, 90, 180, 360)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3d', 'highmem', ''): (
        _PerVcpu(8, (4, 8, 16, 30, 60, 90, 180, 360)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3d', 'highmem', 'lssd'): (
        _PerVcpu(8, (8, 16, 30, 60, 90, 180, 360)),
        SOURCE_GCE_CATALOG,
    ),
    ('c3d', 'highcpu', ''): (
        {4: 8, 8: 16, 16: 32, 30: 59, 60: 118, 90: 177, 180: 354, 360: 708},
        SOURCE_GCE_CATALOG,
    ),
    ('c4', 'standard', ''): (
        _PerVcpu(3.75, (2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4', 'standard', 'lssd'): (
        _PerVcpu(3.75, (4, 8, 16, 24, 32, 48, 96, 144, 192, 288)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4', 'highmem', ''): (
        {
            2: 15,
            4: 31,
            8: 62,
            16: 124,
            24: 186,
            32: 248,
            48: 372,
            96: 744,
            144: 1116,
            192: 1488,
            288: 2232,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4', 'highmem', 'lssd'): (
        {
            4: 31,
            8: 62,
            16: 124,
            24: 186,
            32: 248,
            48: 372,
            96: 744,
            144: 1116,
            192: 1488,
            288: 2232,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4', 'highcpu', ''): (
        _PerVcpu(2, (2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4a', 'standard', ''): (
        _PerVcpu(4, (1, 2, 4, 8, 16, 32, 48, 64, 72)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4a', 'standard', 'lssd'): (
        _PerVcpu(4, (4, 8, 16, 32, 48, 64, 72)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4a', 'highmem', ''): (
        _PerVcpu(8, (1, 2, 4, 8, 16, 32, 48, 64, 72)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4a', 'highmem', 'lssd'): (
        _PerVcpu(8, (4, 8, 16, 32, 48, 64, 72)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4a', 'highcpu', ''): (
        _PerVcpu(2, (1, 2, 4, 8, 16, 32, 48, 64, 72)),
        SOURCE_GCE_GENERAL,
    ),
    ('c4d', 'standard', ''): (
        {
            2: 7,
            4: 15,
            8: 31,
            16: 62,
            32: 124,
            48: 186,
            64: 248,
            96: 372,
            192: 744,
            384: 1488,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4d', 'standard', 'lssd'): (
        {
            8: 31,
            16: 62,
            32: 124,
            48: 186,
            64: 248,
            96: 372,
            192: 744,
            384: 1488,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4d', 'highmem', ''): (
        {
            2: 15,
            4: 31,
            8: 63,
            16: 126,
            32: 252,
            48: 378,
            64: 504,
            96: 756,
            192: 1512,
            384: 3024,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4d', 'highmem', 'lssd'): (
        {
            8: 63,
            16: 126,
            32: 252,
            48: 378,
            64: 504,
            96: 756,
            192: 1512,
            384: 3024,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('c4d', 'highcpu', ''): (
        {
            2: 3,
            4: 7,
            8: 15,
            16: 30,
            32: 60,
            48: 90,
            64: 120,
            96: 180,
            192: 360,
            384: 720,
        },
        SOURCE_GCE_GENERAL,
    ),
    ('z3', 'highmem', ''): ({88: 704, 176: 1408}, SOURCE_GCE_Z3),
    ('z3', 'highmem', 'standardlssd'): (
        _PerVcpu(8, (14, 22, 44, 88, 176)),
        SOURCE_GCE_Z3,
    ),
    ('z3', 'highmem', 'highlssd'): (
        _PerVcpu(8, (8, 16, 22, 32, 44, 88)),
        SOURCE_GCE_Z3,
    ),
    ('z3', 'highmem', 'highlssd-metal'): ({192: 1536}, SOURCE_GCE_Z3),
}

# EC2 memory (GiB) by instance type, where a source gives it.
_AWS_MEMORY = {
    **{
        f'i3en.{size}': (gib, SOURCE_SCYLLA_DOCS)
        for size, gib in (
            ('large', 16),
            ('xlarge', 32),
            ('2xlarge', 64),
            ('3xlarge', 96),
            ('6xlarge', 192),
            ('12xlarge', 384),
            ('24xlarge', 768),
            ('metal', 768),
        )
    },
    **{
        f'i4i.{size}': (gib, SOURCE_SCYLLA_DOCS)
        for size, gib in (
            ('large', 16),
            ('xlarge', 32),
            ('2xlarge', 64),
            ('4xlarge', 128),
            ('8xlarge', 256),
            ('16xlarge', 512),
            ('32xlarge', 1024),
            ('metal', 1024),
        )
    },
    **{
        f'i7ie.{size}': (gib, SOURCE_AWS_I7IE)
        for size, gib in (
            ('large', 16),
            ('xlarge', 32),
            ('2xlarge', 64),
            ('3xlarge', 96),
            ('6xlarge', 192),
            ('12xlarge', 384),
        )
    },
}

# The clouds' naming schemes, which carry a type's vCPUs: GCE
# `<family>-<class>-<vCPUs>[-<Titanium SSD>][-metal]` and
# `[<family>-]custom-<vCPUs>-<MiB>[-ext]`; EC2 `<family>.<size>`, where
# `large` is 2 vCPUs and `<N>xlarge` 4 x N (1 for `xlarge`), except the HPC
# families (hpc6a.48xlarge has 96 vCPUs, not 192).
_GCE_SIZED_RE = re.compile(
    r'(?P<family>[a-z]+\d+[a-z]*)'
    r'-(?P<cls>standard|highmem|highcpu|megamem|ultramem|hypermem)'
    r'-(?P<vcpus>\d+)(?:-(?P<suffix>lssd|standardlssd|highlssd|nolssd))?'
    r'(?P<metal>-metal)?'
)
_GCE_CUSTOM_RE = re.compile(
    r'(?:(?P<family>[a-z]+\d+[a-z]*)-)?custom-(?P<vcpus>\d+)-(?P<mib>\d+)'
    r'(?:-ext)?'
)
_AWS_SIZED_RE = re.compile(
    r'(?P<family>[a-z][a-z0-9-]*)\.(?:(?P<n>\d*)xlarge|(?P<large>large))'
)
_AWS_IRREGULAR_FAMILY_RE = re.compile(r'hpc')


def _GceShape(machine_type):
  """Shape of a GCE type from its name and the memory table, or None."""
  match = _GCE_CUSTOM_RE.fullmatch(machine_type)
  if match:
    # A custom type's name is its specification.
    return MachineShape(
        int(match.group('vcpus')),
        int(match.group('mib')) / 1024,
        None,
        'the custom machine type name (vCPUs and MiB)',
    )
  match = _GCE_SIZED_RE.fullmatch(machine_type)
  if not match:
    return None
  vcpus = int(match.group('vcpus'))
  suffix = match.group('suffix') or ''
  if suffix == 'nolssd':
    suffix = ''
  if match.group('metal'):
    suffix = f'{suffix}-metal' if suffix else 'metal'
  memory, source = _GCE_MEMORY.get(
      (match.group('family'), match.group('cls'), suffix), ({}, '')
  )
  gib = memory.get(vcpus)
  return MachineShape(
      vcpus,
      gib,
      None,
      source if gib is not None else 'vCPUs from the type name',
  )


def _AwsShape(machine_type):
  """Shape of an EC2 type from its name and the memory table, or None."""
  gib, source = _AWS_MEMORY.get(machine_type, (None, ''))
  match = _AWS_SIZED_RE.fullmatch(machine_type)
  if not match or _AWS_IRREGULAR_FAMILY_RE.match(match.group('family')):
    return None
  vcpus = 2 if match.group('large') else 4 * int(match.group('n') or 1)
  return MachineShape(
      vcpus, gib, None, source if gib is not None else 'vCPUs from the name'
  )


def PlanShape(machine_type):
  """What is known of a type before provisioning, or None for nothing.

  The table's shape, else the vCPUs its name carries with memory (and NUMA
  nodes) unknown. For estimates only: the run reads the real values from
  the machines.
  """
  if machine_type in KNOWN_SHAPES:
    return KNOWN_SHAPES[machine_type]
  return _GceShape(machine_type) or _AwsShape(machine_type)


def Shape(machine_type):
  """The shape of `machine_type` when vCPUs and memory are known, else None."""
  shape = PlanShape(machine_type)
  return shape if shape and shape.memory_gib is not None else None


def Vcpus(machine_type):
  """vCPUs of `machine_type` (table or name), or None when unknown."""
  shape = PlanShape(machine_type)
  return shape.vcpus if shape else None


def Family(machine_type):
  """The machine family: the name up to the first '-' or '.' (n2, c6i...)."""
  return re.split(r'[-.]', machine_type, maxsplit=1)[0]


# The clouds' naming schemes, to tell one cloud's names from the other's:
# GCE `<family>-<class>[-...]` or `custom-...`, EC2 `<family>.<size>`.
_GCE_NAME_RE = re.compile(
    r'([a-z]+\d+[a-z]*-)?custom-\d+-\d+(-ext)?'
    r'|[a-z]+\d+[a-z]*-(standard|highmem|highcpu|megamem|ultramem|hypermem'
    r'|highgpu|megagpu|ultragpu|edgegpu|maxgpu|hightpu|custom|micro|small'
    r'|medium|\d+-\d+t)(-[a-z0-9-]+)?'
)
_AWS_NAME_RE = re.compile(
    r'[a-z][a-z0-9-]*\.(nano|micro|small|medium|large|\d*xlarge|metal(-\d+xl)?)'
)
_NAME_RES = {'GCP': _GCE_NAME_RE, 'AWS': _AWS_NAME_RE}


def TypeProblem(machine_type, cloud):
  """Why `machine_type` is not a machine type of `cloud`, or None.

  A name of the cloud's naming scheme is accepted (the cloud itself has the
  last word); a name of the other cloud's scheme, or of none, is not. No
  table of the plugin's decides: a valid type is never refused because a
  table lacks it.
  """
  pattern = _NAME_RES.get(cloud)
  if pattern is None or pattern.fullmatch(machine_type):
    return None
  others = [c for c, p in _NAME_RES.items() if p.fullmatch(machine_type)]
  hint = f' (it names a machine type of {others[0]})' if others else ''
  return f'unknown machine type {machine_type!r} on {cloud}{hint}'


def ClusterRamBytes(shape, count):
  """Nominal RAM of `count` machines of `shape`, in bytes (an estimate)."""
  return round(count * shape.memory_gib * GIB)


def PlannedClusterRamBytes(machine_type, count):
  """The table's RAM of `count` servers of `machine_type`, or None.

  What the plan and the checks before provisioning size the data set from;
  the run sizes it from the memory the servers report instead.
  """
  shape = Shape(machine_type)
  return ClusterRamBytes(shape, count) if shape else None


# Metadata of the cluster RAM a run sized its data set from.
RAM_KEY = 'scylla_cluster_ram_bytes'
PLANNED_RAM_KEY = 'scylla_cluster_ram_planned_bytes'


def RamMetadata(measured_bytes, planned_bytes):
  """The RAM the run used and, when it differs, the plan's estimate.

  Args:
    measured_bytes: what the servers report together (the run's figure).
    planned_bytes: the table's estimate the plan used, or None.

  Returns:
    {RAM_KEY: measured} plus {PLANNED_RAM_KEY: planned} when they differ.
  """
  metadata = {RAM_KEY: measured_bytes}
  if planned_bytes is not None and planned_bytes != measured_bytes:
    metadata[PLANNED_RAM_KEY] = planned_bytes
  return metadata
