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

"""Runs of two arms -> A/B comparison rows, their verdicts and their text.

Pure, for `scylla-phases-report A.json --vs B.json`: the runs come from
results_tables.LoadRuns; the statistics are core/stats/comparison's. Per
step, op type and figure (op rate; latency p50, p99 and p99.9 of the kind
the step publishes: `rt` for fixed-rate steps, `st` otherwise), each arm's
measurements are one per repeat of each run (intervals.Measurement: the
value, the run's cluster, the repeat, and the within-run interval its
sample carries, and when the run started). CompareArms tests B/A where
the noise between clusters is known (both arms on several clusters, one
arm on several, or an A/A experiment's noise given with --noise_from),
with a trend in time common to both arms where the clusters allow one;
elsewhere it shows the difference within what ran, without a verdict.
CompareRows adjusts every row's p-values together (Benjamini-Hochberg for
the table's verdicts, Holm for the regressions a gate stops on) before the
verdicts. Warm-up steps are never compared, nor is the op rate of a
fixed-rate op type (its target, not the database's), nor any figure of a
step whose fixed rate was not reached in a run of either arm (it measured
a queue behind its schedule), nor a figure that is not positive: the
report says why, and counts what B lost that A had (a fixed rate missed on
a larger share of B's clusters than of A's, a figure B no longer
publishes or publishes as 0) as lost.

Imports scipy (through core/stats): only the report's modules import it,
never a module pkb.py loads.
"""

import dataclasses
import math

from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import comparison
from perfkit_plugins.core.stats import experiment
from perfkit_plugins.core.stats import intervals

LEVEL = 0.95
FDR = 0.05
# The family-wise error rate of the regressions --fail_on=WORSE stops on.
FWER = 0.05
# Run labels an arm's description names before it only counts them.
_MAX_LABELS = 3
OP_RATE = 'op_rate'
# Latency percentiles compared, with their names in sentences.
PERCENTILES = (
    ('latency_p50', 'p50'),
    ('latency_p99', 'p99'),
    ('latency_p999', 'p99.9'),
)
# The latency kind of a fixed-rate step: response time.
RESPONSE_TIME = 'rt'
# What each test method replicated, for the report's header.
_REPLICATED = {
    comparison.WELCH_CLUSTERS: (
        'clusters (Welch t test on log cluster means): the interval covers'
        ' differences between clusters'
    ),
    comparison.AGAINST_ONE_CLUSTER: (
        "clusters, in one arm only (the lone cluster against the other arm's"
        ' cluster means, their spread taken for both): the interval covers'
        ' differences between clusters'
    ),
    comparison.GIVEN_NOISE: (
        'one cluster per arm, with the noise between clusters an A/A'
        ' experiment measured (--noise_from): the interval covers'
        ' differences between clusters as that experiment saw them'
    ),
    comparison.TREND_ADJUSTED: (
        'clusters, with a linear trend in time common to both arms (least'
        ' squares on arm and start time): the interval covers differences'
        ' between clusters'
    ),
    comparison.WELCH_REPEATS: (
        'repeats on one cluster (Welch t test on log repeat values): the'
        ' interval covers run-to-run noise on the clusters measured only;'
        ' no verdict'
    ),
    comparison.DELTA_WITHIN_RUN: (
        "nothing (single runs): each run's own within-run interval, not the"
        ' noise between runs or clusters; no verdict'
    ),
}


class ComparisonError(ValueError):
  """The arms cannot be compared (no shared figure, a run counted twice)."""


@dataclasses.dataclass(frozen=True)
class Figure:
  """One compared figure: a metric of one step and op type.

  Attributes:
    step: the step's label, e.g. 'read_small'.
    op: the op type, e.g. 'READ'.
    metric: the published metric, e.g. 'op_rate' or 'latency_p99'.
    kind: the latency kind ('st', 'rt'); '' for op rates.
  """

  step: str
  op: str
  metric: str
  kind: str = ''

  @property
  def higher_is_better(self):
    return self.metric == OP_RATE

  def Name(self):
    """The figure in words: 'op rate', 'p99 latency', 'p99 response time'."""
    if self.metric == OP_RATE:
      return 'op rate'
    name = dict(PERCENTILES).get(self.metric, self.metric)
    if self.kind == RESPONSE_TIME:
      return f'{name} response time'
    return f'{name} latency'


