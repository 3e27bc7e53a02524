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

"""Compaction parsers on real nodetool, REST and cqlsh outputs."""

import calendar
import datetime

import pytest

from perfkit_plugins.core.quiesce import compactions


def _EpochMs(text):
  """'2026-11-21T22:28:36.067' read as UTC -> epoch milliseconds."""
  moment = datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%f')
  return calendar.timegm(moment.timetuple()) * 1000 + moment.microsecond // 1000


@pytest.mark.parametrize(
    'name, running, pending',
    [
        ('nt-idle-compactionstats.txt', 0, 0),
        ('nt-busy1-compactionstats.txt', 1, 1),
        ('nt-busy1-compactionstats-H.txt', 1, 1),
        ('c41-nt-idle-compactionstats.txt', 0, 0),
        ('c41-nt-busy1-compactionstats.txt', 1, 1),
    ],
)
def test_compaction_stats_cassandra(lab, name, running, pending):
  status = compactions.ParseCompactionStats(lab(name))
  assert status == compactions.CompactionStatus(running, pending, 0)


@pytest.mark.parametrize('version', ['c509', 'c4110'])
@pytest.mark.parametrize(
    'moment, running, pending',
    [('idle', 0, 0), ('busy', 1, 2), ('after', 0, 0)],
)
def test_compaction_stats_live_cassandra(
    testdata, version, moment, running, pending
):
  for suffix in ('', '-H') if moment == 'busy' else ('',):
    text = testdata('live', f'{version}-{moment}-compactionstats{suffix}.txt')
    status = compactions.ParseCompactionStats(text)
    assert status == compactions.CompactionStatus(running, pending)


def test_compaction_stats_scylla_jmx_nodetool(testdata):
  text = testdata('scylla_public', 'issue4444-nodetool-compactionstats.txt')
  status = compactions.ParseCompactionStats(text)
  assert status == compactions.CompactionStatus(running=8, pending=858255)


def test_compaction_stats_refuses_rows_under_an_unknown_header(testdata):
  # Uncounted, the 8 running compactions would pass for an idle node.
  text = testdata('scylla_public', 'issue4444-nodetool-compactionstats.txt')
  text = text.replace('compaction type', 'operation      ')
  with pytest.raises(ValueError, match='unknown header'):
    compactions.ParseCompactionStats(text)


def test_compaction_stats_rejects_other_output(lab):
  with pytest.raises(ValueError, match='pending tasks'):
    compactions.ParseCompactionStats(lab('cs-version.txt'))


@pytest.mark.parametrize(
    'status, idle',
    [
        (compactions.CompactionStatus(0, 0, 0), True),
        (compactions.CompactionStatus(1, 0, 0), False),
        (compactions.CompactionStatus(0, 3, 0), False),
        (compactions.CompactionStatus(0, 0, 2), False),
    ],
)
def test_idle(status, idle):
  assert status.idle is idle


def test_compaction_history_cassandra50(lab):
  entries = compactions.ParseCompactionHistory(
      lab('nt-busy1-compactionhistory.txt')
  )
  assert len(entries) == 7
  assert entries[0] == compactions.HistoryEntry(
      keyspace='keyspace1',
      table='standard1',
      # Time of the TimeUUID id e23c3fa0-e5fa-11f1-8727-9180dc88d892.
      started_at_ms=_EpochMs('2026-11-21T22:28:32.538'),
      compacted_at_ms=_EpochMs('2026-11-21T22:28:36.067'),
      bytes_in=99640704,
      bytes_out=45731015,
  )
  assert entries[-1].keyspace == 'system'
  assert entries[-1].table == 'local'
  assert entries[-1].compacted_at_ms == _EpochMs('2026-11-21T22:23:26.699')


def test_compaction_history_cassandra41(lab):
  entries = compactions.ParseCompactionHistory(
      lab('c41-nt-busy1-compactionhistory.txt')
  )
  assert len(entries) == 13
  assert [e.keyspace for e in entries].count('keyspace1') == 9
  assert entries[0].compacted_at_ms == _EpochMs('2026-11-21T22:44:57.293')
  assert (entries[0].bytes_in, entries[0].bytes_out) == (67302823, 45760740)


