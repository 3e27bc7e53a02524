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

"""Times a whole run on the test bed: PKB's stages, bring-up, overhead.

Makes the test bed (perfkit_plugins/testing/testbed.py: five machines of
this host and a mirror) and runs stock pkb.py on it twice, with PKB's
runtime samples (--timing_measurements=runtimes):

1. 1 server (RF 1, QUORUM) and 2 loaders, provision and prepare only, on
   fresh machines.
2. 3 Cassandra servers (RF 3) and the same loaders, every default phase,
   the test bed test's short settings: the time of each PKB stage, and the
   run's overhead: the Run stage's wall time minus the time the published
   figures measure (each stress step's window, every quiesce wait), per
   step kind; then Prepare for 3 servers over Prepare for 1. Two of the
   three servers are fresh, so both Prepares fetch and unpack Cassandra
   (in parallel); the loaders get ready while the servers start, and every
   node starts at once (Apache Cassandra's tokens are chosen before they
   start; cluster.py).

Run (root, a PKB checkout, the plugin installed; about 6 minutes):
  python tests/perf/bench_testbed_run.py
"""

import datetime
import json
import pathlib
import re
import sys
import tempfile
import time

from perfkit_plugins.testing import testbed

# PKB's runtime samples of each stage ('<name> Runtime').
STAGES = {
    'Provision': 'Resource Provisioning',
    'Prepare': 'Benchmark Prepare',
    'Run': 'Benchmark Run',
    'Cleanup': 'Benchmark Cleanup',
    'Teardown': 'Resource Teardown',
}


def _Samples(run_dir):
  path = run_dir / 'perfkitbenchmarker_results.json'
  return [json.loads(line) for line in path.read_text().splitlines()]


def _Labels(sample):
  text = sample['labels']
  return dict(p.split(':', 1) for p in text.strip('|').split('|,|') if p)


def _StageTimes(samples):
  return {
      stage: s['value']
      for s in samples
      for stage, name in STAGES.items()
      if s['metric'] == f'{name} Runtime'
  }


_LOG_TIME = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ')


def _LogTime(run_dir, pattern):
  """Time (epoch s) of the first pkb.log line matching pattern."""
  for line in (run_dir / 'pkb.log').read_text(errors='replace').splitlines():
    match = _LOG_TIME.match(line)
    if match and re.search(pattern, line):
      return datetime.datetime.strptime(
          match.group(1), '%Y-%m-%d %H:%M:%S,%f'
      ).timestamp()
  return None


def _PrepareParts(run_dir, prepare_s):
  """(installs and configuration s, bring-up s) of a Prepare stage.

  Bring-up begins with the first server's start (`bin/cassandra -R`).
  """
  start = _LogTime(run_dir, r'Preparing benchmark scylla_phases')
  first = _LogTime(run_dir, r'Running on .* bin/cassandra -R')
  installs = first - start
  return installs, prepare_s - installs


def _StepTimes(run_dir, samples):
  """{kind: [wall s, measured s, steps]} of the Run stage's steps.

  A stress step's wall time is from the launch of its loaders to the last
  pulled file (loaders.json), its measured time the window its figures
  cover; a quiesce step's wait is all measurement (its figures time it).
  """
  kinds = {}
  windows, waits = {}, {}
  for s in samples:
    labels = _Labels(s)
    step = labels.get('scylla_step')
    if s['metric'] == 'duration' and 'scylla_window_start' in labels:
      windows[step] = max(windows.get(step, 0), s['value'])
    if 'scylla_quiesce_wait_s' in labels:
      waits[step] = float(labels['scylla_quiesce_wait_s'])
  steps_dir = run_dir / 'scylla_phases' / 'steps'
  for step, wait in waits.items():
    total = kinds.setdefault('quiesce', [0.0, 0.0, 0])
    total[0] += wait
    total[1] += wait
    total[2] += 1
  for step, window in windows.items():
    record = json.loads((steps_dir / step / 'loaders.json').read_text())
    total = kinds.setdefault('stress', [0.0, 0.0, 0])
    total[0] += record['ended_at'] - record['started_at']
    total[1] += window
    total[2] += 1
  return kinds