@dataclasses.dataclass(frozen=True)
class Compared:
  """A compared figure, each arm's value and the stats module's row.

  Attributes:
    figure: what is compared.
    label: how the report names it ('read_small op rate', 'mixed READ p99
      latency': the op only when the step has several).
    a: arm A's value (geometric mean of its cluster values).
    b: arm B's value.
    row: comparison.ComparisonRow, verdict after CompareRows.
  """

  figure: Figure
  label: str
  a: float
  b: float
  row: comparison.ComparisonRow


@dataclasses.dataclass(frozen=True)
class Arm:
  """One arm's runs and what they replicate.

  Attributes:
    name: 'A' or 'B'.
    runs: its results_tables.Run, every run of every file.
    files: the files they came from.
  """

  name: str
  runs: tuple[results_tables.Run, ...]
  files: tuple[str, ...]

  def Clusters(self):
    return list(dict.fromkeys(run.cluster for run in self.runs))

  def Describe(self):
    """What the arm ran and how often.

    E.g. 'scylla 2026.3 on 3 x z3-highmem-88: 2 runs on 2 clusters, 3
    repeats each'.
    """
    labels = list(dict.fromkeys(_BaseLabel(run) for run in self.runs))
    repeats = sorted({run.Repeats() for run in self.runs})
    runs, clusters = len(self.runs), len(self.Clusters())
    design = (
        f'{runs} run{"s" if runs > 1 else ""} on {clusters}'
        f' cluster{"s" if clusters > 1 else ""}, '
        + '/'.join(str(r) for r in repeats)
        + f' repeat{"s" if repeats[-1] > 1 else ""}'
        + (' each' if runs > 1 else '')
    )
    if len(labels) > _MAX_LABELS:
      labels = labels[:_MAX_LABELS] + [f'... ({len(labels)} labels)']
    return f'{"; ".join(labels)}: {design}'


@dataclasses.dataclass(frozen=True)
class Report:
  """An A/B comparison: every compared row, and what was left out.

  Attributes:
    a: arm A.
    b: arm B.
    rows: the compared figures, verdicts set across all of them.
    skipped: figures not compared, each with the reason.
    margins: equivalence margin by kind of figure ('op rate',
      'percentiles').
    margin_source: 'defaults' or how --margin set them.
    noise_source: the A/A experiment whose noise rows of one cluster per
      arm use, in words; '' when none was given.
    lost: what B lost that A had, among the figures not compared: a step
      whose fixed rate B missed on a larger share of its clusters than A, a
      figure A published and B did not (its step failed or did not run), a
      figure positive in A and not in B (0: nothing measured). A
      regression no row shows.
  """

  a: Arm
  b: Arm
  rows: tuple[Compared, ...]
  skipped: tuple[str, ...]
  margins: dict
  margin_source: str
  noise_source: str = ''
  lost: tuple[str, ...] = ()


def _BaseLabel(run):
  """The run's label without the suffix LoadRuns adds to tell runs apart."""
  return results_tables.RunLabel(run.rows, run.source)


