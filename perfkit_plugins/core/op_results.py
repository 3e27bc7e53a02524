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

"""Figures of one op type of a stress step, merged across its loaders.

The rules (docs/measurement.md, on the shared window):

* Op rate: the loaders' interval lines summed over the window all of them
  share (stress_output.CommonWindowRate), each loader placed on the
  controller's clock by the first interval start of its HDR log corrected
  by its clock offset. Per op type, the loaders that run it (writers and
  readers of reads during writes are separate groups); with several op
  types, also `total` over all loaders.
* Partition and row rates: the op rate times the partitions and rows per
  operation of the loaders' Results blocks, so the three rates describe the
  same window.
* Latency: percentiles of the HDR histograms of every operation of the step
  (whole logs) summed across loaders (histograms.MergeHdrLogs), never an
  average of per-loader percentiles. Service time (`st`) always, and
  response time (`rt`) where the caller asks for it.
* Operations, partitions and errors: summed over loaders.
* Time series: per HDR interval, the op rate and latency percentiles of the
  merged histograms.

An HDR log with fewer operations than its run's text log counts was cut,
even when it parses; HdrCountProblems names such loaders.
"""

import dataclasses
from typing import Mapping

from perfkit_plugins.core import histograms
from perfkit_plugins.core import loader_files
from perfkit_plugins.core import stress_output

TOTAL = 'total'
SERVICE_TIME = 'st'
RESPONSE_TIME = 'rt'
# The op type of single-type runs, by LoaderRun.role; mixed runs name their
# op types in their Results block.
_ROLE_OPS = {'writer': 'WRITE', 'reader': 'READ'}


@dataclasses.dataclass(frozen=True)
class OpResult:
  """Figures of one op type of a step (or `total` over all of them).

  Attributes:
    op: 'WRITE', 'READ', ... or 'total'.
    loader_indexes: the loaders that ran it.
    op_rate: op/s of those loaders together over their common window.
    partition_rate: pk/s over the same window.
    row_rate: row/s over the same window.
    window_start_s: start of the common window.
    window_end_s: end of the common window.
    start_s: first HDR interval start of those loaders.
    end_s: last HDR interval end of those loaders.
    operations: operations, summed over loaders.
    partitions: partitions, summed over loaders.
    errors: errors, summed over loaders.
    latency: kind ('st', 'rt') -> merged latency statistics.
    series: kind -> merged per-interval statistics (histograms.SeriesPoint).
  """

  op: str
  loader_indexes: tuple[int, ...]
  op_rate: float
  partition_rate: float
  row_rate: float
  window_start_s: float
  window_end_s: float
  start_s: float
  end_s: float
  operations: int
  partitions: int
  errors: int
  latency: Mapping[str, histograms.HistogramSummary]
  series: Mapping[str, tuple[histograms.SeriesPoint, ...]]

  @property
  def duration_s(self):
    return self.end_s - self.start_s


def OpsOf(run, parsed):
  """The op types a run performed, in name order."""
  if run.role in _ROLE_OPS:
    return (_ROLE_OPS[run.role],)
  return tuple(sorted(parsed.results.by_op_type))


def _LinesOf(parsed, source, op):
  """A run's interval lines of type `source`, renamed `op`.

  Single-type runs print only `total` lines: those are their op type's.
  """
  return tuple(
      dataclasses.replace(line, op_type=op)
      for line in parsed.intervals
      if line.op_type == source
  )


def _TextOps(parsed, source, op):
  """Operations of type op the loader's text log counts at its end."""
  lines = _LinesOf(parsed, source, op)
  return lines[-1].total_ops if lines else 0


def _OpTotals(parsed, source):
  results = parsed.results
  return results.total if source == TOTAL else results.by_op_type[source]


def _Ratio(numerator, denominator):
  return numerator / denominator if denominator else 0.0


def ResultOfOp(op, members, merge, kinds, problems):
  """OpResult of the loaders in members.

  Args:
    op: the op type, or TOTAL.
    members: [(step_records.LoaderRecord, StressOutput, source)], source
      being the name of the loader's lines and totals that hold op (TOTAL
      for single-type runs).
    merge: histograms.HdrMerge of the step.
    kinds: latency kinds to report.
    problems: list that receives what is wrong.

  Returns:
    OpResult, or None with the problem recorded.
  """
  timelines = {}
  operations = partitions = errors = 0
  op_rates = partition_rates = row_rates = 0.0
  for record, parsed, source in members:
    timelines[record.name] = stress_output.LoaderTimeline(
        start_s=merge.spans[record.name][0],
        intervals=_LinesOf(parsed, source, op),
    )
    totals = _OpTotals(parsed, source)
    operations += _TextOps(parsed, source, op)
    partitions += totals.partitions
    errors += totals.errors
    op_rates += totals.op_rate
    partition_rates += totals.partition_rate
    row_rates += totals.row_rate
  try:
    window = stress_output.CommonWindowRate(timelines, op)
  except stress_output.StressOutputError as e:
    problems.append(f'{op}: {e}')
    return None
  latency, series = {}, {}
  for kind in kinds:
    tag = f'{op}-{kind}'
    if tag not in merge.summaries:
      problems.append(
          f'{op}: no {tag} histograms in the HDR logs of {", ".join(timelines)}'
      )
      continue
    latency[kind] = merge.summaries[tag]
    series[kind] = merge.series.get(tag, ())
  spans = [merge.spans[record.name] for record, _, _ in members]
  return OpResult(
      op=op,
      loader_indexes=tuple(record.loader_index for record, _, _ in members),
      op_rate=window.op_rate,
      partition_rate=window.op_rate * _Ratio(partition_rates, op_rates),
      row_rate=window.op_rate * _Ratio(row_rates, op_rates),
      window_start_s=window.start_s,
      window_end_s=window.end_s,
      start_s=min(start for start, _ in spans),
      end_s=max(end for _, end in spans),
      operations=operations,
      partitions=partitions,
      errors=errors,
      latency=latency,
      series=series,
  )


def HdrCountProblems(groups, merge):
  """Loaders whose HDR log holds fewer operations than their text log.

  cassandra-stress records every operation of a run in both logs (their
  counts are equal in every real run in tests/testdata/stress); an HDR log
  cut at a line boundary still parses, but holds fewer operations.

  Args:
    groups: op -> [(step_records.LoaderRecord, StressOutput, source)], as
      ResultOfOp's members.
    merge: histograms.HdrMerge of the step.
  """
  problems = []
  for op, members in sorted(groups.items()):
    for record, parsed, source in members:
      text_ops = _TextOps(parsed, source, op)
      hdr_ops = merge.counts[record.name].get(f'{op}-{SERVICE_TIME}', 0)
      if hdr_ops < text_ops - _OpTotals(parsed, source).errors:
        problems.append(
            f'{record.name}: HDR log {record.remote_files[loader_files.HDR]}'
            f' holds {hdr_ops:,} {op} operations, its text log {text_ops:,}'
            ' (cut?)'
        )
  return problems
