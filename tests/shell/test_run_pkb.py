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

"""The benchmark's Run and Cleanup as PKB calls them, on recording fake VMs.

The config is decoded the way pkb.py decodes it (PKB's flags, the module's
GetConfig, PKB's BenchmarkConfigSpec), the spec is PKB's own BenchmarkSpec
holding three fake servers and four fake loaders, and the samples go through
PKB's SampleCollector (with its default metadata provider) and its JSON
publisher (perfkit_plugins/testing/fake_runs.py). Servers answer with real
ScyllaDB REST responses and tuning files (tests/testdata); loaders serve one
loader's real outputs of a step of the same phase (tests/testdata/stress)
for every run of the plan.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise.

With SCYLLA_PHASES_RUN_FIXTURES=<dir> the test also writes the results file
it published there (that is how tests/testdata/results/ was made).
"""

import collections
import json
import logging
import os
import pathlib
import re
import shlex
import shutil
import threading

import pytest

from perfkit_plugins import version
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import metadata_reference
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import cluster
from perfkit_plugins.operations import run_sequence
from perfkit_plugins.testing import expected_samples
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import pkb  # Defines every flag pkb.py has.
from perfkitbenchmarker import errors
from perfkitbenchmarker import events
from perfkitbenchmarker import publisher
from perfkitbenchmarker import sample
from perfkitbenchmarker import vm_util
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as bm
from perfkit_plugins.shell import package_settings
from perfkit_plugins.shell import samples as samples_lib
from perfkit_plugins.shell import run_settings
from perfkit_plugins.shell import step_signals
from perfkit_plugins.testing import fake_runs
from perfkit_plugins.testing import server_outputs

# pylint: enable=g-import-not-at-top,wrong-import-position,g-bad-import-order

FLAGS = flags.FLAGS
REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS_FIXTURE = REPO / 'tests' / 'testdata' / 'results'
RESULTS_NAME = 'scylla_phases_fake_run.json'
FIXTURES_ENV = 'SCYLLA_PHASES_RUN_FIXTURES'
# Small settings as the real captures ran (tests/testdata/stress): 4 x
# 200,000 keys (one real 200,000-key populate run per loader), 30 s timed
# steps, 1 s HDR intervals, 50 threads (16 for fixed-rate writers, 8 for
# readers during writes), fixed rates of 500 and 1,000 op/s per loader, two
# writers at 1,000 op/s and two readers starting 10 s later during writes;
# no settle window (the fake servers are idle at once).
ARGS = (
    '--run_uri=fakerun1',
    (
        '--scylla_phases=populate,quiesce,read,latency,reads_during_writes,mixed,'
        'write_only,read_cache'
    ),
    '--scylla_num_keys=800000',
    '--scylla_loader_count=4',
    '--scylla_threads=50',
    '--scylla_populate_threads=50',
    '--scylla_durations=all=30,warmup=0,rdw_read_delay=10',
    '--scylla_latency_rates=2000,4000',
    '--scylla_latency_threads=16',
    '--scylla_rdw_write_rate=2000',
    '--scylla_rdw_read_threads=8',
    '--scylla_hdr_interval_s=1',
    '--scylla_quiesce_poll_s=1',
    '--scylla_quiesce_settle_s=0',
    '--scylla_quiesce_timeout_s=60',
)
STEPS = (
    ('populate', 'schema'),
    ('populate', 'populate'),
    ('quiesce', 'quiesce'),
    ('read', 'read_small'),
    ('read', 'read_medium'),
    ('read', 'read_large'),
    ('latency', 'latency_2000'),
    ('latency', 'flush_quiesce_before_latency_4000'),
    ('latency', 'latency_4000'),
    ('reads_during_writes', 'reads_during_writes'),
    ('mixed', 'mixed'),
    ('write_only', 'write_only'),
    ('read_cache', 'read_cache'),
)


@pytest.fixture
def run_dir(tmp_path, monkeypatch):
  """PKB's run directory of this run (vm_util.GetTempDir)."""
  path = tmp_path / 'run'
  path.mkdir()
  monkeypatch.setattr(vm_util, 'GetTempDir', lambda: str(path))
  return path


