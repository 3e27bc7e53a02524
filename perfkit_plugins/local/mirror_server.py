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

"""The mirror's HTTP server, on a listening socket it is handed.

    python -I -m perfkit_plugins.local.mirror_server FD DIRECTORY [CLIENT...]

Serves the files under DIRECTORY (read-only, GET and HEAD) on the socket
open as file descriptor FD, which the parent bound and put in the
listening state before this process started (host_machines.HostMachines
.StartMirror): the port is never free between being chosen and being
served, so no other process can take it. Started with `-I` from `/`,
Python puts neither the caller's directory nor its environment's paths on
the import path.

Only the CLIENT addresses (the machines') are served, and the server's own
address when it is a loopback one (a mirror for this host's tests): a
connection from any other, such as another user of this host, is closed
at once, unread. No client can starve the others: a connection has
REQUEST_TIMEOUT_S for each read and write, and at MAX_CONNECTIONS the
oldest connection that has not sent a whole request yet is closed for the
new one.

It is also the key server of a mirror that signs packages with its own
keys (--scylla_key_server=hkp://HOST:PORT with
--scylla_repo_key_fingerprints): an HKP lookup (`GET /pks/lookup?op=get
&options=mr&search=0x<KEYID or FINGERPRINT>`, what `gpg --recv-keys` asks
and the engine's curl fallback fetches) answers the ASCII-armored keys
under DIRECTORY/keys/ named `<FINGERPRINT>.asc` (40 hex digits, upper
case) whose fingerprint ends with the searched id, 404 when none does;
other operations (op=index) answer 501. The search only selects among
those file names, never names a path; gpg on the machines checks each
key's fingerprint.
"""

import contextlib
import functools
import http
import http.server
import io
import ipaddress
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.parse

# HKP (draft-gallagher-openpgp-hkp): the lookup path, and a search for a
# key id or fingerprint (0x and 8, 16 or 40 hex digits).
LOOKUP_PATH = '/pks/lookup'
KEYS_DIR = 'keys'
_SEARCH_RE = re.compile(r'0x([0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})')
_KEY_FILE_RE = re.compile(r'([0-9A-F]{40})\.asc')


# Seconds each read or write of a connection may wait.
REQUEST_TIMEOUT_S = 60
# Connections served at once; far below the usual limit of open files
# (1024), which the files served count against too.
MAX_CONNECTIONS = 128


class _Server(http.server.ThreadingHTTPServer):
  """A threading HTTP server on a socket that is already listening.

  Serves only `clients` (the module doc), MAX_CONNECTIONS at once.
  """

  daemon_threads = True

  def __init__(self, sock, handler, clients):
    super().__init__(sock.getsockname()[:2], handler, bind_and_activate=False)
    self.socket.close()
    self.socket = sock
    own = sock.getsockname()[0]
    self.clients = frozenset(clients) | (
        {own} if ipaddress.ip_address(own).is_loopback else set()
    )
    self._lock = threading.Lock()
    self._open = set()
    # Connections without a whole request yet, oldest first.
    self._waiting = {}

  def verify_request(self, request, client_address):
    """Whether `client_address` is served (else it is closed, unread)."""
    return client_address[0] in self.clients

  def process_request(self, request, client_address):
    """Serves a connection, making room at MAX_CONNECTIONS if it can."""
    with self._lock:
      if len(self._open) >= MAX_CONNECTIONS:
        if not self._waiting:
          super().shutdown_request(request)
          return
        oldest = next(iter(self._waiting))
        self._Forget(oldest)
        with contextlib.suppress(OSError):
          # Its thread's read ends, and the thread closes it.
          oldest.shutdown(socket.SHUT_RDWR)
      self._open.add(request)
      self._waiting[request] = None
    super().process_request(request, client_address)

  def Requested(self, request):
    """Marks that connection `request` sent a whole request."""
    with self._lock:
      self._waiting.pop(request, None)

  def _Forget(self, request):
    self._open.discard(request)
    self._waiting.pop(request, None)

  def shutdown_request(self, request):
    with self._lock:
      self._Forget(request)
    super().shutdown_request(request)


