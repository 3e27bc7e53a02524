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

"""A/B verdicts: B better than A, worse, equivalent, or not known yet.

Each compared figure (one step, one metric) is a ratio B/A of geometric
means, estimated on the log scale where noise is additive. A verdict speaks
for the configuration, so it needs the noise between clusters:

* both arms on two clusters or more: Welch's t test on log cluster means;
* one arm on one cluster, the other on two or more: the lone cluster's
  mean against the other arm's, its noise taken from the other arm's
  clusters (a prediction interval: s^2 (1 + 1/n), n - 1 degrees of
  freedom);
* one cluster per arm, with the noise of a cluster mean measured by an
  earlier A/A experiment (`noise`): the two cluster means, each with that
  variance, at the A/A experiment's degrees of freedom.

Without any of these (one cluster per arm and no A/A noise, or single
runs) there is no verdict: the row shows the difference within what was
measured (Welch on repeats on each arm's cluster, or each run's own
within-run interval) and how many clusters per arm would settle it.

Run order: every run says when it started. Clusters started within
SIMULTANEOUS_S of each other ran at the same time. Wherever the clusters
leave TREND_DOF degrees of freedom for it, B/A is estimated with a linear
trend in time common to both arms (least squares on log cluster means: arm
and start time), whatever the order: interleaved arms lose one degree of
freedom and shed the drift's spread, arms run one after the other are
adjusted. With fewer clusters B/A is compared without the trend, and the
row has no verdict when a drift of DRIFT_PER_HOUR could move it by more
than DRIFT_SHARE of its standard error.

A report compares many figures at once. Each row has one interval, at one
level for every row with a verdict: the p-values of B/A = 1 are adjusted
across the report's rows (Benjamini-Hochberg), and with R of the m rows
selected the interval is at 1 - R fdr / m (Benjamini and Yekutieli 2005),
at which a row's interval excludes 1 exactly when it is selected. Three
outcomes: the interval inside [1 - margin, 1 + margin] is EQUIVALENT; else
excluding 1 is BETTER or WORSE; else INCONCLUSIVE. A verdict and its
interval never disagree, and the expected share of verdicts whose interval
misses the truth is at most `fdr` (the false coverage rate). The level
depends on the other rows' differences only, never on their equivalence.
A gate (Regression) claims WORSE only at a family-wise error rate: Holm's
adjustment of the same p-values.
"""

import dataclasses
import math
from typing import Optional, Sequence

import numpy as np
from scipy import stats

from perfkit_plugins.core.stats import experiment
from perfkit_plugins.core.stats import intervals

BETTER = 'BETTER'
WORSE = 'WORSE'
EQUIVALENT = 'EQUIVALENT'
INCONCLUSIVE = 'INCONCLUSIVE'

RATE_MARGIN = 0.02
"""Equivalence margin of op rates: within 2% counts as the same.

Op rates of repeated runs on one cluster typically spread by 1-3%; a
margin below that could never be shown.
"""

PERCENTILE_MARGIN = 0.05
"""Equivalence margin of latency percentiles: within 5% counts as the same.

Percentiles, p99.9 above all, rest on few operations and spread more than
rates.
"""

SIMULTANEOUS_S = 900.0
"""Clusters started within 15 minutes of the first of a wave ran together.

Arms launched together start minutes apart, one cluster after another;
their measured windows (a step lasts many minutes, a run hours) overlap,
and no drift we know of acts in minutes. Clusters whose measured windows
all share an instant ran together too, however far apart they started. A
wave's clusters take its mean start, so the order inside a wave neither
adjusts B/A nor withholds a verdict.
"""

TREND_DOF = 2
"""Fewest degrees of freedom left for fitting B/A with a common trend.

The trend costs one degree of freedom; with one left (four clusters) the
95% t quantile is 12.7 and the fit would hide any difference. Below
TREND_DOF, B/A is compared without the trend, guarded by DRIFT_PER_HOUR.
"""

DRIFT_PER_HOUR = 0.02
"""The drift per hour a verdict without a fitted trend is guarded against.

Figures drift while the arms run (caches and disks fill, compactions run,
a cloud's neighbours come and go); repeated runs of one configuration
drift by up to about 2% an hour. When no trend can be fitted, arms whose
clusters' mean starts lie h hours apart can be moved by log(1.02) h by
such a drift.
"""

DRIFT_SHARE = 0.25
"""The largest drift bias, in standard errors of log(B/A), a verdict takes.

A bias of a quarter of a standard error raises a 5% two-sided test's
chance of a false difference to at most 5.7%, at the drift bound only.
"""