@pytest.fixture
def parsed_flags():
  """PKB's flags parsed from ARGS; every flag is restored afterwards."""
  with flagsaver.flagsaver():
    FLAGS(['pkb.py', *ARGS])
    yield FLAGS


@pytest.fixture
def spec(parsed_flags, run_dir, testdata, serve_stress_outputs):
  """PKB's BenchmarkSpec of a decoded config, with fake VMs in its groups."""
  del run_dir
  benchmark_spec = fake_runs.BenchmarkSpec(bm, parsed_flags, testdata)
  loaders = benchmark_spec.vm_groups['loaders']
  serve_stress_outputs(loaders, Plan(benchmark_spec))
  server_outputs.Serve(
      benchmark_spec.vm_groups['servers'],
      loaders,
      Plan(benchmark_spec),
      testdata,
  )
  return benchmark_spec


Plan = fake_runs.Plan


class Recorded:
  """Receivers of the step signals and PKB's record_event, while in use."""

  def __init__(self):
    self.started, self.finished, self.events = [], [], []

  def _Started(self, sender, benchmark_spec, step):
    self.started.append((sender, benchmark_spec, step.name))

  def _Finished(self, sender, benchmark_spec, step, outcome):
    self.finished.append((sender, benchmark_spec, step.name, outcome.status))

  def _Event(self, sender, event, start_timestamp, end_timestamp, metadata):
    self.events.append(
        (sender, event, start_timestamp <= end_timestamp, metadata)
    )

  def __enter__(self):
    step_signals.STEP_STARTED.connect(self._Started, weak=False)
    step_signals.STEP_FINISHED.connect(self._Finished, weak=False)
    events.record_event.connect(self._Event, weak=False)
    return self

  def __exit__(self, *exc):
    step_signals.STEP_STARTED.disconnect(self._Started)
    step_signals.STEP_FINISHED.disconnect(self._Finished)
    events.record_event.disconnect(self._Event)


def RunAsPkb(benchmark_spec):
  """Calls the module's Run as pkb.py does, with observers connected."""
  with Recorded() as recorded:
    samples = fake_runs.RunStage(benchmark_spec)
  return samples, recorded


def ByStep(samples):
  steps = collections.defaultdict(list)
  for s in samples:
    steps[s.metadata['scylla_step']].append(s)
  return steps


def Metrics(samples):
  return {s.metric for s in samples}


def One(samples, metric):
  (found,) = [s for s in samples if s.metric == metric]
  return found


def ContractProblems(samples):
  """What PKB samples publish that docs/metadata.md does not say."""
  return Problems((s.metric, s.unit, s.metadata) for s in samples)


def Problems(samples, typed=True):
  """Problems of (metric, unit, metadata) of samples, values typed or not."""
  return sorted({
      problem
      for metric, unit, metadata in samples
      for problem in metadata_reference.SampleProblems(
          metric, unit, metadata, typed
      )
  })


