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

"""PNG plots of scylla_phases results, drawn with matplotlib (Agg backend).

* `<phase>_timeseries.png` per phase: op/s (top) and p99 latency (bottom)
  over time, one line per step, op type and latency kind;
* `latency_ladder.png`: p99 and p99.9 latency against the op rate each
  fixed-rate step achieved, one line per run (response time where the run
  measured it, else service time); a step whose rate was not reached is
  ringed in red and labelled with what it achieved of its target;
* `quiesce_timeline.png`: per run, populate then compaction until the
  cluster was quiet, on one time axis from the populate start, with the
  populate throughput above it (the c3.2xlarge study's Figure 1);
* `ab_forest.png` (an A/B comparison, PlotForest): each compared figure's
  B/A with its interval on a log axis labelled in percent, the
  equivalence margin shaded, the verdict as the colour.

Every figure is FIGURE_SIZE_IN inches at DPI: WIDTH_PX x HEIGHT_PX pixels
(a forest plot grows taller with its rows).
With several runs, a line's style says its run (RUN_LINE_STYLES, run [1]
solid) and its colour says what it shows (the same step, op type and kind
has the same colour in every run), so runs compare line against line.
"""

import math
import os

from perfkit_plugins.core import number_format
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import comparison

FIGURE_SIZE_IN = (12, 7)
DPI = 100
WIDTH_PX, HEIGHT_PX = FIGURE_SIZE_IN[0] * DPI, FIGURE_SIZE_IN[1] * DPI
RUN_LINE_STYLES = ('-', '--', ':', '-.')
RUN_MARKERS = ('o', 's', '^', 'D')
# A forest plot's colour per verdict (core/stats/comparison's verdicts).
VERDICT_COLOURS = {
    'BETTER': 'tab:green',
    'WORSE': 'tab:red',
    'EQUIVALENT': 'tab:blue',
    'INCONCLUSIVE': 'tab:gray',
}
FOREST_FILE = 'ab_forest.png'
# Inches per row of a forest plot, and around its rows.
_FOREST_ROW_IN = 0.28
_FOREST_MARGIN_IN = 1.8
# Percent changes a forest plot's axis may label, finest set first (each
# also as a fall below 100%).
_FOREST_TICK_SETS = (
    (1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 200, 400, 900),
    (2, 5, 10, 20, 30, 50, 75, 100, 200, 400, 900),
    (5, 10, 20, 30, 50, 75, 100, 200, 400, 900),
    (10, 20, 30, 50, 75, 100, 200, 400, 900),
    (10, 25, 50, 75, 100, 200, 400, 900),
    (25, 50, 75, 100, 200, 400, 900),
    (50, 90, 100, 400, 900),
)
# Labels closer than this share of a forest plot's axis would overlap.
_FOREST_TICK_GAP = 1 / 14


def RunStyle(index):
  """Line style and marker of run `index` (0-based), repeating after 4."""
  return (
      RUN_LINE_STYLES[index % len(RUN_LINE_STYLES)],
      RUN_MARKERS[index % len(RUN_MARKERS)],
  )


class _Colours:
  """One colour per thing shown, the same in every run's lines."""

  def __init__(self):
    self._assigned = {}

  def __call__(self, key):
    if key not in self._assigned:
      self._assigned[key] = f'C{len(self._assigned) % 10}'
    return self._assigned[key]


def _Pyplot():
  """matplotlib.pyplot on the Agg backend (no display needed)."""
  # matplotlib is optional (the `report` extra) and slow to import: imported
  # when a plot is drawn, never by pkb.py.
  # pylint: disable=import-outside-toplevel
  import matplotlib

  matplotlib.use('Agg')
  from matplotlib import pyplot

  # pylint: enable=import-outside-toplevel
  return pyplot


def _Caption(figure, runs):
  """Names the runs [1], [2]... below the plots (legends use the numbers)."""
  figure.subplots_adjust(bottom=0.16)
  figure.text(
      0.01,
      0.01,
      '\n'.join(f'[{i + 1}] {run.label}' for i, run in enumerate(runs)),
      fontsize='small',
      va='bottom',
  )


def _Save(figure, path):
  figure.savefig(path, dpi=DPI)
  _Pyplot().close(figure)
  return path


def _Phases(run):
  """Phases with time series, in the order the run published them."""
  return list(
      dict.fromkeys(
          r.metadata.get('scylla_phase')
          for r in run.Find('op_rate_series')
          if r.metadata.get('scylla_phase')
      )
  )


def _InPhase(run, series, phase):
  steps = {r.step for r in run.rows if r.metadata.get('scylla_phase') == phase}
  return [s for s in series if s.step in steps]


