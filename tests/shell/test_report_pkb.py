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

"""scylla-phases-report on results files PKB's own publisher wrote.

The results come from the benchmark's chain on real outputs: each planned
stress step runs through phase_runner on recording fake loaders that serve
the lab's cassandra-stress write run (text and HDR log, moved in time per
step and loader; for fixed-rate steps each `WRITE-st` histogram is also
served as `WRITE-rt`, as a fixed-rate run logs both) and the real loader
times and CPU files; quiesce steps fold the lab's real `nodetool
compactionstats` polls and compaction history (moved onto the load's clock
by the node's clock offset); the node's thread pools of every stress step
are a real Apache Cassandra 5.0.9 node's `nodetool tpstats`, busy then
overloaded (tests/testdata/live). phase_results and sample_rows turn them into
sample rows, PKB's Sample/CreateTimeSeriesSample and
NewlineDelimitedJSONPublisher write them as PKB writes a run's results.

Two runs differ in their loaders: two loaders, or one. With the environment
variable SCYLLA_PHASES_REPORT_FIXTURES=<dir> the test also writes both files
there (that is how tests/testdata/report/ was made; see its MANIFEST.tsv).

`test_report_on_the_benchmark_run_results` runs the report on the results
of the benchmark's own Run (tests/testdata/results); `CheckReport` holds the
assertions any results file must pass.
"""

import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from perfkit_plugins import version
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import quiesce_timing
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.results import thread_pools
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import run_files
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.testing import run_contexts
from perfkit_plugins.testing import run_envs
from perfkit_plugins.tools import report_plots

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pylint: disable=g-import-not-at-top,wrong-import-position
from perfkitbenchmarker import publisher
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as bm
from perfkit_plugins.shell import samples as samples_lib
from perfkit_plugins.testing import planned_runs

# pylint: enable=g-import-not-at-top,wrong-import-position

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / 'tests' / 'testdata' / 'report'
FIXTURES_ENV = 'SCYLLA_PHASES_REPORT_FIXTURES'
RUN_RESULTS = (
    REPO / 'tests' / 'testdata' / 'results' / 'scylla_phases_fake_run.json'
)
WRITE_TEXT = 'cs-write-n200k-seq-t50-hdr.txt'
WRITE_HDR = 'cs-write-n200k-seq-t50-hdr.w.hdr'
WRAPPER = r'stress_run\.sh'
# Seconds between the steps' (moved) HDR logs.
STEP_SPACING_S = 120.0
# The last real compaction ends this long after the load.
COMPACTION_AFTER_LOAD_S = 95.0
RUNS = {'report-2loaders.json': 2, 'report-1loader.json': 1}
# The two-loader run published with --nocollapse_labels.
METADATA_RUN = 'report-2loaders-metadata.json'


def Settings(loaders):
  return settings_lib.Validate(
      settings_lib.Settings(
          phases=('populate', 'quiesce', 'latency'),
          num_keys=400000,
          loader_count=loaders,
          hdr_interval_s=1,
          latency_rates=(2000, 4000),
          latency_duration_s=30,
          quiesce_poll_s=5,
          quiesce_settle_s=10,
      )
  )


def _Serve(vm, run, files):
  paths = run.paths

  def Run(command):
    del command
    for kind, content in files.items():
      vm.remote_files[paths[kind]] = content
    return ''

  vm.Reply(WRAPPER, Run)


def _StressRows(step, index, settings, lab, testdata, shifted_hdr, out_dir):
  vms = [
      fake_vm.FakeVm(f'loader{i}', f'10.0.1.{i}')
      for i in range(settings.loader_count)
  ]
  for vm, run in zip(vms, step.runs):
    kinds = ('rt',) if run.rate else ()
    shift = index * STEP_SPACING_S + run.loader_index * 0.5
    _Serve(
        vm,
        run,
        {
            loader_files.STDOUT: lab(WRITE_TEXT),
            loader_files.LOG: lab(WRITE_TEXT),
            loader_files.HDR: shifted_hdr(lab(WRITE_HDR), shift, kinds),
            loader_files.TIMES: testdata('loader', 'loader-busy.times'),
            loader_files.CPU: testdata('loader', 'loader-idle.cpu'),
        },
    )
  step_dir = os.path.join(out_dir, step.name)
  os.makedirs(step_dir)
  record = phase_runner.RunStressStep(
      step, run_envs.Make(out_dir, settings, loaders=vms), step_dir
  )
  result = run_files.LoadStepResult(
      step, record, settings, (_LabServer(testdata),)
  )
  return record, sample_rows.StressRows(step, result, run_contexts.LabHost())


def _LabServer(testdata):
  """The lab node's evidence of a step: real tpstats, busy then loaded."""
  pools = [
      thread_pools.ParseTpstats(testdata('live', f'c509-{when}-tpstats.txt'))
      for when in ('busy', 'loaded')
  ]
  return server_evidence.ServerOutput(
      0,
      'node0',
      0.0,
      None,
      None,
      False,
      server_evidence.NodeAnswers(None, *pools),
  )


