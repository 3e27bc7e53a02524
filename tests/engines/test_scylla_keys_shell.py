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

"""The ScyllaDB apt signing-key command, run in a real shell with real gpg.

Keys are throwaway ones made here with gpg (ScyllaDB's own cannot be had
on these machines: testdata/scylla_setup/README.md), served by the local
cluster's real mirror server. The whole command runs as built, with
`sudo` a stand-in that runs its arguments, in a mount namespace where
/etc/apt/keyrings is a directory of the test's: nothing on this host is
written.
"""

import contextlib
import pathlib
import shutil
import subprocess
import tempfile

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.engines import scylla
from perfkit_plugins.testing import key_mirror

TESTDATA = pathlib.Path(__file__).parents[1] / 'testdata' / 'scylla_setup'
# The recorded listing's RSA key (testdata/scylla_setup/README.md), whose
# encryption subkey's fingerprint follows its `sub` record.
RECORDED_FPR = '07E918998DD8D703CB5E69736255F44D2489D24C'
RECORDED_SUB_FPR = '27343CAE6ADA7C2AD14719979AC2408BF1229C7C'
SCYLLA_2026_ID = 'c503c686b007f39e'
SCYLLA_2026_FPR = '6C6ECC84F42AF147BD2A65AEC503C686B007F39E'
MIRROR_REPO = 'http://127.0.0.1/scylla-{version}.list'
STAND_IN_SUDO = '#!/bin/sh\nexec "$@"\n'

needs_gpg = pytest.mark.skipif(
    shutil.which('gpg') is None, reason='needs GnuPG (gpg) for real keyrings'
)


def _NamespacesWork():
  if not pathlib.Path('/etc/apt/keyrings').is_dir():
    return False
  probe = subprocess.run(
      ['unshare', '--user', '--map-root-user', '--mount', 'true'],
      capture_output=True,
      check=False,
  )
  return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(
    shutil.which('unshare') is None or not _NamespacesWork(),
    reason=(
        'the whole command writes /etc/apt/keyrings: it runs in a mount'
        ' namespace (unshare --user --mount), unavailable here'
    ),
)


@pytest.fixture(name='keys', scope='module')
def _Keys(tmp_path_factory):
  """Two throwaway keys: {fingerprint: armored public key}."""
  home = tmp_path_factory.mktemp('gnupg')
  home.chmod(0o700)
  return key_mirror.MakeKeys(home, ('one', 'two'))


def _Keyring(directory, armored):
  """A binary keyring of one armored key (what apt reads)."""
  directory.mkdir(parents=True, exist_ok=True)
  keyring = directory / 'keyring.gpg'
  keyring.write_bytes(
      subprocess.run(
          ['gpg', '--dearmor'],
          input=armored.encode(),
          capture_output=True,
          check=True,
          timeout=60,
      ).stdout
  )
  return keyring


def _CheckPart(settings):
  """The check that ends the key command for `settings`."""
  command = scylla.AptKeyCommand(settings)
  keys = scylla_config.SigningKeys(
      settings.release, settings.repo_key_fingerprints
  )
  check = scylla.KeyringCheckCommand(keys.required)
  assert command.endswith(' && ' + check)
  return check


def _Bin(directory, **programs):
  """A directory of stand-in programs: name=script text."""
  directory.mkdir(parents=True, exist_ok=True)
  for name, text in programs.items():
    (directory / name).write_text(text)
    (directory / name).chmod(0o755)
  return directory


def _Sh(command, tmp_path, bin_dir=None):
  """Runs `command` in sh -c, gpg's default home in `tmp_path`."""
  home = tmp_path / 'home'
  home.mkdir(mode=0o700, exist_ok=True)
  path = '/usr/bin:/bin' if bin_dir is None else f'{bin_dir}:/usr/bin:/bin'
  return subprocess.run(
      ['sh', '-c', command],
      capture_output=True,
      text=True,
      check=False,
      env={'PATH': path, 'HOME': str(home), 'GNUPGHOME': str(home)},
      timeout=60,
  )


@needs_gpg
def test_fingerprint_check_bre_plus_finds_the_key_in_a_real_keyring(
    keys, monkeypatch, tmp_path
):
  """Finding: `grep '^fpr:+FPR:'` is a basic regex, where `+` is a plain
  character, and gpg writes `fpr:::::::::FPR:`: the check failed with the
  right key in the keyring. Here the 2026 key's fingerprint stands for a
  throwaway key's, whose real keyring the check reads."""
  right, wrong = keys
  monkeypatch.setitem(scylla_config.KEY_FINGERPRINTS, SCYLLA_2026_ID, right)
  check = _CheckPart(settings_lib.Settings(release='2026.3'))
  holding = _Keyring(tmp_path / 'right', keys[right])
  result = _Sh(check.replace(scylla.APT_KEYRING, str(holding)), tmp_path)
  assert result.returncode == 0, result.stderr
  lacking = _Keyring(tmp_path / 'wrong', keys[wrong])
  result = _Sh(check.replace(scylla.APT_KEYRING, str(lacking)), tmp_path)
  assert result.returncode == 1
  assert f'lacks the signing key {right}' in result.stderr


