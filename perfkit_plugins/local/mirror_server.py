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

    python -I -m perfkit_plugins.local.mirror_server FD DIRECTORY

Serves the files under DIRECTORY (read-only, GET and HEAD) on the socket
open as file descriptor FD, which the parent bound and put in the
listening state before this process started (host_machines.HostMachines
.StartMirror): the port is never free between being chosen and being
served, so no other process can take it. Started with `-I` from `/`,
Python puts neither the caller's directory nor its environment's paths on
the import path.
"""

import functools
import http.server
import socket
import sys


class _Server(http.server.ThreadingHTTPServer):
  """A threading HTTP server on a socket that is already listening."""

  daemon_threads = True

  def __init__(self, sock, handler):
    super().__init__(sock.getsockname()[:2], handler, bind_and_activate=False)
    self.socket.close()
    self.socket = sock


class _Handler(http.server.SimpleHTTPRequestHandler):
  """Files only: no directory listings."""

  def list_directory(self, path):
    """Answers 404: what the mirror holds is named by the run's flags."""
    self.send_error(404, 'Not found')


def Serve(fd, directory):
  """Serves `directory` on the listening socket `fd` until killed."""
  sock = socket.socket(fileno=fd)
  handler = functools.partial(_Handler, directory=directory)
  with _Server(sock, handler) as server:
    server.serve_forever()


def Main(argv):
  if len(argv) != 2 or not argv[0].isdigit():
    print(
        'usage: python -I -m perfkit_plugins.local.mirror_server FD DIRECTORY',
        file=sys.stderr,
    )
    return 2
  Serve(int(argv[0]), argv[1])
  return 0


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
