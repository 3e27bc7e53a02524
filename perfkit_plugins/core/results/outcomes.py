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

"""How each step of a run ended.

The operations layer records one StepOutcome per planned step; the shell
publishes each one's rows (sample_rows.OutcomeRows) and fails the run on
Failures. The statuses are published with every step's samples, so a reader
can tell a step that measured the database from one that failed, timed out,
was not run, was interrupted, measured saturated loaders or did not reach
its fixed rate; PhaseOutputError carries the status of a step whose
outputs give no figures, with every problem found.
"""

import dataclasses
from typing import Any

STATUS_OK = 'ok'
STATUS_FAILED = 'failed'
STATUS_TIMEOUT = 'timeout'
STATUS_SATURATED = 'loader_saturated'
# A fixed-rate step whose loaders completed too little of their schedule
# (step_results.FixedRate): its figures are published, marked.
STATUS_RATE_NOT_REACHED = 'rate_not_reached'
STATUS_NOT_RUN = 'not_run'
STATUS_INTERRUPTED = 'interrupted'


@dataclasses.dataclass(frozen=True)
class StepOutcome:
  """What one planned step did.

  Attributes:
    step: the plan.Step.
    status: STATUS_* or a result's own status (e.g. 'loader_saturated',
      'rate_not_reached').
    started_at: controller clock, epoch seconds.
    ended_at: controller clock, epoch seconds.
    result: step_results.StepResult (stress), quiesce_timing.QuiesceResult,
      or the local path of a schema step's output; None when the step failed
      or did not run.
    error: why it failed, or ''.
  """

  step: Any
  status: str
  started_at: float
  ended_at: float
  result: Any = None
  error: str = ''


def StepEntry(outcome):
  """What the run directory's steps.json keeps of a step, as a dict.

  Its status, times, whole error and the plan's metadata with every list
  whole (one value per loader): the published samples carry them bounded
  (core/results/publishable.py).
  """
  step = outcome.step
  return {
      'step': step.name,
      'kind': step.kind,
      'phase': step.phase,
      'status': outcome.status,
      'started_at': outcome.started_at,
      'ended_at': outcome.ended_at,
      'error': outcome.error,
      'metadata': dict(step.metadata),
  }


def Interrupted(outcomes):
  """Whether pkb.py was interrupted during one of the steps."""
  return any(o.status == STATUS_INTERRUPTED for o in outcomes)


def Failures(outcomes):
  """Messages of the steps that gave no figures or timed out."""
  return [
      f'{o.step.name}: {o.status}' + (f' ({o.error})' if o.error else '')
      for o in outcomes
      if o.result is None or o.status == STATUS_TIMEOUT
  ]


class PhaseOutputError(Exception):
  """A step whose outputs cannot give results; nothing of it is published.

  Attributes:
    step_name: the step.
    status: STATUS_FAILED, or STATUS_SATURATED when saturated loaders fail
      the step.
    problems: one message per problem, each naming the loader and file.
  """

  def __init__(self, step_name, problems, status=STATUS_FAILED):
    self.step_name = step_name
    self.status = status
    self.problems = tuple(problems)
    super().__init__(f'{step_name}: ' + '; '.join(self.problems))
