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
from perfkit_plugins.testing import results_files

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
  assert metadata['scylla_loader_rates'] == [0, 0]
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


def test_throughput_table_shows_the_widest_start_skew_and_its_mark(testdata):
  # Without the file's own skews, as a file from before the figure.
  samples = [
      s
      for s in _Samples(testdata('report', TWO_METADATA))
      if s['metric'] != 'loader_start_skew'
  ]
  (status,) = [
      s
      for s in samples
      if s['metric'] == 'phase_status'
      and s['metadata']['scylla_step'] == 'latency_4000'
  ]
  skews = []
  for value, share, marked in ((0.25, 0.8, False), (1.5, 5.0, True)):
    metadata = dict(
        status['metadata'],
        scylla_start_skew_pct=share,
        scylla_start_skew_marked=marked,
    )
    skews.append(
        dict(
            status,
            metric='loader_start_skew',
            value=value,
            unit='s',
            metadata=metadata,
        )
    )
  text = '\n'.join(json.dumps(s) for s in samples + skews)
  (run,) = results_tables.LoadRuns([('skews.json', text)])
  column = _Column(results_tables.ThroughputTable(run), 'start skew s')
  assert column[('latency_4000', 'WRITE')] == '1.50 (5.0%)'
  assert column[('populate', 'WRITE')] == '-'


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
  assert _Column(table, 'p99.9')[('populate', 'WRITE', 'st')] == (
      results_tables.FigureCell(run, 'latency_p999', 'populate', 'WRITE', 'st')
  )
  # The lab run's 10 HDR intervals are too few for a within-run interval
  # of a p99.9 (180 are needed): the figure alone, no bounds.
  assert run.Pick('latency_p999', 'populate', 'WRITE', 'st').Interval() is None
  assert '[' not in _Column(table, 'p99.9')[('populate', 'WRITE', 'st')]


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


def _Line(metric, value, run_uri='', **metadata):
  return json.dumps({
      'metric': metric,
      'value': value,
      'unit': 'op/s',
      'timestamp': 1_790_000_000.0,
      'run_uri': run_uri,
      'metadata': dict({'scylla_op': 'READ'}, **metadata),
  })


def _RepeatedRun(cluster, start, values, aggregate=None, **extra):
  """Lines of a run's read_small op rate: one per repeat, the aggregate."""
  lines = [
      _Line(
          'op_rate',
          value,
          cluster,
          scylla_step='read_small',
          scylla_cluster=cluster,
          scylla_run_start=start,
          scylla_repeat=repeat,
          scylla_repeats=len(values),
          **extra,
      )
      for repeat, value in enumerate(values, 1)
  ]
  if aggregate is not None:
    lines.append(
        _Line(
            'op_rate',
            aggregate,
            cluster,
            scylla_step='read_small',
            scylla_cluster=cluster,
            scylla_run_start=start,
            scylla_repeat=0,
            scylla_repeats=len(values),
            scylla_ci_low=aggregate * 0.9,
            scylla_ci_high=aggregate * 1.1,
            scylla_ci_level=0.95,
            scylla_ci_covers='within_cluster',
        )
    )
  return lines


def test_a_file_of_two_runs_on_one_cluster_is_two_runs():
  text = '\n'.join(
      _RepeatedRun('c1', 1_790_000_000, [100.0, 110.0])
      + _RepeatedRun('c1', 1_790_003_600, [120.0, 130.0])
  )
  first, second = results_tables.LoadRuns([('two.json', text)])
  assert (first.cluster, first.run_start) == ('c1', 1_790_000_000)
  assert (second.cluster, second.run_start) == ('c1', 1_790_003_600)
  assert first.label == 'two.json (two.json, 2026-09-21T14:13:20+00:00)'
  assert second.label.endswith('2026-09-21T15:13:20+00:00)')
  assert first.Repeats() == 2
  assert len(first.rows) == len(second.rows) == 2


def test_runs_of_several_clusters_and_files():
  one = '\n'.join(_RepeatedRun('c1', 1, [1.0]) + _RepeatedRun('c2', 1, [2.0]))
  two = '\n'.join(_RepeatedRun('c3', 5, [3.0]))
  runs = results_tables.LoadRuns([('one.json', one), ('two.json', two)])
  assert [(r.cluster, r.source) for r in runs] == [
      ('c1', 'one.json'),
      ('c2', 'one.json'),
      ('c3', 'two.json'),
  ]


