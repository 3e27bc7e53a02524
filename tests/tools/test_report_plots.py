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

"""PNG plots and the report command, on results files PKB's publisher wrote.

tests/testdata/report/ (see its README.md): two runs of populate, quiesce
and a two-rate latency ladder, from the benchmark's chain on real outputs.
"""

import json

from matplotlib import image
import pytest

from perfkit_plugins.core.results import ab_comparison
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import comparison
from perfkit_plugins.tools import report_command
from perfkit_plugins.tools import report_plots

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
TWO = 'report-2loaders.json'
ONE = 'report-1loader.json'


@pytest.fixture
def runs(testdata):
  return results_tables.LoadRuns(
      [(name, testdata('report', name)) for name in (TWO, ONE)]
  )


def _Kept(monkeypatch, what):
  """A list that gets what(figure) of every figure the plots save."""
  kept = []
  save = report_plots._Save  # pylint: disable=protected-access

  def Keep(figure, path):
    kept.append(what(figure))
    return save(figure, path)

  monkeypatch.setattr(report_plots, '_Save', Keep)
  return kept


def _CheckPng(path):
  """A real PNG of the documented size; returns its pixels."""
  with open(path, 'rb') as f:
    assert f.read(8) == PNG_SIGNATURE
  pixels = image.imread(str(path))
  assert pixels.shape[:2] == (report_plots.HEIGHT_PX, report_plots.WIDTH_PX)
  return pixels


def _Drawn(pixels):
  """Share of pixels that are not the white background."""
  return float((pixels[:, :, :3] < 0.9).any(axis=2).mean())


def test_every_plot_of_two_runs(tmp_path, runs):
  paths = report_plots.WritePlots(runs, str(tmp_path / 'plots'))
  assert [p.rsplit('/', 1)[1] for p in paths] == [
      'populate_timeseries.png',
      'latency_timeseries.png',
      'latency_ladder.png',
      'quiesce_timeline.png',
  ]
  for path in paths:
    assert _Drawn(_CheckPng(path)) > 0.02


def test_plots_differ_with_the_data(tmp_path, runs):
  both = _CheckPng(
      report_plots.PlotQuiesceTimeline(runs, str(tmp_path / 'both.png'))
  )
  first = _CheckPng(
      report_plots.PlotQuiesceTimeline(runs[:1], str(tmp_path / 'first.png'))
  )
  assert both.shape == first.shape
  assert (both != first).any()


def test_no_ladder_or_timeline_without_their_steps(tmp_path, testdata):
  samples = [json.loads(line) for line in testdata('report', ONE).splitlines()]
  populate_only = [
      s for s in samples if '|scylla_step:populate|' in s['labels']
  ]
  (run,) = results_tables.LoadRuns(
      [('p.json', '\n'.join(json.dumps(s) for s in populate_only))]
  )
  paths = report_plots.WritePlots([run], str(tmp_path))
  assert [p.rsplit('/', 1)[1] for p in paths] == ['populate_timeseries.png']


def test_report_command_prints_tables_and_lists_plots(
    tmp_path, capsys, testdata
):
  paths = []
  for name in (TWO, ONE):
    path = tmp_path / name
    path.write_text(testdata('report', name))
    paths.append(str(path))
  plots = tmp_path / 'plots'
  assert report_command.Main(paths + [f'--plots_dir={plots}']) == 0
  out = capsys.readouterr().out
  assert out.startswith('[1] cassandra 5.0.2 on 1 x lab-host (')
  assert '\nComparison ([1] ' in out
  assert out.rstrip().endswith(str(plots / 'quiesce_timeline.png'))
  assert len(list(plots.glob('*.png'))) == 4


def test_report_command_tables_only(tmp_path, capsys, testdata):
  path = tmp_path / ONE
  path.write_text(testdata('report', ONE))
  assert report_command.Main([str(path), '--no_plots']) == 0
  out = capsys.readouterr().out
  assert 'Plots:' not in out
  assert '\nQuiesce\n' in out
  assert not list(tmp_path.glob('**/*.png'))


def test_report_command_names_an_unreadable_file(tmp_path, capsys):
  bad = tmp_path / 'bad.json'
  bad.write_text('not json\n')
  assert report_command.Main([str(bad)]) == 1
  err = capsys.readouterr().err
  assert err.startswith(f'scylla-phases-report: {bad}:1: not a PKB sample')
  missing = tmp_path / 'missing.json'
  assert report_command.Main([str(bad), str(missing)]) == 1
  assert capsys.readouterr().err == (
      f'scylla-phases-report: {missing}: No such file or directory\n'
  )


def test_runs_differ_by_line_style_and_steps_share_colours(
    tmp_path, runs, monkeypatch
):
  figures = _Kept(
      monkeypatch,
      lambda figure: [
          [(l.get_label(), l.get_linestyle(), l.get_color()) for l in a.lines]
          for a in figure.axes
      ],
  )
  report_plots.PlotPhaseSeries(runs, 'latency', str(tmp_path / 'l.png'))
  report_plots.PlotLadder(runs, str(tmp_path / 'ladder.png'))
  (rate_lines, p99_lines, server_lines), ladder = figures
  # These runs' servers were not sampled: an empty panel.
  assert not server_lines
  for lines in (rate_lines, p99_lines):
    by_run = {}
    for label, style, colour in lines:
      run, what = label.split(' ', 1)
      by_run.setdefault(run, {})[what] = (style, colour)
    assert sorted(by_run) == ['[1]', '[2]']
    assert by_run['[1]'].keys() == by_run['[2]'].keys()
    for what, (style, colour) in by_run['[1]'].items():
      assert style == '-'
      assert by_run['[2]'][what] == ('--', colour)
    colours = [colour for _, colour in by_run['[1]'].values()]
    assert len(set(colours)) == len(colours)
  for axes_lines in ladder:
    assert [style for _, style, _ in axes_lines] == ['-', '--']


