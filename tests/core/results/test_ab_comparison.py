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

"""A/B rows from runs, on synthetic samples whose truth is known.

Each arm is clusters x repeats of two steps (a read and a fixed-rate write)
built here as PKB samples: every figure is a base value x the arm's scale
x a lognormal noise per cluster (2%) and per repeat (1%), seeded.
"""

import json
import math

import numpy as np
import pytest

from perfkit_plugins.core.results import ab_comparison
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import comparison
from perfkit_plugins.testing import results_files

# (step, op, kind, op/s, p99 ms).
STEPS = (
    ('read_small', 'READ', 'st', 10_000.0, 10.0),
    ('latency_2000', 'WRITE', 'rt', 2_000.0, 2.0),
)


def _Sample(metric, value, metadata, run_uri='', timestamp=1.0):
  return json.dumps({
      'metric': metric,
      'value': value,
      'unit': 'op/s' if metric == 'op_rate' else 'ms',
      'timestamp': timestamp,
      'run_uri': run_uri,
      'metadata': metadata,
  })


def _RunText(
    cluster, start, scale, rng, repeats=3, aggregate=True, ci=True, missed=()
):
  """One run's samples: every step's op rate and p50/p99/p99.9.

  The steps in `missed` did not reach their fixed rate in any repeat.
  """
  offset = math.exp(rng.normal(0, 0.02))
  lines = []
  for step, op, kind, rate, p99 in STEPS:
    factors = offset * np.exp(rng.normal(0, 0.01, (repeats, 4)))
    units = [(r + 1, f) for r, f in enumerate(factors)]
    if aggregate:
      units.append((0, np.exp(np.log(factors).mean(axis=0))))
    for repeat, f in units:
      base = {
          'scylla_step': step,
          'scylla_op': op,
          'scylla_cluster': cluster,
          'scylla_run_start': start,
          'scylla_repeat': repeat,
          'scylla_repeats': repeats,
      }
      if kind == 'rt':
        base['scylla_rate_reached'] = step not in missed
      figures = [('op_rate', rate * scale * f[0], '')] + [
          (metric, p99 * share / scale / x, kind)
          for (metric, share), x in zip(
              (('latency_p50', 0.3), ('latency_p99', 1), ('latency_p999', 3)),
              f[1:],
          )
      ]
      for metric, value, latency_kind in figures:
        metadata = dict(base)
        if latency_kind:
          metadata['scylla_latency_kind'] = latency_kind
        if ci and repeat:
          metadata.update(
              scylla_ci_low=value * 0.99,
              scylla_ci_high=value * 1.01,
              scylla_ci_level=0.95,
              scylla_ci_method='batch_means',
              scylla_ci_covers='within_run',
              scylla_ci_units=40,
              scylla_ci_se_log=0.005,
              scylla_ci_dof=39,
          )
        lines.append(_Sample(metric, float(value), metadata, cluster))
  return '\n'.join(lines)


def _Arm(name, clusters, scale=1.0, seed=0, repeats=3, **kwargs):
  """Runs of one arm: one file per cluster."""
  rng = np.random.default_rng(seed)
  return results_tables.LoadRuns([
      (
          f'{name}{i}.json',
          _RunText(f'{name}{i}', 1000 * (i + 1), scale, rng, repeats, **kwargs),
      )
      for i in range(clusters)
  ])


def _Rows(report, metric):
  return [c for c in report.rows if c.figure.metric == metric]


def test_b_at_three_quarters_of_a_is_worse():
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=1), _Arm('b', 3, scale=0.75, seed=2)
  )
  for c in report.rows:
    assert c.row.verdict == comparison.WORSE, c.label
    # A's and B's clusters started in pairs: the trend is fitted.
    assert c.row.method == comparison.TREND_ADJUSTED
    assert c.row.clusters_a == c.row.clusters_b == 3
    assert c.row.runs_a == c.row.runs_b == 9
  for c in _Rows(report, 'op_rate'):
    assert c.row.ratio == pytest.approx(0.75, rel=0.05)
    assert c.b / c.a == pytest.approx(c.row.ratio)
  for c in _Rows(report, 'latency_p99'):
    assert c.row.ratio == pytest.approx(1 / 0.75, rel=0.05)


