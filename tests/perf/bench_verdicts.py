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

"""Rates of the A/B verdicts over many seeds, through the real command.

Each seed writes one results file per cluster (4 clusters per arm, one run
each, 5 steps with an op rate and a p99 latency: 10 figures) and runs
`scylla-phases-report A --vs B --fail_on=WORSE --json` (report_command.Main)
on them. Every figure of a cluster is its base x the truth x a lognormal
offset of 2% (half shared by the cluster's figures, half the figure's own)
x a drift in time; each figure is measured over half an hour from 5 minutes
after its run's start (an hour in the staggered design). Per design of run order, with no true difference: the
share of rows called WORSE and of pipelines the gate fails (exit 3); with
B 10% worse on every figure: the share of rows found WORSE (power) and of
rows called BETTER (the wrong direction); with B 10% better on half the
figures and unchanged elsewhere: the share of unchanged rows called WORSE
and of pipelines failed.

Run: python tests/perf/bench_verdicts.py [--seeds 100]
"""

import argparse
import contextlib
import io
import json
import math
import os
import tempfile

import numpy as np

from perfkit_plugins.core.stats import experiment
from perfkit_plugins.tools import report_command

CLUSTERS = 4
STEPS = 5
NOISE = 0.02
DRIFT_PER_HOUR = 0.02
_HOUR_S = 3600.0
_EPOCH = 1_790_000_000


def _Starts(order, rng):
  """Start of each of A's and B's clusters, seconds after _EPOCH."""
  slots = list(range(2 * CLUSTERS))
  if order == 'a_b_b_a':
    arms = experiment.InterleavedOrder(CLUSTERS)
    slots = [i for i, x in enumerate(arms) if x == 'A'] + [
        i for i, x in enumerate(arms) if x == 'B'
    ]
  elif order == 'random':
    slots = rng.permutation(2 * CLUSTERS).tolist()
  elif order == 'together':
    return [60.0 * m for m in (0, 1, 2, 3, 5, 6, 7, 8)]
  elif order == 'staggered':
    return [300.0 * i for i in range(2 * CLUSTERS)]
  elif order == 'seconds':
    return [0.1 * i for i in range(CLUSTERS)] + [
        1 + 0.1 * i for i in range(CLUSTERS)
    ]
  return [_HOUR_S * slot for slot in slots]


def _Lines(cluster, start, truths, rng, drift, window_s):
  """One run's samples: each step's op rate and p99, moved by `truths`."""
  shared = rng.normal(0, NOISE / math.sqrt(2))
  lines = []
  for step in range(STEPS):
    for metric, base, kind in (
        ('op_rate', 1e4, ''),
        ('latency_p99', 5.0, 'st'),
    ):
      truth = truths[2 * step + (kind == 'st')]
      factor = 1 / truth if kind else truth
      value = (
          base
          * factor
          * math.exp(
              shared
              + rng.normal(0, NOISE / math.sqrt(2))
              + (drift if not kind else -drift) * start / _HOUR_S
          )
      )
      labels = {
          'scylla_step': f'step{step}',
          'scylla_op': 'READ',
          'scylla_phase': f'step{step}',
          'scylla_cluster': cluster,
          'scylla_run_start': _EPOCH + start,
          'scylla_repeat': 1,
          'scylla_repeats': 1,
          'scylla_window_start': _EPOCH + start + 300,
          'scylla_window_end': _EPOCH + start + 300 + window_s,
      }
      if kind:
        labels['scylla_latency_kind'] = kind
      lines.append(
          json.dumps({
              'metric': metric,
              'value': value,
              'unit': 'ms' if kind else 'op/s',
              'timestamp': _EPOCH + start + 600,
              'test': 'scylla_phases',
              'run_uri': cluster,
              'labels': ','.join(f'|{k}:{v}|' for k, v in labels.items()),
          })
      )
  return lines


def _Run(directory, order, truths, rng, drift):
  """One A/B comparison: (rows' verdicts, whether the gate failed)."""
  starts = _Starts(order, rng)
  window_s = _HOUR_S if order == 'staggered' else _HOUR_S / 2
  paths = []
  for index, start in enumerate(starts):
    arm = 'ab'[index >= CLUSTERS]
    truth = truths if arm == 'b' else [1.0] * len(truths)
    path = os.path.join(directory, f'{arm}{index}.json')
    with open(path, 'w') as f:
      f.write(
          '\n'.join(_Lines(f'{arm}{index}', start, truth, rng, drift, window_s))
      )
    paths.append(path)
  out = os.path.join(directory, 'ab.json')
  argv = paths[:CLUSTERS] + ['--vs'] + paths[CLUSTERS:]
  argv += ['--no_plots', '--fail_on=WORSE', '--json', out]
  with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(
      io.StringIO()
  ):
    code = report_command.Main(argv)
  with open(out) as f:
    rows = json.load(f)['rows']
  return [r['verdict'] for r in rows], code == report_command.EXIT_VERDICT


def _Rates(directory, order, drift, seeds):
  """The row and pipeline rates of one design (module docstring)."""
  rng = np.random.default_rng(sum(map(ord, order)) + int(drift * 1000))
  rows = 2 * STEPS
  same = [
      _Run(directory, order, [1.0] * rows, rng, drift) for _ in range(seeds)
  ]
  worse = [
      _Run(directory, order, [1 / 1.1] * rows, rng, drift) for _ in range(seeds)
  ]
  half = [1.1] * STEPS + [1.0] * STEPS
  better = [_Run(directory, order, half, rng, drift) for _ in range(seeds)]

  def Share(runs, verdict, part=slice(None)):
    verdicts = [v for run, _ in runs for v in run[part]]
    return sum(v == verdict for v in verdicts) / len(verdicts)

  return (
      Share(same, 'WORSE'),
      sum(gate for _, gate in same) / seeds,
      Share(worse, 'WORSE'),
      Share(worse, 'BETTER'),
      Share(better, 'WORSE', slice(STEPS, None)),
      sum(gate for _, gate in better) / seeds,
  )


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
  parser.add_argument('--seeds', type=int, default=100)
  args = parser.parse_args()
  designs = (
      ('hourly, A B B A', 'a_b_b_a', 0.0),
      ('launched together (minutes 0-3, 5-8)', 'together', DRIFT_PER_HOUR),
      ("A's in one second, B's in the next", 'seconds', DRIFT_PER_HOUR),
      (
          'staggered 5 min apart, each measured 1 h',
          'staggered',
          DRIFT_PER_HOUR,
      ),
      ('random order, hourly', 'random', DRIFT_PER_HOUR),
      ('A B B A, 2%/h drift', 'a_b_b_a', DRIFT_PER_HOUR),
      ('all A first, 2%/h drift', 'a_first', DRIFT_PER_HOUR),
  )
  print(
      f'{args.seeds} seeds per cell; 4 clusters per arm, {NOISE:.0%} noise, 10'
      ' figures\n'
      '| design | same: WORSE rows | same: gate fails | 10% worse: WORSE'
      ' rows | 10% worse: BETTER rows | half better: WORSE rows | half'
      ' better: gate fails |\n|---|---|---|---|---|---|---|'
  )
  with tempfile.TemporaryDirectory() as directory:
    for name, order, drift in designs:
      rates = _Rates(directory, order, drift, args.seeds)
      print(f'| {name} | ' + ' | '.join(f'{r:.1%}' for r in rates) + ' |')


if __name__ == '__main__':
  main()
