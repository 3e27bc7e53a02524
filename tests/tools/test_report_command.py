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

"""The report command's A/B, planning and history modes, end to end.

On synthetic results files (conftest.RunLines: repeated runs with the
benchmark's metadata, a known truth) and the real fixtures.
"""

import csv
import json
import pathlib
import re

import pytest

from perfkit_plugins.tools import report_command

REPO = pathlib.Path(__file__).resolve().parents[2]

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'


def _Arm(
    write_runs,
    name,
    clusters,
    scale=1.0,
    seed=0,
    per_file=1,
    first_hour=0,
    apart_s=3600,
    window_s=None,
):
  """Files of one arm: `clusters` runs on as many clusters, an hour apart."""
  runs = [
      dict(
          cluster=f'{name}{i}',
          start=1_790_000_000 + 3600 * first_hour + apart_s * i,
          scale=scale,
          seed=seed + i,
          window_s=window_s,
      )
      for i in range(clusters)
  ]
  return [
      write_runs(f'{name}{i}.json', *runs[i : i + per_file])
      for i in range(0, clusters, per_file)
  ]


def test_b_at_three_quarters_is_worse_with_json_and_forest(
    write_runs, tmp_path, capsys
):
  a = _Arm(write_runs, 'a', 3, seed=1)
  b = _Arm(write_runs, 'b', 3, scale=0.75, seed=11, per_file=3)
  assert len(b) == 1  # one file holding B's three runs
  out = tmp_path / 'out'
  argv = a + ['--vs'] + b + ['--json', str(out / 'ab.json'), '--no_plots']
  argv += ['--forest', str(out / 'forest.png')]
  assert report_command.Main(argv) == 0
  text = capsys.readouterr().out
  assert text.startswith('A/B comparison of scylla_phases runs: B against A')
  assert 'A: scylla 2026.1.0 on 3 x z3-highmem-88: 3 runs on 3 clusters' in (
      text
  )
  assert 'Unit replicated: clusters' in text
  assert 'read_small op rate: B/A = -2' in text
  assert 'mixed READ op rate: B/A = ' in text
  assert text.rstrip().endswith(f'Forest plot: {out / "forest.png"}')
  rows = json.loads((out / 'ab.json').read_text())['rows']
  rates = [r for r in rows if r['metric'] == 'op_rate']
  assert {r['verdict'] for r in rates} == {'WORSE'}
  assert {(r['clusters_a'], r['clusters_b']) for r in rows} == {(3, 3)}
  assert (out / 'forest.png').read_bytes()[:8] == PNG_SIGNATURE


def test_identical_arms_give_no_better_or_worse(write_runs, tmp_path, capsys):
  a = _Arm(write_runs, 'a', 3, seed=21)
  b = _Arm(write_runs, 'b', 3, seed=31)
  path = tmp_path / 'ab.json'
  plots = tmp_path / 'plots'
  argv = a + ['--vs'] + b + ['--json', str(path), f'--plots_dir={plots}']
  assert report_command.Main(argv) == 0
  verdicts = {r['verdict'] for r in json.loads(path.read_text())['rows']}
  assert not verdicts & {'BETTER', 'WORSE'}
  # The forest plot goes to --plots_dir by default.
  assert capsys.readouterr().out.endswith(
      f'JSON: {path}\nForest plot: {plots / "ab_forest.png"}\n'
  )


def test_one_cluster_per_arm_warns_once(write_runs, capsys, tmp_path):
  a = _Arm(write_runs, 'a', 1, seed=41)
  b = _Arm(write_runs, 'b', 1, scale=0.75, seed=51)
  assert (
      report_command.Main(a + ['--vs'] + b + [f'--plots_dir={tmp_path / "p"}'])
      == 0
  )
  out = capsys.readouterr().out
  assert (
      'Warning, every row: one cluster per arm: the interval covers only'
      ' these two clusters'
  ) in out
  assert (tmp_path / 'p' / 'ab_forest.png').read_bytes()[:8] == PNG_SIGNATURE


