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

"""Tests of the confidence intervals of one figure.

Unit tests on small known inputs, then calibration by simulation: runs with
a known truth, cluster-to-cluster and run-to-run noise of 1-3% and op rate
series that are AR(1) autocorrelated, where a 95% interval must cover the
truth in 93-97% of trials. With 2,000 trials the observed coverage of a
true 95% interval has a standard deviation of sqrt(0.95 x 0.05 / 2000) =
0.49%, so [93%, 97%] is +-4 standard deviations: a calibrated interval
fails by chance about once in 15,000 runs, while one whose true coverage
is 92% or 98% fails almost always.
"""

import math
import time

import numpy as np
import pytest
from scipy import stats

from perfkit_plugins.core.stats import intervals
from perfkit_plugins.testing import series as series_lib

TRIALS = 2000
LOW_COVERAGE = 0.93
HIGH_COVERAGE = 0.97


def _Within(value):
  return intervals.Interval(
      estimate=value,
      low=value * 0.99,
      high=value * 1.01,
      level=0.95,
      method='batch_means',
      covers=intervals.WITHIN_RUN,
      units=60,
      standard_error=0.005,
      dof=19,
  )


# MeanOfSeries


def test_mean_of_series_on_iid_data_is_close_to_the_plain_t_interval():
  rng = np.random.default_rng(11)
  for _ in range(20):
    values = 10_000 + 200 * rng.standard_normal(600)
    interval = intervals.MeanOfSeries(values)
    half = stats.t.ppf(0.975, 599) * values.std(ddof=1) / math.sqrt(600)
    assert interval.estimate == pytest.approx(values.mean())
    assert (interval.high - interval.low) / 2 == pytest.approx(half, rel=0.3)
    assert interval.method == 'batch_means'
    assert interval.covers == intervals.WITHIN_RUN
    assert interval.units > 300
    assert interval.standard_error == pytest.approx(
        (interval.high - interval.estimate)
        / stats.t.ppf(0.975, interval.dof)
        / interval.estimate
    )


def test_mean_of_series_widens_for_autocorrelated_data():
  rng = np.random.default_rng(12)
  values = 10_000 + 200 * series_lib.Ar1(rng, 3600, 0.8)
  interval = intervals.MeanOfSeries(values)
  naive = stats.t.ppf(0.975, 3599) * values.std(ddof=1) / math.sqrt(3600)
  # The long-run variance of AR(1) is (1 + phi) / (1 - phi) = 9 times the
  # variance of one point: the interval is about 3 times the naive one,
  # and the effective sample size about n / 9.
  assert (interval.high - interval.low) / 2 / naive == pytest.approx(3, rel=0.3)
  assert interval.units == pytest.approx(400, rel=0.35)
  assert not interval.warning


def test_mean_of_series_of_a_constant_has_no_width():
  interval = intervals.MeanOfSeries([5.0] * 60)
  assert (interval.estimate, interval.low, interval.high) == (5.0, 5.0, 5.0)
  assert interval.units == 60
  assert interval.standard_error == 0


def test_short_series_give_an_unbounded_interval_that_says_why():
  interval = intervals.MeanOfSeries([1.0, 2.0, 3.0])
  assert interval.estimate == 2.0
  assert (interval.low, interval.high) == (-math.inf, math.inf)
  assert interval.method == 'unbounded'
  assert interval.standard_error == math.inf
  assert interval.warning == (
      '3 intervals: a within-run interval of a mean needs at least 60 (with'
      ' fewer, its coverage measured by simulation falls under 90%)'
  )


def test_a_mean_interval_needs_60_intervals():
  assert intervals.MIN_SERIES_POINTS == 60
  rng = np.random.default_rng(14)
  values = 100 + rng.standard_normal(60)
  assert intervals.MeanOfSeries(values).method == 'batch_means'
  assert intervals.MeanOfSeries(values[1:]).method == 'unbounded'


def test_a_series_too_short_for_its_autocorrelation_is_flagged():
  rng = np.random.default_rng(13)
  values = 100 + np.cumsum(rng.standard_normal(200))
  interval = intervals.MeanOfSeries(values)
  assert 'likely too narrow' in interval.warning


@pytest.mark.parametrize(
    'values,level',
    [([], 0.95), ([[1.0, 2.0]], 0.95), ([1.0, math.nan], 0.95), ([1.0], 1.0)],
)
def test_mean_of_series_rejects_bad_input(values, level):
  with pytest.raises(ValueError):
    intervals.MeanOfSeries(values, level)