def test_old_files_are_one_run_per_run_uri(testdata):
  text = results_files.OlderRelease(
      testdata('report', TWO)
  ) + results_files.OlderRelease(testdata('report', ONE))
  two, one = results_tables.LoadRuns([('both.json', text)])
  assert (two.cluster, one.cluster) == ('lab2', 'lab1')
  assert two.run_start is None
  assert two.label == 'cassandra 5.0.2 on 1 x lab-host (both.json, run 1)'
  assert one.label == 'cassandra 5.0.2 on 1 x lab-host (both.json, run 2)'
  assert two.Repeats() == 1
  assert two.Time() == min(r.timestamp for r in two.rows) > 1e9
  no_uri = _Line('op_rate', 1.0, scylla_step='s')
  (run,) = results_tables.LoadRuns([('plain.json', no_uri)])
  assert run.cluster == 'plain.json'


def test_the_aggregate_stands_for_a_repeated_figure_with_its_interval():
  text = '\n'.join(_RepeatedRun('c', 1, [100.0, 121.0], aggregate=110.0))
  (run,) = results_tables.LoadRuns([('r.json', text)])
  assert len(run.Rows('op_rate', 'read_small', 'READ')) == 3
  assert run.Value('op_rate', 'read_small', 'READ') == 110.0
  assert results_tables.FigureCell(run, 'op_rate', 'read_small', 'READ') == (
      '110 [99, 121]'
  )
  assert _Column(results_tables.ThroughputTable(run), 'op/s') == {
      ('read_small', 'READ'): '110 [99, 121]'
  }
  text = results_tables.RenderReport([run])
  assert text.startswith(
      '[1] r.json\n==========\n2 repeats of each measured step: every figure is'
      ' their aggregate'
  )
  assert '\n[low, high]: 95% interval (covers: within_cluster)\n' in text


def test_without_an_aggregate_the_geometric_mean_of_the_repeats():
  text = '\n'.join(
      _RepeatedRun(
          'c', 1, [100.0, 121.0], scylla_ci_low=1.0, scylla_ci_high=2.0
      )
  )
  (run,) = results_tables.LoadRuns([('r.json', text)])
  picked = run.Pick('op_rate', 'read_small', 'READ')
  assert picked.value == pytest.approx(110.0)
  assert picked.repeat == 0
  # A repeat's interval is not the mean's: none is shown.
  assert picked.Interval() is None
  assert results_tables.FigureCell(run, 'op_rate', 'read_small', 'READ') == (
      '110'
  )
  assert '[low, high]' not in results_tables.RenderReport([run])


def test_unbounded_intervals_are_not_shown():
  row = results_tables.Row(
      'op_rate', 1.0, 'op/s', {'scylla_ci_low': '-inf', 'scylla_ci_high': 3}
  )
  assert row.Interval() is None
  (typed,) = results_tables.ParseResults(
      '{"metric": "op_rate", "value": 5, "unit": "op/s",'
      ' "labels": "|scylla_step:s|,|scylla_ci_low:4.5|,|scylla_ci_high:inf|"}'
  )
  assert typed.Interval() is None


def test_a_failed_repeat_is_named_and_fails_the_step():
  lines = [
      _Line(
          'phase_status',
          value,
          scylla_step='read_small',
          scylla_run_start=1,
          scylla_repeat=repeat,
          scylla_status='ok' if value else 'failed',
          scylla_error='' if value else 'boom',
      )
      for repeat, value in ((1, 1), (2, 0), (3, 1))
  ] + _RepeatedRun('', 1, [5.0])
  (run,) = results_tables.LoadRuns([('f.json', '\n'.join(lines))])
  assert results_tables.FailedTable(run).rows == (
      ('read_small (repeat 2)', 'failed', 'boom'),
  )
  assert _Column(results_tables.ThroughputTable(run), 'status') == {
      ('read_small', 'READ'): 'failed'
  }


def _LadderStep(step, target, achieved, reached, repeat=1):
  """One repeat of a ladder step as the benchmark publishes it.

  Its op rate and rt/st p99 (op WRITE, `scylla_rate` the target) and its
  phase_status, marked `rate_not_reached` unless `reached`.
  """
  common = dict(
      scylla_step=step,
      scylla_phase='latency',
      scylla_run_start=1,
      scylla_repeat=repeat,
      scylla_rate_reached=reached,
  )
  op = dict(common, scylla_op='WRITE', scylla_rate=target)
  return [
      _Line('op_rate', achieved, **op, scylla_achieved_rate=achieved),
      _Line('latency_p99', 40.0, **op, scylla_latency_kind='rt'),
      _Line('latency_p99', 2.0, **op, scylla_latency_kind='st'),
      _Line(
          'phase_status',
          1,
          **common,
          scylla_status='ok' if reached else 'rate_not_reached',
      ),
  ]