def test_the_servers_load_is_drawn_under_the_loaders(
    tmp_path, testdata, monkeypatch
):
  # The benchmark's own run: three ScyllaDB servers sampled every step.
  run = results_tables.LoadRuns(
      [('run', testdata('results', 'scylla_phases_fake_run.json'))]
  )
  figures = _Kept(monkeypatch, lambda figure: figure.axes)
  _CheckPng(report_plots.PlotPhaseSeries(run, 'read', str(tmp_path / 'r.png')))
  ((_, _, servers),) = figures
  assert servers.get_ylabel() == 'server busy %'
  labels = {line.get_label() for line in servers.lines}
  assert {'[1] server-0 CPU', '[1] server-1 CPU', '[1] server-2 CPU'} <= (
      labels
  )
  # Each of the three read steps' busiest shard, over its window.
  segments = servers.collections
  assert segments[0].get_label() == '[1] busiest shard'
  assert [c.get_segments()[0][0][1] for c in segments] == [93.0] * 3


def test_ladder_puts_steps_at_the_rate_achieved_and_marks_a_missed_one(
    tmp_path, testdata, monkeypatch
):
  samples = [
      json.loads(line)
      for line in testdata('report', 'report-2loaders-metadata.json').split(
          '\n'
      )
      if line
  ]
  # latency_4000 as a run whose loaders fell behind publishes it.
  for sample in samples:
    if sample['metadata']['scylla_step'] == 'latency_4000':
      sample['metadata']['scylla_rate_reached'] = False
  (run,) = results_tables.LoadRuns(
      [('m.json', '\n'.join(json.dumps(s) for s in samples))]
  )
  figures = _Kept(monkeypatch, lambda figure: figure.axes)
  report_plots.PlotLadder([run], str(tmp_path / 'ladder.png'))
  drawn = [axes for axes_of in figures for axes in axes_of]
  achieved = [
      run.Value('op_rate', step, 'WRITE')
      for step in ('latency_2000', 'latency_4000')
  ]
  assert len(drawn) == 2
  for axes in drawn:
    (line,) = axes.lines
    assert list(line.get_xdata()) == achieved
    assert [t.get_text() for t in axes.texts] == [
        f'rate not reached: {achieved[1]:,.0f} of 4,000 op/s'
    ]
    (ring,) = axes.collections
    assert list(ring.get_offsets()[0]) == [achieved[1], line.get_ydata()[1]]


def test_run_styles_repeat_after_four():
  assert report_plots.RunStyle(0) == ('-', 'o')
  assert report_plots.RunStyle(1) == ('--', 's')
  assert report_plots.RunStyle(4) == report_plots.RunStyle(0)


def _Compared(label, ratio, low, high, verdict, margin=0.02):
  row = comparison.ComparisonRow(
      step='s',
      metric=label,
      ratio=ratio,
      ci_low=low,
      ci_high=high,
      level=0.95,
      margin=margin,
      higher_is_better=True,
      p=0.01,
      q=0.01,
      verdict=verdict,
      runs_a=3,
      runs_b=3,
      clusters_a=3,
      clusters_b=3,
      method='welch_clusters',
      covers='across_clusters',
      warning='',
      clusters_needed=None,
      noise='',
      standard_error=0.01,
      dof=4,
  )
  return ab_comparison.Compared(
      ab_comparison.Figure('s', 'R', 'op_rate'), label, 1.0, ratio, row
  )


def test_forest_plot_colours_each_verdict(tmp_path, monkeypatch):
  rows = [
      _Compared('worse', 0.75, 0.7, 0.8, 'WORSE'),
      _Compared('better', 1.2, 1.1, 1.3, 'BETTER'),
      _Compared('same', 1.0, 0.99, 1.01, 'EQUIVALENT', margin=0.05),
      _Compared('unknown', 0.9, 0.0, float('inf'), 'INCONCLUSIVE'),
  ]

  def Marks(figure):
    (axes,) = figure.axes
    return (
        [t.get_text() for t in axes.get_yticklabels()],
        [line.get_color() for line in axes.lines],
        [t.get_text() for t in axes.get_xticklabels()],
    )

  figures = _Kept(monkeypatch, Marks)
  path = report_plots.PlotForest(rows, str(tmp_path / 'forest.png'))
  with open(path, 'rb') as f:
    assert f.read(8) == PNG_SIGNATURE
  pixels = image.imread(path)
  assert pixels.shape[1] == report_plots.WIDTH_PX
  ((labels, colours, ticks),) = figures
  # The first row at the top: y labels run bottom-up.
  # Each label says the level of the interval its verdict rests on.
  assert labels == [
      'unknown (95%)',
      'same (95%)',
      'better (95%)',
      'worse (95%)',
  ]
  for verdict in ('WORSE', 'BETTER', 'EQUIVALENT', 'INCONCLUSIVE'):
    assert report_plots.VERDICT_COLOURS[verdict] in colours
  assert '0%' in ticks and '-20%' in ticks and '+20%' in ticks


def test_forest_plot_grows_with_its_rows(tmp_path):
  rows = [_Compared(f'r{i}', 1.0, 0.98, 1.02, 'EQUIVALENT') for i in range(60)]
  path = report_plots.PlotForest(rows, str(tmp_path / 'tall.png'))
  height, width = image.imread(path).shape[:2]
  assert width == report_plots.WIDTH_PX
  assert height > report_plots.HEIGHT_PX
