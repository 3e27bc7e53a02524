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

"""Times the controller's work around a long step as the loaders grow.

A whole Run of the benchmark as tests/shell/test_run_pkb.py makes it (PKB's
config decoding, its BenchmarkSpec holding fake VMs, the module's Run, PKB's
sample collector and JSON publisher: perfkit_plugins/testing/fake_runs.py),
with --phases=mixed (a schema step, then one timed mixed step of --hours)
on 2 to 120 fake loaders. Every loader serves the files of a real mixed
run made long (loader_outputs.LongStep: 10 s HDR intervals, text logs, CPU
samples, JVM log), and every remote command and file pull of every fake VM
waits --latency_ms first, as a round trip to a real VM does.

Each loader count runs in a process of its own (its peak RSS is its own).
Printed per count: the run's setup before the first step (clock offsets,
the loaders' JVMs and facts), then for the timed step the controller's
wall and CPU time outside the step's window (the step's time but its
shortest loader command: the stress run itself) and its parts: starting
the loaders (step start to the last loader's launch), pulling, parsing
(LoadStepResult but the merge), the HDR merge, the rest (records, server
checks); then the publishing of the run's samples (RunSamples and PKB's
publisher), and the peak RSS. Parts are timed by wrapping functions of
the plugin, never by code in it. Prints figures; asserts nothing. Not
collected by pytest.

Run: .venv/bin/python tests/perf/bench_run_scale.py [--loaders 2,10,30]
[--hours 4] [--latency_ms 50]
"""

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import threading
import time
from unittest import mock

from perfkit_plugins.testing import pkb_checkout

sys.path.insert(0, pkb_checkout.Path())

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from absl import flags
from perfkitbenchmarker import pkb  # pylint: disable=unused-import
from perfkitbenchmarker import vm_util
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as bm
from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import run_files
from perfkit_plugins.shell import samples as samples_lib
from perfkit_plugins.shell import step_signals
from perfkit_plugins.testing import fake_runs
from perfkit_plugins.testing import loader_outputs

# pylint: enable=g-import-not-at-top,wrong-import-position,g-bad-import-order

FLAGS = flags.FLAGS
_SOURCE = 'mixed.loader0'
_STEP = 'mixed'
_PARTS = ('start', 'pull', 'parse', 'merge', 'other')


class _Timer:
  """Wall and process CPU time of calls, overlapping calls counted once."""

  def __init__(self):
    self._lock = threading.Lock()
    self._active = {}
    self.wall = {}
    self.cpu = {}

  def Wrap(self, part, function):
    def Timed(*args, **kwargs):
      self._Enter(part)
      try:
        return function(*args, **kwargs)
      finally:
        self._Leave(part)

    return Timed

  def _Enter(self, part):
    with self._lock:
      count, wall, cpu = self._active.get(part, (0, None, None))
      if not count:
        wall, cpu = time.perf_counter(), time.process_time()
      self._active[part] = (count + 1, wall, cpu)

  def _Leave(self, part):
    with self._lock:
      count, wall, cpu = self._active[part]
      self._active[part] = (count - 1, wall, cpu)
      if count == 1:
        self.wall[part] = self.wall.get(part, 0.0) + time.perf_counter() - wall
        self.cpu[part] = self.cpu.get(part, 0.0) + time.process_time() - cpu


def _Args(loaders, hours):
  return [
      'pkb.py',
      '--run_uri=scale1',
      '--scylla_phases=mixed',
      f'--scylla_loader_count={loaders}',
      f'--scylla_durations=mixed={round(hours * 3600)}',
      '--scylla_quiesce_settle_s=0',
      # The cluster a previous run populated (mixed reads it).
      '--run_stage=run',
  ]


