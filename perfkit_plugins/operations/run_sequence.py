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

import logging
import os

from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.operations import compaction_poller
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import remote_errors
from perfkit_plugins.operations import run_files
from perfkit_plugins.operations import server_sampling


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


# In the run's output directory: one directory per step, named after it.
STEPS_DIR = 'steps'
# Beside a stress step's raw outputs: its loader_files.StepRecord (each
# loader's start and end on the controller's clock, clock offset, exit
# code, files), so the published times can be checked against the outputs.
RECORD_FILE = 'loaders.json'
# Beside it: each server's sampling of the step (server_sampling.ServerFiles:
# its clock offset, the files pulled and why any is missing).
SERVERS_FILE = 'servers.json'


def _RunStress(step, env, loads):
  """Runs a stress step, keeps its loaders' record and loads its result.

  Every server is sampled while it runs (server_sampling), and the
  samplers are stopped and pulled whatever happens. The record
  (loaders.json) is written also when pkb.py is interrupted, so what the
  loaders did is in the run directory whatever happens next.

  Returns:
    (status, step_results.StepResult).
  """
  step_dir = env.Dir(STEPS_DIR, step.name)
  sampling = server_sampling.Sampling(env, step.name)
  sampling.Start()
  try:
    record = phase_runner.RunStressStep(step, env, step_dir)
  except phase_runner.StepInterrupted as e:
    run_files.WriteJson(os.path.join(step_dir, RECORD_FILE), e.record)
    raise
  finally:
    servers = sampling.StopAndPull(step_dir)
    run_files.WriteJson(os.path.join(step_dir, SERVERS_FILE), servers)
  run_files.WriteJson(os.path.join(step_dir, RECORD_FILE), record)
  loads.Add(step, record)
  result = run_files.LoadStepResult(
      step, record, env.settings, server_sampling.Outputs(servers)
  )
  return result.status, result


def _RunQuiesce(step, env, loads):
  """Waits for quiesce; figures are relative to the load awaited.

  A flush_quiesce step awaits the compactions of the load just before it
  (a latency rate); a quiesce step those of populate, or, without populate,
  none (the window is the start of the wait).
  """
  window = loads.populate
  if step.kind == 'flush_quiesce':
    for vm in env.servers:
      env.engine.Flush(vm, env.settings.keyspace)
    window = loads.last
  now = env.clock()
  result = compaction_poller.WaitForQuiesce(
      env, window or (now, now), env.Dir(STEPS_DIR, step.name)
  )
  status = outcomes.STATUS_OK if result.status == 'quiesced' else result.status
  return status, result


def _LostServers(env):
  """Servers whose database ended (or that went away), one line each.

  Checked after every step: figures measured while a node was down are not
  the cluster's, so the step fails even when the loaders got through (RF 3
  at QUORUM survives one node).
  """
  engine = env.engine
  lost = []
  for vm in env.servers:
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


def _Failed(step, status, started_at, error, env):
  """A failed step's outcome, with the servers it lost named first."""
  return outcomes.StepOutcome(
      step,
      status,
      started_at,
      env.clock(),
      error='; '.join(_LostServers(env) + [error]),
  )


def _RunStep(step, env, loads):
  """Runs one step; returns (status, result)."""
  if step.kind == plan.KIND_SCHEMA:
    step_dir = env.Dir(STEPS_DIR, step.name)
    return outcomes.STATUS_OK, phase_runner.CreateSchema(step, env, step_dir)
  if step.kind == plan.KIND_STRESS:
    return _RunStress(step, env, loads)
  return _RunQuiesce(step, env, loads)


def RunSteps(steps, env, notify=_NoNotification):
  """Runs `steps` in order; returns one StepOutcome per step.

  Args:
    steps: plan.PlanRun output.
    env: run_env.RunEnv of the run.
    notify: called as notify('start', step) and notify('end', step, outcome)
      so observers can follow the run.

  Returns:
    list[outcomes.StepOutcome]: steps after a failure get
    outcomes.STATUS_NOT_RUN.
  """
  clock = env.clock
  loads = _Loads()
  done = []
  stopped = None
  for step in steps:
    if stopped:
      now = clock()
      done.append(
          outcomes.StepOutcome(
              step, outcomes.STATUS_NOT_RUN, now, now, error=stopped
          )
      )
      continue
    notify('start', step)
    started_at = clock()
    try:
      status, result = _RunStep(step, env, loads)
      lost = _LostServers(env)
      if lost:
        outcome = outcomes.StepOutcome(
            step,
            outcomes.STATUS_FAILED,
            started_at,
            clock(),
            error='; '.join(lost),
        )
        stopped = f'{step.name} failed'
      else:
        outcome = outcomes.StepOutcome(
            step, status, started_at, clock(), result
        )
      if status == outcomes.STATUS_TIMEOUT:
        stopped = f'{step.name} timed out waiting for compactions'
    except outcomes.PhaseOutputError as e:
      outcome = _Failed(step, e.status, started_at, str(e), env)
      stopped = f'{step.name} failed'
    except KeyboardInterrupt:
      outcome = outcomes.StepOutcome(
          step,
          outcomes.STATUS_INTERRUPTED,
          started_at,
          clock(),
          error=f'{step.name}: pkb.py was interrupted (SIGINT) during it',
      )
      stopped = f'pkb.py was interrupted during {step.name}'
    except Exception as e:  # pylint: disable=broad-except
      # A failing step ends the sequence with its outcome recorded, so the
      # steps before it are still published.
      logging.exception('scylla_phases: step %s failed', step.name)
      outcome = _Failed(step, outcomes.STATUS_FAILED, started_at, f'{e}', env)
      stopped = f'{step.name} failed'
    done.append(outcome)
    notify('end', step, outcome)
  return done
