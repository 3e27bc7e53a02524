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

"""Which apt signing keys an install imports and requires, and from where."""

import pytest

from perfkit_plugins.core.software import releases
from perfkit_plugins.core.software import scylla_config

CURRENT = (
    'D0A112E067426AB2',
    '491C93B9DE7496A7',
    'A43E06657BAC99E3',
    '6C6ECC84F42AF147BD2A65AEC503C686B007F39E',
)


@pytest.mark.parametrize(
    'release, required',
    [
        ('6.0.4', '491C93B9DE7496A7'),
        ('6.1', '491C93B9DE7496A7'),
        ('6.2.3', 'A43E06657BAC99E3'),
        ('2025.1', 'A43E06657BAC99E3'),
        ('2025.4.10', 'A43E06657BAC99E3'),
        ('2026.1.11', '6C6ECC84F42AF147BD2A65AEC503C686B007F39E'),
        ('2026.3', '6C6ECC84F42AF147BD2A65AEC503C686B007F39E'),
    ],
)
def test_every_release_imports_every_current_key_and_requires_its_docs_key(
    release, required
):
  keys = scylla_config.SigningKeys(release)
  assert keys.imported == CURRENT
  assert keys.required == (required,)


def test_every_served_release_has_its_docs_key_among_the_current_ones():
  for series in releases.SCYLLA_SERIES:
    if series in releases.SCYLLA_UNSERVED:
      continue
    for key in scylla_config.SigningKeys(series).required:
      assert key in CURRENT, series


def test_a_mirrors_fingerprints_replace_scyllas_keys():
  fingerprint = '0123456789abcdef0123456789abcdef01234567'
  keys = scylla_config.SigningKeys('2026.3', (fingerprint,))
  assert keys.imported == keys.required == (fingerprint.upper(),)


def test_a_series_without_a_known_key_is_refused():
  with pytest.raises(ValueError, match='no signing key known for ScyllaDB'):
    scylla_config.SigningKeys('2027.1')


@pytest.mark.parametrize(
    'server, gpg_server, lookup',
    [
        # The default: HKP as ScyllaDB's docs give it, then HTTPS (port 80
        # may be what the network blocks).
        (
            'hkp://keyserver.ubuntu.com:80',
            'hkp://keyserver.ubuntu.com:80',
            'https://keyserver.ubuntu.com/pks/lookup',
        ),
        ('hkp://10.0.0.1:8080', None, 'http://10.0.0.1:8080/pks/lookup'),
        ('hkp://keys.example', None, 'http://keys.example:11371/pks/lookup'),
        ('hkps://keys.example', None, 'https://keys.example/pks/lookup'),
        ('hkps://keys.example:8443', None, 'https://keys.example:8443/pks/'),
        (
            'http://keys.example',
            'hkp://keys.example:80',
            'http://keys.example/',
        ),
        ('http://[::1]:8080', 'hkp://[::1]:8080', 'http://[::1]:8080/pks/'),
        ('https://keys.example', 'hkps://keys.example:443', 'https://keys.'),
    ],
)
def test_a_key_server_is_asked_over_hkp_then_its_lookup_over_http(
    server, gpg_server, lookup
):
  assert scylla_config.GpgKeyServer(server) == (gpg_server or server)
  url = scylla_config.KeyLookupUrl(server, 'ABCD')
  assert url.startswith(lookup)
  assert url.endswith('/pks/lookup?op=get&options=mr&search=0xABCD')


@pytest.mark.parametrize(
    'server',
    [
        'keyserver.ubuntu.com',
        'hkp://',
        'hkp://keys.example/',
        'hkp://keys.example:80/pks',
        'hkp://keys.example:0',
        'hkp://keys.example:65536',
        'hkp://user@keys.example',
        'hkp://keys.example?x=1',
        'hkp://-keys.example',
        'hkp://[::g]',
        "hkp://keys.example';reboot",
        'ldap://keys.example',
        'HKP://keys.example',
    ],
)
def test_a_key_server_is_a_scheme_a_host_and_a_port_only(server):
  with pytest.raises(ValueError, match='is not a key server URL'):
    scylla_config.ParseKeyServer(server)


def test_a_fingerprint_is_forty_hex_digits():
  assert scylla_config.IsFingerprint('6C6ECC84F42AF147BD2A65AEC503C686B007F39E')
  assert scylla_config.IsFingerprint('6c6ecc84f42af147bd2a65aec503c686b007f39e')
  assert not scylla_config.IsFingerprint('C503C686B007F39E')
  assert not scylla_config.IsFingerprint(
      '6C6ECC84F42AF147BD2A65AEC503C686B007F39'
  )
  assert not scylla_config.IsFingerprint('G' * 40)
