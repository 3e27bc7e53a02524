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

"""Planning an A/B comparison from the noise of synthetic A/A runs."""

import dataclasses
import math
import pathlib

import numpy as np
import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.results import ab_comparison
from perfkit_plugins.core.results import ab_plan
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.stats import experiment

FIXTURE = (
    pathlib.Path(__file__).parents[2]
    / 'testdata'
    / 'results'
    / 'scylla_phases_fake_run.json'
)


def _Runs(
    clusters,
    repeats=3,
    between=0.03,
    within=0.01,
    seed=0,
    price=None,
    step='read_small',
    within_run=None,
):
  """A/A runs: one step's op rate and p99, noise between and within.

  A populate step runs once per cluster whatever `repeats` (as the
  benchmark runs it), its samples saying the run's repeats. With
  `within_run`, each sample has a within-run interval of that relative
  standard error.
  """
  rng = np.random.default_rng(seed)
  runs = []
  for c in range(clusters):
    cluster = f'c{c}'
    offset = rng.normal(0, between)
    rows = []
    for repeat in range(1, (1 if step == 'populate' else repeats) + 1):
      metadata = {
          'scylla_phase': 'populate' if step == 'populate' else 'read',
          'scylla_step': step,
          'scylla_op': 'READ',
          'scylla_cluster': cluster,
          'scylla_repeat': repeat,
          'scylla_repeats': repeats,
      }
      if price is not None:
        metadata['scylla_price_usd_per_hour'] = price
      if within_run is not None:
        metadata.update(
            scylla_ci_low=1e-9, scylla_ci_high=1e9, scylla_ci_se_log=within_run
        )
      noise = math.exp(offset + rng.normal(0, within))
      rows.append(
          results_tables.Row('op_rate', 10_000.0 * noise, 'op/s', metadata)
      )
      rows.append(
          results_tables.Row(
              'latency_p99',
              10.0 / noise,
              'ms',
              dict(metadata, scylla_latency_kind='st'),
          )
      )
    runs.append(
        results_tables.Run(cluster, tuple(rows), cluster, 100.0 * c, 'aa.json')
    )
  return runs


def test_a_plan_from_measured_noise():
  runs = _Runs(6, seed=1)
  plan = ab_plan.PlanFromRuns(runs, 0.05, files=('aa.json',))
  assert plan.repeats == 3
  assert not plan.assumed
  rate = plan.figures[0]
  assert rate.figure.metric == 'op_rate'
  assert rate.noise.clusters == 6 and rate.noise.runs == 18
  assert rate.noise.between_cluster_cv == pytest.approx(0.03, abs=0.02)
  # The report adjusts across its rows: each figure is planned at 5% / m.
  figures = len(plan.figures)
  assert plan.alpha == pytest.approx(0.05 / figures)
  assert rate.detect == experiment.ClustersNeeded(
      rate.noise, 0.05, 3, 0.05 / figures
  )
  assert rate.detect > experiment.ClustersNeeded(rate.noise, 0.05, 3)
  # Equivalence: the report's two-sided interval inside the margin, each
  # side at half its level's complement.
  assert rate.equivalence == experiment.ClustersNeededForEquivalence(
      rate.noise, 0.0, 0.02, 3, 0.05 / figures / 2
  )
  assert rate.repeats == 3
  assert plan.figures[1].margin == 0.05  # a percentile's
  text = ab_plan.RenderPlan(plan)
  assert text.startswith(
      'A/B plan: clusters per arm to detect a difference of +5.0%'
      f' (two-sided, alpha 5% / {figures} figures = {0.05 / figures:.2%}'
      " each, as the report's adjustment across its rows asks, power 80%),"
      ' 3 repeats per cluster\n'
      '  Noise: measured on 6 runs on 6 clusters (aa.json)'
  )
  worst = max(p.detect for p in plan.figures)
  assert f'Every figure: {worst} clusters per arm' in text
  assert ab_plan.Order(worst) in text
  assert 'Cost: give --cluster_hours and --usd_per_cluster_hour' in text
  assert 'lower bound' not in text
  assert 'rests on' not in text
  few = ab_plan.RenderPlan(ab_plan.PlanFromRuns(_Runs(3, seed=1), 0.05))
  assert 'The noise between clusters rests on 3 clusters' in few


