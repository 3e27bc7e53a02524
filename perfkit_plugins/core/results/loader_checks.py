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

"""Checks of a stress step's loaders: complete outputs, and their CPU.

A total with a loader missing is never published (docs/measurement.md):
a loader whose command failed, or whose text log, HDR log or times file is
missing, empty or cut, fails the whole step with a PhaseOutputError naming
the loader and the file. A loader whose output directory had at most
FULL_DIRECTORY_KIB left when its run ended is named first: a full disk
cuts files without any tool saying so.

Loader CPU use comes from /proc/stat samples. While cassandra-stress runs,
the loader's script appends one line every few seconds: its clock (`date
+%s.%N`) and the first line of /proc/stat, the jiffies all CPUs together
spent in each state since boot:

    1795299882.123456789 cpu  4705 356 584 3699 23 23 0 0 0 0

(user nice system idle iowait irq softirq steal guest guest_nice; guest time
is already inside user and nice). Between two samples the CPU was busy for
the share of jiffies not spent idle or waiting for I/O.

A loader is saturated when it was busy for nearly all of the step: the
busy share over the whole step (`mean_pct`) is what the threshold is
compared with. The busiest single interval (`peak_pct`) is reported too but
not judged: cassandra-stress's JVM start-up (class loading, JIT) keeps every
CPU busy for a few seconds at the start of every run.
"""

import dataclasses
import posixpath
import re
import signal

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.stress import stress_output

# A loader whose output directory had at most this much space left when
# its run ended is said to have run out of space when its step fails.
FULL_DIRECTORY_KIB = 1024


def _ToolMessage(output):
  """What cassandra-stress's stdout says went wrong, or ''."""
  if not output.stdout:
    return ''
  try:
    stress_output.ParseStressOutput(output.stdout)
  except stress_output.StressOutputError as e:
    return f' (its stdout: {e})'
  return ''


def LoaderFailure(record):
  """What went wrong with a loader's command, in one line, or None.

  What the loader recorded comes first: a signal is named (cassandra-stress
  killed by SIGKILL: its exit code is 128 + the signal's number), else its
  non-zero exit code; without a recorded end, the error the runner saw
  (unreachable, stopped at its bound, the command's failure).
  """
  code = record.exit_code
  if code is not None and 128 < code < 128 + signal.NSIG:
    try:
      name = signal.Signals(code - 128).name
    except ValueError:
      name = f'signal {code - 128}'
    return f'{record.name}: cassandra-stress killed by {name} (exit {code})'
  if code:
    return f'{record.name}: cassandra-stress exited with {code}'
  if record.error:
    return f'{record.name}: {record.error}'
  return None


def RecordProblems(record, output):
  """Problems of a loader's command and its times file."""
  times_path = record.remote_files[loader_files.TIMES]
  failure = LoaderFailure(record)
  problems = [failure + _ToolMessage(output)] if failure else []
  if loader_files.TIMES in record.missing_files:
    problems.append(
        f'{record.name}: times file {times_path} missing:'
        f' {record.missing_files[loader_files.TIMES]}'
    )
  elif record.start_s is None:
    problems.append(f'{record.name}: no start time in {times_path}')
  elif record.exit_code is None:
    problems.append(
        f'{record.name}: cassandra-stress did not finish (no end time in'
        f' {times_path})'
    )
  return problems


def OutputError(step_name, problems, records):
  """PhaseOutputError, led by the loaders that ran out of space."""
  full = [
      f'{r.name}: no space left in'
      f' {posixpath.dirname(r.remote_files[loader_files.TIMES])}'
      f' ({r.output_free_kib} KiB free when cassandra-stress ended)'
      for r in records.values()
      if r.output_free_kib is not None
      and r.output_free_kib <= FULL_DIRECTORY_KIB
  ]
  return outcomes.PhaseOutputError(step_name, full + list(problems))


def ParseLog(record, output, problems):
  """The loader's parsed text log, or None with the problem recorded."""
  path = record.remote_files[loader_files.LOG]
  if output.log is None:
    why = record.missing_files.get(loader_files.LOG, 'not pulled')
    problems.append(f'{record.name}: log {path} missing: {why}')
    return None
  try:
    return stress_output.ParseStressOutput(output.log)
  except stress_output.StressOutputError as e:
    problems.append(f'{record.name}: log {path}: {e}')
    return None