def Figures(runs):
  """The figures the runs publish, in the order they first appear.

  Per step and op type with an op rate: the op rate, then p50, p99 and
  p99.9 (those published) of the kind the step published: `rt` when it
  has response times (a fixed-rate step), else `st`. Warm-up steps are
  left out, and so is the op rate of a fixed-rate op type: its loaders
  hold it at their target, so it measures the target, not the database
  (a shortfall is a missed rate, MissedRates).

  Args:
    runs: results_tables.Run.

  Returns:
    list of Figure.
  """
  keys = {}
  kinds = {}
  published = set()
  percentiles = {metric for metric, _ in PERCENTILES}
  for run in runs:
    for r in run.rows:
      if r.metric == OP_RATE:
        if not results_tables.IsWarmup(r.step, r.metadata):
          keys.setdefault((r.step, r.op), None)
      elif r.metric in percentiles and r.kind:
        kinds.setdefault((r.step, r.op), set()).add(r.kind)
        published.add((r.metric, r.step, r.op, r.kind))
  figures = []
  for step, op in keys:
    kind = results_tables.PublishedKind(kinds.get((step, op), ()))
    if kind != RESPONSE_TIME:
      figures.append(Figure(step, op, OP_RATE))
    figures += [
        Figure(step, op, metric, kind)
        for metric, _ in PERCENTILES
        if (metric, step, op, kind) in published
    ]
  return figures


def MissedRates(arms):
  """Why the steps whose fixed rate was not reached are not compared.

  A step marked so (results_tables.RateMissedSteps) in any run of either arm
  measured a queue of operations behind its schedule, not the database at
  its rate, and the two arms did not put the same load on it: none of its
  figures is compared.

  Args:
    arms: [(arm name, its results_tables.Run)].

  Returns:
    {step: (why, {arm: (clusters that missed it, the arm's clusters)})},
    in the order the steps first appear; every arm is there, 0 clusters for
    one that never missed it.
  """
  missed = {}
  clusters = {}
  for name, runs in arms:
    clusters[name] = len({run.cluster for run in runs})
    for run in runs:
      for step in results_tables.RateMissedSteps(run):
        missed.setdefault(step, {}).setdefault(name, set()).add(run.cluster)
  result = {}
  for step, names in missed.items():
    shares = {
        name: (len(names.get(name, ())), total)
        for name, total in clusters.items()
    }
    where = ' and '.join(
        f'{name} ({count} of {total} clusters)'
        for name, (count, total) in shares.items()
        if count
    )
    result[step] = (
        (
            f'{step}: not compared: its fixed rate was not reached in'
            f' {where} (rate_not_reached): its latencies measure a queue'
            ' behind the schedule, not the database at that rate'
        ),
        shares,
    )
  return result


def _LostRates(missed):
  """Steps whose fixed rate B missed on a larger share of its clusters."""
  lost = []
  for step, (_, shares) in missed.items():
    count_b, total_b = shares['B']
    count_a, total_a = shares['A']
    if count_b / total_b > count_a / total_a:
      lost.append(
          f'{step}: its fixed rate was not reached on {count_b} of'
          f" {total_b} of B's clusters, {count_a} of {total_a} of A's"
      )
  return lost


def _Within(row):
  """The within-run Interval a sample's scylla_ci_* metadata describes."""
  bounds = row.Interval()
  if bounds is None:
    return None
  m = row.metadata

  def Number(key, default):
    try:
      value = float(m.get(key, default))
    except (TypeError, ValueError):
      return default
    return default if math.isnan(value) else value

  return intervals.Interval(
      estimate=row.value,
      low=bounds[0],
      high=bounds[1],
      level=Number(results_tables.CI_LEVEL, LEVEL),
      method=str(m.get('scylla_ci_method', '')),
      covers=str(m.get(results_tables.CI_COVERS, intervals.WITHIN_RUN)),
      units=Number('scylla_ci_units', 0.0),
      standard_error=Number('scylla_ci_se_log', math.inf),
      dof=Number('scylla_ci_dof', 0.0),
      warning=str(m.get('scylla_ci_warning', '') or ''),
  )


