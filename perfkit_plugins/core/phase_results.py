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

"""A stress step's results, from the records and outputs of its loaders.

Pure: phase_runner runs the step and pulls the files; this module reads
their contents. The rules (docs/measurement.md, on the shared window):

* Every loader's output must be complete (core/loader_checks.py): a total
  with a loader missing is never published.
* Op rate, partition and row rates, latency, operations and time series
  per op type, merged across the loaders that ran it
  (core/op_results.py). For op types run with `-rate fixed=`, latency
  includes response time (`rt`, measured from the intended schedule,
  corrected for coordinated omission), which a fixed-rate run without
  `rt` histograms fails; `total` gets `rt` only when every loader ran at a
  fixed rate.
* Loader CPU (core/loader_cpu.py): a step whose busiest loader was busy for
  at least `loader_cpu_threshold` percent of the step is saturated; with
  `loader_saturation_action` 'fail' that fails the step, with 'mark' its
  status says so.

Times are epoch seconds on the controller's clock unless said otherwise.
"""

import dataclasses
from typing import Mapping, Optional

from perfkit_plugins.core import histograms
from perfkit_plugins.core import loader_checks
from perfkit_plugins.core import loader_cpu
from perfkit_plugins.core import loader_files
from perfkit_plugins.core import op_results
from perfkit_plugins.core import step_status


@dataclasses.dataclass(frozen=True)
class StepResult:
  """Figures of one stress step.

  Attributes:
    step_name: plan.Step.name.
    status: step_status.STATUS_OK, or step_status.STATUS_SATURATED
      ('mark').
    ops: op type -> op_results.OpResult; with several op types also
      op_results.TOTAL.
    start_s: first HDR interval start of any loader (the first operation).
    end_s: last HDR interval end of any loader.
    interval_s: length of the time series steps.
    loader_cpu: loader index -> CpuUsage, or None when its CPU samples are
      missing or unreadable.
    loader_cpu_max_pct: busy share of the busiest loader; None if unknown.
    loader_cpu_peak_pct: busiest interval of any loader; None if unknown.
    saturated: loader_cpu_max_pct reached the threshold.
    cpu_problems: why some loaders' CPU use is unknown.
  """

  step_name: str
  status: str
  ops: Mapping[str, op_results.OpResult]
  start_s: float
  end_s: float
  interval_s: float
  loader_cpu: Mapping[int, Optional[loader_cpu.CpuUsage]]
  loader_cpu_max_pct: Optional[float]
  loader_cpu_peak_pct: Optional[float]
  saturated: bool
  cpu_problems: tuple[str, ...] = ()

  @property
  def duration_s(self):
    return self.end_s - self.start_s


def _CpuUsages(step, records, outputs):
  """({loader index: CpuUsage or None}, [problems])."""
  usages, problems = {}, []
  for run in step.runs:
    record, output = records[run.loader_index], outputs[run.loader_index]
    usages[run.loader_index] = None
    if output.cpu is None:
      why = record.missing_files.get(loader_files.CPU, 'not pulled')
      problems.append(f'{record.name}: CPU samples missing: {why}')
      continue
    try:
      usages[run.loader_index] = loader_cpu.CpuUsageOf(
          loader_cpu.ParseCpuSamples(output.cpu)
      )
    except loader_cpu.CpuLogError as e:
      problems.append(f'{record.name}: CPU samples: {e}')
  return usages, problems


