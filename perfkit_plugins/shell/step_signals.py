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

"""Signals that let observers follow a run step by step.

Sender: the benchmark's name (benchmark_spec.name); keyword arguments:
benchmark_spec, step and, when the step finished, its outcome. Finished
steps also go to PKB's events.record_event, for its tracing, and every
step's start is logged as one line a person can follow (core/plan/
progress.py: step k of n, elapsed, time left).
"""

import logging
import time

import blinker
from perfkitbenchmarker import events

from perfkit_plugins.core.plan import progress

STEP_STARTED = blinker.signal('scylla_phases.step_started')
STEP_FINISHED = blinker.signal('scylla_phases.step_finished')


def Notifier(benchmark_spec, steps, clock=time.time):
  """Sends each step's start and end to observers (see STEP_STARTED).

  Args:
    benchmark_spec: the run's PKB BenchmarkSpec.
    steps: every planned step, in order (for the progress line).
    clock: the controller's clock.
  """

  name = benchmark_spec.name
  started_at = []

  def Notify(event, step, outcome=None):
    if event == 'start':
      now = clock()
      started_at[:] = started_at or [now]
      logging.info(
          progress.ProgressLine(steps, steps.index(step), now - started_at[0])
      )
      STEP_STARTED.send(name, benchmark_spec=benchmark_spec, step=step)
      return
    STEP_FINISHED.send(
        name,
        benchmark_spec=benchmark_spec,
        step=step,
        outcome=outcome,
    )
    events.record_event.send(
        name,
        event=f'{name}.{step.name}',
        start_timestamp=outcome.started_at,
        end_timestamp=outcome.ended_at,
        metadata={'scylla_status': outcome.status, 'scylla_phase': step.phase},
    )

  return Notify
