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

"""Parsers for what a node says about its compactions.

A node is quiet when nothing compacts, nothing waits to compact and (ScyllaDB
with tablets) no tablet moves or resizes. Apache Cassandra says so through
`nodetool compactionstats` and `nodetool compactionhistory`; ScyllaDB through
the same nodetool commands, its REST API (port 10000) and `system.tablets`.

Formats, as read in the tools' sources and real outputs:
* `nodetool compactionstats`: Cassandra 3.x/4.x and ScyllaDB print
  `pending tasks: N`, one `- ks.table: n` line per table, a blank line, then
  while something runs a table headed `id compaction type keyspace table ...`
  (ScyllaDB's old JMX nodetool prints `<none>` as the id; Cassandra 2.0
  printed no id column and `column family` for `table`) closed by
  `Active compaction remaining time : ...`. Cassandra 5.0 prints one aligned
  key/value table instead: `pending tasks   N`, `<ks> <table> <n>` lines,
  counters, then the same running table (or, with -V, one headed
  `keyspace table task id ...`) closed by `active compaction remaining time`.
  -H only changes sizes inside the running table.
* `nodetool compactionhistory`: `Compaction History:`, then a table whose
  header names the columns (`id keyspace_name columnfamily_name compacted_at
  bytes_in bytes_out rows_merged ...`; ScyllaDB's native nodetool adds
  `shard_id`, `compaction_type` and `started_at`), newest first, or `There is
  no compaction history`. Times are printed in the time zone of the nodetool
  process, without the zone: Cassandra prints
  `LocalDateTime.ofInstant(instant, ZoneId.systemDefault())`, so
  `2026-11-21T22:28:36.067`, and drops zero parts (`...T22:28:36`,
  `...T22:28`); ScyllaDB's nodetool prints `{:%FT%T}.{}` of localtime() with
  the milliseconds NOT zero-padded (`...T22:28:36.67` is 67 ms). Run it with
  `TZ=UTC` (both honour it) and parse with the default `tz`.
* REST: `GET /compaction_manager/compactions` lists running compactions of
  every kind; `GET /compaction_manager/metrics/pending_tasks_by_table` gives
  `[{"ks", "cf", "task"}]` (ScyllaDB's own nodetool prints their sum as
  `pending tasks`; `/metrics/pending_tasks` returns the same sum as a bare
  number, and is not used here); `GET /compaction_manager/compaction_history`
  gives entries with `ks`, `cf`, `compacted_at` and (since 2024)
  `started_at` in epoch milliseconds, `bytes_in`, `bytes_out`.
* `system.tablets` (ScyllaDB 6.0+): one row per tablet; `stage` and
  `transition` are set while the tablet migrates, rebuilds or is repaired;
  the static `resize_type` is `split` or `merge` while its table resizes
  (`none`, or null for a table never resized, otherwise).
"""

import dataclasses
import datetime
import json
import re
import uuid

# REST paths (ScyllaDB, port 10000) whose responses the parsers below read.
SCYLLA_COMPACTIONS_PATH = '/compaction_manager/compactions'
SCYLLA_PENDING_TASKS_PATH = '/compaction_manager/metrics/pending_tasks_by_table'
SCYLLA_HISTORY_PATH = '/compaction_manager/compaction_history'
# The CQL query whose cqlsh output ParseScyllaTabletTransitions reads. Every
# keyspace counts: a migration of any table moves data and starts compactions.
SCYLLA_TABLETS_QUERY = (
    'SELECT keyspace_name, table_name, resize_type, stage, transition'
    ' FROM system.tablets'
)

_PENDING_RE = re.compile(r'^\s*pending tasks\s*:?\s+(\d+)\s*$', re.I | re.M)
_RUNNING_HEADER_RE = re.compile(
    (
        r'^\s*((id\s+)?compaction type\s+keyspace\s+(table|column family)'
        r'|keyspace\s+table\s+task id)\b'
    ),
    re.I,
)
# A row of the running table ends with its progress (`64.72%`).
_PROGRESS_RE = re.compile(r'\s\d+(\.\d+)?%\s*$')
_REMAINING_RE = re.compile(r'^\s*active compaction remaining time\b', re.I)
_LOCAL_TIME_RE = re.compile(
    r'^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$'
)
_NO_HISTORY = 'There is no compaction history'
_HISTORY_COLUMNS = (
    'id',
    'keyspace_name',
    'columnfamily_name',
    'compacted_at',
    'bytes_in',
    'bytes_out',
)
# 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000
_RESIZING = ('split', 'merge')