def test_run_publishes_every_step(spec, run_dir, tmp_path):
  samples, recorded = RunAsPkb(spec)
  assert all(isinstance(s, sample.Sample) for s in samples)
  # Every metric, unit, key and type is the reference's.
  assert not ContractProblems(samples)
  by_step = ByStep(samples)
  assert list(by_step) == [name for _, name in STEPS]
  for phase, name in STEPS:
    step_samples = by_step[name]
    assert {s.metadata['scylla_phase'] for s in step_samples} == {phase}
    status = One(step_samples, 'phase_status')
    assert status.value == 1, status.metadata
    assert status.metadata['scylla_status'] == 'ok'
    if name == 'quiesce':
      assert Metrics(step_samples) == expected_samples.COMPACTION_METRICS | {
          'populate_time',
          'time_to_compact',
          'total_time_to_quiesce',
      }
      populate_time = One(step_samples, 'populate_time').value
      assert populate_time > 0
      # Nothing of keyspace1 in the servers' history: compaction ended
      # with the load.
      assert One(step_samples, 'total_time_to_quiesce').value == populate_time
    elif name.startswith('flush_quiesce'):
      assert Metrics(step_samples) == expected_samples.COMPACTION_METRICS | {
          'time_to_compact'
      }
    elif name == 'schema':
      assert Metrics(step_samples) == {'phase_status'}
    else:
      assert Metrics(step_samples) == (
          expected_samples.STRESS_METRICS
          | expected_samples.SERVER_METRICS
          | expected_samples.SCYLLA_SERVER_METRICS
      )
  # The cluster the samples describe, read back from the servers.
  op_rate = [s for s in by_step['populate'] if s.metric == 'op_rate'][0]
  assert op_rate.metadata['scylla_version'] == fake_runs.VERSION
  assert op_rate.metadata['scylla_servers'] == 3
  assert op_rate.metadata['scylla_server_vcpus'] == 3 * fake_runs.SERVER_VCPUS
  assert op_rate.metadata['scylla_shards'] == 3 * 80
  assert op_rate.metadata['scylla_loaders'] == 4
  assert op_rate.metadata['scylla_data_disks'] == 12
  assert op_rate.metadata['scylla_data_device'] == '/dev/md0'
  assert op_rate.metadata['scylla_data_mount_options'] == 'rw,noatime,discard'
  assert op_rate.metadata['scylla_price_usd_per_hour'] > 0

  def Ops(name):
    return {
        s.metadata['scylla_op'] for s in by_step[name] if s.metric == 'op_rate'
    }

  def Kinds(name, op):
    return sorted(
        s.metadata['scylla_latency_kind']
        for s in by_step[name]
        if s.metric == 'latency_p99' and s.metadata['scylla_op'] == op
    )

  assert Ops('populate') == {'WRITE'}
  assert Ops('read_large') == {'READ'}
  assert Ops('mixed') == {'READ', 'WRITE', 'total'}
  assert Ops('write_only') == {'WRITE'}
  assert Ops('read_cache') == {'READ'}
  assert Ops('reads_during_writes') == {'READ', 'WRITE', 'total'}
  assert Kinds('read_small', 'READ') == ['st']
  assert Kinds('latency_2000', 'WRITE') == ['rt', 'st']
  assert Kinds('mixed', 'READ') == ['st']
  # Reads during writes: the writers' fixed rate has response times, the
  # readers' closed loop service times only.
  assert Kinds('reads_during_writes', 'WRITE') == ['rt', 'st']
  assert Kinds('reads_during_writes', 'READ') == ['st']
  # Time series as PKB makes them: values, timestamps (ms) and interval.
  series = [
      s
      for s in samples
      if s.metric.endswith('_series') and not s.metric.startswith('server_')
  ]
  assert len(series) == sum(
      1 + len(Kinds(name, op)) for name in by_step for op in Ops(name)
  )
  for s in series:
    values = s.metadata[sample.VALUES]
    assert len(values) == len(s.metadata[sample.TIMESTAMPS]) > 20
    assert s.metadata[sample.INTERVAL] == 1
    assert s.value == 0
    window = (
        s.metadata['scylla_window_start'],
        s.metadata['scylla_window_end'],
    )
    first_s = s.metadata[sample.TIMESTAMPS][0] / 1000
    # The window is the time every loader of the step ran; the writers of
    # reads during writes start 10 s before their readers.
    early = 10 if s.metadata['scylla_step'] == 'reads_during_writes' else 0
    assert window[0] - 2 - early <= first_s <= window[1], (
        s.metadata['scylla_step'],
        s.metadata['scylla_op'],
        window[0] - first_s,
    )

  # Each server's CPU over each stress step, a sample every 5 s or so.
  cpu_series = [s for s in samples if s.metric == 'server_cpu_busy_series']
  assert len(cpu_series) == 3 * len(
      [name for name in by_step if 'op_rate' in Metrics(by_step[name])]
  )
  for s in cpu_series:
    assert s.metadata[sample.INTERVAL] == pytest.approx(5)
    assert all(0 <= v <= 100 for v in s.metadata[sample.VALUES])
  # Where each step's limit was: the fake servers' busiest shard is 93%
  # busy (testing/server_outputs.py).
  limits = {
      s.metadata['scylla_step']: s.metadata['scylla_limit']
      for s in samples
      if s.metric == 'op_rate'
  }
  assert set(limits.values()) == {'servers'}, limits
  busiest = [s for s in samples if s.metric == 'server_busy_max']
  assert [s.value for s in busiest] == pytest.approx([93.0] * len(limits))
  assert {s.metadata['scylla_server_busy_of'] for s in busiest} == {
      'busiest shard'
  }

  # Observers heard every step once, in order; PKB's tracer too.
  names = [name for _, name in STEPS]
  assert [r[2] for r in recorded.started] == names
  assert [r[2:] for r in recorded.finished] == [(n, 'ok') for n in names]
  assert {r[:2] for r in recorded.started + recorded.finished} == {
      (bm.BENCHMARK_NAME, spec)
  }
  assert [(e[1], e[2]) for e in recorded.events] == [
      (f'scylla_phases.{n}', True) for n in names
  ]
  assert [e[3]['scylla_phase'] for e in recorded.events] == [
      phase for phase, _ in STEPS
  ]

  # Raw outputs: every loader's files of every stress step, and the
  # step's record of loader times on the controller's clock.
  steps_dir = run_dir / 'scylla_phases' / 'steps'
  for step in Plan(spec):
    if step.kind == 'stress':
      files = set(os.listdir(steps_dir / step.name))
      assert run_sequence.RECORD_FILE in files
      assert run_sequence.SERVERS_FILE in files
      # Each loader's files, and each server's host file and scrapes.
      assert len(files) == len(loader_files.FILE_KINDS) * len(
          step.runs
      ) + 2 + 2 * len(spec.vm_groups['servers'])
      record = json.loads(
          (steps_dir / step.name / run_sequence.RECORD_FILE).read_text()
      )
      assert record['step_name'] == step.name
      assert [l['loader_index'] for l in record['loaders']] == [
          r.loader_index for r in step.runs
      ]
      assert all(l['exit_code'] == 0 for l in record['loaders'])
  offsets = json.loads(
      (run_dir / 'scylla_phases' / bm.CLOCK_OFFSETS_FILE).read_text()
  )
  assert sorted(offsets) == sorted(vm.name for vm in spec.vms)
  assert all(set(o) == {'offset_s', 'uncertainty_s'} for o in offsets.values())

  # Through PKB's own publisher, with its default metadata.
  published = fake_runs.Publish(bm, spec, samples, tmp_path / 'results.json')
  assert len(published) == len(samples)
  first = published[0]
  assert first['test'] == 'scylla_phases'
  assert first['run_uri'] == spec.uuid
  assert '|scylla_step:schema|' in first['labels']
  assert '|servers_machine_type:z3-highmem-88|' in first['labels']
  assert '|loaders_vm_count:4|' in first['labels']
  # Every sample says which code made it.
  assert {Labels(s)[samples_lib.VERSION_KEY] for s in published} == {
      version.Published()
  }
  if os.environ.get(FIXTURES_ENV):
    shutil.copy(
        tmp_path / 'results.json',
        os.path.join(os.environ[FIXTURES_ENV], RESULTS_NAME),
    )
  assert SampleKeys(published) == SampleKeys(
      CommittedResults()
  ), f'tests/testdata/results/{RESULTS_NAME} is stale: see its README.md'

  bm.Cleanup(spec)
  CheckCleanup(spec, run_dir)