@pytest.mark.parametrize('phi', [0.5, 0.8])
def test_mean_of_series_covers_the_true_mean(phi):
  rng = np.random.default_rng(int(phi * 10))
  # 10-minute steps at 1 s, op rate 10,000/s with a 2% spread per second.
  series = 10_000 * (1 + 0.02 * series_lib.Ar1(rng, (TRIALS, 600), phi))
  covered = 0
  for values in series:
    interval = intervals.MeanOfSeries(values)
    covered += interval.low <= 10_000 <= interval.high
  assert LOW_COVERAGE <= covered / TRIALS <= HIGH_COVERAGE


# PercentileOfIntervals


def test_percentile_follows_hdr_histogram_rank_rule():
  values = np.array([1.0, 2.0, 3.0, 4.0])
  counts = np.array([[3, 1, 0, 0], [2, 2, 1, 1]])  # 5, 3, 1, 1: 10 ops
  for q, expected in [(0.5, 1.0), (0.51, 2.0), (0.8, 2.0), (0.9, 3.0)]:
    interval = intervals.PercentileOfIntervals(counts, values, q)
    assert interval.estimate == expected, q
  # 0.7 x 10 is 7.000000000000001 in floating point: the rank is still 7.
  seven = intervals.PercentileOfIntervals([[7, 3]], [1.0, 2.0], 0.7)
  assert seven.estimate == 1.0
  top = intervals.PercentileOfIntervals(counts, values, 0.999)
  assert top.estimate == 4.0


def test_empty_buckets_change_no_percentile():
  rng = np.random.default_rng(21)
  counts = rng.poisson(3, size=(150, 40))
  values = np.arange(1.0, 41.0)
  padded = np.zeros((150, 80), dtype=int)
  padded[:, ::2] = counts
  padded_values = np.repeat(values, 2) - np.tile([0.5, 0.0], 40)
  # Odd buckets are empty; the even buckets keep the original values.
  padded_values[::2] = values
  for q in (0.5, 0.99):
    plain = intervals.PercentileOfIntervals(counts, values, q)
    spread = intervals.PercentileOfIntervals(padded, padded_values, q)
    assert plain.method == 'woodruff'
    assert plain == spread


def test_percentile_interval_bounds_are_bucket_values_around_it():
  rng = np.random.default_rng(22)
  # Counts falling off by e every 6 buckets: the p99 about bucket 28.
  counts = rng.poisson(20 * np.exp(-np.arange(60) / 6), size=(200, 60))
  values = np.geomspace(0.1, 100, 60)
  interval = intervals.PercentileOfIntervals(counts, values, 0.99)
  assert interval.low <= interval.estimate <= interval.high
  assert interval.low < interval.high
  assert interval.method == 'woodruff'
  assert interval.covers == intervals.WITHIN_RUN
  assert interval.low in values and interval.high in values
  # Independent intervals: an effective sample size of the same order as
  # their count (its estimate varies: 110 to 200 in 90% of such runs).
  assert 100 < interval.units <= 200
  assert interval.standard_error == pytest.approx(
      math.log(interval.high / interval.low)
      / 2
      / stats.t.ppf(0.975, interval.dof)
  )


def _ClusteredTails(rng, intervals_count, phi, spread, buckets=200):
  """Per-interval histograms whose latency level drifts as AR(1) in time."""
  edges = np.linspace(-3, 4, buckets + 1)
  shift = spread * series_lib.Ar1(rng, intervals_count, phi)
  cdf = stats.norm.cdf((edges[None, :] - shift[:, None]) / 0.5)
  return rng.poisson(2000 * np.diff(cdf, axis=1)), np.exp(edges[1:])


def test_clustered_tails_get_wider_intervals_than_scattered_ones():
  rng = np.random.default_rng(23)
  clustered, values = _ClusteredTails(rng, 600, 0.9, 0.3)
  # The same intervals in random order: same histogram, no clustering.
  scattered = clustered[rng.permutation(600)]
  near = intervals.PercentileOfIntervals(clustered, values, 0.99)
  far = intervals.PercentileOfIntervals(scattered, values, 0.99)
  assert near.estimate == far.estimate
  assert near.units < far.units
  assert near.standard_error > 2 * far.standard_error


