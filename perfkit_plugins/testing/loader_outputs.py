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

"""What fake loaders serve: real captures, as they are or made long.

Serve makes recording fake loaders answer the loader wrapper of every run
planned for them by writing that run's files. LongStep makes the files of
a long timed step (hours) from a real 30 s capture of tests/testdata/stress:
its HDR histograms summed into the step's longer intervals and repeated,
its text log's interval lines re-timed with operation counts equal to the
HDR log's, its CPU samples continued and its JVM stop log moved to the run:
files of a real run's size and shape, for the scale benchmark.
"""

import itertools
import pathlib
import re
import shlex

from hdrh import histogram as hdrh_histogram

from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.testing import hdr_logs
from perfkit_plugins.testing import jvm_logs

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / 'tests' / 'testdata'
# The captures of testdata/stress predate the loaders' JVM stop logs: every
# run's JVM log is this real one (testdata/jvm/README.md), moved to the
# run's start.
STRESS_JVM_LOG = TESTDATA / 'jvm' / 'java25-zgc.jvm'
# StressMetrics.ROWFORMAT of cassandra-stress, in Python's notation.
ROW_FORMAT = (
    '%-10s%10d,%8.0f,%8.0f,%8.0f,%8.1f,%8.1f,%8.1f,%8.1f,%8.1f,%8.1f,%7.1f,'
    '%9.5f,%7d,%7.0f,%8.0f,%8.0f,%8.0f,%8.0f'
)
_SERVICE_TIME = '-st'
# An hour: the summed histograms' highest trackable latency, ns.
_HIGHEST_NS = 3600 * 10**9
_TOTAL = 'total'
# Seconds between the loader's script's start line and the tool's first
# interval, and between its last interval and the end line.
_LEAD_S = 3.0
_TAIL_S = 1.0


def Capture(source, kind):
  """A real loader file of testdata/stress.

  Args:
    source: a capture's file stem ('populate.loader0').
    kind: a loader_files file kind (stdout, log, hdr, times, cpu, jvm); the
      files are loader outputs of the plan's own commands, run through the
      loader wrapper (testdata/stress/README.md), but the JVM's stop log
      (STRESS_JVM_LOG, moved to the run's start: jvm_logs.Moved).
  """
  if kind == loader_files.JVM:
    times = loader_files.ParseTimes(Capture(source, loader_files.TIMES))
    return jvm_logs.Moved(STRESS_JVM_LOG.read_text(), times.start_s)
  path = TESTDATA / 'stress' / f'{source}{loader_files.SUFFIXES[kind]}'
  if not path.is_file():
    raise AssertionError(f'no real capture {path.name} in testdata/stress')
  return path.read_text()


def Serve(vms, steps, read, missing=(), schema_output=None):
  """Makes fake loaders write a run's files when its command comes.

  Each FakeVm of `vms` (loader i is vms[i]) answers the loader wrapper
  (stress_run.sh) of every run planned for it in `steps` by writing
  read(step, run, kind) into its remote_files for every file kind of the
  run; a command it was not planned to run fails the caller.

  Args:
    vms: the fake loaders.
    steps: the planned steps.
    read: (step, run, file kind) -> the file's text.
    missing: (step name, loader index, file kind) that the loader does not
      write.
    schema_output: the stdout the schema step's loader holds, if any.

  Returns:
    vms.
  """
  planned = [
      (step, run)
      for step in steps
      for run in step.runs
      if step.kind == plan.KIND_STRESS
  ]
  for step in steps:
    if step.kind == plan.KIND_SCHEMA and schema_output is not None:
      (run,) = step.runs
      vms[run.loader_index].remote_files[run.stdout_path] = schema_output

  def Answer(vm):
    def Run(command):
      for step, run in planned:
        # The script's arguments: the run's stem, ..., then its command
        # (phase_runner.LoaderCommand).
        if (
            vm is vms[run.loader_index]
            and shlex.split(command)[4] == run.stem
            and command.endswith(' ' + run.command)
        ):
          for kind, path in run.paths.items():
            if (step.name, run.loader_index, kind) not in missing:
              vm.remote_files[path] = read(step, run, kind)
          return ''
      raise AssertionError(f'{vm.name}: unplanned command {command}')

    return Run

  for vm in vms:
    vm.Reply(r'stress_run\.sh', Answer(vm))
  return vms