def test_every_step_says_where_the_run_is(spec, run_dir, caplog):
  del run_dir
  with caplog.at_level(logging.INFO):
    RunAsPkb(spec)
  lines = [
      r.getMessage()
      for r in caplog.records
      if r.getMessage().startswith('scylla_phases RUN: step ')
  ]
  assert len(lines) == len(STEPS)
  assert lines[0].startswith(
      f'scylla_phases RUN: step 1 of {len(STEPS)}, schema;'
  )
  assert lines[-1].startswith(
      f'scylla_phases RUN: step {len(STEPS)} of {len(STEPS)}, read_cache;'
  )
  assert all(' elapsed, about ' in line for line in lines)


def test_repeats_publish_every_repeat_and_each_figure_across_them(
    spec, run_dir, serve_stress_outputs
):
  del run_dir
  with flagsaver.flagsaver(
      scylla_repeats=2,
      scylla_durations=['all=30', 'rdw_read_delay=10'],
  ):
    # The loaders serve the repeated plan's runs (the newest reply wins).
    serve_stress_outputs(spec.vm_groups['loaders'], Plan(spec))
    samples, _ = RunAsPkb(spec)
  assert not ContractProblems(samples)
  rows = [s for s in samples if s.metadata['scylla_step'] == 'read_small']
  op_rates = {
      s.metadata['scylla_repeat']: s
      for s in rows
      if s.metric == 'op_rate' and s.metadata.get('scylla_op') == 'READ'
  }
  # Both repeats, and the figure across them (repeat 0) with its interval.
  assert sorted(op_rates) == [0, 1, 2]
  across = op_rates[0]
  assert across.metadata['scylla_ci_covers'] == 'within_cluster'
  assert across.metadata['scylla_ci_low'] <= across.value
  assert across.value <= across.metadata['scylla_ci_high']
  for repeat in (1, 2):
    one = op_rates[repeat].metadata
    assert one['scylla_repeats'] == 2
    assert one['scylla_ci_covers'] == 'within_run'
    assert one['scylla_cluster'] == spec.uuid
  # Populate ran once; warm-ups are never aggregated.
  populate = [s for s in samples if s.metadata['scylla_step'] == 'populate']
  assert {s.metadata['scylla_repeat'] for s in populate} == {1}
  warmups = [s for s in samples if s.metadata.get('scylla_warmup')]
  assert warmups and 0 not in {s.metadata['scylla_repeat'] for s in warmups}