@pytest.mark.parametrize(
    'q,minimum', [(0.5, 60), (0.95, 79), (0.99, 120), (0.999, 180)]
)
def test_a_percentile_interval_needs_more_intervals_further_in_the_tail(
    q, minimum
):
  assert intervals.MinPercentileIntervals(q) == minimum
  rng = np.random.default_rng(25)
  counts = rng.poisson(50, size=(minimum, 30))
  values = np.arange(1.0, 31.0)
  assert intervals.PercentileOfIntervals(counts, values, q).method == 'woodruff'
  short = intervals.PercentileOfIntervals(counts[1:], values, q)
  assert short.method == 'unbounded'
  assert short.warning.endswith(
      f'{minimum - 1} intervals: a within-run interval of this percentile'
      f' needs at least {minimum} (with fewer, its coverage measured by'
      ' simulation falls under 90%)'
  )


def test_a_bound_beyond_the_histogram_is_infinite():
  # 1,001 operations per interval, one of them at 50 ms; one interval in
  # 200 also holds every operation slower than the p99.9 (150 at 100 ms):
  # the share of operations at or below 50 ms is too uncertain for the
  # histogram to bound the p99.9 from above.
  counts = np.zeros((200, 3), dtype=int)
  counts[:, :2] = [1000, 1]
  counts[100, 2] = 150
  interval = intervals.PercentileOfIntervals(counts, [1.0, 50.0, 100.0], 0.999)
  assert interval.method == 'woodruff'
  assert (interval.estimate, interval.low, interval.high) == (
      50.0,
      1.0,
      math.inf,
  )
  assert interval.standard_error == math.inf
  # Not published: the warning says why.
  assert interval.warning.endswith(
      '; the interval of the share of operations, 0.999 +- 0.0015, reaches'
      ' past the last operation: the histogram cannot bound this percentile'
      ' (its tail comes in bursts too few for the run), so no interval is'
      ' published'
  )


def test_percentile_flags_too_few_operations_and_too_few_intervals():
  counts = np.ones((5, 10), dtype=int)
  interval = intervals.PercentileOfIntervals(counts, np.arange(1.0, 11), 0.99)
  assert interval.method == 'unbounded'
  assert '50 operations' in interval.warning
  assert '5 intervals' in interval.warning


def test_percentile_of_an_hour_of_full_histograms_is_fast():
  rng = np.random.default_rng(24)
  counts = rng.poisson(0.5, size=(3600, 3000))
  values = np.geomspace(0.05, 500, 3000)
  start = time.perf_counter()
  interval = intervals.PercentileOfIntervals(counts, values, 0.999)
  assert time.perf_counter() - start < 1.0
  assert interval.low <= interval.estimate <= interval.high


@pytest.mark.parametrize(
    'counts,values,q',
    [
        ([[1, 2]], [1.0], 0.5),
        ([[1, -2]], [1.0, 2.0], 0.5),
        ([[0, 0]], [1.0, 2.0], 0.5),
        ([[1, 2]], [1.0, 2.0], 1.0),
    ],
)
def test_percentile_rejects_bad_input(counts, values, q):
  with pytest.raises(ValueError):
    intervals.PercentileOfIntervals(counts, values, q)


def test_too_few_operations_needs_400_beyond_the_percentile():
  assert intervals.MIN_TAIL_OPERATIONS == 400
  assert intervals.TooFewOperations(399_999, 0.999)
  assert not intervals.TooFewOperations(400_000, 0.999)
  assert not intervals.TooFewOperations(40_000, 0.99)
  assert intervals.TooFewOperations(799, 0.5)


# MeanOfUnits and Summarize


def test_mean_of_units_works_on_the_log_scale():
  interval = intervals.MeanOfUnits(
      [100.0, 400.0], 0.95, intervals.WITHIN_CLUSTER
  )
  logs = np.log([100.0, 400.0])
  error = logs.std(ddof=1) / math.sqrt(2)
  half = stats.t.ppf(0.975, 1) * error
  assert interval.estimate == pytest.approx(200.0)
  assert interval.low == pytest.approx(200.0 * math.exp(-half))
  assert interval.high == pytest.approx(200.0 * math.exp(half))
  assert interval.standard_error == pytest.approx(error)
  assert (interval.method, interval.units, interval.dof) == ('t_repeats', 2, 1)


def test_mean_of_units_falls_back_to_the_linear_scale_and_says_so():
  interval = intervals.MeanOfUnits(
      [0.0, 2.0, 4.0], 0.9, intervals.ACROSS_CLUSTERS
  )
  assert interval.estimate == 2.0
  assert interval.method == 't_clusters'
  assert 'linear scale' in interval.warning


