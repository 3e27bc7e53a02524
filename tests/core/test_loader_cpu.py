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

"""Tests of core/loader_cpu.py on CPU sample files a loader command wrote."""

import pytest

from perfkit_plugins.core import loader_cpu


def test_parses_every_sample(testdata):
  samples = loader_cpu.ParseCpuSamples(testdata('loader', 'loader-busy.cpu'))
  assert len(samples) == 7
  # 1795309197.909329109 cpu  280816 0 38168 1179667 13038 0 972 3990 0 0
  first = samples[0]
  assert first.time_s == pytest.approx(1795309197.909329109)
  assert first.total == 280816 + 38168 + 1179667 + 13038 + 972 + 3990
  assert first.busy == 280816 + 38168 + 972 + 3990


def test_busy_loader_is_nearly_fully_busy(testdata):
  usage = loader_cpu.CpuUsageOf(
      loader_cpu.ParseCpuSamples(testdata('loader', 'loader-busy.cpu'))
  )
  # First to last sample: 1204 jiffies, none idle, 15 in I/O wait.
  assert usage.mean_pct == pytest.approx(100.0 * 1189 / 1204)
  assert usage.samples == 7
  assert usage.peak_pct >= usage.mean_pct
  assert usage.end_s - usage.start_s == pytest.approx(6.0126, abs=1e-3)


def test_idle_loader_is_partly_busy(testdata):
  usage = loader_cpu.CpuUsageOf(
      loader_cpu.ParseCpuSamples(testdata('loader', 'loader-idle.cpu'))
  )
  # 1021 jiffies, 352 idle, 61 in I/O wait.
  assert usage.mean_pct == pytest.approx(100.0 * 608 / 1021)
  assert 0 < usage.mean_pct < usage.peak_pct < 100


def test_cut_line_is_an_error(testdata):
  text = testdata('loader', 'loader-idle.cpu')
  cut = text[: text.rstrip('\n').rfind(' cpu ') + 12]
  with pytest.raises(loader_cpu.CpuLogError, match='line 6'):
    loader_cpu.ParseCpuSamples(cut)


def test_one_sample_is_not_enough(testdata):
  first_line = testdata('loader', 'loader-fail.cpu').splitlines()[0]
  with pytest.raises(loader_cpu.CpuLogError, match='at least 2'):
    loader_cpu.CpuUsageOf(loader_cpu.ParseCpuSamples(first_line))


def test_counters_going_backwards_are_an_error(testdata):
  lines = testdata('loader', 'loader-fail.cpu').splitlines()
  samples = loader_cpu.ParseCpuSamples('\n'.join([lines[2], lines[0]]))
  with pytest.raises(loader_cpu.CpuLogError, match='backwards'):
    loader_cpu.CpuUsageOf(samples)
