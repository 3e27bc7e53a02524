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

"""Scenarios where a verdict could say more than the data show.

Each scenario simulates whole A/B reports with a known truth (arms of
clusters run one after another, an hour each, with noise between clusters
as cloud studies report it, 1-3%) and checks what the verdicts claim:
a difference inside the margin is not called WORSE, a drift in time is not
called a difference, single runs get no verdict, an arm of one cluster is
tested against the other arm's clusters, heavy tails and claims of
equivalence at the margin's edge stay within the false discovery rate, and
every verdict agrees with the interval it shows. Seeds are fixed; each
bound leaves room for the simulation's own error.
"""

import math

import numpy as np

from perfkit_plugins.core.stats import comparison
from perfkit_plugins.core.stats import experiment
from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import within_run_intervals

_HOUR_S = 3600.0
_DECIDED = (comparison.BETTER, comparison.WORSE)


def _Starts(clusters, order):
  """Start hour of each cluster of A and of B."""
  if order == 'a_middle':
    assert clusters[0] == 1
    middle = clusters[1] // 2
    return [middle], [h for h in range(clusters[1] + 1) if h != middle]
  if order == 'a_first':
    return list(range(clusters[0])), list(range(clusters[0], sum(clusters)))
  assert order == 'interleaved' and clusters[0] == clusters[1]
  arms = experiment.InterleavedOrder(clusters[0])
  return (
      [i for i, arm in enumerate(arms) if arm == 'A'],
      [i for i, arm in enumerate(arms) if arm == 'B'],
  )


def _Report(
    rng,
    ratios,
    clusters=(4, 4),
    repeats=1,
    between=0.01,
    within=0.005,
    drift_per_hour=0.0,
    order='interleaved',
    tails=None,
    within_run=None,
    margin=None,
):
  """One A/B report: one row per true ratio, after CompareRows.

  Even rows are op rates (2% margin), odd rows latency percentiles (5%
  margin, lower is better). Half of each cluster's offset is shared by all
  rows of the report, as every figure of a run comes from one cluster.

  Args:
    rng: the generator.
    ratios: the true B/A of each row.
    clusters: clusters of A and of B.
    repeats: runs per cluster.
    between: SD of log cluster offsets.
    within: SD of log run-to-run noise.
    drift_per_hour: relative drift of every figure per hour of the
      experiment.
    order: 'interleaved' (A B B A ...), 'a_first', or 'a_middle' (A's one
      cluster amid B's).
    tails: degrees of freedom of Student t cluster offsets (heavy tails),
      None for normal offsets.
    within_run: each run's own within-run standard error (single runs), or
      None.
    margin: one equivalence margin for every row, None for the defaults.

  Returns:
    The rows.
  """
  starts = _Starts(clusters, order)

  def Offsets(size):
    if tails is None:
      return rng.normal(0, between / math.sqrt(2), size)
    scale = between / math.sqrt(2 * tails / (tails - 2))
    return scale * rng.standard_t(tails, size)

  shared = [Offsets(n) for n in clusters]
  rows = []
  for index, ratio in enumerate(ratios):
    arms = []
    for arm, scale in enumerate((1.0, ratio)):
      offsets = shared[arm] + Offsets(clusters[arm])
      measurements = []
      for cluster, hour in enumerate(starts[arm]):
        drift = math.log1p(drift_per_hour) * hour
        for repeat in range(repeats):
          value = (
              1000
              * scale
              * math.exp(offsets[cluster] + drift + rng.normal(0, within))
          )
          measurements.append(
              intervals.Measurement(
                  value,
                  f'{"ab"[arm]}{cluster}',
                  repeat + 1,
                  _WithinRun(value, within_run),
                  start=hour * _HOUR_S,
              )
          )
      arms.append(measurements)
    rate = index % 2 == 0
    rows.append(
        comparison.CompareArms(
            arms[0],
            arms[1],
            higher_is_better=rate,
            margin=margin
            or (
                comparison.RATE_MARGIN if rate else comparison.PERCENTILE_MARGIN
            ),
        )
    )
  return comparison.CompareRows(rows)


def _WithinRun(value, standard_error):
  if standard_error is None:
    return None
  return within_run_intervals.WithinRun(value, standard_error, 30)


def _Share(reports, verdicts):
  rows = [row for report in reports for row in report]
  return sum(row.verdict in verdicts for row in rows) / len(rows)


def test_a_difference_inside_the_margin_is_equivalent_not_worse():
  # B 1% slower (rates down, latencies up), 0.5% noise, --margin 5%, 4
  # clusters per arm: every interval lies inside 1 +- 5%.
  rng = np.random.default_rng(291)
  reports = [
      _Report(rng, [0.99, 1.01] * 10, between=0.005, within=0.002, margin=0.05)
      for _ in range(20)
  ]
  assert _Share(reports, _DECIDED) == 0
  assert _Share(reports, (comparison.EQUIVALENT,)) >= 0.95
  detectable = [row.detectable for report in reports for row in report]
  # A 1% difference at this noise is seen in about a third of the rows.
  assert sum(detectable) / len(detectable) >= 0.2


