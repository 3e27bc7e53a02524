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


def _Starts(clusters, order, rng):
  """Start of each cluster of A and of B, in seconds.

  Orders: 'interleaved' (A B B A ..., an hour apart, as --plan_ab prints),
  'a_first' (every A cluster, then every B cluster, an hour apart),
  'a_middle' (A's one cluster amid B's, an hour apart), 'random' (a random
  permutation of hourly slots), 'together' (launched together: A's
  clusters a minute apart, then B's, from minute clusters[0] + 1),
  'staggered' (every A cluster, then every B cluster, five minutes apart),
  and 'seconds' (every A cluster in the first second, every B cluster in
  the next).
  """
  count = sum(clusters)
  if order == 'staggered':
    return tuple(
        [300.0 * m for m in arm]
        for arm in (range(clusters[0]), range(clusters[0], count))
    )
  if order == 'a_middle':
    assert clusters[0] == 1
    middle = clusters[1] // 2
    slots = [middle], [h for h in range(count) if h != middle]
  elif order == 'a_first':
    slots = list(range(clusters[0])), list(range(clusters[0], count))
  elif order == 'random':
    hours = rng.permutation(count).tolist()
    slots = hours[: clusters[0]], hours[clusters[0] :]
  elif order == 'together':
    minutes = list(range(clusters[0])), [
        clusters[0] + 1 + i for i in range(clusters[1])
    ]
    return tuple([60.0 * m for m in arm] for arm in minutes)
  elif order == 'seconds':
    return (
        [0.1 * i for i in range(clusters[0])],
        [1 + 0.1 * i for i in range(clusters[1])],
    )
  else:
    assert order == 'interleaved' and clusters[0] == clusters[1]
    arms = experiment.InterleavedOrder(clusters[0])
    slots = tuple([i for i, x in enumerate(arms) if x == arm] for arm in 'AB')
  return tuple([_HOUR_S * h for h in arm] for arm in slots)


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
    window_s=None,
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
    order: how the clusters were ordered in time (_Starts).
    tails: degrees of freedom of Student t cluster offsets (heavy tails),
      None for normal offsets.
    within_run: each run's own within-run standard error (single runs), or
      None.
    margin: one equivalence margin for every row, None for the defaults.
    window_s: how long each run's figures were measured, from 5 minutes
      after its start; None when the runs publish no window.

  Returns:
    The rows.
  """
  starts = _Starts(clusters, order, rng)

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
      for cluster, start in enumerate(starts[arm]):
        drift = math.log1p(drift_per_hour) * start / _HOUR_S
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
                  start=start,
                  window=window_s and (start + 300, start + 300 + window_s),
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
  assert row.order == (
      '8 start times over 7.0 h, mean start of B +4.0 h from A (every A'
      ' cluster started before every B cluster)'
  )
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


def test_interleaved_arms_are_fitted_with_the_trend_too():
  # A B B A cancels a linear drift's bias; the trend also removes its spread.
  rng = np.random.default_rng(294)
  reports = [_Report(rng, [1.0] * 20, drift_per_hour=0.02) for _ in range(10)]
  assert _Share(reports, _DECIDED) <= 0.05
  assert reports[0][0].method == comparison.TREND_ADJUSTED
  assert reports[0][0].order.endswith('mean start of B +0.0 h from A')


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
  assert row.method == comparison.TREND_ADJUSTED
  assert row.covers == intervals.ACROSS_CLUSTERS
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
  # Every row's truth is exactly the margin: each EQUIVALENT is wrong, its
  # interval missing the truth. The intervals' false coverage rate (5%,
  # two-sided) bounds the share of such rows at 2.5%.
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
  assert _Share(reports, (comparison.EQUIVALENT,)) <= 0.035


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
      assert not 1 - row.margin <= low <= high <= 1 + row.margin


# B 10% worse on every row: rates 10% lower, latencies 10% higher.
_WORSE_BY_10 = [1 / 1.1, 1.1] * 5


def _Designs(rng, seeds, **design):
  """Reports of B 10% worse, and of no difference, in one design."""
  worse = [_Report(rng, _WORSE_BY_10, **design) for _ in range(seeds)]
  same = [_Report(rng, [1.0] * 10, **design) for _ in range(seeds)]
  return worse, same


def _Rows(reports):
  return [row for report in reports for row in report]


def test_hourly_a_b_b_a_fits_the_trend_and_finds_a_loss():
  # 4 clusters per arm, an hour apart, in the order --plan_ab prints.
  worse, same = _Designs(np.random.default_rng(301), 20)
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05
  row = worse[0][0]
  assert row.method == comparison.TREND_ADJUSTED and row.dof == 5
  assert abs(row.trend_per_hour) < 0.01


def test_arms_launched_together_ran_at_the_same_time():
  # A's clusters in minutes 0-3, B's in minutes 5-8: no drift acts there.
  worse, same = _Designs(
      np.random.default_rng(302), 20, order='together', drift_per_hour=0.02
  )
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05
  row = worse[0][0]
  assert row.method == comparison.WELCH_CLUSTERS and not row.no_verdict
  assert row.order == (
      'simultaneous: every cluster started within 15 minutes of the first'
  )


def test_arms_measured_together_ran_at_the_same_time():
  # A's clusters started in minutes 0-15, B's in minutes 20-35, each
  # measured for an hour: every window shares the instant from minute 25
  # to 65, so no drift can have moved one arm and not the other.
  worse, same = _Designs(
      np.random.default_rng(308),
      20,
      order='staggered',
      drift_per_hour=0.02,
      window_s=3600.0,
  )
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05
  row = worse[0][0]
  assert row.method == comparison.WELCH_CLUSTERS and not row.no_verdict
  assert row.order == (
      'simultaneous: the measured windows of every cluster share an instant'
  )
  # Without their windows, the same starts are two waves, one per arm.
  rows = _Report(
      np.random.default_rng(309),
      _WORSE_BY_10,
      order='staggered',
      drift_per_hour=0.02,
  )
  assert all(row.verdict == comparison.INCONCLUSIVE for row in rows)
  assert 'drift' in rows[0].no_verdict


def test_arms_a_second_apart_get_a_verdict():
  worse, same = _Designs(np.random.default_rng(303), 20, order='seconds')
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05
  assert not any(row.no_verdict for row in _Rows(worse + same))


def test_random_orders_trip_no_switch():
  # Random permutations of hourly slots under a drift of 2% an hour: every
  # order is fitted the same way, and none withholds a verdict.
  rng = np.random.default_rng(304)
  for clusters, power in (((4, 4), 0.8), ((1, 4), 0.5)):
    worse, same = _Designs(
        rng, 30, clusters=clusters, order='random', drift_per_hour=0.02
    )
    rows = _Rows(worse + same)
    assert {row.method for row in rows} == {comparison.TREND_ADJUSTED}
    assert not any(row.no_verdict for row in rows)
    assert _Share(worse, (comparison.WORSE,)) >= power
    assert _Share(same, _DECIDED) <= 0.05


def test_a_b_b_a_under_drift_finds_a_loss():
  # A B B A cancels a linear drift's bias, but not the spread it adds: the
  # common trend removes it.
  worse, same = _Designs(np.random.default_rng(305), 20, drift_per_hour=0.02)
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05


def test_all_a_first_is_adjusted_or_has_no_verdict():
  rng = np.random.default_rng(306)
  worse, same = _Designs(rng, 20, order='a_first', drift_per_hour=0.02)
  assert _Share(worse, (comparison.WORSE,)) >= 0.8
  assert _Share(same, _DECIDED) <= 0.05
  # Two clusters per arm leave no degree of freedom for the trend: A A B B
  # could be moved by a drift of 2% an hour by twice its standard error.
  rows = _Report(rng, _WORSE_BY_10, (2, 2), order='a_first')
  assert all(row.verdict == comparison.INCONCLUSIVE for row in rows)
  assert "the arms' mean starts lie 2.0 h apart: a drift of 2% per hour" in (
      rows[0].no_verdict
  )
  # A B B A of two clusters per arm has no drift bias to withhold it.
  rows = _Report(rng, _WORSE_BY_10, (2, 2))
  assert rows[0].method == comparison.WELCH_CLUSTERS
  assert not any(row.no_verdict for row in rows)


def test_half_the_figures_better_fail_no_gate():
  # B 10% better on 7 of 14 figures, unchanged elsewhere: the table's
  # false discovery rate lets an unchanged row through as WORSE now and
  # then; the gate's family-wise rate keeps failed pipelines under 5%.
  rng = np.random.default_rng(307)
  better = [1.1, 1 / 1.1] * 3 + [1.1]
  reports = [_Report(rng, better + [1.0] * 7) for _ in range(40)]
  failed = sum(
      any(comparison.Regression(row, 0.05) for row in report)
      for report in reports
  )
  assert failed / len(reports) <= 0.05
  unchanged = [report[7:] for report in reports]
  assert _Share(unchanged, _DECIDED) <= 0.05