def test_identical_arms_are_never_called_better_or_worse():
  for seed in range(5):
    report = ab_comparison.Compare(
        _Arm('a', 3, seed=10 + seed), _Arm('b', 3, seed=20 + seed)
    )
    verdicts = {c.row.verdict for c in report.rows}
    assert not verdicts & {comparison.BETTER, comparison.WORSE}, seed


def test_better_is_higher_rate_and_lower_latency():
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=3), _Arm('b', 3, scale=1.3, seed=4)
  )
  assert {c.row.verdict for c in report.rows} == {comparison.BETTER}
  assert {c.row.higher_is_better for c in _Rows(report, 'op_rate')} == {True}
  assert {c.row.higher_is_better for c in _Rows(report, 'latency_p99')} == {
      False
  }


def test_one_cluster_per_arm_shows_repeats_without_a_verdict():
  report = ab_comparison.Compare(
      _Arm('a', 1, seed=5), _Arm('b', 1, scale=0.75, seed=6)
  )
  row = _Rows(report, 'op_rate')[0].row
  assert row.method == 'welch_repeats'
  assert row.covers == 'within_cluster'
  assert {c.row.verdict for c in report.rows} == {comparison.INCONCLUSIVE}
  assert 'covers only these two clusters' in row.warning
  text = ab_comparison.RenderComparison(report)
  assert 'Unit replicated: repeats on one cluster' in text
  assert (
      'Warning, every row: one cluster per arm: the interval covers only'
      ' these two clusters'
  ) in text
  claim = ab_comparison.Claim(_Rows(report, 'op_rate')[0])
  assert claim.startswith('read_small op rate: B/A = -2')
  assert (
      '(95% CI; 1 cluster x 3 repeats per arm): no verdict: one cluster per'
      ' arm: the noise between clusters is unknown'
  ) in claim
  assert f'No verdict in {len(report.rows)} rows: one cluster per arm' in text


def test_measurements_are_the_repeats_with_their_within_run_intervals():
  (run,) = _Arm('a', 1, seed=7)
  figure = ab_comparison.Figure('read_small', 'READ', 'op_rate')
  measurements = ab_comparison.Measurements([run], figure)
  assert [m.repeat for m in measurements] == [1, 2, 3]
  assert {m.cluster for m in measurements} == {'a0'}
  rows = run.Rows('op_rate', 'read_small', 'READ')
  assert [m.value for m in measurements] == [r.value for r in rows[:3]]
  within = measurements[0].within
  assert within.covers == 'within_run'
  assert within.standard_error == 0.005
  assert within.dof == 39
  assert within.low == pytest.approx(rows[0].value * 0.99)


# A results file of a release without run identities, repeats or intervals.
_Older = results_files.OlderRelease


def test_runs_without_repeats_or_intervals_are_single_measurements(testdata):
  (run,) = results_tables.LoadRuns(
      [('r.json', _Older(testdata('report', 'report-2loaders.json')))]
  )
  figure = ab_comparison.Figure('populate', 'WRITE', 'op_rate')
  (measurement,) = ab_comparison.Measurements([run], figure)
  assert measurement.cluster == 'lab2'  # the run_uri
  assert measurement.repeat == 1
  assert measurement.within is None


