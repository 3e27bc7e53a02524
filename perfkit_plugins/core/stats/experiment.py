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

"""Planning an A/B experiment: noise, clusters needed, run order and cost.

An A/B comparison of a figure is a Welch t test on the log cluster means of
the two arms. The noise of a cluster mean has two parts: the cluster's own
offset (machines, disks and neighbours differ; repeats on the same cluster
do not average it away) and run-to-run noise on one cluster (which R
repeats divide by R). Both are measured once, from an A/A comparison (the
same configuration in both arms), and then tell how many clusters an
experiment needs to detect a given difference.

Noise is expressed as coefficients of variation, taken as standard
deviations of natural logs (equal to the CV for small noise, and additive
across levels).
"""

import dataclasses
import math
import statistics
from typing import Optional, Sequence

import numpy as np
from scipy import stats

from perfkit_plugins.core.stats import intervals

# Clusters per arm beyond which a plan counts as out of reach.
_MAX_CLUSTERS = 10_000
# Clusters per arm whose power ClustersNeeded evaluates at once.
_STEPS = 32
_NORMAL = statistics.NormalDist()
# Gauss-Legendre rule of _WelchDof's integral (smooth: 48 nodes are exact to
# 1e-9).
_LEGENDRE_NODES, _LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(48)


@dataclasses.dataclass(frozen=True)
class NoiseProfile:
  """The noise of one figure (one step and metric) at each level.

  Attributes:
    between_cluster_cv: SD of log cluster means beyond what run-to-run noise
      explains; None when unknown (fewer than two clusters). When no
      cluster had two runs it also holds the run-to-run noise (the two
      cannot be told apart; ClusterMeanVariance takes it so).
    within_cluster_cv: SD of log values of runs on one cluster (it includes
      the within-run noise); None when no cluster had two runs.
    within_run_cv: root mean square of the runs' own relative standard
      errors (Interval.standard_error); None when no run had one.
    clusters: clusters it was measured on.
    runs: runs it was measured on.
  """

  between_cluster_cv: Optional[float]
  within_cluster_cv: Optional[float]
  within_run_cv: Optional[float]
  clusters: int = 0
  runs: int = 0


def NoiseFromMeasurements(
    measurements: Sequence[intervals.Measurement],
) -> NoiseProfile:
  """Measures the noise of one figure from runs of one configuration.

  Meant for an A/A comparison's runs (both arms together: they ran the
  same thing). A one-way random-effects analysis of variance on the logs
  splits the variance: the within-cluster variance is the pooled variance
  of runs around their cluster's mean; the between-cluster variance is
  (mean square between clusters - within-cluster variance) / n0, with n0
  the usual effective number of runs per cluster for unequal repeats, and
  never below 0.

  Args:
    measurements: the figure from each run; all values positive.

  Returns:
    The NoiseProfile.

  Raises:
    ValueError: no measurements, or a value that is not positive.
  """
  if not measurements:
    raise ValueError('no measurements to measure noise from')
  if any(not m.value > 0 for m in measurements):
    raise ValueError('noise is measured on logs: values must be positive')
  groups = {}
  for measurement in measurements:
    groups.setdefault(measurement.cluster, []).append(
        math.log(measurement.value)
    )
  sizes = np.array([len(logs) for logs in groups.values()], dtype=float)
  means = np.array([np.mean(logs) for logs in groups.values()])
  runs = int(sizes.sum())
  clusters = len(groups)
  within_sum = sum(
      float(np.sum((np.array(logs) - np.mean(logs)) ** 2))
      for logs in groups.values()
  )
  within_variance = within_sum / (runs - clusters) if runs > clusters else None
  between = None
  if clusters >= 2:
    grand = float(np.sum(sizes * means)) / runs
    mean_square = float(np.sum(sizes * (means - grand) ** 2)) / (clusters - 1)
    n0 = (runs - float(np.sum(sizes**2)) / runs) / (clusters - 1)
    between_variance = (mean_square - (within_variance or 0.0)) / n0
    between = math.sqrt(max(between_variance, 0.0))
  errors = [
      m.within.standard_error
      for m in measurements
      if m.within is not None and math.isfinite(m.within.standard_error)
  ]
  return NoiseProfile(
      between_cluster_cv=between,
      within_cluster_cv=(
          None if within_variance is None else math.sqrt(within_variance)
      ),
      within_run_cv=(
          math.sqrt(float(np.mean(np.square(errors)))) if errors else None
      ),
      clusters=clusters,
      runs=runs,
  )


