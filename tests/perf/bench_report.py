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

"""Times the A/B report and the history on 30 runs of 14 steps.

The runs are the benchmark's own run fixture
(tests/testdata/results/scylla_phases_fake_run.json: 14 steps, PKB's
collapsed labels with every metadata key, time series included) copied into
30 runs on 30 clusters, 15 per arm, each with --repeats samples of every
measured step and their aggregate, the keys of repeated runs
(scylla_cluster, scylla_run_start, scylla_repeat, scylla_repeats) and a
within-run interval (scylla_ci_*) on every op rate and percentile, every
value moved by a lognormal noise. Each run is one file, as PKB writes one
per run. The script prints the files' size, then the seconds the A/B
report (15 files --vs 15 files, with --json and the forest plot) and the
history CSV (all 30) take, median of --runs.

Run: python tests/perf/bench_report.py [--runs 3] [--repeats 3]
"""

import argparse
import contextlib
import io
import json
import math
import os
import pathlib
import random
import statistics
import tempfile
import time

from perfkit_plugins.core.results import results_tables
from perfkit_plugins.tools import report_command

FIXTURE = (
    pathlib.Path(__file__).resolve().parent.parent
    / 'testdata'
    / 'results'
    / 'scylla_phases_fake_run.json'
)
RUNS = 30
# Steps the benchmark runs once per run (not repeated).
_ONCE = ('schema', 'populate', 'quiesce')
_WITH_INTERVAL = (
    'op_rate',
    'latency_p50',
    'latency_p95',
    'latency_p99',
    'latency_p999',
)


def _Labels(metadata):
  return ','.join(f'|{k}:{v}|' for k, v in metadata.items())


def _RunLines(samples, cluster, start, repeats, rng):
  """One run's JSON lines from the fixture's samples."""
  offset = math.exp(rng.gauss(0, 0.02))
  lines = []
  for sample in samples:
    metadata = results_tables.ParseLabels(sample['labels'])
    step = metadata['scylla_step']
    copies = [1] if step in _ONCE else list(range(1, repeats + 1)) + [0]
    if metadata.get('values'):
      copies = [c for c in copies if c]  # a series per repeat, no aggregate
    for repeat in copies:
      value = sample['value']
      if sample['metric'] in _WITH_INTERVAL:
        value *= offset * math.exp(rng.gauss(0, 0.01))
      extra = {
          'scylla_cluster': cluster,
          'scylla_run_start': start,
          'scylla_repeat': repeat,
          'scylla_repeats': repeats,
      }
      if sample['metric'] in _WITH_INTERVAL:
        extra.update(
            scylla_ci_low=value * 0.98,
            scylla_ci_high=value * 1.02,
            scylla_ci_level=0.95,
            scylla_ci_method='batch_means' if repeat else 't_repeats',
            scylla_ci_covers='within_run' if repeat else 'within_cluster',
            scylla_ci_units=30,
            scylla_ci_se_log=0.01,
            scylla_ci_dof=29,
        )
      lines.append(
          json.dumps(
              dict(
                  sample,
                  value=value,
                  run_uri=cluster,
                  timestamp=start + 3600,
                  labels=_Labels(dict(metadata, **extra)),
              )
          )
      )
  return lines


def _WriteRuns(directory, repeats):
  """30 files, one run each; returns their paths (A's 15, then B's)."""
  samples = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
  rng = random.Random(0)
  paths = []
  for index in range(RUNS):
    cluster = f'bench-{index:02d}'
    lines = _RunLines(
        samples, cluster, 1_790_000_000 + index * 7200, repeats, rng
    )
    path = os.path.join(directory, f'{cluster}.json')
    with open(path, 'w') as f:
      f.write('\n'.join(lines) + '\n')
    paths.append(path)
  return paths


def _Timed(argv):
  """Seconds report_command.Main takes on argv (its output discarded)."""
  start = time.perf_counter()
  with contextlib.redirect_stdout(io.StringIO()):
    code = report_command.Main(argv)
  elapsed = time.perf_counter() - start
  assert code == 0, argv
  return elapsed


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
  parser.add_argument('--runs', type=int, default=3)
  parser.add_argument('--repeats', type=int, default=3)
  args = parser.parse_args()
  with tempfile.TemporaryDirectory() as directory:
    paths = _WriteRuns(directory, args.repeats)
    size = sum(os.path.getsize(p) for p in paths)
    lines = sum(1 for p in paths for _ in open(p))
    print(
        f'{RUNS} runs x 14 steps x {args.repeats} repeats: {len(paths)} files,'
        f' {lines:,} samples, {size / 2**20:.0f} MiB'
    )
    half = RUNS // 2
    out = os.path.join(directory, 'out')
    ab = [
        *paths[:half],
        '--vs',
        *paths[half:],
        '--json',
        os.path.join(out, 'ab.json'),
        '--forest',
        os.path.join(out, 'forest.png'),
    ]
    loads, ab_times, history_times = [], [], []
    for _ in range(args.runs):
      start = time.perf_counter()
      results_tables.LoadRuns([(p, open(p).read()) for p in paths])
      loads.append(time.perf_counter() - start)
      ab_times.append(_Timed(ab))
      history_times.append(
          _Timed([*paths, '--history', os.path.join(out, 'history.csv')])
      )
  for name, times in (
      ('read all 30 files (LoadRuns)', loads),
      ('A/B report, --json and forest plot', ab_times),
      ('history CSV', history_times),
  ):
    print(f'{name}: {statistics.median(times):.2f} s (median of {args.runs})')


if __name__ == '__main__':
  main()
