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

"""Whether a CQL server answers: the benchmark's own probe, from here.

An OPTIONS request (node_status.CQL_OPTIONS_FRAME), answered SUPPORTED by
every release of either database once it serves CQL.
"""

import socket

from perfkit_plugins.core.quiesce import node_status


def ServesCql(host, port, timeout=2.0):
  """Whether the CQL server at host:port answers OPTIONS with SUPPORTED."""
  try:
    with socket.create_connection((host, int(port)), timeout) as s:
      s.sendall(node_status.CQL_OPTIONS_FRAME)
      header = s.recv(9)
  except OSError:
    return False
  return len(header) >= 5 and header[4] == node_status.CQL_SUPPORTED_OPCODE
