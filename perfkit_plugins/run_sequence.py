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

"""Runs the planned steps in order: stress steps on the loaders, quiesce waits
on the servers, and records one outcome per step.

A failed or timed-out step ends the sequence (later figures would be measured
on a cluster in an unknown state), but never loses what was measured before
it, nor the raw outputs of the failed step itself: RunStressStep pulls every
loader's files whatever happens, and each outcome says what went wrong.
"""

import dataclasses
import logging
import os
import time
from typing import Any, Callable

from perfkit_plugins import compaction_poller
from perfkit_plugins import phase_runner
from perfkit_plugins import raw_outputs
from perfkit_plugins import remote_errors
from perfkit_plugins.core import plan
from perfkit_plugins.core import sample_rows
from perfkit_plugins.core import step_status

STATUS_OK = step_status.STATUS_OK
STATUS_FAILED = step_status.STATUS_FAILED
STATUS_TIMEOUT = step_status.STATUS_TIMEOUT
STATUS_NOT_RUN = 'not_run'
STATUS_INTERRUPTED = 'interrupted'


@dataclasses.dataclass(frozen=True)
class StepOutcome:
  """What one planned step did.

  Attributes:
    step: the plan.Step.
    status: STATUS_* or a result's own status (e.g. 'loader_saturated').
    started_at: controller clock, epoch seconds.
    ended_at: controller clock, epoch seconds.
    result: phase_results.StepResult (stress), quiesce_timing.QuiesceResult, or
      the local path of a schema step's output; None when the step failed
      or did not run.
    error: why it failed, or ''.
  """

  step: Any
  status: str
  started_at: float
  ended_at: float
  result: Any = None
  error: str = ''


def _NoNotification(event, step, outcome=None):
  del event, step, outcome


class _Loads:
  """The load windows quiesce figures are measured from.

  Attributes:
    populate: (earliest start, latest end) of the populate phase's loaders,
      or None before it ran.
    last: the same for the last stress step that ran, or None.
  """

  def __init__(self):
    self.populate = None
    self.last = None

  def Add(self, step, record):
    self.last = record.Span()
    if step.phase == 'populate':
      start, end = self.last
      if self.populate is not None:
        start, end = min(start, self.populate[0]), max(end, self.populate[1])
      self.populate = (start, end)


# Beside a stress step's raw outputs: its step_records.StepRecord (each
# loader's start and end on the controller's clock, clock offset, exit
# code, files), so the published times can be checked against the outputs.
RECORD_FILE = 'loaders.json'


def _RunStress(
    step, loaders, settings, output_dir, clock_offsets, loads, run_threaded
):
  """Runs a stress step, keeps its loaders' record and loads its result.

  The record (loaders.json) is written also when pkb.py is interrupted, so
  what the loaders did is in the run directory whatever happens next.

  Returns:
    (status, phase_results.StepResult).
  """
  step_dir = os.path.join(output_dir, step.name)
  os.makedirs(step_dir, exist_ok=True)
  try:
    record = phase_runner.RunStressStep(
        step,
        loaders,
        step_dir,
        clock_offsets,
        run_threaded=run_threaded,
        grace_s=settings.step_grace_s,
    )
  except phase_runner.StepInterrupted as e:
    raw_outputs.WriteJson(os.path.join(step_dir, RECORD_FILE), e.record)
    raise
  raw_outputs.WriteJson(os.path.join(step_dir, RECORD_FILE), record)
  loads.Add(step, record)
  result = phase_runner.LoadStepResult(step, record, settings)
  return result.status, result


def _RunQuiesce(
    step, engine, servers, settings, output_dir, clock_offsets, loads, clock
):
  """Waits for quiesce; figures are relative to the load awaited.

  A flush_quiesce step awaits the compactions of the load just before it
  (a latency rate); a quiesce step those of populate, or, without populate,
  none (the window is the start of the wait).
  """
  window = loads.populate
  if step.kind == 'flush_quiesce':
    for vm in servers:
      engine.Flush(vm, settings.keyspace)
    window = loads.last
  now = clock()
  start, end = window or (now, now)
  step_dir = os.path.join(output_dir, step.name)
  os.makedirs(step_dir, exist_ok=True)
  result = compaction_poller.WaitForQuiesce(
      engine,
      servers,
      start,
      end,
      settings.keyspace,
      clock_offsets,
      poll_s=settings.quiesce_poll_s,
      settle_s=settings.quiesce_settle_s,
      timeout_s=settings.quiesce_timeout_s,
      clock=clock,
      output_dir=step_dir,
  )
  status = STATUS_OK if result.status == 'quiesced' else result.status
  return status, result


def _LostServers(engine, servers):
  """Servers whose database ended (or that went away), one line each.

  Checked after every step: figures measured while a node was down are not
  the cluster's, so the step fails even when the loaders got through (RF 3
  at QUORUM survives one node).
  """
  lost = []
  for vm in servers:
    try:
      if engine.Running(vm):
        continue
      why = (
          f'the {engine.NAME} process is not running (it ended during the step)'
      )
    except Exception as e:  # pylint: disable=broad-except
      # Whatever PKB raised, the server is reported, not the check failed.
      why = f'unreachable ({remote_errors.Summary(e)})'
    lost.append(f'server {vm.name} ({vm.internal_ip}): {why}')
  return lost


