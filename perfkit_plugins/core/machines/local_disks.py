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
(`DataDiskSpec`); after provisioning the RAID step finds the local SSDs on the
node from `lsblk -J` and `/dev/disk/by-id` (`FindLocalDisks`), never taking
the boot disk or anything mounted.
"""

import dataclasses
import json
import posixpath
import re

from perfkit_plugins.core.config import settings as settings_lib

# ScyllaDB's data directory; scylla_raid_setup mounts the array here.
DATA_DIR = settings_lib.SCYLLA_DATA_DIR

# Local SSDs that come with the machine type. Copied from PKB
# perfkitbenchmarker/providers/gcp/gce_disk.py FIXED_SSD_MACHINE_TYPES (Z3
# entries) and perfkitbenchmarker/providers/aws/aws_disk.py NUM_LOCAL_VOLUMES
# (i4i, i3en, i7i entries), PKB commit 946ea317.
FIXED_LOCAL_SSDS = {
    'GCP': {
        'z3-highmem-176': 12,
        'z3-highmem-88': 12,
        'z3-highmem-14-standardlssd': 1,
        'z3-highmem-22-standardlssd': 2,
        'z3-highmem-44-standardlssd': 3,
        'z3-highmem-88-standardlssd': 6,
        'z3-highmem-176-standardlssd': 12,
        'z3-highmem-8-highlssd': 1,
        'z3-highmem-16-highlssd': 2,
        'z3-highmem-22-highlssd': 3,
        'z3-highmem-32-highlssd': 4,
        'z3-highmem-44-highlssd': 6,
        'z3-highmem-88-highlssd': 12,
    },
    'AWS': {
        'i4i.large': 1,
        'i4i.xlarge': 1,
        'i4i.2xlarge': 1,
        'i4i.4xlarge': 1,
        'i4i.8xlarge': 2,
        'i4i.16xlarge': 4,
        'i4i.32xlarge': 8,
        'i3en.large': 1,
        'i3en.xlarge': 1,
        'i3en.2xlarge': 2,
        'i3en.3xlarge': 1,
        'i3en.6xlarge': 2,
        'i3en.12xlarge': 4,
        'i3en.24xlarge': 8,
        'i3en.metal': 8,
        'i7i.large': 1,
        'i7i.xlarge': 1,
        'i7i.2xlarge': 1,
        'i7i.4xlarge': 1,
        'i7i.8xlarge': 2,
        'i7i.12xlarge': 3,
        'i7i.16xlarge': 4,
        'i7i.24xlarge': 6,
        'i7i.48xlarge': 12,
    },
}

# PKB's network data disk type per cloud for --scylla_data_disk=network.
NETWORK_DISK_TYPES = {'GCP': 'pd-ssd', 'AWS': 'gp3'}

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


def LocalSsdCount(cloud, machine_type, requested_local_ssds=0):
  """Local SSDs a server will have.

  Z3 and AWS instance-store types bring a fixed number; on other GCE types
  (n2, ...) local SSDs are requested at creation (PKB's
  --gce_num_local_ssds / vm_spec num_local_ssds).

  Args:
    cloud: 'GCP' or 'AWS'.
    machine_type: e.g. 'z3-highmem-88'.
    requested_local_ssds: SSDs asked for at VM creation.

  Returns:
    int.
  """
  fixed = FIXED_LOCAL_SSDS.get(cloud, {}).get(machine_type)
  return fixed if fixed is not None else requested_local_ssds


def DataDiskSpec(
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
    cloud: 'GCP' or 'AWS'.
    machine_type: server machine type.
    data_disk: 'local' or 'network' (settings.DATA_DISKS).
    requested_local_ssds: local SSDs asked for at creation (GCE n2...).
    network_disk_gb: size of the network disk.
    engine: settings.ENGINES value.

  Returns:
    dict for BENCHMARK_CONFIG vm_groups.servers.disk_spec.<cloud>.

  Raises:
    settings.SettingsError: local SSDs asked for a type without them, or a
      network disk on a cloud without a known disk type.
  """
  if data_disk == 'local':
    count = LocalSsdCount(cloud, machine_type, requested_local_ssds)
    if count < 1:
      raise settings_lib.SettingsError(
          'data_disk',
          f'{machine_type} on {cloud} has no local SSDs; use'
          ' --scylla_data_disk=network, a type with local SSDs, or request'
          ' them (--gce_num_local_ssds)',
      )
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