def Labels(published_sample):
  """A published sample's metadata, from its collapsed labels."""
  fields = published_sample['labels'][1:-1].split('|,|')
  return dict(field.split(':', 1) for field in fields)


def SampleKeys(published):
  """What identifies each published sample, in order."""
  keys = []
  for s in published:
    labels = Labels(s)
    keys.append((
        s['metric'],
        s['unit'],
        labels['scylla_step'],
        labels.get('scylla_op'),
        labels.get('scylla_latency_kind'),
    ))
  return keys


def CommittedResults():
  text = (RESULTS_FIXTURE / RESULTS_NAME).read_text()
  return [json.loads(line) for line in text.splitlines()]


def CheckCleanup(benchmark_spec, run_dir):
  """Every server's logs and configs were pulled, then it was stopped."""
  engine = scylla.ScyllaEngine(
      run_settings.SettingsFromConfig(benchmark_spec.config), vm_util.VM_TMP_DIR
  )
  for vm in benchmark_spec.vm_groups['servers']:
    # After each stress step's samples (server_sampling), its logs.
    pulled = [remote for _, remote in vm.pulled]
    logs = engine.LogPaths()
    assert pulled[-len(logs) :] == logs
    assert all('.server' in remote for remote in pulled[: -len(logs)])
    assert vm.CommandsMatching(r'journalctl -u scylla-server')
    assert vm.CommandsMatching(r'systemctl stop scylla-server')
    # Only from a data directory this run (--run_uri) claimed.
    assert vm.CommandsMatching(
        r'^if \[ "\$\(cat /var/lib/scylla/.scylla_phases_owner .*\)" ='
        r' fakerun1 \]; then \{ sudo rm -rf /var/lib/scylla/data/\*'
    )
    kept = run_dir / 'scylla_phases' / 'server_logs' / vm.name / 'scylla.yaml'
    assert kept.read_text().startswith('#')
  # What any step left on a loader is killed by its process group.
  for vm in benchmark_spec.vm_groups['loaders']:
    assert vm.CommandsMatching(r'^for f in /tmp/pkb/scylla_phases/\*\.pgid;')
  report = json.loads((run_dir / 'scylla_phases' / bm.CLEANUP_FILE).read_text())
  assert set(report['servers'].values()) == {''}
  assert set(report['loaders'].values()) == {'0 run(s) stopped'}
  assert set(report['samplers'].values()) == {'0 sampler(s) stopped'}