def test_single_runs_without_intervals_give_no_test(testdata):
  a = results_tables.LoadRuns(
      [('2.json', _Older(testdata('report', 'report-2loaders.json')))]
  )
  b = results_tables.LoadRuns(
      [('1.json', _Older(testdata('report', 'report-1loader.json')))]
  )
  report = ab_comparison.Compare(a, b)
  assert {c.row.verdict for c in report.rows} == {comparison.INCONCLUSIVE}
  assert {c.row.method for c in report.rows} == {'delta_within_run'}
  assert all(math.isnan(c.row.p) for c in report.rows)
  populate = _Rows(report, 'op_rate')[0]
  assert populate.row.ratio == pytest.approx(21_276.6 / 43_538.5, rel=1e-4)
  data = ab_comparison.ReportJson(report)
  json.dumps(data, allow_nan=False)
  assert data['rows'][0]['p'] is None
  assert data['rows'][0]['ci_high'] is None


def test_figures_take_the_published_kind_and_skip_warmups():
  (run,) = _Arm('a', 1, seed=8)
  warmup = results_tables.Row(
      'op_rate',
      5.0,
      'op/s',
      {'scylla_step': 'read_cache_warmup', 'scylla_op': 'READ'},
  )
  flagged = results_tables.Row(
      'op_rate',
      5.0,
      'op/s',
      {'scylla_step': 'read_x', 'scylla_op': 'READ', 'scylla_warmup': True},
  )
  run = results_tables.Run(run.label, run.rows + (warmup, flagged))
  figures = ab_comparison.Figures([run])
  assert {f.step for f in figures} == {'read_small', 'latency_2000'}
  kinds = {(f.step, f.metric): f.kind for f in figures}
  assert kinds[('read_small', 'latency_p99')] == 'st'
  assert kinds[('latency_2000', 'latency_p99')] == 'rt'
  assert [f.Name() for f in figures[:4]] == [
      'op rate',
      'p50 latency',
      'p99 latency',
      'p99.9 latency',
  ]
  assert figures[5].Name() == 'p99 response time'


def test_the_op_rate_of_a_fixed_rate_step_is_not_compared():
  """It is the loaders' target: 0.3% short of it is no performance."""
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=1), _Arm('b', 3, scale=0.75, seed=2)
  )
  compared = {(c.figure.step, c.figure.metric) for c in report.rows}
  assert ('latency_2000', 'op_rate') not in compared
  assert ('read_small', 'op_rate') in compared
  assert ('latency_2000', 'latency_p99') in compared
  assert report.skipped == ()


@pytest.mark.parametrize(
    'a_missed, b_missed, arms',
    [
        ((), ('latency_2000',), 'B (3 of 3 clusters)'),
        (
            ('latency_2000',),
            ('latency_2000',),
            'A (3 of 3 clusters) and B (3 of 3 clusters)',
        ),
    ],
)
def test_a_step_that_missed_its_fixed_rate_is_not_compared(
    a_missed, b_missed, arms
):
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=1, missed=a_missed),
      _Arm('b', 3, seed=2, missed=b_missed),
  )
  assert {c.figure.step for c in report.rows} == {'read_small'}
  why = (
      f'latency_2000: not compared: its fixed rate was not reached in {arms}'
      ' (rate_not_reached): its latencies measure a queue behind the'
      ' schedule, not the database at that rate'
  )
  assert report.skipped == (why,)
  assert f'Not compared\n  {why}' in ab_comparison.RenderComparison(report)
  # Only a rate B missed on more of its clusters than A is B's regression.
  lost = (
      (
          "latency_2000: its fixed rate was not reached on 3 of 3 of B's"
          " clusters, 0 of 3 of A's"
      ),
  )
  assert report.lost == (() if a_missed else lost)


def test_a_fixed_rate_b_missed_on_more_clusters_than_a_is_lost():
  # A missed it on 1 of 4 clusters, B on 3 of 4.
  a = [
      run
      for i in range(4)
      for run in _Arm(f'a{i}', 1, seed=i, missed=('latency_2000',) * (i < 1))
  ]
  b = [
      run
      for i in range(4)
      for run in _Arm(
          f'b{i}', 1, seed=9 + i, missed=('latency_2000',) * (i < 3)
      )
  ]
  assert ab_comparison.Compare(a, b).lost == (
      (
          "latency_2000: its fixed rate was not reached on 3 of 4 of B's"
          " clusters, 1 of 4 of A's"
      ),
  )
  assert ab_comparison.Compare(b, a).lost == ()


