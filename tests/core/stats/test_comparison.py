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

"""Tests of A/B verdicts.

Unit tests check each test level against scipy's own Welch test, the
Benjamini-Hochberg adjustment on known p-values and the sentences. The
simulations check what a verdict promises: identical arms are rarely
called different, and a real 10% difference is found.
"""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from perfkit_plugins.core.stats import comparison
from perfkit_plugins.core.stats import intervals


def _Within(value, standard_error, dof=20):
  return intervals.Interval(
      estimate=value,
      low=value * math.exp(-2 * standard_error),
      high=value * math.exp(2 * standard_error),
      level=0.95,
      method='batch_means',
      covers=intervals.WITHIN_RUN,
      units=dof + 1,
      standard_error=standard_error,
      dof=dof,
  )


def _Arm(values_by_cluster, tag):
  return [
      intervals.Measurement(float(value), f'{tag}{cluster}', repeat + 1)
      for cluster, values in enumerate(values_by_cluster)
      for repeat, value in enumerate(values)
  ]


def _Row(**fields):
  row = comparison.ComparisonRow(
      step='write',
      metric='op rate',
      ratio=1.23,
      ci_low=1.189,
      ci_high=1.272,
      level=0.95,
      equivalence_low=1.195,
      equivalence_high=1.265,
      margin=comparison.RATE_MARGIN,
      higher_is_better=True,
      p=0.001,
      q=0.001,
      verdict=comparison.BETTER,
      runs_a=9,
      runs_b=9,
      clusters_a=3,
      clusters_b=3,
      method='welch_clusters',
      covers=intervals.ACROSS_CLUSTERS,
      warning='',
      clusters_needed=2,
      noise='SD of log cluster means 1.0%',
      standard_error=0.01,
      dof=4.0,
  )
  return dataclasses.replace(row, **fields)


def test_default_margins():
  assert comparison.RATE_MARGIN == 0.02
  assert comparison.PERCENTILE_MARGIN == 0.05


def test_clusters_are_compared_by_welch_on_log_cluster_means():
  a = _Arm([[100, 102], [97, 99], [104, 103]], 'a')
  b = _Arm([[110, 111], [108, 104], [113, 116], [109, 109]], 'b')
  row = comparison.CompareArms(
      a, b, True, comparison.RATE_MARGIN, step='write', metric='op rate'
  )
  logs_a = [np.log([100, 102]).mean(), np.log([97, 99]).mean()]
  logs_a.append(np.log([104, 103]).mean())
  logs_b = [np.log(v).mean() for v in ([110, 111], [108, 104], [113, 116])]
  logs_b.append(np.log([109, 109]).mean())
  welch = stats.ttest_ind(logs_b, logs_a, equal_var=False)
  bounds = welch.confidence_interval(0.95)
  assert row.ratio == pytest.approx(math.exp(np.mean(logs_b) - np.mean(logs_a)))
  assert row.p == pytest.approx(welch.pvalue)
  assert row.dof == pytest.approx(welch.df)
  assert row.ci_low == pytest.approx(math.exp(bounds.low))
  assert row.ci_high == pytest.approx(math.exp(bounds.high))
  assert (row.method, row.covers, row.warning) == (
      'welch_clusters',
      intervals.ACROSS_CLUSTERS,
      '',
  )
  assert (row.runs_a, row.runs_b, row.clusters_a, row.clusters_b) == (
      6,
      8,
      3,
      4,
  )
  assert row.verdict == comparison.BETTER
  assert 'cluster means' in row.noise


