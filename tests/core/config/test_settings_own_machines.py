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

"""Settings of own machines (static VMs) and of download sources."""

import pytest

from perfkit_plugins.core.config import settings as settings_lib


def _Validate(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def test_static_servers_use_the_declared_data_directory():
  s = _Validate(
      engine='cassandra',
      servers_static=True,
      data_disk='declared',
      data_dir='/mnt/data',
  )
  assert s.data_dir == '/mnt/data'


@pytest.mark.parametrize('data_disk', ['local', 'network'])
def test_static_servers_are_never_formatted(data_disk):
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_data_disk: .*never builds'
  ):
    _Validate(engine='cassandra', servers_static=True, data_disk=data_disk)


def test_declared_needs_static_servers():
  with pytest.raises(settings_lib.SettingsError, match='needs the servers'):
    _Validate(data_disk='declared')


@pytest.mark.parametrize(
    'data_dir', ['relative/dir', '/mnt/../etc', '/mnt/da ta', '/mnt/x;y']
)
def test_declared_directory_must_be_a_plain_absolute_path(data_dir):
  with pytest.raises(settings_lib.SettingsError, match='--scylla_data_disk'):
    _Validate(
        engine='cassandra',
        servers_static=True,
        data_disk='declared',
        data_dir=data_dir,
    )


def test_scylla_needs_its_own_data_directory():
  with pytest.raises(settings_lib.SettingsError, match='/var/lib/scylla'):
    _Validate(servers_static=True, data_disk='declared', data_dir='/mnt/data')
  _Validate(
      servers_static=True, data_disk='declared', data_dir='/var/lib/scylla'
  )


@pytest.mark.parametrize(
    'field,value,problem',
    [
        ('cassandra_url', 'http://m/{series}.tgz', 'names series'),
        ('stress_url', 'mirror/cs.tgz', 'not an http'),
        ('repo_url', 'http://m/{version', 'not a URL template'),
        ('repo_key_url', 'key.asc', 'not an http'),
        ('cassandra_checksum', 'sha1:' + '0' * 40, 'sha256:<64 hex digits>'),
        ('stress_checksum', 'sha512:' + '0' * 64, 'sha512:<128 hex digits>'),
    ],
)
def test_bad_sources_name_their_flag(field, value, problem):
  with pytest.raises(settings_lib.SettingsError) as raised:
    _Validate(**{field: value})
  assert str(raised.value).startswith(f'--scylla_{field}: ')
  assert problem in str(raised.value)


def test_mirror_sources_validate():
  s = _Validate(
      stress_url='file:///srv/cs-{version}.tgz',
      repo_url='http://mirror/scylla-{version}.list',
      repo_key_url='http://mirror/scylla.asc',
  )
  assert s.repo_key_url == 'http://mirror/scylla.asc'
  s = _Validate(
      engine='cassandra',
      cassandra_url='https://mirror/c/{version}/c.tgz',
      cassandra_checksum='sha512:' + 'ab' * 64,
      stress_url='file:///srv/cs-{version}.tgz',
  )
  assert s.cassandra_checksum == 'sha512:' + 'ab' * 64


MIRROR_LIST = 'http://mirror/scylla-{version}.list'
FINGERPRINT = '0123456789abcdef0123456789ABCDEF01234567'


