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

"""Command sequences of the ScyllaDB engine on recording fake servers.

Help texts, perftune masks and cpuset.conf are real outputs (testdata);
device listings and lscpu lines are built here for machine shapes no real
listing exists for (orchestration tests; the parsers are tested on real
outputs in tests/core).
"""

import json
import re
import shlex
import subprocess

import pytest

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.core.software import token_ring
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import raid
from perfkit_plugins.testing import fake_vm

# PKB's vm_util.VM_TMP_DIR, which the shell hands in.
VM_TMP_DIR = '/tmp/pkb'
SLOT = token_ring.RingSlot(1, 2)

HELP_RELEASE = 'branch-2026.3'
VERSION = '2026.3.1-0.20261001.0123456789ab'
# Shapes with a real scylla_cpuset_setup output in testdata/scylla_setup.
CPUSET_SHAPES = ('v8-numa1', 'v16-numa1', 'v88-numa2', 'v96-numa2')


def _Lsblk(boot, locals_):
  """lsblk -J text: boot disk (with its root partition) and local disks."""
  name, model = boot
  devices = [{
      'name': name,
      'path': f'/dev/{name}',
      'type': 'disk',
      'model': model,
      'serial': None,
      'mountpoint': None,
      'children': [{
          'name': f'{name}p1' if 'nvme' in name else f'{name}1',
          'type': 'part',
          'model': None,
          'mountpoint': '/',
      }],
  }]
  devices += [
      {
          'name': n,
          'path': f'/dev/{n}',
          'type': 'disk',
          'model': m,
          'serial': None,
          'mountpoint': None,
      }
      for n, m in locals_
  ]
  return json.dumps({'blockdevices': devices})


# What QuietServicesCommand prints on a GCE Debian image (its own format;
# test_quiet_services_masks_the_units_present runs it).
QUIET_OUTPUT = 'masked: apt-daily.timer apt-daily-upgrade.timer man-db.timer\n'


def _Server(testdata, name, ip, lsblk, by_id, vcpus, numa_nodes, nic):
  vm = fake_vm.FakeVm(name=name, internal_ip=ip, num_cpus=vcpus)
  shape = f'v{vcpus}-numa{numa_nodes}'
  vm.Reply(r'^lsblk ', lsblk)
  vm.Reply(r'^ls -l /dev/disk/by-id', by_id)
  vm.Reply(
      r'scylla_raid_setup --help',
      testdata('scylla_setup', f'scylla_raid_setup-help-{HELP_RELEASE}.txt'),
  )
  vm.Reply(
      r'scylla_setup --help',
      testdata('scylla_setup', f'scylla_setup-help-{HELP_RELEASE}.txt'),
  )
  vm.Reply(r'^ip -o -4 route', f'default via 10.128.0.1 dev {nic} proto dhcp\n')
  vm.Reply(r'^findmnt', '/dev/md0 xfs rw,noatime,discard\n')
  vm.Reply(r'masked=; for unit in', QUIET_OUTPUT)
  vm.Reply(r'^sudo swapon --show', testdata('swap', 'swapfile-64m.txt'))
  vm.Reply(
      r'cat /etc/scylla.d/cpuset.conf',
      testdata('scylla_setup', f'cpuset-{shape}.conf')
      if shape in CPUSET_SHAPES
      else '',
  )
  vm.Reply(
      r'perftune.py .*--get-irq-cpu-mask',
      testdata('perftune', f'{shape}-get-irq-cpu-mask.txt'),
  )
  vm.Reply(
      r'cat /etc/scylla.d/io_properties.yaml',
      testdata('scylla_setup', 'io_properties-sct.yaml'),
  )
  vm.Reply(
      r'cat /etc/scylla.d/io.conf',
      'SEASTAR_IO="--io-properties-file=/etc/scylla.d/io_properties.yaml"\n',
  )
  vm.Reply(
      r'cat /etc/scylla/scylla.yaml.packaged',
      testdata('scylla_setup', 'scylla.yaml-branch-2026.3'),
  )
  vm.Reply(r'^nproc$', f'{vcpus}\n')
  vm.Reply(r'^lscpu ', fake_vm.LscpuListing(vcpus, numa_nodes))
  vm.Reply(r'^scylla --version', VERSION + '\n')
  return vm