def Measurements(runs, figure):
  """A figure's measurements in some runs: one per repeat of each run.

  A repeat's sample gives the value, the run's cluster, the repeat, its
  within-run interval and its measured window, the run its start; the
  aggregate of the repeats (scylla_repeat 0) is left out, the repeats
  being the units. A run that published only an aggregate gives that.

  Args:
    runs: results_tables.Run.
    figure: the Figure.

  Returns:
    list of intervals.Measurement.
  """
  measurements = []
  for run in runs:
    rows = run.Rows(figure.metric, figure.step, figure.op, figure.kind)
    units = [
        r for r in rows if r.repeat != results_tables.AGGREGATE_REPEAT
    ] or rows
    start = run.Time() or None
    measurements += [
        intervals.Measurement(
            r.value, run.cluster, r.repeat or 1, _Within(r), start, _Window(r)
        )
        for r in units
    ]
  return measurements


def _Window(row):
  """The window a row's figure was measured over, None when not published."""
  try:
    window = tuple(
        float(row.metadata[key])
        for key in (
            results_tables.WINDOW_START_KEY,
            results_tables.WINDOW_END_KEY,
        )
    )
  except (KeyError, TypeError, ValueError):
    return None
  return window if window[0] < window[1] else None


def _ArmValue(measurements):
  """Geometric mean of the cluster values (every cluster weighs the same)."""
  values = list(intervals.ClusterValues(measurements).values())
  return math.exp(sum(math.log(v) for v in values) / len(values))


def _Margin(figure, margins):
  return margins['op rate' if figure.higher_is_better else 'percentiles']


def Margins(override=None):
  """Equivalence margins: the stats module's defaults, or one for both.

  Args:
    override: a fraction in (0, 1) for every figure, None for the defaults
      (comparison.RATE_MARGIN for op rates, PERCENTILE_MARGIN for latency
      percentiles).

  Returns:
    {'op rate': margin, 'percentiles': margin}.
  """
  if override is None:
    return {
        'op rate': comparison.RATE_MARGIN,
        'percentiles': comparison.PERCENTILE_MARGIN,
    }
  return {'op rate': override, 'percentiles': override}


def _DuplicateRuns(a_runs, b_runs):
  """Refuses a run counted twice (a file given twice, or in both arms).

  A run is its cluster and start; a run of an older file without
  scylla_run_start is its cluster (run_uri) in its file, so the same old
  file given twice is refused but two Run stages of one old cluster, in
  two files, are not.
  """
  seen = {}
  for arm, runs in (('A', a_runs), ('B', b_runs)):
    for run in runs:
      if run.run_start is None:
        key = (run.cluster, run.source)
        when = f'from {run.source}'
      else:
        key = (run.cluster, run.run_start)
        when = f'started at {results_tables.IsoTime(run.run_start)}'
      if key in seen:
        raise ComparisonError(
            f'the run of cluster {run.cluster} {when} is in {seen[key]} and'
            f' in {arm} ({run.source}): each run counts once'
        )
      seen[key] = f'{arm} ({run.source})'


def _GivenNoise(noise_runs, figure):
  """The figure's noise in an A/A experiment's runs; None if unmeasured."""
  measurements = Measurements(noise_runs, figure)
  if not measurements:
    return None
  try:
    return experiment.NoiseFromMeasurements(measurements)
  except ValueError:
    return None


def _NoiseSource(noise_runs, noise_files):
  clusters = len({run.cluster for run in noise_runs})
  if clusters < 2:
    raise ComparisonError(
        f'--noise_from: {len(noise_runs)} run(s) on one cluster cannot'
        ' measure the noise between clusters: an A/A experiment needs two'
        ' clusters or more'
    )
  return f'A/A experiment of {len(noise_runs)} runs on {clusters} clusters' + (
      f' ({", ".join(noise_files)})' if noise_files else ''
  )


