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

"""Local NVMe SSDs: how many a machine type has, and which devices they are.

Before provisioning the benchmark decides how PKB sets up the servers' disks
(`DataDiskSpec`) and refuses what PKB or the cloud cannot give; after
provisioning the RAID step finds the local SSDs on the node from `lsblk -J`
and `/dev/disk/by-id` (`FindLocalDisks`), never taking the boot disk or
anything mounted.

How many local SSDs a type comes with is PKB's own knowledge, read from PKB
at run time (`PkbTables`, built by the shell): every type PKB knows gets
PKB's count, and no copy here can go stale.
"""

import dataclasses
import json
import posixpath
import re

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import machines

# ScyllaDB's data directory; scylla_raid_setup mounts the array here.
DATA_DIR = settings_lib.SCYLLA_DATA_DIR

# PKB's network data disk type per cloud for --scylla_data_disk=network.
NETWORK_DISK_TYPES = {'GCP': 'pd-ssd', 'AWS': 'gp3'}


@dataclasses.dataclass(frozen=True)
class EbsPath:
  """What an EC2 type's path to EBS carries at most.

  Attributes:
    optimized_by_default: EBS-optimized without asking. PKB never asks (its
      AWS VMs are created without --ebs-optimized at PKB commit 946ea317),
      so a type that is not optimized by default shares its network link
      with EBS and reaches less than the figures below.
    max_iops: IOPS of 16 KiB with EBS optimization.
    max_mb_s: MB/s of 128 KiB I/O with EBS optimization.
  """

  optimized_by_default: bool
  max_iops: int
  max_mb_s: float


# Source: AWS's "Amazon EBS-optimized instances" tables, EC2 user guide
# (awsdocs/amazon-ec2-user-guide doc_source/EBSOptimized.md, commit
# 00f19653), read 2026-11-25.
EBS_SOURCE = "AWS's EBS-optimized instance tables (EC2 user guide)"
EBS_PATHS = {
    'c3.xlarge': EbsPath(False, 4000, 62.5),
    'c3.2xlarge': EbsPath(False, 8000, 125),
    'c3.4xlarge': EbsPath(False, 16000, 250),
    'c4.large': EbsPath(True, 4000, 62.5),
    'c4.xlarge': EbsPath(True, 6000, 93.75),
    'c4.2xlarge': EbsPath(True, 8000, 125),
    'c4.4xlarge': EbsPath(True, 16000, 250),
    'c4.8xlarge': EbsPath(True, 32000, 500),
    'm4.large': EbsPath(True, 3600, 56.25),
    'm4.xlarge': EbsPath(True, 6000, 93.75),
    'm4.2xlarge': EbsPath(True, 8000, 125),
    'm4.4xlarge': EbsPath(True, 16000, 250),
    'm4.10xlarge': EbsPath(True, 32000, 500),
    'm4.16xlarge': EbsPath(True, 65000, 1250),
    'i3.large': EbsPath(True, 3000, 53.13),
    'i3.xlarge': EbsPath(True, 6000, 106.25),
    'i3.2xlarge': EbsPath(True, 12000, 212.5),
    'i3.4xlarge': EbsPath(True, 16000, 437.5),
    'i3.8xlarge': EbsPath(True, 32500, 875),
    'i3.16xlarge': EbsPath(True, 65000, 1750),
}
# Megabytes (10^6 bytes, as AWS gives EBS throughput) in a mebibyte.
MB_PER_MIB = 2**20 / 1e6


