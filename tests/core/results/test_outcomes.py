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

"""Tests of core/results/outcomes.py (and a step's outcome as rows)."""

from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import stress_steps


def _Outcome(status, error='', result=None):
  step = stress_steps.StepOf(stress_steps.Settings(), 'populate')
  return outcomes.StepOutcome(step, status, 100.0, 200.0, result, error)


def test_a_failed_step_has_only_its_status_row():
  error = outcomes.PhaseOutputError(
      'populate', ['loader 1 (vm1): log /r/populate.loader1.log missing']
  )
  (row,) = sample_rows.OutcomeRows(
      _Outcome(error.status, str(error)), run_contexts.ScyllaZ3()
  )
  assert (row.metric, row.value) == ('phase_status', 0)
  assert row.metadata['scylla_status'] == 'failed'
  assert 'loader 1 (vm1)' in row.metadata['scylla_error']


def test_saturated_loaders_that_fail_the_step_say_so():
  error = outcomes.PhaseOutputError(
      'populate', ['loaders saturated'], status='loader_saturated'
  )
  (row,) = sample_rows.OutcomeRows(
      _Outcome(error.status, str(error)), run_contexts.ScyllaZ3()
  )
  assert (row.value, row.metadata['scylla_status']) == (0, 'loader_saturated')


def test_failures_name_every_step_without_figures_and_timeouts():
  done = [
      _Outcome(outcomes.STATUS_OK, result=object()),
      _Outcome(outcomes.STATUS_TIMEOUT, result=object()),
      _Outcome(outcomes.STATUS_FAILED, 'populate: it broke'),
      _Outcome(outcomes.STATUS_NOT_RUN, 'populate failed'),
  ]
  assert outcomes.Failures(done) == [
      'populate: timeout',
      'populate: failed (populate: it broke)',
      'populate: not_run (populate failed)',
  ]
  assert not outcomes.Interrupted(done)
  assert outcomes.Interrupted(done + [_Outcome(outcomes.STATUS_INTERRUPTED)])