def Compare(
    a_runs,
    b_runs,
    margin=None,
    a_files=(),
    b_files=(),
    noise_runs=(),
    noise_files=(),
):
  """Compares every figure both arms publish (Figures).

  The steps whose fixed rate was not reached (MissedRates) are left out,
  with why.

  Args:
    a_runs: arm A's results_tables.Run.
    b_runs: arm B's.
    margin: one equivalence margin for every figure (a fraction), None for
      the defaults (2% op rates, 5% percentiles).
    a_files: arm A's file names, for the header.
    b_files: arm B's.
    noise_runs: runs of an A/A experiment on the same machines (two
      clusters or more): their noise between clusters stands in for the
      arms' where each arm ran on one cluster. Empty for none.
    noise_files: their file names, for the header.

  Returns:
    Report, its rows in the order arm A published the figures.

  Raises:
    ComparisonError: an empty arm, a run in both arms or twice, no figure
      both arms publish, or noise runs on one cluster.
  """
  if not a_runs or not b_runs:
    raise ComparisonError('each arm needs at least one run')
  _DuplicateRuns(a_runs, b_runs)
  noise_source = _NoiseSource(noise_runs, noise_files) if noise_runs else ''
  margins = Margins(margin)
  missed = MissedRates((('A', a_runs), ('B', b_runs)))
  a_figures, b_figures = (
      [f for f in Figures(runs) if f.step not in missed]
      for runs in (a_runs, b_runs)
  )
  in_a, in_b = set(a_figures), set(b_figures)
  shared = [f for f in a_figures if f in in_b]
  skipped = [
      f'{f.step} {f.op} {f.Name()}: only in {arm}'
      for arm, figures, other in (
          ('A', a_figures, in_b),
          ('B', b_figures, in_a),
      )
      for f in figures
      if f not in other
  ] + [why for why, _ in missed.values()]
  ops = {}
  for f in shared:
    ops.setdefault(f.step, set()).add(f.op)
  rows = []
  zeros = []
  for figure in shared:
    a = Measurements(a_runs, figure)
    b = Measurements(b_runs, figure)
    lost_values = [m for m in b if not m.value > 0]
    if lost_values and all(m.value > 0 for m in a):
      zeros.append(
          f'{figure.step} {figure.op} {figure.Name()}: 0 or less in'
          f" {len(lost_values)} of B's {len(b)} measurements, positive in"
          ' every one of A'
      )
      continue
    label_op = figure.op if len(ops[figure.step]) > 1 else ''
    metric = ' '.join(filter(None, (label_op, figure.Name())))
    try:
      row = comparison.CompareArms(
          a,
          b,
          higher_is_better=figure.higher_is_better,
          margin=_Margin(figure, margins),
          level=LEVEL,
          step=figure.step,
          metric=metric,
          noise=_GivenNoise(noise_runs, figure) if noise_runs else None,
      )
    except ValueError as e:
      skipped.append(f'{figure.step} {figure.op} {figure.Name()}: {e}')
      continue
    rows.append(
        Compared(
            figure, f'{figure.step} {metric}', _ArmValue(a), _ArmValue(b), row
        )
    )
  if not rows and not zeros:
    raise ComparisonError(
        'no figure to compare: the arms share no step and op type with'
        ' positive figures'
        + (f' ({"; ".join(skipped[:5])})' if skipped else '')
    )
  decided = comparison.CompareRows([c.row for c in rows], FDR)
  rows = [dataclasses.replace(c, row=row) for c, row in zip(rows, decided)]
  lost = (
      _LostRates(missed)
      + [
          f'{f.step} {f.op} {f.Name()}: in A, not in B'
          for f in a_figures
          if f not in in_b
      ]
      + zeros
  )
  return Report(
      Arm('A', tuple(a_runs), tuple(a_files)),
      Arm('B', tuple(b_runs), tuple(b_files)),
      tuple(rows),
      tuple(skipped),
      margins,
      'defaults' if margin is None else f'--margin {margin:.3g} for both',
      noise_source,
      tuple(lost),
  )


def _Percent(ratio):
  """B/A as a signed percentage with one decimal; 'inf' when unbounded."""
  if not math.isfinite(ratio) or ratio <= 0:
    return 'inf' if ratio > 0 else '-100%'
  return f'{round((ratio - 1) * 100, 1) + 0.0:+.1f}%'


def _CommonWarning(rows):
  """The warning every row carries, said once; '' when they differ."""
  warnings = {c.row.warning for c in rows}
  return warnings.pop() if len(warnings) == 1 else ''