def FailLoader(benchmark_spec, step_name, index):
  """Makes loader `index`'s command of a step fail, as a lost ssh does."""
  (run,) = [
      r
      for step in Plan(benchmark_spec)
      if step.name == step_name
      for r in step.runs
      if r.loader_index == index
  ]
  benchmark_spec.vm_groups['loaders'][index].Reply(
      r'stress_run\.sh ' + re.escape(run.stem) + ' ',
      fail=True,
      stderr='Connection reset by peer',
  )


def Published(path):
  """Samples in a NewlineDelimitedJSONPublisher file, labels as dicts."""
  published = [json.loads(line) for line in path.read_text().splitlines()]
  for s in published:
    s['labels'] = Labels(s)
  return published


def test_failed_step_publishes_what_was_measured_and_fails_the_run(
    spec, run_dir
):
  FailLoader(spec, 'read_medium', 1)
  with Recorded() as recorded, spec.RedirectGlobalFlags():
    with pytest.raises(errors.Benchmarks.RunError) as raised:
      spec.BenchmarkRun(spec)
  message = str(raised.value)
  assert 'read_medium: failed' in message
  assert 'loader 1 (loader-1)' in message
  assert 'mixed: not_run' in message
  # Published through PKB's default publishers (JSON into the run
  # directory) before the RUN stage failed.
  published = Published(run_dir / 'perfkitbenchmarker_results.json')
  # Collapsed labels: every value is text.
  assert not Problems(
      ((s['metric'], s['unit'], s['labels']) for s in published), typed=False
  )
  by_step = collections.defaultdict(list)
  for s in published:
    by_step[s['labels']['scylla_step']].append(s)
  assert list(by_step) == [name for _, name in STEPS]
  statuses = {
      name: next(
          (s['value'], s['labels']['scylla_status'])
          for s in step_samples
          if s['metric'] == 'phase_status'
      )
      for name, step_samples in by_step.items()
  }
  assert statuses == {
      'schema': (1, 'ok'),
      'populate': (1, 'ok'),
      'quiesce': (1, 'ok'),
      'read_small': (1, 'ok'),
      'read_medium': (0, 'failed'),
      'read_large': (0, 'not_run'),
      'latency_2000': (0, 'not_run'),
      'flush_quiesce_before_latency_4000': (0, 'not_run'),
      'latency_4000': (0, 'not_run'),
      'reads_during_writes': (0, 'not_run'),
      'mixed': (0, 'not_run'),
      'write_only': (0, 'not_run'),
      'read_cache': (0, 'not_run'),
  }
  # The figures measured before the failure are all there, with PKB's
  # default metadata.
  metrics = {n: {s['metric'] for s in v} for n, v in by_step.items()}
  assert 'op_rate' in metrics['read_small']
  assert 'total_time_to_quiesce' in metrics['quiesce']
  for name in ('read_medium', 'read_large', 'mixed'):
    assert metrics[name] == {'phase_status'}
  assert all(s['labels']['perfkitbenchmarker_version'] for s in published)
  error = next(
      s['labels']['scylla_error']
      for s in by_step['read_medium']
      if s['metric'] == 'phase_status'
  )
  assert 'loader 1 (loader-1): command failed' in error
  assert [r[2:] for r in recorded.finished][-1] == ('read_medium', 'failed')
  # The failed step's files of the other loaders were pulled all the same,
  # and the servers' samples of it.
  step_dir = run_dir / 'scylla_phases' / 'steps' / 'read_medium'
  assert len(os.listdir(step_dir)) == len(loader_files.FILE_KINDS) * 3 + 2 + 6
  failed = json.loads((step_dir / run_sequence.RECORD_FILE).read_text())
  assert 'command failed' in failed['loaders'][1]['error']
  # Every step's whole error and plan lists, beside the bounded samples.
  entries = json.loads((run_dir / 'scylla_phases' / bm.STEPS_FILE).read_text())
  assert [(e['step'], e['status']) for e in entries] == [
      (name, status) for name, (_, status) in statuses.items()
  ]
  (medium,) = [e for e in entries if e['step'] == 'read_medium']
  assert 'loader 1 (loader-1): command failed' in medium['error']
  (populate,) = [e for e in entries if e['step'] == 'populate']
  assert len(populate['metadata']['loader_key_ranges']) == 4
  bm.Cleanup(spec)
  CheckCleanup(spec, run_dir)