def test_steps_of_one_arm_only_are_listed_not_compared():
  a = _Arm('a', 2, seed=9)
  extra = results_tables.Row(
      'op_rate',
      7.0,
      'op/s',
      {'scylla_step': 'mixed', 'scylla_op': 'READ', 'scylla_cluster': 'b0'},
  )
  b = _Arm('b', 2, seed=10)
  b = [results_tables.Run(b[0].label, b[0].rows + (extra,), 'b0', 1000.0)]
  b += _Arm('c', 1, seed=11)
  report = ab_comparison.Compare(a, b)
  assert report.skipped == ('mixed READ op rate: only in B',)
  assert 'Not compared\n  mixed READ op rate: only in B' in (
      ab_comparison.RenderComparison(report)
  )


def test_a_step_of_several_op_types_names_the_op():
  def Mixed(cluster, value):
    return results_tables.Run(
        cluster,
        tuple(
            results_tables.Row(
                'op_rate',
                value * factor,
                'op/s',
                {'scylla_step': 'mixed', 'scylla_op': op, 'scylla_repeat': r},
            )
            for op in ('READ', 'WRITE')
            for r, factor in ((1, 1.0), (2, 1.01))
        ),
        cluster,
    )

  report = ab_comparison.Compare([Mixed('a', 100.0)], [Mixed('b', 90.0)])
  assert [c.label for c in report.rows] == [
      'mixed READ op rate',
      'mixed WRITE op rate',
  ]
  assert ab_comparison.Claim(report.rows[0]).startswith(
      'mixed READ op rate: B/A = -10.0%'
  )


def test_a_run_in_both_arms_is_refused():
  a = _Arm('a', 2, seed=12)
  with pytest.raises(ab_comparison.ComparisonError, match='counts once'):
    ab_comparison.Compare(a, a[:1])


def test_an_old_file_given_twice_is_refused(testdata):
  text = _Older(testdata('report', 'report-2loaders.json'))
  runs = results_tables.LoadRuns([('x.json', text)])
  with pytest.raises(ab_comparison.ComparisonError, match='from x.json'):
    ab_comparison.Compare(runs, runs)


def test_no_shared_figure_is_refused():
  a = _Arm('a', 1, seed=13)
  other = results_tables.Run(
      'z',
      (
          results_tables.Row(
              'op_rate', 1.0, 'op/s', {'scylla_step': 'x', 'scylla_op': 'R'}
          ),
      ),
      'z',
  )
  with pytest.raises(ab_comparison.ComparisonError, match='no figure'):
    ab_comparison.Compare(a, [other])


def test_a_figure_that_is_not_positive_is_skipped_with_the_reason():
  def Run(cluster, value):
    return results_tables.Run(
        cluster,
        (
            results_tables.Row(
                'op_rate', value, 'op/s', {'scylla_step': 's', 'scylla_op': 'R'}
            ),
            results_tables.Row(
                'op_rate', 5.0, 'op/s', {'scylla_step': 't', 'scylla_op': 'R'}
            ),
        ),
        cluster,
    )

  report = ab_comparison.Compare([Run('a', 0.0)], [Run('b', 1.0)])
  assert [c.figure.step for c in report.rows] == ['t']
  assert report.skipped == (
      's R op rate: s op rate: ratios need positive values',
  )
  assert report.lost == ()
  # B's 0 where A's figure is positive: nothing measured, a loss.
  report = ab_comparison.Compare([Run('a', 1.0)], [Run('b', 0.0)])
  assert [c.figure.step for c in report.rows] == ['t']
  assert report.lost == (
      (
          "s R op rate: 0 or less in 1 of B's 1 measurements, positive in every"
          ' one of A'
      ),
  )
  assert 'Lost in B' in ab_comparison.RenderComparison(report)