def _Engine(local_ssds, tmp_path, **overrides):
  return scylla.ScyllaEngine(
      settings.Validate(settings.Settings(**overrides)),
      VM_TMP_DIR,
      local_ssds=local_ssds,
      output_dir=str(tmp_path),
  )


def _RaidDisks(vm):
  [command] = vm.CommandsMatching(r'scylla_raid_setup --disks')
  words = shlex.split(command)
  return words[words.index('--disks') + 1].split(',')


def _SetupArgs(vm):
  [command] = vm.CommandsMatching(r'scylla_setup --no-raid-setup')
  return shlex.split(command)[2:]


def _AssertNoDifferences(engine, node):
  """The engine's tuning report for node: read-back agrees with prediction."""
  _, problems = scylla.TuningReport([engine.tuning_records[node]], '2026.3')
  assert problems == []


def _AssertOnlyListedOptions(testdata, args):
  listed = set(
      testdata('scylla_setup', f'scylla_setup-help-{HELP_RELEASE}.txt')
      .replace('\n', ' ')
      .split()
  )
  for arg in args:
    if arg.startswith('--'):
      assert any(word.strip('[](),') == arg for word in listed), arg


def test_z3_highmem_88(testdata, tmp_path):
  locals_ = [(f'nvme{i}n1', f'nvme_card{i - 1}') for i in range(1, 13)]
  by_id = ''.join(
      f'lrwxrwxrwx 1 root root 13 Nov 22 00:00 google-local-nvme-ssd-{i - 1}'
      f' -> ../../nvme{i}n1\n'
      for i in range(1, 13)
  )
  vm = _Server(
      testdata,
      'server-0',
      '10.0.0.2',
      _Lsblk(('nvme0n1', 'nvme_card-pd'), locals_),
      by_id,
      88,
      2,
      'ens4',
  )
  engine = _Engine(12, tmp_path)
  engine.Configure(vm, ['10.0.0.2'], SLOT)

  assert _RaidDisks(vm) == [f'/dev/nvme{i}n1' for i in range(1, 13)]
  raid_command = vm.CommandsMatching(r'scylla_raid_setup --disks')[0]
  for option in (
      '--enable-on-nextboot',
      '--raid-level 0',
      '--online-discard 1',
  ):
    assert option in raid_command
  args = _SetupArgs(vm)
  assert args[:4] == [
      '--no-raid-setup',
      '--nic',
      'ens4',
      '--setup-nic-and-disks',
  ]
  _AssertOnlyListedOptions(testdata, args)
  # RAID before scylla_setup, scylla_setup before the config.
  order = [
      i
      for i, c in enumerate(vm.commands)
      if 'scylla_raid_setup --disks' in c
      or 'scylla_setup --no-raid' in c
      or 'install -m 644' in c
  ]
  assert order == sorted(order) and len(order) == 4
  # The raw device listings are kept.
  assert (tmp_path / 'server-0-lsblk-J.txt').exists()
  assert (tmp_path / 'server-0-ls-l-by-id.txt').exists()

  record = engine.tuning_records['server-0']
  assert record.shards == 80 and len(record.irq_cpus) == 8
  metadata, problems = scylla.TuningReport([record], '2026.3')
  assert problems == []
  assert metadata['server-0']['scylla_predicted_shards'] == 80
  assert engine.volumes['server-0'].Metadata()['scylla_data_disks'] == 12
  # The samples say what backs the data directory.
  published, _ = engine.Tuning([vm])
  assert {k: published[k] for k in engine.volumes['server-0'].Metadata()} == {
      'scylla_data_disks': 12,
      'scylla_data_device': '/dev/md0',
      'scylla_data_fstype': 'xfs',
      'scylla_data_mount_options': 'rw,noatime,discard',
  }

  rendered = vm.remote_files['/tmp/pkb/scylla.yaml']
  assert '"10.0.0.2"' in rendered
  assert 'tablets_mode_for_new_keyspaces: "disabled"' in rendered
  assert vm.CommandsMatching(
      r'^sudo install -m 644 -o root -g root /tmp/pkb/scylla.yaml'
      r' /etc/scylla/scylla.yaml$'
  )


