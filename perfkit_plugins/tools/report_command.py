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

"""`scylla-phases-report`: the studies' tables and plots from PKB results.

    scylla-phases-report RUN_DIR/perfkitbenchmarker_results.json
    scylla-phases-report z3.json n2.json --plots_dir=z3_vs_n2
    scylla-phases-report a1.json a2.json --vs b1.json b2.json --json ab.json
    scylla-phases-report a.json --vs b.json --noise_from aa*.json \
        --fail_on=WORSE,INCONCLUSIVE
    scylla-phases-report --plan_ab --noise_from aa1.json aa2.json \
        --difference 5% --cluster_hours 3 --usd_per_cluster_hour 60
    scylla-phases-report runs/*.json --history history.csv
    python -m perfkit_plugins.tools.report_command results.json

Reads results files PKB wrote for scylla_phases runs (JSON lines, with
collapsed labels or not; a file may hold several runs). Four modes:

* tables (the default): per run the throughput, latency, fixed-rate ladder
  and quiesce tables and, for several runs, every figure they share side
  by side with ratios to the first; PNG plots (throughput and p99 over
  time per phase, latency against rate, quiesce timeline) into
  --plots_dir. Tables: core/results/results_tables.py; plots:
  report_plots.py.
* A/B (`--vs`): the files before --vs are arm A, after it arm B; per step,
  op type and figure, B/A with the interval its verdict rests on and a
  verdict (BETTER, WORSE, EQUIVALENT, INCONCLUSIVE) across all rows, a
  claim sentence per row, optionally the rows as JSON (--json) and a
  forest plot (--forest, else ab_forest.png in --plots_dir):
  core/results/ab_comparison.py. With one cluster per arm, --noise_from
  gives the noise between clusters an A/A experiment measured; --fail_on
  makes verdicts an exit status for pipelines.
* planning (`--plan_ab`): clusters per arm, cost and run order for an A/B
  comparison, from the noise measured on an A/A experiment's runs
  (--noise_from) or from noise assumed and said to be (--assume_cv):
  core/results/ab_plan.py.
* history (`--history FILE.csv`): one CSV row per run, sorted by time, for
  change-point tools: core/results/history.py.

Exits with 1 when a file cannot be read or written or the arms cannot be
compared (the reason on stderr), 2 on a bad command line, 3 when a row of
an A/B comparison has a verdict --fail_on names (the rows on stderr).
"""

import argparse
import json
import math
import os
import sys

from perfkit_plugins.core.results import ab_comparison
from perfkit_plugins.core.results import ab_plan
from perfkit_plugins.core.results import history
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import comparison
from perfkit_plugins.tools import report_plots

DEFAULT_PLOTS_DIR = 'scylla_phases_report'
# Exit status of an A/B comparison with a verdict --fail_on names.
EXIT_VERDICT = 3
_VERDICTS = (
    comparison.BETTER,
    comparison.WORSE,
    comparison.EQUIVALENT,
    comparison.INCONCLUSIVE,
)


def Fraction(text):
  """A relative amount: '0.05' (a fraction) or '5%' (a percentage).

  A bare number is a fraction and must lie within (-1, 1): '5' is refused
  rather than guessed to mean 5%.

  Raises:
    argparse.ArgumentTypeError: anything else.
  """
  percent = text.strip().endswith('%')
  try:
    value = float(text.strip().rstrip('%'))
  except ValueError:
    value = float('nan')
  if percent:
    value /= 100
  if not -1 < value < 1:
    raise argparse.ArgumentTypeError(
        f'{text!r}: give a fraction such as 0.05 or a percentage such as 5%'
    )
  return value


def _Verdicts(text):
  """An argparse type: verdicts separated by commas, e.g. WORSE,INCONCLUSIVE.

  Raises:
    argparse.ArgumentTypeError: an empty list or a verdict not known.
  """
  verdicts = [v.strip().upper() for v in text.split(',') if v.strip()]
  unknown = [v for v in verdicts if v not in _VERDICTS]
  if not verdicts or unknown:
    raise argparse.ArgumentTypeError(
        f'{text!r}: give verdicts from {", ".join(_VERDICTS)}, separated by'
        ' commas (e.g. WORSE,INCONCLUSIVE)'
    )
  return tuple(dict.fromkeys(verdicts))


