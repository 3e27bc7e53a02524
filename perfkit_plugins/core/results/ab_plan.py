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

"""Planning an A/B comparison from measured noise: clusters, cost, order.

Pure, for `scylla-phases-report --plan_ab --noise_from AA1.json ...`: the
runs of an A/A experiment (one configuration, two clusters or more) give
each figure's noise between clusters, between repeats on one cluster and
within a run (experiment.NoiseFromMeasurements, on the measurements
ab_comparison takes from runs). From that noise, for a relative difference
to detect: the clusters per arm that detect it with 80% power
(experiment.ClustersNeeded), the clusters per arm that show two equal arms
equivalent within the margin (experiment.ClustersNeededForEquivalence),
the cost of the design (experiment.ExperimentCostUsd) and an interleaved
order of clusters (experiment.InterleavedOrder: A B B A ..., so a drift in
time adds the same to both arms).

A report adjusts the p-values of all its rows together (Benjamini-Hochberg
at 5%): a figure that moved while the others did not is declared only if
its p-value is at most 5% / m, m the figures compared. A plan from measured
noise therefore tests each of its m figures at alpha = 5% / m (Bonferroni,
which Benjamini-Hochberg never rejects less than), for the difference and
for equivalence alike: the clusters it gives suffice however many of the
figures moved. For equivalence that is conservative: when every figure is
equivalent, Benjamini-Hochberg declares them at up to alpha = 5% each, so
the plan also gives the clusters at 5%, which the design needs at least;
the truth lies between the two.

A phase that runs once per cluster (populate, quiesce) is never repeated:
its figures are planned at one repeat whatever the others' repeats.

Without measured noise a plan is a guess: AssumedNoise makes one only from
noise the user states, and every line of its text says it is assumed. It
plans at 5% / DEFAULT_FIGURES, as a measured plan of a run of the default
phases would, unless told how many figures the report will compare
(--figures).
"""

import dataclasses
import math
from typing import Optional

from perfkit_plugins.core.plan import plan as plan_lib
from perfkit_plugins.core.results import ab_comparison
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import experiment

ALPHA = 0.05
POWER = 0.8
# The figures a report of a run of the default phases compares (ab_comparison
# .Figures): op rate, p50, p99 and p99.9 of populate, the three reads, reads
# during writes' READ and total, mixed's READ, WRITE and total; the p50, p99
# and p99.9 of the four latency rates and of reads during writes' WRITE.
DEFAULT_FIGURES = 51
# Longest run order printed in full.
_MAX_ORDER = 40
# Below this many clusters, the plan says its between-cluster noise is
# itself uncertain.
_FEW_CLUSTERS = 5


@dataclasses.dataclass(frozen=True)
class FigurePlan:
  """The noise of one figure and the clusters per arm it asks for.

  Attributes:
    figure: the ab_comparison.Figure; None for an assumed noise that
      stands for every figure.
    noise: experiment.NoiseProfile; None when it could not be measured.
    detect: clusters per arm to detect the difference with POWER; None
      when no noise is known.
    equivalence: clusters per arm to show two equal arms equivalent within
      `margin` with POWER at the plan's alpha (enough however few figures
      are equivalent); None when unknown or out of reach.
    margin: the equivalence margin.
    problem: why the figure has no plan ('' when it has one).
    repeats: the repeats per cluster it is planned at: 1 for a phase that
      runs once, else the plan's.
    equivalence_least: clusters per arm at ALPHA, the fewest that can show
      equivalence with POWER (when every figure is equivalent and the
      report's adjustment declares each at up to ALPHA); equal to
      equivalence when the plan's alpha is ALPHA.
  """

  figure: Optional[ab_comparison.Figure]
  noise: Optional[experiment.NoiseProfile]
  detect: Optional[int]
  equivalence: Optional[int]
  margin: float
  problem: str = ''
  repeats: int = 1
  equivalence_least: Optional[int] = None

  @property
  def lower_bound(self):
    """Whether the noise missed the between-cluster part (one cluster)."""
    return self.noise is not None and self.noise.between_cluster_cv is None


@dataclasses.dataclass(frozen=True)
class Plan:
  """A design for an A/B comparison.

  Attributes:
    difference: the relative difference to detect, e.g. 0.05.
    repeats: repeats per cluster the plan assumes.
    figures: one FigurePlan per figure (one for an assumed noise).
    source: where the noise comes from, for the text.
    assumed: True when the noise is the user's assumption.
    usd_per_cluster_hour: the price of one cluster-hour, None if unknown.
    price_source: where that price comes from.
    cluster_hours: how long one cluster runs, None if not given.
    alpha: the significance level each figure is planned at: ALPHA over
      the figures a report of these runs compares.
  """

  difference: float
  repeats: int
  figures: tuple[FigurePlan, ...]
  source: str
  assumed: bool = False
  usd_per_cluster_hour: Optional[float] = None
  price_source: str = ''
  cluster_hours: Optional[float] = None
  alpha: float = ALPHA