def test_the_data_directory_stays_the_databases(testdata, tmp_path):
  """ScyllaDB runs as `scylla` and writes its socket cql.m into its own
  /var/lib/scylla (2026.2 on): claiming the directory for the run must
  never give it to the ssh user (which made every real node fail to start).
  """
  locals_ = [(f'nvme{i}n1', f'nvme_card{i - 1}') for i in range(1, 13)]
  vm = _Server(
      testdata,
      'server-0',
      '10.0.0.2',
      _Lsblk(('nvme0n1', 'nvme_card-pd'), locals_),
      '',
      88,
      2,
      'ens4',
  )
  _Engine(12, tmp_path).Configure(vm, ['10.0.0.2'], SLOT)
  claims = vm.CommandsMatching(r'\.scylla_phases_owner')
  assert claims
  changes_owner = re.compile(r'\b(chown|chmod|chgrp|setfacl)\b')
  assert [
      c
      for c in vm.commands
      if changes_owner.search(c) and '/var/lib/scylla' in c
  ] == []


def _SmallServer(testdata):
  """A 16-vCPU GCE server with one local SSD."""
  return _Server(
      testdata,
      'server-0',
      '10.0.0.2',
      _Lsblk(('nvme0n1', 'nvme_card-pd'), [('nvme1n1', 'nvme_card0')]),
      '',
      16,
      1,
      'ens4',
  )


def test_apt_timers_and_the_guest_agents_nic_setup_stay_active(
    testdata, tmp_path
):
  """ScyllaDB's images mask apt's and other periodic jobs and tell GCE's
  guest agent to leave NIC queues alone; the servers are made so before
  scylla_setup, and the samples say what was masked."""
  vm = _SmallServer(testdata)
  engine = _Engine(1, tmp_path)
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  (quiet,) = vm.CommandsMatching(r'masked=; for unit in')
  assert 'set_multiqueue = false' in shlex.split(quiet)[1]
  assert '/etc/default/instance_configs.cfg' in quiet
  for unit in ('apt-daily.timer', 'unattended-upgrades.service'):
    assert unit in quiet
  assert 'google-osconfig-agent.service' in quiet
  setup = vm.CommandsMatching(r'scylla_setup --no-raid')[0]
  assert vm.commands.index(quiet) < vm.commands.index(setup)
  metadata, _ = engine.Tuning([vm])
  assert metadata['scylla_masked_units'] == (
      'apt-daily-upgrade.timer apt-daily.timer man-db.timer'
  )


def test_scylla_setups_swapfile_on_the_boot_disk_is_said(testdata, tmp_path):
  """scylla_setup makes /swapfile on the boot disk; where and how big is
  published with every sample."""
  vm = _SmallServer(testdata)
  engine = _Engine(1, tmp_path)
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  metadata, _ = engine.Tuning([vm])
  assert metadata['scylla_swap'] == '/swapfile 0.1 GiB'


def test_quiet_services_masks_the_units_present(tmp_path):
  bin_dir = tmp_path / 'bin'
  bin_dir.mkdir()
  calls = tmp_path / 'calls'
  (bin_dir / 'systemctl').write_text(
      '#!/bin/sh\n'
      f'echo "$*" >> {calls}\n'
      'case "$*" in *list-unit-files*apt-daily.timer)'
      ' echo "apt-daily.timer enabled enabled";; esac\n'
  )
  (bin_dir / 'sudo').write_text('#!/bin/sh\nexec "$@"\n')
  for script in bin_dir.iterdir():
    script.chmod(0o755)
  result = subprocess.run(
      ['sh', '-c', scylla.QuietServicesCommand('AWS')],
      env={'PATH': f'{bin_dir}:/usr/bin:/bin'},
      capture_output=True,
      text=True,
      check=True,
  )
  assert scylla_config.ParseMaskedUnits(result.stdout) == ('apt-daily.timer',)
  assert 'mask apt-daily.timer' in calls.read_text()
  assert 'mask amazon-ssm-agent.service' not in calls.read_text()
  assert 'list-unit-files --no-legend amazon-ssm-agent.service' in (
      calls.read_text()
  )


