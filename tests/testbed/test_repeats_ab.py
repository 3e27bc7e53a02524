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

"""Repeats and an A/B verdict on real machines, through stock pkb.py.

One prepared cluster (one Apache Cassandra server, two loaders of the test
bed), populated and warmed by a first Run stage (the server's JIT and
cache warm for minutes: reads of a cold server's first round are slower
than its later ones, a drift no statistic should have to absorb), runs the
read phase in two more Run stages: arm A with 16 cassandra-stress threads
per loader, arm B with one, each with three repeats of every read. B is
known to run fewer operations with far shorter tails (no queue behind one
thread). From the repeats' samples alone the report must show B's op rate
lower and its p99.9 lower within this cluster (that interval of B/A below
1) and give no verdict: one cluster per arm cannot tell that from two
clusters' own difference. It writes its JSON and forest plot.

The op rate's interval is not asserted: A's 16 threads a loader saturate
the host's two cores, and its repeats ranged over a factor of two (2,900
to 6,600 op/s), so with B at 40 to 60% of A an interval reached past 1
once in two runs. The p99.9's intervals were at most 0.09 in both.
"""

import json

import pytest

from perfkit_plugins.core.results import results_tables
from perfkit_plugins.testing import testbed as testbed_lib
from perfkit_plugins.tools import report_command

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

SERVER = testbed_lib.SERVERS[0]
LOADERS = testbed_lib.LOADERS
REPEATS = 3
READS = ('read_small', 'read_medium', 'read_large')
FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_replication_factor': 1,
    'scylla_consistency_level': 'ONE',
    'scylla_num_keys': 20000,
    'scylla_populate_threads': 8,
    'scylla_threads': 16,
    'scylla_phases': 'populate,quiesce,read',
    'scylla_durations': 'warmup=5,read=10',
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 3,
    'scylla_quiesce_timeout_s': 120,
} | testbed_lib.LOADER_FLAGS
# Each stage of one staged run: provision, prepare and a warming Run; arm
# A and arm B on the same cluster; cleanup.
STAGE_BOUND_S = 600


def _Published(path):
  """The samples of a results file, their labels as typed metadata."""
  samples = [json.loads(line) for line in path.read_text().splitlines()]
  for s in samples:
    s['labels'] = results_tables.ParseLabels(s['labels'])
  return samples


def test_repeats_show_a_slower_arm_without_a_verdict(bed, tmp_path):
  config = bed.Config(tmp_path / 'ab.yaml', (SERVER,), LOADERS, FLAGS)
  warm_json = tmp_path / 'warm.json'
  a_json, b_json = tmp_path / 'a.json', tmp_path / 'b.json'
  arm = ('--scylla_phases=read', f'--scylla_repeats={REPEATS}')
  stages = (
      ('provision,prepare,run', f'--json_path={warm_json}'),
      ('run', f'--json_path={a_json}', *arm),
      ('run', f'--json_path={b_json}', *arm, '--scylla_threads=1'),
      ('cleanup,teardown',),
  )
  for stage, *args in stages:
    result = bed.Pkb(
        config, 'ab1', f'--run_stage={stage}', *args, timeout=STAGE_BOUND_S
    )
    assert result.returncode == 0, (stage, result.stdout[-3000:])
  populate = [
      s
      for s in _Published(warm_json)
      if s['labels'].get('scylla_step') == 'populate'
  ]
  assert {s['labels']['scylla_repeat'] for s in populate} == {1}

  # Every repeat of every read, and each figure across the repeats with
  # its interval.
  samples = _Published(a_json)
  for step in READS:
    rates = {
        s['labels']['scylla_repeat']: s
        for s in samples
        if s['labels'].get('scylla_step') == step and s['metric'] == 'op_rate'
    }
    assert sorted(rates) == list(range(REPEATS + 1)), step
    across = rates[0]['labels']
    assert across['scylla_ci_covers'] == 'within_cluster'
    assert across['scylla_ci_low'] <= rates[0]['value']
    assert rates[0]['value'] <= across['scylla_ci_high']
    for repeat in range(1, REPEATS + 1):
      assert rates[repeat]['labels']['scylla_ci_covers'] == 'within_run'

  # B (one thread per loader) against A: fewer operations and shorter tails
  # on every read.
  ab_json, forest = tmp_path / 'ab_rows.json', tmp_path / 'forest.png'
  assert (
      report_command.Main([
          str(a_json),
          '--vs',
          str(b_json),
          '--json',
          str(ab_json),
          '--forest',
          str(forest),
      ])
      == 0
  )
  rows = json.loads(ab_json.read_text())['rows']
  rates = {row['step']: row for row in rows if row['metric'] == 'op_rate'}
  tails = {row['step']: row for row in rows if row['metric'] == 'latency_p999'}
  assert set(rates) == set(tails) == set(READS), rows
  for step in READS:
    assert rates[step]['ratio'] < 1, rates[step]
    assert tails[step]['ci_high'] < 1, tails[step]
  for row in rows:
    # The repeats show B differ on this cluster, but one cluster per arm
    # cannot tell that from two clusters' own difference: no verdict.
    assert row['method'] == 'welch_repeats', row
    assert row['verdict'] == 'INCONCLUSIVE', row
    assert row['no_verdict'].startswith('one cluster per arm'), row
  assert forest.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