def ClusterMeanVariance(noise: NoiseProfile, repeats: int) -> float:
  """Variance of one cluster's log mean over `repeats` runs.

  between_cluster_cv^2 + within_cluster_cv^2 / repeats: repeats average
  away run-to-run noise only. When no cluster had two runs
  (within_cluster_cv None), between_cluster_cv already holds the whole
  noise of a one-run cluster, run-to-run and within-run noise included, and
  is taken as it is: adding the within-run noise again would count it twice.
  With repeats it is then reduced by the within-run part they average away,
  within_run_cv^2 (1 - 1 / repeats), an upper bound since run-to-run noise
  is at least the within-run noise. With only one cluster the
  between-cluster part is unknown and counts as 0, and an unknown
  within-cluster part as the within-run noise (which it includes): the
  result is then a lower bound.

  Args:
    noise: the figure's noise.
    repeats: runs per cluster, at least 1.

  Returns:
    The variance, on the log scale.

  Raises:
    ValueError: repeats below 1, or no part of the noise known.
  """
  if repeats < 1:
    raise ValueError(f'{repeats} repeats: at least 1 is needed')
  between, within = noise.between_cluster_cv, noise.within_cluster_cv
  within_run = noise.within_run_cv or 0.0
  if between is not None and within is None:
    averaged = within_run**2 * (1 - 1 / repeats)
    return max(between**2 - averaged, within_run**2 / repeats)
  if within is None:
    within = noise.within_run_cv
  if between is None and within is None:
    raise ValueError('the noise profile knows no noise at any level')
  return (between or 0.0) ** 2 + (within or 0.0) ** 2 / repeats


def _WelchDof(clusters: np.ndarray) -> np.ndarray:
  """Expected Welch degrees of freedom of two arms of equal n and noise.

  Welch's degrees of freedom are k (1 + F)^2 / (1 + F^2), k = n - 1, with F
  the ratio of the arms' sample variances, F-distributed with (k, k)
  degrees of freedom: from k to 2k. Using 2k, the pooled t test's,
  overstates the power of small designs (3 clusters per arm: 0.86 instead
  of the 0.77 a simulation of Welch's test gives). Writing F = tan^2(u/2),
  u has density proportional to sin^(k-1) u on (0, pi) and the expectation
  is k (1 + E[sin^2 u / (1 + cos^2 u)]), integrated by Gauss-Legendre over
  the +-10 standard deviations around pi/2 where the density lies.

  Args:
    clusters: clusters per arm (n), each at least 2.

  Returns:
    The expected degrees of freedom, one per n.
  """
  dof = np.asarray(clusters, dtype=float)[:, None] - 1
  half_width = np.minimum(math.pi / 2, 10 / np.sqrt(dof))
  angles = math.pi / 2 + half_width * _LEGENDRE_NODES
  sines = np.sin(angles) ** 2
  density = _LEGENDRE_WEIGHTS * sines ** ((dof - 1) / 2)
  share = np.sum(density * sines / (1 + np.cos(angles) ** 2), axis=1)
  return dof[:, 0] * (1 + share / np.sum(density, axis=1))


def _Powers(
    variance: float, effect: float, clusters: np.ndarray, alpha: float
) -> np.ndarray:
  """Power of Welch's two-sided test for each number of clusters per arm.

  The far tail P(T < -c) is computed as P(T' > c) with T' of noncentrality
  -shift (T is symmetric so): scipy's noncentral t cdf returns NaN for
  shifts from about 5 on, which made every design of such a shift fall
  short of any power, while its sf is finite there and the two agree
  exactly wherever the cdf is defined.
  """
  dof = _WelchDof(clusters)
  shift = effect / np.sqrt(2 * variance / clusters)
  critical = stats.t.ppf(1 - alpha / 2, dof)
  return stats.nct.sf(critical, dof, shift) + stats.nct.sf(
      critical, dof, -shift
  )


