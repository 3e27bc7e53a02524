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

"""Whether nodes are up: `nodetool status` read, and a CQL probe.

`nodetool status` says which nodes are Up and Normal.

Cassandra and ScyllaDB print the same layout: per data center a
`Datacenter: <name>` line, a legend, a header (`--  Address  Load  Tokens
Owns ...  Host ID  Rack`), then one line per node, and a blank line. A node
line starts with its code: the status, U(p), D(own), ? (unknown) or, in
recent ScyllaDB releases, X (eXcluded) or XU (excluded yet live), then the
state, N(ormal), L(eaving), J(oining) or M(oving). Load is `?` or a number
and a unit (`58.28 MiB`, `431 KB`, `0 bytes`); Tokens (`?` for a tablets
keyspace without a table), Owns and Host ID may be `?`. Nodes with a single
token (num_tokens: 1) print no `Tokens` count but a `Token` column between
`Host ID` and `Rack`. The rack is last and may be empty (trailing spaces or
nothing). Rows are not always aligned with the header (copies are often
re-spaced), so they are read as words in the header's column order.

A line of a node table that does not read as one raises ValueError rather
than being skipped: a skipped line would make its node look absent.

Whether a node serves CQL is asked of the server itself, by a CQL OPTIONS
request that CqlProbeCommand sends from the node to its client address:
python3 (the benchmark installs it on every server) rather than `nodetool
statusbinary`, a JVM start per poll that competes with the starting
databases for CPU.
"""

import dataclasses
import re
import shlex
import struct

_DATACENTER_RE = re.compile(r'^Datacenter:\s*(\S+)')
_CODE_RE = re.compile(r'^(?P<status>XU|[UDX?])(?P<state>[NLJM])$')
# Header words -> the column they name; None for the second word of
# `Owns (effective)` and `Host ID`.
_HEADER_WORDS = {
    'Address': 'address',
    'Load': 'load',
    'Tokens': 'tokens',
    'Owns': 'owns',
    '(effective)': None,
    'Host': 'host_id',
    'ID': None,
    'Token': 'token',
    'Rack': 'rack',
}
_REQUIRED = ('address', 'load', 'owns', 'host_id', 'rack')
# The one-word columns that have a fixed form, and what it is (address and
# host id are taken as printed: the plugin compares the one, never reads the
# other).
_WORD_FORMS = {
    'tokens': (re.compile(r'^(?:\?|\d+)$'), 'a count or ?'),
    'owns': (re.compile(r'^(?:\?|\d+(?:\.\d+)?%)$'), 'a percentage or ?'),
    'token': (re.compile(r'^-?\d+$'), 'a token'),
}
_LOAD_NUMBER_RE = re.compile(r'^-?\d+(?:\.\d+)?$')
_LOAD_UNIT_RE = re.compile(r'^[A-Za-z]+$')