def test_a_system_wide_perf_sampler_runs_unless_setup_is_told_not_to(testdata):
  """From 2026.4 scylla_setup enables scylla-perf-collector (perf record -a)
  unless given --no-perf-collector-setup: passed where the release lists it,
  never where it does not (argparse would exit)."""
  listed = scylla_config.ParseHelpFlags(
      testdata('scylla_setup', f'scylla_setup-help-{HELP_RELEASE}.txt')
  )
  assert '--no-perf-collector-setup' not in scylla_config.ScyllaSetupArgs(
      listed, 'ens4', run_iotune=True
  )
  assert '--no-perf-collector-setup' in scylla_config.ScyllaSetupArgs(
      listed | {'--no-perf-collector-setup'}, 'ens4', run_iotune=True
  )


def test_irq_cpus_are_recomputed_instead_of_read_from_perftune_yaml(
    testdata, tmp_path
):
  """Once the server started, its IRQ CPUs are those of the perftune.yaml
  scylla_prepare applied, not perftune's rule asked again."""
  vm = _Server(
      testdata,
      'server-0',
      '10.0.0.2',
      _Lsblk(('nvme0n1', 'nvme_card-pd'), [('nvme1n1', 'nvme_card0')]),
      '',
      88,
      2,
      'ens4',
  )
  record = scylla.ReadTuning(vm, 'ens4')
  assert record.irq_source == 'computed'
  vm.Reply(
      r'cat /etc/scylla.d/perftune.yaml',
      testdata('perftune', 'v16-numa1-dump-options-file.txt'),
  )
  vm.commands.clear()
  record = scylla.ReadTuning(vm, 'ens4')
  assert record.irq_source == 'perftune.yaml'
  assert record.irq_cpus == frozenset({0, 1})
  assert not vm.CommandsMatching('--get-irq-cpu-mask')


def test_n2_highmem_96_with_24_local_ssds(testdata, tmp_path):
  locals_ = [(f'nvme0n{i}', 'nvme_card') for i in range(1, 25)]
  vm = _Server(
      testdata,
      'server-1',
      '10.0.0.3',
      _Lsblk(('sda', 'PersistentDisk'), locals_),
      '',
      96,
      2,
      'ens4',
  )
  engine = _Engine(24, tmp_path)
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  assert _RaidDisks(vm) == [f'/dev/nvme0n{i}' for i in range(1, 25)]
  record = engine.tuning_records['server-1']
  assert record.shards == 88 and len(record.irq_cpus) == 8
  _AssertNoDifferences(engine, 'server-1')


def test_i4i_4xlarge_single_instance_store(testdata, tmp_path):
  vm = _Server(
      testdata,
      'server-2',
      '10.0.0.4',
      _Lsblk(
          ('nvme0n1', 'Amazon Elastic Block Store'),
          [('nvme1n1', 'Amazon EC2 NVMe Instance Storage')],
      ),
      '',
      16,
      1,
      'eth0',
  )
  engine = _Engine(1, tmp_path, cloud='AWS')
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  assert _RaidDisks(vm) == ['/dev/nvme1n1']
  assert _SetupArgs(vm)[:3] == ['--no-raid-setup', '--nic', 'eth0']
  record = engine.tuning_records['server-2']
  assert record.shards == 14 and len(record.irq_cpus) == 2
  _AssertNoDifferences(engine, 'server-2')


def test_network_disk_builds_no_array(testdata, tmp_path):
  vm = _Server(
      testdata,
      'server-3',
      '10.0.0.5',
      _Lsblk(('sda', 'x'), []),
      '',
      16,
      1,
      'eth0',
  )
  vm.Reply(r'^findmnt', '/dev/sdb xfs rw,relatime\n')
  engine = _Engine(0, tmp_path, data_disk='network')
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  assert not vm.CommandsMatching(r'scylla_raid_setup|^lsblk')
  assert vm.CommandsMatching(r'^sudo chown -R scylla:scylla /var/lib/scylla$')
  assert engine.volumes['server-3'].disks is None
  assert engine.tuning_records['server-3'].shards == 14
  _AssertNoDifferences(engine, 'server-3')


