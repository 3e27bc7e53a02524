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

"""Tests of experiment planning.

The plans are checked against simulation: the number of clusters
ClustersNeeded returns must reach the asked power when Welch's test is run
on simulated log cluster means, and one cluster fewer must not (or only
just).
"""

import math

import numpy as np
import pytest
from scipy import stats

from perfkit_plugins.core.stats import experiment
from perfkit_plugins.core.stats import intervals


def _Measurements(values_by_cluster, within=None):
  return [
      intervals.Measurement(float(value), f'c{cluster}', repeat + 1, within)
      for cluster, values in enumerate(values_by_cluster)
      for repeat, value in enumerate(values)
  ]


def _Within(standard_error):
  return intervals.Interval(
      estimate=1.0,
      low=0.9,
      high=1.1,
      level=0.95,
      method='batch_means',
      covers=intervals.WITHIN_RUN,
      units=50,
      standard_error=standard_error,
      dof=20,
  )


def test_noise_of_a_balanced_design_matches_the_textbook_split():
  values = [[100, 110], [120, 125], [90, 95]]
  noise = experiment.NoiseFromMeasurements(_Measurements(values))
  logs = np.log(values)
  within = np.mean(logs.var(axis=1, ddof=1))
  between = logs.mean(axis=1).var(ddof=1) - within / 2
  assert noise.within_cluster_cv == pytest.approx(math.sqrt(within))
  assert noise.between_cluster_cv == pytest.approx(math.sqrt(between))
  assert (noise.clusters, noise.runs, noise.within_run_cv) == (3, 6, None)


def test_noise_recovers_known_levels():
  rng = np.random.default_rng(51)
  offsets = rng.normal(0, 0.02, size=(60, 1))
  logs = offsets + rng.normal(0, 0.01, size=(60, 3))
  noise = experiment.NoiseFromMeasurements(
      _Measurements(1000 * np.exp(logs), _Within(0.004))
  )
  assert noise.between_cluster_cv == pytest.approx(0.02, rel=0.25)
  assert noise.within_cluster_cv == pytest.approx(0.01, rel=0.15)
  assert noise.within_run_cv == pytest.approx(0.004)


def test_noise_says_what_it_cannot_know():
  one_cluster = experiment.NoiseFromMeasurements(_Measurements([[10, 11, 12]]))
  assert one_cluster.between_cluster_cv is None
  assert one_cluster.within_cluster_cv > 0
  no_repeats = experiment.NoiseFromMeasurements(_Measurements([[10], [11]]))
  assert no_repeats.within_cluster_cv is None
  assert no_repeats.between_cluster_cv == pytest.approx(
      np.log([10, 11]).std(ddof=1)
  )
  with pytest.raises(ValueError):
    experiment.NoiseFromMeasurements(_Measurements([[10, 0]]))
  with pytest.raises(ValueError):
    experiment.NoiseFromMeasurements([])


def test_repeats_only_divide_the_within_cluster_part():
  noise = experiment.NoiseProfile(0.02, 0.03, 0.01)
  assert experiment.ClusterMeanVariance(noise, 3) == pytest.approx(
      0.02**2 + 0.03**2 / 3
  )
  # Unknown parts: between counts as 0, within falls back to within-run.
  lower = experiment.NoiseProfile(None, None, 0.01)
  assert experiment.ClusterMeanVariance(lower, 2) == pytest.approx(0.01**2 / 2)
  with pytest.raises(ValueError):
    experiment.ClusterMeanVariance(experiment.NoiseProfile(None, None, None), 1)
  with pytest.raises(ValueError):
    experiment.ClusterMeanVariance(noise, 0)


def test_one_run_per_cluster_counts_the_within_run_noise_once():
  # An A/A experiment of one run per cluster: the clusters' spread (5%)
  # already holds each run's own noise (4%).
  rng = np.random.default_rng(30)
  clusters = rng.normal(0, 0.03, 400) + rng.normal(0, 0.04, 400)
  measured = experiment.NoiseFromMeasurements([
      intervals.Measurement(
          float(math.exp(value)),
          f'c{i}',
          1,
          intervals.Interval(
              1, 0.9, 1.1, 0.95, 'm', 'within_run', 30, 0.04, 29
          ),
      )
      for i, value in enumerate(clusters)
  ])
  assert measured.within_cluster_cv is None
  assert measured.between_cluster_cv == pytest.approx(0.05, rel=0.1)
  assert experiment.ClusterMeanVariance(measured, 1) == pytest.approx(
      measured.between_cluster_cv**2
  )
  alone = experiment.NoiseProfile(measured.between_cluster_cv, None, None)
  assert experiment.ClustersNeeded(
      measured, 0.05, 1
  ) == experiment.ClustersNeeded(alone, 0.05, 1)
  # Repeats can average away at most the within-run part.
  assert experiment.ClusterMeanVariance(measured, 4) == pytest.approx(
      measured.between_cluster_cv**2 - 0.04**2 * 0.75
  )


def _SimulatedPower(rng, noise, difference, repeats, clusters, trials=4000):
  """Share of simulated designs where Welch's test finds the difference."""
  shape = (trials, clusters)
  arms = []
  for shift in (0.0, math.log1p(difference)):
    offsets = rng.normal(0, noise.between_cluster_cv, shape)
    runs = rng.normal(0, noise.within_cluster_cv, shape + (repeats,))
    arms.append(shift + offsets + runs.mean(axis=2))
  test = stats.ttest_ind(arms[1], arms[0], axis=1, equal_var=False)
  return float(np.mean(test.pvalue < 0.05))