def test_fail_on_exits_non_zero_exactly_when_a_row_has_the_verdict(
    write_runs, capsys
):
  a = _Arm(write_runs, 'a', 3, seed=1)
  worse = _Arm(write_runs, 'w', 3, scale=0.75, seed=11)
  same = _Arm(write_runs, 's', 3, seed=21)
  argv = ['--no_plots', '--fail_on=WORSE']
  assert report_command.Main(a + ['--vs'] + worse + argv) == (
      report_command.EXIT_VERDICT
  )
  err = capsys.readouterr().err
  assert 'row(s) with a verdict --fail_on=WORSE names:' in err
  assert 'read_small op rate: B/A = -2' in err and ': B is worse' in err
  assert report_command.Main(a + ['--vs'] + same + argv) == 0
  assert not capsys.readouterr().err
  # Rows that settle nothing fail a pipeline that asks for it.
  one = _Arm(write_runs, 'o', 1, seed=31)
  assert (
      report_command.Main(
          one + ['--vs'] + _Arm(write_runs, 'p', 1, seed=41) + argv
      )
      == 0
  )
  assert (
      report_command.Main(
          one
          + ['--vs']
          + _Arm(write_runs, 'q', 1, seed=51)
          + ['--no_plots', '--fail_on', 'worse,inconclusive']
      )
      == report_command.EXIT_VERDICT
  )


def test_fail_on_worse_counts_what_b_lost(write_runs, capsys):
  a = _Arm(write_runs, 'a', 3, seed=1)
  b = _Arm(write_runs, 'b', 3, seed=21)
  # B's mixed step did not run (or failed): no row can show it.
  for path in b:
    lines = pathlib.Path(path).read_text().splitlines()
    kept = [line for line in lines if '|scylla_step:mixed|' not in line]
    assert len(kept) < len(lines)
    pathlib.Path(path).write_text('\n'.join(kept) + '\n')
  argv = a + ['--vs'] + b + ['--no_plots']
  assert report_command.Main(argv) == 0
  out = capsys.readouterr().out
  assert 'Lost in B (a regression no row shows' in out
  assert '  mixed READ op rate: in A, not in B' in out
  assert report_command.Main(argv + ['--fail_on=WORSE']) == (
      report_command.EXIT_VERDICT
  )
  assert 'mixed READ op rate: in A, not in B: B is worse (not compared)' in (
      capsys.readouterr().err
  )
  # What A lost is not B's regression.
  assert (
      report_command.Main(b + ['--vs'] + a + ['--no_plots', '--fail_on=WORSE'])
      == 0
  )


def test_an_aa_experiment_gives_one_cluster_per_arm_a_verdict(
    write_runs, capsys
):
  aa = _Arm(write_runs, 'aa', 4, seed=61, per_file=2)
  a = _Arm(write_runs, 'a', 1, seed=71)
  b = _Arm(write_runs, 'b', 1, scale=0.75, seed=81)
  argv = a + ['--vs'] + b + ['--noise_from'] + aa + ['--no_plots']
  assert report_command.Main(argv) == 0
  out = capsys.readouterr().out
  assert 'Noise between clusters: A/A experiment of 4 runs on 4 clusters' in (
      out
  )
  assert 'read_small op rate: B/A = -2' in out
  assert 'No verdict' not in out
  claim = [
      line for line in out.splitlines() if 'read_small op rate: B/A' in line
  ]
  assert claim[0].split(': B is ')[1].startswith('worse')
  assert (
      report_command.Main(
          a + ['--vs'] + b + ['--noise_from', a[0], '--no_plots']
      )
      == 1
  )
  assert 'cannot measure the noise between clusters' in (
      capsys.readouterr().err
  )


def test_arms_run_one_after_the_other_are_said_so(write_runs, capsys):
  a = _Arm(write_runs, 'a', 4, seed=91)
  b = _Arm(write_runs, 'b', 4, seed=101, first_hour=4)
  assert report_command.Main(a + ['--vs'] + b + ['--no_plots']) == 0
  out = capsys.readouterr().out
  assert (
      'Run order: 8 start times over 7.0 h, mean start of B +4.0 h from A'
      ' (every A cluster started before every B cluster)'
  ) in out
  assert 'Unit replicated: clusters, with a linear trend in time' in out
  assert (
      "Warning, every row: the arms' mean starts lie 4.0 h apart: B/A"
      ' adjusted for a linear trend common to both arms'
  ) in out