@pytest.mark.parametrize(
    'changes, flag, problem',
    [
        (
            {'key_server': 'keyserver.ubuntu.com'},
            'key_server',
            (
                "'keyserver.ubuntu.com' is not a key server URL: hkp://,"
                ' hkps://, http:// or https://, a host and an optional port,'
                ' nothing else (e.g. hkp://keyserver.ubuntu.com:80)'
            ),
        ),
        ({'key_server': 'hkp://k.example/pks'}, 'key_server', 'nothing else'),
        ({'key_server': 'hkp://k.example:0'}, 'key_server', 'nothing else'),
        ({'key_server': 'hkp://[::g]:80'}, 'key_server', 'nothing else'),
        ({'key_server': 'ldap://k.example'}, 'key_server', 'nothing else'),
        (
            {
                'key_server': 'hkp://10.0.0.1:8080',
                'repo_key_url': 'http://mirror/key.asc',
            },
            'key_server',
            (
                'hkp://10.0.0.1:8080 would not be asked: the keys come from'
                ' --scylla_repo_key_url; give one of the two'
            ),
        ),
        (
            {
                'repo_url': MIRROR_LIST,
                'repo_key_fingerprints': ('c503c686b007f39e',),
            },
            'repo_key_fingerprints',
            (
                "'c503c686b007f39e' is not a full key fingerprint (40 hex"
                ' digits, as gpg --with-colons prints it in its fpr records)'
            ),
        ),
        (
            {'repo_url': MIRROR_LIST, 'repo_key_fingerprints': ('Z' * 40,)},
            'repo_key_fingerprints',
            'is not a full key fingerprint',
        ),
        (
            {'repo_key_fingerprints': (FINGERPRINT,)},
            'repo_key_fingerprints',
            (
                "names a mirror's own signing keys: give the mirror"
                " (--scylla_repo_url) too; ScyllaDB's repositories are checked"
                " against ScyllaDB's keys"
            ),
        ),
        (
            {'engine': 'cassandra', 'key_server': 'hkp://10.0.0.1:8080'},
            'key_server',
            'is read only with --scylla_engine=scylla',
        ),
    ],
)
def test_bad_key_sources_name_their_flag(changes, flag, problem):
  with pytest.raises(settings_lib.SettingsError) as raised:
    _Validate(**changes)
  assert str(raised.value).startswith(f'--scylla_{flag}: ')
  assert problem in str(raised.value)


@pytest.mark.parametrize(
    'key_server',
    [
        'hkp://keyserver.ubuntu.com:80',
        'hkps://keys.openpgp.org',
        'hkp://10.0.0.1:8080',
        'http://mirror.internal:8080',
        'https://[2001:db8::1]',
    ],
)
def test_a_mirror_with_its_own_keys_validates(key_server):
  s = _Validate(
      repo_url=MIRROR_LIST,
      key_server=key_server,
      repo_key_fingerprints=(FINGERPRINT, 'F' * 40),
  )
  assert s.key_server == key_server
  assert _Validate(
      repo_url=MIRROR_LIST,
      repo_key_url='http://mirror/keys.asc',
      repo_key_fingerprints=(FINGERPRINT,),
  ).repo_key_fingerprints == (FINGERPRINT,)


def test_raid_devices_build_the_data_volume_of_static_scylla_servers():
  s = _Validate(
      servers_static=True,
      data_disk='declared',
      data_dir='/var/lib/scylla',
      raid_devices=('/dev/nvme0n1', '/dev/nvme1n1'),
  )
  assert s.raid_devices == ('/dev/nvme0n1', '/dev/nvme1n1')


@pytest.mark.parametrize(
    'changes,problem',
    [
        ({'data_disk': 'local'}, 'static ScyllaDB servers'),
        (
            {
                'engine': 'cassandra',
                'servers_static': True,
                'data_disk': 'declared',
                'data_dir': '/mnt/data',
            },
            'static ScyllaDB servers',
        ),
        (
            {'raid_devices': ('nvme0n1',), 'servers_static': True},
            'not an absolute device path',
        ),
        (
            {'raid_devices': ('/dev/sdb;reboot',), 'servers_static': True},
            'not an absolute device path',
        ),
        (
            {'raid_devices': ('/dev/sdb', '/dev/sdb'), 'servers_static': True},
            'names a device twice',
        ),
    ],
)
def test_raid_devices_refused(changes, problem):
  values = {
      'raid_devices': ('/dev/nvme0n1',),
      'data_disk': 'declared',
      'data_dir': '/var/lib/scylla',
  } | changes
  if not values.get('servers_static'):
    values['data_disk'] = changes.get('data_disk', 'local')
  with pytest.raises(
      settings_lib.SettingsError, match=f'--scylla_raid_devices: .*{problem}'
  ):
    _Validate(**values)
