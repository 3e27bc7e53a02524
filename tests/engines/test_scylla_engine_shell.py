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

"""Every command of the ScyllaDB engine, run in a real shell.

The engine installs, configures, starts, observes, stops and cleans
ScyllaDB servers that are shell_vm machines (scylla_shell.ScyllaServer):
each command runs in /bin/sh as the login user with the real sudo, the real
pipelines and the real file systems; only ScyllaDB's programs, systemd's
manager and the network are stand-ins printing recorded real outputs. The
whole sequence of every scenario runs once for the module (RUNS); the
tests read what it did. The last test fails when a command-building
function of the engine (BUILDER_MODULES) built no command that ran here.
"""

import dataclasses
import functools
import inspect
import posixpath

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.core.software import token_ring
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import data_dir
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.operations import raid
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import key_mirror
from perfkit_plugins.testing import scylla_shell
from perfkit_plugins.testing import shell_vm

pytestmark = pytest.mark.skipif(
    bool(scylla_shell.SkipReason()), reason=scylla_shell.SkipReason()
)

# The modules whose functions build the commands the ScyllaDB engine sends.
BUILDER_MODULES = (scylla, raid, data_dir, quiet_units)
MIRROR = 'http://mirror.invalid/scylla'
KEY_SERVER = 'hkp://keys.mirror.invalid'
LIST = f'{MIRROR}/scylla-2026.3.list'
# What the test's mirror serves as its apt list (apt-get is a stand-in).
LIST_TEXT = f'deb [signed-by={scylla.APT_KEYRING}] {MIRROR} stable main\n'
REPO = f'{MIRROR}/scylla-2026.3.repo'
REPO_TEXT = f'[scylla]\nname=Scylla\nbaseurl={MIRROR}/rpm\n'
VM_TMP_DIR = '/tmp/pkb'
OWNER = 'run-shell-1'


@dataclasses.dataclass
class Outcome:
  """What one scenario did: its machines, engine, results, first error."""

  servers: list = dataclasses.field(default_factory=list)
  engine: object = None
  results: dict = dataclasses.field(default_factory=dict)
  error: BaseException = None


