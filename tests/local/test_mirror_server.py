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

"""The mirror's server as a key server: HKP lookups answered from keys/.

The server runs as the local cluster starts it; the keys are throwaway
ones made with the real gpg, which also fetches them (dirmngr speaking HKP
to an IP-literal server: no DNS is needed).
"""

import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

from perfkit_plugins.testing import key_mirror

needs_gpg = pytest.mark.skipif(
    shutil.which('gpg') is None, reason='needs GnuPG (gpg) to make keys'
)
pytestmark = needs_gpg


@pytest.fixture(name='keys', scope='module')
def _Keys(tmp_path_factory):
  home = tmp_path_factory.mktemp('gnupg')
  home.chmod(0o700)
  return key_mirror.MakeKeys(home, ('one', 'two'))


@pytest.fixture(name='mirror')
def _Mirror(keys, tmp_path):
  """A mirror holding key one under its own name, and a file."""
  served = tmp_path / 'served'
  (served / 'keys').mkdir(parents=True)
  one = next(iter(keys))
  (served / 'keys' / f'{one}.asc').write_text(keys[one])
  (served / 'file').write_text('payload')
  with key_mirror.ServedMirror(served) as url:
    yield url, served


def _Get(url, method='GET'):
  request = urllib.request.Request(url, method=method)
  try:
    with urllib.request.urlopen(request, timeout=10) as response:
      return response.status, response.headers, response.read()
  except urllib.error.HTTPError as e:
    return e.code, e.headers, b''


def _Lookup(url, search, op='get'):
  return _Get(f'{url}/pks/lookup?op={op}&options=mr&search={search}')


def test_a_lookup_by_fingerprint_or_key_id_answers_the_armored_key(
    keys, mirror
):
  url, _ = mirror
  one = next(iter(keys))
  for search in (one, one[-16:], one[-8:].lower()):
    status, headers, body = _Lookup(url, f'0x{search}')
    assert status == 200, search
    assert headers['Content-Type'] == 'application/pgp-keys'
    assert body.decode() == keys[one]
  status, headers, body = _Get(
      f'{url}/pks/lookup?op=get&options=mr&search=0x{one}', method='HEAD'
  )
  assert (status, int(headers['Content-Length']), body) == (
      200,
      len(keys[one]),
      b'',
  )


def test_other_keys_searches_and_operations_are_refused(keys, mirror):
  url, _ = mirror
  two = list(keys)[1]
  assert _Lookup(url, f'0x{two}')[0] == 404
  assert _Lookup(url, f'0x{two[-16:]}', op='index')[0] == 501
  for search in ('../file', '0x../../file', '0xZZZZZZZZ', 'one', '0x123'):
    assert _Lookup(url, search)[0] == 400, search


def test_files_are_served_as_before_and_folders_not_listed(mirror):
  url, _ = mirror
  assert _Get(f'{url}/file')[2] == b'payload'
  assert _Get(f'{url}/keys/')[0] == 404
  assert _Get(f'{url}/pks/')[0] == 404


def test_gpg_fetches_the_key_from_the_mirror_over_hkp(keys, mirror, tmp_path):
  """dirmngr reaches an IP-literal HKP server (no DNS on these hosts)."""
  url, _ = mirror
  one = next(iter(keys))
  home = tmp_path / 'client'
  home.mkdir(mode=0o700)
  server = url.replace('http://', 'hkp://')
  try:
    key_mirror.Gpg(home, '--keyserver', server, '--recv-keys', one)
    listing = key_mirror.Gpg(home, '--with-colons', '--list-keys').decode()
  finally:
    key_mirror.EndDaemons(home)
  assert key_mirror.PrimaryFingerprint(listing) == one


def test_gpg_refuses_a_key_filed_under_another_fingerprint(
    keys, mirror, tmp_path
):
  """The server trusts file names; gpg checks what it receives."""
  url, served = mirror
  one, two = keys
  (served / 'keys' / f'{two}.asc').write_text(keys[one])
  home = tmp_path / 'client'
  home.mkdir(mode=0o700)
  server = url.replace('http://', 'hkp://')
  try:
    with pytest.raises(subprocess.CalledProcessError) as raised:
      key_mirror.Gpg(home, '--keyserver', server, '--recv-keys', two)
    listing = subprocess.run(
        ['gpg', '--homedir', str(home), '--with-colons', '--list-keys'],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
  finally:
    key_mirror.EndDaemons(home)
  assert b'rejected by import screener' in raised.value.stderr
  assert one not in listing and two not in listing
