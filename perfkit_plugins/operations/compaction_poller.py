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

"""Waits until the cluster has finished compacting, and measures it.

Every node is polled at once every few seconds through the engine
(`engine.CompactionStatus(vm)`) until core/quiesce/quiesce_timing.py says the
cluster has been idle for the settle window or the timeout has passed; then
every node's compaction history (`engine.CompactionHistory(vm)`) gives the
exact end of the last compaction. A poll that raises, returns None or does
not answer in time counts as an unreachable node, which breaks the idle
streak but never stops the wait.

With an output directory, every poll is appended to POLLS_FILE as it is made
(a timed-out wait keeps them) and every node's compaction history is written
to HISTORY_FILE, so the published figures can be recomputed.
"""

import concurrent.futures
import logging
import os
import time

from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.operations import run_files

# Log progress at most this often.
_LOG_EVERY_S = 60
# JSON lines: {"t": controller time, "nodes": {node: status or null}}.
POLLS_FILE = 'compaction_polls.jsonl'
# JSON: {node: [history entries, node clock] or null when unanswered}.
HISTORY_FILE = 'compaction_history.json'


def WaitForQuiesce(
    env, window, output_dir=None, call_timeout_s=120, sleep=time.sleep
):
  """Polls every server until compactions have settled; returns the figures.

  Args:
    env: run_env.RunEnv: its engine (CompactionStatus(vm) ->
      compactions.CompactionStatus, CompactionHistory(vm) ->
      list[compactions.HistoryEntry] in the node's clock), servers (distinct
      names), clock offsets, clock and settings (keyspace, quiesce poll,
      settle window and timeout).
    window: (start, end) of the load whose compactions are awaited (earliest
      loader start, latest loader end), controller clock, epoch seconds.
    output_dir: local directory for POLLS_FILE and HISTORY_FILE, or None.
    call_timeout_s: a node that has not answered a call by then counts as
      unreachable for that poll.
    sleep: sleeps a number of seconds; injectable for tests.

  Returns:
    core.quiesce_timing.QuiesceResult.
  """
  engine, vms, clock, settings = (
      env.engine,
      env.servers,
      env.clock,
      env.settings,
  )
  populate_start, populate_end = window
  poll_s = settings.quiesce_poll_s
  names = tuple(vm.name for vm in vms)
  tracker = quiesce_timing.PollTracker(
      nodes=names,
      started_at=clock(),
      settle_s=settings.quiesce_settle_s,
      timeout_s=settings.quiesce_timeout_s,
  )
  last_log = None
  while tracker.status is None:
    poll_start = clock()
    statuses = _CallAll(engine.CompactionStatus, vms, call_timeout_s)
    now = clock()
    if output_dir is not None:
      run_files.AppendJsonLine(
          os.path.join(output_dir, POLLS_FILE), {'t': now, 'nodes': statuses}
      )
    tracker = quiesce_timing.Observe(tracker, now, statuses)
    if tracker.status or last_log is None or now - last_log >= _LOG_EVERY_S:
      _LogProgress(tracker, now, statuses)
      last_log = now
    if tracker.status is None:
      sleep(max(0.0, poll_s - (clock() - poll_start)))
  histories = _CallAll(engine.CompactionHistory, vms, call_timeout_s)
  if output_dir is not None:
    run_files.WriteJson(os.path.join(output_dir, HISTORY_FILE), histories)
  missing = tuple(name for name in names if histories[name] is None)
  if missing:
    logging.warning('No compaction history from %s', ', '.join(missing))
  work = quiesce_timing.CompactionEnd(
      {name: h for name, h in histories.items() if h is not None},
      env.clock_offsets,
      since=populate_start,
      keyspace=settings.keyspace,
  )
  return quiesce_timing.Summarize(
      tracker, work, populate_start, populate_end, missing
  )


def _CallAll(function, vms, timeout_s):
  """{vm.name: function(vm)} run in parallel; None for failures and stragglers.

  A call still running after timeout_s is abandoned (its thread is left to
  finish on its own) so that one hung node cannot stall the wait.
  """
  pool = concurrent.futures.ThreadPoolExecutor(max(1, len(vms)))
  futures = {vm.name: pool.submit(function, vm) for vm in vms}
  concurrent.futures.wait(futures.values(), timeout=timeout_s)
  pool.shutdown(wait=False, cancel_futures=True)
  results = {}
  for name, future in futures.items():
    results[name] = None
    if not future.done():
      logging.warning(
          '%s: no answer to %s in %s s', name, function.__name__, timeout_s
      )
    elif future.exception() is not None:
      logging.debug(
          '%s: %s failed: %s', name, function.__name__, future.exception()
      )
    else:
      results[name] = future.result()
  return results


def _LogProgress(tracker, now, statuses):
  """One line: time waited, idle streak and every node's counts."""
  nodes = []
  for name in tracker.nodes:
    status = statuses.get(name)
    if status is None:
      nodes.append(f'{name} unreachable')
    else:
      nodes.append(
          f'{name} running={status.running} pending={status.pending}'
          f' tablets={status.tablet_transitions}'
      )
  idle = 0 if tracker.idle_since is None else now - tracker.idle_since
  logging.info(
      'Quiesce %s: %.0f s waited, %d polls, idle %.0f/%s s; %s',
      tracker.status or 'waiting',
      now - tracker.started_at,
      tracker.polls,
      idle,
      tracker.settle_s,
      '; '.join(nodes),
  )