class _Handler(http.server.SimpleHTTPRequestHandler):
  """Files, and keys by HKP lookup: no directory listings."""

  timeout = REQUEST_TIMEOUT_S

  def list_directory(self, path):
    """Answers 404: what the mirror holds is named by the run's flags."""
    self.send_error(404, 'Not found')

  def send_head(self):
    """Answers an HKP lookup from keys/; any other path as a file."""
    self.server.Requested(self.request)
    url = urllib.parse.urlsplit(self.path)
    if url.path != LOOKUP_PATH:
      return super().send_head()
    status, body = self._Lookup(urllib.parse.parse_qs(url.query))
    if status != http.HTTPStatus.OK:
      self.send_error(status)
      return None
    self.send_response(status)
    self.send_header('Content-Type', 'application/pgp-keys')
    self.send_header('Content-Length', str(len(body)))
    self.end_headers()
    return io.BytesIO(body)

  def _Lookup(self, query):
    """(status, armored keys) for an HKP lookup's query.

    op=get only (index and vindex list keys: not served); the search is
    matched against the file names in keys/, never used as a path.
    """
    if query.get('op') != ['get']:
      return http.HTTPStatus.NOT_IMPLEMENTED, b''
    search = _SEARCH_RE.fullmatch(''.join(query.get('search', [])))
    if not search:
      return http.HTTPStatus.BAD_REQUEST, b''
    wanted = search.group(1).upper()
    folder = os.path.join(self.directory, KEYS_DIR)
    try:
      names = sorted(os.listdir(folder))
    except OSError:
      names = []
    found = b''
    for name in names:
      key_file = _KEY_FILE_RE.fullmatch(name)
      if key_file and key_file.group(1).endswith(wanted):
        with open(os.path.join(folder, name), 'rb') as armored:
          found += armored.read()
    if not found:
      return http.HTTPStatus.NOT_FOUND, b''
    return http.HTTPStatus.OK, found


def Serve(fd, directory, clients=()):
  """Serves `directory` to `clients` on the listening socket `fd`.

  Until killed; the module doc says who else is served.
  """
  sock = socket.socket(fileno=fd)
  handler = functools.partial(_Handler, directory=directory)
  with _Server(sock, handler, clients) as server:
    server.serve_forever()


def Start(sock, directory, output=subprocess.DEVNULL, clients=(), **kwargs):
  """Starts this server on `sock` (bound, listening); returns its Popen.

  In Python's isolated mode, from `/`, the socket handed over by file
  descriptor (the module doc says why).

  Args:
    sock: the listening socket; the caller closes its own copy after.
    directory: the directory served.
    output: where the server's output goes (a file object or DEVNULL).
    clients: the addresses served (the machines'); on a loopback address
      the server's own is served too.
    **kwargs: more subprocess.Popen arguments (start_new_session).
  """
  # pylint: disable-next=consider-using-with
  return subprocess.Popen(
      [
          sys.executable,
          '-I',
          '-m',
          'perfkit_plugins.local.mirror_server',
          str(sock.fileno()),
          str(directory),
          *clients,
      ],
      stdin=subprocess.DEVNULL,
      stdout=output,
      stderr=subprocess.STDOUT,
      cwd='/',
      pass_fds=(sock.fileno(),),
      **kwargs,
  )


def Main(argv):
  if len(argv) < 2 or not argv[0].isdigit():
    print(
        (
            'usage: python -I -m perfkit_plugins.local.mirror_server FD'
            ' DIRECTORY [CLIENT...]'
        ),
        file=sys.stderr,
    )
    return 2
  Serve(int(argv[0]), argv[1], argv[2:])
  return 0


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
