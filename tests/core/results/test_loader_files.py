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

"""Tests of core/results/loader_files.py: a loader run's files and record."""

import pytest

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.testing import stress_steps


def test_parses_times_files(testdata):
  times = loader_files.ParseTimes(testdata('loader', 'loader-busy.times'))
  assert times == loader_files.LoaderTimes(
      1795309197.913115608, 1795309203.926407155, 0
  )
  failed = loader_files.ParseTimes(testdata('loader', 'loader-fail.times'))
  assert failed.exit_code == 3
  # Files written before the command recorded the space left.
  assert failed.free_kib is None
  assert loader_files.ParseTimes('start 1.5\nfree \n').free_kib is None


def test_times_file_without_end_means_the_run_never_ended(testdata):
  start_only = testdata('loader', 'loader-busy.times').splitlines()[0]
  times = loader_files.ParseTimes(start_only)
  assert (times.end_s, times.exit_code) == (None, None)


def test_times_file_without_start_is_an_error(testdata):
  end_only = testdata('loader', 'loader-busy.times').splitlines()[1]
  with pytest.raises(ValueError, match='no start'):
    loader_files.ParseTimes(end_only)


def test_span_uses_loader_times_else_controller_times():
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  record = stress_steps.Record(
      step,
      changes={
          0: {'start_s': 101.5, 'end_s': 250.0},
          1: {'start_s': None, 'end_s': None, 'returned_at': 260.0},
      },
  )
  assert record.Span() == (100.0, 260.0)
