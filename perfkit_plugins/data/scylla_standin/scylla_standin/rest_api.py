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

"""ScyllaDB's REST API (port 10000) for the calls the benchmark makes.

GET /compaction_manager/compactions, /compaction_manager/metrics/
pending_tasks_by_table and /compaction_manager/compaction_history answer in
ScyllaDB's JSON (api/compaction_manager.cc:51-91, 150-205), filled from the
Cassandra node's `nodetool compactionstats` and `nodetool compactionhistory`
(Cassandra 5.0's layout). Any other request answers 404 as seastar's httpd
does, `{"message": "Not found", "code": 404}`; a nodetool that fails
answers 500 with its output as the message.
"""

import http
import http.server
import json
import re
import socket
import threading

from perfkit_plugins.core.quiesce import compactions

COMPACTIONS_PATH = compactions.SCYLLA_COMPACTIONS_PATH
PENDING_PATH = compactions.SCYLLA_PENDING_TASKS_PATH
HISTORY_PATH = compactions.SCYLLA_HISTORY_PATH
# The columns of Cassandra 5.0's running-compactions table.
_RUNNING_COLUMNS = (
    'id',
    'compaction type',
    'keyspace',
    'table',
    'completed',
    'total',
    'unit',
    'progress',
)
_PENDING_RE = re.compile(r'^pending tasks\s+(\d+)\s*$')
_TABLE_LINE_RE = re.compile(r'^(\S+)\s+(\S+)\s+(\d+)\s*$')
_REMAINING_RE = re.compile(r'^\s*active compaction remaining time\b', re.I)
# ScyllaDB's names of compaction types (compaction/compaction_descriptor.hh
# compaction_name) for Cassandra's OperationType names that differ.
_TASK_TYPES = {'Upgrade sstables': 'UPGRADE', 'Index build': 'INDEX_BUILD'}
# Cassandra's history rows are compactions; ScyllaDB calls that type
# `Compact` in its history (db/compaction_history_entry.hh).
HISTORY_COMPACTION_TYPE = 'Compact'
# Counters of ScyllaDB's history entries that Cassandra does not keep.
TOMBSTONE_COUNTERS = (
    'total_tombstone_purge_attempt',
    'total_tombstone_purge_failure_due_to_overlapping_with_memtable',
    (
        'total_tombstone_purge_failure_due_to_overlapping_with_uncompacting'
        '_sstable'
    ),
)


class NodetoolFailed(Exception):
  """The Cassandra node's nodetool failed; str() is its output."""


def _Columns(header, titles):
  """The start of each title in an aligned table's header line."""
  starts, at = [], 0
  for title in titles:
    match = re.compile(rf'(?<!\S){re.escape(title)}(?!\S)').search(header, at)
    if not match:
      raise ValueError(f'no {title!r} column in {header!r}')
    starts.append(match.start())
    at = match.end()
  return starts


def _Cells(line, starts):
  ends = starts[1:] + [None]
  return [line[s:e].strip() for s, e in zip(starts, ends)]


def ParseCompactionStats(text):
  """Running compactions and pending tasks of Cassandra 5.0's compactionstats.

  5.0 prints one aligned key/value table: `pending tasks  N`, then a
  `<keyspace> <table> <n>` line per table with pending tasks (its table name
  in the value column), counters, and while something runs, the running
  table headed `id  compaction type  keyspace  table  completed  total  unit
  progress` up to `active compaction remaining time`.

  Returns:
    (ScyllaDB's /compaction_manager/compactions list,
     ScyllaDB's /compaction_manager/metrics/pending_tasks_by_table list).

  Raises:
    ValueError: no `pending tasks` line (not 5.0's layout).
  """
  lines = text.splitlines()
  at = next((i for i, l in enumerate(lines) if _PENDING_RE.match(l)), None)
  if at is None:
    raise ValueError(f'no "pending tasks" line in compactionstats:\n{text}')
  value_column = lines[at].rstrip().rfind(' ') + 1
  pending = []
  for line in lines[at + 1 :]:
    match = _TABLE_LINE_RE.match(line)
    if not match or match.start(2) != value_column:
      break
    keyspace, table, count = match.groups()
    pending.append({'ks': keyspace, 'cf': table, 'task': int(count)})
  running = []
  header = next(
      (
          i
          for i, l in enumerate(lines)
          if l.split()[:1] == ['id'] and 'compaction type' in l
      ),
      None,
  )
  if header is not None:
    starts = _Columns(lines[header], _RUNNING_COLUMNS)
    for line in lines[header + 1 :]:
      if not line.strip() or _REMAINING_RE.match(line):
        break
      cells = dict(zip(_RUNNING_COLUMNS, _Cells(line, starts)))
      kind = cells['compaction type']
      running.append({
          'id': cells['id'],
          'ks': cells['keyspace'],
          'cf': cells['table'],
          'unit': cells['unit'],
          'completed': int(cells['completed']),
          'total': int(cells['total']),
          'task_type': _TASK_TYPES.get(kind, kind.upper().replace(' ', '_')),
      })
  return running, pending