def Power(
    noise: NoiseProfile,
    difference: float,
    repeats: int,
    clusters: int,
    alpha: float = 0.05,
) -> float:
  """Probability that a design detects a relative difference.

  The test is two-sided, Welch's on log cluster means with `clusters` per
  arm: its statistic is noncentral t with noncentrality d / sqrt(2 v / n)
  (d = |log(1 + difference)|, v the variance of a cluster mean, see
  ClusterMeanVariance), at Welch's expected degrees of freedom.

  Args:
    noise: the figure's noise (e.g. from an A/A comparison).
    difference: the true relative difference, e.g. 0.05 for +5%.
    repeats: runs per cluster.
    clusters: clusters per arm, at least 2.
    alpha: two-sided significance level.

  Returns:
    The power, in [0, 1].

  Raises:
    ValueError: fewer than 2 clusters, alpha not in (0, 1), a difference of
      -100% or less, or as ClusterMeanVariance.
  """
  if clusters < 2:
    raise ValueError(f'{clusters} clusters per arm: at least 2 are needed')
  if not 0 < alpha < 1:
    raise ValueError(f'alpha {alpha} is not in (0, 1)')
  if difference <= -1:
    raise ValueError(f'relative difference {difference} is not possible')
  variance = ClusterMeanVariance(noise, repeats)
  effect = abs(math.log1p(difference))
  if not variance:
    return 1.0 if effect else alpha
  return float(_Powers(variance, effect, np.array([clusters]), alpha)[0])