WELCH_CLUSTERS = 'welch_clusters'
AGAINST_ONE_CLUSTER = 'one_cluster_against_clusters'
GIVEN_NOISE = 'aa_noise'
TREND_ADJUSTED = 'trend_adjusted_clusters'
WELCH_REPEATS = 'welch_repeats'
DELTA_WITHIN_RUN = 'delta_within_run'
VERDICT_METHODS = (
    WELCH_CLUSTERS,
    AGAINST_ONE_CLUSTER,
    GIVEN_NOISE,
    TREND_ADJUSTED,
)
"""Methods whose rows get a verdict: they measure the noise between clusters."""

# The power clusters_needed plans for.
_POWER = 0.8
_SECONDS_PER_HOUR = 3600.0


@dataclasses.dataclass(frozen=True)
class ComparisonRow:
  """One compared figure: B/A, its intervals, tests and verdict.

  Attributes:
    step: the step, e.g. 'read_small'.
    metric: the figure, e.g. 'op rate' or 'p99'.
    ratio: B/A, of geometric means (trend-adjusted when so tested).
    ci_low: lower bound of B/A at `level`: the interval the verdict rests
      on.
    ci_high: upper bound of B/A at `level`.
    level: two-sided confidence level of ci_low and ci_high: the level the
      report's selection of rows where B/A = 1 is rejected implies (module
      docstring).
    margin: equivalence margin, e.g. RATE_MARGIN.
    higher_is_better: True for rates, False for latencies.
    p: two-sided p-value of B/A = 1; nan when no test was possible.
    q: p adjusted across the rows with a verdict (Benjamini-Hochberg); nan
      for a row without one.
    p_familywise: p adjusted across the rows with a verdict by Holm (1979),
      the family-wise error rate at which B/A = 1 is rejected; nan for a
      row without a verdict.
    verdict: BETTER, WORSE (B against A), EQUIVALENT or INCONCLUSIVE.
    runs_a: runs of arm A.
    runs_b: runs of arm B.
    clusters_a: clusters of arm A.
    clusters_b: clusters of arm B.
    method: how B/A was tested (WELCH_CLUSTERS, ..., DELTA_WITHIN_RUN).
    covers: what the interval covers (intervals.ACROSS_CLUSTERS, ...).
    warning: what the interval does not cover or why not to trust it.
    clusters_needed: clusters per arm (at the same repeats) that would
      settle the comparison with 80% power if the true ratio were the
      observed one (tested at fdr / rows, the Bonferroni bound of the
      report's adjustment): to show the difference, or equivalence when the
      ratio is inside the margin, whichever needs fewer; None when
      unknown. Planned from `noise`, a lower bound unless it includes the
      noise between clusters.
    noise: which noise clusters_needed was planned from.
    standard_error: standard error of log(ratio).
    dof: its degrees of freedom.
    detectable: the interval excludes 1 (B/A = 1 rejected), whatever the
      verdict: an EQUIVALENT row may have a difference too small to matter
      yet large enough to see.
    no_verdict: why the row can have no verdict ('' when it can).
    order: how the arms' clusters were ordered in time, in words.
    trend_per_hour: relative change per hour of a linear trend common to
      both arms, None when it could not be estimated.
    noise_profile: the noise clusters_needed is planned from, None when
      unknown.
  """

  step: str
  metric: str
  ratio: float
  ci_low: float
  ci_high: float
  level: float
  margin: float
  higher_is_better: bool
  p: float
  q: float
  verdict: str
  runs_a: int
  runs_b: int
  clusters_a: int
  clusters_b: int
  method: str
  covers: str
  warning: str
  clusters_needed: Optional[int]
  noise: str
  standard_error: float
  dof: float
  p_familywise: float = math.nan
  detectable: bool = False
  no_verdict: str = ''
  order: str = ''
  trend_per_hour: Optional[float] = None
  noise_profile: Optional[experiment.NoiseProfile] = None

  def VerdictInterval(self) -> tuple[float, float, float]:
    """(low, high, level) of the interval the verdict rests on: the row's."""
    return self.ci_low, self.ci_high, self.level


@dataclasses.dataclass(frozen=True)
class _Unit:
  """One cluster of an arm: its log mean, runs and when it ran."""

  log: float
  # Mean start of its runs (epoch seconds); None when a run has none.
  start: Optional[float]
  # Its runs, and the sum of squares of their logs around `log`.
  runs: int = 1
  squares: float = 0.0
  # From the first start to the last end of its runs' measured windows
  # (epoch seconds); None when a run has none.
  window: Optional[tuple[float, float]] = None


@dataclasses.dataclass(frozen=True)
class _Trend:
  """Least squares of log cluster means on arm and start time."""

  difference: float
  standard_error: float
  dof: float
  per_hour: float
  residual_sd: float


@dataclasses.dataclass(frozen=True)
class _Estimate:
  """log(B/A), its standard error and how it was reached."""

  difference: float
  standard_error: float
  dof: float
  method: str
  covers: str
  noise: Optional[experiment.NoiseProfile]
  noise_text: str
  warnings: tuple[str, ...] = ()
  no_verdict: str = ''