def _Margin(text):
  value = Fraction(text)
  if value <= 0:
    raise argparse.ArgumentTypeError(f'{text!r}: a margin must be above 0')
  return value


def _AssumedCv(text):
  """'BETWEEN,WITHIN' (fractions or percentages) -> (between, within)."""
  parts = text.split(',')
  if len(parts) != 2:
    raise argparse.ArgumentTypeError(
        f'{text!r}: give BETWEEN,WITHIN, e.g. 2%,1.5% (noise between clusters'
        ' and between repeats on one cluster)'
    )
  between, within = (Fraction(part) for part in parts)
  if min(between, within) < 0:
    raise argparse.ArgumentTypeError(f'{text!r}: noise cannot be negative')
  return between, within


def _Positive(kind):
  """An argparse type: a finite number above 0 of `kind` (int, float)."""

  def Parse(text):
    try:
      value = kind(text)
    except ValueError:
      value = 0
    if not math.isfinite(value) or value <= 0:
      raise argparse.ArgumentTypeError(f'{text!r} is not a positive number')
    return value

  return Parse


def _Parser():
  """The command line: results files, and the options of each mode."""
  parser = argparse.ArgumentParser(
      prog='scylla-phases-report',
      description=(
          'Tables and plots of scylla_phases runs from the results files PKB'
          ' wrote (perfkitbenchmarker_results.json); A/B verdicts (--vs),'
          ' the plan of an A/B comparison (--plan_ab) and a history CSV'
          ' (--history).'
      ),
  )
  parser.add_argument(
      'results',
      nargs='*',
      help=(
          'PKB results files (a file may hold several runs); with --vs, the'
          ' runs of arm A'
      ),
  )
  parser.add_argument(
      '--plots_dir',
      default=DEFAULT_PLOTS_DIR,
      help='directory for the PNG plots (default: %(default)s)',
  )
  parser.add_argument(
      '--no_plots', action='store_true', help='print the tables only'
  )
  ab = parser.add_argument_group('A/B comparison')
  ab.add_argument(
      '--vs',
      nargs='+',
      metavar='B.json',
      help='results files of arm B: compare B against the files before --vs',
  )
  ab.add_argument(
      '--margin',
      type=_Margin,
      help=(
          'equivalence margin for every figure, a fraction (0.03) or a'
          ' percentage (3%%); default 2%% for op rates and 5%% for latency'
          ' percentiles'
      ),
  )
  ab.add_argument(
      '--json', metavar='FILE', help='write the compared rows as JSON'
  )
  ab.add_argument(
      '--fail_on',
      type=_Verdicts,
      metavar='VERDICTS',
      help=(
          f'exit with {EXIT_VERDICT} when a row has one of these verdicts, e.g.'
          ' WORSE or WORSE,INCONCLUSIVE (rows without a verdict count as'
          ' INCONCLUSIVE); WORSE counts the rows WORSE at a family-wise error'
          f' rate of {ab_comparison.FWER * 100:.0f}%% (Holm), a step whose'
          ' fixed rate B missed on more of its clusters than A, and a figure A'
          ' has and B lost or publishes as 0; the report is printed and'
          ' written first'
      ),
  )
  ab.add_argument(
      '--forest',
      metavar='FILE.png',
      help=(
          'write the forest plot here (default: ab_forest.png in --plots_dir'
          ' unless --no_plots)'
      ),
  )
  plan = parser.add_argument_group('planning an A/B comparison')
  plan.add_argument(
      '--plan_ab',
      action='store_true',
      help=(
          'print the clusters per arm, cost and run order an A/B comparison'
          ' needs, from --noise_from or --assume_cv'
      ),
  )
  plan.add_argument(
      '--noise_from',
      nargs='+',
      metavar='AA.json',
      help=(
          'results files of an A/A experiment (one configuration, two'
          ' clusters or more): the noise to plan from; with --vs, the noise'
          ' between clusters of rows where each arm ran on one cluster'
      ),
  )
  plan.add_argument(
      '--assume_cv',
      type=_AssumedCv,
      metavar='BETWEEN,WITHIN',
      help=(
          'plan from assumed noise instead (e.g. 2%%,1.5%%: between clusters,'
          ' between repeats on one cluster); the plan says it is assumed'
      ),
  )
  plan.add_argument(
      '--figures',
      type=_Positive(int),
      help=(
          'with --assume_cv: the figures the report will compare, each'
          f' planned at 5%% / FIGURES (default: {ab_plan.DEFAULT_FIGURES},'
          ' those of a run of the default phases)'
      ),
  )
  plan.add_argument(
      '--difference',
      type=Fraction,
      help=(
          'relative difference to detect, e.g. 5%% or 0.05 (a fall:'
          ' --difference=-5%%)'
      ),
  )
  plan.add_argument(
      '--repeats',
      type=_Positive(int),
      help='repeats per cluster (default: those of the noise runs, else 1)',
  )
  plan.add_argument(
      '--cluster_hours',
      type=_Positive(float),
      help='hours one cluster runs: provisioning, load and every repeat',
  )
  plan.add_argument(
      '--usd_per_cluster_hour',
      type=_Positive(float),
      help=(
          'price of one cluster-hour, servers and loaders (default: the'
          " samples' servers-only scylla_price_usd_per_hour)"
      ),
  )
  parser.add_argument(
      '--history',
      metavar='FILE.csv',
      help=(
          'write one CSV row per run (time first, sorted by time) for'
          ' change-point tools, instead of the tables'
      ),
  )
  return parser