def test_never_a_second_array_over_disks_already_in_one(testdata, tmp_path):
  md = {'name': 'md0', 'type': 'raid0', 'mountpoint': '/scratch'}
  listing = json.loads(
      _Lsblk(
          ('nvme0n1', 'nvme_card-pd'),
          [(f'nvme{i}n1', f'nvme_card{i - 1}') for i in range(1, 13)],
      )
  )
  for disk in listing['blockdevices'][1:]:
    disk['children'] = [md]
  vm = _Server(
      testdata, 'server-0', '10.0.0.2', json.dumps(listing), '', 88, 2, 'ens4'
  )
  with pytest.raises(ValueError, match='found 0 free local SSDs'):
    _Engine(12, tmp_path).Configure(vm, ['10.0.0.2'], SLOT)
  assert not vm.CommandsMatching(r'scylla_raid_setup --disks|scylla_setup ')


def test_io_properties_reused_on_the_other_servers(testdata, tmp_path):
  locals_ = [('nvme1n1', 'Amazon EC2 NVMe Instance Storage')]
  servers = [
      _Server(
          testdata,
          f'server-{i}',
          f'10.0.0.{i + 2}',
          _Lsblk(('nvme0n1', 'Amazon Elastic Block Store'), locals_),
          '',
          16,
          1,
          'eth0',
      )
      for i in range(2)
  ]
  engine = _Engine(1, tmp_path, cloud='AWS')
  for vm in servers:
    engine.Configure(vm, ['10.0.0.2'], SLOT)
  first, second = (_SetupArgs(vm) for vm in servers)
  assert '--no-io-setup' not in first and first[-2:] == ['--io-setup', '1']
  assert second[-1] == '--no-io-setup'
  written = servers[1].CommandsMatching(r'sudo tee /etc/scylla.d/io_properties')
  assert len(written) == 1 and 'read_iops: 540317' in written[0]
  assert not servers[0].CommandsMatching(r'sudo tee /etc/scylla.d/io_')


def test_release_mismatch_is_a_difference(testdata, tmp_path):
  vm = _Server(
      testdata,
      'server-2',
      '10.0.0.4',
      _Lsblk(
          ('nvme0n1', 'Amazon Elastic Block Store'),
          [('nvme1n1', 'Amazon EC2 NVMe Instance Storage')],
      ),
      '',
      16,
      1,
      'eth0',
  )
  engine = _Engine(1, tmp_path, cloud='AWS', release='2025.4')
  engine.Configure(vm, ['10.0.0.2'], SLOT)
  _, problems = scylla.TuningReport(engine.tuning_records.values(), '2025.4')
  assert any('requested 2025.4' in p for p in problems)