def test_more_repeats_need_fewer_clusters_only_for_run_to_run_noise():
  runs = _Runs(6, between=0.0, within=0.03, seed=2)
  one = ab_plan.PlanFromRuns(runs, 0.03, repeats=1).figures[0].detect
  many = ab_plan.PlanFromRuns(runs, 0.03, repeats=9).figures[0].detect
  assert many < one


def test_cost_and_the_published_price():
  runs = _Runs(4, seed=3, price=39.0)
  plan = ab_plan.PlanFromRuns(runs, 0.05, cluster_hours=2.5)
  assert plan.usd_per_cluster_hour == 39.0
  text = ab_plan.RenderPlan(plan)
  worst = max(p.detect for p in plan.figures)
  usd = experiment.ExperimentCostUsd(2 * worst, 2.5, 39.0)
  assert f'${usd:,.2f} ({2 * worst} clusters x 2.5 h x $39.00)' in text
  assert 'servers only, loaders not included' in text
  given = ab_plan.PlanFromRuns(
      runs, 0.05, cluster_hours=2.5, usd_per_cluster_hour=60.0
  )
  assert 'Price:' not in ab_plan.RenderPlan(given)
  assert given.usd_per_cluster_hour == 60.0


def test_noise_of_one_cluster_gives_lower_bounds():
  plan = ab_plan.PlanFromRuns(_Runs(1, seed=4), 0.05)
  assert all(p.lower_bound for p in plan.figures)
  text = ab_plan.RenderPlan(plan)
  assert '* lower bound: the noise runs ran on one cluster' in text
  assert '*' in text.split('Noise and clusters per arm')[1].splitlines()[2]


def test_a_figure_without_noise_has_no_plan():
  run = results_tables.Run(
      'x',
      (
          results_tables.Row(
              'op_rate', 5.0, 'op/s', {'scylla_step': 's', 'scylla_op': 'R'}
          ),
      ),
      'x',
  )
  plan = ab_plan.PlanFromRuns([run], 0.05)
  (figure,) = plan.figures
  assert figure.detect is None
  assert 'knows no noise' in figure.problem
  text = ab_plan.RenderPlan(plan)
  assert 'No plan\n  s R op rate: ' in text
  assert 'No figure has a known noise: no design.' in text


def test_an_assumed_noise_says_so():
  plan = ab_plan.AssumedNoise(
      0.02, 0.01, -0.03, repeats=3, cluster_hours=2, usd_per_cluster_hour=50
  )
  assert plan.assumed
  (figure,) = plan.figures
  # At 5% / m as a measured plan of the default phases' m figures, and the
  # noise of a cluster mean over 3 repeats as a measured plan's.
  alpha = 0.05 / ab_plan.DEFAULT_FIGURES
  assert plan.alpha == alpha
  assert figure.detect == experiment.ClustersNeeded(
      experiment.NoiseProfile(0.02, 0.01, None), -0.03, 3, alpha
  )
  text = ab_plan.RenderPlan(plan)
  assert f'alpha 5% / {ab_plan.DEFAULT_FIGURES} figures = 0.10% each' in text
  assert (
      f'{ab_plan.DEFAULT_FIGURES} figures: those a report of a run of the'
      ' default phases compares'
  ) in text
  assert 'Noise: ASSUMED, not measured: 2.0% between clusters' in text
  assert 'An assumption is not a measurement' in text
  usd = experiment.ExperimentCostUsd(2 * figure.detect, 2, 50)
  assert f'Every figure: {figure.detect} clusters per arm, ${usd:,.2f}' in text


def test_an_assumed_noise_plans_as_the_measured_noise_of_its_figures():
  runs = _Runs(8, between=0.02, within=0.01, seed=5)
  measured = ab_plan.PlanFromRuns(runs, 0.05)
  rate = measured.figures[0]
  noise = rate.noise
  assumed = ab_plan.AssumedNoise(
      noise.between_cluster_cv,
      noise.within_cluster_cv,
      0.05,
      repeats=3,
      figures=len(measured.figures),
  )
  assert assumed.alpha == measured.alpha
  assert assumed.figures[0].detect == rate.detect
  with pytest.raises(ValueError, match='at least one'):
    ab_plan.AssumedNoise(0.01, 0.01, 0.05, figures=0)


