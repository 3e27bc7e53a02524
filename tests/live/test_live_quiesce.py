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

"""The quiesce phase against a real compaction backlog, on each version.

One backlog per version: compaction throughput lowered to 1 MiB/s, then 8
rounds of 2 MiB written through cassandra-driver, each flushed into an
SSTable, so size-tiered compaction has several jobs to run one after the
other (one compactor), for half a minute or so. Then the plugin's
WaitForQuiesce polls the node through the plugin's CassandraEngine on a
LocalVm until it has been idle for the settle window, and its figures are
checked against the node's own `system.compaction_history`, read over CQL.

The VM's commands run with TZ=Asia/Kolkata (UTC+05:30), as on a server whose
local time is not UTC: nodetool prints compaction times in local time, so
the engine must still turn them into the right instants.
"""

import dataclasses
import datetime
import time

import pytest

from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.operations import compaction_poller
from perfkit_plugins.operations import vm_clocks
from perfkit_plugins.testing import cql_load
from perfkit_plugins.testing import run_envs
from perfkit_plugins.testing import threads

pytestmark = pytest.mark.live

KEYSPACE = 'live_quiesce'
TABLE = 'backlog'
ROUNDS = 8
ROWS_PER_ROUND = 128
VALUE_BYTES = 16 * 1024
THROUGHPUT_MIB_S = 1
DEFAULT_THROUGHPUT_MIB_S = 64
# Polls 2 s apart (each `nodetool` call takes about a second more): an end
# taken from the first idle poll instead of the history would be late by
# more than the 1 s allowed.
POLL_S = 2
SETTLE_S = 5
SERVER_TZ = 'Asia/Kolkata'
MAX_END_ERROR_S = 1.0


@dataclasses.dataclass
class Run:
  """What one quiesce run saw (times: epoch seconds, this machine's clock).

  Attributes:
    populate_start, populate_end: the write load.
    busy: the first compaction status that was not idle.
    result: WaitForQuiesce's QuiesceResult.
    returned_at: when WaitForQuiesce returned.
    after: compaction status right after it returned.
    parsed_history: engine.CompactionHistory right after it returned.
    cql_history: system.compaction_history rows of KEYSPACE, read last, as
      (compacted_at epoch ms, bytes_in, bytes_out).
  """

  populate_start: float
  populate_end: float
  busy: compactions.CompactionStatus
  result: quiesce_timing.QuiesceResult
  returned_at: float
  after: compactions.CompactionStatus
  parsed_history: list
  cql_history: list


@pytest.fixture(scope='module')
def run(cassandra, vm_for, engine_for):
  """Builds the backlog and runs the quiesce wait once per version."""
  vm = vm_for(cassandra)
  vm.env['TZ'] = SERVER_TZ
  engine = engine_for(cassandra)
  offsets = vm_clocks.MeasureClockOffsets([vm], threads.RunThreaded)
  cluster, session = cql_load.Connect(cassandra.native_port)
  try:
    cql_load.CreateTable(session, KEYSPACE, TABLE)
    cassandra.Nodetool('setcompactionthroughput', str(THROUGHPUT_MIB_S))
    populate_start = time.time()
    for i in range(ROUNDS):
      cql_load.WriteRows(
          session,
          KEYSPACE,
          TABLE,
          i * ROWS_PER_ROUND,
          ROWS_PER_ROUND,
          VALUE_BYTES,
      )
      engine.Flush(vm, KEYSPACE)
    populate_end = time.time()
    busy = _FirstBusyStatus(engine, vm)
    env = run_envs.Make(
        settings=dataclasses.replace(
            engine.settings,
            keyspace=KEYSPACE,
            quiesce_poll_s=POLL_S,
            quiesce_settle_s=SETTLE_S,
            quiesce_timeout_s=600,
        ),
        engine=engine,
        servers=[vm],
        clock_offsets={name: o.offset_s for name, o in offsets.items()},
    )
    result = compaction_poller.WaitForQuiesce(
        env, (populate_start, populate_end)
    )
    returned_at = time.time()
    after = engine.CompactionStatus(vm)
    parsed_history = engine.CompactionHistory(vm)
    cql_history = _CqlHistory(session)
  finally:
    cassandra.Nodetool('setcompactionthroughput', str(DEFAULT_THROUGHPUT_MIB_S))
    cluster.shutdown()
  return Run(
      populate_start,
      populate_end,
      busy,
      result,
      returned_at,
      after,
      parsed_history,
      cql_history,
  )


def _FirstBusyStatus(engine, vm, timeout_s=60):
  """Polls engine.CompactionStatus until it is not idle; returns that one."""
  deadline = time.monotonic() + timeout_s
  while time.monotonic() < deadline:
    status = engine.CompactionStatus(vm)
    if not status.idle:
      return status
    time.sleep(0.5)
  pytest.fail(f'no compaction seen within {timeout_s} s of the backlog')


def _CqlHistory(session):
  """(compacted_at ms, bytes_in, bytes_out) of KEYSPACE's compactions."""
  rows = session.execute(
      'SELECT keyspace_name, compacted_at, bytes_in, bytes_out'
      ' FROM system.compaction_history'
  )
  return sorted(
      (_EpochMs(r.compacted_at), r.bytes_in, r.bytes_out)
      for r in rows
      if r.keyspace_name == KEYSPACE
  )


def _EpochMs(naive_utc):
  """The driver's naive UTC datetime -> epoch milliseconds."""
  aware = naive_utc.replace(tzinfo=datetime.timezone.utc)
  return round(aware.timestamp() * 1000)


def _Since(run):
  """KEYSPACE's compactions that ended after the load started."""
  return [h for h in run.cql_history if h[0] / 1000 >= run.populate_start]


def test_compaction_status_sees_the_backlog(run):
  assert run.busy.running >= 1
  assert not run.busy.idle


def test_quiesced_and_idle_afterwards(run):
  assert run.result.status == quiesce_timing.QUIESCED
  assert run.after.idle


def test_backlog_needed_several_compactions(run):
  assert len(_Since(run)) >= 2


def test_measured_end_matches_compaction_history(run):
  last_end = max(ms for ms, _, _ in _Since(run)) / 1000
  measured_end = run.populate_start + run.result.total_time_to_quiesce_s
  assert abs(measured_end - last_end) <= MAX_END_ERROR_S
  assert run.result.time_to_compact_s == pytest.approx(
      measured_end - run.populate_end
  )


def test_counts_and_bytes_match_compaction_history(run):
  since = _Since(run)
  assert run.result.compactions == len(since)
  assert run.result.bytes_in == sum(b for _, b, _ in since)
  assert run.result.bytes_out == sum(b for _, _, b in since)
  assert run.result.nodes_without_history == ()


def test_phase_did_not_end_before_the_last_compaction(run):
  last_end = max(ms for ms, _, _ in run.cql_history) / 1000
  assert run.returned_at >= last_end
  assert run.result.wait_s >= SETTLE_S


def test_parsed_history_matches_cql(run):
  parsed = sorted(
      (h.compacted_at_ms, h.bytes_in, h.bytes_out)
      for h in run.parsed_history
      if h.keyspace == KEYSPACE
  )
  assert parsed == run.cql_history


def test_parsed_history_starts_precede_ends(run):
  ours = [h for h in run.parsed_history if h.keyspace == KEYSPACE]
  assert ours
  for h in ours:
    assert h.started_at_ms is not None
    assert run.populate_start * 1000 <= h.started_at_ms <= h.compacted_at_ms
