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

"""Setup arguments from real --help texts; repositories; scylla.yaml."""

import pathlib

import jinja2
import pytest
import yaml

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.engines import scylla as scylla_engine

RELEASES = (
    '6.2.3',
    '2025.1.14',
    '2025.4.10',
    '2026.1.11',
    '2026.2.5',
    'branch-2026.3',
)


def _Flags(testdata, script, release):
  return scylla_config.ParseHelpFlags(
      testdata('scylla_setup', f'{script}-help-{release}.txt')
  )


@pytest.mark.parametrize('release', RELEASES)
@pytest.mark.parametrize('run_iotune', [True, False])
def test_setup_args_are_listed_by_the_release(testdata, release, run_iotune):
  flags = _Flags(testdata, 'scylla_setup', release)
  args = scylla_config.ScyllaSetupArgs(flags, 'ens4', run_iotune)
  assert {a for a in args if a.startswith('--')} <= flags
  assert args[:4] == [
      '--no-raid-setup',
      '--nic',
      'ens4',
      '--setup-nic-and-disks',
  ]
  assert ('--no-io-setup' in args) != run_iotune


def test_help_texts_differ_between_releases(testdata):
  assert '--no-node-exporter' in _Flags(testdata, 'scylla_setup', '2026.2.5')
  assert '--no-node-exporter' not in _Flags(
      testdata, 'scylla_setup', 'branch-2026.3'
  )
  assert '--blk-discard' not in _Flags(
      testdata, 'scylla_raid_setup', '2025.1.14'
  )


def test_missing_required_option_is_an_error():
  with pytest.raises(ValueError, match='--setup-nic-and-disks'):
    scylla_config.ScyllaSetupArgs(
        frozenset({'--no-raid-setup', '--nic'}), 'eth0', True
    )


@pytest.mark.parametrize('release', RELEASES)
def test_raid_args(testdata, release):
  flags = _Flags(testdata, 'scylla_raid_setup', release)
  args = scylla_config.RaidSetupArgs(flags, ['/dev/nvme1n1', '/dev/nvme2n1'])
  assert args[:2] == ['--disks', '/dev/nvme1n1,/dev/nvme2n1']
  assert {a for a in args if a.startswith('--')} <= flags
  assert '--raid-level' in args and '--online-discard' in args
  with pytest.raises(ValueError):
    scylla_config.RaidSetupArgs(flags, [])


def test_repositories():
  assert scylla_config.RepoUrl('2026.3', '', 'apt') == (
      'https://downloads.scylladb.com/deb/debian/scylla-2026.3.list'
  )
  assert scylla_config.RepoUrl('2026.3.1', '', 'yum') == (
      'https://downloads.scylladb.com/rpm/centos/scylla-2026.3.repo'
  )
  assert (
      scylla_config.RepoUrl('2026.3.1', 'http://m/{version}.list', 'apt')
      == 'http://m/2026.3.list'
  )
  assert scylla_config.AptPreferences('2026.3') is None
  assert 'Pin: version 2026.3.1-*' in scylla_config.AptPreferences('2026.3.1')


@pytest.mark.parametrize(
    'release', ['2026', '2026.x', '2026.3;id', '', '1.2.3.4']
)
def test_malformed_release(release):
  with pytest.raises(ValueError):
    scylla_config.RepoUrl(release, '', 'apt')


def test_tablets_setting_by_version():
  assert scylla_config.TabletsSetting((6, 2, 3), False) == (
      'enable_tablets',
      False,
  )
  assert scylla_config.TabletsSetting((2025, 1, 1), True) == (
      'enable_tablets',
      True,
  )
  assert scylla_config.TabletsSetting((2025, 1, 2), False) == (
      'tablets_mode_for_new_keyspaces',
      'disabled',
  )
  assert scylla_config.TabletsSetting((2026, 3), True) == (
      'tablets_mode_for_new_keyspaces',
      'enabled',
  )