@dataclasses.dataclass(frozen=True)
class NodeState:
  """One node as `nodetool status` shows it.

  Attributes:
    address: the node's address.
    status: 'U' (up), 'D' (down), '?' (unknown), 'X' (excluded) or 'XU'
      (excluded, yet live).
    state: 'N' (normal), 'L' (leaving), 'J' (joining) or 'M' (moving).
    datacenter: data center name.
    rack: rack name ('' when the snitch gives none).
    host_id: the node's host id as printed ('?' when unknown).
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


def _HeaderColumns(line):
  """The columns a `--  Address  Load ...` header names, in order.

  Raises:
    ValueError: a word names no known column, or a needed one is missing.
  """
  columns = []
  for word in line.split()[1:]:
    if word not in _HEADER_WORDS:
      raise ValueError(f'unknown column {word!r} in nodetool status: {line!r}')
    if _HEADER_WORDS[word]:
      columns.append(_HEADER_WORDS[word])
  missing = [c for c in _REQUIRED if c not in columns]
  if missing or columns[-1] != 'rack':
    raise ValueError(f'unknown nodetool status header: {line!r}')
  return columns


def _NodeFields(words, columns):
  """NodeState's fields but the data center, from a node line's words.

  Args:
    words: the line's words.
    columns: the header's columns, the rack last.

  Raises:
    ValueError: (with the reason) the words do not fit the columns.
  """
  code = _CODE_RE.match(words[0])
  if not code:
    raise ValueError(
        f'status code {words[0]!r}: not U, D, ?, X or XU then N, L, J or M'
    )
  values = {}
  words = words[1:]
  for column in columns[:-1]:
    if not words:
      raise ValueError(f'no {column}')
    word, words = words[0], words[1:]
    if column == 'load' and word != '?':
      if not (_LOAD_NUMBER_RE.match(word) and words):
        raise ValueError(f'load {word!r}: not ? or a size')
      if not _LOAD_UNIT_RE.match(words[0]):
        raise ValueError(f'load {word!r}: no unit')
      word, words = f'{word} {words[0]}', words[1:]
    elif column in _WORD_FORMS:
      form, what = _WORD_FORMS[column]
      if not form.match(word):
        raise ValueError(f'{column} {word!r}: not {what}')
    values[column] = word
  return {
      'address': values['address'],
      'status': code.group('status'),
      'state': code.group('state'),
      # The last column: empty, or (never seen) several words.
      'rack': ' '.join(words),
      'host_id': values['host_id'],
      'load': values['load'],
  }


def ParseNodetoolStatus(text):
  """Parses `nodetool status` output into one NodeState per node line.

  Every line between a table's header and the blank line (or the next
  `Datacenter:` line) that ends it is a node line.

  Args:
    text: the command's stdout.

  Returns:
    list of NodeState in the order printed.

  Raises:
    ValueError: no node line in the text, an unknown header, or a node line
      that does not fit its header.
  """
  states = []
  datacenter = ''
  columns = None
  for line in text.splitlines():
    dc = _DATACENTER_RE.match(line)
    words = line.split()
    if dc:
      datacenter, columns = dc.group(1), None
    elif words[:2] == ['--', 'Address']:
      columns = _HeaderColumns(line)
    elif not words or words[0] == 'Note:':
      columns = None
    elif columns:
      try:
        fields = _NodeFields(words, columns)
      except ValueError as e:
        raise ValueError(
            f'unreadable nodetool status line ({e}): {line!r}'
        ) from e
      states.append(NodeState(datacenter=datacenter, **fields))
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


# A CQL OPTIONS request (protocol v4, header only): version, flags, stream,
# opcode, body length. Every release of either database answers it.
CQL_OPTIONS_FRAME = struct.pack('>BBhBi', 0x04, 0, 0, 0x05, 0)
# The opcode of the answer to OPTIONS.
CQL_SUPPORTED_OPCODE = 0x06
_SERVING = 'serving'
_NOT_SERVING = 'not serving:'
# Run by python3 on the node: host, port, timeout (s), the request in hex.
_CQL_PROBE_PROGRAM = f"""
import socket, sys
host, port, timeout, request = sys.argv[1:]
try:
    with socket.create_connection((host, int(port)), float(timeout)) as s:
        s.sendall(bytes.fromhex(request))
        header = s.recv(9)
except OSError as e:
    print("{_NOT_SERVING}", e)
else:
    if len(header) >= 5 and header[4] == {CQL_SUPPORTED_OPCODE}:
        print("{_SERVING}")
    else:
        print("{_NOT_SERVING} answered", header.hex() or "nothing")
"""


@dataclasses.dataclass(frozen=True)
class CqlAnswer:
  """What a CQL probe saw.

  Attributes:
    serving: the server answered OPTIONS with SUPPORTED.
    detail: why not (the connection's error, or what it answered).
  """

  serving: bool
  detail: str = ''


def CqlProbeCommand(host, port, timeout_s=2):
  """A command that asks the CQL server at host:port for its options."""
  return shlex.join([
      'python3',
      '-c',
      _CQL_PROBE_PROGRAM,
      host,
      str(port),
      str(timeout_s),
      CQL_OPTIONS_FRAME.hex(),
  ])


def ParseCqlProbe(text):
  """The CqlAnswer a CqlProbeCommand printed.

  Raises:
    ValueError: the output is not the probe's.
  """
  answer = text.strip()
  if answer == _SERVING:
    return CqlAnswer(True)
  if answer.startswith(_NOT_SERVING):
    return CqlAnswer(False, answer[len(_NOT_SERVING) :].strip())
  raise ValueError(f"not a CQL probe's output: {text!r}")
