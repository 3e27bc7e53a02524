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

"""Runs over time as one CSV, for change-point tools (e.g. Apache Otava).

Pure, for `scylla-phases-report RUN.json ... --history FILE.csv`: one
header row, then one row per run sorted by time. The first column, `time`,
is the run's start in ISO 8601 (UTC); then what the run ran on (engine,
version, server machine type and count, loader machine type and count,
repeats, cluster), then its figures: per step and op type the op rate
(`read_small/READ/op_rate`) and the p99 latency of the kind the step
publishes (`read_small/READ/latency_p99_st`, `latency_2000/WRITE/
latency_p99_rt` for a fixed-rate step), each the run's aggregate of its
repeats (results_tables.Run.Value). A figure a run did not publish leaves
its cell empty (Otava's CSV importer needs every metric it is configured
with in every row: configure it on the columns all runs have).
"""

import csv
import io

from perfkit_plugins.core.results import results_tables

OP_RATE = 'op_rate'
P99 = 'latency_p99'
# (column, metadata keys: the first one present gives the value).
ATTRIBUTES = (
    ('engine', ('scylla_engine',)),
    ('version', ('scylla_version',)),
    (
        'server_machine_type',
        ('scylla_server_machine_type', 'servers_machine_type'),
    ),
    ('servers', ('scylla_servers', 'servers_vm_count')),
    (
        'loader_machine_type',
        ('scylla_loader_machine_type', 'loaders_machine_type'),
    ),
    ('loaders', ('scylla_loaders', 'loaders_vm_count')),
)
TIME_COLUMN = 'time'


def _Figures(run):
  """[(column, value)] of a run: op rate and p99 per step and op type."""
  kinds = {}
  for r in run.Find(P99):
    kinds.setdefault((r.step, r.op), set()).add(r.kind)
  figures = []
  for step, op in dict.fromkeys((r.step, r.op) for r in run.Find(OP_RATE)):
    pick = run.Pick(OP_RATE, step, op)
    if results_tables.IsWarmup(step, pick.metadata):
      continue
    figures.append((f'{step}/{op}/{OP_RATE}', pick.value))
    kind = results_tables.PublishedKind(kinds.get((step, op), ()))
    if kind is not None:
      figures.append(
          (f'{step}/{op}/{P99}_{kind}', run.Value(P99, step, op, kind))
      )
  return figures


def _Text(value):
  if value is None:
    return ''
  if isinstance(value, float):
    return f'{value:.7g}'
  return str(value)


def HistoryRows(runs):
  """The header and one row per run, sorted by time.

  Args:
    runs: results_tables.Run.

  Returns:
    (header, rows): lists of strings, a row's cells in the header's order.
  """
  ordered = sorted(runs, key=lambda run: run.Time())
  figures = [dict(_Figures(run)) for run in ordered]
  columns = list(dict.fromkeys(c for f in figures for c in f))
  header = (
      [TIME_COLUMN]
      + [name for name, _ in ATTRIBUTES]
      + ['repeats', 'cluster', 'source']
      + columns
  )
  rows = []
  for run, values in zip(ordered, figures):
    cells = [results_tables.IsoTime(run.Time())]
    cells += [_Text(run.Metadata(*keys)) for _, keys in ATTRIBUTES]
    cells += [str(run.Repeats()), run.cluster, run.source]
    cells += [_Text(values.get(column)) for column in columns]
    rows.append(cells)
  return header, rows


def HistoryCsv(runs):
  """The history as CSV text (RFC 4180, '\\n' line ends)."""
  header, rows = HistoryRows(runs)
  out = io.StringIO()
  writer = csv.writer(out, lineterminator='\n')
  writer.writerow(header)
  writer.writerows(rows)
  return out.getvalue()