def test_pkb_fails_the_run_stage_and_still_cleans_up(
    spec, run_dir, tmp_path, monkeypatch
):
  """pkb.py's RunBenchmark (run and cleanup stages) on a failing last step.

  Run publishes its samples and raises: PKB records the failure on the RUN
  stage and calls Cleanup (always_call_cleanup), once.
  """
  FailLoader(spec, 'mixed', 3)
  monkeypatch.setattr(spec, 'Pickle', lambda: None)
  FLAGS.run_stage = ['run', 'cleanup']
  FLAGS.create_failed_run_samples = True
  # PKB's own per-VM samples (lscpu, /proc/cpuinfo, ...) are not ours.
  for name in (
      'record_lscpu',
      'record_proccpu',
      'record_cpu_vuln',
      'record_gcc',
      'record_glibc',
  ):
    FLAGS[name].value = False
  path = tmp_path / 'pkb_collector.json'
  collector = publisher.SampleCollector(
      publishers=[publisher.NewlineDelimitedJSONPublisher(str(path))],
      publishers_from_flags=False,
      add_default_publishers=False,
  )
  with pytest.raises(errors.Benchmarks.RunError, match='mixed: failed'):
    pkb.RunBenchmark(spec, collector, register_tracers=False)
  assert spec.always_call_cleanup
  assert spec.status_detail.startswith('scylla_phases steps failed')
  collector.PublishSamples()
  (failed,) = Published(path)
  assert failed['metric'] == 'Run Failed'
  assert failed['labels']['run_stage'] == 'run'
  published = Published(run_dir / 'perfkitbenchmarker_results.json')
  steps = {s['labels']['scylla_step'] for s in published}
  assert steps == {name for _, name in STEPS}
  latency = [
      s
      for s in published
      if s['metric'] == 'op_rate'
      and s['labels']['scylla_step'] == 'latency_4000'
  ]
  assert len(latency) == 1
  CheckCleanup(spec, run_dir)
  for vm in spec.vm_groups['servers']:
    assert len(vm.CommandsMatching(r'systemctl stop scylla-server')) == 1


class SameAddressVm(fake_runs.PkbFakeVm):
  """Equal to any VM of the same address, as PKB's static VMs compare."""

  def __eq__(self, other):
    return self.internal_ip == other.internal_ip

  __hash__ = None


def test_prepare_installs_by_group_and_readies_loaders(spec, monkeypatch):
  # A loader on a server's address (one machine in both groups) equals it.
  servers = spec.vm_groups['servers']
  loader = SameAddressVm('loader-0', servers[0].internal_ip, 'n2-highcpu-32')
  spec.vm_groups['loaders'][0] = loader
  assert loader == servers[0]
  configured = []
  monkeypatch.setattr(
      bm.cluster, 'Configure', lambda env: configured.append(list(env.servers))
  )
  monkeypatch.setattr(bm.cluster, 'Start', lambda *_: None)
  with spec.RedirectGlobalFlags():
    bm.Prepare(spec)
  assert [vm.installed for vm in servers] == [['python', 'scylla_server']] * 3
  for vm in spec.vm_groups['loaders']:
    assert vm.installed == ['scylla_cassandra_stress'], vm.name
    # PKB's helper for long commands is set up before the first step.
    assert vm.robust_commands == [('true', None)], vm.name
  assert configured == [servers]
  # Every VM's installers get the run's settings (one object, validated).
  attached = {
      id(package_settings.ForPackage(vm))
      for vm in servers + spec.vm_groups['loaders']
  }
  assert len(attached) == 1