def test_yaml_extra():
  assert scylla_config.ParseYamlExtra('') == {}
  assert scylla_config.ParseYamlExtra(
      '{compaction_throughput_mb_per_sec: 0, commitlog_sync: batch}'
  ) == {'compaction_throughput_mb_per_sec': 0, 'commitlog_sync': 'batch'}
  for bad in (
      '[1, 2]',
      'cluster_name: x',
      '{"Bad Key": 1}',
      'a: [b',
      '{a: 2024-01-01}',
  ):
    with pytest.raises(ValueError):
      scylla_config.ParseYamlExtra(bad)
  assert scylla_config.ParseYamlExtra("{a: '2024-01-01'}") == {
      'a': '2024-01-01'
  }


def test_default_route_nic(testdata):
  assert (
      scylla_config.ParseDefaultRouteNic(
          testdata('node', 'ip-route-default.txt')
      )
      == 'eth0'
  )
  with pytest.raises(ValueError):
    scylla_config.ParseDefaultRouteNic('')


def _Render(context):
  template = pathlib.Path(scylla_engine.TEMPLATE_DIR) / 'scylla.yaml.j2'
  return (
      jinja2.Environment(undefined=jinja2.StrictUndefined)
      .from_string(template.read_text())
      .render(context)
  )


@pytest.mark.parametrize(
    'packaged,version',
    [
        ('scylla.yaml-branch-2026.3', (2026, 3, 0)),
        ('scylla.yaml-2025.1.14', (2025, 1, 14)),
    ],
)
def test_scylla_yaml_rendering(testdata, packaged, version):
  packaged_text = testdata('scylla_setup', packaged)
  context = scylla_config.ScyllaYamlContext(
      packaged_text,
      'perf cluster "1"',
      ['10.0.0.2', '10.0.0.3'],
      '10.0.0.4',
      scylla_config.TabletsSetting(version, False),
      {
          'compaction_throughput_mb_per_sec': 0,
          'commitlog_sync': 'batch',
          'note': "it's $(not) a command",
      },
  )
  rendered = yaml.safe_load(_Render(context))
  assert rendered['cluster_name'] == 'perf cluster "1"'
  assert rendered['seed_provider'] == [{
      'class_name': 'org.apache.cassandra.locator.SimpleSeedProvider',
      'parameters': [{'seeds': '10.0.0.2,10.0.0.3'}],
  }]
  assert rendered['listen_address'] == rendered['rpc_address'] == '10.0.0.4'
  assert rendered['endpoint_snitch'] == 'GossipingPropertyFileSnitch'
  assert rendered['tablets_mode_for_new_keyspaces'] == 'disabled'
  assert rendered['commitlog_sync'] == 'batch'
  assert rendered['note'] == "it's $(not) a command"
  # Every other packaged setting is kept as shipped.
  for key, value in yaml.safe_load(packaged_text).items():
    if key not in scylla_config.MANAGED_KEYS and key != 'commitlog_sync':
      assert rendered[key] == value, key
  assert 'enable_tablets' not in rendered


def test_settings_reject_bad_scylla_inputs():
  for field, value, flag in (
      ('release', '2026.x', '--scylla_release'),
      ('yaml_extra', 'cluster_name: other', '--scylla_yaml_extra'),
      ('io_setup', 'sometimes', '--scylla_io_setup'),
      ('nic', 'eth0; reboot', '--scylla_nic'),
  ):
    with pytest.raises(settings.SettingsError, match=flag):
      settings.Validate(settings.Settings(**{field: value}))
  with pytest.raises(settings.SettingsError, match='--scylla_tablets'):
    settings.Validate(
        settings.Settings(
            release='4.6', tablets=True, allow_unknown_releases=True
        )
    )
  settings.Validate(settings.Settings())


@pytest.mark.parametrize('release', RELEASES)
def test_swap_setup_can_be_left_to_the_machines(testdata, release):
  flags = _Flags(testdata, 'scylla_setup', release)
  assert '--no-swap-setup' not in scylla_config.ScyllaSetupArgs(
      flags, 'eth0', True
  )
  assert '--no-swap-setup' in scylla_config.ScyllaSetupArgs(
      flags, 'eth0', True, swap_setup=False
  )
