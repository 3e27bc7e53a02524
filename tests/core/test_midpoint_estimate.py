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

"""Clock offset arithmetic and `date +%s.%N` parsing."""

import pytest

from perfkit_plugins.core import midpoint_estimate


def test_parse_epoch_seconds(testdata):
  # Captured with GNU coreutils 9.1 (tests/testdata/clocks/MANIFEST.tsv).
  text = testdata('clocks', 'date-s-N.txt')
  assert midpoint_estimate.ParseEpochSeconds(text) == pytest.approx(
      1795307211.574198596
  )


def test_parse_epoch_seconds_rejects_other_output(lab):
  with pytest.raises(ValueError, match='date'):
    midpoint_estimate.ParseEpochSeconds(lab('cs-version.txt'))


def test_offset_from_shortest_round_trip():
  samples = [
      midpoint_estimate.ClockSample(sent=100.0, remote=150.9, received=100.6),
      midpoint_estimate.ClockSample(sent=101.0, remote=151.1, received=101.2),
      midpoint_estimate.ClockSample(sent=102.0, remote=152.4, received=102.8),
  ]
  offset = midpoint_estimate.EstimateOffset(samples)
  assert offset.offset_s == pytest.approx(151.1 - 101.1)
  assert offset.uncertainty_s == pytest.approx(0.1)


def test_node_behind_has_negative_offset():
  offset = midpoint_estimate.EstimateOffset(
      [midpoint_estimate.ClockSample(500.0, 380.0, 500.0)]
  )
  assert offset == midpoint_estimate.ClockOffset(
      offset_s=-120.0, uncertainty_s=0.0
  )


def test_no_samples():
  with pytest.raises(ValueError):
    midpoint_estimate.EstimateOffset([])