def ResultOfStep(step, record, outputs, settings):
  """Computes a stress step's figures from its loaders' outputs.

  Args:
    step: plan.Step of kind 'stress'.
    record: step_records.StepRecord of its execution.
    outputs: loader index -> loader_files.LoaderOutput, for every run of the
      step.
    settings: core.settings.Settings (hdr_interval_s, loader_cpu_threshold,
      loader_saturation_action).

  Returns:
    StepResult.

  Raises:
    step_status.PhaseOutputError: a loader failed or its outputs are
      missing, empty or cut (status 'failed'); or loaders were saturated
      with action 'fail' (status 'loader_saturated'). The message lists
      every problem found.
  """
  records = {l.loader_index: l for l in record.loaders}
  problems = []
  parsed = {}
  for run in step.runs:
    loader = records.get(run.loader_index)
    output = outputs.get(run.loader_index)
    if loader is None or output is None:
      problems.append(f'loader {run.loader_index}: no record of its run')
      continue
    problems += loader_checks.RecordProblems(loader, output)
    parsed[run.loader_index] = loader_checks.ParseLog(loader, output, problems)
    loader_checks.CheckHdr(loader, output, problems)
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  try:
    merge = histograms.MergeHdrLogs(
        {
            records[r.loader_index].name: outputs[r.loader_index].hdr
            for r in step.runs
        },
        step_s=settings.hdr_interval_s,
        clock_offsets_s={
            records[r.loader_index].name: (
                -records[r.loader_index].clock_offset_s
            )
            for r in step.runs
        },
    )
  except histograms.HdrLogError as e:
    raise loader_checks.OutputError(
        step.name, [loader_checks.HdrProblem(e, records)], records
    ) from e
  groups = {}
  for run in step.runs:
    ops = op_results.OpsOf(run, parsed[run.loader_index])
    for op in ops:
      groups.setdefault(op, []).append((
          records[run.loader_index],
          parsed[run.loader_index],
          op_results.TOTAL if len(ops) == 1 else op,
      ))
  problems += op_results.HdrCountProblems(groups, merge)
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  fixed_ops = {
      op
      for run in step.runs
      if run.rate
      for op in op_results.OpsOf(run, parsed[run.loader_index])
  }
  ops = {}
  for op, members in sorted(groups.items()):
    kinds = (
        (op_results.SERVICE_TIME, op_results.RESPONSE_TIME)
        if op in fixed_ops
        else (op_results.SERVICE_TIME,)
    )
    ops[op] = op_results.ResultOfOp(op, members, merge, kinds, problems)
  if len(groups) > 1:
    everyone = [
        (records[r.loader_index], parsed[r.loader_index], op_results.TOTAL)
        for r in step.runs
    ]
    # Response time of all op types only when every loader had a schedule.
    all_fixed = all(run.rate for run in step.runs)
    kinds = (
        (op_results.SERVICE_TIME, op_results.RESPONSE_TIME)
        if all_fixed
        else (op_results.SERVICE_TIME,)
    )
    ops[op_results.TOTAL] = op_results.ResultOfOp(
        op_results.TOTAL, everyone, merge, kinds, problems
    )
  if problems:
    raise loader_checks.OutputError(step.name, problems, records)
  usages, cpu_problems = _CpuUsages(step, records, outputs)
  known = [u for u in usages.values() if u is not None]
  cpu_max = max((u.mean_pct for u in known), default=None)
  saturated = cpu_max is not None and cpu_max >= settings.loader_cpu_threshold
  if saturated and settings.loader_saturation_action == 'fail':
    raise step_status.PhaseOutputError(
        step.name,
        [
            f'loaders saturated: busiest loader {cpu_max:.1f}% busy, threshold'
            f' {settings.loader_cpu_threshold}%'
        ],
        status=step_status.STATUS_SATURATED,
    )
  spans = merge.spans.values()
  return StepResult(
      step_name=step.name,
      status=step_status.STATUS_SATURATED
      if saturated
      else step_status.STATUS_OK,
      ops=ops,
      start_s=min(start for start, _ in spans),
      end_s=max(end for _, end in spans),
      interval_s=settings.hdr_interval_s,
      loader_cpu=usages,
      loader_cpu_max_pct=cpu_max,
      loader_cpu_peak_pct=max((u.peak_pct for u in known), default=None),
      saturated=saturated,
      cpu_problems=tuple(cpu_problems),
  )
