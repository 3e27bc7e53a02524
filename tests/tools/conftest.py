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

"""Synthetic results files of repeated runs, with a known truth.

Samples as PKB's NewlineDelimitedJSONPublisher writes them (collapsed
labels by default), with the metadata the benchmark publishes for repeats
and intervals: scylla_cluster (also the run_uri), scylla_run_start,
scylla_repeat 1..R and an aggregate 0, scylla_repeats, scylla_ci_*. Each
figure is its base value x the run's scale x a lognormal noise per cluster
and per repeat, from a seed: the truth of a comparison is the ratio of the
scales.
"""

import json
import math

import numpy as np
import pytest

# (step, op, latency kind, op/s, p99 ms): a read, a fixed-rate ladder step
# (response time) and a step of two op types.
STEPS = (
    ('read_small', 'READ', 'st', 13_000.0, 50.0),
    ('latency_2000', 'WRITE', 'rt', 2_000.0, 3.4),
    ('mixed', 'READ', 'st', 9_000.0, 40.0),
    ('mixed', 'WRITE', 'st', 9_000.0, 35.0),
)
# Percentiles published per step, as multiples of p99.
PERCENTILES = (
    ('latency_p50', 0.2),
    ('latency_p99', 1.0),
    ('latency_p999', 2.0),
)


def _Labels(metadata):
  return ','.join(f'|{k}:{v}|' for k, v in metadata.items())


def Sample(metric, value, unit, metadata, run_uri, timestamp, collapse=True):
  """One PKB sample as a JSON line."""
  sample = {
      'metric': metric,
      'value': value,
      'unit': unit,
      'timestamp': timestamp,
      'test': 'scylla_phases',
      'run_uri': run_uri,
  }
  if collapse:
    sample['labels'] = _Labels(metadata)
  else:
    sample['metadata'] = metadata
  return json.dumps(sample)


def RunLines(
    cluster,
    start,
    scale=1.0,
    repeats=3,
    seed=0,
    step_scales=None,
    cluster_noise=0.02,
    repeat_noise=0.01,
    machine_type='z3-highmem-88',
    ci=True,
    aggregate=True,
    new_keys=True,
    collapse=True,
    window_s=None,
):
  """The samples of one run: every step's op rate and percentiles.

  Args:
    cluster: the cluster's id (scylla_cluster and run_uri).
    start: the run's start, epoch seconds.
    scale: multiplies every op rate and divides every latency.
    step_scales: {step: scale} applied on top of `scale` to some steps.
    repeats: repeats of each step.
    seed: seed of the noise.
    cluster_noise: SD of log of the cluster's offset.
    repeat_noise: SD of log of each repeat's noise.
    machine_type: the server machine type published.
    ci: publish a within-run interval on each repeat.
    aggregate: publish the aggregate (scylla_repeat 0).
    new_keys: publish scylla_cluster, scylla_run_start and repeats (False:
      a file written before them, one repeat).
    collapse: PKB's collapsed labels (else a metadata object).
    window_s: when given, every figure's measured window, from 5 minutes
      after the start (scylla_window_start, scylla_window_end).

  Returns:
    list of JSON lines.
  """
  rng = np.random.default_rng(seed)
  offset = math.exp(rng.normal(0, cluster_noise))
  base = {
      'scylla_engine': 'scylla',
      'scylla_version': '2026.1.0',
      'scylla_servers': 3,
      'scylla_server_machine_type': machine_type,
      'loaders_machine_type': 'n2-highcpu-32',
  }
  if new_keys:
    base.update(
        scylla_cluster=cluster, scylla_run_start=start, scylla_repeats=repeats
    )
  else:
    repeats, aggregate, ci = 1, False, False
  lines = []
  for step, op, kind, rate, p99 in STEPS:
    step_scale = scale * (step_scales or {}).get(step, 1.0)
    # Each figure of each repeat: its own noise around the cluster's offset.
    factors = offset * np.exp(
        rng.normal(0, repeat_noise, (repeats, 1 + len(PERCENTILES)))
    )
    units = [(r + 1, row) for r, row in enumerate(factors)]
    if aggregate:
      units.append((0, np.exp(np.log(factors).mean(axis=0))))
    for repeat, factor in units:
      metadata = dict(base, scylla_step=step, scylla_op=op, scylla_phase=step)
      if new_keys:
        metadata['scylla_repeat'] = repeat
      if window_s:
        metadata.update(
            scylla_window_start=start + 300,
            scylla_window_end=start + 300 + window_s,
        )
      figures = [('op_rate', rate * step_scale * factor[0], 'op/s', '')]
      figures += [
          (metric, p99 * share / step_scale / f, 'ms', kind)
          for (metric, share), f in zip(PERCENTILES, factor[1:])
      ]
      for metric, value, unit, latency_kind in figures:
        value = float(value)
        sample_metadata = dict(metadata)
        if latency_kind:
          sample_metadata['scylla_latency_kind'] = latency_kind
        if ci:
          # A repeat's own interval; the aggregate's, over the repeats.
          sample_metadata.update(
              scylla_ci_low=value * (0.99 if repeat else 0.97),
              scylla_ci_high=value * (1.01 if repeat else 1.03),
              scylla_ci_level=0.95,
              scylla_ci_method='batch_means' if repeat else 't_repeats',
              scylla_ci_covers='within_run' if repeat else 'within_cluster',
              scylla_ci_units=30 if repeat else repeats,
              scylla_ci_se_log=0.005 if repeat else 0.01,
              scylla_ci_dof=29 if repeat else repeats - 1,
          )
        lines.append(
            Sample(
                metric,
                value,
                unit,
                sample_metadata,
                cluster,
                start + 600,
                collapse,
            )
        )
  return lines


@pytest.fixture
def write_runs(tmp_path):
  """Returns Write(name, *runs) -> path: a results file of RunLines runs.

  Each run is a dict of RunLines' arguments.
  """

  def Write(name, *runs):
    path = tmp_path / name
    lines = [line for run in runs for line in RunLines(**run)]
    path.write_text('\n'.join(lines) + '\n')
    return str(path)

  return Write