def _FigurePlan(figure, noise, difference, repeats, margin, alpha):
  """Clusters per arm for one figure's noise; problem set when unknown."""
  try:
    detect = experiment.ClustersNeeded(noise, difference, repeats, alpha, POWER)
    # The report shows equivalence when its two-sided interval lies inside
    # the margin: each side is tested at half the level's complement.
    equivalence, least = (
        experiment.ClustersNeededForEquivalence(
            noise, 0.0, margin, repeats, level / 2, POWER
        )
        for level in (alpha, ALPHA)
    )
  except ValueError as e:
    return FigurePlan(
        figure, noise, None, None, margin, str(e), repeats=repeats
    )
  return FigurePlan(
      figure,
      noise,
      detect,
      equivalence,
      margin,
      repeats=repeats,
      equivalence_least=least,
  )


def _RunsOnce(runs, figure):
  """Whether the figure's step belongs to a phase that runs once."""
  return any(
      r.metadata.get('scylla_phase') in plan_lib.ONCE_PHASES
      for run in runs
      for r in run.Rows(figure.metric, figure.step, figure.op, figure.kind)
  )


def _Price(runs):
  """The published price of the servers per hour, or None."""
  for run in runs:
    price = run.Metadata('scylla_price_usd_per_hour')
    if isinstance(price, (int, float)) and not isinstance(price, bool):
      return float(price)
  return None


def PlanFromRuns(
    runs,
    difference,
    repeats=None,
    margin=None,
    files=(),
    cluster_hours=None,
    usd_per_cluster_hour=None,
):
  """A plan from the noise measured on runs of one configuration.

  Args:
    runs: results_tables.Run of an A/A experiment (all taken as one
      configuration).
    difference: relative difference to detect (e.g. 0.05 or -0.05).
    repeats: repeats per cluster to plan for; None for the runs' own.
    margin: one equivalence margin for every figure, None for the defaults.
    files: the files the runs came from, for the text.
    cluster_hours: hours one cluster runs (provisioning, load and repeats).
    usd_per_cluster_hour: price of one cluster-hour; None for the servers'
      price the samples published (loaders not included), if any.

  Returns:
    Plan.

  Raises:
    ValueError: no runs, or a difference of 0 or of -100% or less.
  """
  if not runs:
    raise ValueError('no runs to measure the noise from')
  _CheckDifference(difference)
  if repeats is None:
    repeats = max(run.Repeats() for run in runs)
  margins = ab_comparison.Margins(margin)
  figures = []
  compared = ab_comparison.Figures(runs)
  alpha = ALPHA / len(compared) if compared else ALPHA
  for figure in compared:
    measurements = ab_comparison.Measurements(runs, figure)
    figure_margin = margins[
        'op rate' if figure.higher_is_better else 'percentiles'
    ]
    figure_repeats = 1 if _RunsOnce(runs, figure) else repeats
    try:
      noise = experiment.NoiseFromMeasurements(measurements)
    except ValueError as e:
      figures.append(
          FigurePlan(
              figure,
              None,
              None,
              None,
              figure_margin,
              str(e),
              repeats=figure_repeats,
          )
      )
      continue
    figures.append(
        _FigurePlan(
            figure, noise, difference, figure_repeats, figure_margin, alpha
        )
    )
  clusters = len({run.cluster for run in runs})
  source = (
      f'measured on {len(runs)} run{"s" if len(runs) > 1 else ""} on'
      f' {clusters} cluster{"s" if clusters > 1 else ""}'
      + (f' ({", ".join(files)})' if files else '')
  )
  price_source = 'given'
  if usd_per_cluster_hour is None:
    usd_per_cluster_hour = _Price(runs)
    price_source = (
        "the samples' scylla_price_usd_per_hour: servers only, loaders not"
        ' included'
    )
  return Plan(
      difference,
      repeats,
      tuple(figures),
      source,
      usd_per_cluster_hour=usd_per_cluster_hour,
      price_source=price_source,
      cluster_hours=cluster_hours,
      alpha=alpha,
  )


