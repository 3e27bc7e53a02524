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

"""Results files -> the studies' tables, on files PKB's publisher wrote.

tests/testdata/report/ (see its README.md): PKB results of runs whose
samples came from the benchmark's chain on real cassandra-stress and
nodetool outputs; two loaders, one loader, and the two-loader run with
--nocollapse_labels.
"""

import json

import pytest

from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.results import results_tables

TWO = 'report-2loaders.json'
ONE = 'report-1loader.json'
TWO_METADATA = 'report-2loaders-metadata.json'


@pytest.fixture
def report(testdata):
  """Returns Load(*names) -> [Run] of the fixture files."""

  def Load(*names):
    return results_tables.LoadRuns(
        [(name, testdata('report', name)) for name in names]
    )

  return Load


def _Samples(text):
  return [json.loads(line) for line in text.splitlines()]


def test_labels_are_typed_back(testdata):
  first, *_ = _Samples(testdata('report', TWO))
  metadata = results_tables.ParseLabels(first['labels'])
  assert metadata['scylla_step'] == 'populate'
  assert metadata['scylla_op'] == 'WRITE'
  assert metadata['scylla_loaders'] == 2
  assert metadata['scylla_rate'] == 0
  assert metadata['scylla_loader_saturated'] is False
  assert metadata['scylla_price_usd_per_hour'] == 0.1
  assert metadata['scylla_key_range'] == '1..400000'
  assert metadata['scylla_loader_rates'] == '0,0'
  assert metadata['scylla_version'] == '5.0.2'


def test_collapsed_labels_and_metadata_give_the_same_rows(testdata):
  collapsed = results_tables.ParseResults(testdata('report', TWO))
  plain = results_tables.ParseResults(testdata('report', TWO_METADATA))
  assert len(collapsed) == len(plain) > 50
  for a, b in zip(collapsed, plain):
    assert (a.metric, a.value, a.unit) == (b.metric, b.value, b.unit)
    assert (a.step, a.op, a.kind) == (b.step, b.op, b.kind)
  series = [r for r in collapsed if r.metric == 'op_rate_series']
  plain_series = [r for r in plain if r.metric == 'op_rate_series']
  assert [r.metadata['values'] for r in series] == [
      r.metadata['values'] for r in plain_series
  ]


def test_samples_of_other_benchmarks_are_ignored(testdata):
  samples = _Samples(testdata('report', TWO_METADATA))
  other = dict(samples[0], metric='End to End Runtime', test='other')
  other['metadata'] = {
      k: v for k, v in other['metadata'].items() if k != 'scylla_step'
  }
  text = '\n'.join(json.dumps(s) for s in [other] + samples)
  assert len(results_tables.ParseResults(text)) == len(samples)


def test_unreadable_lines_are_named(testdata):
  text = testdata('report', TWO) + '{"metric": "op_rate"\n'
  with pytest.raises(results_tables.ResultsError, match=r'^x.json:\d+: '):
    results_tables.ParseResults(text, 'x.json')
  with pytest.raises(results_tables.ResultsError, match='no scylla_phases'):
    results_tables.LoadRuns([('empty.json', '\n')])


def test_runs_are_labelled_and_told_apart(report):
  two, one = report(TWO, ONE)
  assert two.label == 'cassandra 5.0.2 on 1 x lab-host (report-2loaders.json)'
  assert one.label == 'cassandra 5.0.2 on 1 x lab-host (report-1loader.json)'
  (alone,) = report(ONE)
  assert alone.label == 'cassandra 5.0.2 on 1 x lab-host'
  assert two.Steps() == [
      'populate',
      'quiesce',
      'latency_2000',
      'flush_quiesce_before_latency_4000',
      'latency_4000',
  ]


def _Column(table, name):
  index = table.columns.index(name)
  return {row[: table.keys]: row[index] for row in table.rows}


def test_throughput_table(report, testdata):
  (run,) = report(TWO)
  table = results_tables.ThroughputTable(run)
  op_rate = run.Value('op_rate', 'populate', 'WRITE')
  assert op_rate == pytest.approx(43538.5, abs=0.1)
  keys = [
      ('populate', 'WRITE'),
      ('latency_2000', 'WRITE'),
      ('latency_4000', 'WRITE'),
  ]
  assert [row[:2] for row in table.rows] == keys
  assert _Column(table, 'op/s')[keys[0]] == '43,539'
  # 2 server vCPUs; 0.10 $/h for the one server.
  assert _Column(table, 'per vCPU')[keys[0]] == '21,769'
  assert _Column(table, 'op per $')[keys[0]] == results_tables.FormatNumber(
      cost.OpsPerDollar(op_rate, 0.1)
  )
  assert _Column(table, 'per shard')[keys[0]] == '-'  # Cassandra
  assert _Column(table, 'errors')[keys[0]] == '0'
  assert _Column(table, 'loader CPU %')[keys[0]] == '59.5'
  assert set(_Column(table, 'status').values()) == {'ok'}