def test_a_drift_is_not_taken_for_a_difference():
  # No true difference, 2% an hour of drift, all A clusters then all B.
  rng = np.random.default_rng(292)
  reports = [
      _Report(rng, [1.0] * 36, drift_per_hour=0.02, order='a_first')
      for _ in range(10)
  ]
  assert _Share(reports, _DECIDED) <= 0.05
  row = reports[0][0]
  assert row.method == comparison.TREND_ADJUSTED
  assert row.order.startswith('not interleaved')
  assert 'every A cluster started before every B cluster' in row.order
  assert row.trend_per_hour is not None
  assert abs(row.trend_per_hour - 0.02) < 0.01
  assert 'B/A adjusted for a linear trend' in row.warning


def test_a_real_difference_is_still_found_under_drift():
  rng = np.random.default_rng(293)
  reports = [
      _Report(
          rng, [1.1, 1 / 1.1] * 5, (6, 6), drift_per_hour=0.02, order='a_first'
      )
      for _ in range(20)
  ]
  assert _Share(reports, (comparison.BETTER,)) >= 0.8


def test_interleaved_arms_cancel_a_drift_without_adjusting_for_it():
  rng = np.random.default_rng(294)
  reports = [_Report(rng, [1.0] * 20, drift_per_hour=0.02) for _ in range(10)]
  assert _Share(reports, _DECIDED) <= 0.05
  assert reports[0][0].method == comparison.WELCH_CLUSTERS
  assert reports[0][0].order.startswith('interleaved')


def test_too_few_clusters_to_tell_a_drift_give_no_verdict():
  rng = np.random.default_rng(295)
  rows = _Report(rng, [1.3] * 4, (2, 1), drift_per_hour=0.02, order='a_first')
  assert all(row.verdict == comparison.INCONCLUSIVE for row in rows)
  assert 'drift' in rows[0].no_verdict


def test_single_runs_get_no_verdict():
  # A against A', one run each, 2% run-to-run noise, tight within-run
  # intervals: a within-run test would call most rows different.
  rng = np.random.default_rng(296)
  reports = [
      _Report(rng, [1.0] * 20, (1, 1), within=0.02, within_run=0.002)
      for _ in range(10)
  ]
  rows = [row for report in reports for row in report]
  assert sum(row.p <= 0.05 for row in rows) / len(rows) > 0.5
  assert _Share(reports, _DECIDED + (comparison.EQUIVALENT,)) == 0
  assert all(row.no_verdict and row.clusters_needed for row in rows)


def test_one_run_against_four_clusters_is_tested_between_clusters():
  rng = np.random.default_rng(297)
  same = [_Report(rng, [1.0] * 20, (1, 4), order='a_middle') for _ in range(20)]
  row = same[0][0]
  assert row.method == comparison.AGAINST_ONE_CLUSTER
  assert row.covers == intervals.ACROSS_CLUSTERS
  assert row.order.startswith('interleaved')
  assert 'arm A ran on one cluster' in row.warning
  assert '% CI; A: 1 run, B: 4 clusters x 1 repeat)' in (
      comparison.ClaimSentence(row)
  )
  assert _Share(same, _DECIDED) <= 0.05
  moved = [
      _Report(rng, [1.1, 1 / 1.1] * 5, (1, 4), order='a_middle')
      for _ in range(20)
  ]
  assert _Share(moved, (comparison.BETTER,)) >= 0.5


def test_heavy_tails_give_no_confident_wrong_verdict():
  rng = np.random.default_rng(298)
  reports = [
      _Report(rng, [1.0] * 20, (4, 4), between=0.02, tails=3) for _ in range(20)
  ]
  assert _Share(reports, _DECIDED) <= 0.05


def test_equivalence_at_the_margins_edge_is_rarely_claimed():
  # Every row's truth is exactly the margin: each EQUIVALENT is wrong. One
  # row alone is wrong 5% of the time; adjusted across the 20 rows, a report
  # with any such claim stays near 5% (not 1 - 0.95^20 = 64%).
  rng = np.random.default_rng(299)
  reports = []
  for _ in range(60):
    ratios = [
        1 - comparison.RATE_MARGIN
        if index % 2 == 0
        else 1 + comparison.PERCENTILE_MARGIN
        for index in range(20)
    ]
    reports.append(_Report(rng, ratios, between=0.004, within=0.002))
  wrong = sum(
      any(row.verdict == comparison.EQUIVALENT for row in report)
      for report in reports
  )
  assert wrong / len(reports) <= 0.12


def test_every_verdict_agrees_with_the_interval_it_shows():
  rng = np.random.default_rng(300)
  rows = []
  for ratios in ([1.0] * 10, [1.01, 0.99] * 5, [1.1, 1.05, 1.0, 0.97] * 3):
    rows += _Report(rng, ratios, (3, 3), between=0.01)
  for row in rows:
    low, high, _ = row.VerdictInterval()
    if row.verdict == comparison.EQUIVALENT:
      assert 1 - row.margin <= low and high <= 1 + row.margin
    elif row.verdict in _DECIDED:
      assert high < 1 or low > 1
    else:
      assert low <= 1 <= high
      assert not (
          1 - row.margin <= row.equivalence_low
          and row.equivalence_high <= 1 + row.margin
      )