_FOREST_TITLE = (
    'B/A per figure (the interval each verdict rests on; shaded: equivalence'
    ' margin)'
)
_PLAN_ONLY = ('assume_cv', 'figures', 'difference', 'cluster_hours')
_AB_ONLY = ('json', 'forest', 'fail_on')


def _Given(args, name):
  return getattr(args, name) not in (None, False)


def _Check(parser, args):
  """Refuses options that do not go together (parser.error exits 2)."""
  if args.plan_ab:
    if args.results or args.vs or args.history:
      parser.error('--plan_ab reads --noise_from, not results files or --vs')
    if args.difference is None:
      parser.error('--plan_ab needs --difference, e.g. --difference 5%')
    if args.difference == 0:
      parser.error('--difference must not be 0')
    if args.noise_from and args.assume_cv:
      parser.error('give --noise_from or --assume_cv, not both')
    if args.figures and not args.assume_cv:
      parser.error(
          '--figures goes with --assume_cv: a plan from --noise_from counts'
          ' the figures its runs publish'
      )
    if not args.noise_from and not args.assume_cv:
      parser.error(
          '--plan_ab needs measured noise: --noise_from the results files of'
          ' an A/A experiment (one configuration on two clusters or more);'
          ' --assume_cv BETWEEN,WITHIN plans from an assumption instead,'
          ' labelled as one'
      )
    return
  for name in _PLAN_ONLY + ('repeats', 'usd_per_cluster_hour'):
    if _Given(args, name):
      parser.error(f'--{name} goes with --plan_ab')
  if not args.results:
    parser.error('give one or more results files')
  if args.history and args.vs:
    parser.error('--history writes every run given; it does not take --vs')
  if not args.vs:
    if args.noise_from:
      parser.error('--noise_from goes with --vs or --plan_ab')
    for name in _AB_ONLY + ('margin',):
      if _Given(args, name):
        parser.error(f'--{name} goes with --vs')


def ParseArgs(argv):
  """The command line's results files and options (argparse.Namespace)."""
  parser = _Parser()
  args = parser.parse_args(argv)
  _Check(parser, args)
  return args


def _Read(path):
  try:
    with open(path) as f:
      return f.read()
  except OSError as e:
    raise results_tables.ResultsError(f'{path}: {e.strerror}') from e


def _Write(path, text):
  try:
    directory = os.path.dirname(path)
    if directory:
      os.makedirs(directory, exist_ok=True)
    with open(path, 'w') as f:
      f.write(text)
  except OSError as e:
    raise results_tables.ResultsError(f'{path}: {e.strerror}') from e


def _Load(paths):
  return results_tables.LoadRuns([(path, _Read(path)) for path in paths])