def test_latency_table_has_both_kinds_of_fixed_rate_steps(report):
  (run,) = report(TWO)
  table = results_tables.LatencyTable(run)
  assert [row[:3] for row in table.rows] == [
      ('populate', 'WRITE', 'st'),
      ('latency_2000', 'WRITE', 'rt'),
      ('latency_2000', 'WRITE', 'st'),
      ('latency_4000', 'WRITE', 'rt'),
      ('latency_4000', 'WRITE', 'st'),
  ]
  p999 = run.Value('latency_p999', 'populate', 'WRITE', 'st')
  assert _Column(table, 'p99.9')[('populate', 'WRITE', 'st')] == (
      results_tables.FormatNumber(p999)
  )


def test_ladder_is_sorted_by_rate(report):
  (run,) = report(TWO)
  assert results_tables.LadderPoints(run) == [
      (2000, 'latency_2000', 'WRITE'),
      (4000, 'latency_4000', 'WRITE'),
  ]
  table = results_tables.LadderTable(run)
  assert [row[0] for row in table.rows] == ['2,000', '4,000']


def test_quiesce_table(report):
  (run,) = report(TWO)
  table = results_tables.QuiesceTable(run)
  populate = _Column(table, 'populate')
  assert list(populate) == [
      ('quiesce',),
      ('flush_quiesce_before_latency_4000',),
  ]
  # Compactions end 95 s after the 6 s load (tests/shell/test_report_pkb.py).
  assert populate[('quiesce',)] == '6s'
  assert _Column(table, 'to compact')[('quiesce',)] == '1m 35s'
  assert _Column(table, 'total to quiesce')[('quiesce',)] == '1m 41s'
  assert _Column(table, 'compactions')[('quiesce',)] == '2'
  assert _Column(table, 'bytes in')[('quiesce',)].endswith('MiB')
  flush = ('flush_quiesce_before_latency_4000',)
  assert populate[flush] == '-'
  assert _Column(table, 'to compact')[flush] == '0s'


def test_failed_steps_are_listed_with_their_error(testdata):
  samples = _Samples(testdata('report', TWO_METADATA))
  for s in samples:
    if s['metric'] == 'phase_status' and s['metadata']['scylla_step'] == (
        'latency_4000'
    ):
      s['value'] = 0
      s['metadata'].update(scylla_status='failed', scylla_error='boom')
  (run,) = results_tables.LoadRuns(
      [('x', '\n'.join(json.dumps(s) for s in samples))]
  )
  assert results_tables.FailedTable(run).rows == (
      ('latency_4000', 'failed', 'boom'),
  )
  assert (
      _Column(results_tables.ThroughputTable(run), 'status')[
          ('latency_4000', 'WRITE')
      ]
      == 'failed'
  )


def test_comparison_gives_ratios_to_the_first_run(report):
  two, one = report(TWO, ONE)
  table = results_tables.ComparisonTable([two, one])
  assert table.columns[-3:] == ('[1]', '[2]', '[2]/[1]')
  ratios = {row[:4]: row[-1] for row in table.rows}
  expected = one.Value('op_rate', 'populate', 'WRITE') / two.Value(
      'op_rate', 'populate', 'WRITE'
  )
  assert ratios[('throughput', 'populate', 'WRITE', 'op_rate')] == (
      f'{expected:.2f}x'
  )
  assert ratios[('latency', 'latency_2000', 'WRITE', 'latency_p99 rt')] == (
      '1.00x'
  )
  assert ratios[('quiesce', 'quiesce', '', 'total_time_to_quiesce')] == '1.00x'
  # 0 s to compact in both: no ratio.
  assert (
      ratios[(
          'quiesce',
          'flush_quiesce_before_latency_4000',
          '',
          'time_to_compact',
      )]
      == '-'
  )


def test_rendered_report(report):
  text = results_tables.RenderReport(report(TWO, ONE))
  assert text.startswith(
      '[1] cassandra 5.0.2 on 1 x lab-host (report-2loaders.json)\n===='
  )
  for title in (
      'Throughput',
      'Latency (ms;',
      'Latency at fixed rates (ms)',
      'Quiesce',
  ):
    assert text.count(f'\n{title}') == 2
  assert '\nFailed steps' not in text
  assert '\n\n\nComparison ([1] cassandra' in text
  lines = text.splitlines()
  header = lines.index('Throughput') + 1
  # Figures are right-aligned under their headers.
  assert lines[header].index('op/s') + len('op/s') == lines[header + 1].index(
      '43,539'
  ) + len('43,539')


def test_series_start_at_zero_seconds(report):
  (run,) = report(TWO)
  populate, *_ = results_tables.SeriesOf(run, 'op_rate_series')
  assert populate.step == 'populate'
  assert populate.times_s[0] == 0
  assert populate.times_s == tuple(sorted(populate.times_s))
  assert len(populate.values) == len(populate.times_s) > 5
  p99 = results_tables.SeriesOf(run, 'latency_p99_series')
  assert {(s.step, s.kind) for s in p99} == {
      ('populate', 'st'),
      ('latency_2000', 'rt'),
      ('latency_2000', 'st'),
      ('latency_4000', 'rt'),
      ('latency_4000', 'st'),
  }


@pytest.mark.parametrize(
    'value, text',
    [
        (None, '-'),
        (0, '0'),
        (43538.5, '43,538'),
        (59.549, '59.5'),
        (2.114, '2.11'),
        (0.000638, '6.38e-04'),
        (1.5e9, '1,500,000,000'),
    ],
)
def test_format_number(value, text):
  assert results_tables.FormatNumber(value) == text