def test_arms_launched_a_second_apart_are_compared_and_gated(
    write_runs, capsys
):
  # Every A run in one second, every B run in the next: they ran together.
  a = _Arm(write_runs, 'a', 4, seed=111)
  b = _Arm(write_runs, 'b', 4, scale=0.75, seed=121)
  for arm, second in ((a, 0), (b, 1)):
    for index, path in enumerate(arm):
      text = pathlib.Path(path).read_text()
      start = 1_790_000_000 + 3600 * index
      pathlib.Path(path).write_text(
          text.replace(
              f'|scylla_run_start:{start}|',
              f'|scylla_run_start:{1_790_000_000 + second}|',
          )
      )
  _AssertComparedTogether(
      a,
      b,
      capsys,
      'simultaneous: every cluster started within 15 minutes of the first',
  )


def _AssertComparedTogether(a, b, capsys, order):
  """B (at three quarters of A) ran together with A, and is gated WORSE."""
  argv = a + ['--vs'] + b + ['--no_plots', '--fail_on=WORSE']
  assert report_command.Main(argv) == report_command.EXIT_VERDICT
  captured = capsys.readouterr()
  assert f'Run order: {order}\n' in captured.out
  assert 'No verdict' not in captured.out
  assert 'read_small op rate: B/A = -2' in captured.err


def test_arms_measured_together_are_compared(write_runs, capsys):
  # A's runs start 10 minutes apart from 0, B's from 40 minutes, each
  # measured for 90 minutes: every window holds minutes 75 to 95.
  a = _Arm(write_runs, 'a', 4, seed=131, apart_s=600, window_s=5400)
  b = _Arm(
      write_runs,
      'b',
      4,
      0.75,
      141,
      apart_s=600,
      first_hour=2 / 3,
      window_s=5400,
  )
  _AssertComparedTogether(
      a,
      b,
      capsys,
      'simultaneous: the measured windows of every cluster share an instant',
  )


def test_fail_on_worse_counts_a_figure_b_publishes_as_zero(write_runs, capsys):
  a = _Arm(write_runs, 'a', 3, seed=1)
  b = _Arm(write_runs, 'b', 3, seed=21)
  lines = pathlib.Path(b[0]).read_text().splitlines()
  zeroed = [
      re.sub(r'"value": [0-9.e+-]+', '"value": 0.0', line)
      if '"op_rate"' in line and '|scylla_step:read_small|' in line
      else line
      for line in lines
  ]
  assert zeroed != lines
  pathlib.Path(b[0]).write_text('\n'.join(zeroed) + '\n')
  argv = a + ['--vs'] + b + ['--no_plots', '--fail_on=WORSE']
  assert report_command.Main(argv) == report_command.EXIT_VERDICT
  assert (
      "read_small READ op rate: 0 or less in 3 of B's 9 measurements,"
      ' positive in every one of A: B is worse (not compared)'
  ) in capsys.readouterr().err


@pytest.mark.parametrize(
    'text, value', [('3%', 0.03), ('0.03', 0.03), ('2.5%', 0.025)]
)
def test_margin_is_a_fraction_or_a_percentage(text, value):
  assert report_command.Fraction(text) == pytest.approx(value)


def test_help_names_every_option(capsys):
  with pytest.raises(SystemExit) as exit_:
    report_command.Main(['--help'])
  assert exit_.value.code == 0
  out = capsys.readouterr().out
  assert '--figures FIGURES' in out and 'planned at 5% / FIGURES' in out


@pytest.mark.parametrize(
    'argv, message',
    [
        (['a.json', '--margin', '3'], 'a fraction such as 0.05'),
        (['a.json', '--margin', '3%'], '--margin goes with --vs'),
        (['a.json', '--json', 'x'], '--json goes with --vs'),
        (['a.json', '--vs', 'b.json', '--history', 'h'], 'not take --vs'),
        (['--plan_ab', '--difference', '5%'], 'needs measured noise'),
        (['--plan_ab', '--noise_from', 'x'], 'needs --difference'),
        (['--plan_ab', '--assume_cv', '2%', '--difference', '5%'], 'BETWEEN'),
        (
            ['--plan_ab', '--noise_from', 'x', '--difference', '5%']
            + [
                '--figures',
                '3',
            ],
            '--figures goes with --assume_cv',
        ),
        (['a.json', '--figures', '3'], '--figures goes with --plan_ab'),
        (['--plan_ab', '--figures', '0'], 'positive'),
        (
            ['a.json', '--noise_from', 'x'],
            '--noise_from goes with --vs or --plan_ab',
        ),
        (['a.json', '--fail_on', 'WORSE'], '--fail_on goes with --vs'),
        (
            ['a.json', '--vs', 'b.json', '--fail_on', 'WORST'],
            'give verdicts from BETTER, WORSE, EQUIVALENT, INCONCLUSIVE',
        ),
        ([], 'give one or more results files'),
    ],
)
def test_bad_command_lines_say_why(argv, message, capsys):
  with pytest.raises(SystemExit) as exit_:
    report_command.Main(argv)
  assert exit_.value.code == 2
  assert message in capsys.readouterr().err