def _Units(arm: Sequence[intervals.Measurement]) -> list[_Unit]:
  """The arm's clusters, in first-seen order."""
  runs = {}
  for m in arm:
    runs.setdefault(m.cluster, []).append(m)
  units = []
  for cluster, value in intervals.ClusterValues(arm).items():
    starts = [m.start for m in runs[cluster]]
    windows = [m.window for m in runs[cluster]]
    logs = np.log([m.value for m in runs[cluster]])
    units.append(
        _Unit(
            math.log(value),
            None if None in starts else float(np.mean(starts)),
            len(logs),
            float(np.sum((logs - math.log(value)) ** 2)),
            None
            if None in windows
            else (min(w[0] for w in windows), max(w[1] for w in windows)),
        )
    )
  return units


def _Spread(logs: Sequence[float]) -> float:
  return float(np.std(logs, ddof=1))


def _RanTogether(wave: Sequence[_Unit], unit: _Unit) -> bool:
  """Whether `unit`, started after the wave's first, joins the wave.

  It does when it started within SIMULTANEOUS_S of the wave's first, or
  when its measured window and every window of the wave share an instant.
  """
  if unit.start - wave[0].start <= SIMULTANEOUS_S:
    return True
  windows = [u.window for u in (*wave, unit)]
  if None in windows:
    return False
  return max(w[0] for w in windows) < min(w[1] for w in windows)


def _Hours(units: Sequence[_Unit]) -> Optional[list[float]]:
  """Each cluster's start in hours after the first, simultaneous ones merged.

  Clusters are taken in order of start; one that ran together with the
  wave before it (_RanTogether) joins it, and a wave's clusters take its
  mean start. None when a start is unknown.
  """
  if any(u.start is None for u in units):
    return None
  order = sorted(range(len(units)), key=lambda i: units[i].start)
  waves = []
  for i in order:
    if waves and _RanTogether([units[j] for j in waves[-1]], units[i]):
      waves[-1].append(i)
    else:
      waves.append([i])
  first = units[order[0]].start
  hours = [0.0] * len(units)
  for wave in waves:
    start = float(np.mean([units[i].start for i in wave]))
    for i in wave:
      hours[i] = (start - first) / _SECONDS_PER_HOUR
  return hours


def _Shift(a: Sequence[_Unit], hours: Sequence[float]) -> float:
  """Hours from the mean start of A's clusters to that of B's."""
  return float(np.mean(hours[len(a) :]) - np.mean(hours[: len(a)]))


def _Order(
    a: Sequence[_Unit],
    units: Sequence[_Unit],
    hours: Optional[Sequence[float]],
) -> str:
  """How the arms' clusters (`units`, A's first) were ordered, in words."""
  if hours is None:
    return (
        'run order unknown (a run without a start time): a drift in time'
        ' cannot be told from a difference'
    )
  waves = len(set(hours))
  if waves == 1:
    starts = [u.start for u in units]
    if max(starts) - min(starts) > SIMULTANEOUS_S:
      return (
          'simultaneous: the measured windows of every cluster share an instant'
      )
    return (
        'simultaneous: every cluster started within'
        f' {SIMULTANEOUS_S / 60:.0f} minutes of the first'
    )
  hours_a, hours_b = hours[: len(a)], hours[len(a) :]
  text = (
      f'{waves} start times over {max(hours):.1f} h, mean start of B'
      f' {_Shift(a, hours):+.1f} h from A'
  )
  if max(hours_a) < min(hours_b):
    return f'{text} (every A cluster started before every B cluster)'
  if max(hours_b) < min(hours_a):
    return f'{text} (every B cluster started before every A cluster)'
  return text


def _TrendFit(
    a: Sequence[_Unit], b: Sequence[_Unit], hours: Optional[Sequence[float]]
) -> Optional[_Trend]:
  """log(B/A) with a linear trend in time common to both arms.

  Ordinary least squares of the log cluster means on an intercept, the arm
  (0 for A, 1 for B) and the start time in hours: B/A is the arm's
  coefficient, its standard error from the residuals at n - 3 degrees of
  freedom. None when a start time is missing, fewer than TREND_DOF degrees
  of freedom are left, or time cannot be told from the arm (the clusters
  started together, or each arm at one time).
  """
  units = (*a, *b)
  if hours is None or len(units) - 3 < TREND_DOF:
    return None
  design = np.column_stack(
      (np.ones(len(units)), [0.0] * len(a) + [1.0] * len(b), hours)
  )
  if np.linalg.matrix_rank(design) < 3:
    return None
  logs = np.array([u.log for u in units])
  coefficients, *_ = np.linalg.lstsq(design, logs, rcond=None)
  dof = len(units) - 3
  residual_variance = float(np.sum((logs - design @ coefficients) ** 2)) / dof
  covariance = residual_variance * np.linalg.inv(design.T @ design)
  return _Trend(
      difference=float(coefficients[1]),
      standard_error=math.sqrt(float(covariance[1, 1])),
      dof=dof,
      per_hour=math.expm1(float(coefficients[2])),
      residual_sd=math.sqrt(residual_variance),
  )