def test_default_figures_are_those_of_a_run_of_the_default_phases():
  # The fixture ran every phase at two latency rates: its figures in the
  # default phases, with the default rates' latency steps.
  runs = results_tables.LoadRuns([(FIXTURE.name, FIXTURE.read_text())])
  phases = {}
  for figure in ab_comparison.Figures(runs):
    row, *_ = runs[0].Rows(figure.metric, figure.step, figure.op, figure.kind)
    phases.setdefault(row.metadata['scylla_phase'], []).append(figure)
  latency = phases['latency']
  fixture_rates = len({f.step for f in latency})
  default = sum(
      len(phases.get(phase, ())) for phase in settings_lib.DEFAULT_PHASES
  )
  default += (
      len(latency)
      // fixture_rates
      * (len(settings_lib.Settings().latency_rates) - fixture_rates)
  )
  assert ab_plan.DEFAULT_FIGURES == default


def test_populate_is_planned_at_one_repeat():
  # Populate runs once per cluster: 3 repeats of the measured steps do not
  # average its run-to-run noise, which its spread between clusters holds.
  runs = _Runs(
      8, between=0.03, within=0.03, seed=6, step='populate', within_run=0.03
  )
  plan = ab_plan.PlanFromRuns(runs, 0.05, repeats=3)
  rate = plan.figures[0]
  assert rate.repeats == 1
  assert rate.detect == experiment.ClustersNeeded(
      rate.noise, 0.05, 1, plan.alpha
  )
  assert rate.detect > experiment.ClustersNeeded(
      rate.noise, 0.05, 3, plan.alpha
  )
  text = ab_plan.RenderPlan(plan)
  assert 'populate runs once per cluster whatever the repeats' in text
  assert plan.repeats == 3


def test_equivalence_says_the_range_of_the_adjustment():
  plan = ab_plan.PlanFromRuns(_Runs(6, seed=1), 0.05)
  rate = plan.figures[0]
  # Bonferroni's alpha / m suffices; at alpha, when every figure is
  # equivalent, the adjustment may need as few.
  assert rate.equivalence_least == experiment.ClustersNeededForEquivalence(
      rate.noise, 0.0, 0.02, 3, 0.05 / 2
  )
  assert rate.equivalence_least < rate.equivalence
  text = ab_plan.RenderPlan(plan)
  assert 'To show equivalence, a range: at least the clusters at alpha 5%' in (
      text
  )
  row = text.split('Noise and clusters per arm')[1].splitlines()[2]
  assert f'{rate.equivalence_least}-{rate.equivalence}' in row
  one = ab_plan.AssumedNoise(0.02, 0.01, 0.05, figures=1)
  assert one.figures[0].equivalence_least == one.figures[0].equivalence
  assert 'a range' not in ab_plan.RenderPlan(one)


@pytest.mark.parametrize('difference', [0, -1, float('nan')])
def test_a_difference_to_detect_is_needed(difference):
  with pytest.raises(ValueError, match='relative difference to detect'):
    ab_plan.PlanFromRuns(_Runs(2), difference)
  with pytest.raises(ValueError):
    ab_plan.AssumedNoise(0.01, 0.01, difference)


def test_long_orders_are_shortened():
  assert ab_plan.Order(2) == 'A B B A'
  long = ab_plan.Order(30)
  assert long.startswith('A B B A A B B A')
  assert long.endswith('... (60 clusters)')


def test_a_figure_without_noise_is_not_said_to_run_once():
  runs = [
      dataclasses.replace(
          run,
          rows=tuple(
              dataclasses.replace(row, value=0.0)
              if row.metric == 'latency_p99'
              else row
              for row in run.rows
          ),
      )
      for run in _Runs(4)
  ]
  plan = ab_plan.PlanFromRuns(runs, 0.05)
  p99 = plan.figures[1]
  assert p99.problem and p99.repeats == plan.repeats == 3
  assert 'once per cluster' not in ab_plan.RenderPlan(plan)


def test_an_assumed_noise_names_the_default_figures_only_when_used():
  default = ab_plan.RenderPlan(ab_plan.AssumedNoise(0.02, 0.01, 0.05))
  assert f'{ab_plan.DEFAULT_FIGURES} figures: those a report' in default
  ten = ab_plan.RenderPlan(ab_plan.AssumedNoise(0.02, 0.01, 0.05, figures=10))
  assert 'figures: those a report of a run of the default' not in ten