def test_a_run_in_both_arms_is_refused(write_runs, capsys):
  a = _Arm(write_runs, 'a', 2, seed=61)
  assert report_command.Main(a + ['--vs', a[0], '--no_plots']) == 1
  assert 'each run counts once' in capsys.readouterr().err


def test_old_files_compare_and_say_there_is_no_test(testdata, tmp_path, capsys):
  paths = []
  for name in ('report-2loaders.json', 'report-1loader.json'):
    path = tmp_path / name
    path.write_text(testdata('report', name))
    paths.append(str(path))
  assert (
      report_command.Main(
          [paths[0], '--vs', paths[1], '--forest', str(tmp_path / 'f.png')]
      )
      == 0
  )
  out = capsys.readouterr().out
  assert 'Verdicts: 10 INCONCLUSIVE' in out
  assert 'populate op rate: B/A = -51.1% (no interval; 1 run per arm)' in out
  assert (tmp_path / 'f.png').read_bytes()[:8] == PNG_SIGNATURE


def test_plan_from_an_aa_experiment(write_runs, capsys):
  aa = write_runs(
      'aa.json',
      *[
          dict(cluster=f'x{i}', start=1_790_000_000 + i, seed=70 + i)
          for i in range(4)
      ],
  )
  argv = ['--plan_ab', '--noise_from', aa, '--difference', '5%']
  argv += ['--cluster_hours', '3', '--usd_per_cluster_hour', '40']
  assert report_command.Main(argv) == 0
  out = capsys.readouterr().out
  assert out.startswith(
      'A/B plan: clusters per arm to detect a difference of +5.0%'
  )
  assert 'Noise: measured on 4 runs on 4 clusters' in out
  assert 'read_small    READ   op rate' in out
  assert 'Every figure: ' in out and ' x 3 h x $40.00)' in out
  assert 'A B B A' in out


def test_plan_from_an_assumption_says_so(capsys):
  argv = ['--plan_ab', '--assume_cv', '2%,1%', '--difference=-3%']
  assert report_command.Main(argv + ['--repeats', '3']) == 0
  out = capsys.readouterr().out
  assert 'difference of -3.0%' in out
  assert 'Noise: ASSUMED, not measured' in out
  assert 'Cost: give --cluster_hours and --usd_per_cluster_hour' in out


def test_an_assumed_plan_tests_each_of_the_figures_given(capsys):
  argv = ['--plan_ab', '--assume_cv', '2%,1%', '--difference=5%']
  assert report_command.Main(argv) == 0
  default = capsys.readouterr().out
  assert report_command.Main(argv + ['--figures', '1']) == 0
  one = capsys.readouterr().out
  assert 'alpha 5% / 51 figures = 0.10% each' in default
  assert '  51 figures: those a report of a run of the default' in default
  assert 'alpha 5% for one figure' in one
  assert '  1 figure: as --figures says' in one


def test_history_csv(write_runs, tmp_path, capsys):
  later = write_runs('later.json', dict(cluster='z', start=1_790_900_000))
  both = write_runs(
      'both.json',
      dict(cluster='y', start=1_790_500_000),
      dict(cluster='x', start=1_790_000_000, new_keys=False),
  )
  path = tmp_path / 'history' / 'h.csv'
  assert report_command.Main([later, both, '--history', str(path)]) == 0
  assert capsys.readouterr().out == f'History: 3 runs, 18 columns -> {path}\n'
  header, *rows = list(csv.reader(path.open()))
  assert header[0] == 'time'
  assert 'latency_2000/WRITE/latency_p99_rt' in header
  assert 'mixed/WRITE/op_rate' in header
  assert [row[header.index('cluster')] for row in rows] == ['x', 'y', 'z']
  assert [row[0] for row in rows] == sorted(row[0] for row in rows)
  assert [row[header.index('repeats')] for row in rows] == ['1', '3', '3']