def _MeasureOne(loaders, hours, latency_s):
  """Runs the benchmark's Run on `loaders` loaders; returns its figures."""
  files = loader_outputs.LongStep(_SOURCE, hours, 10)
  FLAGS(_Args(loaders, hours))
  baseline_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  timer = _Timer()
  marks = {}

  def Mark(name, **_):
    marks[name] = (time.perf_counter(), time.process_time())

  def Started(sender, step, **_):
    del sender
    if step.name == _STEP:
      Mark('step_start')

  def Finished(sender, step, **_):
    del sender
    if step.name == _STEP:
      Mark('step_end')
    else:
      Mark('schema_end')

  launches = []
  loader_command = phase_runner.LoaderCommand

  def LoaderCommand(*args, **kwargs):
    launches.append(time.perf_counter())
    return loader_command(*args, **kwargs)

  load_step_result = run_files.LoadStepResult
  with tempfile.TemporaryDirectory() as run_dir, mock.patch.multiple(
      phase_runner,
      PullAll=timer.Wrap('pull', phase_runner.PullAll),
      LoaderCommand=LoaderCommand,
  ), mock.patch.object(
      histograms,
      'MergeHdrLogs',
      timer.Wrap('merge', histograms.MergeHdrLogs),
  ), mock.patch.object(
      run_files, 'LoadStepResult', timer.Wrap('load', load_step_result)
  ), mock.patch.object(
      samples_lib, 'RunSamples', timer.Wrap('publish', samples_lib.RunSamples)
  ), mock.patch.object(
      vm_util, 'GetTempDir', lambda: run_dir
  ):
    spec = fake_runs.BenchmarkSpec(bm, FLAGS, latency_s=latency_s)
    loader_outputs.Serve(
        spec.vm_groups['loaders'],
        fake_runs.Plan(spec),
        lambda step, run, kind: files[kind],
        schema_output=loader_outputs.Capture('schema.loader0', 'stdout'),
    )
    step_signals.STEP_STARTED.connect(Started, weak=False)
    step_signals.STEP_FINISHED.connect(Finished, weak=False)
    try:
      Mark('run_start')
      samples = fake_runs.RunStage(spec)
      Mark('run_end')
      publish = timer.Wrap('publish', fake_runs.Publish)
      publish(bm, spec, samples, pathlib.Path(run_dir) / 'results.json')
    finally:
      step_signals.STEP_STARTED.disconnect(Started)
      step_signals.STEP_FINISHED.disconnect(Finished)
    records = json.loads(
        open(
            os.path.join(
                run_dir, 'scylla_phases', 'steps', _STEP, 'loaders.json'
            )
        ).read()
    )
    pulled_mib = (
        sum(
            os.path.getsize(
                os.path.join(run_dir, 'scylla_phases', 'steps', _STEP, f)
            )
            for f in os.listdir(
                os.path.join(run_dir, 'scylla_phases', 'steps', _STEP)
            )
        )
        / 2**20
    )
  window_s = min(
      l['returned_at'] - l['launched_at'] for l in records['loaders']
  )
  step_wall = marks['step_end'][0] - marks['step_start'][0] - window_s
  step_cpu = marks['step_end'][1] - marks['step_start'][1]
  parts = {
      'start': max(launches) - marks['step_start'][0],
      'pull': timer.wall['pull'],
      'parse': timer.wall['load'] - timer.wall['merge'],
      'merge': timer.wall['merge'],
  }
  parts['other'] = step_wall - sum(parts.values())
  return {
      'loaders': loaders,
      'setup_s': marks['schema_end'][0] - marks['run_start'][0],
      'step_s': step_wall,
      'step_cpu_s': step_cpu,
      'parts': parts,
      'merge_cpu_s': timer.cpu['merge'],
      'publish_s': timer.wall['publish'],
      'peak_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
      'baseline_mib': baseline_kib / 1024,
      'pulled_mib': pulled_mib,
      'samples': len(samples),
  }


def _Print(rows, hours, latency_ms):
  print(
      f'mixed step of {hours:g} h at 10 s intervals, {latency_ms:g} ms per'
      ' remote command and pull; times in s (wall), CPU in CPU-s'
  )
  header = (
      f'{"loaders":>7} {"pulled MiB":>10} {"setup":>6} {"outside":>8}'
      f' {"CPU":>6} '
      + ' '.join(f'{p:>6}' for p in _PARTS)
      + f' {"publish":>7} {"peak MiB":>8} {"base MiB":>8}'
  )
  print(header)
  for row in rows:
    print(
        f'{row["loaders"]:>7} {row["pulled_mib"]:>10.0f}'
        f' {row["setup_s"]:>6.2f} {row["step_s"]:>8.2f}'
        f' {row["step_cpu_s"]:>6.2f} '
        + ' '.join(f'{row["parts"][p]:>6.2f}' for p in _PARTS)
        + f' {row["publish_s"]:>7.2f} {row["peak_mib"]:>8.0f}'
        f' {row["baseline_mib"]:>8.0f}'
    )


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--loaders', default='2,10,30,60,120')
  parser.add_argument('--hours', type=float, default=4.0)
  parser.add_argument('--latency_ms', type=float, default=50.0)
  parser.add_argument('--one', type=int, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.one:
    figures = _MeasureOne(args.one, args.hours, args.latency_ms / 1000)
    print(json.dumps(figures))
    return
  rows = []
  for count in [int(n) for n in args.loaders.split(',')]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            f'--one={count}',
            f'--hours={args.hours}',
            f'--latency_ms={args.latency_ms}',
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(json.dumps(rows[-1]), file=sys.stderr)
  _Print(rows, args.hours, args.latency_ms)


if __name__ == '__main__':
  main()
