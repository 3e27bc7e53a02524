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

"""Prints the coverage tables of docs/measurement.md ("Within a run").

The series of tests/core/stats/test_interval_coverage.py (its functions,
not copies), more of them per cell and a lag-1 of 0.9 too, with the
minimums of intervals.py lifted to show what they keep out. Each cell is
the share of published 95% intervals (both bounds finite) that cover the
truth, bold where the length rule publishes them; for the percentiles, in
brackets, the share of intervals published (the others have a bound beyond
the histogram and say so). A cell whose intervals are never published
shows '-'. The test checks the published cells with fewer draws in CI.

Run: .venv/bin/python tests/perf/measure_interval_coverage.py [--trials 2000]
"""

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'core' / 'stats'))

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from perfkit_plugins.core.stats import intervals
import test_interval_coverage as coverage

# pylint: enable=g-import-not-at-top,wrong-import-position,g-bad-import-order

CORRELATIONS = coverage.CORRELATIONS + (0.9,)
# The minimums as intervals.py sets them, read before they are lifted.
MEAN_MINIMUM = intervals.MIN_SERIES_POINTS
PERCENTILE_MINIMUM = {
    q: intervals.MinPercentileIntervals(q) for q in coverage.PERCENTILES
}


def _Cell(found, truth, published_by_length, with_share):
  """'**93%** (74%)': coverage of the published, bold if the rule keeps it."""
  share = coverage.Coverage(found, truth)
  text = '-' if share is None else f'{share:.0%}'
  if published_by_length and share is not None:
    text = f'**{text}**'
  if with_share:
    published = sum(map(coverage.Published, found)) / len(found)
    text += f' ({published:.0%})'
  return text


def _Table(title, cells):
  """A Markdown table: one row per length, one column per lag-1."""
  lines = [
      f'| {title}, intervals | lag-1 '
      + ' | '.join(f'{phi:g}' for phi in CORRELATIONS)
      + ' |',
      '|---' * (len(CORRELATIONS) + 1) + '|',
  ]
  for length in coverage.LENGTHS:
    lines.append(
        f'| {length} | '
        + ' | '.join(cells[length, phi] for phi in CORRELATIONS)
        + ' |'
    )
  return '\n'.join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  parser.add_argument('--trials', type=int, default=2000)
  args = parser.parse_args()
  intervals.MIN_SERIES_POINTS = 1
  intervals.TAIL_INTERVALS_PER_DECADE = 0
  means = {}
  percentiles = {q: {} for q in coverage.PERCENTILES}
  for phi in CORRELATIONS:
    for length in coverage.LENGTHS:
      found, truth = coverage.SimulatedMeans(length, phi, args.trials)
      means[length, phi] = _Cell(found, truth, length >= MEAN_MINIMUM, False)
    simulated = coverage.SimulatedPercentiles(
        phi, coverage.LENGTHS, args.trials
    )
    for (length, q), found in simulated.items():
      percentiles[q][length, phi] = _Cell(
          found,
          coverage.TrueValue(q),
          length >= PERCENTILE_MINIMUM[q],
          True,
      )
  print(_Table('op rate', means))
  for q, cells in percentiles.items():
    print()
    print(_Table(f'p{q * 100:g}', cells))


if __name__ == '__main__':
  main()