def test_an_output_that_cannot_be_written_is_named(
    write_runs, tmp_path, capsys
):
  run = write_runs('r.json', dict(cluster='c', start=1))
  blocker = tmp_path / 'file'
  blocker.write_text('')
  target = str(blocker / 'h.csv')
  assert report_command.Main([run, '--history', target]) == 1
  assert capsys.readouterr().err.startswith(f'scylla-phases-report: {target}')


def test_repeated_runs_show_aggregates_with_intervals(write_runs, capsys):
  run = write_runs('r.json', dict(cluster='c', start=1, seed=3))
  assert report_command.Main([run, '--no_plots']) == 0
  out = capsys.readouterr().out
  assert '3 repeats of each measured step' in out
  assert '[low, high]: 95% interval (covers: within_cluster)' in out
  assert re.search(r'read_small +READ +1\d,\d{3} \[1\d,\d{3}, 1\d,\d{3}\]', out)


def test_a_forest_plot_that_cannot_be_written_is_named(
    write_runs, tmp_path, capsys
):
  a = _Arm(write_runs, 'a', 1, seed=81)
  b = _Arm(write_runs, 'b', 1, seed=91)
  blocker = tmp_path / 'file'
  blocker.write_text('')
  target = str(blocker / 'f.png')
  assert report_command.Main(a + ['--vs'] + b + ['--forest', target]) == 1
  assert capsys.readouterr().err.startswith(f'scylla-phases-report: {target}')


def test_the_readme_example(write_runs, tmp_path, capsys):
  """Three clusters x three repeats per arm, in the order A B B A A B.

  B's read_small 23% slower.
  """
  a = [
      write_runs(
          f'a{i + 1}.json',
          dict(
              cluster=f'a-cluster-{i}',
              start=1_790_000_000 + 3600 * hour,
              seed=100 + i,
          ),
      )
      for i, hour in enumerate((0, 3, 4))
  ]
  b = [
      write_runs(
          f'b{i + 1}.json',
          dict(
              cluster=f'b-cluster-{i}',
              start=1_790_000_000 + 3600 * hour,
              seed=200 + i,
              step_scales={'read_small': 0.77},
          ),
      )
      for i, hour in enumerate((1, 2, 5))
  ]
  argv = a + ['--vs'] + b + ['--forest', str(tmp_path / 'forest.png')]
  assert report_command.Main(argv) == 0
  out = capsys.readouterr().out
  assert 'Verdicts: 4 WORSE, 11 INCONCLUSIVE' in out
  for line in out.split('\nClaims\n')[1].splitlines()[:15]:
    assert line.endswith('B is worse') == line.startswith('  read_small')


def test_an_ab_report_shows_each_steps_limit_and_server_load(tmp_path, capsys):
  # The benchmark's own run as A, and as B a copy of it on another cluster
  # whose busiest shard was 10 points busier.
  a = REPO / 'tests' / 'testdata' / 'results' / 'scylla_phases_fake_run.json'
  b = tmp_path / 'b.json'
  lines = []
  for line in a.read_text().splitlines():
    sample = json.loads(line)
    sample['run_uri'] = sample['run_uri'].replace('fakerun1', 'fakerun2')
    sample['labels'] = sample['labels'].replace(
        '|scylla_cluster:fakerun1', '|scylla_cluster:fakerun2'
    )
    if sample['metric'] == 'server_busy_max':
      sample['value'] += 5
    lines.append(json.dumps(sample))
  b.write_text('\n'.join(lines) + '\n')
  assert report_command.Main([str(a), '--vs', str(b), '--no_plots']) == 0
  out = capsys.readouterr().out
  servers = out.split('\nServers, A -> B')[1]
  assert re.search(
      r'\n  read_small +servers +servers +93 -> 98 +\S+ -> \S+ ', servers
  ), servers