def ParseCompactionHistory(text):
  """ScyllaDB's /compaction_manager/compaction_history from nodetool's table.

  The times and sizes are the benchmark's own parser's
  (compactions.ParseCompactionHistory, times printed with TZ=UTC); the id
  opens each row. An entry whose start is unknown has no `started_at`, as
  ScyllaDB's before 2024.
  """
  entries = compactions.ParseCompactionHistory(text)
  lines = text.splitlines()
  header = next(
      (
          i
          for i, l in enumerate(lines)
          if l.split()[:1] == ['id'] and 'compacted_at' in l.split()
      ),
      len(lines),
  )
  ids = [l.split()[0] for l in lines[header + 1 :] if l.strip()]
  history = []
  for history_id, entry in zip(ids, entries):
    item = {
        'id': history_id,
        'shard_id': 0,
        'cf': entry.table,
        'ks': entry.keyspace,
        'compaction_type': HISTORY_COMPACTION_TYPE,
        'compacted_at': entry.compacted_at_ms,
        'bytes_in': entry.bytes_in,
        'bytes_out': entry.bytes_out,
        'rows_merged': [],
        'sstables_in': [],
        'sstables_out': [],
    }
    item.update(dict.fromkeys(TOMBSTONE_COUNTERS, 0))
    if entry.started_at_ms is not None:
      item['started_at'] = entry.started_at_ms
    history.append(item)
  return history


def _Answers(nodetool):
  """Path -> a function giving the JSON body, from nodetool(*args) text."""

  def Running():
    return ParseCompactionStats(nodetool('compactionstats'))[0]

  def Pending():
    return ParseCompactionStats(nodetool('compactionstats'))[1]

  def History():
    return ParseCompactionHistory(nodetool('compactionhistory'))

  return {
      COMPACTIONS_PATH: Running,
      PENDING_PATH: Pending,
      HISTORY_PATH: History,
  }


class _Handler(http.server.BaseHTTPRequestHandler):
  """Answers GET of the known paths; 404 otherwise."""

  answers = {}
  server_version = 'Seastar httpd'
  sys_version = ''

  def _Send(self, status, body):
    data = json.dumps(body).encode()
    self.send_response(status)
    self.send_header('Content-Type', 'application/json')
    self.send_header('Content-Length', str(len(data)))
    self.end_headers()
    if self.command != 'HEAD':
      self.wfile.write(data)

  def _Answer(self):
    """A known GET's JSON; 404 for others, 500 when nodetool fails."""
    answer = self.answers.get(self.path.split('?', 1)[0])
    if answer is None or self.command != 'GET':
      self._Send(
          http.HTTPStatus.NOT_FOUND, {'message': 'Not found', 'code': 404}
      )
      return
    try:
      body = answer()
    except (NodetoolFailed, ValueError) as e:
      self._Send(
          http.HTTPStatus.INTERNAL_SERVER_ERROR,
          {'message': str(e), 'code': 500},
      )
      return
    self._Send(http.HTTPStatus.OK, body)

  # http.server's names for the methods' handlers.
  # pylint: disable-next=invalid-name
  do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _Answer

  def log_message(self, format, *args):  # pylint: disable=redefined-builtin
    """Quiet: the journal keeps the database's log, not each request."""


class RestApi:
  """The API server on api_address:api_port, serving in a thread."""

  def __init__(self, address, port, nodetool):
    """Binds the socket (so a taken port fails before anything starts).

    Args:
      address: api_address (else rpc_address).
      port: api_port.
      nodetool: nodetool(*args) -> stdout of the node's nodetool (TZ=UTC),
        raising NodetoolFailed.
    """
    handler = type('Handler', (_Handler,), {'answers': _Answers(nodetool)})
    server_class = type(
        'Server',
        (http.server.ThreadingHTTPServer,),
        {
            'address_family': (
                socket.AF_INET6 if ':' in address else socket.AF_INET
            )
        },
    )
    self.server = server_class((address, port), handler)
    self.server.daemon_threads = True
    self._thread = threading.Thread(
        target=self.server.serve_forever, daemon=True
    )

  def Start(self):
    self._thread.start()

  def Stop(self):
    if self._thread.is_alive():
      self.server.shutdown()
    self.server.server_close()