@needs_gpg
def test_a_64_bit_key_id_is_matched_as_the_primary_keys_id_field(
    keys, tmp_path
):
  """Releases whose key's fingerprint is not established (6.2, 2025.x)."""
  right, wrong = keys
  keyring = _Keyring(tmp_path, keys[right])
  for key, status in ((right[-16:], 0), (wrong[-16:], 1), (right[-8:], 1)):
    check = scylla.KeyringCheckCommand((key,))
    result = _Sh(check.replace(scylla.APT_KEYRING, str(keyring)), tmp_path)
    assert result.returncode == status, key


def _RecordedListing(**replacements):
  listing = (TESTDATA / 'keyring-two-keys.colons').read_text()
  for old, new in replacements.items():
    listing = listing.replace(old, new)
  return listing


@pytest.mark.parametrize(
    'listing, status',
    [
        # The RSA key's records carry ScyllaDB's 2026 fingerprint and id.
        (
            _RecordedListing(**{
                RECORDED_FPR: SCYLLA_2026_FPR,
                RECORDED_FPR[-16:]: SCYLLA_2026_FPR[-16:],
            }),
            0,
        ),
        # As recorded: two other keys.
        (_RecordedListing(), 1),
        # ScyllaDB's fingerprint on a subkey only.
        (_RecordedListing(**{RECORDED_SUB_FPR: SCYLLA_2026_FPR}), 1),
    ],
)
def test_fingerprint_check_bre_plus_passes_on_the_recorded_listing(
    listing, status, tmp_path
):
  """The default release's check, gpg a stand-in printing gpg's real
  listing (testdata/scylla_setup/keyring-two-keys.colons)."""
  (tmp_path / 'listing').write_text(listing)
  bin_dir = _Bin(
      tmp_path / 'bin', gpg=f'#!/bin/sh\nexec cat {tmp_path / "listing"}\n'
  )
  check = _CheckPart(settings_lib.Settings())
  assert SCYLLA_2026_FPR in check
  result = _Sh(check, tmp_path, bin_dir)
  assert result.returncode == status, result.stderr


@contextlib.contextmanager
def _Machine():
  """A short temporary directory to stand in for the machine's state.

  gpg's sockets live in its home (`mktemp -d` under TMPDIR here), and a
  socket path may not pass 107 bytes: pytest's tmp_path can be longer.
  """
  with tempfile.TemporaryDirectory(prefix='pkbkey') as root:
    machine = pathlib.Path(root)
    (machine / 'keyrings').mkdir()
    (machine / 'tmp').mkdir()
    (machine / 'home').mkdir(mode=0o700)
    yield machine


def _RunOnMachine(command, machine, bin_dir):
  """Runs the whole command as the machine would, sudo a stand-in.

  In a mount namespace of its own where /etc/apt/keyrings is the
  machine's `keyrings` directory.
  """
  inner = (
      f'mount --bind {machine / "keyrings"} /etc/apt/keyrings'
      ' && exec sh -c "$1"'
  )
  return subprocess.run(
      [
          'unshare',
          '--user',
          '--map-root-user',
          '--mount',
          'sh',
          '-c',
          inner,
          'sh',
          command,
      ],
      capture_output=True,
      text=True,
      check=False,
      env={
          'PATH': f'{bin_dir}:/usr/bin:/bin:/usr/sbin:/sbin',
          'HOME': str(machine / 'home'),
          'GNUPGHOME': str(machine / 'home'),
          'TMPDIR': str(machine / 'tmp'),
      },
      timeout=300,
  )


def _KeyringFingerprints(machine):
  """Primary key fingerprints of the keyring the command wrote (none when
  it is empty, which gpg reports as an error)."""
  listing = subprocess.run(
      [
          'gpg',
          '--homedir',
          str(machine / 'home'),
          '--show-keys',
          '--with-colons',
          str(machine / 'keyrings' / 'scylladb.gpg'),
      ],
      capture_output=True,
      text=True,
      check=False,
      timeout=60,
  ).stdout
  lines = listing.splitlines()
  return [
      line.split(':')[9]
      for previous, line in zip(lines, lines[1:])
      if previous.startswith('pub:') and line.startswith('fpr:')
  ]