def _QuiesceRows(step, span, since, lab):
  """A quiesce step folded from the lab's real nodetool outputs."""
  start, end = span
  history = compactions.ParseCompactionHistory(
      lab('nt-busy1-compactionhistory.txt')
  )
  last_end_s = max(e.compacted_at_ms for e in history) / 1000
  offsets = {'node0': last_end_s - (end + COMPACTION_AFTER_LOAD_S)}
  work = quiesce_timing.CompactionEnd(
      {'node0': history}, offsets, since, 'keyspace1'
  )
  busy = compactions.ParseCompactionStats(lab('nt-busy1-compactionstats.txt'))
  idle = compactions.ParseCompactionStats(lab('nt-idle-compactionstats.txt'))
  tracker = quiesce_timing.PollTracker(
      nodes=('node0',), started_at=end, settle_s=10, timeout_s=3600
  )
  polls = [(5, busy), (90, busy), (100, idle), (105, idle), (110, idle)]
  if since > end:
    polls = polls[2:]
  for after_s, status in polls:
    tracker = quiesce_timing.Observe(tracker, end + after_s, {'node0': status})
  result = quiesce_timing.Summarize(tracker, work, start, end)
  return sample_rows.QuiesceRows(step, result, run_contexts.LabHost())


def LabRows(loaders, lab, testdata, shifted_hdr, out_dir):
  """Sample rows of a populate, quiesce and two-rate latency run."""
  settings = Settings(loaders)
  steps = planned_runs.PhaseSteps(
      settings, ['127.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
  )
  rows, span = [], None
  for index, step in enumerate(steps):
    if step.kind == plan.KIND_STRESS:
      record, step_rows = _StressRows(
          step, index, settings, lab, testdata, shifted_hdr, out_dir
      )
      span = span or record.Span()
      rows += step_rows
    elif step.kind == plan.KIND_QUIESCE:
      rows += _QuiesceRows(step, span, span[0], lab)
    else:
      # After the flush nothing is left to compact: no compaction since.
      since = span[1] + COMPACTION_AFTER_LOAD_S + 1
      rows += _QuiesceRows(step, span, since, lab)
  return rows


def PublishRows(rows, path, run_uri, collapse_labels=True):
  """Writes rows as PKB does: Sample objects through its JSON publisher."""
  samples = [
      dict(
          samples_lib.SampleOf(row).asdict(),
          test='scylla_phases',
          run_uri=run_uri,
          official=False,
          owner='report-test',
          product_name='PerfKitBenchmarker',
      )
      for row in rows
  ]
  publisher.NewlineDelimitedJSONPublisher(
      str(path), collapse_labels=collapse_labels
  ).PublishSamples(samples)
  return path


@pytest.fixture
def results_files(tmp_path, lab, testdata, shifted_hdr):
  """{name: path} of both runs' results files, freshly written."""
  files = {}
  for name, loaders in RUNS.items():
    out_dir = tmp_path / f'raw-{loaders}'
    rows = LabRows(loaders, lab, testdata, shifted_hdr, str(out_dir))
    files[name] = PublishRows(rows, tmp_path / name, f'lab{loaders}')
    if loaders == 2:
      files[METADATA_RUN] = PublishRows(
          rows, tmp_path / METADATA_RUN, 'lab2', collapse_labels=False
      )
  if os.environ.get(FIXTURES_ENV):
    for name, path in files.items():
      shutil.copy(path, os.path.join(os.environ[FIXTURES_ENV], name))
  return files


def RunReport(tmp_path, *args):
  return subprocess.run(
      [sys.executable, '-m', 'perfkit_plugins.tools.report_command', *args],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONWARNINGS='ignore'),
      timeout=300,
      check=False,
  )


def CheckReport(tmp_path, paths):
  """What the report must print and draw for any scylla_phases results.

  Args:
    tmp_path: a scratch directory.
    paths: results files of the runs, first the reference.

  Returns:
    the report's stdout.
  """
  plots = tmp_path / 'plots'
  result = RunReport(tmp_path, *map(str, paths), f'--plots_dir={plots}')
  assert result.returncode == 0, result.stderr[-3000:]
  text = result.stdout
  for i in range(len(paths)):
    assert f'\n[{i + 1}] ' in '\n' + text
  for title in ('Throughput', 'Latency (ms;', 'Quiesce'):
    assert f'\n{title}' in text
  if len(paths) > 1:
    assert '\nComparison ([1] ' in text
  from matplotlib import image  # pylint: disable=g-import-not-at-top

  written = sorted(plots.glob('*.png'))
  assert written
  for png in written:
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert image.imread(str(png)).shape[:2] == (
        report_plots.HEIGHT_PX,
        report_plots.WIDTH_PX,
    )
  return text


