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

"""Throwaway OpenPGP keys, and the local mirror serving them, for tests.

ScyllaDB's signing keys cannot be had on these machines, so tests of the
key import make their own with the real gpg. The mirror is the real
perfkit_plugins.local.mirror_server, started as host_machines.StartMirror
starts it (on a loopback socket bound here and handed over by file
descriptor), so the key lookups are the ones the machines make.
"""

import contextlib
import http.client
import socket
import subprocess
import time

from perfkit_plugins.local import mirror_server

# How long a mirror may take to answer its first request.
_START_S = 30


def Gpg(home, *args, stdin=b''):
  """Runs gpg in the GnuPG home `home`; returns its stdout (bytes)."""
  return subprocess.run(
      ['gpg', '--homedir', str(home), '--batch', *args],
      input=stdin,
      capture_output=True,
      check=True,
      timeout=60,
  ).stdout


def PrimaryFingerprint(listing):
  """The fingerprint of the first primary key in a `--with-colons` listing."""
  lines = listing.splitlines()
  for previous, line in zip(lines, lines[1:]):
    if previous.startswith('pub:') and line.startswith('fpr:'):
      return line.split(':')[9]
  raise ValueError(f'no primary key in:\n{listing}')


def MakeKeys(home, names):
  """New ed25519 signing keys, one per name, valid for a day.

  Args:
    home: an empty directory (mode 0700) to make them in.
    names: short names, each made the key's user id.

  Returns:
    {fingerprint: ASCII-armored public key}, in the order of `names`.
  """
  keys = {}
  try:
    for name in names:
      Gpg(
          home,
          '--passphrase',
          '',
          '--quick-gen-key',
          f'perfkit-plugins test key {name} <{name}@example.invalid>',
          'ed25519',
          'sign',
          '1d',
      )
      listing = Gpg(
          home, '--with-colons', '--list-keys', f'<{name}@example.invalid>'
      ).decode()
      fingerprint = PrimaryFingerprint(listing)
      keys[fingerprint] = Gpg(home, '--export', '--armor', fingerprint).decode()
  finally:
    EndDaemons(home)
  return keys


def EndDaemons(home):
  """Ends the agent and dirmngr gpg started for the GnuPG home `home`."""
  subprocess.run(
      ['gpgconf', '--homedir', str(home), '--kill', 'all'],
      capture_output=True,
      check=False,
      timeout=60,
  )


@contextlib.contextmanager
def ServedMirror(directory):
  """Serves `directory` with the mirror's server on 127.0.0.1.

  Yields:
    The mirror's base URL, http://127.0.0.1:PORT (no trailing slash).
  """
  with socket.socket() as sock:
    sock.bind(('127.0.0.1', 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = mirror_server.Start(sock, directory)
  try:
    deadline = time.monotonic() + _START_S
    while not _Answers(port):
      if server.poll() is not None or time.monotonic() > deadline:
        raise RuntimeError(f'the mirror on port {port} does not answer')
      time.sleep(0.05)
    yield f'http://127.0.0.1:{port}'
  finally:
    server.terminate()
    server.wait(timeout=30)


def _Answers(port):
  connection = http.client.HTTPConnection('127.0.0.1', port, timeout=1)
  try:
    connection.request('HEAD', '/')
    connection.getresponse()
    return True
  except OSError:
    return False
  finally:
    connection.close()
