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
from perfkit_plugins.core.stats import experiment
from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import within_run_intervals


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


def _RowOfP(p, **fields):
  """A row whose ratio and standard error give the two-sided p `p`."""
  ratio = math.exp(0.01 * stats.t.isf(p / 2, 4.0))
  return _Row(ratio=ratio, p=p, **fields)


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


def test_one_cluster_per_arm_shows_repeats_but_gives_no_verdict():
  a = _Arm([[100, 101, 99]], 'a')
  b = _Arm([[130, 131, 129]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  welch = stats.ttest_ind(
      np.log([130, 131, 129]), np.log([100, 101, 99]), equal_var=False
  )
  assert row.p == pytest.approx(welch.pvalue)
  assert (row.method, row.covers) == (
      comparison.WELCH_REPEATS,
      intervals.WITHIN_CLUSTER,
  )
  assert row.warning == (
      'one cluster per arm: the interval covers only these two clusters'
  )
  # +30%, p ~ 1e-5: still no verdict, two clusters may differ that much.
  assert row.verdict == comparison.INCONCLUSIVE
  assert row.no_verdict.startswith('one cluster per arm: the noise between')
  assert math.isnan(row.q)
  assert 'lower bound' in row.noise
  assert 'no verdict: one cluster per arm' in comparison.ClaimSentence(row)


def test_an_arm_on_one_cluster_is_compared_with_the_other_arms_clusters():
  a = _Arm([[100], [104], [98]], 'a')
  b = _Arm([[110, 111, 109]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  logs_a = np.log([100, 104, 98])
  spread = logs_a.std(ddof=1)
  assert row.method == comparison.AGAINST_ONE_CLUSTER
  assert row.covers == intervals.ACROSS_CLUSTERS
  assert row.ratio == pytest.approx(
      math.exp(np.log([110, 111, 109]).mean() - logs_a.mean())
  )
  # A prediction interval: the lone cluster varies as A's clusters do.
  assert row.standard_error == pytest.approx(spread * math.sqrt(1 + 1 / 3))
  assert row.dof == 2
  assert 'arm B ran on one cluster: the noise of its cluster is taken from' in (
      row.warning
  )
  assert not row.no_verdict


def test_single_runs_combine_their_within_run_errors_without_a_verdict():
  a = [
      intervals.Measurement(
          100.0, 'a', 1, within_run_intervals.WithinRun(100.0, 0.01, 10)
      )
  ]
  b = [
      intervals.Measurement(
          150.0, 'b', 1, within_run_intervals.WithinRun(150.0, 0.02, 30)
      )
  ]
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN)
  error = math.hypot(0.01, 0.02)
  dof = error**4 / (0.01**4 / 10 + 0.02**4 / 30)
  assert row.standard_error == pytest.approx(error)
  assert row.dof == pytest.approx(dof)
  assert row.p == pytest.approx(
      2 * stats.t.sf(math.log(1.5) / error, dof), rel=1e-9
  )
  assert (row.method, row.covers) == ('delta_within_run', 'within_run')
  assert row.warning.startswith('single runs')
  assert row.verdict == comparison.INCONCLUSIVE and row.no_verdict
  assert row.clusters_needed is not None


def test_an_aa_experiments_noise_gives_one_cluster_per_arm_a_verdict():
  noise = experiment.NoiseProfile(0.02, 0.01, None, clusters=6, runs=12)
  a = _Arm([[100, 101]], 'a')
  b = _Arm([[120, 121]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN, noise=noise)
  assert row.method == comparison.GIVEN_NOISE
  assert row.standard_error == pytest.approx(
      math.sqrt(2 * (0.02**2 + 0.01**2 / 2))
  )
  assert row.dof == 5
  assert row.verdict == comparison.BETTER
  assert "A/A experiment's (6 clusters, 12 runs)" in row.warning
  unsplit = experiment.NoiseProfile(None, 0.01, None, clusters=1, runs=4)
  row = comparison.CompareArms(
      a, b, True, comparison.RATE_MARGIN, noise=unsplit
  )
  assert row.no_verdict and row.method == comparison.WELCH_REPEATS


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
      'B/A = -10.0% (no interval; 1 run per arm): no verdict: one cluster'
  )


def test_compare_rows_applies_benjamini_hochberg():
  p = [0.01, 0.04, 0.03, 0.005]
  rows = comparison.CompareRows([_RowOfP(value) for value in p], fdr=0.03)
  # Sorted: 0.005, 0.01, 0.03, 0.04 -> x 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02,
  # 0.04, 0.04, then the running minimum from the top.
  assert [row.q for row in rows] == pytest.approx([0.02, 0.04, 0.04, 0.02])
  assert [row.verdict for row in rows] == [
      comparison.BETTER,
      comparison.INCONCLUSIVE,
      comparison.INCONCLUSIVE,
      comparison.BETTER,
  ]
  # Two of four selected: intervals at 1 - 2 x 0.03 / 4.
  assert [row.level for row in rows] == pytest.approx([0.985] * 4)


def test_holm_adjusts_for_the_family_wise_error_rate():
  p = [0.01, 0.04, 0.03, 0.005]
  rows = comparison.CompareRows([_RowOfP(value) for value in p], fdr=0.03)
  # Sorted: 0.005, 0.01, 0.03, 0.04 -> x 4, 3, 2, 1 = 0.02, 0.03, 0.06,
  # 0.04, then the running maximum from the bottom.
  assert [row.p_familywise for row in rows] == pytest.approx(
      [0.03, 0.06, 0.06, 0.02]
  )
  worse = [dataclasses.replace(row, higher_is_better=False) for row in rows]
  worse = comparison.CompareRows(worse, fdr=0.03)
  assert [row.verdict for row in worse] == [
      comparison.WORSE,
      comparison.INCONCLUSIVE,
      comparison.INCONCLUSIVE,
      comparison.WORSE,
  ]
  assert [comparison.Regression(row, 0.03) for row in worse] == [
      True,
      False,
      False,
      True,
  ]
  assert not comparison.Regression(worse[0], 0.02)
  assert not any(comparison.Regression(row, 0.05) for row in rows)


def test_a_rows_verdict_does_not_follow_other_rows_equivalence():
  # The seen case: B/A = -1.4% [-1.9, -0.9] with a 2% margin was WORSE.
  row = _Row(ratio=0.986, standard_error=0.0012, p=1e-4, dof=10.0)
  for others in ([], [_Row(ratio=1.0, standard_error=0.001, p=1.0)] * 9):
    verdict = comparison.CompareRows([row, *others])[0]
    assert verdict.verdict == comparison.EQUIVALENT
    assert verdict.detectable
    assert 0.98 <= verdict.ci_low and verdict.ci_high < 1


def test_a_difference_inside_the_margin_is_equivalent_and_detectable():
  # B 1% slower, 0.5% noise between clusters, 5% margin, 4 clusters per arm:
  # the interval excludes 1 but lies well inside the margin.
  a = _Arm([[1000 * f] for f in (1.004, 0.995, 1.001, 0.999)], 'a')
  b = _Arm([[990 * f] for f in (0.996, 1.005, 0.999, 1.002)], 'b')
  row = comparison.CompareArms(a, b, True, 0.05)
  assert row.ci_high < 1
  assert row.verdict == comparison.EQUIVALENT
  assert row.detectable
  assert comparison.ClaimSentence(row).endswith(
      'equivalent within 5% (a difference is detectable, inside the margin)'
  )


def test_verdicts_follow_the_direction_and_the_margin():
  assert comparison.CompareRows([_Row(higher_is_better=False)])[0].verdict == (
      comparison.WORSE
  )
  lower = _Row(ratio=0.8, higher_is_better=False)
  assert comparison.CompareRows([lower])[0].verdict == comparison.BETTER
  same = _Row(ratio=1.002, standard_error=0.005, p=0.8)
  assert comparison.CompareRows([same])[0].verdict == comparison.EQUIVALENT
  wide = dataclasses.replace(same, standard_error=0.01)
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
      ci_low=0.988,
      ci_high=1.0204,
      level=0.975,
      margin=comparison.PERCENTILE_MARGIN,
      verdict=comparison.EQUIVALENT,
  )
  assert comparison.ClaimSentence(equivalent) == (
      'read_small p99: B/A = +0.4% [-1.2, +2.0] (97.5% CI; 3 clusters x 3'
      ' repeats per arm): equivalent within 5%'
  )
  inconclusive = _Row(
      step='mixed',
      ratio=1.015,
      ci_low=0.979,
      ci_high=1.052,
      level=0.99167,
      verdict=comparison.INCONCLUSIVE,
      runs_a=3,
      runs_b=3,
      clusters_a=3,
      clusters_b=3,
      clusters_needed=6,
      warning='arms not interleaved',
  )
  assert comparison.ClaimSentence(inconclusive) == (
      'mixed op rate: B/A = +1.5% [-2.1, +5.2] (99.167% CI; 3 clusters x 1'
      ' repeat per arm): inconclusive; about 6 clusters per arm would settle'
      ' it; arms not interleaved'
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


def test_one_cluster_per_arm_gives_no_verdict_where_repeats_would_mislead():
  rng = np.random.default_rng(42)
  significant = called = total = 0
  for _ in range(50):
    rows = comparison.CompareRows(
        _SimulatedReport(rng, [1.0] * 20, 1, 3, 0.02, 0.01)
    )
    significant += sum(r.p <= 0.05 for r in rows)
    called += sum(
        r.verdict in (comparison.BETTER, comparison.WORSE) for r in rows
    )
    total += len(rows)
  # The two clusters differ by ~2.8%, which repeats on them cannot see: a
  # test of the repeats calls most rows different; no verdict is given.
  assert significant / total > 0.2
  assert called == 0


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


def test_a_lone_run_against_clusters_of_repeats_counts_its_own_noise():
  # A: one run; B: 4 clusters of 3 repeats. B's spread of cluster means
  # holds a third of the run-to-run noise; the lone run holds all of it.
  rng = np.random.default_rng(45)
  called = trials = 0
  for _ in range(1000):
    lone = [[1000 * math.exp(rng.normal(0, 0.01) + rng.normal(0, 0.02))]]
    clusters = [
        1000 * np.exp(rng.normal(0, 0.01) + rng.normal(0, 0.02, 3))
        for _ in range(4)
    ]
    row = comparison.CompareArms(
        _Arm(lone, 'a'), _Arm(clusters, 'b'), True, comparison.RATE_MARGIN
    )
    assert row.method == comparison.AGAINST_ONE_CLUSTER
    called += row.verdict in (comparison.BETTER, comparison.WORSE)
    trials += 1
  # At 5%: without the lone run's own run-to-run noise, about 10%.
  assert called / trials <= 0.065
  # Fewer repeats and no cluster with repeats: nothing tells that noise.
  row = comparison.CompareArms(
      _Arm([[100, 101]], 'a'),
      _Arm([[103], [104], [102]], 'b'),
      True,
      comparison.RATE_MARGIN,
  )
  assert not row.no_verdict
  row = comparison.CompareArms(
      _Arm([[100]], 'a'),
      _Arm([[103], [104], [102]], 'b'),
      True,
      comparison.RATE_MARGIN,
  )
  assert not row.no_verdict  # Equal repeats: B's spread is A's too.


def test_identical_values_are_no_measured_noise():
  a = _Arm([[1.023, 1.023], [1.023, 1.023]], 'a')
  b = _Arm([[1.031, 1.031], [1.031, 1.031]], 'b')
  row = comparison.CompareArms(a, b, False, comparison.PERCENTILE_MARGIN)
  assert row.verdict == comparison.INCONCLUSIVE
  assert row.no_verdict.startswith('no spread measured')


def test_aa_noise_for_one_cluster_per_arm_says_the_order_is_unchecked():
  noise = experiment.NoiseProfile(0.02, 0.01, None, clusters=6, runs=12)
  row = comparison.CompareArms(
      [intervals.Measurement(100.0, 'a', 1, start=0.0)],
      [intervals.Measurement(120.0, 'b', 1, start=36000.0)],
      True,
      comparison.RATE_MARGIN,
      noise=noise,
  )
  assert 'the run order of one cluster per arm cannot be checked' in (
      row.warning
  )


@pytest.mark.parametrize(
    'level, text',
    [
        (0.95, '95%'),
        (0.9875, '98.75%'),
        (1 - 0.05 / 1000, '99.995%'),
        (1 - 0.05 / 16, '99.688%'),
    ],
)
def test_levels_never_read_as_100_percent(level, text):
  assert comparison.LevelText(level) == text


def test_clusters_to_settle_equivalence_test_each_side_at_half_alpha():
  """Equivalence is the row's two-sided interval inside the margin."""
  noise = experiment.NoiseProfile(0.02, 0.01, None, clusters=6, runs=12)
  a = _Arm([[100, 100]], 'a')
  b = _Arm([[100, 100]], 'b')
  row = comparison.CompareArms(a, b, True, comparison.RATE_MARGIN, noise=noise)
  assert row.ratio == 1 and row.noise_profile is not None
  assert row.clusters_needed == experiment.ClustersNeededForEquivalence(
      row.noise_profile, 0.0, comparison.RATE_MARGIN, 2, 0.05 / 2
  )
