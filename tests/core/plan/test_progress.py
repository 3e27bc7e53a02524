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

"""Tests of core/plan/progress.py: the line that says where a run is."""

from perfkit_plugins.core.plan import progress
from perfkit_plugins.testing import planned_runs


def _Steps(**changes):
  settings = planned_runs.Settings(
      phases=('populate', 'quiesce', 'read', 'mixed'),
      num_keys=100000,
      loader_count=2,
      **changes,
  )
  return planned_runs.PhaseSteps(settings, ['10.0.0.1'], 1 << 30, '/cs', '/r')


def test_counts_the_steps_and_the_planned_time_left():
  steps = _Steps()
  names = [s.name for s in steps]
  first = progress.ProgressLine(steps, 0, 0.0)
  # Populate and quiesce depend on the cluster: counted, not guessed.
  assert first == (
      f'scylla_phases RUN: step 1 of {len(steps)}, populate; 0s elapsed,'
      ' about 2h 05m 00s left (+ 2 steps of unknown length)'
  )
  small = names.index('read_small')
  assert progress.ProgressLine(steps, small, 3725.0) == (
      f'scylla_phases RUN: step {small + 1} of {len(steps)}, read_small;'
      ' 1h 02m 05s elapsed, about 2h 00m 00s left'
  )


def test_says_the_repeat():
  steps = _Steps(repeats=2)
  index = [s.name for s in steps].index('read_small.r2')
  line = progress.ProgressLine(steps, index, 60.0)
  assert f'step {index + 1} of {len(steps)}, read_small (repeat 2 of 2);' in (
      line
  )
