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
means, estimated on the log scale where noise is additive. The test uses
the highest replicated level both arms have:

* both arms on two clusters or more: Welch's t test on log cluster means
  (covers ACROSS_CLUSTERS, the claim a reader wants);
* an arm on one cluster but with repeats: Welch's t test on the log values
  of the runs (covers WITHIN_CLUSTER: it says nothing about other
  clusters, and the warning says so);
* a single run in an arm: the runs' own within-run standard errors,
  combined by the delta method on logs (covers WITHIN_RUN only).

A report compares many figures at once, so the p-values of all its rows are
adjusted together (Benjamini-Hochberg): at most a share `fdr` of the
BETTER/WORSE verdicts are expected to be wrong. EQUIVALENT is the two
one-sided tests procedure: the (2 level - 1) interval, 90% for 95%, lies
within [1 - margin, 1 + margin].
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

# The power clusters_needed plans for.
_POWER = 0.8
# The levels a comparison can rest on, highest first.
_CLUSTERS = 2
_REPEATS = 1
_SINGLE = 0
_METHODS = {
    _CLUSTERS: 'welch_clusters',
    _REPEATS: 'welch_repeats',
    _SINGLE: 'delta_within_run',
}
_COVERS = {
    _CLUSTERS: intervals.ACROSS_CLUSTERS,
    _REPEATS: intervals.WITHIN_CLUSTER,
    _SINGLE: intervals.WITHIN_RUN,
}