def _WithLostServers(outcome, engine, servers):
  """A failed step's outcome, with the servers it lost named first."""
  lost = _LostServers(engine, servers)
  if not lost:
    return outcome
  return dataclasses.replace(outcome, error='; '.join(lost + [outcome.error]))


def Interrupted(outcomes):
  """Whether pkb.py was interrupted during one of the steps."""
  return any(o.status == STATUS_INTERRUPTED for o in outcomes)


def RunSteps(
    steps,
    engine,
    servers,
    loaders,
    settings,
    output_dir,
    clock_offsets,
    run_threaded,
    notify: Callable[..., None] = _NoNotification,
    clock: Callable[[], float] = time.time,
):
  """Runs `steps` in order; returns one StepOutcome per step.

  Args:
    steps: plan.PlanRun output.
    engine: base.Engine of the servers.
    servers: server VMs.
    loaders: loader VMs (LoaderRun.loader_index indexes them).
    settings: validated settings.Settings.
    output_dir: local directory for raw outputs, one subdirectory per step.
    clock_offsets: {vm name: VM clock minus controller clock, seconds}.
    run_threaded: PKB's background_tasks.RunThreaded, which runs the loaders
      of a step (phase_runner.RunStressStep).
    notify: called as notify('start', step) and notify('end', step, outcome)
      so observers can follow the run.
    clock: controller clock (epoch seconds).

  Returns:
    list[StepOutcome]: steps after a failure get STATUS_NOT_RUN.
  """
  loads = _Loads()
  outcomes = []
  stopped = None
  for step in steps:
    if stopped:
      now = clock()
      outcomes.append(
          StepOutcome(step, STATUS_NOT_RUN, now, now, error=stopped)
      )
      continue
    notify('start', step)
    started_at = clock()
    try:
      if step.kind == plan.KIND_SCHEMA:
        step_dir = os.path.join(output_dir, step.name)
        os.makedirs(step_dir, exist_ok=True)
        status = STATUS_OK
        result = phase_runner.CreateSchema(step, loaders, step_dir)
      elif step.kind == plan.KIND_STRESS:
        status, result = _RunStress(
            step,
            loaders,
            settings,
            output_dir,
            clock_offsets,
            loads,
            run_threaded,
        )
      else:
        status, result = _RunQuiesce(
            step,
            engine,
            servers,
            settings,
            output_dir,
            clock_offsets,
            loads,
            clock,
        )
      lost = _LostServers(engine, servers)
      if lost:
        outcome = StepOutcome(
            step, STATUS_FAILED, started_at, clock(), error='; '.join(lost)
        )
        stopped = f'{step.name} failed'
      else:
        outcome = StepOutcome(step, status, started_at, clock(), result)
      if status == STATUS_TIMEOUT:
        stopped = f'{step.name} timed out waiting for compactions'
    except step_status.PhaseOutputError as e:
      outcome = _WithLostServers(
          StepOutcome(step, e.status, started_at, clock(), error=str(e)),
          engine,
          servers,
      )
      stopped = f'{step.name} failed'
    except KeyboardInterrupt:
      outcome = StepOutcome(
          step,
          STATUS_INTERRUPTED,
          started_at,
          clock(),
          error=f'{step.name}: pkb.py was interrupted (SIGINT) during it',
      )
      stopped = f'pkb.py was interrupted during {step.name}'
    except Exception as e:  # pylint: disable=broad-except
      # A failing step ends the sequence with its outcome recorded, so the
      # steps before it are still published.
      logging.exception('scylla_phases: step %s failed', step.name)
      outcome = _WithLostServers(
          StepOutcome(step, STATUS_FAILED, started_at, clock(), error=f'{e}'),
          engine,
          servers,
      )
      stopped = f'{step.name} failed'
    outcomes.append(outcome)
    notify('end', step, outcome)
  return outcomes


def OutcomeRows(outcome, context):
  """The sample rows of one step's outcome (sample_rows.SampleRow list).

  A step without figures (failed, or not run after an earlier failure) still
  gets its phase_status row, so a reader sees what was not measured and why.
  """
  step = outcome.step
  if outcome.result is None or step.kind == plan.KIND_SCHEMA:
    return [
        sample_rows.StatusRow(
            step,
            context,
            outcome.status,
            succeeded=outcome.result is not None,
            error=outcome.error,
        )
    ]
  if step.kind == plan.KIND_STRESS:
    return sample_rows.StressRows(step, outcome.result, context)
  return sample_rows.QuiesceRows(step, outcome.result, context)


def Failures(outcomes):
  """Messages of the steps that gave no figures or timed out."""
  return [
      f'{o.step.name}: {o.status}' + (f' ({o.error})' if o.error else '')
      for o in outcomes
      if o.result is None or o.status == STATUS_TIMEOUT
  ]