def _WelchDof(a_error: float, a_dof: float, b_error: float, b_dof: float):
  """Welch-Satterthwaite degrees of freedom of a difference of two means."""
  part_a, part_b = a_error**2, b_error**2
  if not part_a + part_b:
    return a_dof + b_dof
  terms = sum(
      part**2 / dof for part, dof in ((part_a, a_dof), (part_b, b_dof)) if part
  )
  return (part_a + part_b) ** 2 / terms


def _FewerRepeats(a: Sequence[_Unit], b: Sequence[_Unit]) -> tuple[float, str]:
  """A lone cluster's extra variance from its fewer repeats, and a no-verdict.

  The lone cluster's mean varies as the other arm's cluster means do, plus
  the run-to-run noise its fewer repeats leave beyond theirs (pooled within
  clusters of both arms). Without any cluster with repeats to measure that
  noise, and fewer repeats on the lone cluster, the row can have no
  verdict.
  """
  lone, others, many = ('A', b, 'B') if len(a) == 1 else ('B', a, 'A')
  fewer = 1 / (a if lone == 'A' else b)[0].runs - float(
      np.mean([1 / u.runs for u in others])
  )
  units = (*a, *b)
  within_dof = sum(u.runs for u in units) - len(units)
  within = sum(u.squares for u in units) / within_dof if within_dof else None
  if fewer > 0 and within is None:
    return 0.0, (
        f'arm {lone} ran fewer repeats on its cluster than arm {many} on'
        ' its clusters, and no cluster had repeats to tell how much noise'
        ' that leaves'
    )
  return max(fewer, 0) * (within or 0), ''


def _AcrossClusters(a: Sequence[_Unit], b: Sequence[_Unit]) -> _Estimate:
  """Both arms on two clusters or more, or one on one and the other more."""
  logs_a, logs_b = [u.log for u in a], [u.log for u in b]
  difference = float(np.mean(logs_b) - np.mean(logs_a))
  if len(a) >= 2 and len(b) >= 2:
    errors = [_Spread(x) / math.sqrt(len(x)) for x in (logs_a, logs_b)]
    squares = sum(
        (x - np.mean(logs)) ** 2 for logs in (logs_a, logs_b) for x in logs
    )
    spread = math.sqrt(squares / (len(a) + len(b) - 2))
    return _Estimate(
        difference,
        math.hypot(*errors),
        _WelchDof(errors[0], len(a) - 1, errors[1], len(b) - 1),
        WELCH_CLUSTERS,
        intervals.ACROSS_CLUSTERS,
        experiment.NoiseProfile(spread, None, None),
        f'SD of log cluster means {spread:.1%}, pooled over both arms',
    )
  lone, others, many = ('A', b, 'B') if len(a) == 1 else ('B', a, 'A')
  spread = _Spread([u.log for u in others])
  extra, no_verdict = _FewerRepeats(a, b)
  return _Estimate(
      difference,
      math.sqrt(spread**2 * (1 + 1 / len(others)) + extra),
      len(others) - 1,
      AGAINST_ONE_CLUSTER,
      intervals.ACROSS_CLUSTERS,
      experiment.NoiseProfile(spread, None, None),
      f'SD of log cluster means {spread:.1%}, from arm {many}',
      (
          f'arm {lone} ran on one cluster: the noise of its cluster is taken'
          f" from arm {many}'s {len(others)} clusters",
      ),
      no_verdict,
  )


def _Trended(
    across: _Estimate,
    trend: _Trend,
    a: Sequence[_Unit],
    b: Sequence[_Unit],
    shift: float,
) -> _Estimate:
  """The trend's B/A, with a lone cluster's extra noise (_FewerRepeats).

  Warns when the arms' mean starts differ (`shift` hours): the trend then
  corrects a bias, which a drift that is not linear would leave.
  """
  extra, no_verdict = (
      _FewerRepeats(a, b) if min(len(a), len(b)) == 1 else (0.0, '')
  )
  warnings = across.warnings
  if round(shift, 1):
    warnings += (
        (
            f"the arms' mean starts lie {abs(shift):.1f} h apart: B/A adjusted"
            ' for a linear trend common to both arms; a drift that is not'
            ' linear is not removed'
        ),
    )
  return _Estimate(
      trend.difference,
      math.sqrt(trend.standard_error**2 + extra),
      trend.dof,
      TREND_ADJUSTED,
      intervals.ACROSS_CLUSTERS,
      experiment.NoiseProfile(trend.residual_sd, None, None),
      f'SD of log cluster means around the trend {trend.residual_sd:.1%}',
      warnings,
      no_verdict,
  )


