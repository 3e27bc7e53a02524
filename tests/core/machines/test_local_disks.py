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

"""Local SSD counts, PKB disk specs and local-disk discovery."""

import dataclasses

import pytest

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.machines import local_disks


@pytest.mark.parametrize(
    'cloud,machine_type,requested,expected',
    [
        ('GCP', 'z3-highmem-88', 0, 12),
        ('GCP', 'z3-highmem-88-highlssd', 0, 12),
        ('GCP', 'z3-highmem-88-standardlssd', 0, 6),
        ('GCP', 'z3-highmem-176-standardlssd', 0, 12),
        ('GCP', 'n2-highmem-96', 24, 24),
        ('GCP', 'n2-highmem-96', 0, 0),
        ('AWS', 'i4i.4xlarge', 0, 1),
        ('AWS', 'i4i.32xlarge', 0, 8),
        ('AWS', 'i3en.24xlarge', 0, 8),
        ('AWS', 'i7i.48xlarge', 0, 12),
        ('AWS', 'c6i.2xlarge', 0, 0),
    ],
)
def test_local_ssd_count(cloud, machine_type, requested, expected):
  assert local_disks.LocalSsdCount(cloud, machine_type, requested) == expected


def test_local_disk_spec_leaves_the_array_to_scylla():
  spec = local_disks.DataDiskSpec('GCP', 'z3-highmem-88', 'local')
  assert spec == {'disk_type': 'local', 'num_striped_disks': 1}
  assert 'mount_point' not in spec


def test_local_disks_without_ssds_rejected_naming_the_flag():
  with pytest.raises(settings.SettingsError, match='--scylla_data_disk'):
    local_disks.DataDiskSpec('GCP', 'n2-highmem-96', 'local')
  with pytest.raises(settings.SettingsError, match='--scylla_data_disk'):
    local_disks.DataDiskSpec('AWS', 'c6i.2xlarge', 'local')


def test_network_disk_spec_mounts_the_data_dir():
  assert local_disks.DataDiskSpec(
      'AWS', 'c6i.2xlarge', 'network', network_disk_gb=500
  ) == {'disk_type': 'gp3', 'disk_size': 500, 'mount_point': '/var/lib/scylla'}


def test_by_id_listing_follows_block_links(testdata):
  by_id = local_disks.ParseByIdListing(
      testdata(
          'devices', 'gce-c3d-standard-60-lssd-ls-l-by-id-google-local.txt'
      )
  )
  assert by_id['google-local-nvme-ssd-0'] == 'nvme1n1'
  assert by_id['google-local-ssd-block3'] == 'nvme4n1'
  assert len(by_id) == 8


def test_no_local_disk_on_a_virtio_host(testdata):
  devices = local_disks.ParseLsblk(
      testdata('devices', 'debian12-kvm-virtio-lsblk-J.txt')
  )
  assert [d.name for d in devices] == ['zram0', 'vda']
  assert devices[1].mountpoints == ('/',)
  assert local_disks.FindLocalDisks(devices, {}) == []


def _Disk(name, model, mountpoints=(), children=()):
  return local_disks.BlockDevice(name, 'disk', model, mountpoints, children)


def _Part(name, mountpoint):
  return local_disks.BlockDevice(name, 'part', '', (mountpoint,), ())


def test_c3d_boot_disk_excluded_local_ssd_found(testdata):
  by_id = local_disks.ParseByIdListing(
      testdata('devices', 'gce-c3d-standard-16-lssd-ls-l-by-id-excerpt.txt')
  )
  devices = [
      _Disk('nvme0n1', 'nvme_card-pd', children=(_Part('nvme0n1p1', '/'),)),
      _Disk('nvme1n1', 'nvme_card0'),
  ]
  assert local_disks.FindLocalDisks(devices, by_id) == ['/dev/nvme1n1']


def test_by_id_name_alone_marks_a_local_disk(testdata):
  by_id = local_disks.ParseByIdListing(
      testdata(
          'devices', 'gce-c3d-standard-60-lssd-ls-l-by-id-google-local.txt'
      )
  )
  devices = [_Disk(f'nvme{i}n1', '') for i in range(1, 5)]
  assert local_disks.FindLocalDisks(devices, by_id) == [
      f'/dev/nvme{i}n1' for i in range(1, 5)
  ]


def test_disks_in_use_are_never_taken():
  array = local_disks.BlockDevice('md0', 'raid0', '', ('/data',), ())
  devices = [
      _Disk(
          'nvme0n1',
          'Amazon Elastic Block Store',
          children=(_Part('nvme0n1p1', '/'),),
      ),
      _Disk('nvme1n1', 'Amazon EC2 NVMe Instance Storage', children=(array,)),
      _Disk('nvme2n1', 'Amazon EC2 NVMe Instance Storage', ('/mnt',)),
      _Disk('nvme10n1', 'Amazon EC2 NVMe Instance Storage'),
      _Disk('nvme3n1', 'Amazon EC2 NVMe Instance Storage'),
  ]
  assert local_disks.FindLocalDisks(devices, {}) == [
      '/dev/nvme3n1',
      '/dev/nvme10n1',
  ]


def test_cassandra_local_ssds_are_striped_by_pkb_at_the_data_dir():
  assert local_disks.DataDiskSpec(
      'GCP', 'z3-highmem-88', 'local', engine='cassandra'
  ) == {
      'disk_type': 'local',
      'num_striped_disks': 12,
      'mount_point': local_disks.DATA_DIR,
  }


@pytest.mark.parametrize(
    'listing,boot_disk,boot_model,local_ssds',
    [
        (
            'aws-eks-instance-store-lsblk-J-output-all.txt',
            'nvme0n1',
            'Amazon Elastic Block Store',
            ['/dev/nvme1n1'],
        ),
        (
            'gke-cos-local-nvme-ssd-lsblk-J-output-all.txt',
            'sda',
            'PersistentDisk',
            ['/dev/nvme0n1'],
        ),
        (
            'azure-aks-nvme-direct-disk-lsblk-J-output-all.txt',
            'sda',
            'Virtual Disk',
            ['/dev/nvme0n1'],
        ),
    ],
)
def test_real_cloud_listing_finds_local_ssds_only(
    testdata, listing, boot_disk, boot_model, local_ssds
):
  devices = local_disks.ParseLsblk(testdata('devices', listing))
  boot = next(d for d in devices if d.name == boot_disk)
  assert boot.model == boot_model  # lsblk's space padding is stripped.
  assert boot.InUse()
  assert local_disks.FindLocalDisks(devices, {}) == local_ssds


def test_real_ebs_disk_is_not_local_even_when_unused(testdata):
  devices = local_disks.ParseLsblk(
      testdata('devices', 'aws-eks-instance-store-lsblk-J-output-all.txt')
  )
  ebs = dataclasses.replace(devices[0], children=())
  assert ebs.model == 'Amazon Elastic Block Store'
  assert local_disks.FindLocalDisks([ebs], {}) == []
  assert local_disks.FindLocalDisks(devices[1:], {}) == ['/dev/nvme1n1']
