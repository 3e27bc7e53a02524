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

"""Loader CPU use during a stress step, from /proc/stat samples.

While cassandra-stress runs, the loader appends one line every few seconds
(phase_runner.LoaderCommand): its clock (`date +%s.%N`) and the first line of
/proc/stat, the jiffies all CPUs together spent in each state since boot:

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
import re

# Fields of the aggregate line that add up to the total time:
# user nice system idle iowait irq softirq steal.
_TIME_FIELDS = 8
_IDLE, _IOWAIT = 3, 4
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
  """

  time_s: float
  busy: int
  total: int


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
  """Parses the sample lines the loader wrote.

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