def _Unadjusted(
    across: _Estimate, a: Sequence[_Unit], hours: Optional[Sequence[float]]
) -> _Estimate:
  """B/A without a trend: no verdict when a drift could move it too far."""
  if hours is None or across.no_verdict:
    return across
  shift = _Shift(a, hours)
  bias = abs(shift) * math.log1p(DRIFT_PER_HOUR)
  if bias <= DRIFT_SHARE * across.standard_error:
    return across
  return dataclasses.replace(
      across,
      no_verdict=(
          f"the arms' mean starts lie {abs(shift):.1f} h apart: a drift of"
          f' {DRIFT_PER_HOUR:.0%} per hour would move B/A by {bias:.1%},'
          f' over {DRIFT_SHARE:.0%} of its standard error'
          f' ({across.standard_error:.1%}), and too few clusters spread in'
          ' time fit the trend (--plan_ab prints an order whose arms start'
          ' together on average)'
      ),
  )


def _FromGivenNoise(
    a: Sequence[intervals.Measurement],
    b: Sequence[intervals.Measurement],
    noise: experiment.NoiseProfile,
) -> _Estimate:
  """One cluster per arm, the noise of a cluster mean from an A/A study."""
  logs_a = np.log([m.value for m in a])
  logs_b = np.log([m.value for m in b])
  variance = experiment.ClusterMeanVariance(
      noise, len(a)
  ) + experiment.ClusterMeanVariance(noise, len(b))
  return _Estimate(
      float(logs_b.mean() - logs_a.mean()),
      math.sqrt(variance),
      noise.clusters - 1,
      GIVEN_NOISE,
      intervals.ACROSS_CLUSTERS,
      noise,
      (
          "the A/A experiment's noise: between clusters"
          f' {noise.between_cluster_cv:.1%}'
      ),
      (
          'one cluster per arm: the noise between clusters is the A/A'
          f" experiment's ({noise.clusters} clusters, {noise.runs} runs),"
          ' taken to hold for these clusters',
      ),
  )


def _WhatRan(
    arm: Sequence[intervals.Measurement],
) -> tuple[float, float, float, int]:
  """An arm's log mean, its standard error, degrees of freedom and runs."""
  logs = np.log([m.value for m in arm])
  within = arm[0].within
  if len(arm) >= 2:
    error = _Spread(logs) / math.sqrt(len(arm))
    return float(logs.mean()), error, len(arm) - 1, len(arm)
  if (
      within is None
      or not math.isfinite(within.standard_error)
      or within.dof <= 0
  ):
    return float(logs[0]), math.inf, 0.0, 1
  return float(logs[0]), within.standard_error, within.dof, 1


def _WithinWhatRan(
    a: Sequence[intervals.Measurement], b: Sequence[intervals.Measurement]
) -> _Estimate:
  """One cluster per arm and no A/A noise: no verdict, only what ran.

  Welch on the log values of repeats when both arms have two runs or more;
  else the runs' own within-run standard errors, combined by the delta
  method (an arm with several runs gives the SD of its runs instead).
  """
  mean_a, error_a, dof_a, n_a = _WhatRan(a)
  mean_b, error_b, dof_b, n_b = _WhatRan(b)
  error = math.hypot(error_a, error_b)
  repeats = len(a) >= 2 and len(b) >= 2
  if not math.isfinite(error):
    noise, noise_text = None, 'unknown: a run has no within-run interval'
  else:
    # The noise of one run: a run's own standard error, or the SD of an
    # arm's runs.
    per_run = math.sqrt((error_a**2 * n_a + error_b**2 * n_b) / 2)
    noise = (
        experiment.NoiseProfile(None, per_run, None)
        if repeats
        else experiment.NoiseProfile(None, None, per_run)
    )
    noise_text = (
        f'{"run-to-run" if repeats else "per-run"} noise {per_run:.1%}'
        ' (the noise between clusters is unknown, so clusters_needed is a'
        ' lower bound)'
    )
  if repeats:
    warning = 'one cluster per arm: the interval covers only these two clusters'
  else:
    warning = (
        'single runs: the interval covers only the noise within each run,'
        ' not between runs or clusters'
    )
  warnings = [warning]
  warnings += [
      m.within.warning for m in (*a, *b) if m.within and m.within.warning
  ]
  if not math.isfinite(error):
    warnings.append('a run has no within-run interval: no test possible')
  return _Estimate(
      mean_b - mean_a,
      error,
      _WelchDof(error_a, dof_a, error_b, dof_b) if math.isfinite(error) else 0,
      WELCH_REPEATS if repeats else DELTA_WITHIN_RUN,
      intervals.WITHIN_CLUSTER if repeats else intervals.WITHIN_RUN,
      noise,
      noise_text,
      tuple(warnings),
      (
          'one cluster per arm: the noise between clusters is unknown (run'
          ' each arm on two clusters or more, or give an A/A experiment of'
          ' the same machines with --noise_from)'
      ),
  )


