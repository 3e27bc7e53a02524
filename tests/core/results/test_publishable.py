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

"""Published values stay bounded whatever the loader count."""

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import loader_checks
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import publishable
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.testing import run_contexts

LOADERS = 60


def _Populate(loader_count):
  settings = settings_lib.Validate(
      settings_lib.Settings(
          phases=('populate',),
          num_keys=100 * loader_count,
          loader_count=loader_count,
          latency_rates=(100 * loader_count,),
      )
  )
  steps = plan.PlanRun(
      settings, ['10.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
  )
  (step,) = [s for s in steps if s.name == 'populate']
  return step


def _Published(rows):
  return [publishable.Metadata(row.metadata) for row in rows]


def test_short_lists_are_whole():
  assert publishable.List(['1..500', '501..1000']) == '[1..500,501..1000]'
  assert publishable.List([0] * publishable.MAX_LIST_ITEMS) == (
      '[' + ','.join(['0'] * publishable.MAX_LIST_ITEMS) + ']'
  )


@pytest.mark.parametrize(
    'loader_count, rates, ranges',
    [(1, '[0]', '[1..100]'), (2, '[0,0]', '[1..100,101..200]')],
)
def test_a_loader_list_has_one_form_whatever_the_loader_count(
    loader_count, rates, ranges
):
  # One loader's `0` alone would be a number to an index that guesses types
  # from the first value it sees, and the next run's `0,0` refused.
  step = _Populate(loader_count)
  outcome = outcomes.StepOutcome(step, outcomes.STATUS_FAILED, 0.0, 1.0)
  (status,) = sample_rows.OutcomeRows(outcome, run_contexts.ScyllaZ3())
  (published,) = _Published([status])
  assert published['scylla_loader_rates'] == rates
  assert published['scylla_loader_key_ranges'] == ranges


def test_a_loader_list_of_a_large_run_is_summed_up():
  step = _Populate(LOADERS)
  ranges = step.metadata['loader_key_ranges']
  assert len(ranges) == LOADERS
  outcome = outcomes.StepOutcome(
      step, outcomes.STATUS_FAILED, 0.0, 1.0, error='populate: boom'
  )
  (status,) = sample_rows.OutcomeRows(outcome, run_contexts.ScyllaZ3())
  (published,) = _Published([status])
  assert published['scylla_loader_key_ranges'] == (
      f'[{ranges[0]},{ranges[1]},...,{ranges[-1]}] ({LOADERS} values)'
  )
  assert published['scylla_loader_key_ranges'].startswith('[1..100,101..200,')
  assert published['scylla_loader_rates'] == f'[0,0,...,0] ({LOADERS} values)'


def test_an_error_naming_every_loader_is_cut_after_whole_problems():
  step = _Populate(LOADERS)
  problems = [
      f'loader{i} (10.0.1.{i}): command failed: ssh: connect to host'
      f' 10.0.1.{i} port 22: Connection refused'
      for i in range(LOADERS)
  ]
  error = str(outcomes.PhaseOutputError(step.name, problems))
  assert len(error) > 5000
  outcome = outcomes.StepOutcome(
      step, outcomes.STATUS_FAILED, 0.0, 1.0, error=error
  )
  (status,) = sample_rows.OutcomeRows(outcome, run_contexts.ScyllaZ3())
  (published,) = _Published([status])
  text = published['scylla_error']
  assert len(text) <= publishable.MAX_CHARS
  kept, note = text.split(' ... ')
  assert error.startswith(kept)
  assert kept.endswith('Connection refused')
  left = LOADERS - kept.count('loader')
  assert note == (
      f'({left} more problems; {len(error):,} characters in all: steps.json)'
  )
  # The run directory keeps it whole.
  entry = outcomes.StepEntry(outcome)
  assert entry['error'] == error
  assert len(entry['metadata']['loader_key_ranges']) == LOADERS


def test_short_text_is_published_whole():
  assert publishable.Value('scylla_error', 'populate: boom') == 'populate: boom'