@dataclasses.dataclass(frozen=True)
class CompactionStatus:
  """What one node is doing right now.

  Attributes:
    running: compactions (of any kind: compaction, cleanup, reshape, ...)
      in progress.
    pending: the node's estimate of compactions still to run.
    tablet_transitions: tablets migrating, or belonging to a table being
      split or merged (ScyllaDB with tablets; 0 otherwise).
  """

  running: int
  pending: int
  tablet_transitions: int = 0

  @property
  def idle(self):
    """True when nothing runs, nothing waits and no tablet moves."""
    return not (self.running or self.pending or self.tablet_transitions)


@dataclasses.dataclass(frozen=True)
class HistoryEntry:
  """One finished compaction, times in epoch milliseconds of the node's clock.

  Attributes:
    keyspace: keyspace of the compacted table.
    table: compacted table.
    started_at_ms: start, or None when the source does not tell. From
      nodetool it is the time of the TimeUUID `id`, which Cassandra 4.1+
      and ScyllaDB create when the compaction starts (older Cassandra
      versions when the history row is written, close to compacted_at);
      None when that time is after compacted_at, so no start.
    compacted_at_ms: end.
    bytes_in: bytes read.
    bytes_out: bytes written.
  """

  keyspace: str
  table: str
  started_at_ms: int | None
  compacted_at_ms: int
  bytes_in: int
  bytes_out: int


def ParseCompactionStats(text):
  """Parses `nodetool compactionstats [-H] [-V]` of any supported version.

  Args:
    text: the command's stdout.

  Returns:
    CompactionStatus with the running count (rows of the running table) and
    the total of pending tasks.

  Raises:
    ValueError: the text has no pending tasks line (nodetool failed), or
      a running compaction's row under no known header (uncounted, it
      would pass for an idle node).
  """
  pending = _PENDING_RE.search(text)
  if not pending:
    raise ValueError(f'no "pending tasks" in compactionstats:\n{text}')
  running = 0
  in_table = False
  for line in text.splitlines():
    if in_table:
      if _REMAINING_RE.match(line) or not line.strip():
        break
      running += 1
    elif _RUNNING_HEADER_RE.match(line):
      in_table = True
    elif _PROGRESS_RE.search(line):
      raise ValueError(
          f'compaction row under an unknown header in compactionstats: {line!r}'
      )
  return CompactionStatus(running=running, pending=int(pending.group(1)))


def ParseCompactionHistory(text, tz=datetime.timezone.utc):
  """Parses `nodetool compactionhistory` (Cassandra 3.x-5.0, ScyllaDB).

  Columns are found by their header names, so added columns do not matter;
  every column up to `bytes_out` holds one word.

  Args:
    text: the command's stdout.
    tz: time zone the nodetool process printed its times in (set TZ=UTC on
      the command and keep the default).

  Returns:
    list of HistoryEntry, in the order printed (newest first).

  Raises:
    ValueError: no history table and no "no history" message, or a row
      that does not fit the header.
  """
  lines = text.splitlines()
  header_at = next(
      (
          i
          for i, line in enumerate(lines)
          if line.split()[:1] == ['id'] and 'compacted_at' in line.split()
      ),
      None,
  )
  if header_at is None:
    if _NO_HISTORY in text:
      return []
    raise ValueError(f'no compaction history table in:\n{text}')
  header = lines[header_at].split()
  missing = [c for c in _HISTORY_COLUMNS if c not in header]
  if missing:
    raise ValueError(f'compactionhistory header lacks {missing}: {header}')
  column = {name: header.index(name) for name in header}
  width = max(column[c] for c in _HISTORY_COLUMNS) + 1
  entries = []
  for line in lines[header_at + 1 :]:
    words = line.split()
    if not words:
      continue
    if len(words) < width:
      raise ValueError(f'short compactionhistory row: {line!r}')
    compacted = _LocalTimeMs(words[column['compacted_at']], tz)
    if 'started_at' in column:
      started = _LocalTimeMs(words[column['started_at']], tz)
    else:
      started = _TimeUuidMs(words[column['id']])
      if started is not None and started > compacted:
        # Not the start: the id was made after the compaction ended.
        started = None
    entries.append(
        HistoryEntry(
            keyspace=words[column['keyspace_name']],
            table=words[column['columnfamily_name']],
            started_at_ms=started,
            compacted_at_ms=compacted,
            bytes_in=int(words[column['bytes_in']]),
            bytes_out=int(words[column['bytes_out']]),
        )
    )
  return entries


