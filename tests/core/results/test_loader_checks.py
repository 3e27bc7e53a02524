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

"""Tests of core/results/loader_checks.py: complete outputs and loader CPU."""

import dataclasses

import pytest

from perfkit_plugins.core.results import loader_checks
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.results import step_results
from perfkit_plugins.testing import stress_steps


def Problems(step, record, outputs, settings):
  with pytest.raises(outcomes.PhaseOutputError) as raised:
    step_results.ResultOfStep(step, record, outputs, settings)
  assert raised.value.status == outcomes.STATUS_FAILED
  return str(raised.value)


def test_missing_log_names_loader_and_file(write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  missing = dataclasses.replace(write_output(), log=None)
  record = stress_steps.Record(
      step, changes={1: {'missing_files': {'log': 'no such file'}}}
  )
  message = Problems(step, record, {0: write_output(), 1: missing}, settings)
  assert 'loader 1 (vm1): log /r/populate.loader1.log missing' in message
  assert 'no such file' in message
  assert 'loader 0' not in message


def test_empty_log_fails(write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  empty = dataclasses.replace(write_output(), log='')
  message = Problems(
      step, stress_steps.Record(step), {0: empty, 1: write_output()}, settings
  )
  assert 'loader 0 (vm0): log /r/populate.loader0.log: Empty' in message


def test_truncated_log_fails(lab, write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  text = lab(stress_steps.WRITE_TEXT)
  cut = dataclasses.replace(
      write_output(), log=text[: text.index('Latency 99th')]
  )
  message = Problems(
      step, stress_steps.Record(step), {0: write_output(), 1: cut}, settings
  )
  assert 'loader 1 (vm1): log /r/populate.loader1.log' in message
  assert 'cut' in message


def test_missing_and_cut_hdr_logs_fail(lab, write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  no_hdr = dataclasses.replace(write_output(), hdr=None)
  message = Problems(
      step, stress_steps.Record(step), {0: write_output(), 1: no_hdr}, settings
  )
  assert 'loader 1 (vm1): HDR log /r/populate.loader1.hdr missing' in message
  hdr = write_output().hdr
  cut = dataclasses.replace(write_output(), hdr=hdr[: len(hdr) // 2])
  message = Problems(
      step, stress_steps.Record(step), {0: cut, 1: write_output()}, settings
  )
  assert 'loader 0 (vm0)' in message
  assert '(HDR log /r/populate.loader0.hdr)' in message


def test_full_output_directory_is_named_first(testdata, write_output):
  """A disk that filled cuts the HDR log silently; the message says why."""
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  times = loader_files.ParseTimes(testdata('loader', 'loader-full.times'))
  assert (times.exit_code, times.free_kib) == (0, 0)
  hdr = write_output().hdr
  cut = dataclasses.replace(write_output(), hdr=hdr[: len(hdr) // 2])
  record = stress_steps.Record(
      step, changes={0: {'output_free_kib': times.free_kib}}
  )
  message = Problems(step, record, {0: cut, 1: write_output()}, settings)
  assert message.startswith(
      'populate: loader 0 (vm0): no space left in /r (0 KiB free when'
      ' cassandra-stress ended); loader 0 (vm0):'
  )
  # Space left (or unknown) is not blamed.
  roomy = stress_steps.Record(step, changes={0: {'output_free_kib': 10 << 20}})
  message = Problems(step, roomy, {0: cut, 1: write_output()}, settings)
  assert 'no space left' not in message


def test_failed_commands_are_all_reported_with_the_tools_message(
    lab, write_output
):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  rejected = dataclasses.replace(
      write_output(), stdout=lab('cs-write-30s-rate-limit-2000.txt'), log=None
  )
  record = stress_steps.Record(
      step,
      changes={
          0: {'exit_code': 1},
          1: {'error': 'unreachable over ssh after 12 s', 'exit_code': None},
      },
  )
  message = Problems(step, record, {0: rejected, 1: write_output()}, settings)
  assert 'loader 0 (vm0): cassandra-stress exited with 1' in message
  assert 'Invalid parameter limit=2000/s' in message
  assert 'loader 1 (vm1): unreachable over ssh after 12 s' in message


@pytest.mark.parametrize(
    'changes,failure',
    [
        (
            {'exit_code': 137, 'error': 'command failed: x'},
            'loader 0 (vm0): cassandra-stress killed by SIGKILL (exit 137)',
        ),
        ({'exit_code': 143}, 'killed by SIGTERM (exit 143)'),
        ({'exit_code': 3, 'error': 'command failed: x'}, 'exited with 3'),
        (
            {'exit_code': None, 'error': 'still running after 40 s, stopped'},
            'loader 0 (vm0): still running after 40 s, stopped',
        ),
        ({'exit_code': 0}, None),
    ],
)
def test_loader_failure_says_what_happened_in_one_line(changes, failure):
  step = stress_steps.StepOf(stress_steps.Settings(), 'populate')
  record = dataclasses.replace(stress_steps.Record(step).loaders[0], **changes)
  said = loader_checks.LoaderFailure(record)
  if failure is None:
    assert said is None
  else:
    assert failure in said and '\n' not in said


def test_run_that_never_ended_fails(write_output):
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  record = stress_steps.Record(
      step, changes={0: {'end_s': None, 'exit_code': None}}
  )
  message = Problems(
      step, record, {0: write_output(), 1: write_output()}, settings
  )
  assert 'loader 0 (vm0): cassandra-stress did not finish' in message


def test_parses_every_sample(testdata):
  samples = loader_checks.ParseCpuSamples(testdata('loader', 'loader-busy.cpu'))
  assert len(samples) == 7
  # 1795309197.909329109 cpu  280816 0 38168 1179667 13038 0 972 3990 0 0
  first = samples[0]
  assert first.time_s == pytest.approx(1795309197.909329109)
  assert first.total == 280816 + 38168 + 1179667 + 13038 + 972 + 3990
  assert first.busy == 280816 + 38168 + 972 + 3990


def test_busy_loader_is_nearly_fully_busy(testdata):
  usage = loader_checks.CpuUsageOf(
      loader_checks.ParseCpuSamples(testdata('loader', 'loader-busy.cpu'))
  )
  # First to last sample: 1204 jiffies, none idle, 15 in I/O wait.
  assert usage.mean_pct == pytest.approx(100.0 * 1189 / 1204)
  assert usage.samples == 7
  assert usage.peak_pct >= usage.mean_pct
  assert usage.end_s - usage.start_s == pytest.approx(6.0126, abs=1e-3)


def test_idle_loader_is_partly_busy(testdata):
  usage = loader_checks.CpuUsageOf(
      loader_checks.ParseCpuSamples(testdata('loader', 'loader-idle.cpu'))
  )
  # 1021 jiffies, 352 idle, 61 in I/O wait.
  assert usage.mean_pct == pytest.approx(100.0 * 608 / 1021)
  assert 0 < usage.mean_pct < usage.peak_pct < 100


def test_cut_line_is_an_error(testdata):
  text = testdata('loader', 'loader-idle.cpu')
  cut = text[: text.rstrip('\n').rfind(' cpu ') + 12]
  with pytest.raises(loader_checks.CpuLogError, match='line 6'):
    loader_checks.ParseCpuSamples(cut)


def test_one_sample_is_not_enough(testdata):
  first_line = testdata('loader', 'loader-fail.cpu').splitlines()[0]
  with pytest.raises(loader_checks.CpuLogError, match='at least 2'):
    loader_checks.CpuUsageOf(loader_checks.ParseCpuSamples(first_line))


def test_counters_going_backwards_are_an_error(testdata):
  lines = testdata('loader', 'loader-fail.cpu').splitlines()
  samples = loader_checks.ParseCpuSamples('\n'.join([lines[2], lines[0]]))
  with pytest.raises(loader_checks.CpuLogError, match='backwards'):
    loader_checks.CpuUsageOf(samples)
