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

"""A step's results and loader saturation, from its loaders' outputs.

On the lab's real cassandra-stress outputs and the real CPU sample files
of an idle and a busy loader.
"""

import dataclasses

import pytest

from perfkit_plugins.core import phase_results
from perfkit_plugins.core import step_status
from perfkit_plugins.testing import stress_steps


def test_saturated_loaders_are_marked(write_output):
  settings = stress_steps.Settings()
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output(cpu='loader-busy.cpu')}, settings
  )
  assert result.status == step_status.STATUS_SATURATED
  assert result.saturated
  assert result.loader_cpu_max_pct == pytest.approx(100.0 * 1189 / 1204)
  assert result.loader_cpu[0].mean_pct < settings.loader_cpu_threshold


def test_saturated_loaders_fail_when_asked_to(write_output):
  settings = stress_steps.Settings(loader_saturation_action='fail')
  step = stress_steps.StepOf(settings, 'populate')
  with pytest.raises(step_status.PhaseOutputError) as raised:
    phase_results.ResultOfStep(
        step,
        stress_steps.Record(step),
        {0: write_output(cpu='loader-busy.cpu'), 1: write_output()},
        settings,
    )
  assert raised.value.status == step_status.STATUS_SATURATED
  assert 'saturated' in str(raised.value)


def test_threshold_decides_saturation(write_output):
  result = stress_steps.PopulateResult(
      {0: write_output(), 1: write_output()},
      settings=stress_steps.Settings(loader_cpu_threshold=30.0),
  )
  # The idle loader was 59.5% busy (other work on the host).
  assert result.saturated


def test_missing_cpu_samples_are_noted_not_fatal(write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  no_cpu = dataclasses.replace(write_output(), cpu=None)
  result = phase_results.ResultOfStep(
      step, stress_steps.Record(step), {0: no_cpu, 1: write_output()}, settings
  )
  assert result.loader_cpu[0] is None
  assert result.loader_cpu[1] is not None
  assert 'loader 0 (vm0): CPU samples missing' in result.cpu_problems[0]