def EbsShortfall(machine_type, provisioned_iops, provisioned_mib_s):
  """Why a gp3 volume on the type cannot deliver what it was given, or None.

  Args:
    machine_type: EC2 type of the servers.
    provisioned_iops: the volume's provisioned IOPS, or None.
    provisioned_mib_s: its provisioned throughput (MiB/s), or None.

  Returns:
    A sentence, or None when the table does not know the type or its path
    carries what was provisioned.
  """
  path = EBS_PATHS.get(machine_type)
  if path is None:
    return None
  limits = (
      f'{machine_type} reaches EBS at most {path.max_iops:,} IOPS (16 KiB)'
      f' and {path.max_mb_s:g} MB/s ({EBS_SOURCE})'
  )
  over = []
  if provisioned_iops and provisioned_iops > path.max_iops:
    over.append(f'{provisioned_iops:,} IOPS')
  if provisioned_mib_s and provisioned_mib_s * MB_PER_MIB > path.max_mb_s:
    over.append(f'{provisioned_mib_s:g} MiB/s')
  if not over and path.optimized_by_default:
    return None
  said = [limits]
  if over:
    said[0] += f', below the {" and ".join(over)} provisioned'
  if not path.optimized_by_default:
    said.append(
        'and only when EBS-optimized, which it is not by default and PKB does'
        ' not ask for: its EBS traffic shares the network link'
    )
  return ', '.join(said)


# Z3 types live-migrate at host maintenance only with at most 18 TiB of
# Titanium SSD; each Titanium SSD of a Z3 VM holds 3,000 GiB (6,000 GiB on
# the bare metal type). Sources: GCP's storage-optimized machine family
# page, "Maintenance experience for Z3 instances" (cited by issue 21), and
# the Compute Engine API's Z3 bundled SSDs; read 2026-11-25.
LIVE_MIGRATION_MAX_GIB = {'z3': 18 * 1024}
TITANIUM_SSD_GIB = {'z3': 3000}


def LocalSsdGib(machine_type, local_ssds):
  """Local SSD capacity (GiB) of a type with `local_ssds` disks, or None."""
  per_disk = TITANIUM_SSD_GIB.get(machines.Family(machine_type))
  if per_disk is None:
    return None
  if machine_type.endswith('-metal'):
    per_disk *= 2
  return per_disk * local_ssds


def LiveMigrationProblem(cloud, machine_type, local_ssds):
  """Why a type cannot live-migrate at host maintenance, or None."""
  limit = LIVE_MIGRATION_MAX_GIB.get(machines.Family(machine_type))
  capacity = LocalSsdGib(machine_type, local_ssds)
  if cloud != 'GCP' or limit is None or capacity is None:
    return None
  if capacity <= limit:
    return None
  return (
      f'{machine_type} has {capacity:,} GiB of local SSD, more than the 18 TiB'
      ' up to which Z3 VMs live-migrate at host maintenance'
  )


# GCE types whose local SSDs come with the type (no count is requested):
# the `-lssd`, `-standardlssd` and `-highlssd` types, and every type of the
# series that always have them. Source: GCP's "Add Local SSD disks" page
# (docs.cloud.google.com/compute/docs/disks/add-local-ssd), read 2026-11-25.
_GCE_BUNDLED_RE = re.compile(
    r'[a-z0-9]+-[a-z]+-\d+-(lssd|standardlssd|highlssd)(-metal)?'
    r'|(z3|z4d|z4m|a3|a4|a4x|a5x)-.*|a2-ultragpu-.*'
)

