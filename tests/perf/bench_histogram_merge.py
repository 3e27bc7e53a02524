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

"""Times merging the HDR logs of many loaders over a long run.

Writes, with the hdrhistogram package's log writer, one cassandra-stress-like
log per loader (tag WRITE-st, values in ns, BaseTime/StartTime comments,
timestamps relative to BaseTime, loaders started a few seconds apart) into a
temporary directory, then times MergeHdrLogs over all of them with a series
step equal to the interval, reading the files as open files (streamed) and as
texts read whole. Peak memory is measured in a second, traced run (tracing
slows it down). Prints figures; asserts nothing. Not collected by pytest.

Run: /opt/pkbvenv/bin/python tests/perf/bench_histogram_merge.py [--loaders
30] [--hours 4] [--interval 10]
"""

import argparse
import os
import resource
import tempfile
import time
import tracemalloc

from hdrh import histogram as hdrh_histogram
import numpy as np

from perfkit_plugins.core.results import histograms
from perfkit_plugins.testing import hdr_logs

_BASE_TIME_S = 1_795_299_882
_POOL = 40


def _Pool(ops_per_interval, rng):
  """Interval histograms of lognormal latencies (median ~1.5 ms, in ns)."""
  pool = []
  for _ in range(_POOL):
    values = rng.lognormal(np.log(1.5e6), 0.8, ops_per_interval).astype(
        np.int64
    )
    # Keep 3 significant digits (what the histogram keeps) so recording
    # takes one call per distinct value.
    digits = np.floor(np.log10(values)).astype(np.int64) - 2
    scale = 10**digits
    values, counts = np.unique(values // scale * scale, return_counts=True)
    h = hdrh_histogram.HdrHistogram(1, 60 * 10**9, 3)
    for value, count in zip(values.tolist(), counts.tolist()):
      h.record_value(value, count)
    pool.append(h)
  return pool


def _WriteLogs(directory, loaders, hours, interval_s, pool):
  paths = {}
  intervals = int(hours * 3600 / interval_s)
  for loader in range(loaders):
    name = 'loader-%02d' % loader
    base_s = _BASE_TIME_S + loader % 7
    path = os.path.join(directory, name + '.hdr')
    with open(path, 'w') as f:
      writer = hdr_logs.StressLogWriter(f, base_s)
      for i in range(intervals):
        writer.WriteInterval(
            'WRITE-st',
            pool[(i + loader) % len(pool)],
            base_s + i * interval_s,
            base_s + (i + 1) * interval_s,
        )
    paths[name] = path
  return paths


def _Merge(make_logs, interval_s):
  logs = make_logs()
  try:
    return histograms.MergeHdrLogs(logs, step_s=interval_s)
  finally:
    for log in logs.values():
      if hasattr(log, 'close'):
        log.close()


def _Measure(label, make_logs, interval_s):
  """Times one merge, then repeats it under tracemalloc for peak memory."""
  started = time.perf_counter()
  merge = _Merge(make_logs, interval_s)
  seconds = time.perf_counter() - started
  tracemalloc.start()
  _Merge(make_logs, interval_s)
  _, peak = tracemalloc.get_traced_memory()
  tracemalloc.stop()
  summary = merge.summaries['WRITE-st']
  histograms_merged = sum(p.intervals for p in merge.series['WRITE-st'])
  print(
      '%s: parse + merge %.1f s (%.0f histograms/s), peak Python memory'
      ' %.0f MiB; %d ops, p99 %.3f ms, %d series points'
      % (
          label,
          seconds,
          histograms_merged / seconds,
          peak / 2**20,
          summary.count,
          summary.p99_ms,
          len(merge.series['WRITE-st']),
      )
  )


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--loaders', type=int, default=30)
  parser.add_argument('--hours', type=float, default=4.0)
  parser.add_argument('--interval', type=float, default=10.0)
  parser.add_argument('--ops-per-interval', type=int, default=200_000)
  args = parser.parse_args()
  rng = np.random.default_rng(1)
  with tempfile.TemporaryDirectory() as directory:
    started = time.perf_counter()
    pool = _Pool(args.ops_per_interval, rng)
    paths = _WriteLogs(directory, args.loaders, args.hours, args.interval, pool)
    size = sum(os.path.getsize(p) for p in paths.values())
    print(
        'wrote %d logs x %.1f h at %.0f s intervals: %d histograms, %.0f MiB'
        ' (%.0f s)'
        % (
            args.loaders,
            args.hours,
            args.interval,
            args.loaders * int(args.hours * 3600 / args.interval),
            size / 2**20,
            time.perf_counter() - started,
        )
    )
    _Measure(
        'streamed from open files',
        lambda: {name: open(path) for name, path in paths.items()},
        args.interval,
    )
    _Measure(
        'texts read whole',
        lambda: {name: open(path).read() for name, path in paths.items()},
        args.interval,
    )
  print(
      'process max RSS %.0f MiB'
      % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
  )


if __name__ == '__main__':
  main()