def test_one_cluster_per_arm_compares_repeats_and_says_so():
  a = _Arm([[100, 101, 99]], 'a')
  b = _Arm([[103, 104, 102]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  welch = stats.ttest_ind(
      np.log([103, 104, 102]), np.log([100, 101, 99]), equal_var=False
  )
  assert row.p == pytest.approx(welch.pvalue)
  assert (row.method, row.covers) == (
      'welch_repeats',
      intervals.WITHIN_CLUSTER,
  )
  assert row.warning == (
      'one cluster per arm: the interval covers only these two clusters'
  )
  assert 'lower bound' in row.noise


def test_an_arm_on_one_cluster_limits_the_comparison():
  a = _Arm([[100], [101], [99]], 'a')
  b = _Arm([[103, 104, 102]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  assert row.covers == intervals.WITHIN_CLUSTER
  assert 'arm B ran on one cluster' in row.warning


def test_single_runs_combine_their_within_run_errors():
  a = [intervals.Measurement(100.0, 'a', 1, _Within(100.0, 0.01, 10))]
  b = [intervals.Measurement(105.0, 'b', 1, _Within(105.0, 0.02, 30))]
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  error = math.hypot(0.01, 0.02)
  dof = error**4 / (0.01**4 / 10 + 0.02**4 / 30)
  assert row.standard_error == pytest.approx(error)
  assert row.dof == pytest.approx(dof)
  assert row.p == pytest.approx(
      2 * stats.t.sf(math.log(1.05) / error, dof), rel=1e-9
  )
  assert (row.method, row.covers) == ('delta_within_run', 'within_run')
  assert row.warning.startswith('single runs')


def test_a_run_without_an_interval_cannot_be_tested():
  untested = comparison.CompareArms(
      [intervals.Measurement(100.0, 'a', 1)],
      [intervals.Measurement(90.0, 'b', 1)],
      True,
      comparison.RATE_MARGIN,
  )
  assert math.isnan(untested.p)
  assert untested.verdict == comparison.INCONCLUSIVE
  assert untested.clusters_needed is None
  assert 'no test possible' in untested.warning
  rows = comparison.CompareRows([untested, _Row(p=0.01)])
  assert math.isnan(rows[0].q)
  assert rows[1].q == pytest.approx(0.01)
  assert comparison.ClaimSentence(rows[0]).startswith(
      'B/A = -10.0% (no interval; 1 run per arm): inconclusive'
  )


def test_compare_rows_applies_benjamini_hochberg():
  p = [0.01, 0.04, 0.03, 0.005]
  rows = comparison.CompareRows([_Row(p=value) for value in p], fdr=0.03)
  # Sorted: 0.005, 0.01, 0.03, 0.04 -> x 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02,
  # 0.04, 0.04, then the running minimum from the top.
  assert [row.q for row in rows] == pytest.approx([0.02, 0.04, 0.04, 0.02])
  assert [row.verdict for row in rows] == [
      comparison.BETTER,
      comparison.INCONCLUSIVE,
      comparison.INCONCLUSIVE,
      comparison.BETTER,
  ]


def test_verdicts_follow_the_direction_and_the_margin():
  assert comparison.CompareRows([_Row(higher_is_better=False)])[0].verdict == (
      comparison.WORSE
  )
  lower = _Row(ratio=0.8, ci_low=0.7, ci_high=0.9, higher_is_better=False)
  assert comparison.CompareRows([lower])[0].verdict == comparison.BETTER
  same = _Row(
      ratio=1.002,
      ci_low=0.97,
      ci_high=1.03,
      equivalence_low=0.985,
      equivalence_high=1.019,
      p=0.8,
  )
  assert comparison.CompareRows([same])[0].verdict == comparison.EQUIVALENT
  wide = dataclasses.replace(same, equivalence_high=1.021)
  assert comparison.CompareRows([wide])[0].verdict == comparison.INCONCLUSIVE


def test_claim_sentences():
  assert comparison.ClaimSentence(_Row()) == (
      'write op rate: B/A = +23.0% [+18.9, +27.2] (95% CI; 3 clusters x 3'
      ' repeats per arm): B is better'
  )
  equivalent = _Row(
      step='read_small',
      metric='p99',
      ratio=1.004,
      equivalence_low=0.988,
      equivalence_high=1.0204,
      margin=comparison.PERCENTILE_MARGIN,
      verdict=comparison.EQUIVALENT,
  )
  assert comparison.ClaimSentence(equivalent) == (
      'read_small p99: B/A = +0.4% [-1.2, +2.0] (90% CI; 3 clusters x 3'
      ' repeats per arm): equivalent within 5%'
  )
  inconclusive = _Row(
      step='mixed',
      ratio=1.015,
      ci_low=0.979,
      ci_high=1.052,
      verdict=comparison.INCONCLUSIVE,
      runs_a=3,
      runs_b=3,
      clusters_a=1,
      clusters_b=1,
      clusters_needed=6,
      warning=(
          'one cluster per arm: the interval covers only these two clusters'
      ),
  )
  assert comparison.ClaimSentence(inconclusive) == (
      'mixed op rate: B/A = +1.5% [-2.1, +5.2] (95% CI; 1 cluster x 3 repeats'
      ' per arm): inconclusive; about 6 clusters per arm would settle it; one'
      ' cluster per arm: the interval covers only these two clusters'
  )
  uneven = _Row(
      ratio=0.9996,
      ci_low=0.9,
      ci_high=1.1,
      verdict=comparison.INCONCLUSIVE,
      runs_b=5,
      clusters_b=2,
      clusters_needed=None,
  )
  assert comparison.ClaimSentence(uneven) == (
      'write op rate: B/A = +0.0% [-10.0, +10.0] (95% CI; A: 3 clusters x 3'
      ' repeats, B: 5 runs on 2 clusters): inconclusive'
  )


@pytest.mark.parametrize(
    'a,b,margin',
    [
        ([], [intervals.Measurement(1.0, 'b', 1)], 0.02),
        (
            [intervals.Measurement(0.0, 'a', 1)],
            [intervals.Measurement(1.0, 'b', 1)],
            0.02,
        ),
        (
            [intervals.Measurement(1.0, 'a', 1)],
            [intervals.Measurement(1.0, 'b', 1)],
            0.0,
        ),
    ],
)
def test_compare_arms_rejects_bad_input(a, b, margin):
  with pytest.raises(ValueError):
    comparison.CompareArms(a, b, True, margin)


def _SimulatedReport(rng, ratios, clusters, repeats, between, within):
  """One A/B report: a row per true ratio, arms with shared cluster offsets.

  Every figure of a run comes from the same clusters, so half of each
  cluster's offset is shared by all rows of the report.

  Args:
    rng: the generator.
    ratios: the true B/A of each row.
    clusters: clusters per arm.
    repeats: runs per cluster.
    between: between-cluster noise (SD of logs).
    within: run-to-run noise (SD of logs).

  Returns:
    The rows, after CompareRows.
  """
  shared = rng.normal(0, between / math.sqrt(2), size=(2, clusters))
  rows = []
  for index, ratio in enumerate(ratios):
    arms = []
    for arm, scale in enumerate((1.0, ratio)):
      offsets = shared[arm] + rng.normal(0, between / math.sqrt(2), clusters)
      logs = offsets[:, None] + rng.normal(0, within, (clusters, repeats))
      arms.append(_Arm(1000 * scale * np.exp(logs), 'ab'[arm]))
    rows.append(
        comparison.CompareArms(
            arms[0],
            arms[1],
            index % 2 == 0,
            comparison.RATE_MARGIN
            if index % 2 == 0
            else comparison.PERCENTILE_MARGIN,
        )
    )
  return rows


def test_identical_arms_are_rarely_called_different():
  rng = np.random.default_rng(41)
  alone = adjusted = total = 0
  for _ in range(100):
    rows = _SimulatedReport(rng, [1.0] * 20, 3, 3, 0.02, 0.015)
    alone += sum(
        r.verdict in (comparison.BETTER, comparison.WORSE) for r in rows
    )
    adjusted += sum(
        r.verdict in (comparison.BETTER, comparison.WORSE)
        for r in comparison.CompareRows(rows)
    )
    total += len(rows)
  # A row alone is a Welch test at 5%, slightly conservative with 3 units
  # per arm (about 4.5%). 2,000 rows would put its rate within +-1.5% (3
  # standard deviations) if they were independent; rows of one report share
  # cluster offsets, so only the upper bound is held tightly. Benjamini-
  # Hochberg then leaves far fewer.
  assert 0.02 <= alone / total <= 0.065
  assert adjusted / total <= 0.05


def test_one_cluster_per_arm_mistakes_cluster_offsets_for_differences():
  rng = np.random.default_rng(42)
  called = total = 0
  for _ in range(50):
    rows = comparison.CompareRows(
        _SimulatedReport(rng, [1.0] * 20, 1, 3, 0.02, 0.01)
    )
    called += sum(
        r.verdict in (comparison.BETTER, comparison.WORSE) for r in rows
    )
    total += len(rows)
  # Why such rows carry a warning: the two clusters differ by ~2.8%, which
  # repeats on them cannot see.
  assert called / total > 0.2


def test_a_real_ten_percent_difference_is_found():
  rng = np.random.default_rng(43)
  trials = 400
  found = 0
  for _ in range(trials):
    rows = _SimulatedReport(rng, [1.1], 3, 3, 0.02, 0.02)
    found += comparison.CompareRows(rows)[0].verdict == comparison.BETTER
  assert found / trials >= 0.8


def test_a_report_where_every_figure_moved_finds_them():
  rng = np.random.default_rng(44)
  found = total = 0
  for _ in range(20):
    rows = comparison.CompareRows(
        _SimulatedReport(rng, [1.1, 1 / 1.1] * 10, 3, 3, 0.02, 0.02)
    )
    found += sum(r.verdict == comparison.BETTER for r in rows)
    total += len(rows)
  assert found / total >= 0.8
