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

"""ScyllaDB's data volume on the servers: local SSDs in one RAID0, or not.

Why scylla_raid_setup and not PKB's striping: PKB's StripeDisks creates the
array without a chunk size (mdadm's 512 KiB), formats it with
`mkfs.xfs -f -i size=512`, mounts it with `discard` only and chowns it to
the ssh user. ScyllaDB's recommended layout is what its own
scylla_raid_setup builds: RAID0 with a 1 MiB chunk, mkfs.xfs with the
release's options (-K, no rmapbt/reflink in current releases), a systemd
mount unit at /var/lib/scylla with noatime, the directory tree owned by the
scylla user. So PKB only registers the local SSDs as scratch disks
(local_disks.DataDiskSpec: num_striped_disks 1, no mount point: its disk
metadata stays, it never stripes, formats or mounts), and the array is built
here, once. BuildDataRaid refuses to run over a disk that is mounted,
partitioned or already in an array, so the two can never both build one.

Note: every scylla_raid_setup release discards each disk first (blkdiscard;
its --blk-discard default "False" is a non-empty string, hence true), which
takes a while on large SSDs and leaves them in a clean, repeatable state.
"""

import os
import shlex

from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.operations import data_dir

SCRIPTS_DIR = '/opt/scylladb/scripts'
MOUNT_UNIT = 'var-lib-scylla.mount'
LSBLK_COMMAND = 'lsblk -J -o NAME,PATH,TYPE,MODEL,SERIAL,MOUNTPOINT'
BY_ID_COMMAND = 'ls -l /dev/disk/by-id/'
FINDMNT_COMMAND = f'findmnt -n -o SOURCE,FSTYPE,OPTIONS {local_disks.DATA_DIR}'


def ScriptHelpCommand(script):
  """`--help` of a ScyllaDB setup script (they check for root first)."""
  return f'sudo {SCRIPTS_DIR}/{script} --help'


def RaidSetupCommand(args):
  return f'sudo {SCRIPTS_DIR}/scylla_raid_setup ' + shlex.join(args)


def ChownDataDirCommand():
  return f'sudo chown -R scylla:scylla {local_disks.DATA_DIR}'


def _SaveListing(output_dir, vm, name, text):
  if output_dir:
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, f'{vm.name}-{name}')
    with open(path, 'w') as f:
      f.write(text)


def FindLocalDisks(vm, output_dir=None):
  """The server's free local SSDs (lsblk -J and /dev/disk/by-id).

  Args:
    vm: server VM.
    output_dir: local directory that keeps both raw listings, or None.

  Returns:
    list of device paths.
  """
  lsblk, _ = vm.RemoteCommand(LSBLK_COMMAND)
  by_id, _ = vm.RemoteCommand(BY_ID_COMMAND)
  _SaveListing(output_dir, vm, 'lsblk-J.txt', lsblk)
  _SaveListing(output_dir, vm, 'ls-l-by-id.txt', by_id)
  return local_disks.FindLocalDisks(
      local_disks.ParseLsblk(lsblk), local_disks.ParseByIdListing(by_id)
  )


def BuildDataRaid(vm, expected_disks, output_dir=None):
  """RAID0 of all local SSDs at /var/lib/scylla, by scylla_raid_setup.

  Args:
    vm: server VM with ScyllaDB installed.
    expected_disks: local SSDs the machine type has (LocalSsdCount).
    output_dir: where to keep the raw device listings.

  Returns:
    data_dir.DataVolume.

  Raises:
    ValueError: fewer free local SSDs than the machine type has (PKB or
      something else already uses some), or none at all.
  """
  disks = FindLocalDisks(vm, output_dir)
  if len(disks) != expected_disks:
    raise ValueError(
        f'{vm.name}: found {len(disks)} free local SSDs ({disks}), expected'
        f' {expected_disks}; not building the RAID array'
    )
  return BuildRaidOn(vm, disks)


def BuildRaidOn(vm, disks):
  """ScyllaDB's data volume over `disks` at /var/lib/scylla.

  scylla_raid_setup itself refuses a disk that is busy (mounted, in an
  array, held open) and a mounted /var/lib/scylla.

  Args:
    vm: server VM with ScyllaDB installed.
    disks: device paths (the local SSDs found, or --scylla_raid_devices).

  Returns:
    data_dir.DataVolume.
  """
  help_text, _ = vm.RemoteCommand(ScriptHelpCommand('scylla_raid_setup'))
  args = scylla_config.RaidSetupArgs(
      scylla_config.ParseHelpFlags(help_text), disks
  )
  vm.RemoteCommand(RaidSetupCommand(args))
  return _Volume(vm, disks)


def UseGivenDisk(vm):
  """The disk at /var/lib/scylla that PKB mounted or the machine declares.

  A network disk PKB provisioned, or the data directory of a static VM:
  used as it is, owned by scylla.

  Returns:
    data_dir.DataVolume.
  """
  vm.RemoteCommand(ChownDataDirCommand())
  return data_dir.Describe(vm, local_disks.DATA_DIR)


def _Volume(vm, disks):
  out, _ = vm.RemoteCommand(FINDMNT_COMMAND)
  fields = out.split()
  if len(fields) != 3:
    raise ValueError(f'{vm.name}: nothing mounted at {local_disks.DATA_DIR}')
  return data_dir.DataVolume(tuple(disks), *fields)


def RemoveRaidCommand():
  """Unmounts and stops the array, so scylla_raid_setup can run again."""
  return (
      f'sudo systemctl disable --now {MOUNT_UNIT}; sudo rm -f'
      f' /etc/systemd/system/{MOUNT_UNIT} && sudo systemctl daemon-reload'
      ' && sudo mdadm --stop --scan'
  )


def RemoveRaid(vm):
  vm.RemoteCommand(RemoveRaidCommand())