def AssumedNoise(
    between_cv,
    within_cv,
    difference,
    repeats=1,
    margin=None,
    cluster_hours=None,
    usd_per_cluster_hour=None,
    figures=DEFAULT_FIGURES,
):
  """A plan from noise the user assumes (not measured: the text says so).

  Planned at ALPHA / figures as a measured plan is at ALPHA over the
  figures its runs publish: the report adjusts its rows together, and a
  figure that moved alone is declared only at that level.

  Args:
    between_cv: assumed SD of log cluster means between clusters.
    within_cv: assumed SD of log values of repeats on one cluster.
    difference: relative difference to detect.
    repeats: repeats per cluster.
    margin: equivalence margin; None for the op rates' default.
    cluster_hours: hours one cluster runs.
    usd_per_cluster_hour: price of one cluster-hour.
    figures: the figures the report will compare (DEFAULT_FIGURES for a
      run of the default phases).

  Returns:
    Plan with one FigurePlan for every figure.

  Raises:
    ValueError: a negative noise, fewer than one figure, or a difference of
      0 or of -100% or less.
  """
  if min(between_cv, within_cv) < 0:
    raise ValueError('assumed noise cannot be negative')
  if figures < 1:
    raise ValueError(f'{figures} figures: at least one is compared')
  _CheckDifference(difference)
  noise = experiment.NoiseProfile(between_cv, within_cv, None)
  margin = ab_comparison.Margins(margin)['op rate']
  alpha = ALPHA / figures
  return Plan(
      difference,
      repeats,
      (_FigurePlan(None, noise, difference, repeats, margin, alpha),),
      (
          f'ASSUMED, not measured: {between_cv:.1%} between clusters,'
          f' {within_cv:.1%} between repeats on one cluster'
      ),
      assumed=True,
      usd_per_cluster_hour=usd_per_cluster_hour,
      price_source='given',
      cluster_hours=cluster_hours,
      alpha=alpha,
  )


def _CheckDifference(difference):
  if not difference or difference <= -1 or not math.isfinite(difference):
    raise ValueError(
        f'difference {difference}: give a relative difference to detect,'
        ' e.g. 0.05 for 5%'
    )


def _Cv(value):
  return '-' if value is None else f'{value:.1%}'


def _Clusters(value):
  return '-' if value is None else str(value)


def _Equivalence(plan_figure):
  """'least-enough' clusters to show equivalence, one number when equal."""
  least, enough = plan_figure.equivalence_least, plan_figure.equivalence
  if least is None or enough is None or least == enough:
    return _Clusters(enough)
  return f'{least}-{enough}'


def _Table(plan):
  """One line per figure: its noise at each level, clusters per arm."""
  rows = []
  for p in plan.figures:
    noise = p.noise
    figure = p.figure
    mark = '*' if p.lower_bound else ''
    rows.append((
        figure.step if figure else 'any',
        figure.op if figure else '',
        figure.Name() if figure else 'figure (assumed)',
        _Cv(noise and noise.between_cluster_cv),
        _Cv(noise and noise.within_cluster_cv),
        _Cv(noise and noise.within_run_cv),
        _Clusters(p.detect) + (mark if p.detect else ''),
        _Equivalence(p) + (mark if p.equivalence else ''),
    ))
  return results_tables.Table(
      'Noise and clusters per arm',
      (
          'step',
          'op',
          'figure',
          'between clusters',
          'between repeats',
          'within run',
          f'to detect {plan.difference:+.1%}',
          'to show equivalence',
      ),
      tuple(rows),
      keys=3,
  )


def _Governing(figures):
  """(largest clusters per arm to detect, the figure that needs it)."""
  planned = [p for p in figures if p.detect is not None]
  if not planned:
    return None, None
  worst = max(planned, key=lambda p: p.detect)
  return worst.detect, worst


def _FigureName(plan_figure):
  f = plan_figure.figure
  return 'every figure' if f is None else f'{f.step} {f.op} {f.Name()}'


def _NeedsMost(plan_figure):
  """' (X needs the most)', or '' for an assumed noise (one for all)."""
  if plan_figure.figure is None:
    return ''
  return f' ({_FigureName(plan_figure)} needs the most)'


def _Cost(plan, clusters_per_arm):
  """' ($X: 2N clusters x H h x $P)' or a sentence saying what is missing."""
  if plan.cluster_hours is None or plan.usd_per_cluster_hour is None:
    return ''
  usd = experiment.ExperimentCostUsd(
      2 * clusters_per_arm, plan.cluster_hours, plan.usd_per_cluster_hour
  )
  return (
      f', ${usd:,.2f} ({2 * clusters_per_arm} clusters x'
      f' {plan.cluster_hours:g} h x ${plan.usd_per_cluster_hour:,.2f})'
  )


def Order(clusters_per_arm):
  """The interleaved order of clusters as text, long orders shortened."""
  order = experiment.InterleavedOrder(clusters_per_arm)
  if len(order) <= _MAX_ORDER:
    return ' '.join(order)
  return ' '.join(order[:_MAX_ORDER]) + f' ... ({len(order)} clusters)'