def Row(line, total_ops, op_rate, time_s):
  """An interval line as cassandra-stress prints it.

  Args:
    line: a stress_output.IntervalLine whose type, partition and row
      rates, latencies, stderr, errors and GC figures are printed.
    total_ops: operations so far.
    op_rate: op/s of the interval (also its partition and row rates).
    time_s: seconds since the run's start.
  """
  latency = line.latency
  return ROW_FORMAT % (
      line.op_type + ',',
      total_ops,
      op_rate,
      op_rate,
      op_rate,
      latency.mean_ms,
      latency.median_ms,
      latency.p95_ms,
      latency.p99_ms,
      latency.p999_ms,
      latency.max_ms,
      time_s,
      line.stderr,
      line.errors,
      line.gc_count,
      line.gc_max_ms,
      line.gc_sum_ms,
      line.gc_sdv_ms,
      line.gc_mb,
  )


def _SummedHistograms(hdr_text, per_interval):
  """{tag: histograms of `per_interval` consecutive intervals summed}."""
  by_tag = {}
  for interval in histograms.IterHdrIntervals(hdr_text):
    by_tag.setdefault(interval.tag, []).append(interval.Histogram())
  summed = {}
  for tag, parts in by_tag.items():
    whole = len(parts) // per_interval * per_interval or len(parts)
    for start in range(0, whole, per_interval):
      first = parts[start]
      # Java's histograms grow; these get the largest range at once.
      histogram = hdrh_histogram.HdrHistogram(
          first.lowest_trackable_value, _HIGHEST_NS, first.significant_figures
      )
      for part in parts[start : start + per_interval]:
        histogram.add(part)
      summed.setdefault(tag, []).append(histogram)
  return summed


def LongHdr(hdr_text, base_s, intervals, interval_s):
  """A cassandra-stress HDR log of `intervals` intervals of interval_s.

  The capture's 1 s histograms of each tag are summed interval_s at a time
  and repeated in order.

  Returns:
    (the log's text, [{tag: operations} of each interval]).
  """
  summed = _SummedHistograms(hdr_text, max(1, round(interval_s)))
  out = _Text()
  writer = hdr_logs.StressLogWriter(out, base_s)
  counts = []
  cycles = {tag: itertools.cycle(parts) for tag, parts in summed.items()}
  for i in range(intervals):
    start_s = base_s + (i + 1) * interval_s
    counts.append({})
    for tag, cycle in cycles.items():
      histogram = next(cycle)
      counts[-1][tag] = histogram.get_total_count()
      writer.WriteInterval(tag, histogram, start_s, start_s + interval_s)
  return out.Value(), counts


class _Text:
  """Collects what a writer writes; cheaper than io.StringIO for many lines."""

  def __init__(self):
    self._parts = []

  def write(self, text):  # pylint: disable=invalid-name
    self._parts.append(text)

  def Value(self):
    return ''.join(self._parts)


def _Replaced(results, name, value):
  """The Results block with the value of its line `name` replaced."""
  return re.sub(
      rf'^({re.escape(name)} *: *).*$',
      lambda m: m.group(1) + value,
      results,
      count=1,
      flags=re.MULTILINE,
  )


