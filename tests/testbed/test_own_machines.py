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

"""The whole benchmark on real machines: stock pkb.py, static VMs, a mirror.

Three Apache Cassandra servers (RF 3, QUORUM) and two loaders of the test
bed run every default phase, installed from the mirror (the Cassandra
tarball checked against a checksum given by flag, cassandra-stress against
the one published beside it). The run goes in PKB's stages, each its own
pkb.py process with one --run_uri: provision, prepare and run; then the
table is read back over CQL; then cleanup and teardown. Everything is
checked from the results file, the run directory and the machines alone,
with parsers written here, not the benchmark's.
"""

import json
import os
import re

import hdrh.histogram
import hdrh.log
from cassandra import cluster as cql_cluster
import pytest

from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import expected_samples
from perfkit_plugins.testing import results_files
from perfkit_plugins.testing import testbed as testbed_lib

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

NUM_KEYS = 20000
PRICE = 0.25
FLAGS = testbed_lib.SHORT_RUN_FLAGS | {
    'scylla_num_keys': NUM_KEYS,
    'scylla_server_price_per_hour': PRICE,
}
STRESS_STEPS = (
    'populate',
    'read_small',
    'read_medium',
    'read_large',
    'latency_200',
    'latency_400',
    'reads_during_writes',
    'mixed',
)
QUIESCE_STEPS = ('quiesce', 'flush_quiesce_before_latency_400')
# The metrics of a stress step published once per step, not per op type.
PER_STEP = frozenset({
    'loader_cpu_max',
    'loader_stop_max',
    'loader_start_skew',
    'loader_end_skew',
    'phase_status',
})
# Per shard: ScyllaDB only.
STRESS_METRICS = expected_samples.STRESS_METRICS - {'op_rate_per_shard'}
# `Total partitions : 4,888 [READ: 2,507, WRITE: 2,381]`: one partition
# per operation in every command the benchmark runs.
_TOTALS = re.compile(r'^Total partitions\s*:\s*[\d,]+\s*\[(.*)\]$', re.M)


def _ByStep(samples):
  steps = {}
  for s in samples:
    steps.setdefault(s['labels']['scylla_step'], []).append(s)
  return steps


def _HdrCounts(path):
  """{tag: operations} of an HDR interval log, decoded with hdrh."""
  counts = {}
  reader = hdrh.log.HistogramLogReader(
      str(path), hdrh.histogram.HdrHistogram(1, 3600 * 10**9, 3)
  )
  while True:
    histogram = reader.get_next_interval_histogram()
    if histogram is None:
      return counts
    tag = histogram.get_tag()
    counts[tag] = counts.get(tag, 0) + histogram.get_total_count()


def _TextLogCounts(path):
  """{op: operations} of a cassandra-stress text log's Results block."""
  match = _TOTALS.search(path.read_text())
  if not match:
    return {}
  return {
      op.strip(): int(count.replace(',', ''))
      for op, count in (part.split(':') for part in match.group(1).split(', '))
  }


def _CheckSamples(samples):
  steps = _ByStep(samples)
  assert set(steps) == set(STRESS_STEPS + QUIESCE_STEPS) | {
      'schema',
      'read_warmup',
  }
  for step, rows in steps.items():
    statuses = [s['value'] for s in rows if s['metric'] == 'phase_status']
    assert statuses == [1], (step, statuses)
    metrics = {s['metric'] for s in rows}
    if step == 'schema':
      assert metrics == {'phase_status'}
      continue
    if step in QUIESCE_STEPS:
      assert expected_samples.COMPACTION_METRICS <= metrics, (step, metrics)
      continue
    assert STRESS_METRICS <= metrics, (step, metrics)
    assert expected_samples.CASSANDRA_SERVER_METRICS <= metrics, step
    for op in {s['labels'].get('scylla_op') for s in rows} - {None}:
      op_metrics = {
          s['metric'] for s in rows if s['labels'].get('scylla_op') == op
      }
      assert STRESS_METRICS - PER_STEP <= op_metrics, (step, op, op_metrics)
  quiesce = {s['metric'] for s in steps['quiesce']}
  assert {'populate_time', 'time_to_compact', 'total_time_to_quiesce'} <= (
      quiesce
  )
  assert not any(s['metric'] == 'op_rate_per_shard' for s in samples)


