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

"""Times parsing a long cassandra-stress text output.

Builds a 4 h output from a real one (tests/testdata/lab): its settings echo
and header, its interval lines repeated with `total ops` and `time` re-timed
(loader_outputs.Row: the tool's own row format), its Results block;
then times ParseStressOutput on it, at 1 s and 10 s intervals, and
CommonWindowRate over 30 such loaders. Prints figures; asserts nothing. Not
collected by pytest.

Run: /opt/pkbvenv/bin/python tests/perf/bench_parse_interval_log.py [--hours 4]
"""

import argparse
import itertools
import pathlib
import time

from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.testing import loader_outputs

_FIXTURE = (
    pathlib.Path(__file__).parents[1]
    / 'testdata'
    / 'lab'
    / 'cs-read-30s-gaussian-t50.txt'
)


def _LongOutput(hours, interval_s):
  text = _FIXTURE.read_text()
  head_end = text.index('\n', text.index('type       total ops')) + 1
  results = text.index('\n\nResults:')
  lines = stress_output.ParseIntervalLines(text)
  rows = []
  total = 0
  count = int(hours * 3600 / interval_s)
  for i, line in zip(range(count), itertools.cycle(lines)):
    total += int(line.op_rate * interval_s)
    rows.append(
        loader_outputs.Row(line, total, line.op_rate, (i + 1) * interval_s)
    )
  return text[:head_end] + '\n'.join(rows) + text[results:], count


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--hours', type=float, default=4.0)
  parser.add_argument('--loaders', type=int, default=30)
  args = parser.parse_args()
  for interval_s in (1.0, 10.0):
    text, count = _LongOutput(args.hours, interval_s)
    started = time.perf_counter()
    output = stress_output.ParseStressOutput(text)
    seconds = time.perf_counter() - started
    print(
        '%.1f h at %.0f s intervals: %d of %d lines (%.1f MiB) parsed in'
        ' %.3f s, %.0f interval lines/s'
        % (
            args.hours,
            interval_s,
            len(output.intervals),
            count,
            len(text) / 2**20,
            seconds,
            count / seconds,
        )
    )
    timelines = {
        'loader-%02d'
        % i: stress_output.LoaderTimeline(1_795_299_000.0 + i, output.intervals)
        for i in range(args.loaders)
    }
    started = time.perf_counter()
    rate = stress_output.CommonWindowRate(timelines)
    print(
        '  CommonWindowRate over %d such loaders: %.3f s (%.0f op/s over'
        ' %.0f s)'
        % (
            args.loaders,
            time.perf_counter() - started,
            rate.op_rate,
            rate.duration_s,
        )
    )


if __name__ == '__main__':
  main()
