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

"""One line saying where a run is: step k of n, elapsed, time left.

Logged at every step's start (shell/step_signals), so a person watching
pkb.py's console follows the run without reading its log file. Time left
is the planned length of the steps still to run (the current one
included); steps whose length depends on the cluster (populate, quiesce)
are counted, not guessed.
"""

from perfkit_plugins.core import number_format


def ProgressLine(steps, index, elapsed_s):
  """The line for the start of steps[index].

  Args:
    steps: the run's planned steps (plan.Step), in order.
    index: the step starting now.
    elapsed_s: seconds since the first step started.

  Returns:
    e.g. 'scylla_phases RUN: step 5 of 14, read_small (repeat 2 of 3);
    12m 30s elapsed, about 48m left (+ 1 quiesce of unknown length)'.
  """
  step = steps[index]
  name = step.published_name
  repeats = max(s.repeat for s in steps)
  if repeats > 1 and step.label:
    name += f' (repeat {step.repeat} of {repeats})'
  ahead = steps[index:]
  known = sum(s.expected_duration_s or 0 for s in ahead)
  unknown = sum(1 for s in ahead if s.expected_duration_s is None)
  left = f'about {number_format.FormatDuration(known)} left'
  if unknown:
    left += f' (+ {unknown} step{"s" if unknown > 1 else ""} of unknown length)'
  return (
      f'scylla_phases RUN: step {index + 1} of {len(steps)}, {name};'
      f' {number_format.FormatDuration(elapsed_s)} elapsed, {left}'
  )