def test_margins_default_and_override():
  a, b = _Arm('a', 2, seed=14), _Arm('b', 2, seed=15)
  report = ab_comparison.Compare(a, b)
  margins = {c.figure.metric: c.row.margin for c in report.rows}
  assert margins['op_rate'] == comparison.RATE_MARGIN
  assert margins['latency_p99'] == comparison.PERCENTILE_MARGIN
  assert 'op rate 2.0%, latency percentiles 5.0% (defaults)' in (
      ab_comparison.RenderComparison(report)
  )
  report = ab_comparison.Compare(a, b, margin=0.1)
  assert {c.row.margin for c in report.rows} == {0.1}
  assert '(--margin 0.1 for both)' in ab_comparison.RenderComparison(report)


def test_equivalent_arms_within_a_wide_margin():
  report = ab_comparison.Compare(
      _Arm('a', 4, seed=16), _Arm('b', 4, seed=17), margin=0.2
  )
  assert {c.row.verdict for c in report.rows} == {comparison.EQUIVALENT}
  assert ab_comparison.Summary(report) == '7 EQUIVALENT'


def test_inconclusive_rows_say_how_many_clusters_would_settle_them():
  report = ab_comparison.Compare(
      _Arm('a', 2, seed=18), _Arm('b', 2, scale=0.98, seed=19)
  )
  inconclusive = [
      c for c in report.rows if c.row.verdict == comparison.INCONCLUSIVE
  ]
  assert inconclusive
  for c in inconclusive:
    if c.row.clusters_needed is not None:
      assert 'clusters per arm would settle it' in ab_comparison.Claim(c)
      more = c.row.clusters_needed - 2
      assert ab_comparison.ToSettle(c.row) == (
          f'{c.row.clusters_needed} (+{more})'
      )
  settled = [c for c in report.rows if c not in inconclusive]
  assert all(ab_comparison.ToSettle(c.row) == '' for c in settled)


def test_json_rows_have_every_field():
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=20), _Arm('b', 3, scale=0.75, seed=21)
  )
  data = json.loads(
      json.dumps(ab_comparison.ReportJson(report), allow_nan=False)
  )
  assert data['arms']['A']['clusters'] == 3
  assert data['arms']['B']['runs'] == 3
  row = data['rows'][0]
  for key in (
      'step',
      'op',
      'metric',
      'ratio',
      'ci_low',
      'ci_high',
      'verdict',
      'runs_a',
      'runs_b',
      'clusters_a',
      'clusters_b',
      'method',
      'covers',
      'warning',
      'p',
      'q',
  ):
    assert key in row, key
  assert (row['step'], row['op'], row['metric']) == (
      'read_small',
      'READ',
      'op_rate',
  )
  assert row['verdict'] == 'WORSE'
  assert row['ci_low'] < row['ratio'] < row['ci_high']
  assert row['q'] >= row['p']
  assert row['claim'].startswith('read_small op rate: B/A = ')


def test_rendered_comparison_has_a_table_and_a_claim_per_row():
  report = ab_comparison.Compare(
      _Arm('a', 3, seed=22), _Arm('b', 3, scale=0.75, seed=23)
  )
  text = ab_comparison.RenderComparison(report)
  assert text.startswith('A/B comparison of scylla_phases runs: B against A')
  assert (
      '  A: a0.json; a1.json; a2.json: 3 runs on 3 clusters, 3 repeats each'
      in text
  )
  assert (
      'Unit replicated: clusters, with a linear trend in time common to both'
      ' arms'
  ) in text
  assert 'Verdicts: 7 WORSE' in text
  assert (
      'Regressions: 7 of the 7 WORSE rows at a family-wise error rate of 5%'
      ' (Holm), what --fail_on=WORSE stops on'
  ) in text
  claims = text.split('\nClaims\n', 1)[1].splitlines()
  assert len(claims) == len(report.rows) == 7
  assert all(line.endswith(': B is worse') for line in claims)
  assert 'Warning, every row' not in text
