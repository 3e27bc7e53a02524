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

"""The history CSV: one row per run, time first, sorted by time."""

import csv
import io

import pytest

from perfkit_plugins.core.results import history
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.testing import results_files

CONTEXT = {
    'scylla_engine': 'scylla',
    'scylla_version': '2026.1.0',
    'scylla_servers': 3,
    'scylla_server_machine_type': 'z3-highmem-88',
    'loaders_machine_type': 'n2-highcpu-32',
    'scylla_loaders': 4,
}


def _Run(cluster, start, rate, steps=('read_small', 'latency_2000')):
  """A run of 3 repeats and their aggregate, op rate and p99 per step."""
  rows = []
  for step in steps:
    kind = 'rt' if step.startswith('latency') else 'st'
    for repeat, factor in ((1, 0.99), (2, 1.01), (3, 1.0), (0, 1.0)):
      metadata = dict(
          CONTEXT,
          scylla_step=step,
          scylla_op='WRITE' if kind == 'rt' else 'READ',
          scylla_cluster=cluster,
          scylla_run_start=start,
          scylla_repeat=repeat,
          scylla_repeats=3,
      )
      rows.append(
          results_tables.Row('op_rate', rate * factor, 'op/s', metadata)
      )
      for latency_kind in ('st', kind):
        rows.append(
            results_tables.Row(
                'latency_p99',
                (20.0 if latency_kind == 'rt' else 10.0) * factor,
                'ms',
                dict(metadata, scylla_latency_kind=latency_kind),
            )
        )
  return results_tables.Run(cluster, tuple(rows), cluster, start, 'h.json')


def _Read(text):
  return list(csv.reader(io.StringIO(text)))


def test_one_row_per_run_sorted_by_time():
  runs = [
      _Run('b', 1_790_003_600.0, 2000.0),
      _Run('a', 1_790_000_000.0, 1000.0, steps=('read_small',)),
  ]
  header, *rows = _Read(history.HistoryCsv(runs))
  assert header == [
      'time',
      'engine',
      'version',
      'server_machine_type',
      'servers',
      'loader_machine_type',
      'loaders',
      'repeats',
      'cluster',
      'source',
      'read_small/READ/op_rate',
      'read_small/READ/latency_p99_st',
      'latency_2000/WRITE/op_rate',
      'latency_2000/WRITE/latency_p99_rt',
  ]
  assert [row[0] for row in rows] == [
      '2026-09-21T14:13:20+00:00',
      '2026-09-21T15:13:20+00:00',
  ]
  first, second = rows
  assert first[1:10] == [
      'scylla',
      '2026.1.0',
      'z3-highmem-88',
      '3',
      'n2-highcpu-32',
      '4',
      '3',
      'a',
      'h.json',
  ]
  # The aggregate (scylla_repeat 0), not a repeat; a step the run lacks
  # leaves its cells empty.
  assert first[10:] == ['1000', '10', '', '']
  assert second[10:] == ['2000', '10', '2000', '20']


def test_old_files_use_the_samples_time(testdata):
  runs = results_tables.LoadRuns([
      (
          '1.json',
          results_files.OlderRelease(testdata('report', 'report-1loader.json')),
      ),
      (
          '2.json',
          results_files.OlderRelease(
              testdata('report', 'report-2loaders.json')
          ),
      ),
  ])
  header, *rows = _Read(history.HistoryCsv(runs))
  assert header[:2] == ['time', 'engine']
  assert len(rows) == 2
  assert [row[0] for row in rows] == sorted(row[0] for row in rows)
  assert 'populate/WRITE/op_rate' in header
  assert 'latency_2000/WRITE/latency_p99_rt' in header
  assert {row[header.index('repeats')] for row in rows} == {'1'}


def test_the_run_fixture_gives_every_step(testdata):
  runs = results_tables.LoadRuns(
      [('run.json', testdata('results', 'scylla_phases_fake_run.json'))]
  )
  header, rows = history.HistoryRows(runs)
  (row,) = rows
  figures = dict(zip(header, row))
  assert figures['server_machine_type'] == 'z3-highmem-88'
  assert figures['loader_machine_type'] == 'n2-highcpu-32'
  # The README's example report: 13,448 op/s, rt p99 25.6 ms.
  assert float(figures['read_small/READ/op_rate']) == pytest.approx(
      13_448, abs=0.5
  )
  assert float(figures['latency_4000/WRITE/latency_p99_rt']) == pytest.approx(
      25.6, abs=0.05
  )
  assert len([c for c in header if c.endswith('/op_rate')]) == 14
