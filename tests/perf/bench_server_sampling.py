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

"""What sampling the servers costs a step: its op rate with and without.

Makes a test bed (perfkit_plugins/testing/testbed.py) of one Apache
Cassandra server and two loaders, and runs stock pkb.py on it, every
stage, --runs_per_arm times per arm in the order A B B A ... (A:
--scylla_sample_servers, B: --noscylla_sample_servers): a populate of 20,000 keys, then a mixed
step at the loaders' full rate for --seconds. The server shares the host's
CPUs with the loaders, so any CPU the sampler takes shows in the op rate.
Prints each run's mixed op rate, and the mean of each arm with the
difference between them.

Run (root, a PKB checkout, the plugin installed, the cassandra-stress
tarball; four runs of 60 s take about 10 minutes):
  python tests/perf/bench_server_sampling.py [--runs_per_arm 2] \
      [--seconds 60]
"""

import argparse
import json
import pathlib
import statistics
import sys
import tempfile

from perfkit_plugins.core.stats import experiment
from perfkit_plugins.testing import testbed

_FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_replication_factor': 1,
    'scylla_consistency_level': 'ONE',
    'scylla_num_keys': 20000,
    'scylla_populate_threads': 2,
    'scylla_threads': 8,
    'scylla_phases': 'populate,mixed',
    'scylla_hdr_interval_s': 1,
    'scylla_loader_heap_gb': 0.25,
}


def _MixedRate(run_dir):
  """The total op rate of the run's mixed step, from its results."""
  results = pathlib.Path(run_dir) / 'perfkitbenchmarker_results.json'
  for line in results.read_text().splitlines():
    sample = json.loads(line)
    labels = sample['labels']
    if (
        sample['metric'] == 'op_rate'
        and '|scylla_step:mixed|' in labels
        and '|scylla_op:total|' in labels
    ):
      return sample['value']
  raise ValueError(f'{results}: no mixed total op rate')


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--runs_per_arm', type=int, default=2)
  parser.add_argument('--seconds', type=int, default=60)
  args = parser.parse_args(argv)
  problem = testbed.Problem()
  if problem:
    sys.exit(f'bench_server_sampling: {problem}')
  machines = testbed.SERVERS[:1] + testbed.LOADERS
  rates = {'A': [], 'B': []}
  with tempfile.TemporaryDirectory(dir='/var/tmp') as work:
    work = pathlib.Path(work)
    with testbed.MirroredTestbed(machines, work / 'pkb') as bed:
      order = experiment.InterleavedOrder(args.runs_per_arm)
      for index, arm in enumerate(order):
        flags = _FLAGS | {
            'scylla_durations': f'mixed={args.seconds}',
            'scylla_sample_servers': arm == 'A',
        }
        config = bed.Config(
            work / f'run{index}.yaml',
            testbed.SERVERS[:1],
            testbed.LOADERS,
            flags,
        )
        uri = f'sampling{index}'
        result = bed.Pkb(config, uri)
        if result.returncode:
          sys.exit(result.stderr[-3000:])
        rate = _MixedRate(bed.RunDir(uri))
        rates[arm].append(rate)
        print(f'  run {index + 1} ({arm}): mixed {rate:,.0f} op/s', flush=True)
  a, b = (statistics.mean(rates[arm]) for arm in 'AB')
  print(
      f'sampled (A): {a:,.0f} op/s over {len(rates["A"])} runs; not sampled'
      f' (B): {b:,.0f} op/s over {len(rates["B"])} runs; A/B - 1 ='
      f' {a / b - 1:+.1%}'
  )


if __name__ == '__main__':
  main()