def _CheckLabels(samples, results_text):
  """Own machines carry no invented type, and only the price given."""
  assert 'z3-highmem' not in results_text
  assert 'n2-highcpu' not in results_text
  for s in samples:
    labels = s['labels']
    assert labels['scylla_server_machine_type'] == ''
    assert labels['scylla_engine'] == 'cassandra'
    assert labels['scylla_version'] == cassandra_node.CASSANDRA_50
    assert labels['scylla_stress_version'] == testbed_lib.STRESS_RELEASE
    # What the machines report (they are this host's namespaces).
    assert labels['scylla_server_node_vcpus'] == str(os.cpu_count())
    assert labels['scylla_consistency_level'] == 'QUORUM'
    assert labels['scylla_replication_factor'] == '3'
    if 'scylla_price_source' in labels:
      assert labels['scylla_price_source'].startswith('user override')
      assert float(labels['scylla_server_price_usd_per_hour']) == PRICE
  volume = samples[0]['labels']
  assert volume['scylla_data_device'].count(testbed_lib.PREFIX) == 3
  assert volume['scylla_data_fstype']


def _CheckRawOutputs(run_dir, samples):
  """Each loader's HDR log holds what its text log counted; ranges cover."""
  steps_dir = run_dir / 'scylla_phases' / 'steps'
  for step in STRESS_STEPS:
    record = json.loads((steps_dir / step / 'loaders.json').read_text())
    assert len(record['loaders']) == 2
    # Every loader of a step starts at once (the readers during writes
    # start the planned 3 s later).
    starts = [
        l['start_s'] - (3 if step == 'reads_during_writes' else 0) * i
        for i, l in enumerate(record['loaders'])
    ]
    assert max(starts) - min(starts) < 1, (step, starts)
    for loader in record['loaders']:
      assert loader['exit_code'] == 0 and not loader['missing_files'], loader
      stem = f'{step}.loader{loader["loader_index"]}'
      text = _TextLogCounts(steps_dir / step / f'{stem}.log')
      hdr = _HdrCounts(steps_dir / step / f'{stem}.hdr')
      assert text, (step, loader)
      for op, count in text.items():
        assert hdr[f'{op}-st'] == count, (step, loader, op)
        if f'{op}-rt' in hdr:
          assert hdr[f'{op}-rt'] == count, (step, loader, op)
  (populate,) = [
      s
      for s in samples
      if s['metric'] == 'operations'
      and s['labels']['scylla_step'] == 'populate'
  ]
  ranges = [
      tuple(map(int, r.split('..')))
      for r in (
          populate['labels']['scylla_loader_key_ranges'].strip('[]').split(',')
      )
  ]
  keys = [k for first, last in ranges for k in range(first, last + 1)]
  assert sorted(keys) == list(range(1, NUM_KEYS + 1))
  assert populate['value'] == NUM_KEYS


def _CpuShares(path):
  """Busy share of each interval between a host file's /proc/stat lines."""
  jiffies = []
  for line in path.read_text().splitlines():
    words = line.split()
    if len(words) > 9 and words[1] == 'cpu':
      counted = [int(w) for w in words[2:10]]
      # user nice system idle iowait irq softirq steal: idle and iowait
      # are not busy.
      jiffies.append((sum(counted), sum(counted) - counted[3] - counted[4]))
  return [
      100 * (busy - busy0) / (total - total0)
      for (total0, busy0), (total, busy) in zip(jiffies, jiffies[1:])
      if total > total0
  ]