def _Alpha(plan):
  """The significance level each figure is planned at, in words."""
  if plan.alpha == ALPHA:
    return f'alpha {ALPHA:.0%} for one figure'
  figures = round(ALPHA / plan.alpha)
  return (
      f'alpha {ALPHA:.0%} / {figures} figures = {plan.alpha:.2%} each, as'
      " the report's adjustment across its rows asks"
  )


def RenderPlan(plan):
  """The plan as text: noise per figure, clusters, cost and order."""
  lines = [
      (
          'A/B plan: clusters per arm to detect a difference of'
          f' {plan.difference:+.1%} (two-sided, {_Alpha(plan)}, power'
          f' {POWER:.0%}), {plan.repeats}'
          f' repeat{"s" if plan.repeats > 1 else ""} per cluster'
      ),
      f'  Noise: {plan.source}',
  ]
  if plan.assumed:
    lines.append(
        '  An assumption is not a measurement: run an A/A experiment (one'
        ' configuration on two clusters or more) and plan from it'
        ' (--noise_from) before paying for the comparison.'
    )
  clusters = max(
      (p.noise.clusters for p in plan.figures if p.noise is not None),
      default=0,
  )
  if not plan.assumed and 2 <= clusters < _FEW_CLUSTERS:
    lines.append(
        f'  The noise between clusters rests on {clusters} clusters: an SD'
        f' from {clusters - 1} degree(s) of freedom, easily off by a factor'
        ' of two; an A/A experiment on more clusters plans more surely.'
    )
  once = list(
      dict.fromkeys(
          p.figure.step
          for p in plan.figures
          if p.figure is not None and p.repeats != plan.repeats
      )
  )
  if once:
    lines.append(
        f'  {", ".join(once)} run{"s" if len(once) == 1 else ""} once per'
        ' cluster whatever the repeats: planned at 1 repeat'
    )
  if any(_Equivalence(p) != _Clusters(p.equivalence) for p in plan.figures):
    lines.append(
        '  To show equivalence, a range: at least the clusters at alpha'
        f' {ALPHA:.0%} (every figure equivalent: the adjustment then'
        f' declares each at up to {ALPHA:.0%}), at most those at'
        f' {plan.alpha:.2%} (enough however few are)'
    )
  if plan.assumed:
    figures = round(ALPHA / plan.alpha)
    lines.append(
        f'  {figures} figure{"s" if figures > 1 else ""}: '
        + (
            'those a report of a run of the default phases compares'
            if figures == DEFAULT_FIGURES
            else 'as --figures says'
        )
    )
  if any(p.lower_bound for p in plan.figures):
    lines.append(
        '  * lower bound: the noise runs ran on one cluster, so the noise'
        ' between clusters is unknown (counted as 0)'
    )
  sections = ['\n'.join(lines), results_tables.RenderTable(_Table(plan))]
  problems = [
      f'  {_FigureName(p)}: {p.problem}' for p in plan.figures if p.problem
  ]
  if problems:
    sections.append('No plan\n' + '\n'.join(problems))
  summary = []
  rates = [
      p for p in plan.figures if p.figure is None or p.figure.higher_is_better
  ]
  every, worst = _Governing(plan.figures)
  rate_clusters, rate_worst = _Governing(rates)
  if every is None:
    summary.append('  No figure has a known noise: no design.')
  else:
    if rate_clusters is not None and rate_clusters != every:
      summary.append(
          f'  Every op rate: {rate_clusters} clusters per arm'
          + _NeedsMost(rate_worst)
          + _Cost(plan, rate_clusters)
      )
    summary.append(
        f'  Every figure: {every} clusters per arm'
        + _NeedsMost(worst)
        + _Cost(plan, every)
    )
    if plan.cluster_hours is None or plan.usd_per_cluster_hour is None:
      missing = [
          flag
          for flag, value in (
              ('--cluster_hours', plan.cluster_hours),
              ('--usd_per_cluster_hour', plan.usd_per_cluster_hour),
          )
          if value is None
      ]
      summary.append(f'  Cost: give {" and ".join(missing)}')
    elif plan.price_source != 'given':
      summary.append(f'  Price: {plan.price_source}')
    summary.append(
        f'  Order of the {2 * every} clusters (each runs'
        f' {plan.repeats} repeat{"s" if plan.repeats > 1 else ""}; A B B A'
        f' cancels a linear drift): {Order(every)}'
    )
    if rate_clusters is not None and rate_clusters != every:
      summary.append(
          f'  (the first {2 * rate_clusters} are the op-rate design)'
      )
  sections.append('Design\n' + '\n'.join(summary))
  return '\n\n'.join(sections)