@pytest.mark.parametrize(
    'name',
    ['nt-busy1-compactionhistory.txt', 'c41-nt-busy1-compactionhistory.txt'],
)
def test_compaction_history_was_printed_in_utc(lab, name):
  # The id's time is zone-free and precedes the end by the compaction's
  # duration: read as UTC every compaction lasts 0-20 s; read one hour off,
  # every one would end before its id was made, so no id gives a start.
  entries = compactions.ParseCompactionHistory(lab(name))
  durations = [e.compacted_at_ms - e.started_at_ms for e in entries]
  assert all(0 <= d < 20_000 for d in durations)
  plus_one = datetime.timezone(datetime.timedelta(hours=1))
  shifted = compactions.ParseCompactionHistory(lab(name), tz=plus_one)
  assert all(e.started_at_ms is None for e in shifted)


@pytest.mark.parametrize('version', ['c509', 'c4110'])
def test_compaction_history_matches_cql_epoch_millis(testdata, version):
  # system.compaction_history read over CQL right after nodetool gives every
  # compacted_at as epoch milliseconds: the ground truth for the parse.
  rows = testdata('live', f'{version}-after-compaction_history-cql.tsv')
  header, *lines = [line.split('\t') for line in rows.splitlines()]
  assert header[3] == 'compacted_at_ms'
  truth = {
      (ks, cf, int(bytes_in)): int(ms) for _, ks, cf, ms, bytes_in, _ in lines
  }
  text = testdata('live', f'{version}-after-compactionhistory.txt')
  entries = compactions.ParseCompactionHistory(text)
  assert len(entries) == len(truth)
  assert {
      (e.keyspace, e.table, e.bytes_in): e.compacted_at_ms for e in entries
  } == truth


def test_compaction_history_rejects_other_output(lab):
  with pytest.raises(ValueError, match='no compaction history table'):
    compactions.ParseCompactionHistory(lab('nt-idle-compactionstats.txt'))


def test_scylla_running_compactions(testdata):
  assert (
      compactions.ParseScyllaRunningCompactions(
          testdata('scylla_rest', 'compactions-2.json')
      )
      == 2
  )
  assert (
      compactions.ParseScyllaRunningCompactions(
          testdata('scylla_rest', 'compactions-0.json')
      )
      == 0
  )


def test_scylla_pending_tasks(testdata):
  assert (
      compactions.ParseScyllaPendingTasks(
          testdata('scylla_rest', 'pending_tasks_by_table-2.json')
      )
      == 2
  )
  assert (
      compactions.ParseScyllaPendingTasks(
          testdata('scylla_rest', 'pending_tasks_by_table-0.json')
      )
      == 0
  )


def test_scylla_compaction_history(testdata):
  entries = compactions.ParseScyllaCompactionHistory(
      testdata('scylla_rest', 'compaction_history.json')
  )
  assert entries == [
      compactions.HistoryEntry(
          'system', 'peers', 1695973259380, 1695973859380, 11714, 11808
      ),
      compactions.HistoryEntry(
          'system_schema', 'functions', 1695973259491, 1695973859491, 5790, 5944
      ),
      compactions.HistoryEntry(
          'system_schema', 'functions', 1695973859492, 1695973859492, 579, 594
      ),
  ]


def test_scylla_compaction_history_without_started_at(testdata):
  entries = compactions.ParseScyllaCompactionHistory(
      testdata('scylla_rest', 'compaction_history-2023.json')
  )
  assert [e.started_at_ms for e in entries] == [None, None]
  assert [e.compacted_at_ms for e in entries] == [1695973859380, 1695973859491]


def test_tablet_transition_in_progress(testdata):
  text = testdata('scylla_public', 'issue20039-cqlsh-system-tablets.txt')
  assert compactions.ParseScyllaTabletTransitions(text) == 1


def test_tablets_at_rest_on_early_release(testdata):
  # No resize_type/transition columns, stage null, after a cqlsh prompt.
  text = testdata('scylla_public', 'pr16600-cqlsh-system-tablets.txt')
  assert compactions.ParseScyllaTabletTransitions(text) == 0


def test_tablets_rejects_non_cqlsh_output(lab):
  with pytest.raises(ValueError, match='cqlsh'):
    compactions.ParseScyllaTabletTransitions(lab('nt-idle-status.txt'))