def Claim(compared, common_warning=''):
  """The row's claim sentence (comparison.ClaimSentence), its op named.

  A warning every row shares is left out of it (the report says it once).
  """
  row = compared.row
  if common_warning and row.warning == common_warning:
    row = dataclasses.replace(row, warning='')
  return comparison.ClaimSentence(row)


def ToSettle(row):
  """'7 (+4)': clusters per arm that would settle an INCONCLUSIVE row.

  With how many more than the arm with fewer clusters ran; '' for a
  settled row or when unknown.
  """
  if row.verdict != comparison.INCONCLUSIVE or row.clusters_needed is None:
    return ''
  more = max(0, row.clusters_needed - min(row.clusters_a, row.clusters_b))
  return f'{row.clusters_needed} (+{more})'


def _Table(report):
  """One line per compared figure: arms' values, B/A, interval, verdict."""
  rows = []
  for c in report.rows:
    row = c.row
    low, high, level = row.VerdictInterval()
    interval = (
        f'[{_Percent(low)[:-1]}, {_Percent(high)[:-1]}]'
        if math.isfinite(high) and low > 0
        else 'none'
    )
    rows.append((
        c.figure.step,
        c.figure.op,
        c.figure.Name(),
        results_tables.FormatNumber(c.a),
        results_tables.FormatNumber(c.b),
        _Percent(row.ratio),
        interval,
        comparison.LevelText(level),
        row.verdict + ('' if not row.no_verdict else ' (no verdict)'),
        '-' if math.isnan(row.q) else f'{row.q:.2g}',
        ToSettle(row),
    ))
  return results_tables.Table(
      'B/A per figure (CI: the interval the verdict rests on, at its level;'
      ' q: p of B/A = 1 adjusted across the'
      f' {_Decidable(report)} rows with a verdict; to settle: clusters per'
      ' arm, and how many more, an INCONCLUSIVE row needs)',
      (
          'step',
          'op',
          'figure',
          'A',
          'B',
          'B/A',
          'CI %',
          'level',
          'verdict',
          'q',
          'to settle',
      ),
      tuple(rows),
      keys=3,
  )


# The servers' figures shown A -> B: (metric, header, how servers combine).
_SERVER_FIGURES = (
    ('server_busy_max', 'busiest %', max),
    ('server_cpu_busy', 'CPU %', max),
    ('server_disk_busy', 'disk busy %', max),
    ('server_cql_requests', 'CQL req/s', sum),
    ('server_dropped_messages', 'dropped', sum),
)


def _ArmServers(arm, metric, step, combine):
  """An arm's server figure of a step: the mean over its runs, or None."""
  values = [
      v
      for run in arm.runs
      if (v := results_tables.ServerFigure(run, metric, step, combine))
      is not None
  ]
  return sum(values) / len(values) if values else None


def _ArmLimit(arm, step):
  """Where the step's limit was in an arm's runs ('servers', ...)."""
  limits = dict.fromkeys(
      limit
      for run in arm.runs
      for limit in results_tables.StepLimit(run, step).split('/')
      if limit != '-'
  )
  return '/'.join(limits) or '-'


def _ServersTable(report):
  """Per compared step: its limit and its servers' load in A, then in B.

  Beside the change in a figure, the change in what the servers did says
  why (a busier shard, a busier disk) or that they were not the limit.
  """
  rows = []
  for step in dict.fromkeys(c.figure.step for c in report.rows):
    changes = []
    for metric, _, combine in _SERVER_FIGURES:
      a, b = (
          _ArmServers(arm, metric, step, combine)
          for arm in (report.a, report.b)
      )
      changes.append(
          '-'
          if a is None and b is None
          else (
              f'{results_tables.FormatNumber(a)} ->'
              f' {results_tables.FormatNumber(b)}'
          )
      )
    if set(changes) == {'-'}:
      continue
    rows.append(
        (step, _ArmLimit(report.a, step), _ArmLimit(report.b, step))
        + tuple(changes)
    )
  return results_tables.Table(
      (
          'Servers, A -> B (limit: where each step was limited; busiest: a'
          " server's busiest shard, or its CPU; each arm's mean over its runs)"
      ),
      ('step', 'limit A', 'limit B')
      + tuple(header for _, header, _ in _SERVER_FIGURES),
      tuple(rows),
  )


