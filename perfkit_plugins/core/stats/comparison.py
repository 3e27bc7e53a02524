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

Run order: every run says when it started. When the arms did not take turns
(the arm and the start time of the clusters correlate beyond
INTERLEAVED_CORRELATION), a drift in time looks like a difference; B/A is
then estimated with a linear trend in time common to both arms (least
squares on log cluster means: arm and start time), and a verdict rests on
that estimate only.

A report compares many figures at once. BETTER/WORSE claims are tested on
p-values of B/A = 1, EQUIVALENT claims on the two one-sided tests' p-values
of B/A outside [1 - margin, 1 + margin]; each family is adjusted across the
report's rows (Benjamini-Hochberg), so at most a share `fdr` of each kind of
claim is expected to be wrong. A row is EQUIVALENT when its equivalence
claim holds (whether or not a difference inside the margin is also
detectable), else BETTER or WORSE when its difference claim holds, else
INCONCLUSIVE. The intervals shown are at the levels these selections imply
(Benjamini and Yekutieli 2005): 1 - R fdr / m for B/A = 1, R of m rows
selected, and 1 - 2 R' fdr / m for equivalence, so that a verdict and its
interval never disagree.
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

INTERLEAVED_CORRELATION = 0.5
"""Largest |correlation| of arm and start time for arms that took turns.

The correlation of the arm (0 for A, 1 for B) with each cluster's start
time: A B B A gives 0, A B A B 0.45, A A B B 0.89, all A then all B near
0.87 or more. Beyond 0.5 a linear drift moves one arm's mean by more than
half of what it would if the arms ran one after the other, and the
comparison is adjusted for the trend.
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
    ci_low: lower bound of B/A at `level`.
    ci_high: upper bound of B/A at `level`.
    level: two-sided confidence level of ci_low and ci_high: the level the
      report's selection of BETTER/WORSE rows implies (module docstring).
    equivalence_low: lower bound of B/A at `equivalence_level`.
    equivalence_high: upper bound of B/A at `equivalence_level`.
    margin: equivalence margin, e.g. RATE_MARGIN.
    higher_is_better: True for rates, False for latencies.
    p: two-sided p-value of B/A = 1; nan when no test was possible.
    q: p adjusted across the rows with a verdict (Benjamini-Hochberg); nan
      for a row without one.
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
    equivalence_level: confidence level of equivalence_low and _high
      (1 - 2 alpha of the two one-sided tests).
    p_equivalence: p-value of the two one-sided tests (B/A outside the
      margin); nan when untested.
    q_equivalence: p_equivalence adjusted across the rows with a verdict.
    detectable: the difference claim holds (B/A = 1 rejected), whatever
      the verdict: an EQUIVALENT row may have a difference too small to
      matter yet large enough to see.
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
  equivalence_low: float
  equivalence_high: float
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
  equivalence_level: float = 0.9
  p_equivalence: float = math.nan
  q_equivalence: float = math.nan
  detectable: bool = False
  no_verdict: str = ''
  order: str = ''
  trend_per_hour: Optional[float] = None
  noise_profile: Optional[experiment.NoiseProfile] = None

  def VerdictInterval(self) -> tuple[float, float, float]:
    """(low, high, level) of the interval the verdict rests on.

    The equivalence interval for an EQUIVALENT row, else the interval of
    B/A = 1.
    """
    if self.verdict == EQUIVALENT:
      return self.equivalence_low, self.equivalence_high, self.equivalence_level
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
    logs = np.log([m.value for m in runs[cluster]])
    units.append(
        _Unit(
            math.log(value),
            None if None in starts else float(np.mean(starts)),
            len(logs),
            float(np.sum((logs - math.log(value)) ** 2)),
        )
    )
  return units


def _Spread(logs: Sequence[float]) -> float:
  return float(np.std(logs, ddof=1))


def _Order(a: Sequence[_Unit], b: Sequence[_Unit]) -> tuple[bool, str]:
  """Whether the arms took turns in time, and the order in words."""
  starts = [u.start for u in (*a, *b)]
  if None in starts:
    return True, (
        'run order unknown (a run without a start time): a drift in time'
        ' cannot be told from a difference'
    )
  starts_a, starts_b = starts[: len(a)], starts[len(a) :]
  if max(starts_a) < min(starts_b):
    before = 'every A cluster started before every B cluster'
  elif max(starts_b) < min(starts_a):
    before = 'every B cluster started before every A cluster'
  else:
    before = ''
  arm = [0.0] * len(a) + [1.0] * len(b)
  correlation = float(np.corrcoef(arm, starts)[0, 1]) if np.ptp(starts) else 0.0
  interleaved = abs(correlation) <= INTERLEAVED_CORRELATION
  text = (
      f'{"" if interleaved else "not "}interleaved: correlation of arm and'
      f' start time {correlation:+.2f}'
  )
  return interleaved, f'{text} ({before})' if before else text


def _TrendFit(a: Sequence[_Unit], b: Sequence[_Unit]) -> Optional[_Trend]:
  """log(B/A) with a linear trend in time common to both arms.

  Ordinary least squares of the log cluster means on an intercept, the arm
  (0 for A, 1 for B) and the start time: B/A is the arm's coefficient, its
  standard error from the residuals at n - 3 degrees of freedom. None when
  a start time is missing, too few clusters leave no degree of freedom, or
  time cannot be told from the arm (no arm spread its clusters in time).
  """
  units = (*a, *b)
  if any(u.start is None for u in units) or len(units) < 4:
    return None
  first = min(u.start for u in units)
  design = np.column_stack((
      np.ones(len(units)),
      [0.0] * len(a) + [1.0] * len(b),
      [(u.start - first) / _SECONDS_PER_HOUR for u in units],
  ))
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
  # The lone cluster's mean varies as the others' do, plus the run-to-run
  # noise its fewer repeats leave (pooled within clusters of both arms).
  fewer = 1 / (a if lone == 'A' else b)[0].runs - float(
      np.mean([1 / u.runs for u in others])
  )
  units = (*a, *b)
  within_dof = sum(u.runs for u in units) - len(units)
  within = sum(u.squares for u in units) / within_dof if within_dof else None
  no_verdict = ''
  if fewer > 0 and within is None:
    no_verdict = (
        f'arm {lone} ran fewer repeats on its cluster than arm {many} on'
        ' its clusters, and no cluster had repeats to tell how much noise'
        ' that leaves'
    )
  return _Estimate(
      difference,
      math.sqrt(
          spread**2 * (1 + 1 / len(others)) + max(fewer, 0) * (within or 0)
      ),
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
  interleaved, order = _Order(units_a, units_b)
  trend = _TrendFit(units_a, units_b)
  if len(units_a) == 1 and len(units_b) == 1:
    if noise is None or noise.between_cluster_cv is None:
      return _WithinWhatRan(a, b), order, trend
    given = _FromGivenNoise(a, b, noise)
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
        trend,
    )
  across = _AcrossClusters(units_a, units_b)
  if interleaved:
    return across, order, trend
  if trend is None:
    return (
        dataclasses.replace(
            across,
            no_verdict=(
                f'the arms were not interleaved ({order}) and too few'
                ' clusters spread in time tell a drift from a difference'
                ' (--plan_ab prints an interleaved order)'
            ),
        ),
        order,
        trend,
    )
  return (
      _Estimate(
          trend.difference,
          trend.standard_error,
          trend.dof,
          TREND_ADJUSTED,
          intervals.ACROSS_CLUSTERS,
          experiment.NoiseProfile(trend.residual_sd, None, None),
          f'SD of log cluster means around the trend {trend.residual_sd:.1%}',
          (
              *across.warnings,
              (
                  f'arms not interleaved ({order}): B/A adjusted for a linear'
                  f' trend common to both arms ({trend.per_hour:+.2%} per'
                  ' hour); a drift that is not linear is not removed'
              ),
          ),
      ),
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


def _PValues(
    difference: float, error: float, dof: float, margin: float
) -> tuple[float, float]:
  """p of B/A = 1 (two-sided) and of B/A outside the margin (TOST)."""
  low, high = math.log(1 - margin), math.log1p(margin)
  if not math.isfinite(error):
    return math.nan, math.nan
  if not error:
    return float(difference == 0), float(not low < difference < high)
  p = float(2 * stats.t.sf(abs(difference) / error, dof))
  p_equivalence = max(
      float(stats.t.sf((difference - low) / error, dof)),
      float(stats.t.cdf((difference - high) / error, dof)),
  )
  return p, p_equivalence


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
  equivalence = experiment.ClustersNeededForEquivalence(
      row.noise_profile, difference, row.margin, repeats, alpha, _POWER
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
  verdict is the row's own (as if it were the only row, at fdr = 1 -
  level); CompareRows sets the verdicts of a whole report.

  Args:
    a: the figure from each run of arm A.
    b: the figure from each run of arm B.
    higher_is_better: True for op rates, False for latencies.
    margin: equivalence margin, e.g. RATE_MARGIN or PERCENTILE_MARGIN.
    level: confidence level of the row alone (equivalence uses 2 level -
      1).
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
  p, p_equivalence = _PValues(
      estimate.difference, estimate.standard_error, estimate.dof, margin
  )
  row = ComparisonRow(
      step=step,
      metric=metric,
      ratio=math.exp(estimate.difference),
      ci_low=math.nan,
      ci_high=math.nan,
      level=level,
      equivalence_low=math.nan,
      equivalence_high=math.nan,
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
      p_equivalence=p_equivalence,
      no_verdict=estimate.no_verdict,
      order=order,
      trend_per_hour=None if trend is None else trend.per_hour,
      noise_profile=estimate.noise,
  )
  return CompareRows([row], 1 - level)[0]


def _Decided(
    row: ComparisonRow,
    q: float,
    q_equivalence: float,
    levels: tuple[float, float],
    fdr: float,
    alpha: float,
) -> ComparisonRow:
  """The row with its intervals at `levels`, adjusted p-values, verdict."""
  difference = math.log(row.ratio)
  level, equivalence_level = levels
  low, high = _Bounds(difference, row.standard_error, row.dof, level)
  equivalence = _Bounds(
      difference, row.standard_error, row.dof, equivalence_level
  )
  detectable = q <= fdr
  if q_equivalence <= fdr:
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
      equivalence_low=equivalence[0],
      equivalence_high=equivalence[1],
      equivalence_level=equivalence_level,
      q=q,
      q_equivalence=q_equivalence,
      detectable=detectable,
      verdict=verdict,
  )
  return dataclasses.replace(row, clusters_needed=_ClustersToSettle(row, alpha))


def _Adjusted(p: np.ndarray) -> np.ndarray:
  return stats.false_discovery_control(p, method='bh') if p.size else p


def CompareRows(
    rows: Sequence[ComparisonRow], fdr: float = 0.05
) -> list[ComparisonRow]:
  """Sets the verdicts of all rows of a report together.

  The rows that can have a verdict (a test at a level that measures the
  noise between clusters) form the family: the p-values of B/A = 1 and
  those of the equivalence tests are each adjusted across it by Benjamini
  and Hochberg (1995) (scipy.stats.false_discovery_control). Claiming a
  difference where q <= fdr, or equivalence where q_equivalence <= fdr,
  keeps the expected share of wrong claims of each kind at most `fdr`
  however many figures a report compares. With R of the m rows selected,
  the intervals are at 1 - max(R, 1) fdr / m (two-sided, B/A = 1) and 1 -
  2 max(R', 1) fdr / m (equivalence), the levels at which a selected row's
  interval excludes 1 or lies within the margin (Benjamini and Yekutieli
  2005). The other rows are INCONCLUSIVE with their unadjusted (1 - fdr)
  intervals.

  Args:
    rows: the rows from CompareArms.
    fdr: the false discovery rate, in (0, 0.5).

  Returns:
    The rows, in the same order, with intervals, q and verdict set.

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
  p_equivalence = np.array([rows[i].p_equivalence for i in family])
  q, q_equivalence = _Adjusted(p), _Adjusted(p_equivalence)
  size = max(len(family), 1)
  levels = (
      1 - max(int(np.sum(q <= fdr)), 1) * fdr / size,
      1 - 2 * max(int(np.sum(q_equivalence <= fdr)), 1) * fdr / size,
  )
  adjusted = dict(zip(family, zip(q.tolist(), q_equivalence.tolist())))
  # Clusters to settle a row: tested as every row of the report would be.
  alpha = fdr / max(len(rows), 1)
  decided = []
  for index, row in enumerate(rows):
    if index in adjusted:
      decided.append(_Decided(row, *adjusted[index], levels, fdr, alpha))
    else:
      decided.append(
          _Decided(row, math.nan, math.nan, (1 - fdr, 1 - 2 * fdr), fdr, alpha)
      )
  return decided


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