def _CheckServerEvidence(run_dir, samples):
  """Each server's load of each stress step, and where its limit was.

  The published CPU share of a server lies within the busy shares of its
  own samples' intervals (read here from the pulled host file), and every
  stress sample says where the step's limit was.
  """
  steps_dir = run_dir / 'scylla_phases' / 'steps'
  steps = _ByStep(samples)
  for step in STRESS_STEPS:
    rows = steps[step]
    limits = {
        s['labels']['scylla_limit']
        for s in rows
        if 'scylla_op' in (s['labels'])
    }
    assert len(limits) == 1 and limits <= {
        'servers',
        'disk',
        'loaders',
        'servers+disk',
        'loaders+servers',
        'loaders+disk',
        'loaders+servers+disk',
        'none',
    }, (step, limits)
    cpu = {
        int(s['labels']['scylla_server_index']): s['value']
        for s in rows
        if s['metric'] == 'server_cpu_busy'
    }
    assert sorted(cpu) == list(range(len(testbed_lib.SERVERS))), (step, cpu)
    for index, value in cpu.items():
      shares = _CpuShares(steps_dir / step / f'{step}.server{index}.host')
      assert min(shares) - 0.5 <= value <= max(shares) + 0.5, (step, index)
    series = [s for s in rows if s['metric'] == 'server_cpu_busy_series']
    assert len(series) == len(testbed_lib.SERVERS), step
    received = [s for s in rows if s['metric'] == 'server_net_received']
    assert len(received) == len(testbed_lib.SERVERS) and all(
        s['value'] > 0 for s in received
    ), step
    _CheckThreadPools(steps_dir / step, rows, limits.pop())


def _CheckThreadPools(step_dir, rows, limit):
  """Each node's dropped messages are its tpstats' own, end minus start.

  The step's servers.json keeps the two readings as the run parsed them;
  the published count of each node is their difference, and a node that
  dropped any makes the step's limit servers.
  """
  readings = json.loads((step_dir / 'servers.json').read_text())
  dropped = {
      int(s['labels']['scylla_server_index']): s['value']
      for s in rows
      if s['metric'] == 'server_dropped_messages'
  }
  blocked = [s for s in rows if s['metric'] == 'server_blocked_tasks']
  assert len(blocked) == len(readings) == len(dropped), step_dir.name
  for reading in readings:
    start = reading['node']['pools_start']['dropped']
    end = reading['node']['pools_end']['dropped']
    assert 'MUTATION_REQ' in end, step_dir.name
    moved = sum(count - start.get(verb, 0) for verb, count in end.items())
    assert dropped[reading['index']] == moved, step_dir.name
  if any(dropped.values()):
    assert 'servers' in limit, (step_dir.name, limit)


def _CheckQuiesceEnd(run_dir, samples):
  """The published end of compaction is the nodes' history's, within 1 s.

  Quiesce ends when the populate ended or, if later, when the last
  compaction of the benchmark's keyspace ended on any node (its history,
  moved to the controller's clock by the node's offset).
  """
  base = run_dir / 'scylla_phases'
  offsets = json.loads((base / 'clock_offsets.json').read_text())
  for name, offset in offsets.items():
    # The test bed's machines share the host's clock; the uncertainty (half
    # the fastest ssh round trip) stays well inside the 1-s checks below,
    # even on a busy 2-core host.
    assert abs(offset['offset_s']) <= offset['uncertainty_s'] <= 0.25, name
  populate = json.loads((base / 'steps/populate/loaders.json').read_text())
  start = min(l['start_s'] for l in populate['loaders'])
  end = max(l['end_s'] for l in populate['loaders'])
  history = json.loads(
      (base / 'steps/quiesce/compaction_history.json').read_text()
  )
  assert len(history) == 3 and set(history) <= set(offsets)
  ends = [
      entry['compacted_at_ms'] / 1000 - offsets[node]['offset_s']
      for node, entries in history.items()
      for entry in entries
      if entry['keyspace'] == 'keyspace1'
      and entry['compacted_at_ms'] / 1000 - offsets[node]['offset_s'] >= start
  ]
  # The test bed's small memtables make the populate flush and compact.
  assert len(ends) >= 3, 'the populate made no compaction to time'
  quiesce = {
      s['metric']: s['value']
      for s in samples
      if s['labels']['scylla_step'] == 'quiesce'
  }
  assert abs(start + quiesce['total_time_to_quiesce'] - max(ends + [end])) < 1
  assert abs(quiesce['time_to_compact'] - max(0, max(ends) - end)) < 1
  assert abs(quiesce['populate_time'] - (end - start)) < 1
  assert quiesce['compactions'] == len(ends)


