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

"""Tests of histograms.StepCounts: bucket counts per series step.

On the lab's real 200,000-write HDR log, read as two loaders a quarter of a
second apart (so that steps merge intervals of both).
"""

import numpy as np
import pytest

from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import stress_steps

TAGS = ('WRITE-st', 'total-st')


@pytest.fixture
def merge(lab):
  return histograms.MergeHdrLogs(
      {'a': lab(stress_steps.WRITE_HDR), 'b': lab(stress_steps.WRITE_HDR)},
      step_s=1.0,
      clock_offsets_s={'b': 0.25},
      keep_counts=TAGS,
  )


def test_rows_hold_each_steps_operations(merge):
  for tag in TAGS:
    counts = merge.step_counts[tag]
    series = merge.series[tag]
    matrix = counts.Matrix()
    assert matrix.shape == (len(series), len(counts.bucket_values_ms))
    assert counts.starts_s == tuple(p.start_s for p in series)
    assert matrix.sum(axis=1).tolist() == [p.count for p in series]
    assert matrix.sum() == merge.summaries[tag].count == 2 * 200000
    # Only buckets that hold operations are columns.
    assert (matrix.sum(axis=0) > 0).all()


def test_only_the_tags_asked_for_are_kept(lab):
  log = lab(stress_steps.WRITE_HDR)
  kept = histograms.MergeHdrLogs(
      {'a': log}, step_s=1.0, keep_counts=['WRITE-st']
  )
  assert list(kept.step_counts) == ['WRITE-st']
  assert not histograms.MergeHdrLogs({'a': log}, step_s=1.0).step_counts
  # Without a series there are no steps to keep.
  assert not histograms.MergeHdrLogs({'a': log}, keep_counts=TAGS).step_counts


def test_bucket_groups_are_at_most_a_128th_of_their_values(lab):
  counts = histograms.MergeHdrLogs(
      {'a': lab(stress_steps.WRITE_HDR)}, step_s=1.0, keep_counts=TAGS
  ).step_counts['WRITE-st']
  values = counts.bucket_values_ms
  assert (np.diff(values) > 0).all()
  # Every value the log recorded, as the histograms report it.
  recorded = set()
  for interval in histograms.IterHdrIntervals(lab(stress_steps.WRITE_HDR)):
    histogram = interval.Histogram()
    recorded.update(
        histogram.get_highest_equivalent_value(item.value_iterated_to)
        for item in histogram.get_recorded_iterator()
    )
  recorded_ms = np.array(sorted(recorded)) / 1e6
  groups = values[np.searchsorted(values, recorded_ms)]
  assert (groups >= recorded_ms).all()
  assert (groups <= recorded_ms * (1 + 1 / 128)).all()
  assert len(values) < len(recorded_ms) / 4


def test_percentiles_of_the_rows_are_the_summary_percentiles(merge):
  for tag in TAGS:
    counts = merge.step_counts[tag]
    summary = merge.summaries[tag]
    matrix = counts.Matrix()
    for field, q in (
        ('p50_ms', 0.5),
        ('p95_ms', 0.95),
        ('p99_ms', 0.99),
        ('p999_ms', 0.999),
    ):
      published = getattr(summary, field)
      values = counts.ValuesWith(published)
      assert (np.diff(values) > 0).all()
      interval = intervals.PercentileOfIntervals(matrix, values, q)
      # Exactly, not approximately: the published figure is the estimate.
      assert interval.estimate == published, (tag, field)
      assert interval.low <= published <= interval.high