def _StressParts(run_dir, samples):
  """Mean seconds of a stress step's parts outside its measured window.

  From loaders.json (the controller's clock) and the published windows:
  launch (ssh, the barrier, the script) to the first loader's tool start;
  the last tool start to the window (JVM start, connections, the first
  interval); the window's end to the last tool's end; that to the last
  command's return (PKB's RobustRemoteCommand).
  """
  windows = {}
  for s in samples:
    labels = _Labels(s)
    if s['metric'] == 'duration' and 'scylla_window_start' in labels:
      windows[labels['scylla_step']] = (
          float(labels['scylla_window_start']),
          float(labels['scylla_window_end']),
      )
  parts = {'launch': [], 'tool start': [], 'tool end': [], 'return': []}
  for step, (window_start, window_end) in windows.items():
    record = json.loads(
        (
            run_dir / 'scylla_phases' / 'steps' / step / 'loaders.json'
        ).read_text()
    )
    starts = [l['start_s'] for l in record['loaders']]
    ends = [l['end_s'] for l in record['loaders']]
    parts['launch'].append(min(starts) - record['started_at'])
    parts['tool start'].append(window_start - max(starts))
    parts['tool end'].append(max(ends) - window_end)
    parts['return'].append(record['ended_at'] - max(ends))
  return {k: sum(v) / len(v) for k, v in parts.items() if v}


def main():
  problem = testbed.Problem()
  if problem:
    sys.exit(f'bench_testbed_run: {problem}')
  with tempfile.TemporaryDirectory(dir='/var/tmp') as work:
    work = pathlib.Path(work)
    with testbed.MirroredTestbed(
        testbed.SERVERS + testbed.LOADERS, work / 'pkb'
    ) as bed:
      timing = ('--timing_measurements=runtimes',)
      one = bed.Config(
          work / 'one.yaml',
          testbed.SERVERS[:1],
          testbed.LOADERS,
          testbed.SHORT_RUN_FLAGS | {'scylla_replication_factor': 1},
      )
      result = bed.Pkb(one, 'bench1', '--run_stage=provision,prepare', *timing)
      if result.returncode:
        sys.exit(result.stderr[-3000:])
      single = _StageTimes(_Samples(bed.RunDir('bench1')))
      bed.Pkb(one, 'bench1', '--run_stage=cleanup,teardown')
      config = bed.Config(
          work / 'three.yaml',
          testbed.SERVERS,
          testbed.LOADERS,
          testbed.SHORT_RUN_FLAGS,
      )
      start = time.monotonic()
      result = bed.Pkb(config, 'bench3', *timing)
      wall = time.monotonic() - start
      if result.returncode:
        sys.exit(result.stderr[-3000:])
      samples = _Samples(bed.RunDir('bench3'))
      stages = _StageTimes(samples)
      print(f'3 servers, 2 loaders, every default phase: {wall:.0f} s wall')
      for stage in STAGES:
        print(f'  {stage:<9} {stages.get(stage, float("nan")):7.1f} s')
      kinds = _StepTimes(bed.RunDir('bench3'), samples)
      measured = sum(m for _, m, _ in kinds.values())
      in_steps = sum(w for w, _, _ in kinds.values())
      print(
          f'  Run stage {stages["Run"]:.1f} s, of which measured'
          f' {measured:.1f} s: overhead {stages["Run"] - measured:.1f} s'
      )
      for kind, (step_wall, step_measured, count) in sorted(kinds.items()):
        print(
            f'    {kind}: {count} steps, {step_wall:.1f} s wall,'
            f' {step_measured:.1f} s measured, overhead'
            f' {step_wall - step_measured:.1f} s'
            f' ({(step_wall - step_measured) / count:.1f} s per step)'
        )
      print(
          '    a stress step outside its window, mean: '
          + ', '.join(
              f'{part} {seconds:.1f} s'
              for part, seconds in _StressParts(
                  bed.RunDir('bench3'), samples
              ).items()
          )
      )
      print(
          '    between steps (clock offsets, tuning and versions read back,'
          ' schema, flushes, results):'
          f' {stages["Run"] - in_steps:.1f} s'
      )
      print(
          f'Prepare: 3 servers {stages["Prepare"]:.1f} s, 1 server'
          f' {single["Prepare"]:.1f} s:'
          f' {stages["Prepare"] / single["Prepare"]:.2f}x'
      )
      for label, uri, seconds in (
          ('3 servers', 'bench3', stages['Prepare']),
          ('1 server', 'bench1', single['Prepare']),
      ):
        installs, bringup = _PrepareParts(bed.RunDir(uri), seconds)
        print(
            f'  {label}: servers installed and configured'
            f' {installs:.1f} s, brought up (every node at once)'
            f' {bringup:.1f} s'
        )


if __name__ == '__main__':
  main()