def _Partitions(bed):
  """The partitions of the populated table, counted over CQL."""
  addresses = [bed.testbed.machines[n].address for n in testbed_lib.SERVERS]
  cluster = cql_cluster.Cluster(addresses, port=9042)
  try:
    session = cluster.connect()
    session.default_timeout = 120
    row = session.execute('SELECT COUNT(*) FROM keyspace1.standard1').one()
    return row[0]
  finally:
    cluster.shutdown()


def _CheckNothingLeft(bed):
  for name, machine in bed.testbed.machines.items():
    assert machine.Processes() == {}, name
    data = list(machine.data_dir.iterdir())
    assert data == [], (name, data)


def test_a_wrong_checksum_fails_the_install_naming_both_flags(bed, tmp_path):
  # Earlier tests on the shared bed may have installed Cassandra: start bare.
  for name in testbed_lib.SERVERS:
    bed.testbed.machines[name].Enter('rm -rf /opt/pkb/apache-cassandra-*')
  config = bed.Config(
      tmp_path / 'wrong.yaml',
      testbed_lib.SERVERS,
      testbed_lib.LOADERS,
      FLAGS | {'scylla_cassandra_checksum': 'sha512:' + '0' * 128},
  )
  result = bed.Pkb(config, 'wrong1', '--run_stage=provision,prepare')
  assert result.returncode != 0
  log = (bed.RunDir('wrong1') / 'pkb.log').read_text()
  assert re.search(
      r'Apache Cassandra 5\.0\.9 binary tarball: checksum mismatch for'
      r' http://\S+/apache-cassandra-5\.0\.9-bin\.tar\.gz \(set by'
      r' --scylla_cassandra_url\): expected sha512:0{128} \(flag checksum\)',
      log,
  )
  assert 'with --scylla_cassandra_checksum=' in log
  # Nothing was unpacked; nothing runs.
  for name in testbed_lib.SERVERS:
    machine = bed.testbed.machines[name]
    installed = machine.Enter('ls /opt/pkb').stdout.split()
    assert not [f for f in installed if 'cassandra' in f], (name, installed)
    assert machine.Processes() == {}, name
  assert bed.Pkb(config, 'wrong1', '--run_stage=teardown').returncode == 0


def test_every_phase_on_own_machines_through_stock_pkb(bed, tmp_path):
  config = bed.Config(
      tmp_path / 'own_machines.yaml',
      testbed_lib.SERVERS,
      testbed_lib.LOADERS,
      FLAGS,
  )
  first = bed.Pkb(config, 'own1', '--run_stage=provision,prepare,run')
  assert first.returncode == 0, first.stderr[-5000:]
  run_dir = bed.RunDir('own1')
  samples = results_files.StepSamples(run_dir)
  results_text = (run_dir / 'perfkitbenchmarker_results.json').read_text()
  _CheckSamples(samples)
  _CheckLabels(samples, results_text)
  _CheckRawOutputs(run_dir, samples)
  _CheckServerEvidence(run_dir, samples)
  _CheckQuiesceEnd(run_dir, samples)
  assert _Partitions(bed) == NUM_KEYS
  second = bed.Pkb(config, 'own1', '--run_stage=cleanup,teardown')
  assert second.returncode == 0, second.stderr[-5000:]
  _CheckNothingLeft(bed)