@dataclasses.dataclass(frozen=True)
class ComparisonRow:
  """One compared figure: B/A, its interval, test and verdict.

  Attributes:
    step: the step, e.g. 'read_small'.
    metric: the figure, e.g. 'op rate' or 'p99'.
    ratio: B/A, of geometric means.
    ci_low: lower bound of B/A at `level`.
    ci_high: upper bound of B/A at `level`.
    level: confidence level, e.g. 0.95.
    equivalence_low: lower bound of B/A at 2 level - 1 (90% for 95%).
    equivalence_high: upper bound of B/A at 2 level - 1.
    margin: equivalence margin, e.g. RATE_MARGIN.
    higher_is_better: True for rates, False for latencies.
    p: two-sided p-value of B/A = 1; nan when no test was possible.
    q: p adjusted across rows (Benjamini-Hochberg); p for a row alone.
    verdict: BETTER, WORSE (B against A), EQUIVALENT or INCONCLUSIVE.
    runs_a: runs of arm A.
    runs_b: runs of arm B.
    clusters_a: clusters of arm A.
    clusters_b: clusters of arm B.
    method: 'welch_clusters', 'welch_repeats' or 'delta_within_run'.
    covers: what the interval covers (intervals.ACROSS_CLUSTERS, ...).
    warning: what the interval does not cover or why not to trust it.
    clusters_needed: clusters per arm (at the same repeats) that would
      settle the comparison with 80% power if the true ratio were the
      observed one: to show the difference, or equivalence when the ratio
      is inside the margin, whichever needs fewer; None when unknown.
      Planned from `noise`, a lower bound unless the arms had two clusters
      or more.
    noise: which noise clusters_needed was planned from.
    standard_error: standard error of log(ratio).
    dof: its (Welch-Satterthwaite) degrees of freedom.
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


@dataclasses.dataclass(frozen=True)
class _Arm:
  """One arm's log mean at the comparison's level."""

  centre: float
  standard_error: float
  dof: float
  # Log values of the units behind standard_error; empty for a single run.
  units: tuple[float, ...]


def _Level(arm: Sequence[intervals.Measurement]) -> int:
  if len({m.cluster for m in arm}) >= 2:
    return _CLUSTERS
  return _REPEATS if len(arm) >= 2 else _SINGLE


def _ArmAt(arm: Sequence[intervals.Measurement], level: int) -> _Arm:
  """The arm's log mean and its standard error at a comparison level.

  At _SINGLE an arm with several runs still uses them (a better noise
  estimate than any run's own); a single run uses its within-run interval.
  """
  if level == _CLUSTERS:
    values = list(intervals.ClusterValues(arm).values())
  elif len(arm) >= 2:
    values = [m.value for m in arm]
  else:
    single = arm[0]
    within = single.within
    if (
        within is None
        or not math.isfinite(within.standard_error)
        or within.dof <= 0
    ):
      return _Arm(math.log(single.value), math.inf, 0.0, ())
    return _Arm(math.log(single.value), within.standard_error, within.dof, ())
  logs = np.log(values)
  return _Arm(
      centre=float(logs.mean()),
      standard_error=float(logs.std(ddof=1)) / math.sqrt(len(logs)),
      dof=len(logs) - 1,
      units=tuple(logs.tolist()),
  )


def _WelchDof(a: _Arm, b: _Arm) -> float:
  """Welch-Satterthwaite degrees of freedom of the difference of means."""
  part_a, part_b = a.standard_error**2, b.standard_error**2
  if not part_a + part_b:
    return a.dof + b.dof
  terms = sum(
      part**2 / dof for part, dof in ((part_a, a.dof), (part_b, b.dof)) if part
  )
  return (part_a + part_b) ** 2 / terms


def _Noise(
    a: _Arm, b: _Arm, level: int, repeats: int
) -> tuple[Optional[experiment.NoiseProfile], str]:
  """The noise to plan from, and a sentence saying which noise it is."""
  if level == _SINGLE:
    if not all(math.isfinite(x.standard_error) for x in (a, b)):
      return None, 'unknown: a run has no within-run interval'
    # A run's own standard error, or the SD of an arm's several runs.
    per_run = math.sqrt(
        sum(x.standard_error**2 * max(len(x.units), 1) for x in (a, b)) / 2
    )
    return (
        experiment.NoiseProfile(None, None, per_run),
        (
            f'per-run noise {per_run:.1%} (single runs: run-to-run and'
            ' between-cluster noise unknown, so clusters_needed is a lower'
            ' bound)'
        ),
    )
  squares = sum((x - arm.centre) ** 2 for arm in (a, b) for x in arm.units)
  spread = math.sqrt(squares / (len(a.units) + len(b.units) - 2))
  if level == _CLUSTERS:
    # The whole noise of a cluster mean at these repeats, split or not:
    # placed where ClusterMeanVariance takes it as it is.
    return (
        experiment.NoiseProfile(spread, None, None),
        (
            f'SD of log cluster means {spread:.1%} at {repeats} repeat(s) per'
            ' cluster, pooled over both arms'
        ),
    )
  return (
      experiment.NoiseProfile(None, spread, None),
      (
          f'run-to-run noise {spread:.1%} (one cluster per arm: the'
          ' between-cluster noise is unknown, so clusters_needed is a lower'
          ' bound)'
      ),
  )


def _ClustersToSettle(
    noise: Optional[experiment.NoiseProfile],
    difference: float,
    margin: float,
    repeats: int,
    alpha: float,
) -> Optional[int]:
  """Fewest clusters per arm to show the difference or the equivalence."""
  if noise is None:
    return None
  candidates = []
  if difference:
    candidates.append(
        experiment.ClustersNeeded(noise, difference, repeats, alpha, _POWER)
    )
  equivalence = experiment.ClustersNeededForEquivalence(
      noise, difference, margin, repeats, alpha, _POWER
  )
  if equivalence is not None:
    candidates.append(equivalence)
  return min(candidates) if candidates else None


def _Warning(
    a: Sequence[intervals.Measurement],
    b: Sequence[intervals.Measurement],
    level: int,
    tested: bool,
) -> str:
  """What the comparison's interval leaves out."""
  warnings = []
  if level == _REPEATS:
    single = [
        name
        for name, arm in (('A', a), ('B', b))
        if len({m.cluster for m in arm}) == 1
    ]
    if len(single) == 2:
      warnings.append(
          'one cluster per arm: the interval covers only these two clusters'
      )
    else:
      warnings.append(
          f'arm {single[0]} ran on one cluster: the interval covers only'
          ' the clusters measured'
      )
  elif level == _SINGLE:
    warnings.append(
        'single runs: the interval covers only the noise within each run,'
        ' not between runs or clusters'
    )
    for m in (*a, *b):
      if m.within is not None and m.within.warning:
        warnings.append(m.within.warning)
    if not tested:
      warnings.append('a run has no within-run interval: no test possible')
  return '; '.join(dict.fromkeys(warnings))


def _Decide(row: ComparisonRow, q: float, fdr: float) -> ComparisonRow:
  """The row with its adjusted p-value and the verdict it leads to."""
  if q <= fdr and (row.ci_low > 1 or row.ci_high < 1):
    verdict = BETTER if (row.ratio > 1) == row.higher_is_better else WORSE
  elif (
      1 - row.margin <= row.equivalence_low
      and row.equivalence_high <= 1 + row.margin
  ):
    verdict = EQUIVALENT
  else:
    verdict = INCONCLUSIVE
  return dataclasses.replace(row, q=q, verdict=verdict)


def CompareArms(
    a: Sequence[intervals.Measurement],
    b: Sequence[intervals.Measurement],
    higher_is_better: bool,
    margin: float,
    level: float = 0.95,
    step: str = '',
    metric: str = '',
) -> ComparisonRow:
  """Compares one figure (one step and metric) between arms A and B.

  The ratio B/A is exp(mean log B - mean log A) at the highest level both
  arms replicate (see the module docstring); its interval and two-sided
  p-value come from Welch's t with Welch-Satterthwaite degrees of freedom.
  The verdict is the row's own (as if it were the only row, at
  fdr = 1 - level); CompareRows sets the verdicts of a whole report.

  Args:
    a: the figure from each run of arm A.
    b: the figure from each run of arm B.
    higher_is_better: True for op rates, False for latencies.
    margin: equivalence margin, e.g. RATE_MARGIN or PERCENTILE_MARGIN.
    level: confidence level of the interval (equivalence uses 2 level - 1).
    step: the step's name, for the row and its sentence.
    metric: the figure's name, e.g. 'op rate' or 'p99'.

  Returns:
    The ComparisonRow.

  Raises:
    ValueError: an empty arm, a value that is not positive (a ratio of
      geometric means needs logs), a margin or level not in (0, 1).
  """
  if not a or not b:
    raise ValueError(f'{step} {metric}: each arm needs a measurement')
  if any(not m.value > 0 for m in (*a, *b)):
    raise ValueError(f'{step} {metric}: ratios need positive values')
  if not 0 < margin < 1 or not 0 < level < 1:
    raise ValueError(f'margin {margin} and level {level} must be in (0, 1)')
  level_of_test = min(_Level(a), _Level(b))
  arm_a, arm_b = _ArmAt(a, level_of_test), _ArmAt(b, level_of_test)
  difference = arm_b.centre - arm_a.centre
  error = math.hypot(arm_a.standard_error, arm_b.standard_error)
  dof = _WelchDof(arm_a, arm_b) if math.isfinite(error) else 0.0
  ratio = math.exp(difference)
  tested = math.isfinite(error)
  if not tested:
    p, bounds, equivalence = math.nan, (0.0, math.inf), (0.0, math.inf)
  elif not error:
    p = 0.0 if difference else 1.0
    bounds = equivalence = (ratio, ratio)
  else:
    p = float(2 * stats.t.sf(abs(difference) / error, dof))
    half = float(stats.t.ppf((1 + level) / 2, dof)) * error
    equivalence_half = float(stats.t.ppf(level, dof)) * error
    bounds = (math.exp(difference - half), math.exp(difference + half))
    equivalence = (
        math.exp(difference - equivalence_half),
        math.exp(difference + equivalence_half),
    )
  clusters_a = len({m.cluster for m in a})
  clusters_b = len({m.cluster for m in b})
  repeats = max(1, round((len(a) + len(b)) / (clusters_a + clusters_b)))
  noise, noise_text = _Noise(arm_a, arm_b, level_of_test, repeats)
  row = ComparisonRow(
      step=step,
      metric=metric,
      ratio=ratio,
      ci_low=bounds[0],
      ci_high=bounds[1],
      level=level,
      equivalence_low=equivalence[0],
      equivalence_high=equivalence[1],
      margin=margin,
      higher_is_better=higher_is_better,
      p=p,
      q=p,
      verdict=INCONCLUSIVE,
      runs_a=len(a),
      runs_b=len(b),
      clusters_a=clusters_a,
      clusters_b=clusters_b,
      method=_METHODS[level_of_test],
      covers=_COVERS[level_of_test],
      warning=_Warning(a, b, level_of_test, tested),
      clusters_needed=_ClustersToSettle(
          noise, ratio - 1, margin, repeats, 1 - level
      ),
      noise=noise_text,
      standard_error=error,
      dof=dof,
  )
  return _Decide(row, p, 1 - level)


def CompareRows(
    rows: Sequence[ComparisonRow], fdr: float = 0.05
) -> list[ComparisonRow]:
  """Sets the verdicts of all rows of a report together.

  The p-values of all rows are adjusted by Benjamini and Hochberg (1995)
  (scipy.stats.false_discovery_control): declaring BETTER or WORSE where
  the adjusted p is at most `fdr` keeps the expected share of wrong
  declarations at most `fdr`, however many figures a report compares.
  Rows without a test (p nan) are left out of the adjustment. A row is
  then BETTER or WORSE when q <= fdr and its interval excludes 1,
  EQUIVALENT when its 2 level - 1 interval lies within [1 - margin,
  1 + margin] (not adjusted: each such claim is a test of its own at 1 -
  level), and INCONCLUSIVE otherwise.

  Args:
    rows: the rows from CompareArms.
    fdr: the false discovery rate.

  Returns:
    The rows, in the same order, with q and verdict set.

  Raises:
    ValueError: fdr not in (0, 1).
  """
  if not 0 < fdr < 1:
    raise ValueError(f'false discovery rate {fdr} is not in (0, 1)')
  p = np.array([row.p for row in rows], dtype=float)
  q = np.full(len(rows), math.nan)
  tested = np.isfinite(p)
  if tested.any():
    q[tested] = stats.false_discovery_control(p[tested], method='bh')
  return [_Decide(row, float(value), fdr) for row, value in zip(rows, q)]


def _Percent(ratio: float) -> str:
  """B/A as a signed percentage change, one decimal, never '-0.0'."""
  if not math.isfinite(ratio):
    return '+inf'
  return f'{round((ratio - 1) * 100, 1) + 0.0:+.1f}'


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


def ClaimSentence(row: ComparisonRow) -> str:
  """The row as a sentence a report can print.

  E.g. 'write op rate: B/A = +23.0% [+18.9, +27.2] (95% CI; 3 clusters x 3
  repeats per arm): B is better'. An EQUIVALENT row shows its 2 level - 1
  interval and the margin; an INCONCLUSIVE row says so and how many
  clusters per arm would settle it; the row's warning follows.

  Args:
    row: a row, best after CompareRows.

  Returns:
    The sentence.
  """
  label = ' '.join(part for part in (row.step, row.metric) if part)
  design = _Design(row)
  if row.verdict == EQUIVALENT:
    low, high, level = (
        row.equivalence_low,
        row.equivalence_high,
        2 * row.level - 1,
    )
  else:
    low, high, level = row.ci_low, row.ci_high, row.level
  if math.isfinite(high):
    change = (
        f'B/A = {_Percent(row.ratio)}% [{_Percent(low)}, {_Percent(high)}]'
        f' ({level:.0%} CI; {design})'
    )
  else:
    change = f'B/A = {_Percent(row.ratio)}% (no interval; {design})'
  if row.verdict == BETTER:
    outcome = 'B is better'
  elif row.verdict == WORSE:
    outcome = 'B is worse'
  elif row.verdict == EQUIVALENT:
    outcome = f'equivalent within {row.margin:.0%}'
  elif row.clusters_needed is None:
    outcome = 'inconclusive'
  else:
    outcome = (
        f'inconclusive; about {row.clusters_needed} clusters per arm would'
        ' settle it'
    )
  sentence = (
      f'{label}: {change}: {outcome}' if label else f'{change}: {outcome}'
  )
  return f'{sentence}; {row.warning}' if row.warning else sentence