def _Sources(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def test_apt_install_sequence_and_pinning():
  vm = fake_vm.FakeVm()
  scylla.AptInstall(vm, _Sources(release='2026.3.1'))
  assert 'keyserver.ubuntu.com' in vm.commands[0]
  assert '6C6ECC84F42AF147BD2A65AEC503C686B007F39E' in vm.commands[0]
  assert vm.commands[1].endswith(
      'https://downloads.scylladb.com/deb/debian/scylla-2026.3.list'
  )
  assert 'Pin: version 2026.3.1-*' in shlex.split(vm.commands[2])[2]
  assert vm.commands[3] == 'sudo apt-get update'
  assert vm.installed == ['gnupg', 'dirmngr', 'curl', 'scylla']
  unpinned = fake_vm.FakeVm()
  scylla.AptInstall(unpinned, _Sources(release='2026.3'))
  assert not unpinned.CommandsMatching('preferences')


def test_apt_install_from_a_mirror_checks_the_key_is_scyllas():
  vm = fake_vm.FakeVm()
  scylla.AptInstall(
      vm,
      _Sources(
          release='2026.3.1',
          repo_url='http://mirror:80/scylla/scylla-{version}.list',
          repo_key_url='http://mirror:80/scylla/key.asc',
      ),
  )
  key_command = vm.commands[0]
  assert 'keyserver' not in key_command
  assert (
      'curl -fsSL --retry 3 --max-time 60 http://mirror:80/scylla/key.asc'
      ' | gpg --homedir "$keyhome" --batch --import;'
  ) in key_command
  assert key_command.endswith(
      scylla.KeyringCheckCommand(('6C6ECC84F42AF147BD2A65AEC503C686B007F39E',))
  )
  assert vm.commands[1].endswith('http://mirror:80/scylla/scylla-2026.3.list')


@pytest.mark.parametrize(
    'release, required',
    [
        ('6.2.3', 'A43E06657BAC99E3'),
        ('2025.4.10', 'A43E06657BAC99E3'),
        ('2026.3', '6C6ECC84F42AF147BD2A65AEC503C686B007F39E'),
    ],
)
def test_every_current_key_is_imported_and_the_documented_one_required(
    release, required
):
  """ScyllaDB's installers import every current key for every release (a
  repository can be re-signed under docs naming an older key); the keyring
  must hold the one the release's docs name, by full fingerprint where it
  is known."""
  command = scylla.AptKeyCommand(settings_lib.Settings(release=release))
  imported = (
      'D0A112E067426AB2 491C93B9DE7496A7 A43E06657BAC99E3'
      ' 6C6ECC84F42AF147BD2A65AEC503C686B007F39E'
  )
  assert f'--recv-keys {imported} && break' in command
  assert f'--export {imported} | sudo tee' in command
  assert command.endswith(scylla.KeyringCheckCommand((required,)))


def test_the_key_is_fetched_from_one_keyserver_with_no_timeout_or_retry():
  """Each try is bounded, three tries, then each missing key from the key
  server over HTTPS."""
  command = scylla.AptKeyCommand(settings_lib.Settings(release='2025.4'))
  assert (
      'for i in 1 2 3; do timeout 60 gpg --homedir "$keyhome" --batch'
      ' --keyserver hkp://keyserver.ubuntu.com:80 --recv-keys'
  ) in command
  assert (
      'gpg --homedir "$keyhome" --batch --list-keys A43E06657BAC99E3'
      ' > /dev/null 2>&1 || curl -fsSL --retry 3 --max-time 60'
      " 'https://keyserver.ubuntu.com/pks/lookup?op=get&options=mr"
      '&search=0xA43E06657BAC99E3\' | gpg --homedir "$keyhome" --batch'
      ' --import;'
  ) in command


@pytest.mark.parametrize(
    'server, gpg_server, lookup',
    [
        (
            'hkp://10.0.0.1:8080',
            'hkp://10.0.0.1:8080',
            'http://10.0.0.1:8080/pks/lookup',
        ),
        ('hkps://keys.example', 'hkps://keys.example', 'https://keys.example/'),
        (
            'http://keys.example',
            'hkp://keys.example:80',
            'http://keys.example/',
        ),
        (
            'hkp://keys.example',
            'hkp://keys.example',
            'http://keys.example:11371/',
        ),
    ],
)
def test_keys_come_from_the_key_server_given(server, gpg_server, lookup):
  """gpg speaks HKP to it, curl asks its HKP lookup over HTTP(S)."""
  fingerprint = '0123456789ABCDEF0123456789ABCDEF01234567'
  command = scylla.AptKeyCommand(
      _Sources(
          key_server=server,
          repo_url='http://m/s-{version}.list',
          repo_key_fingerprints=(fingerprint,),
      )
  )
  assert f'--keyserver {gpg_server} --recv-keys {fingerprint} &&' in command
  assert f"curl -fsSL --retry 3 --max-time 60 '{lookup}" in command
  assert 'keyserver.ubuntu.com' not in command
  assert command.endswith(scylla.KeyringCheckCommand((fingerprint,)))


@pytest.mark.parametrize('release', ['5.4.9', '2024.1.12', '2024.2'])
def test_enterprise_and_jmx_releases_are_refused_before_provisioning(release):
  """2024.1 and 2024.2 ship scylla-enterprise* packages; 5.4's nodetool
  needs scylla-jmx: each would fail after the machines are paid for."""
  for allow_unknown in (False, True):
    with pytest.raises(settings_lib.SettingsError) as raised:
      _Sources(release=release, allow_unknown_releases=allow_unknown)
    message = str(raised.value)
    assert '--scylla_release' in message
    assert 'Releases that work: 6.2, 2025.1' in message


@pytest.mark.parametrize('release', ['6.0', '6.0.4', '6.1', '6.1.5'])
def test_releases_of_the_expired_2024_signing_subkey_are_refused(release):
  """6.0's repository is signed by a subkey that expired on 2026-01-31
  (apt: EXPKEYSIG 87722433EBB454AE); 6.1's docs name the same key. Refused
  before the machines are paid for, naming the releases that work."""
  for allow_unknown in (False, True):
    with pytest.raises(settings_lib.SettingsError) as raised:
      _Sources(release=release, allow_unknown_releases=allow_unknown)
    message = str(raised.value)
    assert message.startswith('--scylla_release: ')
    assert '87722433EBB454AE' in message
    assert 'expired on 2026-01-31' in message
    works = message.split('Releases that work: ')[1].split(', ')
    assert works[0] == '6.2' and '2026.3' in works
    assert not {'6.0', '6.1'} & set(works)


def test_yum_install_sequence():
  vm = fake_vm.FakeVm()
  scylla.YumInstall(vm, _Sources(release='2026.3.1'))
  assert vm.commands[1].endswith(
      'https://downloads.scylladb.com/rpm/centos/scylla-2026.3.repo'
  )
  assert vm.installed == ['scylla-2026.3.1']
  mirrored = fake_vm.FakeVm()
  scylla.YumInstall(
      mirrored, _Sources(repo_url='http://m/scylla-{version}.repo')
  )
  assert mirrored.commands[1].endswith('http://m/scylla-2026.3.repo')


HOSTILE = 'ks\'; touch /tmp/pwned; echo "$(id)" `id` \\ |&'


@pytest.mark.parametrize(
    'command,expected',
    [
        (scylla.FlushCommand(HOSTILE), ['nodetool', 'flush', HOSTILE]),
        (
            scylla.WriteFileCommand('/etc/x y', HOSTILE),
            [
                'printf',
                '%s',
                HOSTILE,
                '|',
                'sudo',
                'tee',
                '/etc/x y',
                '>',
                '/dev/null',
            ],
        ),
        (
            scylla.IrqMaskCommand(HOSTILE),
            [
                'sudo',
                '/opt/scylladb/scripts/perftune.py',
                '--tune',
                'net',
                '--nic',
                HOSTILE,
                '--get-irq-cpu-mask',
            ],
        ),
        (
            scylla.ScyllaSetupCommand(['--nic', HOSTILE]),
            ['sudo', '/opt/scylladb/scripts/scylla_setup', '--nic', HOSTILE],
        ),
        (
            raid.RaidSetupCommand(['--disks', HOSTILE]),
            [
                'sudo',
                '/opt/scylladb/scripts/scylla_raid_setup',
                '--disks',
                HOSTILE,
            ],
        ),
        (
            scylla.InstallFileCommand(HOSTILE, '/etc/scylla/scylla.yaml'),
            [
                'sudo',
                'install',
                '-m',
                '644',
                '-o',
                'root',
                '-g',
                'root',
                HOSTILE,
                '/etc/scylla/scylla.yaml',
            ],
        ),
        (
            scylla.RestGetCommand('/x?' + HOSTILE),
            ['curl', '-sSf', 'http://127.0.0.1:10000/x?' + HOSTILE],
        ),
    ],
)
def test_user_values_are_quoted(command, expected):
  assert shlex.split(command) == expected


def test_hostile_device_names_stay_one_argument(testdata, tmp_path):
  name = 'nvme1n1;reboot'
  vm = _Server(
      testdata,
      'server-2',
      '10.0.0.4',
      _Lsblk(
          ('nvme0n1', 'Amazon Elastic Block Store'),
          [(name, 'Amazon EC2 NVMe Instance Storage')],
      ),
      '',
      16,
      1,
      'eth0',
  )
  _Engine(1, tmp_path, cloud='AWS').Configure(vm, ['10.0.0.2'], SLOT)
  assert _RaidDisks(vm) == [f'/dev/{name}']


def test_observing_a_node(testdata, lab):
  vm = fake_vm.FakeVm(internal_ip='127.0.0.1')
  vm.Reply(r'^nodetool status$', lab('trio-nt-status.txt'))
  vm.Reply(
      r'compaction_manager/compactions',
      testdata('scylla_rest', 'compactions-2.json'),
  )
  vm.Reply(
      r'pending_tasks_by_table',
      testdata('scylla_rest', 'pending_tasks_by_table-2.json'),
  )
  vm.Reply(
      r'compaction_history', testdata('scylla_rest', 'compaction_history.json')
  )
  engine = scylla.ScyllaEngine(settings.Settings(), VM_TMP_DIR)
  assert len(engine.NodeStates(vm)) == 3
  status = engine.CompactionStatus(vm)
  assert status.running == 2 and status.pending > 0
  assert not vm.CommandsMatching('cqlsh')  # tablets off: not queried
  assert engine.CompactionHistory(vm)
  engine.Stop(vm)
  assert vm.commands[-1] == 'sudo systemctl stop scylla-server'


def test_tablets_are_watched_when_on(testdata):
  vm = fake_vm.FakeVm(internal_ip='10.0.0.7')
  vm.Reply(
      r'compaction_manager/compactions',
      testdata('scylla_rest', 'compactions-0.json'),
  )
  vm.Reply(
      r'pending_tasks_by_table',
      testdata('scylla_rest', 'pending_tasks_by_table-0.json'),
  )
  vm.Reply(
      r'^cqlsh 10\.0\.0\.7 -e ',
      testdata('scylla_public', 'pr16600-cqlsh-system-tablets.txt'),
  )
  engine = scylla.ScyllaEngine(settings.Settings(tablets=True), VM_TMP_DIR)
  status = engine.CompactionStatus(vm)
  assert status.running == 0 and status.pending == 0
  assert vm.CommandsMatching(r'^cqlsh 10\.0\.0\.7 -e .*system\.tablets')


def _Z3Servers(testdata):
  """Three z3-highmem-88 servers (88 vCPUs, 2 NUMA nodes) after tuning."""
  return [
      _Server(
          testdata,
          f'server-{i}',
          f'10.0.0.{i + 2}',
          _Lsblk(('nvme0n1', 'nvme_card-pd'), []),
          '',
          88,
          2,
          'ens4',
      )
      for i in range(3)
  ]


def test_tuning_read_back_for_the_samples(testdata, tmp_path):
  """Run reads the tuning from the nodes again (no state from Prepare)."""
  servers = _Z3Servers(testdata)
  metadata, shards = _Engine(12, tmp_path, nic='ens4').Tuning(servers)
  assert shards == 3 * 80
  assert metadata['scylla_shards'] == 80
  assert metadata['scylla_shards_total'] == 240
  assert metadata['scylla_irq_vcpus'] == 8
  assert metadata['scylla_predicted_shards'] == 80


def test_tuning_lists_every_node_where_nodes_differ(testdata, tmp_path, caplog):
  """A node tuned unlike the others is published, not hidden by node 0."""
  servers = _Z3Servers(testdata)
  # server-2 kept the packaged cpuset.conf (scylla_setup did not tune it).
  servers[2].Reply(
      r'cat /etc/scylla.d/cpuset.conf',
      testdata('scylla_setup', 'cpuset-v8-numa1.conf').replace(
          'CPUSET="--cpuset 1-7 "', ''
      ),
  )
  metadata, shards = _Engine(12, tmp_path, nic='ens4').Tuning(servers)
  assert shards == 80 + 80 + 88
  assert 'scylla_shards' not in metadata
  assert metadata['scylla_tuning_differences'].startswith(
      'scylla_shards server-0: 80; server-1: 80; server-2: 88'
  )
  assert metadata['scylla_tuning_uniform'] is False
  assert metadata['scylla_predicted_shards'] == 80
  assert 'nodes differ in scylla_shards' in caplog.text
