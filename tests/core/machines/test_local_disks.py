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

# A few rows of PKB's tables as the shell reads them (PKB commit 946ea317).
TABLES = local_disks.PkbTables(
    gce_fixed={
        'z3-highmem-88': 12,
        'z3-highmem-88-standardlssd': 6,
        'z3-highmem-176-standardlssd': 12,
        'c3-standard-88-lssd': 16,
    },
    aws_volumes={
        'i4i.4xlarge': 1,
        'i4i.32xlarge': 8,
        'i7ie.6xlarge': 2,
        'c3.2xlarge': 2,
        'd2.xlarge': 3,
    },
    aws_hdd_families=frozenset(('d2', 'h1')),
    aws_non_nvme_families=frozenset(('d2', 'h1', 'c3', 'i2')),
)


@pytest.mark.parametrize(
    'cloud,machine_type,requested,expected',
    [
        ('GCP', 'z3-highmem-88', 0, 12),
        ('GCP', 'z3-highmem-88-standardlssd', 0, 6),
        ('GCP', 'c3-standard-88-lssd', 0, 16),
        ('GCP', 'n2-highmem-96', 24, 24),
        ('GCP', 'n2-highmem-96', 0, 0),
        ('AWS', 'i4i.4xlarge', 0, 1),
        ('AWS', 'i7ie.6xlarge', 0, 2),
        ('AWS', 'c3.2xlarge', 0, 2),
        ('AWS', 'c6i.2xlarge', 0, 0),
    ],
)
def test_local_ssd_count_is_pkbs(cloud, machine_type, requested, expected):
  assert (
      local_disks.LocalSsdCount(TABLES, cloud, machine_type, requested)
      == expected
  )


def test_local_disk_spec_leaves_the_array_to_scylla():
  spec = local_disks.DataDiskSpec(TABLES, 'GCP', 'z3-highmem-88', 'local')
  assert spec == {'disk_type': 'local', 'num_striped_disks': 1}
  assert 'mount_point' not in spec


def test_cassandra_stripes_as_many_as_pkb_sets_up():
  spec = local_disks.DataDiskSpec(
      TABLES, 'AWS', 'c3.2xlarge', 'local', engine='cassandra'
  )
  assert spec['num_striped_disks'] == 2


@pytest.mark.parametrize(
    'cloud,machine_type,requested,engine,says',
    [
        ('GCP', 'n2-highmem-96', 0, 'scylla', '--gce_num_local_ssds (16 or 24'),
        ('GCP', 'e2-standard-8', 0, 'scylla', 'choose a type with local SSDs'),
        ('GCP', 'z3-highmem-192-highlssd-metal', 0, 'scylla', 'PKB does not'),
        ('AWS', 'c6i.2xlarge', 0, 'scylla', 'aws_disk.NUM_LOCAL_VOLUMES'),
        ('AWS', 'd2.xlarge', 0, 'cassandra', 'is HDD'),
        ('AWS', 'c3.2xlarge', 0, 'scylla', 'not NVMe'),
    ],
)
def test_local_disks_pkb_cannot_give_are_refused_saying_why(
    cloud, machine_type, requested, engine, says
):
  with pytest.raises(settings.SettingsError) as raised:
    local_disks.DataDiskSpec(
        TABLES, cloud, machine_type, 'local', requested, engine=engine
    )
  assert str(raised.value).startswith('--scylla_data_disk: ')
  assert says in str(raised.value)
  # Issue 21: AWS was told to use --gce_num_local_ssds.
  if cloud == 'AWS':
    assert 'gce_num_local_ssds' not in str(raised.value)


@pytest.mark.parametrize(
    'machine_type,requested,says',
    [
        ('n2-highmem-96', 20, 'takes 16 or 24 local SSDs'),
        ('n2-highmem-16', 1, 'takes 2, 4, 8, 16 or 24'),
        ('c2-standard-30', 24, 'takes 4 or 8'),
        ('n2d-standard-32', 1, 'takes 2, 4, 8, 16 or 24'),
        ('c2d-highcpu-112', 4, 'takes 8'),
        ('n1-standard-8', 9, 'takes 1, 2, 3, 4, 5, 6, 7, 8, 16 or 24'),
        ('z3-highmem-88', 4, 'comes with 12 local SSD(s)'),
        ('c4-standard-8-lssd', 2, 'comes with local SSDs'),
        ('n4-standard-8', 2, 'takes no local SSDs'),
    ],
)
def test_requested_counts_gce_refuses_are_named(machine_type, requested, says):
  problem = local_disks.RequestProblem(TABLES, 'GCP', machine_type, requested)
  assert says in problem


@pytest.mark.parametrize(
    'machine_type,requested',
    [
        ('n2-highmem-96', 24),
        ('n2-highmem-96', 16),
        ('n2-standard-8', 2),
        ('c2-standard-30', 8),
        ('z3-highmem-88', 12),
        ('z3-highmem-88', 0),
        # Not in the table of counts: GCE decides.
        ('m1-ultramem-40', 3),
        ('n2-custom-24-98304', 4),
    ],
)
def test_valid_or_unknown_counts_pass(machine_type, requested):
  assert (
      local_disks.RequestProblem(TABLES, 'GCP', machine_type, requested) is None
  )


def test_requesting_ssds_on_aws_says_they_come_with_the_type():
  problem = local_disks.RequestProblem(TABLES, 'AWS', 'i4i.4xlarge', 2)
  assert 'GCP only' in problem and '(i4i.4xlarge: 1)' in problem


def test_ebs_path_below_the_provisioned_volume_is_named():
  said = local_disks.EbsShortfall('c3.2xlarge', 10000, 160)
  assert '8,000 IOPS' in said and '125 MB/s' in said
  assert 'below the 10,000 IOPS and 160 MiB/s provisioned' in said
  assert 'not by default' in said
  # Not EBS-optimized: said even when the volume asks for less.
  assert 'shares the network link' in local_disks.EbsShortfall(
      'c3.2xlarge', 3000, 100
  )
  assert local_disks.EbsShortfall('m4.2xlarge', 3000, 100) is None
  assert local_disks.EbsShortfall('c6i.2xlarge', 10000, 160) is None


@pytest.mark.parametrize(
    'machine_type,local_ssds,migrates',
    [
        ('z3-highmem-88', 12, False),
        ('z3-highmem-176-standardlssd', 12, False),
        ('z3-highmem-88-highlssd', 12, False),
        ('z3-highmem-88-standardlssd', 6, True),
        ('z3-highmem-44-highlssd', 6, True),
        ('z3-highmem-192-highlssd-metal', 12, False),
        ('n2-highmem-96', 24, True),
    ],
)
def test_z3_above_18_tib_cannot_live_migrate(
    machine_type, local_ssds, migrates
):
  problem = local_disks.LiveMigrationProblem('GCP', machine_type, local_ssds)
  assert (problem is None) == migrates


def test_network_disk_spec_mounts_the_data_dir():
  assert local_disks.DataDiskSpec(
      TABLES, 'AWS', 'c6i.2xlarge', 'network', network_disk_gb=500
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
      TABLES, 'GCP', 'z3-highmem-88', 'local', engine='cassandra'
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