def LongText(text, counts, interval_s):
  """A cassandra-stress text output re-timed to the HDR log's intervals.

  Its settings echo and header as captured, then per interval one line per
  op type of the capture (its latencies cycled), whose counts are the HDR
  log's (`total`: every op type's), then the capture's Results block with
  its totals and operation time replaced.

  Args:
    text: the captured stdout or text log.
    counts: LongHdr's operations per tag of each interval.
    interval_s: interval length, seconds.
  """
  head_end = text.index('\n', text.index('type       total ops')) + 1
  results = text.index('\n\nResults:')
  lines = stress_output.ParseIntervalLines(text)
  types = list(dict.fromkeys(line.op_type for line in lines))
  cycles = {
      op: itertools.cycle([l for l in lines if l.op_type == op]) for op in types
  }
  totals = dict.fromkeys(types, 0)
  rows = []
  for i, interval in enumerate(counts):
    for op in types:
      if op == _TOTAL:
        count = sum(
            n for tag, n in interval.items() if tag.endswith(_SERVICE_TIME)
        )
      else:
        count = interval.get(op + _SERVICE_TIME, 0)
      totals[op] += count
      rows.append(
          Row(
              next(cycles[op]),
              totals[op],
              count / interval_s,
              (i + 1) * interval_s,
          )
      )
  seconds = round(len(counts) * interval_s)
  per_op = ', '.join(f'{op}: {n:,}' for op, n in totals.items() if op != _TOTAL)
  partitions = f'{totals.get(_TOTAL, sum(totals.values())):,}'
  block = _Replaced(
      text[results:],
      'Total partitions',
      partitions + (f' [{per_op}]' if per_op else ''),
  )
  block = _Replaced(
      block,
      'Total operation time',
      f'{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}',
  )
  return text[:head_end] + '\n'.join(rows) + block


def LongCpu(cpu_text, start_s, end_s, sample_s):
  """CPU samples every sample_s from start_s to end_s, the capture's pace.

  The captured samples' jiffy increments are repeated in order.
  """
  samples = [line.split() for line in cpu_text.splitlines() if line.strip()]
  jiffies = [[int(j) for j in sample[2:]] for sample in samples]
  steps = [
      [b - a for a, b in zip(first, second)]
      for first, second in zip(jiffies, jiffies[1:])
  ]
  current = jiffies[0]
  lines = []
  for i, step in zip(
      range(int((end_s - start_s) / sample_s) + 1), itertools.cycle(steps)
  ):
    lines.append(
        f'{start_s + i * sample_s:.9f} cpu  {" ".join(map(str, current))}'
    )
    current = [j + d for j, d in zip(current, step)]
  return '\n'.join(lines) + '\n'


def LongStep(source, hours, interval_s, cpu_sample_s=5):
  """The files of one loader's timed run of `hours`, from a real capture.

  Args:
    source: the capture's stem, e.g. 'mixed.loader0'.
    hours: the run's length.
    interval_s: its HDR and text log interval (--scylla_hdr_interval_s).
    cpu_sample_s: seconds between CPU samples.

  Returns:
    {file kind: text}.
  """
  times = loader_files.ParseTimes(Capture(source, loader_files.TIMES))
  start_s = times.start_s
  base_s = float(int(start_s + _LEAD_S))
  intervals = round(hours * 3600 / interval_s)
  hdr, counts = LongHdr(
      Capture(source, loader_files.HDR), base_s, intervals, interval_s
  )
  end_s = base_s + (intervals + 1) * interval_s + _TAIL_S
  return {
      loader_files.STDOUT: LongText(
          Capture(source, loader_files.STDOUT), counts, interval_s
      ),
      loader_files.LOG: LongText(
          Capture(source, loader_files.LOG), counts, interval_s
      ),
      loader_files.HDR: hdr,
      loader_files.TIMES: f'start {start_s:.9f}\nend {end_s:.9f} exit 0\n',
      loader_files.CPU: LongCpu(
          Capture(source, loader_files.CPU), start_s, end_s, cpu_sample_s
      ),
      loader_files.JVM: Capture(source, loader_files.JVM),
  }