@pytest.mark.parametrize(
    'between,within,repeats,difference',
    [
        (0.02, 0.02, 3, 0.05),
        (0.01, 0.03, 2, -0.03),
        (0.03, 0.01, 3, 0.1),
        (0.02, 0.02, 1, 0.1),
    ],
)
def test_clusters_needed_reach_the_power_in_simulation(
    between, within, repeats, difference
):
  rng = np.random.default_rng(52)
  noise = experiment.NoiseProfile(between, within, None)
  clusters = experiment.ClustersNeeded(noise, difference, repeats)
  enough = _SimulatedPower(rng, noise, difference, repeats, clusters)
  # 4,000 trials: a simulated power has a standard deviation of 0.6%.
  assert enough >= 0.78
  assert experiment.Power(noise, difference, repeats, clusters) == (
      pytest.approx(enough, abs=0.025)
  )
  if clusters > 2:
    fewer = _SimulatedPower(rng, noise, difference, repeats, clusters - 1)
    assert fewer < 0.815


def test_clusters_needed_grow_with_noise_and_shrink_with_repeats():
  noise = experiment.NoiseProfile(0.01, 0.03, None)
  assert experiment.ClustersNeeded(noise, 0.02, 1) > experiment.ClustersNeeded(
      noise, 0.02, 4
  )
  noisier = experiment.NoiseProfile(0.02, 0.03, None)
  assert experiment.ClustersNeeded(noisier, 0.02, 4) > (
      experiment.ClustersNeeded(noise, 0.02, 4)
  )
  with pytest.raises(ValueError):
    experiment.ClustersNeeded(noise, 0.0, 3)


def test_large_shifts_reach_the_power():
  # scipy's noncentral t cdf is NaN at shifts from about 5 on: 2 clusters of
  # 0.6% noise per cluster mean detect 10% (a shift of 16) with power 1.
  noise = experiment.NoiseProfile(0.0, 0.01, None)
  assert experiment.Power(noise, 0.1, 3, 2) > 0.99
  assert experiment.ClustersNeeded(noise, 0.1, 3) == 2
  assert experiment.ClustersNeeded(noise, -0.2, 1, alpha=0.05 / 30) == 3


@pytest.mark.parametrize('alpha', [0.05, 0.05 / 30])
def test_more_repeats_never_ask_for_more_clusters(alpha):
  # A grid of noise and differences: the clusters fall (or stay) with every
  # repeat added, and each answer reaches the power one cluster fewer lacks.
  for between in (0.0, 0.01, 0.05):
    for within in (0.005, 0.02, 0.1):
      noise = experiment.NoiseProfile(between, within, None)
      for difference in (0.02, 0.1, 0.5, 1.0):
        needed = [
            experiment.ClustersNeeded(noise, difference, repeats, alpha)
            for repeats in (1, 3, 5)
        ]
        assert needed == sorted(needed, reverse=True), (noise, difference)
        clusters = needed[-1]
        assert experiment.Power(noise, difference, 5, clusters, alpha) >= 0.8
        if clusters > 2:
          assert (
              experiment.Power(noise, difference, 5, clusters - 1, alpha) < 0.8
          )


def test_clusters_needed_for_equivalence_reach_the_power_in_simulation():
  rng = np.random.default_rng(53)
  noise = experiment.NoiseProfile(0.015, 0.01, None)
  clusters = experiment.ClustersNeededForEquivalence(noise, 0.005, 0.02, 2)
  assert clusters is not None

  def Shown(count, trials=4000):
    variance = experiment.ClusterMeanVariance(noise, 2)
    logs = rng.normal(0, math.sqrt(variance), (2, trials, count))
    logs[1] += math.log1p(0.005)
    test = stats.ttest_ind(logs[1], logs[0], axis=1, equal_var=False)
    bounds = test.confidence_interval(0.90)
    inside = (bounds.low >= math.log(0.98)) & (bounds.high <= math.log(1.02))
    return float(np.mean(inside))

  assert Shown(clusters) >= 0.78
  assert Shown(clusters - 1) < 0.815
  assert experiment.ClustersNeededForEquivalence(noise, 0.03, 0.02, 2) is None


def test_interleaved_order_is_counterbalanced():
  assert experiment.InterleavedOrder(2) == ('A', 'B', 'B', 'A')
  assert experiment.InterleavedOrder(4) == (
      'A',
      'B',
      'B',
      'A',
      'A',
      'B',
      'B',
      'A',
  )
  order = experiment.InterleavedOrder(4, ('x', 'y', 'z'))
  # A linear drift adds the same to every arm: equal sums of positions.
  sums = {arm: sum(i for i, a in enumerate(order) if a == arm) for arm in 'xyz'}
  assert len(set(sums.values())) == 1
  assert order.count('x') == 4
  with pytest.raises(ValueError):
    experiment.InterleavedOrder(0)
  with pytest.raises(ValueError):
    experiment.InterleavedOrder(2, ('A', 'A'))


def test_experiment_cost():
  assert experiment.ExperimentCostUsd(6, 2.5, 3.2) == pytest.approx(48.0)
  with pytest.raises(ValueError):
    experiment.ExperimentCostUsd(6, -1, 3.2)