def ClustersNeeded(
    noise: NoiseProfile,
    difference: float,
    repeats: int,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int:
  """Clusters per arm to detect a relative difference with a given power.

  The smallest n whose Power reaches `power`. The search starts from the
  normal approximation n = 2 v (z_{1 - alpha/2} + z_{power})^2 / d^2,
  which t quantiles only raise, and steps up, the degrees of freedom
  following n. The power grows with the noncentrality, so less noise (more
  repeats) never asks for more clusters.

  Args:
    noise: the figure's noise (e.g. from an A/A comparison).
    difference: the relative difference to detect, e.g. 0.05 for +5% or
      -0.05 for -5%.
    repeats: runs per cluster.
    alpha: two-sided significance level.
    power: probability of detecting the difference.

  Returns:
    Clusters per arm, at least 2.

  Raises:
    ValueError: no difference, a difference of -100% or less, alpha or
      power not in (0, 1), a design beyond 10,000 clusters per arm, or as
      ClusterMeanVariance.
  """
  if not 0 < alpha < 1 or not 0 < power < 1:
    raise ValueError(f'alpha {alpha} and power {power} must be in (0, 1)')
  if not difference or difference <= -1:
    raise ValueError(f'relative difference {difference} cannot be detected')
  variance = ClusterMeanVariance(noise, repeats)
  if not variance:
    return 2
  effect = abs(math.log1p(difference))
  normal = _NORMAL.inv_cdf(1 - alpha / 2) + _NORMAL.inv_cdf(power)
  start = max(2, int(2 * variance * normal**2 / effect**2))
  while start <= _MAX_CLUSTERS:
    candidates = np.arange(start, start + _STEPS)
    reached = np.flatnonzero(
        _Powers(variance, effect, candidates, alpha) >= power
    )
    if reached.size:
      return int(candidates[reached[0]])
    start += _STEPS
  raise ValueError(
      f'relative difference {difference} needs more than {_MAX_CLUSTERS:,}'
      ' clusters per arm at this noise'
  )


def ClustersNeededForEquivalence(
    noise: NoiseProfile,
    difference: float,
    margin: float,
    repeats: int,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Optional[int]:
  """Clusters per arm to show equivalence when the true difference is known.

  Equivalence is shown when the (1 - 2 alpha) interval of B/A lies within
  [1 - margin, 1 + margin] (two one-sided tests at alpha). The log ratio
  estimate is taken as t distributed (Welch's expected degrees of freedom)
  around the true log ratio with standard error sqrt(2 v / n). The closer
  the true difference is to the margin, the more clusters that takes.

  Args:
    noise: the figure's noise.
    difference: the true relative difference, e.g. 0.01.
    margin: the equivalence margin, e.g. 0.02.
    repeats: runs per cluster.
    alpha: level of each one-sided test.
    power: probability of showing equivalence.

  Returns:
    Clusters per arm (at least 2); None when the difference is not inside
    the margin or no practical number of clusters (up to 10,000 per arm)
    reaches the power.

  Raises:
    ValueError: a margin not in (0, 1), alpha or power not in (0, 1), or
      as ClusterMeanVariance.
  """
  if not 0 < margin < 1:
    raise ValueError(f'margin {margin} is not in (0, 1)')
  if not 0 < alpha < 1 or not 0 < power < 1:
    raise ValueError(f'alpha {alpha} and power {power} must be in (0, 1)')
  low, high = math.log(1 - margin), math.log1p(margin)
  if difference <= -1 or not low < math.log1p(difference) < high:
    return None
  effect = math.log1p(difference)
  variance = ClusterMeanVariance(noise, repeats)
  if not variance:
    return 2

  def Enough(clusters):
    dof = _WelchDof(clusters)
    error = np.sqrt(2 * variance / clusters)
    quantile = stats.t.ppf(1 - alpha, dof)
    upper = stats.t.cdf((high - effect) / error - quantile, dof)
    lower = stats.t.cdf((low - effect) / error + quantile, dof)
    return upper - lower >= power

  # The power grows with n: find the first power of two that reaches it,
  # then the first n after the previous power of two.
  doublings = 2 ** np.arange(1, math.ceil(math.log2(_MAX_CLUSTERS)) + 1)
  reached = Enough(doublings)
  if not reached.any():
    return None
  first = int(doublings[np.argmax(reached)])
  candidates = np.arange(first // 2 + 1, first + 1)
  return int(candidates[np.argmax(Enough(candidates))])


def InterleavedOrder(
    runs_per_arm: int, arms: Sequence[str] = ('A', 'B')
) -> tuple[str, ...]:
  """A counterbalanced run order: A B B A A B B A ...

  Rounds alternate the arms' order, forward then reversed, so that in every
  pair of rounds each arm sits at positions summing to the same total: a
  drift that is linear in time (a warming cluster, a filling disk) adds
  the same to every arm's mean when runs_per_arm is even, and at most one
  round's worth when it is odd.

  Args:
    runs_per_arm: runs of each arm.
    arms: the arms' names, at least two.

  Returns:
    The arm of each run, in order.

  Raises:
    ValueError: fewer than 1 run per arm or fewer than 2 distinct arms.
  """
  if runs_per_arm < 1:
    raise ValueError(f'{runs_per_arm} runs per arm: at least 1 is needed')
  if len(set(arms)) < 2 or len(set(arms)) != len(arms):
    raise ValueError(f'arms {arms!r}: at least two distinct arms are needed')
  order = []
  for round_index in range(runs_per_arm):
    order.extend(arms if round_index % 2 == 0 else reversed(arms))
  return tuple(order)


def ExperimentCostUsd(
    clusters: int, hours_per_cluster: float, usd_per_cluster_hour: float
) -> float:
  """What an experiment costs: clusters x hours x price per cluster-hour.

  Args:
    clusters: clusters over all arms (e.g. 2 x clusters per arm).
    hours_per_cluster: how long each cluster runs, provisioning, loading and
      all repeats included.
    usd_per_cluster_hour: the hourly price of one cluster, servers and
      loaders (e.g. from core.cost).

  Returns:
    Dollars.

  Raises:
    ValueError: a negative argument.
  """
  if min(clusters, hours_per_cluster, usd_per_cluster_hour) < 0:
    raise ValueError('clusters, hours and price must not be negative')
  return clusters * hours_per_cluster * usd_per_cluster_hour