@pytest.mark.parametrize(
    'values,covers',
    [
        ([1.0], intervals.WITHIN_CLUSTER),
        ([1.0, 2.0], intervals.WITHIN_RUN),
        ([1.0, math.inf], intervals.ACROSS_CLUSTERS),
    ],
)
def test_mean_of_units_refuses_what_it_cannot_bound(values, covers):
  with pytest.raises(ValueError):
    intervals.MeanOfUnits(values, 0.95, covers)


def test_summarize_uses_the_highest_replicated_level():
  single = intervals.Measurement(100.0, 'c1', 1, _Within(100.0))
  assert intervals.Summarize([single]) == _Within(100.0)

  repeats = [
      intervals.Measurement(v, 'c1', i + 1)
      for i, v in enumerate([99.0, 101.0, 100.0])
  ]
  within = intervals.Summarize(repeats)
  assert (within.covers, within.method, within.units) == (
      intervals.WITHIN_CLUSTER,
      't_repeats',
      3,
  )
  assert 'one cluster' in within.warning

  clusters = repeats + [
      intervals.Measurement(110.0, 'c2', 1),
      intervals.Measurement(121.0, 'c2', 2),
  ]
  across = intervals.Summarize(clusters)
  assert (across.covers, across.method, across.units) == (
      intervals.ACROSS_CLUSTERS,
      't_clusters',
      2,
  )
  # Cluster values are geometric means of their repeats: c1 ~ 99.997, c2
  # = 110 x 1.1^0.5.
  c1 = math.exp(np.mean(np.log([99.0, 101.0, 100.0])))
  c2 = math.sqrt(110.0 * 121.0)
  assert across.estimate == pytest.approx(math.sqrt(c1 * c2))
  assert not across.warning


def test_summarize_of_a_run_without_an_interval_says_so():
  interval = intervals.Summarize([intervals.Measurement(5.0, 'c1', 1)])
  assert interval.estimate == 5.0
  assert interval.covers == intervals.WITHIN_RUN
  assert interval.method == 'unbounded'
  assert 'no noise estimate' in interval.warning
  with pytest.raises(ValueError):
    intervals.Summarize([])


def _RunValues(rng, truths, phi):
  """Op rates of runs: each the mean of an AR(1) series around its truth.

  Args:
    rng: the generator.
    truths: trials x runs array, each run's true op rate.
    phi: autocorrelation of the per-second series (2% spread).

  Returns:
    trials x runs array of measured op rates.
  """
  series = 1 + 0.02 * series_lib.Ar1(rng, truths.shape + (120,), phi)
  return truths * series.mean(axis=-1)


def _Measurements(values, clusters):
  repeats = len(values) // clusters
  return [
      intervals.Measurement(float(v), f'c{i // repeats}', i % repeats + 1)
      for i, v in enumerate(values)
  ]


def test_summarize_across_repeats_covers_the_cluster_truth():
  rng = np.random.default_rng(31)
  cluster_truth = 10_000 * np.exp(rng.normal(0, 0.02, size=(TRIALS, 1)))
  truths = cluster_truth * np.exp(rng.normal(0, 0.015, size=(TRIALS, 3)))
  values = _RunValues(rng, truths, 0.7)
  covered = 0
  for trial in range(TRIALS):
    interval = intervals.Summarize(_Measurements(values[trial], 1))
    assert interval.covers == intervals.WITHIN_CLUSTER
    covered += interval.low <= cluster_truth[trial, 0] <= interval.high
  assert LOW_COVERAGE <= covered / TRIALS <= HIGH_COVERAGE


def test_summarize_across_clusters_covers_the_truth():
  rng = np.random.default_rng(32)
  clusters, repeats = 4, 2
  offsets = np.repeat(rng.normal(0, 0.02, size=(TRIALS, clusters)), repeats, 1)
  noise = rng.normal(0, 0.01, size=(TRIALS, clusters * repeats))
  values = _RunValues(rng, 10_000 * np.exp(offsets + noise), 0.5)
  covered = 0
  for trial in range(TRIALS):
    interval = intervals.Summarize(_Measurements(values[trial], clusters))
    assert interval.covers == intervals.ACROSS_CLUSTERS
    covered += interval.low <= 10_000 <= interval.high
  assert LOW_COVERAGE <= covered / TRIALS <= HIGH_COVERAGE