def _Settings(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def _Server(root, name, settings, install, keys, **options):
  """A ScyllaServer whose `scylla_server` module runs `install`."""
  return scylla_shell.ScyllaServer(
      root / name,
      name,
      modules={'scylla_server': functools.partial(install, settings=settings)},
      urls={
          LIST: LIST_TEXT,
          REPO: REPO_TEXT,
          f'{MIRROR}/keys.asc': ''.join(keys.values()),
      },
      keyserver=keys,
      cloud=settings.cloud if settings.cloud in scylla_shell.LSBLK else 'GCP',
      **options,
  )


def _Engine(settings, root, local_ssds=0):
  return scylla.ScyllaEngine(
      settings,
      VM_TMP_DIR,
      local_ssds=local_ssds,
      output_dir=str(root / 'setup'),
      owner=OWNER,
  )


def _Observe(engine, vm, results):
  """What the phases ask of a started node, then Stop and Clean."""
  results['running'] = engine.Running(vm)
  results['states'] = engine.NodeStates(vm)
  engine.Flush(vm, 'keyspace1')
  results['status'] = engine.CompactionStatus(vm)
  results['history'] = engine.CompactionHistory(vm)
  results['version'] = engine.Version(vm)
  vm.RemoteCommand(engine.NodetoolCommand('status'))
  results['tuning'], results['shards'] = engine.Tuning([vm])
  engine.PrepareLogs(vm)
  results['journal'] = vm.ReadFile(engine.journal_log)
  engine.Stop(vm)
  results['running_after_stop'] = engine.Running(vm)
  record = posixpath.join(local_disks.DATA_DIR, data_dir.OWNER_RECORD)
  results['claimed'] = vm.ReadFile(record).strip()
  engine.Clean(vm)
  results['claimed_after_clean'] = vm.Exists(record)


def _GcpLocalSsd(outcome, root, keys, fingerprint):
  """GCP, one local SSD, keys from a key server, a pinned release."""
  settings = _Settings(
      cloud='GCP',
      release='2026.3.1',
      repo_url=f'{MIRROR}/scylla-{{version}}.list',
      repo_key_fingerprints=(fingerprint,),
      key_server=KEY_SERVER,
  )
  vm = _Server(root, 'gcp-0', settings, scylla.AptInstall, keys)
  outcome.servers.append(vm)
  vm.AddDisk(vm.local_disk)
  engine = outcome.engine = _Engine(settings, root, local_ssds=1)
  engine.Install(vm)
  engine.Configure(vm, [vm.internal_ip], token_ring.RingSlot(0, 1))
  engine.Start(vm)
  _Observe(engine, vm, outcome.results)


def _AwsNetworkDisks(outcome, root, keys, fingerprint):
  """Two AWS servers on network disks, keys from the mirror, tablets on.

  The second gets the first one's io_properties (--scylla_io_setup=reuse).
  """
  settings = _Settings(
      cloud='AWS',
      release='2026.3',
      data_disk='network',
      tablets=True,
      repo_url=f'{MIRROR}/scylla-{{version}}.list',
      repo_key_url=f'{MIRROR}/keys.asc',
      repo_key_fingerprints=(fingerprint,),
  )
  servers = outcome.servers
  servers.extend(
      _Server(root, f'aws-{i}', settings, scylla.AptInstall, keys)
      for i in range(2)
  )
  engine = outcome.engine = _Engine(settings, root)
  seeds = [servers[0].internal_ip]
  for i, vm in enumerate(servers):
    engine.Install(vm)
    engine.Configure(vm, seeds, token_ring.RingSlot(i, 2))
  for vm in servers:
    engine.Start(vm)
  outcome.results['tablets_status'] = engine.CompactionStatus(servers[0])
  _Observe(engine, servers[1], outcome.results)


def _OwnMachineRaidDevices(outcome, root, keys, fingerprint):
  """A static server whose data volume is built on a named device."""
  settings = _Settings(
      servers_static=True,
      data_disk='declared',
      raid_devices=('/dev/sdb',),
      cloud='',
      repo_url=f'{MIRROR}/scylla-{{version}}.list',
      repo_key_url=f'{MIRROR}/keys.asc',
      repo_key_fingerprints=(fingerprint,),
  )
  vm = _Server(root, 'own-0', settings, scylla.AptInstall, keys)
  outcome.servers.append(vm)
  vm.AddDisk('sdb')
  engine = outcome.engine = _Engine(settings, root)
  engine.Install(vm)
  engine.Configure(vm, [vm.internal_ip], token_ring.RingSlot(0, 1))
  engine.Start(vm)
  _Observe(engine, vm, outcome.results)


def _Yum(outcome, root, keys, fingerprint):
  """The RHEL-family install (its commands; the packages are recorded)."""
  del fingerprint
  settings = _Settings(
      release='2026.3.1', repo_url=f'{MIRROR}/scylla-{{version}}.repo'
  )
  vm = _Server(root, 'yum-0', settings, scylla.YumInstall, keys)
  outcome.servers.append(vm)
  # What a RHEL-family image has (this machine is this host's Debian).
  vm.RunAsRoot('mkdir -p /etc/yum.repos.d')
  outcome.engine = _Engine(settings, root)
  outcome.engine.Install(vm)


def _NextRelease(outcome, root, keys, fingerprint):
  """The next release (master), on an image that skips recommended packages.

  Its scylla_setup has a perf collector; the `scylla` package only
  recommends the package holding its unit.
  """
  settings = _Settings(
      cloud='GCP',
      data_disk='network',
      repo_url=f'{MIRROR}/scylla-{{version}}.list',
      repo_key_url=f'{MIRROR}/keys.asc',
      repo_key_fingerprints=(fingerprint,),
  )
  vm = _Server(
      root,
      'next-0',
      settings,
      scylla.AptInstall,
      keys,
      help_release='master-f4a4091ca2',
      install_recommends=False,
  )
  outcome.servers.append(vm)
  engine = outcome.engine = _Engine(settings, root)
  engine.Install(vm)
  engine.Configure(vm, [vm.internal_ip], token_ring.RingSlot(0, 1))


SCENARIOS = {
    'gcp_local_ssd': _GcpLocalSsd,
    'aws_network_disks': _AwsNetworkDisks,
    'own_machine_raid_devices': _OwnMachineRaidDevices,
    'yum': _Yum,
    'next_release': _NextRelease,
}


def Builders():
  """Every command builder of BUILDER_MODULES, by qualified name.

  Functions and ScyllaEngine methods named ...Command, and module
  constants named ..._COMMAND (commands without arguments).
  """
  found = {}
  for module in BUILDER_MODULES:
    short = module.__name__.rsplit('.', 1)[1]
    for name, value in vars(module).items():
      if name.endswith('_COMMAND') and isinstance(value, str):
        found[f'{short}.{name}'] = value
      elif (
          name.endswith('Command')
          and inspect.isfunction(value)
          and value.__module__ == module.__name__
      ):
        found[f'{short}.{name}'] = (module, name)
  for name, value in vars(scylla.ScyllaEngine).items():
    if name.endswith('Command') and inspect.isfunction(value):
      found[f'scylla.ScyllaEngine.{name}'] = (scylla.ScyllaEngine, name)
  return found


def _Recording(function, outputs):
  @functools.wraps(function)
  def Recorder(*args, **kwargs):
    command = function(*args, **kwargs)
    outputs.append(command)
    return command

  return Recorder


@dataclasses.dataclass
class Runs:
  """Every scenario's Outcome, and what each builder built."""

  outcomes: dict
  built: dict


@pytest.fixture(name='runs', scope='module')
def _Runs(tmp_path_factory):
  """Runs every scenario once, recording each builder's commands."""
  home = tmp_path_factory.mktemp('gnupg')
  home.chmod(0o700)
  keys = key_mirror.MakeKeys(home, ('shell',))
  (fingerprint,) = keys
  builders = Builders()
  built = {name: [] for name in builders}
  outcomes = {}
  with pytest.MonkeyPatch.context() as patch:
    for name, where in builders.items():
      if isinstance(where, str):
        built[name].append(where)
      else:
        owner, attribute = where
        patch.setattr(
            owner,
            attribute,
            _Recording(getattr(owner, attribute), built[name]),
        )
    for scenario, run in SCENARIOS.items():
      outcome = outcomes[scenario] = Outcome()
      try:
        run(outcome, tmp_path_factory.mktemp(scenario), keys, fingerprint)
      except Exception as e:  # pylint: disable=broad-except
        # Reported by the scenario's tests; the others still run.
        outcome.error = e
  yield Runs(outcomes, built)
  for outcome in outcomes.values():
    for vm in outcome.servers:
      vm.Close()


def _Done(runs, scenario):
  outcome = runs.outcomes[scenario]
  if outcome.error:
    raise outcome.error
  return outcome


@pytest.mark.parametrize('scenario', sorted(SCENARIOS))
def test_every_command_exits_as_the_engine_expects(runs, scenario):
  """Each scenario ran to its end; a command the engine does not let fail
  exited 0 (a failure would have raised), and those it lets fail exited as
  they do on a server: `is-active` 3 once stopped, and nothing else."""
  outcome = _Done(runs, scenario)
  for vm in outcome.servers:
    failed = [(run.command, run.exit_code) for run in vm.runs if run.exit_code]
    assert all(
        command == scylla.ServiceCommand('is-active') and code == 3
        for command, code in failed
    ), failed


def test_the_local_ssd_is_scyllas_xfs_mounted_by_its_unit(runs):
  outcome = _Done(runs, 'gcp_local_ssd')
  (vm,) = outcome.servers
  volume = outcome.engine.volumes[vm.name]
  assert (volume.disks, volume.source, volume.fstype) == (
      ('/dev/nvme0n1',),
      '/dev/nvme0n1',
      'xfs',
  )
  assert volume.options.startswith('rw,noatime,')
  assert 'discard' in volume.options.split(',')
  assert vm.Calls('scylla_raid_setup')[-1] == [
      '--disks',
      '/dev/nvme0n1',
      '--enable-on-nextboot',
      '--raid-level',
      '0',
      '--online-discard',
      '1',
  ]
  # Clean took the array down again: unmounted, its unit gone.
  assert not vm.Exists('/etc/systemd/system/var-lib-scylla.mount')
  assert ['--stop', '--scan'] in vm.Calls('mdadm')


def test_the_data_directory_stays_scyllas_through_the_claim(runs):
  """The run's claim records its owner without taking the directory from
  the `scylla` user (which must write there, e.g. its cql.m socket)."""
  for scenario in ('aws_network_disks', 'own_machine_raid_devices'):
    for vm in _Done(runs, scenario).servers:
      assert vm.Owner('/var/lib/scylla') == 'scylla:scylla', vm.name


def test_the_run_claims_and_gives_back_its_data_directory(runs):
  for scenario in ('gcp_local_ssd', 'aws_network_disks'):
    results = _Done(runs, scenario).results
    assert results['claimed'] == OWNER
    assert results['claimed_after_clean'] is False


def test_the_key_reaches_the_keyring_both_ways(runs):
  """From the key server (gpg --recv-keys) and from the mirror's key file
  (curl), the keyring holds the key and the samples name it."""
  for scenario in ('gcp_local_ssd', 'aws_network_disks'):
    outcome = _Done(runs, scenario)
    (fingerprint,) = outcome.engine.settings.repo_key_fingerprints
    assert outcome.results['tuning']['scylla_repo_keys'] == fingerprint
  (vm,) = _Done(runs, 'gcp_local_ssd').servers
  assert any('--recv-keys' in call for call in vm.Calls('gpg'))


def test_a_pinned_release_is_pinned_for_apt(runs):
  (vm,) = _Done(runs, 'gcp_local_ssd').servers
  assert 'Pin: version 2026.3.1-*' in vm.ReadFile(scylla.APT_PREFERENCES)
  assert vm.ReadFile(scylla.APT_LIST) == LIST_TEXT
  assert ['update'] in vm.Calls('apt-get')


def test_scylla_setup_took_every_option_and_the_config_is_in_place(runs):
  (vm,) = _Done(runs, 'gcp_local_ssd').servers
  (args,) = [a for a in vm.Calls('scylla_setup') if a != ['--help']]
  assert args[:3] == ['--no-raid-setup', '--nic', vm.Calls('perftune.py')[0][3]]
  assert args[-2:] == ['--io-setup', '1']
  yaml = vm.ReadFile(scylla.SCYLLA_YAML)
  assert f'listen_address: "{vm.internal_ip}"' in yaml
  assert vm.Owner(scylla.SCYLLA_YAML) == 'root:root'
  assert (
      vm.ReadFile(scylla.PACKAGED_YAML)
      == (scylla_shell.SCYLLA_SOURCE / 'conf' / 'scylla.yaml').read_text()
  )


def test_the_second_server_reuses_the_first_ones_io_properties(runs):
  first, second = _Done(runs, 'aws_network_disks').servers
  assert second.ReadFile(scylla.IO_PROPERTIES) == first.ReadFile(
      scylla.IO_PROPERTIES
  )
  setup = [a for a in second.Calls('scylla_setup') if a != ['--help']]
  assert setup[-1][-1] == '--no-io-setup'


def test_what_the_engine_reads_back_from_the_shell(runs):
  results = _Done(runs, 'gcp_local_ssd').results
  assert results['running'] is True
  assert results['running_after_stop'] is False
  assert [s.status + s.state for s in results['states']] == ['UN']
  assert (results['status'].running, results['status'].pending) == (2, 2)
  assert results['history']
  assert results['version'] == scylla_shell.Recorded('scylla --version').strip()
  # The real journalctl, with no journal in the machine.
  assert results['journal'] == '-- No entries --\n'
  tuning = results['tuning']
  assert tuning['scylla_data_fstype'] == 'xfs'
  assert tuning['scylla_shards'] == results['shards'] > 0


def test_tablets_are_read_with_cqlsh_on_the_nodes_address(runs):
  outcome = _Done(runs, 'aws_network_disks')
  assert outcome.results['tablets_status'].tablet_transitions == 0
  assert outcome.servers[0].Calls('cqlsh')[0][0] == (
      outcome.servers[0].internal_ip
  )


def test_the_servers_are_quieted_and_say_so(runs):
  """Masked with the real systemctl on this host's unit files (those the
  list names that exist here), read back for the samples."""
  outcome = _Done(runs, 'gcp_local_ssd')
  (vm,) = outcome.servers
  assert outcome.results['tuning']['scylla_masked_units'] == (
      quiet_units.Metadata(shell_vm.HostUnits(scylla_config.QuietUnits('GCP')))
  )
  assert 'set_multiqueue = false' in vm.ReadFile(
      scylla_config.GCE_INSTANCE_CONFIGS
  )


def test_swapon_is_found_on_debians_ssh_path(runs):
  """swapon is in /usr/sbin, not on the PATH of a Debian image's ssh
  commands: the swap read-back failed on every Debian server."""
  (vm,) = _Done(runs, 'gcp_local_ssd').servers
  swaps = [r for r in vm.runs if r.command == scylla.SwapCommand()]
  assert swaps and all(r.exit_code == 0 for r in swaps), swaps


def test_the_yum_install_runs_its_commands(runs):
  (vm,) = _Done(runs, 'yum').servers
  assert vm.Calls('yum')[0] == ['install', '-y', 'epel-release']
  assert vm.ReadFile(scylla.YUM_REPO) == REPO_TEXT
  assert vm.installed[-1] == 'scylla-2026.3.1'


def test_the_next_releases_scylla_setup_needs_the_perf_collector_unit(runs):
  """scylla_setup from 2026.4 looks scylla-perf-collector.service up even
  to stop and disable it (--no-perf-collector-setup), and fails when the
  unit is missing: an image without recommended packages lacks it. The
  engine installs its package first; the collector ends disabled."""
  (vm,) = _Done(runs, 'next_release').servers
  assert scylla_config.PERF_COLLECTOR_PACKAGE in vm.installed
  (setup,) = [a for a in vm.Calls('scylla_setup') if a != ['--help']]
  assert '--no-perf-collector-setup' in setup
  unit = scylla_config.PERF_COLLECTOR_UNIT
  calls = [call for call in vm.Calls('systemctl') if unit in call]
  assert [c[0] for c in calls if c[0] != 'cat'] == ['stop', 'disable']
  assert unit not in vm.ActiveUnits()


def test_every_command_builder_ran_in_a_real_shell(runs):
  """Each builder of BUILDER_MODULES built a command that ran in a shell of
  a scenario (or is part of one that did, as ShowKeysCommand is)."""
  ran = [
      run.command
      for outcome in runs.outcomes.values()
      for vm in outcome.servers
      for run in vm.runs
  ]
  never = sorted(
      name
      for name, commands in runs.built.items()
      if not any(c and c in command for c in commands for command in ran)
  )
  assert len(runs.built) > 25
  assert never == []


def test_a_stand_in_refuses_what_scylla_setup_refuses(tmp_path):
  """The setup script stand-ins take options as the release's argparse:
  an unknown option exits 2 as argparse does, naming it."""
  vm = scylla_shell.ScyllaServer(
      tmp_path, 'server-0', modules={}, help_release='branch-2026.3'
  )
  vm.InstallPackages('scylla')
  with pytest.raises(fake_vm.RemoteCommandError, match='exit code 2') as e:
    vm.RemoteCommand(
        scylla.ScyllaSetupCommand(['--no-raid-setup', '--no-such-option'])
    )
  assert 'unrecognized arguments: --no-such-option' in str(e.value)
  out, _ = vm.RemoteCommand(
      raid.ScriptHelpCommand('scylla_setup') + ' | head -n 1', timeout=60
  )
  assert out.startswith('usage: scylla_setup')
  vm.Close()


def test_scylla_setup_of_2026_4_fails_without_the_perf_collector_unit(
    tmp_path,
):
  """The stand-in runs ScyllaDB's own systemd_unit: without the unit,
  scylla_setup ends with SystemdException, as the real one does."""
  vm = scylla_shell.ScyllaServer(
      tmp_path,
      'server-0',
      modules={},
      help_release='master-f4a4091ca2',
      install_recommends=False,
  )
  vm.InstallPackages('scylla')
  with pytest.raises(fake_vm.RemoteCommandError) as e:
    vm.RemoteCommand(
        scylla.ScyllaSetupCommand(
            ['--no-raid-setup', '--nic', 'lo', '--no-perf-collector-setup']
        )
    )
  assert (
      'SystemdException: unit scylla-perf-collector.service is not found'
      in (str(e.value))
  )
  vm.Close()