def _Estimated(
    a: Sequence[intervals.Measurement],
    b: Sequence[intervals.Measurement],
    noise: Optional[experiment.NoiseProfile],
) -> tuple[_Estimate, str, Optional[_Trend]]:
  """The comparison's estimate, the run order in words and the trend."""
  units_a, units_b = _Units(a), _Units(b)
  units = (*units_a, *units_b)
  hours = _Hours(units)
  order = _Order(units_a, units, hours)
  if len(units_a) == 1 and len(units_b) == 1:
    if noise is None or noise.between_cluster_cv is None:
      return _WithinWhatRan(a, b), order, None
    given = _FromGivenNoise(a, b, noise)
    if hours is not None and not _Shift(units_a, hours):
      return given, order, None
    return (
        dataclasses.replace(
            given,
            warnings=given.warnings
            + (
                (
                    'the run order of one cluster per arm cannot be checked: a'
                    ' drift between the two runs counts as noise only as far as'
                    " the A/A experiment's clusters spanned such a time"
                ),
            ),
        ),
        order,
        None,
    )
  across = _AcrossClusters(units_a, units_b)
  trend = _TrendFit(units_a, units_b, hours)
  if trend is None:
    return _Unadjusted(across, units_a, hours), order, None
  return (
      _Trended(across, trend, units_a, units_b, _Shift(units_a, hours)),
      order,
      trend,
  )


def _Bounds(
    difference: float, error: float, dof: float, level: float
) -> tuple[float, float]:
  """Two-sided t interval of exp(difference) at `level`."""
  if not math.isfinite(error):
    return 0.0, math.inf
  if not error:
    return math.exp(difference), math.exp(difference)
  half = float(stats.t.ppf((1 + level) / 2, dof)) * error
  return math.exp(difference - half), math.exp(difference + half)


def _PValue(difference: float, error: float, dof: float) -> float:
  """Two-sided p of B/A = 1; nan when untestable."""
  if not math.isfinite(error):
    return math.nan
  if not error:
    return float(difference == 0)
  return float(2 * stats.t.sf(abs(difference) / error, dof))


def _Repeats(row: ComparisonRow) -> int:
  return max(
      1, round((row.runs_a + row.runs_b) / (row.clusters_a + row.clusters_b))
  )


def _ClustersToSettle(row: ComparisonRow, alpha: float) -> Optional[int]:
  """Fewest clusters per arm to show the difference or the equivalence."""
  if row.noise_profile is None:
    return None
  difference = row.ratio - 1
  repeats = _Repeats(row)
  candidates = []
  if difference:
    try:
      candidates.append(
          experiment.ClustersNeeded(
              row.noise_profile, difference, repeats, alpha, _POWER
          )
      )
    except ValueError:
      pass  # Out of reach: equivalence may still be shown.
  # Equivalence: the row's two-sided interval inside the margin, each side
  # at half of alpha.
  equivalence = experiment.ClustersNeededForEquivalence(
      row.noise_profile, difference, row.margin, repeats, alpha / 2, _POWER
  )
  if equivalence is not None:
    candidates.append(equivalence)
  return min(candidates) if candidates else None