# Local SSD counts GCE accepts at creation, by series and vCPUs: ((lowest
# vCPUs, highest vCPUs), counts). Source: GCP's "Choose a valid number of
# Local SSD disks" table (cloud.google.com/compute/docs/disks/local-ssd),
# as transcribed by cockroachdb/cockroach's roachprod (gce AllowedLocalSSDCount)
# and cloudpilot-ai/karpenter-provider-gcp (localssd, "verified 2026-05"),
# which agree on every predefined type; read 2026-11-25. A vCPU count
# between two rows (custom types) is not judged.
_N1_COUNTS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 24)
GCE_LOCAL_SSD_COUNTS = {
    'n1': (((1, 96), _N1_COUNTS),),
    'n2': (
        ((2, 10), (1, 2, 4, 8, 16, 24)),
        ((12, 20), (2, 4, 8, 16, 24)),
        ((22, 40), (4, 8, 16, 24)),
        ((42, 80), (8, 16, 24)),
        ((82, 128), (16, 24)),
    ),
    'n2d': (
        ((2, 16), (1, 2, 4, 8, 16, 24)),
        ((32, 48), (2, 4, 8, 16, 24)),
        ((64, 80), (4, 8, 16, 24)),
        ((96, 224), (8, 16, 24)),
    ),
    'c2': (
        ((4, 8), (1, 2, 4, 8)),
        ((16, 16), (2, 4, 8)),
        ((30, 30), (4, 8)),
        ((60, 60), (8,)),
    ),
    'c2d': (
        ((2, 16), (1, 2, 4, 8)),
        ((32, 32), (2, 4, 8)),
        ((56, 56), (4, 8)),
        ((112, 112), (8,)),
    ),
}
# GCE series that take no local SSD at creation (only as their -lssd types,
# where they have them). Source: the two GCP pages above.
GCE_NO_REQUESTED_SSDS = frozenset((
    'e2',
    'n4',
    'n4a',
    'n4d',
    't2d',
    't2a',
    'h3',
    'c3',
    'c3d',
    'c4',
    'c4a',
    'c4d',
    'f1',
    'g1',
))


# Controller models of local (instance-attached) SSDs: GCE NVMe local SSD
# ('nvme_card', 'nvme_cardN' on multi-controller types; the NVMe boot disk is
# 'nvme_card-pd'), GCE SCSI local SSD, EC2 instance store, Azure local NVMe.
_LOCAL_MODEL_RE = re.compile(
    r'^(nvme_card\d*|EphemeralDisk|Amazon EC2 NVMe Instance Storage'
    r'|Microsoft NVMe Direct Disk( v\d+)?)$'
)
# /dev/disk/by-id names of local SSDs (GCE udev rules; EC2 model_serial).
_LOCAL_BY_ID_RE = re.compile(
    r'^(google-local-(nvme-)?ssd-\d+'
    r'|nvme-Amazon_EC2_NVMe_Instance_Storage_[A-Za-z0-9]+(_\d+)?)$'
)
_LS_LINK_RE = re.compile(r'(\S+) -> (\S+)\s*$')
_NATURAL_RE = re.compile(r'(\d+)')


@dataclasses.dataclass(frozen=True)
class BlockDevice:
  """One `lsblk -J` entry.

  Attributes:
    name: kernel name, e.g. 'nvme1n1'.
    type: 'disk', 'part', 'raid0', ...
    model: device model, '' when lsblk has none.
    mountpoints: non-empty mount points of the device itself.
    children: BlockDevice tuple (partitions, arrays built on it).
  """

  name: str
  type: str
  model: str
  mountpoints: tuple
  children: tuple

  def InUse(self):
    """Mounted, partitioned or part of an array (itself or below)."""
    return bool(self.mountpoints or self.children)


@dataclasses.dataclass(frozen=True)
class PkbTables:
  """PKB's own tables of the local disks machine types come with.

  The shell reads them from PKB at run time, so the counts are those PKB
  provisions and sets up.

  Attributes:
    gce_fixed: {GCE type: local SSDs it comes with}, PKB's
      providers/gcp/gce_disk.py FIXED_SSD_MACHINE_TYPES (PKB ignores a
      requested count for these and sets up this many).
    aws_volumes: {EC2 type: instance-store volumes}, PKB's
      providers/aws/aws_disk.py NUM_LOCAL_VOLUMES (PKB sets up this many,
      none for a type it lacks).
    aws_hdd_families: EC2 families whose instance store is HDD, PKB's
      aws_disk.LOCAL_HDD_PREFIXES.
    aws_non_nvme_families: EC2 families whose instance store is not NVMe,
      PKB's aws_disk.NON_LOCAL_NVME_TYPES.
  """

  gce_fixed: dict = dataclasses.field(default_factory=dict)
  aws_volumes: dict = dataclasses.field(default_factory=dict)
  aws_hdd_families: frozenset = frozenset()
  aws_non_nvme_families: frozenset = frozenset()


