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

"""How far apart real loaders start and end: a test bed of N loaders.

Makes a test bed (perfkit_plugins/testing/testbed.py) of one Apache
Cassandra server and N loaders, and runs stock pkb.py on it once, every
stage, with testbed.MANY_LOADERS_FLAGS (a populate of 20,000 keys, then one
fixed-rate step of testbed.MANY_LOADERS_STEP_S; the cluster's rate scaled
to N so each loader runs 50 op/s). Prints the bed's build time, pkb.py's
wall time and, per stress step, on the controller's clock, each loader's
clock offset applied (testbed.StressTimings):

* start skew: the spread of the loaders' first HDR interval starts (what
  the run publishes as loader_start_skew; the goal: within 1 s); end skew:
  of their last interval ends (loader_end_skew);
* shared window: the time every loader ran;
* what the start skew is made of: the spread of the controller's launches
  of the loaders' commands, of cassandra-stress's starts (the loader's
  script), and the start-up: from the first launch to the first and to the
  last first interval (the JVM, its connections, its schema, its fixed
  sleeps);
* between steps: the last loader's end of one step to the first loader's
  start of the next (the next step's start-up included), and the
  controller's own gap between the two steps' commands.

Run (root, a PKB checkout, the plugin installed, the cassandra-stress
tarball; 30 loaders take 6 to 8 minutes):
  python tests/perf/bench_testbed_loaders.py [--loaders 30]
"""

import argparse
import pathlib
import sys
import tempfile
import time

from perfkit_plugins.testing import testbed

# Each loader's share of the fixed-rate step, op/s.
RATE_PER_LOADER = 50


def _Spread(values):
  return max(values) - min(values)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--loaders', type=int, default=30)
  args = parser.parse_args(argv)
  problem = testbed.Problem()
  if problem:
    sys.exit(f'bench_testbed_loaders: {problem}')
  loaders = testbed.LoaderNames(args.loaders)
  rate = RATE_PER_LOADER * args.loaders
  with tempfile.TemporaryDirectory(dir='/var/tmp') as work:
    work = pathlib.Path(work)
    start = time.monotonic()
    with testbed.MirroredTestbed(
        testbed.SERVERS[:1] + loaders, work / 'pkb'
    ) as bed:
      built_s = time.monotonic() - start
      config = bed.Config(
          work / 'loaders.yaml',
          testbed.SERVERS[:1],
          loaders,
          testbed.MANY_LOADERS_FLAGS | {'scylla_latency_rates': str(rate)},
      )
      start = time.monotonic()
      result = bed.Pkb(config, 'loaders1')
      wall_s = time.monotonic() - start
      if result.returncode:
        sys.exit(result.stderr[-3000:])
      timings = testbed.StressTimings(bed.RunDir('loaders1'))
  print(
      f'{args.loaders} loaders, 1 server: bed (mirror and machines) built in'
      f' {built_s:.1f} s; pkb.py, every stage: {wall_s:.1f} s wall'
  )
  for before, timing in zip((None, *timings), timings):
    if before:
      print(
          f'  between steps: {timing.After(before):.1f} s (controller:'
          f' {timing.started_at - before.ended_at:.1f} s from the last'
          ' command returned to the next step)'
      )
    print(
        f'  {timing.Figures()}; launch skew'
        f' {_Spread(timing.launches):.2f} s, tool-start skew'
        f' {_Spread(timing.tool_starts):.2f} s; start-up (first launch to'
        ' the first and the last first interval)'
        f' {min(timing.firsts) - min(timing.launches):.1f} s and'
        f' {max(timing.firsts) - min(timing.launches):.1f} s'
    )


if __name__ == '__main__':
  main()