def CompareArms(
    a: Sequence[intervals.Measurement],
    b: Sequence[intervals.Measurement],
    higher_is_better: bool,
    margin: float,
    level: float = 0.95,
    step: str = '',
    metric: str = '',
    noise: Optional[experiment.NoiseProfile] = None,
) -> ComparisonRow:
  """Compares one figure (one step and metric) between arms A and B.

  B/A is estimated as the module docstring says; its interval and p-values
  come from t distributions at the estimate's degrees of freedom. The
  verdict is the row's own (as if it were the only row, its interval at
  `level`); CompareRows sets the verdicts of a whole report.

  Args:
    a: the figure from each run of arm A.
    b: the figure from each run of arm B.
    higher_is_better: True for op rates, False for latencies.
    margin: equivalence margin, e.g. RATE_MARGIN or PERCENTILE_MARGIN.
    level: confidence level of the row alone.
    step: the step's name, for the row and its sentence.
    metric: the figure's name, e.g. 'op rate' or 'p99'.
    noise: the figure's noise from an A/A experiment on the same machines,
      used only when each arm ran on one cluster; None when there is none.

  Returns:
    The ComparisonRow.

  Raises:
    ValueError: an empty arm, a value that is not positive (a ratio of
      geometric means needs logs), a margin not in (0, 1) or a level not in
      (0.5, 1).
  """
  if not a or not b:
    raise ValueError(f'{step} {metric}: each arm needs a measurement')
  if any(not m.value > 0 for m in (*a, *b)):
    raise ValueError(f'{step} {metric}: ratios need positive values')
  if not 0 < margin < 1 or not 0.5 < level < 1:
    raise ValueError(
        f'margin {margin} must be in (0, 1) and level {level} in (0.5, 1)'
    )
  estimate, order, trend = _Estimated(a, b, noise)
  if (
      estimate.method in VERDICT_METHODS
      and not estimate.standard_error
      and not estimate.no_verdict
  ):
    estimate = dataclasses.replace(
        estimate,
        no_verdict=(
            'no spread measured (identical values): the noise is unknown,'
            ' not zero'
        ),
    )
  p = _PValue(estimate.difference, estimate.standard_error, estimate.dof)
  row = ComparisonRow(
      step=step,
      metric=metric,
      ratio=math.exp(estimate.difference),
      ci_low=math.nan,
      ci_high=math.nan,
      level=level,
      margin=margin,
      higher_is_better=higher_is_better,
      p=p,
      q=math.nan,
      verdict=INCONCLUSIVE,
      runs_a=len(a),
      runs_b=len(b),
      clusters_a=len({m.cluster for m in a}),
      clusters_b=len({m.cluster for m in b}),
      method=estimate.method,
      covers=estimate.covers,
      warning='; '.join(dict.fromkeys(estimate.warnings)),
      clusters_needed=None,
      noise=estimate.noise_text,
      standard_error=estimate.standard_error,
      dof=estimate.dof,
      no_verdict=estimate.no_verdict,
      order=order,
      trend_per_hour=None if trend is None else trend.per_hour,
      noise_profile=estimate.noise,
  )
  return CompareRows([row], 1 - level)[0]


def _Decided(
    row: ComparisonRow,
    q: float,
    p_familywise: float,
    level: float,
    alpha: float,
) -> ComparisonRow:
  """The row with its interval at `level`, adjusted p-values and verdict.

  One interval, three outcomes: inside [1 - margin, 1 + margin]
  EQUIVALENT; else excluding 1 BETTER or WORSE; else INCONCLUSIVE. A row
  without a verdict (q nan) is INCONCLUSIVE whatever its interval.
  """
  low, high = _Bounds(math.log(row.ratio), row.standard_error, row.dof, level)
  decidable = not math.isnan(q)
  detectable = decidable and (high < 1 or low > 1)
  if decidable and 1 - row.margin <= low and high <= 1 + row.margin:
    verdict = EQUIVALENT
  elif detectable:
    verdict = BETTER if (row.ratio > 1) == row.higher_is_better else WORSE
  else:
    verdict = INCONCLUSIVE
  row = dataclasses.replace(
      row,
      ci_low=low,
      ci_high=high,
      level=level,
      q=q,
      p_familywise=p_familywise,
      detectable=detectable,
      verdict=verdict,
  )
  return dataclasses.replace(row, clusters_needed=_ClustersToSettle(row, alpha))


def _Holm(p: np.ndarray) -> np.ndarray:
  """Holm's (1979) step-down adjusted p-values: family-wise error rates."""
  order = np.argsort(p)
  steps = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
  adjusted = np.empty_like(p)
  adjusted[order] = np.maximum.accumulate(steps)
  return adjusted


def CompareRows(
    rows: Sequence[ComparisonRow], fdr: float = 0.05
) -> list[ComparisonRow]:
  """Sets the verdicts of all rows of a report together.

  The rows that can have a verdict (a test at a level that measures the
  noise between clusters) form the family: their p-values of B/A = 1 are
  adjusted across it by Benjamini and Hochberg (1995)
  (scipy.stats.false_discovery_control) into q, and by Holm (1979) into
  p_familywise. With R of the m rows at q <= fdr, every row of the family
  has its interval at 1 - max(R, 1) fdr / m (two-sided), the level at
  which exactly those R intervals exclude 1 (Benjamini and Yekutieli
  2005: the expected share of verdicts whose interval misses the truth is
  at most fdr); each row's verdict is read from its interval (_Decided).
  The level depends on the other rows' p-values of B/A = 1 only. The
  other rows are INCONCLUSIVE with their (1 - fdr) intervals.

  Args:
    rows: the rows from CompareArms.
    fdr: the false discovery rate, in (0, 0.5).

  Returns:
    The rows, in the same order, with intervals, q, p_familywise and
    verdict set.

  Raises:
    ValueError: fdr not in (0, 0.5).
  """
  if not 0 < fdr < 0.5:
    raise ValueError(f'false discovery rate {fdr} is not in (0, 0.5)')
  family = [
      index
      for index, row in enumerate(rows)
      if not row.no_verdict and math.isfinite(row.p)
  ]
  p = np.array([rows[i].p for i in family], dtype=float)
  q = stats.false_discovery_control(p, method='bh') if p.size else p
  size = max(len(family), 1)
  level = 1 - max(int(np.sum(q <= fdr)), 1) * fdr / size
  adjusted = dict(zip(family, zip(q.tolist(), _Holm(p).tolist())))
  # Clusters to settle a row: tested as every row of the report would be.
  alpha = fdr / max(len(rows), 1)
  return [
      _Decided(row, *adjusted[index], level, alpha)
      if index in adjusted
      else _Decided(row, math.nan, math.nan, 1 - fdr, alpha)
      for index, row in enumerate(rows)
  ]