def CheckHdr(record, output, problems):
  if output.hdr is None:
    why = record.missing_files.get(loader_files.HDR, 'not pulled')
    problems.append(
        f'{record.name}: HDR log {record.remote_files[loader_files.HDR]}'
        f' missing: {why}'
    )
  elif isinstance(output.hdr, str) and not output.hdr.strip():
    problems.append(
        f'{record.name}: HDR log {record.remote_files[loader_files.HDR]} is'
        ' empty'
    )


def HdrProblem(error, records):
  """The merge error, with the remote path of the loader's HDR log."""
  message = str(error)
  for record in records.values():
    if message.startswith(record.name + ':'):
      return f'{message} (HDR log {record.remote_files[loader_files.HDR]})'
  return f'HDR logs: {message}'


# Fields of the aggregate line that add up to the total time:
# user nice system idle iowait irq softirq steal.
_TIME_FIELDS = 8
_IDLE, _IOWAIT, _STEAL = 3, 4, 7
_SAMPLE_LINE = re.compile(r'^(?P<time>\d+\.\d+) cpu (?P<jiffies>(?: +\d+)+)$')


class CpuLogError(ValueError):
  """A CPU sample file that cannot give the loader's CPU use."""


@dataclasses.dataclass(frozen=True)
class CpuSample:
  """One /proc/stat reading.

  Attributes:
    time_s: the loader's clock, epoch seconds.
    busy: jiffies spent neither idle nor in I/O wait since boot.
    total: all jiffies since boot.
    iowait: jiffies idle with I/O outstanding since boot.
    steal: jiffies the hypervisor gave other guests since boot (inside
      busy: the guest could not run).
  """

  time_s: float
  busy: int
  total: int
  iowait: int = 0
  steal: int = 0


@dataclasses.dataclass(frozen=True)
class CpuUsage:
  """A loader's CPU use over a step, all its CPUs together.

  Attributes:
    mean_pct: busy share from the first to the last sample, percent.
    peak_pct: busy share of the busiest interval between two samples.
    samples: number of samples.
    start_s: first sample, the loader's clock.
    end_s: last sample, the loader's clock.
  """

  mean_pct: float
  peak_pct: float
  samples: int
  start_s: float
  end_s: float


def ParseCpuSamples(text):
  """Parses the sample lines a loader (or a server's sampler) wrote.

  Args:
    text: the CPU sample file.

  Returns:
    tuple of CpuSample in file order.

  Raises:
    CpuLogError: a line that is not a sample (its number is in the message).
  """
  samples = []
  for number, line in enumerate(text.splitlines(), start=1):
    match = _SAMPLE_LINE.match(line.strip())
    jiffies = [int(j) for j in match.group('jiffies').split()] if match else []
    if len(jiffies) < _TIME_FIELDS:
      raise CpuLogError(f'line {number} is not a CPU sample: {line[:120]!r}')
    counted = jiffies[:_TIME_FIELDS]
    total = sum(counted)
    samples.append(
        CpuSample(
            time_s=float(match.group('time')),
            busy=total - counted[_IDLE] - counted[_IOWAIT],
            total=total,
            iowait=counted[_IOWAIT],
            steal=counted[_STEAL],
        )
    )
  return tuple(samples)


def _BusyPct(first, last):
  return 100.0 * (last.busy - first.busy) / (last.total - first.total)


def CpuUsageOf(samples):
  """The busy shares of a loader's samples.

  Args:
    samples: CpuSample in time order, at least two.

  Returns:
    CpuUsage.

  Raises:
    CpuLogError: fewer than two samples, or counters that go backwards.
  """
  if len(samples) < 2:
    raise CpuLogError(f'{len(samples)} CPU sample(s); at least 2 are needed')
  for earlier, later in zip(samples, samples[1:]):
    if later.total < earlier.total or later.busy < earlier.busy:
      raise CpuLogError(
          f'CPU counters go backwards at {later.time_s:.3f} (reboot?)'
      )
  intervals = [
      _BusyPct(earlier, later)
      for earlier, later in zip(samples, samples[1:])
      if later.total > earlier.total
  ]
  if not intervals:
    raise CpuLogError('CPU counters did not move between samples')
  return CpuUsage(
      mean_pct=_BusyPct(samples[0], samples[-1]),
      peak_pct=max(intervals),
      samples=len(samples),
      start_s=samples[0].time_s,
      end_s=samples[-1].time_s,
  )