def _AwsFamily(machine_type):
  """The EC2 family as PKB's aws_disk.LocalDiskIsHDD reads it."""
  return machine_type.split('.')[0].lower()


def FixedLocalSsds(tables, cloud, machine_type):
  """Local SSDs that come with the type in PKB's tables, or None.

  None on GCP means the count is requested at creation (n1, n2...); an EC2
  type PKB does not list has none that PKB sets up (0).
  """
  if cloud == 'GCP':
    return tables.gce_fixed.get(machine_type)
  if cloud == 'AWS':
    return tables.aws_volumes.get(machine_type, 0)
  return 0


def LocalSsdCount(tables, cloud, machine_type, requested_local_ssds=0):
  """Local SSDs a server will have, as PKB provisions them.

  The type's fixed count in PKB's tables; on other GCE types (n2, ...) the
  local SSDs requested at creation (PKB's --gce_num_local_ssds / vm_spec
  num_local_ssds).

  Args:
    tables: PkbTables.
    cloud: 'GCP' or 'AWS'.
    machine_type: e.g. 'z3-highmem-88'.
    requested_local_ssds: SSDs asked for at VM creation.

  Returns:
    int.
  """
  fixed = FixedLocalSsds(tables, cloud, machine_type)
  return fixed if fixed is not None else requested_local_ssds


def AllowedLocalSsdCounts(machine_type):
  """Local SSD counts GCE accepts at creation for the type.

  Returns:
    tuple of counts; () when the type takes none; None when unknown here
    (the cloud decides).
  """
  family = machines.Family(machine_type)
  if family in GCE_NO_REQUESTED_SSDS:
    return ()
  vcpus = machines.Vcpus(machine_type)
  if family not in GCE_LOCAL_SSD_COUNTS or vcpus is None:
    return None
  for (low, high), counts in GCE_LOCAL_SSD_COUNTS[family]:
    if low <= vcpus <= high:
      return counts
  return None


def _Counts(counts):
  """1, 2 or 4: counts as a sentence says them."""
  shown = [str(c) for c in counts]
  if len(shown) == 1:
    return shown[0]
  return f'{", ".join(shown[:-1])} or {shown[-1]}'


def RequestProblem(tables, cloud, machine_type, requested):
  """Why `requested` local SSDs cannot be had with the type, or None.

  PKB passes a requested count to GCE as it is (for a type of its fixed
  table it ignores it); GCE refuses a count its table does not allow only
  when the VM is created, after the VMs created before it are paid for.

  Args:
    tables: PkbTables.
    cloud: the group's cloud.
    machine_type: the group's type.
    requested: local SSDs asked for at creation (0: none).

  Returns:
    A message without the flag's name, or None.
  """
  if not requested:
    return None
  if cloud != 'GCP':
    return (
        f'local SSDs are requested at creation on GCP only; on {cloud} the'
        f' instance store comes with the type ({machine_type}:'
        f' {FixedLocalSsds(tables, cloud, machine_type)})'
    )
  fixed = tables.gce_fixed.get(machine_type)
  if fixed is not None:
    if requested == fixed:
      return None
    return (
        f'{machine_type} comes with {fixed} local SSD(s) (PKB'
        ' gce_disk.FIXED_SSD_MACHINE_TYPES), and PKB ignores a requested'
        f' count for it, so {requested} would not be what runs; remove the'
        f' request or give {fixed}'
    )
  if _GCE_BUNDLED_RE.fullmatch(machine_type):
    return (
        f'{machine_type} comes with local SSDs, so none can be requested;'
        ' remove the request'
    )
  allowed = AllowedLocalSsdCounts(machine_type)
  if allowed == ():
    return (
        f'{machine_type} takes no local SSDs at creation (its series has them'
        ' only as -lssd types, or not at all)'
    )
  if allowed and requested not in allowed:
    return (
        f'{machine_type} takes {_Counts(allowed)} local SSDs, not'
        f" {requested} (GCE's table of valid counts per machine type)"
    )
  return None