def _LocalTimeMs(text, tz):
  """'2026-11-21T22:28:36.067' in `tz` -> epoch milliseconds.

  The first 3 digits of the fraction are read as a count of milliseconds:
  Cassandra prints 3 digits and ScyllaDB the unpadded count, so '.067' and
  '.67' are both 67 ms.
  """
  match = _LOCAL_TIME_RE.match(text)
  if not match:
    raise ValueError(f'not a nodetool local time: {text!r}')
  year, month, day, hour, minute, second, fraction = match.groups()
  ms = int(fraction[:3]) if fraction else 0
  moment = datetime.datetime(
      int(year),
      int(month),
      int(day),
      int(hour),
      int(minute),
      int(second or 0),
      tzinfo=tz,
  )
  return int(moment.timestamp()) * 1000 + ms


def _TimeUuidMs(text):
  """Epoch milliseconds of a version-1 (time) UUID, or None for others."""
  try:
    value = uuid.UUID(text)
  except ValueError:
    return None
  if value.version != 1:
    return None
  return (value.time - _UUID_EPOCH_OFFSET) // 10_000


def ParseScyllaRunningCompactions(json_text):
  """Counts running compactions in GET /compaction_manager/compactions.

  Args:
    json_text: the response body, a JSON list with one object per running
      compaction (`[]` when idle).

  Returns:
    the number of running compactions.

  Raises:
    ValueError: the body is not a JSON list.
  """
  data = json.loads(json_text)
  if not isinstance(data, list):
    raise ValueError(f'expected a JSON list of compactions: {json_text!r}')
  return len(data)


def ParseScyllaPendingTasks(json_text):
  """Sums pending compactions from ScyllaDB's REST API.

  Args:
    json_text: body of GET SCYLLA_PENDING_TASKS_PATH,
      `[{"ks": ..., "cf": ..., "task": n}, ...]`.

  Returns:
    the total of pending tasks, as ScyllaDB's nodetool compactionstats
    prints it.

  Raises:
    ValueError: the body is not a JSON list.
  """
  data = json.loads(json_text)
  if not isinstance(data, list):
    raise ValueError(f'expected pending tasks by table: {json_text!r}')
  return sum(int(table['task']) for table in data)


def ParseScyllaCompactionHistory(json_text):
  """Parses GET /compaction_manager/compaction_history.

  Args:
    json_text: the response body, a JSON list of entries.

  Returns:
    list of HistoryEntry; started_at_ms is None for servers that do not
    report `started_at` (before 2024).
  """
  return [
      HistoryEntry(
          keyspace=entry['ks'],
          table=entry['cf'],
          started_at_ms=entry.get('started_at'),
          compacted_at_ms=int(entry['compacted_at']),
          bytes_in=int(entry['bytes_in']),
          bytes_out=int(entry['bytes_out']),
      )
      for entry in json.loads(json_text)
  ]


def ParseScyllaTabletTransitions(text):
  """Counts tablets in motion in cqlsh's output of SCYLLA_TABLETS_QUERY.

  Reads cqlsh's default table output by column name, so `SELECT *` works
  too; a column the release does not have counts as null, but `stage`
  (in system.tablets since its first release) must be there.

  Args:
    text: cqlsh stdout (table, optionally preceded by other lines and
      followed by `(N rows)`).

  Returns:
    the number of rows (tablets) that are migrating (`stage` or
    `transition` set) or whose table is being split or merged.

  Raises:
    ValueError: no cqlsh result table in the text, or one without a
      `stage` column (another table's).
  """
  names, rows = _ParseCqlshTable(text)
  if 'stage' not in names:
    raise ValueError(f'not a system.tablets result (no stage column): {names}')
  moving = 0
  for row in rows:
    if row.get('stage') or row.get('transition'):
      moving += 1
    elif row.get('resize_type') in _RESIZING:
      moving += 1
  return moving


def _ParseCqlshTable(text):
  """cqlsh's table output -> (column names, [{column: value, None: null}])."""
  lines = text.splitlines()
  for i in range(1, len(lines)):
    if re.fullmatch(r'-+(\+-+)*', lines[i]) and '|' in lines[i - 1]:
      names = [name.strip() for name in lines[i - 1].split('|')]
      rows = []
      for line in lines[i + 1 :]:
        if not line.strip() or line.startswith('('):
          break
        cells = [cell.strip() for cell in line.split('|')]
        rows.append({
            name: None if cell == 'null' else cell
            for name, cell in zip(names, cells)
        })
      return names, rows
  raise ValueError(f'no cqlsh result table in:\n{text}')