def _Tables(args):
  runs = _Load(args.results)
  print(results_tables.RenderReport(runs))
  if not args.no_plots:
    paths = report_plots.WritePlots(runs, args.plots_dir)
    print('\nPlots:\n' + '\n'.join(f'  {p}' for p in paths))


def _Compare(args):
  """Arm A (the positional files) against arm B (--vs).

  Returns:
    What --fail_on names: claims of the rows with its verdicts; for WORSE,
    the regressions (WORSE at a family-wise error rate,
    ab_comparison.Regressions, not every WORSE of the table) and what B
    lost that A had (report.lost), which no row shows.
  """
  noise_files = tuple(args.noise_from or ())
  report = ab_comparison.Compare(
      _Load(args.results),
      _Load(args.vs),
      args.margin,
      tuple(args.results),
      tuple(args.vs),
      _Load(noise_files) if noise_files else (),
      noise_files,
  )
  print(ab_comparison.RenderComparison(report))
  written = []
  if args.json:
    _Write(args.json, json.dumps(ab_comparison.ReportJson(report), indent=1))
    written.append(f'JSON: {args.json}')
  forest = args.forest
  if forest is None and not args.no_plots:
    forest = os.path.join(args.plots_dir, report_plots.FOREST_FILE)
  if forest:
    try:
      directory = os.path.dirname(forest)
      if directory:
        os.makedirs(directory, exist_ok=True)
      report_plots.PlotForest(report.rows, forest, _FOREST_TITLE)
    except OSError as e:
      raise results_tables.ResultsError(f'{forest}: {e.strerror}') from e
    written.append(f'Forest plot: {forest}')
  if written:
    print('\n' + '\n'.join(written))
  fail_on = set(args.fail_on or ()) - {comparison.WORSE}
  failing = [
      ab_comparison.Claim(c) for c in report.rows if c.row.verdict in fail_on
  ]
  if comparison.WORSE in (args.fail_on or ()):
    failing += [
        ab_comparison.Claim(c) for c in ab_comparison.Regressions(report)
    ]
    failing += [f'{lost}: B is worse (not compared)' for lost in report.lost]
  return failing


def _Plan(args):
  """Clusters, cost and order of an A/B comparison."""
  if args.assume_cv:
    between, within = args.assume_cv
    plan = ab_plan.AssumedNoise(
        between,
        within,
        args.difference,
        args.repeats or 1,
        args.margin,
        args.cluster_hours,
        args.usd_per_cluster_hour,
        args.figures or ab_plan.DEFAULT_FIGURES,
    )
  else:
    plan = ab_plan.PlanFromRuns(
        _Load(args.noise_from),
        args.difference,
        args.repeats,
        args.margin,
        tuple(args.noise_from),
        args.cluster_hours,
        args.usd_per_cluster_hour,
    )
  print(ab_plan.RenderPlan(plan))


def _History(args):
  runs = _Load(args.results)
  text = history.HistoryCsv(runs)
  _Write(args.history, text)
  columns = text.split('\n', 1)[0].count(',') + 1
  print(
      f'History: {len(runs)} run{"s" if len(runs) > 1 else ""}, {columns}'
      f' columns -> {args.history}'
  )


def Main(argv=None):
  """Prints the report (or comparison, plan, history) and writes its files.

  Returns:
    0; 1 when a file cannot be read or written or the arms cannot be
    compared (the reason is on stderr); EXIT_VERDICT when a compared row
    has a verdict --fail_on names (the rows are on stderr). A bad command
    line exits with 2.
  """
  args = ParseArgs(sys.argv[1:] if argv is None else argv)
  failing = []
  try:
    if args.plan_ab:
      _Plan(args)
    elif args.history:
      _History(args)
    elif args.vs:
      failing = _Compare(args)
    else:
      _Tables(args)
  except (results_tables.ResultsError, ab_comparison.ComparisonError) as e:
    print(f'scylla-phases-report: {e}', file=sys.stderr)
    return 1
  if failing:
    print(
        f'scylla-phases-report: {len(failing)} row(s) with a verdict'
        f' --fail_on={",".join(args.fail_on)} names:\n'
        + '\n'.join(f'  {claim}' for claim in failing),
        file=sys.stderr,
    )
    return EXIT_VERDICT
  return 0


if __name__ == '__main__':
  sys.exit(Main())
