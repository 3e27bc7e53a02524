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
streak; the first failure of a node is logged with its error, and a node
that answers no poll for the settle window, or whose database ended, fails
the wait (QuiesceError) rather than holding it until its timeout.

With an output directory, every poll is appended to POLLS_FILE as it is made
(a timed-out wait keeps them) and every node's compaction history is written
to HISTORY_FILE, so the published figures can be recomputed.
"""

import concurrent.futures
import logging
import os
import time

from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.operations import remote_errors
from perfkit_plugins.operations import run_files

# Log progress at most this often.
_LOG_EVERY_S = 60
# A node fails the wait after this many failed polls in a row (and the
# settle window): one lost poll is ssh's hiccup, not a lost node.
_FAILED_POLLS = 3
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
  unanswered = _Unanswered(engine, settings.quiesce_settle_s)
  last_log = None
  while tracker.status is None:
    poll_start = clock()
    statuses, errors = _CallAll(engine.CompactionStatus, vms, call_timeout_s)
    now = clock()
    if output_dir is not None:
      run_files.AppendJsonLine(
          os.path.join(output_dir, POLLS_FILE), {'t': now, 'nodes': statuses}
      )
    unanswered.Check(vms, statuses, errors, now)
    tracker = quiesce_timing.Observe(tracker, now, statuses)
    if tracker.status or last_log is None or now - last_log >= _LOG_EVERY_S:
      _LogProgress(tracker, now, statuses)
      last_log = now
    if tracker.status is None:
      sleep(max(0.0, poll_s - (clock() - poll_start)))
  histories, errors = _CallAll(engine.CompactionHistory, vms, call_timeout_s)
  if output_dir is not None:
    run_files.WriteJson(os.path.join(output_dir, HISTORY_FILE), histories)
  missing = tuple(name for name in names if histories[name] is None)
  for name in missing:
    logging.warning('%s: no compaction history: %s', name, errors[name])
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
  """Calls function(vm) for every VM in parallel.

  A call still running after timeout_s is abandoned (its thread is left to
  finish on its own) so that one hung node cannot stall the wait.

  Returns:
    ({vm.name: the result, None for failures and stragglers},
     {vm.name: why there is no result, one line}).
  """
  pool = concurrent.futures.ThreadPoolExecutor(max(1, len(vms)))
  futures = {vm.name: pool.submit(function, vm) for vm in vms}
  concurrent.futures.wait(futures.values(), timeout=timeout_s)
  pool.shutdown(wait=False, cancel_futures=True)
  results, errors = {}, {}
  for name, future in futures.items():
    results[name] = None
    if not future.done():
      errors[name] = f'no answer to {function.__name__} in {timeout_s} s'
    elif future.exception() is not None:
      errors[name] = (
          f'{function.__name__} failed:'
          f' {remote_errors.Summary(future.exception())}'
      )
    else:
      results[name] = future.result()
  return results, errors


class QuiesceError(Exception):
  """A node cannot be followed: its database ended, or it never answers."""


class _Unanswered:
  """Nodes whose polls fail: warned about once, failing the wait at last.

  A node that has answered no poll for the settle window (and at least
  _FAILED_POLLS polls) would keep the wait from ever ending until its
  timeout (a day by default) without a word: it fails the wait instead,
  as does a node whose database ended.
  """

  def __init__(self, engine, settle_s):
    self.engine = engine
    self.settle_s = settle_s
    self.since = {}

  def Check(self, vms, statuses, errors, now):
    """Warns about nodes that stopped answering; raises for lost ones.

    Raises:
      QuiesceError: naming the node and why.
    """
    for vm in vms:
      error = errors.get(vm.name)
      if error is None and statuses.get(vm.name) is None:
        error = 'no compaction status'
      if error is None:
        self.since.pop(vm.name, None)
        continue
      if vm.name not in self.since:
        self.since[vm.name] = (now, 0)
        logging.warning('%s: compaction poll failed: %s', vm.name, error)
      first, polls = self.since[vm.name]
      self.since[vm.name] = (first, polls + 1)
      if not self._Running(vm):
        raise QuiesceError(
            f'server {vm.name} ({vm.internal_ip}): its {self.engine.NAME}'
            f' process ended during the quiesce wait ({error})'
        )
      if polls + 1 >= _FAILED_POLLS and now - first >= self.settle_s:
        raise QuiesceError(
            f'server {vm.name} ({vm.internal_ip}) answered no compaction'
            f' poll for {now - first:.0f} s ({polls + 1} polls, the settle'
            f' window is {self.settle_s} s): {error}'
        )

  def _Running(self, vm):
    try:
      return self.engine.Running(vm)
    except Exception:  # pylint: disable=broad-except
      # An unreachable node is not known to have ended; its polls tell.
      return True


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