def _BusiestShards(run, phase):
  """(step, busy %, window start ms, window end ms) of ScyllaDB's steps.

  The busiest shard of any server over each step's window (server_busy_max
  of ScyllaDB), the window from the step's op_rate sample.
  """
  windows = {}
  for r in _InPhase(run, run.Find('op_rate'), phase):
    start = r.metadata.get(results_tables.WINDOW_START_KEY)
    end = r.metadata.get(results_tables.WINDOW_END_KEY)
    if start is not None and end is not None:
      windows.setdefault(r.step, (1000 * float(start), 1000 * float(end)))
  return [
      (r.step, r.value, *windows[r.step])
      for r in _InPhase(run, run.Find('server_busy_max'), phase)
      if r.step in windows
      and r.metadata.get('scylla_server_busy_of') == 'busiest shard'
  ]


def PlotPhaseSeries(runs, phase, path):
  """Throughput, p99 and the servers' load over time of one phase.

  Time is seconds since the phase's first interval in each run. Under the
  loaders' figures, each server's CPU busy share (its sampler's, every few
  seconds) and, for ScyllaDB, whose reactors poll and keep the CPU busy,
  the busiest shard's share over each step's window (a dashed segment).

  Returns:
    path.
  """
  pyplot = _Pyplot()
  figure, (rate_axes, p99_axes, server_axes) = pyplot.subplots(
      3, 1, figsize=FIGURE_SIZE_IN, sharex=True
  )
  colours = {
      rate_axes: _Colours(),
      p99_axes: _Colours(),
      server_axes: _Colours(),
  }
  labelled = set()
  for i, run in enumerate(runs):
    style, _ = RunStyle(i)
    rates = _InPhase(run, results_tables.SeriesOf(run, 'op_rate_series'), phase)
    p99s = _InPhase(
        run, results_tables.SeriesOf(run, 'latency_p99_series'), phase
    )
    servers = _InPhase(
        run, results_tables.SeriesOf(run, 'server_cpu_busy_series'), phase
    )
    start = min((s.start_ms for s in rates + p99s), default=0)
    prefix = f'[{i + 1}] '
    repeated = run.Repeats() > 1
    for axes, series in (
        (rate_axes, rates),
        (p99_axes, p99s),
        (server_axes, servers),
    ):
      for s in series:
        offset = (s.start_ms - start) / 1000
        if axes is server_axes:
          what = f'{s.server} CPU'
        else:
          what = f'{s.step} {s.op}' + (f' {s.kind}' if axes is p99_axes else '')
          if repeated and s.repeat:
            what += f' r{s.repeat}'
        label = f'{prefix}{what}'
        axes.plot(
            [t + offset for t in s.times_s],
            s.values,
            linestyle=style,
            color=colours[axes](what),
            # A server's series of every step: one legend entry.
            label=None if label in labelled else label,
        )
        labelled.add(label)
    for _, busy, first_ms, last_ms in _BusiestShards(run, phase):
      label = f'{prefix}busiest shard'
      server_axes.hlines(
          busy,
          (first_ms - start) / 1000,
          (last_ms - start) / 1000,
          linestyles='dashed',
          color='black',
          label=None if label in labelled else label,
      )
      labelled.add(label)
  rate_axes.set_ylabel('op/s')
  p99_axes.set_ylabel('p99 latency (ms)')
  server_axes.set_ylabel('server busy %')
  server_axes.set_ylim(0, 105)
  server_axes.set_xlabel(f'seconds since the start of {phase}')
  for axes in (rate_axes, p99_axes, server_axes):
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
      axes.legend(fontsize='small', loc='best')
  figure.suptitle(f'{phase}: throughput, p99 latency and server load over time')
  _Caption(figure, runs)
  return _Save(figure, path)


def _LadderLine(run, metric):
  """[(achieved op/s, ms, target op/s or None)] of the run's ladder.

  Each step at the op rate it achieved, not at its target, which is given
  only for a step whose rate was not reached; rt where measured, else st.
  """
  missed = results_tables.RateMissedSteps(run)
  points = []
  for rate, step, op in results_tables.LadderPoints(run):
    value = run.Value(metric, step, op, 'rt')
    if value is None:
      value = run.Value(metric, step, op, 'st')
    if value is not None:
      points.append((
          run.Value('op_rate', step, op),
          value,
          rate if step in missed else None,
      ))
  return points