def _Decidable(report):
  """How many rows can have a verdict (the family q adjusts across)."""
  return sum(
      not c.row.no_verdict and not math.isnan(c.row.q) for c in report.rows
  )


def _Header(report):
  """Arms, margins, the unit replicated and what every row shares."""
  lines = ['A/B comparison of scylla_phases runs: B against A']
  for arm in (report.a, report.b):
    files = ', '.join(arm.files)
    lines.append(
        f'  {arm.name}: {arm.Describe()}' + (f' ({files})' if files else '')
    )
  decidable = _Decidable(report)
  lines.append(
      '  Method: one interval per row, at the level the rows where B/A = 1'
      f' is rejected imply (Benjamini-Hochberg across the {decidable} rows'
      f' with a verdict, false discovery rate {FDR:.0%}): EQUIVALENT when it'
      ' lies within the margin, else BETTER or WORSE when it excludes 1,'
      ' else INCONCLUSIVE; margins: op rate'
      f' {report.margins["op rate"]:.1%}, latency percentiles'
      f' {report.margins["percentiles"]:.1%} ({report.margin_source})'
  )
  methods = list(dict.fromkeys(c.row.method for c in report.rows))
  for method in methods:
    count = sum(c.row.method == method for c in report.rows)
    scope = '' if len(methods) == 1 else f' ({count} rows)'
    lines.append(f'  Unit replicated{scope}: {_REPLICATED.get(method, method)}')
  if any(c.row.method == comparison.GIVEN_NOISE for c in report.rows):
    lines.append(f'  Noise between clusters: {report.noise_source}')
  orders = list(dict.fromkeys(c.row.order for c in report.rows if c.row.order))
  if len(orders) == 1:
    lines.append(f'  Run order: {orders[0]}')
  trends = [
      c.row.trend_per_hour
      for c in report.rows
      if c.row.trend_per_hour is not None
  ]
  if trends:
    lines.append(
        '  Trend in time common to both arms (fitted per row, B/A adjusted'
        f' for it): {min(trends):+.2%} to {max(trends):+.2%} per hour'
    )
  if decidable < len(report.rows):
    reasons = list(
        dict.fromkeys(c.row.no_verdict for c in report.rows if c.row.no_verdict)
    )
    lines.append(
        f'  No verdict in {len(report.rows) - decidable} rows: '
        + '; '.join(reasons or ['no test possible'])
    )
  common = _CommonWarning(report.rows)
  if common:
    lines.append(f'  Warning, every row: {common}')
  lines.append(f'  Verdicts: {Summary(report)}')
  worse = VerdictCounts(report)[comparison.WORSE]
  if worse:
    lines.append(
        f'  Regressions: {len(Regressions(report))} of the {worse} WORSE'
        f' rows at a family-wise error rate of {FWER:.0%} (Holm), what'
        ' --fail_on=WORSE stops on'
    )
  return '\n'.join(lines)


def RenderComparison(report):
  """The comparison as text: header, table, one claim per row, the servers'
  load in each arm, skipped."""
  common = _CommonWarning(report.rows)
  sections = [
      _Header(report),
      results_tables.RenderTable(_Table(report)),
      'Claims\n' + '\n'.join(f'  {Claim(c, common)}' for c in report.rows),
  ]
  servers = _ServersTable(report)
  if servers.rows:
    sections.append(results_tables.RenderTable(servers))
  if report.skipped:
    sections.append(
        'Not compared\n' + '\n'.join(f'  {s}' for s in report.skipped)
    )
  if report.lost:
    sections.append(
        'Lost in B (a regression no row shows; --fail_on=WORSE counts it)\n'
        + '\n'.join(f'  {s}' for s in report.lost)
    )
  return '\n\n'.join(sections)