def _MirrorSettings(url, fingerprints, **changes):
  return settings_lib.Validate(
      settings_lib.Settings(
          repo_url=MIRROR_REPO,
          key_server=url.replace('http://', 'hkp://'),
          repo_key_fingerprints=tuple(fingerprints),
          **changes,
      )
  )


def _ServedKeys(directory, keys_by_name):
  """A mirror's folder with keys/<name>.asc holding the armored keys."""
  (directory / 'keys').mkdir(parents=True)
  for name, armored in keys_by_name.items():
    (directory / 'keys' / f'{name}.asc').write_text(armored)
  return directory


@needs_gpg
@needs_namespaces
def test_the_whole_command_imports_the_mirrors_key_over_hkp(keys, tmp_path):
  """gpg --recv-keys through dirmngr from the IP-literal mirror (curl, the
  fallback, fails)."""
  one, two = keys
  served = _ServedKeys(tmp_path / 'served', {one: keys[one]})
  bin_dir = _Bin(
      tmp_path / 'bin', sudo=STAND_IN_SUDO, curl='#!/bin/sh\nexit 7\n'
  )
  with key_mirror.ServedMirror(served) as url, _Machine() as machine:
    command = scylla.AptKeyCommand(_MirrorSettings(url, [one]))
    result = _RunOnMachine(command, machine, bin_dir)
    assert result.returncode == 0, result.stderr
    assert _KeyringFingerprints(machine) == [one]
    assert two not in result.stderr
    # The GnuPG home the command made is gone.
    assert not list((machine / 'tmp').iterdir())


@needs_gpg
@needs_namespaces
def test_the_whole_command_falls_back_to_the_mirrors_lookup_with_curl(
    keys, tmp_path
):
  """gpg --recv-keys failing (no dirmngr), curl fetches the HKP lookup."""
  one, _ = keys
  served = _ServedKeys(tmp_path / 'served', {one: keys[one]})
  no_dirmngr = (
      '#!/bin/sh\nfor a; do [ "$a" = --recv-keys ] && exit 2; done\n'
      'exec /usr/bin/gpg "$@"\n'
  )
  bin_dir = _Bin(
      tmp_path / 'bin',
      sudo=STAND_IN_SUDO,
      gpg=no_dirmngr,
      sleep='#!/bin/sh\nexit 0\n',
  )
  with key_mirror.ServedMirror(served) as url, _Machine() as machine:
    settings = _MirrorSettings(url, [one.lower()])
    result = _RunOnMachine(scylla.AptKeyCommand(settings), machine, bin_dir)
    assert result.returncode == 0, result.stderr
    assert _KeyringFingerprints(machine) == [one]


@needs_gpg
@needs_namespaces
def test_the_whole_command_fails_when_the_mirror_serves_another_key(
    keys, tmp_path
):
  """The mirror files key two under key one's fingerprint: gpg refuses it
  from the key server, curl's fallback imports it, and it never reaches
  the keyring, which lacks key one."""
  one, two = keys
  served = _ServedKeys(tmp_path / 'served', {one: keys[two]})
  with key_mirror.ServedMirror(served) as url, _Machine() as machine:
    command = scylla.AptKeyCommand(_MirrorSettings(url, [one]))
    result = _RunOnMachine(
        command,
        machine,
        _Bin(tmp_path / 'bin', sudo=STAND_IN_SUDO, sleep='#!/bin/sh\n'),
    )
    assert result.returncode == 1
    assert f'lacks the signing key {one}' in result.stderr
    assert _KeyringFingerprints(machine) == []


@needs_gpg
@needs_namespaces
def test_a_key_that_cannot_be_had_does_not_stop_the_others(keys, tmp_path):
  """An armored file on the mirror (--scylla_repo_key_url) that holds one
  of two keys: the keyring gets it; the command fails on the other."""
  one, two = keys
  served = tmp_path / 'served'
  served.mkdir()
  (served / 'keys.asc').write_text(keys[one])
  with key_mirror.ServedMirror(served) as url, _Machine() as machine:
    settings = settings_lib.Validate(
        settings_lib.Settings(
            repo_url=MIRROR_REPO,
            repo_key_url=f'{url}/keys.asc',
            repo_key_fingerprints=(two, one),
        )
    )
    result = _RunOnMachine(
        scylla.AptKeyCommand(settings),
        machine,
        _Bin(tmp_path / 'bin', sudo=STAND_IN_SUDO),
    )
    assert result.returncode == 1
    assert f'lacks the signing key {two}' in result.stderr
    assert _KeyringFingerprints(machine) == [one]