def LocalDiskProblem(tables, cloud, machine_type, requested, engine):
  """Why the servers' data cannot go on their local SSDs, or None.

  Args:
    tables: PkbTables.
    cloud: the servers' cloud.
    machine_type: the servers' type.
    requested: local SSDs asked for at creation (GCE types without fixed
      ones).
    engine: settings.ENGINES value.

  Returns:
    A message for --scylla_data_disk, or None.
  """
  network = 'or --scylla_data_disk=network'
  if cloud == 'GCP':
    if machine_type in tables.gce_fixed:
      return None
    if _GCE_BUNDLED_RE.fullmatch(machine_type):
      return (
          f'{machine_type} comes with local SSDs that PKB does not know (not in'
          ' its gce_disk.FIXED_SSD_MACHINE_TYPES), so PKB would neither count'
          ' nor set them up; choose a type PKB lists (z3, c3, c3d, c4, c4a,'
          f' c4d -lssd...) {network}'
      )
    if requested:
      return None
    allowed = AllowedLocalSsdCounts(machine_type)
    how = (
        f'request them with --gce_num_local_ssds ({_Counts(allowed)} for'
        f' {machine_type}),'
        if allowed
        else 'choose a type with local SSDs'
    )
    return f'{machine_type} on GCP has no local SSDs; {how} {network}'
  if cloud == 'AWS':
    family = _AwsFamily(machine_type)
    count = tables.aws_volumes.get(machine_type)
    if count is None:
      return (
          f'{machine_type} has no instance store that PKB knows (not in its'
          ' aws_disk.NUM_LOCAL_VOLUMES), so PKB would set up no local disks;'
          f' choose a type PKB lists (i4i, i3en, i7i, i7ie, i8g...) {network}'
      )
    if family in tables.aws_hdd_families:
      return (
          f'the instance store of {machine_type} is HDD (PKB'
          ' aws_disk.LOCAL_HDD_PREFIXES), not SSD; choose an SSD type'
          f' {network}'
      )
    if engine == 'scylla' and family in tables.aws_non_nvme_families:
      return (
          f'the instance store of {machine_type} is not NVMe (PKB'
          " aws_disk.NON_LOCAL_NVME_TYPES), and ScyllaDB's array is built from"
          ' the NVMe instance-store devices the node shows; use'
          ' --scylla_engine=cassandra (PKB stripes them), an NVMe type'
          f' {network}'
      )
    return None
  return (
      f'no local SSDs are known for {machine_type} on {cloud}; use'
      f' {network[3:]}'
  )