def PrepareFailingBringUp(spec, monkeypatch, prepare_loader, on_start):
  """Runs Prepare whose server start calls on_start(), then fails.

  The servers' error must reach pkb.py as itself, not as PKB's
  ThreadException.
  """

  def Start(_):
    on_start()
    raise cluster.BringUpError('pkb-server-1 (10.0.0.2): the process ended')

  monkeypatch.setattr(bm, '_PrepareLoader', prepare_loader)
  monkeypatch.setattr(bm.cluster, 'Configure', lambda env: None)
  monkeypatch.setattr(bm.cluster, 'Start', Start)
  with spec.RedirectGlobalFlags():
    with pytest.raises(cluster.BringUpError, match='pkb-server-1'):
      bm.Prepare(spec)


def test_prepare_readies_the_loaders_while_the_servers_start(spec, monkeypatch):
  starting, readied = threading.Event(), threading.Event()
  prepare_loader = bm._PrepareLoader

  def PrepareLoader(vm):
    # Were the loaders readied before the servers start (or after), one
    # of these waits would run out.
    assert starting.wait(10), 'the loaders were readied first'
    prepare_loader(vm)
    readied.set()

  def OnStart():
    starting.set()
    assert readied.wait(10), 'the loaders waited for the servers'

  PrepareFailingBringUp(spec, monkeypatch, PrepareLoader, OnStart)
  for vm in spec.vm_groups['loaders']:
    assert vm.robust_commands == [('true', None)], vm.name


def test_prepare_raises_the_first_error_and_logs_the_others(
    spec, monkeypatch, caplog
):
  def PrepareLoader(vm):
    raise RuntimeError(f'{vm.name}: no space left')

  PrepareFailingBringUp(spec, monkeypatch, PrepareLoader, lambda: None)
  logged = [r for r in caplog.records if 'also failed' in r.getMessage()]
  assert sorted(r.getMessage() for r in logged) == sorted(
      f'scylla_phases PREPARE: also failed: RuntimeError: {vm.name}: no space'
      ' left'
      for vm in spec.vm_groups['loaders']
  )
  assert all(r.exc_info for r in logged)


def test_loader_jvms_are_pinned_and_published(spec, run_dir):
  """Each loader's cassandra-stress runs on a fixed, pre-touched heap with
  generational ZGC and logs its stops; samples say so and show the stops.

  The loaders are n2-highcpu-32 (32 GiB: an 8 GiB heap) with Java 25 linked
  beside the tool.
  """
  del run_dir
  samples, _ = RunAsPkb(spec)
  options = (
      '-Xms8192m -Xmx8192m -XX:+AlwaysPreTouch -XX:+UseZGC'
      ' -Xlog:safepoint=info,gc=info:file={stem}.jvm'
      ':timemillis,uptime,level,tags:filecount=0'
  )
  for step in Plan(spec):
    if step.kind != 'stress':
      continue
    for run in step.runs:
      vm = spec.vm_groups['loaders'][run.loader_index]
      (command,) = [
          c
          for c in vm.CommandsMatching(r'stress_run\.sh ')
          if shlex.split(c)[4] == run.stem
      ]
      assert shlex.split(command)[7] == 'JVM_OPTS=' + options.format(
          stem=run.stem
      )
  op_rate = next(s for s in samples if s.metric == 'op_rate')
  assert op_rate.metadata['scylla_loader_gc'] == 'zgc'
  assert op_rate.metadata['scylla_loader_heap_mib'] == 8192
  assert op_rate.metadata['scylla_loader_java'] == 25
  assert op_rate.metadata['scylla_loader_jvm_options'] == options.format(
      stem='STEM'
  )
  stops = [s for s in samples if s.metric == 'loader_stop_max']
  assert len(stops) == len(
      [step for step in Plan(spec) if step.kind == 'stress']
  )
  # Each step's loaders serve one real log (java25-zgc.jvm), moved to the
  # run's start: its longest stop inside the step's window.
  assert {s.value for s in stops} <= {0.858223, 0.340159, 0.0}
  assert max(s.value for s in stops) == 0.858223
  # A step whose loaders stopped was stopped for a share of its window.
  for s in stops:
    assert (s.metadata['scylla_loader_stopped_pct'] > 0) == (s.value > 0)