def Regression(row: ComparisonRow, fwer: float) -> bool:
  """Whether the row is a regression at a family-wise error rate `fwer`.

  WORSE, and B/A = 1 rejected by Holm's adjustment across the report's
  rows with a verdict (p_familywise <= fwer): the chance that a report
  where nothing is worse has any such row is at most `fwer`, however many
  rows it has and however many of them are truly better. A gate (a
  pipeline's --fail_on=WORSE) stops on these; the table's WORSE rows bound
  only the share of wrong claims among the report's verdicts.
  """
  return row.verdict == WORSE and row.p_familywise <= fwer


def _Percent(ratio: float) -> str:
  """B/A as a signed percentage change, one decimal, never '-0.0'."""
  if not math.isfinite(ratio):
    return '+inf'
  return f'{round((ratio - 1) * 100, 1) + 0.0:+.1f}'


def LevelText(level: float) -> str:
  """A confidence level as a percentage: '95%', '99.17%', '99.995%'.

  Enough decimals to show two significant digits of what it leaves out
  (1 - level), so that no level reads as 100%.
  """
  left_out = (1 - level) * 100
  decimals = max(2, 2 - math.floor(math.log10(left_out))) if left_out else 2
  return f'{level * 100:.{decimals}f}'.rstrip('0').rstrip('.') + '%'


def _ArmDesign(runs: int, clusters: int) -> str:
  if runs == 1:
    return '1 run'
  if runs % clusters:
    return f'{runs} runs on {clusters} clusters'
  repeats = runs // clusters
  return (
      f'{clusters} cluster{"s" if clusters > 1 else ""} x {repeats}'
      f' repeat{"s" if repeats > 1 else ""}'
  )


def _Design(row: ComparisonRow) -> str:
  design_a = _ArmDesign(row.runs_a, row.clusters_a)
  design_b = _ArmDesign(row.runs_b, row.clusters_b)
  if design_a == design_b:
    return f'{design_a} per arm'
  return f'A: {design_a}, B: {design_b}'


def _Outcome(row: ComparisonRow) -> str:
  """The verdict in words, with what would settle an open row."""
  if row.verdict == BETTER:
    return 'B is better'
  if row.verdict == WORSE:
    return 'B is worse'
  if row.verdict == EQUIVALENT:
    outcome = f'equivalent within {row.margin:.0%}'
    if row.detectable:
      outcome += ' (a difference is detectable, inside the margin)'
    return outcome
  outcome = (
      f'no verdict: {row.no_verdict}' if row.no_verdict else 'inconclusive'
  )
  if row.clusters_needed is not None:
    # Planned without the noise between clusters, it is a lower bound.
    about = 'at least' if row.no_verdict else 'about'
    outcome += (
        f'; {about} {row.clusters_needed} clusters per arm would settle it'
    )
  return outcome


def ClaimSentence(row: ComparisonRow) -> str:
  """The row as a sentence a report can print.

  E.g. 'write op rate: B/A = +23.0% [+18.9, +27.2] (95% CI; 3 clusters x 3
  repeats per arm): B is better'. The interval is the one the verdict
  rests on (ComparisonRow.VerdictInterval); a row without a verdict says
  why, and how many clusters per arm would settle it; the row's warning
  follows.

  Args:
    row: a row, best after CompareRows.

  Returns:
    The sentence.
  """
  label = ' '.join(part for part in (row.step, row.metric) if part)
  design = _Design(row)
  low, high, level = row.VerdictInterval()
  if math.isfinite(high):
    change = (
        f'B/A = {_Percent(row.ratio)}% [{_Percent(low)}, {_Percent(high)}]'
        f' ({LevelText(level)} CI; {design})'
    )
  else:
    change = f'B/A = {_Percent(row.ratio)}% (no interval; {design})'
  outcome = _Outcome(row)
  sentence = (
      f'{label}: {change}: {outcome}' if label else f'{change}: {outcome}'
  )
  return f'{sentence}; {row.warning}' if row.warning else sentence
