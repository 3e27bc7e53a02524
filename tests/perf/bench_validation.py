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

"""Measures the checks before provisioning at the largest allowed inputs.

CheckPrerequisites validates the settings and plans every loader's commands
(bad key or rate splits fail there). Planning is linear in the loaders, so
the bounds of core/config/settings_limits.py keep it fast for any input; this
script times validation plus planning at those bounds (1,000 servers,
1,000 loaders, every phase, a ten-rate latency ladder) and prints the
median of a few runs.

Run: python tests/perf/bench_validation.py [--runs 5]
"""

import argparse
import statistics
import time

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.testing import planned_runs


def _Largest():
  return settings_lib.Settings(
      phases=settings_lib.PHASES,
      server_count=settings_limits.MAX_SERVERS,
      loader_count=settings_limits.MAX_LOADERS,
      replication_factor=3,
      num_keys=10**12,
      latency_rates=tuple(10**6 * (i + 1) for i in range(10)),
      rdw_write_rate=10**6,
  )


def _Once():
  start = time.perf_counter()
  settings = settings_lib.Validate(_Largest())
  steps = planned_runs.PhaseSteps(
      settings,
      [f'10.0.{i // 256}.{i % 256}' for i in range(settings.server_count)],
      settings.server_count * 64 * 1024**3,
      '/opt/cs/bin/cassandra-stress',
      '/tmp/pkb/scylla_phases',
  )
  runs = sum(len(step.runs) for step in steps)
  return time.perf_counter() - start, len(steps), runs


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--runs', type=int, default=5)
  args = parser.parse_args()
  results = [_Once() for _ in range(args.runs)]
  _, steps, runs = results[0]
  median = statistics.median(r[0] for r in results)
  print(
      f'validate + plan at the bounds: {steps} steps, {runs:,} loader runs,'
      f' {median:.2f} s (median of {args.runs})'
  )


if __name__ == '__main__':
  main()
