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

"""Parses `nodetool status`: which nodes are Up and Normal.

Cassandra and ScyllaDB print the same layout: per data center a
`Datacenter: <name>` line, a legend, a header (`--  Address  Load  Tokens
Owns ...  Host ID  Rack`), then one line per node starting with a two-letter
code: status U(p)/D(own), state N(ormal)/L(eaving)/J(oining)/M(oving). Nodes
with a single token (num_tokens: 1) print no `Tokens` count but a `Token`
column between `Host ID` and `Rack`.
"""

import dataclasses
import re

_DATACENTER_RE = re.compile(r'^Datacenter:\s*(\S+)')
# Load is '?' or a number and a unit ('58.28 MiB'); the rack is last.
_NODE_RE = re.compile(
    r'^(?P<status>[UD])(?P<state>[NLJM])\s+(?P<address>\S+)\s+'
    r'(?P<load>\?|\S+(?: [A-Za-z]+)?)\s.*?'
    r'(?P<host_id>[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})'
    r'\s+(?:.*\s)?(?P<rack>\S+)\s*$'
)


@dataclasses.dataclass(frozen=True)
class NodeState:
  """One node as `nodetool status` shows it.

  Attributes:
    address: the node's address.
    status: 'U' (up) or 'D' (down).
    state: 'N' (normal), 'L' (leaving), 'J' (joining) or 'M' (moving).
    datacenter: data center name.
    rack: rack name.
    host_id: the node's host id.
    load: data size as printed ('45.2 MiB', or '?').
  """

  address: str
  status: str
  state: str
  datacenter: str
  rack: str
  host_id: str
  load: str

  @property
  def up_normal(self):
    return self.status == 'U' and self.state == 'N'


def ParseNodetoolStatus(text):
  """Parses `nodetool status` output into one NodeState per node line.

  Args:
    text: the command's stdout.

  Returns:
    list of NodeState in the order printed.

  Raises:
    ValueError: no node line in the text.
  """
  states = []
  datacenter = ''
  for line in text.splitlines():
    dc = _DATACENTER_RE.match(line)
    if dc:
      datacenter = dc.group(1)
      continue
    node = _NODE_RE.match(line)
    if node:
      states.append(
          NodeState(
              address=node.group('address'),
              status=node.group('status'),
              state=node.group('state'),
              datacenter=datacenter,
              rack=node.group('rack'),
              host_id=node.group('host_id'),
              load=node.group('load'),
          )
      )
  if not states:
    raise ValueError(f'no node in nodetool status:\n{text}')
  return states


def NotUpNormal(states, expected_addresses):
  """The expected nodes that are not Up and Normal (or not listed at all).

  Args:
    states: list of NodeState from ParseNodetoolStatus.
    expected_addresses: addresses of every node that should be in the ring.

  Returns:
    sorted list of the expected addresses that are missing or not UN.
  """
  up_normal = {s.address for s in states if s.up_normal}
  return sorted(set(expected_addresses) - up_normal)


def ParseStatusBinary(text):
  """Whether `nodetool statusbinary` says the native transport runs.

  Raises:
    ValueError: neither `running` nor `not running`.
  """
  answer = text.strip()
  if answer not in ('running', 'not running'):
    raise ValueError(f'not nodetool statusbinary output: {text!r}')
  return answer == 'running'