def PlotLadder(runs, path):
  """p99 and p99.9 latency against the rate achieved, one line per run.

  A step whose fixed rate was not reached is ringed in red and labelled
  `<achieved> of <target> op/s`: its latency is that of a queue behind
  its schedule, not of the database at its target.

  Returns:
    path.
  """
  pyplot = _Pyplot()
  figure, axes_pair = pyplot.subplots(1, 2, figsize=FIGURE_SIZE_IN)
  for axes, (metric, name) in zip(
      axes_pair, (('latency_p99', 'p99'), ('latency_p999', 'p99.9'))
  ):
    for i, run in enumerate(runs):
      points = _LadderLine(run, metric)
      style, marker = RunStyle(i)
      if points:
        axes.plot(
            [rate for rate, _, _ in points],
            [ms for _, ms, _ in points],
            linestyle=style,
            marker=marker,
            label=f'[{i + 1}]',
        )
      for rate, ms, target in points:
        if target is None:
          continue
        axes.scatter(
            [rate], [ms], s=200, facecolors='none', edgecolors='tab:red'
        )
        axes.annotate(
            f'rate not reached: {rate:,.0f} of {target:,.0f} op/s',
            (rate, ms),
            textcoords='offset points',
            xytext=(8, 8),
            color='tab:red',
            fontsize='small',
        )
    axes.set_ylim(bottom=0)
    axes.set_title(f'{name} latency')
    axes.set_xlabel('write rate achieved at a fixed rate (op/s)')
    axes.set_ylabel('ms')
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
      axes.legend(fontsize='small')
  figure.suptitle('Latency at fixed rates (response time, corrected)')
  _Caption(figure, runs)
  return _Save(figure, path)


def _QuiesceTimes(run):
  """(populate s, total to quiesce s) of the quiesce after populate."""
  for r in run.Find('total_time_to_quiesce'):
    populate = run.Value('populate_time', r.step)
    if populate is not None:
      return populate, r.value
  return None


def PlotQuiesceTimeline(runs, path):
  """Populate and compaction of each run on one time axis.

  Returns:
    path.
  """
  pyplot = _Pyplot()
  figure, (rate_axes, bar_axes) = pyplot.subplots(
      2,
      1,
      figsize=FIGURE_SIZE_IN,
      sharex=True,
      gridspec_kw={'height_ratios': (2, 1)},
  )
  labels = []
  for i, run in enumerate(runs):
    populate = [
        s
        for s in results_tables.SeriesOf(run, 'op_rate_series')
        if s.step == 'populate'
    ]
    for s in populate:
      rate_axes.plot(
          s.times_s,
          s.values,
          linestyle=RunStyle(i)[0],
          label=f'[{i + 1}] populate {s.op}',
      )
    times = _QuiesceTimes(run)
    if times:
      populate_s, total_s = times
      bar_axes.barh(i, populate_s, color='tab:blue')
      bar_axes.barh(
          i, total_s - populate_s, left=populate_s, color='tab:orange'
      )
      bar_axes.text(
          total_s,
          i,
          f'compacting {number_format.FormatDuration(total_s - populate_s)} ',
          ha='right',
          va='center',
          fontsize='small',
      )
    labels.append(f'[{i + 1}]')
  bar_axes.set_yticks(range(len(runs)), labels)
  bar_axes.set_xlabel('seconds since the start of populate')
  bar_axes.legend(
      handles=[
          pyplot.Rectangle((0, 0), 1, 1, color='tab:blue'),
          pyplot.Rectangle((0, 0), 1, 1, color='tab:orange'),
      ],
      labels=['populate', 'compaction after populate'],
      fontsize='small',
      loc='lower left',
      bbox_to_anchor=(0, 1.0),
      ncol=2,
      frameon=False,
  )
  rate_axes.set_ylabel('populate op/s')
  rate_axes.grid(True, alpha=0.3)
  if rate_axes.get_legend_handles_labels()[0]:
    rate_axes.legend(fontsize='small')
  figure.suptitle('Time to quiesce: populate, then compaction until idle')
  _Caption(figure, runs)
  return _Save(figure, path)


def _ForestLimits(rows):
  """The x range (ratios) that shows every estimate, bound and margin."""
  values = [1.0]
  for c in rows:
    r = c.row
    values += [r.ratio, 1 - r.margin, 1 + r.margin]
    values += [b for b in r.VerdictInterval()[:2] if 0 < b < float('inf')]
  low, high = min(values), max(values)
  return low / 1.03, high * 1.03


def _PercentTicks(low, high):
  """Ratios to label on the log axis, as percent changes within [low, high].

  The finest of _FOREST_TICK_SETS whose labels lie at least
  _FOREST_TICK_GAP of the axis apart, 0% always among them.
  """
  gap = _FOREST_TICK_GAP * math.log(high / low)
  ticks = [1.0]
  for percents in _FOREST_TICK_SETS:
    ratios = {1.0} | {1 + p / 100 for p in percents}
    ratios |= {1 - p / 100 for p in percents if p < 100}
    ticks = sorted(r for r in ratios if low <= r <= high)
    if all(math.log(b / a) >= gap for a, b in zip(ticks, ticks[1:])):
      return ticks
  return ticks


