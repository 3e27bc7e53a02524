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
    python -m perfkit_plugins.tools.report_command results.json

Reads one or more results files PKB wrote for scylla_phases runs (JSON
lines, with collapsed labels or not), prints per run the throughput,
latency, fixed-rate ladder and quiesce tables and, for several runs, every
figure they share side by side with ratios to the first; writes PNG plots
(throughput and p99 over time per phase, latency against rate, quiesce
timeline) into --plots_dir. Exits with 1 when a file cannot be read. The
tables are core/results/results_tables.py, the plots report_plots.py.
"""

import argparse
import sys

from perfkit_plugins.core.results import results_tables
from perfkit_plugins.tools import report_plots

DEFAULT_PLOTS_DIR = 'scylla_phases_report'


def ParseArgs(argv):
  """The command line's results files and options (argparse.Namespace)."""
  parser = argparse.ArgumentParser(
      prog='scylla-phases-report',
      description=(
          'Tables and plots of scylla_phases runs from the results files PKB'
          ' wrote (perfkitbenchmarker_results.json).'
      ),
  )
  parser.add_argument(
      'results', nargs='+', help='PKB results files, one per run to compare'
  )
  parser.add_argument(
      '--plots_dir',
      default=DEFAULT_PLOTS_DIR,
      help='directory for the PNG plots (default: %(default)s)',
  )
  parser.add_argument(
      '--no_plots', action='store_true', help='print the tables only'
  )
  return parser.parse_args(argv)


def _Read(path):
  try:
    with open(path) as f:
      return f.read()
  except OSError as e:
    raise results_tables.ResultsError(f'{path}: {e.strerror}') from e


def Main(argv=None):
  """Prints the report and writes the plots.

  Returns:
    0, or 1 when a results file cannot be read (the reason is on stderr).
  """
  args = ParseArgs(sys.argv[1:] if argv is None else argv)
  try:
    runs = results_tables.LoadRuns(
        [(path, _Read(path)) for path in args.results]
    )
  except results_tables.ResultsError as e:
    print(f'scylla-phases-report: {e}', file=sys.stderr)
    return 1
  print(results_tables.RenderReport(runs))
  if not args.no_plots:
    paths = report_plots.WritePlots(runs, args.plots_dir)
    print('\nPlots:\n' + '\n'.join(f'  {p}' for p in paths))
  return 0


if __name__ == '__main__':
  sys.exit(Main())