def test_fixed_rate_steps_show_their_target_and_a_missed_rate():
  # Reads during writes: `total` has the writers' rate but no schedule of
  # its own (no response time).
  rdw = dict(
      scylla_step='reads_during_writes', scylla_op='total', scylla_run_start=1
  )
  lines = (
      _LadderStep('latency_1000', 1000, 298.0, reached=False)
      + _LadderStep('latency_500', 500, 499.0, reached=True)
      + [
          _Line('op_rate', 9000.0, **rdw, scylla_rate=2000),
          _Line('latency_p99', 3.0, **rdw, scylla_latency_kind='st'),
      ]
  )
  (run,) = results_tables.LoadRuns([('l.json', '\n'.join(lines))])
  throughput = results_tables.ThroughputTable(run)
  assert throughput.columns[2:4] == ('op/s', 'target op/s')
  assert _Column(throughput, 'target op/s') == {
      ('latency_1000', 'WRITE'): '1,000',
      ('latency_500', 'WRITE'): '500',
      ('reads_during_writes', 'total'): '-',
  }
  assert _Column(throughput, 'op/s')[('latency_1000', 'WRITE')] == '298'
  assert _Column(throughput, 'status')[('latency_1000', 'WRITE')] == (
      'rate_not_reached'
  )
  ladder = results_tables.LadderTable(run)
  assert [(row[0], row[3], row[-1]) for row in ladder.rows] == [
      ('500', '499', 'ok'),
      ('1,000', '298', 'rate_not_reached'),
  ]
  assert results_tables.RateMissedSteps(run) == ['latency_1000']


def test_a_repeat_that_missed_its_rate_marks_the_step():
  lines = _LadderStep('latency_1000', 1000, 1001.0, True) + _LadderStep(
      'latency_1000', 1000, 298.0, False, repeat=2
  )
  (run,) = results_tables.LoadRuns([('r.json', '\n'.join(lines))])
  assert _Column(results_tables.LadderTable(run), 'status') == {
      ('1,000',): 'rate_not_reached'
  }
  assert results_tables.RateMissedSteps(run) == ['latency_1000']


def test_series_know_their_repeat():
  line = json.dumps({
      'metric': 'op_rate_series',
      'value': 0,
      'unit': 'op/s',
      'labels': (
          '|scylla_step:s|,|scylla_repeat:2|,|values:[1.0, 2.5]|,'
          '|timestamps:[1000, 2000]|'
      ),
  })
  (run,) = results_tables.LoadRuns([('s.json', line)])
  (series,) = results_tables.SeriesOf(run, 'op_rate_series')
  assert series.repeat == 2
  assert series.values == (1.0, 2.5)
  assert series.times_s == (0.0, 1.0)


def test_labels_parse_alike_with_and_without_lists():
  plain = results_tables.ParseLabels('|a:1|,|b:x|,|c:0.5|,|d:True|')
  assert plain == {'a': 1, 'b': 'x', 'c': 0.5, 'd': True}
  listed = results_tables.ParseLabels(
      "|a:1|,|v:[1, 2.5]|,|w:['x', 'y']|,|b:[not a list]|"
  )
  assert listed == {'a': 1, 'v': [1, 2.5], 'w': ['x', 'y'], 'b': '[not a list]'}


def test_published_kind_and_warmups():
  assert results_tables.PublishedKind({'st', 'rt'}) == 'rt'
  assert results_tables.PublishedKind({'st'}) == 'st'
  assert results_tables.PublishedKind(()) is None
  assert results_tables.IsWarmup('read_cache_warmup', {})
  assert results_tables.IsWarmup('x', {'scylla_warmup': True})
  assert not results_tables.IsWarmup('read_cache', {'scylla_warmup': False})


def test_latency_table_shows_the_longest_loader_stop_of_any_repeat(testdata):
  lines = testdata('results', 'scylla_phases_fake_run.json').splitlines()
  (stop,) = [
      json.loads(line)
      for line in lines
      if '"loader_stop_max"' in line and '|scylla_step:populate|' in line
  ]
  assert '|scylla_repeat:1|' in stop['labels']
  again = dict(
      stop,
      value=7.5,
      labels=stop['labels'].replace('|scylla_repeat:1|', '|scylla_repeat:2|'),
  )
  (run,) = results_tables.LoadRuns(
      [('run', '\n'.join(lines + [json.dumps(again)]))]
  )
  table = results_tables.LatencyTable(run)
  column = _Column(table, 'loader stop')
  assert column[('populate', 'WRITE', 'st')] == '7.5'
  assert column[('read_medium', 'READ', 'st')] == '0.858'