def DataDiskSpec(
    tables,
    cloud,
    machine_type,
    data_disk,
    requested_local_ssds=0,
    network_disk_gb=0,
    engine='scylla',
):
  """The PKB disk_spec of the servers group.

  Local SSDs, ScyllaDB: its own scylla_raid_setup builds the array later
  (1 MiB chunk, its XFS options, noatime), so PKB must not:
  `num_striped_disks: 1` and no `mount_point` make PKB register every local
  SSD as a scratch disk (its disk metadata stays in the samples) without
  striping, formatting or mounting any of them. An explicit value also stops
  PKB from deriving `num_striped_disks` from its own table when
  --machine_type is given.

  Local SSDs, Apache Cassandra: there is no scylla_raid_setup on the node,
  so PKB's own striping builds the RAID0 (mdadm defaults) and mounts it at
  the data directory; only one of the two ever builds an array.

  Network disk: PKB creates, formats and mounts it at ScyllaDB's data
  directory (give PKB --disk_fs_type=xfs).

  Args:
    tables: PkbTables.
    cloud: 'GCP' or 'AWS'.
    machine_type: server machine type.
    data_disk: 'local' or 'network' (settings.DATA_DISKS).
    requested_local_ssds: local SSDs asked for at creation (GCE n2...).
    network_disk_gb: size of the network disk.
    engine: settings.ENGINES value.

  Returns:
    dict for BENCHMARK_CONFIG vm_groups.servers.disk_spec.<cloud>.

  Raises:
    settings.SettingsError: naming --scylla_data_disk, local SSDs that PKB
      cannot give or the benchmark cannot use, or a network disk on a cloud
      without a known disk type.
  """
  if data_disk == 'local':
    problem = LocalDiskProblem(
        tables, cloud, machine_type, requested_local_ssds, engine
    )
    if problem:
      raise settings_lib.SettingsError('data_disk', problem)
    count = LocalSsdCount(tables, cloud, machine_type, requested_local_ssds)
    if engine == 'cassandra':
      return {
          'disk_type': 'local',
          'num_striped_disks': count,
          'mount_point': DATA_DIR,
      }
    return {'disk_type': 'local', 'num_striped_disks': 1}
  if cloud not in NETWORK_DISK_TYPES:
    raise settings_lib.SettingsError(
        'data_disk', f'no network disk type known for cloud {cloud}'
    )
  return {
      'disk_type': NETWORK_DISK_TYPES[cloud],
      'disk_size': network_disk_gb,
      'mount_point': DATA_DIR,
  }


def ParseLsblk(json_text):
  """`lsblk -J -o NAME,TYPE,MODEL,MOUNTPOINT[,...]` -> list[BlockDevice].

  Handles both the MOUNTPOINT column and util-linux 2.37+'s MOUNTPOINTS.
  """

  def Device(entry):
    points = entry.get('mountpoints')
    if points is None:
      points = [entry.get('mountpoint')]
    return BlockDevice(
        name=entry['name'],
        type=entry.get('type') or '',
        model=(entry.get('model') or '').strip(),
        mountpoints=tuple(p for p in points if p),
        children=tuple(Device(c) for c in entry.get('children') or ()),
    )

  return [Device(e) for e in json.loads(json_text)['blockdevices']]


def ParseByIdListing(text):
  """`ls -l /dev/disk/by-id[/...]` -> {link name: kernel device name}.

  Links to other links (GCE's google-local-ssd-blockN) are followed.
  """
  links = {}
  for line in text.splitlines():
    match = _LS_LINK_RE.search(line)
    if match:
      links[posixpath.basename(match.group(1))] = posixpath.basename(
          match.group(2)
      )
  resolved = {}
  for name, target in links.items():
    seen = {name}
    while target in links and target not in seen:
      seen.add(target)
      target = links[target]
    resolved[name] = target
  return resolved


def _NaturalKey(path):
  return [int(p) if p.isdigit() else p for p in _NATURAL_RE.split(path)]


def FindLocalDisks(devices, by_id):
  """The local SSDs to build ScyllaDB's array from.

  A whole disk is taken when its model is a local-SSD model or a local-SSD
  /dev/disk/by-id name points to it, and neither it nor anything below it is
  mounted, partitioned or already in an array (that excludes the boot disk,
  whatever its model).

  Args:
    devices: ParseLsblk result.
    by_id: ParseByIdListing result.

  Returns:
    sorted list of '/dev/<name>' paths.
  """
  named_local = {t for n, t in by_id.items() if _LOCAL_BY_ID_RE.match(n)}
  found = [
      d
      for d in devices
      if d.type == 'disk'
      and not d.InUse()
      and (_LOCAL_MODEL_RE.match(d.model) or d.name in named_local)
  ]
  return sorted((f'/dev/{d.name}' for d in found), key=_NaturalKey)