def _Number(value):
  """A float for JSON: None when not finite (JSON has no NaN or inf)."""
  if value is None or not math.isfinite(value):
    return None
  return value


def ReportJson(report):
  """The comparison as a JSON-ready dict: arms, margins and rows.

  Each row: step, op, metric, kind, figure, a, b, ratio, ci_low, ci_high,
  level (of ci_low and ci_high: the one interval the verdict rests on),
  verdict, regression (WORSE at the family-wise error rate FWER: what
  --fail_on=WORSE stops on), no_verdict (why a row has none, '' when it
  can have one), detectable (B/A = 1 rejected), runs_a, runs_b
  (measurements: repeats of runs), clusters_a, clusters_b, method, covers,
  warning, order (of the clusters in time), trend_per_hour, p, q (Benjamini-
  Hochberg), p_familywise (Holm), margin, standard_error_log, dof,
  clusters_needed and claim. Unknown numbers (no test, unbounded
  intervals) are null. Beside the rows: fdr, fwer, not_compared (each
  figure left out, with why) and lost_in_b (what B lost that A had).
  """
  rows = []
  for c in report.rows:
    row = c.row
    rows.append({
        'step': c.figure.step,
        'op': c.figure.op,
        'metric': c.figure.metric,
        'kind': c.figure.kind,
        'figure': c.figure.Name(),
        'a': _Number(c.a),
        'b': _Number(c.b),
        'ratio': _Number(row.ratio),
        'ci_low': _Number(row.ci_low),
        'ci_high': _Number(row.ci_high),
        'level': row.level,
        'verdict': row.verdict,
        'regression': comparison.Regression(row, FWER),
        'no_verdict': row.no_verdict,
        'detectable': row.detectable,
        'runs_a': row.runs_a,
        'runs_b': row.runs_b,
        'clusters_a': row.clusters_a,
        'clusters_b': row.clusters_b,
        'method': row.method,
        'covers': row.covers,
        'warning': row.warning,
        'order': row.order,
        'trend_per_hour': _Number(row.trend_per_hour),
        'p': _Number(row.p),
        'q': _Number(row.q),
        'p_familywise': _Number(row.p_familywise),
        'margin': row.margin,
        'standard_error_log': _Number(row.standard_error),
        'dof': _Number(row.dof),
        'clusters_needed': row.clusters_needed,
        'claim': Claim(c),
    })
  return {
      'arms': {
          arm.name: {
              'description': arm.Describe(),
              'files': list(arm.files),
              'runs': len(arm.runs),
              'clusters': len(arm.Clusters()),
          }
          for arm in (report.a, report.b)
      },
      'fdr': FDR,
      'fwer': FWER,
      'margins': dict(report.margins),
      'noise_source': report.noise_source,
      'rows': rows,
      'not_compared': list(report.skipped),
      'lost_in_b': list(report.lost),
  }


def VerdictCounts(report) -> dict:
  """{verdict: rows} in the stats module's order."""
  order = (
      comparison.BETTER,
      comparison.WORSE,
      comparison.EQUIVALENT,
      comparison.INCONCLUSIVE,
  )
  return {v: sum(c.row.verdict == v for c in report.rows) for v in order}


def Summary(report) -> str:
  """One line: how many rows got each verdict."""
  counts = VerdictCounts(report)
  return ', '.join(f'{n} {v}' for v, n in counts.items() if n)


def Regressions(report):
  """The rows a gate stops on: WORSE at the family-wise error rate FWER.

  comparison.Regression: Holm's adjustment bounds the chance that a report
  where nothing is worse has any such row at FWER, where the table's
  Benjamini-Hochberg verdicts bound only the expected share of wrong ones
  (with many rows truly better, an unchanged row is called WORSE now and
  then).
  """
  return [c for c in report.rows if comparison.Regression(c.row, FWER)]