def _PercentChange(ratio):
  """A ratio as a percent change: 1.05 -> '+5%', 1 -> '0%'."""
  change = round((ratio - 1) * 100)
  return f'{change:+d}%' if change else '0%'


def PlotForest(rows, path, title='B/A per figure'):
  """A forest plot: each compared figure's B/A and interval, verdict colours.

  One row per figure, the first at the top: the point is B/A, the line the
  interval its verdict rests on, at that interval's level (the row's label
  says it; dotted where the interval runs off the axis), the shaded band
  the figure's equivalence margin, the colour its verdict. The x axis is
  logarithmic (B/A = 0.8 and 1.25 lie equally far from 1) and labelled in
  percent change.

  Args:
    rows: the compared figures, each with `label` and `row` (a
      core/stats/comparison.ComparisonRow): ab_comparison.Report.rows.
    path: the PNG to write.
    title: the plot's title.

  Returns:
    path.
  """
  pyplot = _Pyplot()
  count = len(rows)
  figure, axes = pyplot.subplots(
      figsize=(
          FIGURE_SIZE_IN[0],
          max(FIGURE_SIZE_IN[1], _FOREST_MARGIN_IN + _FOREST_ROW_IN * count),
      )
  )
  low, high = _ForestLimits(rows)
  for i, c in enumerate(rows):
    r = c.row
    y = count - 1 - i
    axes.fill_betweenx(
        (y - 0.4, y + 0.4),
        1 - r.margin,
        1 + r.margin,
        color='tab:blue',
        alpha=0.12,
        linewidth=0,
    )
    colour = VERDICT_COLOURS.get(r.verdict, 'black')
    ci_low, ci_high, _ = r.VerdictInterval()
    start = ci_low if ci_low > 0 else low
    end = min(ci_high, high)
    clipped = start != ci_low or end != ci_high
    axes.plot(
        (max(start, low), end),
        (y, y),
        color=colour,
        linewidth=2,
        linestyle=':' if clipped else '-',
    )
    axes.plot(r.ratio, y, marker='o', color=colour)
  axes.axvline(1.0, color='black', linewidth=0.8)
  axes.set_xscale('log')
  axes.set_xlim(low, high)
  ticks = _PercentTicks(low, high)
  # pyplot re-exports matplotlib.ticker's locators and formatters.
  axes.xaxis.set_major_locator(pyplot.FixedLocator(ticks))
  axes.xaxis.set_minor_locator(pyplot.NullLocator())
  axes.xaxis.set_major_formatter(
      pyplot.FuncFormatter(lambda x, _: _PercentChange(x))
  )
  axes.set_yticks(
      range(count),
      [
          f'{c.label} ({comparison.LevelText(c.row.VerdictInterval()[2])})'
          for c in reversed(rows)
      ],
  )
  axes.set_ylim(-0.7, count - 0.3)
  axes.set_xlabel('B/A, percent change (log scale)')
  axes.grid(True, axis='x', alpha=0.3)
  verdicts = list(dict.fromkeys(c.row.verdict for c in rows))
  handles = [
      pyplot.Line2D((), (), color=VERDICT_COLOURS.get(v, 'black'), marker='o')
      for v in verdicts
  ] + [pyplot.Rectangle((0, 0), 1, 1, color='tab:blue', alpha=0.12)]
  axes.legend(
      handles=handles,
      labels=verdicts + ['equivalence margin'],
      fontsize='small',
      loc='upper left',
      bbox_to_anchor=(1.0, 1.0),
  )
  axes.set_title(title)
  figure.tight_layout()
  return _Save(figure, path)


def WritePlots(runs, directory):
  """Every plot the runs have data for, into `directory`.

  Returns:
    list of the PNG paths written.
  """
  os.makedirs(directory, exist_ok=True)
  paths = []
  phases = list(dict.fromkeys(p for run in runs for p in _Phases(run)))
  for phase in phases:
    paths.append(
        PlotPhaseSeries(
            runs, phase, os.path.join(directory, f'{phase}_timeseries.png')
        )
    )
  if any(results_tables.LadderPoints(run) for run in runs):
    paths.append(
        PlotLadder(runs, os.path.join(directory, 'latency_ladder.png'))
    )
  if any(_QuiesceTimes(run) for run in runs):
    paths.append(
        PlotQuiesceTimeline(
            runs, os.path.join(directory, 'quiesce_timeline.png')
        )
    )
  return paths