def test_report_on_lab_results(tmp_path, results_files):
  two, one = (
      results_files['report-2loaders.json'],
      results_files['report-1loader.json'],
  )
  text = CheckReport(tmp_path, [two, one])
  assert '[1] cassandra 5.0.2 on 1 x lab-host (' in text
  for step in ('populate', 'latency_2000', 'latency_4000'):
    assert f'\n  {step} ' in text
  assert 'flush_quiesce_before_latency_4000' in text
  assert sorted(p.name for p in (tmp_path / 'plots').glob('*.png')) == [
      'latency_ladder.png',
      'latency_timeseries.png',
      'populate_timeseries.png',
      'quiesce_timeline.png',
  ]


def _Labels(labels):
  """PKB's collapsed labels ('|key:value|,|key:value|') as a dict."""
  if not isinstance(labels, str):
    return labels
  pairs = labels[1:-1].split('|,|') if labels else []
  return dict(pair.split(':', 1) for pair in pairs)


def _Comparable(path):
  """The samples of a results file without per-publication identifiers.

  The plugin's version names the commit that wrote the file: it changes with
  every commit and is left out.
  """
  samples = []
  for line in pathlib.Path(path).read_text().splitlines():
    s = json.loads(line)
    labels = dict(_Labels(s.get('labels', s.get('metadata'))))
    assert labels.pop(samples_lib.VERSION_KEY).startswith(version.VERSION)
    samples.append((s['metric'], s['value'], s['unit'], labels))
  return samples


def _Same(committed, published):
  """Equal, numbers to 1e-9 relative: the last bit differs between CPUs."""
  if isinstance(committed, dict) and isinstance(published, dict):
    return committed.keys() == published.keys() and all(
        _Same(committed[k], published[k]) for k in committed
    )
  if isinstance(committed, (list, tuple)) and isinstance(
      published, (list, tuple)
  ):
    return len(committed) == len(published) and all(
        map(_Same, committed, published)
    )
  try:
    numbers = float(committed), float(published)
  except (TypeError, ValueError):
    return committed == published
  if isinstance(committed, str) != isinstance(published, str):
    return False
  if committed == published or all(map(math.isnan, numbers)):
    return True
  return math.isclose(*numbers, rel_tol=1e-9, abs_tol=1e-12)


def test_fixture_comparison_tolerates_the_last_bit_of_a_float():
  labels = '|scylla_ci_se_log:0.09175126098862178|,|scylla_step:populate|'
  other = '|scylla_ci_se_log:0.0917512609886218|,|scylla_step:populate|'
  assert _Same(_Labels(labels), _Labels(other))
  assert not _Same(_Labels(labels), _Labels(other.replace('0.09', '0.08')))
  assert not _Same(_Labels(labels), _Labels(other.replace('populate', 'x')))


def test_committed_fixtures_are_what_the_code_publishes(results_files):
  for name, path in results_files.items():
    assert _Same(_Comparable(FIXTURES / name), _Comparable(path)), (
        f'tests/testdata/report/{name} is stale: regenerate it with the'
        ' command in tests/testdata/report/MANIFEST.tsv'
    )


def test_report_on_the_benchmark_run_results(tmp_path):
  """The results file PKB's publisher wrote of the benchmark's own Run.

  tests/shell/test_run_pkb.py checks that the committed file is what Run and
  PKB's collector publish today.
  """
  text = CheckReport(tmp_path, [RUN_RESULTS])
  assert '[1] scylla 2026.3.1' in text
  throughput = text.split('\nThroughput\n')[1].split('\n\n')[0]
  rows = {tuple(line.split()[:2]) for line in throughput.splitlines()[1:]}
  assert rows == {
      ('populate', 'WRITE'),
      ('read_small', 'READ'),
      ('read_medium', 'READ'),
      ('read_large', 'READ'),
      ('latency_2000', 'WRITE'),
      ('latency_4000', 'WRITE'),
      ('reads_during_writes', 'READ'),
      ('reads_during_writes', 'WRITE'),
      ('reads_during_writes', 'total'),
      ('mixed', 'READ'),
      ('mixed', 'WRITE'),
      ('mixed', 'total'),
      ('write_only', 'WRITE'),
      ('read_cache', 'READ'),
  }
  # Reads during writes: the writers' response times at their fixed rate.
  assert re.search(r'\n  reads_during_writes +WRITE +rt ', text)
  assert sorted(p.name for p in (tmp_path / 'plots').glob('*.png')) == sorted(
      # Every phase with stress steps (all but quiesce) has its time series.
      [
          f'{phase}_timeseries.png'
          for phase in settings_lib.PHASES
          if phase != 'quiesce'
      ]
      + ['latency_ladder.png', 'quiesce_timeline.png']
  )
