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

"""What one loader run of a stress step leaves: its files and its record.

Each run leaves six files (FILE_KINDS), all named after the run's stem,
that phase_runner pulls to the controller: cassandra-stress's stdout and
stderr, its `-log file=` report, its HDR log, the times file the loader's
script writes around it, the loader's CPU samples and its JVM's stop log.
The kinds name them everywhere (remote paths, pulled files, missing files),
and the times file is read here: the loader's own clock just before and
after cassandra-stress, its exit code and the space left in its output
directory, the only record of a run that never ended.

phase_runner fills a LoaderRecord per run while a step runs, before any
output is read, and run_sequence keeps the step's StepRecord beside the raw
outputs: a step whose outputs give no figures still says which loader ran
when, how it ended and which files could not be pulled.
"""

import dataclasses
import re
from typing import Mapping, Optional

from perfkit_plugins.core.results import histograms

STDOUT = 'stdout'
LOG = 'log'
HDR = 'hdr'
TIMES = 'times'
CPU = 'cpu'
JVM = 'jvm'
FILE_KINDS = (STDOUT, LOG, HDR, TIMES, CPU, JVM)
# A run's files are its stem plus these suffixes, on the loader and when
# pulled: the plan names cassandra-stress's log files this way and the
# loader's script (data/scylla_phases/loader/stress_run.sh) the others.
SUFFIXES = {
    STDOUT: '.out',
    LOG: '.log',
    HDR: '.hdr',
    TIMES: '.times',
    CPU: '.cpu',
    JVM: '.jvm',
}
# The file holding the process group of a run's processes.
GROUP_SUFFIX = '.pgid'


def RemotePaths(stem):
  """{file kind: path} of the run whose files start with `stem`."""
  return {kind: stem + suffix for kind, suffix in SUFFIXES.items()}


def GroupFile(stem):
  """The file holding the process group of the run whose stem is `stem`."""
  return stem + GROUP_SUFFIX


_START_LINE = re.compile(r'^start (\d+\.\d+)$')
_END_LINE = re.compile(r'^end (\d+\.\d+) exit (\d+)$')
_FREE_LINE = re.compile(r'^free ?(\d*)$')


@dataclasses.dataclass(frozen=True)
class LoaderTimes:
  """A loader's times file (its own clock).

  Attributes:
    start_s: just before cassandra-stress started.
    end_s: just after it ended; None if it never ended (killed, machine
      lost).
    exit_code: its exit code; None with end_s None.
    free_kib: KiB left in the output directory after it ended; None when
      unknown.
  """

  start_s: float
  end_s: Optional[float]
  exit_code: Optional[int]
  free_kib: Optional[int] = None


def ParseTimes(text):
  """Parses a times file.

  Its lines: `start <epoch>`, `end <epoch> exit <code>` and `free <KiB>`
  (space left in the output directory, empty when `df` failed).

  Raises:
    ValueError: no start line, or a line that is none of these.
  """
  start = end = exit_code = free_kib = None
  for line in text.splitlines():
    line = line.strip()
    start_match, end_match = _START_LINE.match(line), _END_LINE.match(line)
    free_match = _FREE_LINE.match(line)
    if start_match:
      start = float(start_match.group(1))
    elif end_match:
      end, exit_code = float(end_match.group(1)), int(end_match.group(2))
    elif free_match:
      free_kib = int(free_match.group(1)) if free_match.group(1) else None
    elif line:
      raise ValueError(f'unexpected line in times file: {line[:120]!r}')
  if start is None:
    raise ValueError('times file has no start line')
  return LoaderTimes(start, end, exit_code, free_kib)


@dataclasses.dataclass(frozen=True)
class LoaderOutput:
  """The contents of one loader's pulled files; None for a missing file.

  Attributes:
    stdout: cassandra-stress stdout and stderr.
    log: its `-log file=` report.
    hdr: its HDR log: text, or lines (e.g. an open file).
    cpu: its CPU sample file.
    jvm: its JVM's stop log (core.stress.loader_jvm), '' when not logged.
  """

  stdout: Optional[str]
  log: Optional[str]
  hdr: Optional[histograms.LogSource]
  cpu: Optional[str]
  jvm: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class LoaderRecord:
  """What happened on one loader during a step.

  Attributes:
    loader_index: LoaderRun.loader_index.
    vm_name: the loader VM.
    clock_offset_s: the VM's clock minus the controller's, seconds.
    remote_files: kind (FILE_KINDS) -> remote path.
    local_files: kind -> local path of each file that was pulled.
    missing_files: kind -> why the file could not be pulled.
    start_s: cassandra-stress start (times file, offset applied); None when
      unknown.
    end_s: its end; None when unknown.
    exit_code: its exit code; None when unknown.
    error: why the remote command failed (ssh, non-zero exit), or None.
    launched_at: when the controller started the remote command.
    returned_at: when the remote command returned or failed.
    output_free_kib: KiB left in its output directory when its run ended
      (LoaderTimes.free_kib); None when unknown.
  """

  loader_index: int
  vm_name: str
  clock_offset_s: float
  remote_files: Mapping[str, str]
  local_files: Mapping[str, str]
  missing_files: Mapping[str, str]
  start_s: Optional[float]
  end_s: Optional[float]
  exit_code: Optional[int]
  error: Optional[str]
  launched_at: float
  returned_at: float
  output_free_kib: Optional[int] = None

  @property
  def name(self):
    """How messages and merged logs name this loader."""
    return f'loader {self.loader_index} ({self.vm_name})'


@dataclasses.dataclass(frozen=True)
class StepRecord:
  """What happened on every loader during a step.

  Attributes:
    step_name: plan.Step.name.
    started_at: when the controller started the loaders.
    ended_at: when the last loader's command returned.
    loaders: one LoaderRecord per run, in the step's run order.
  """

  step_name: str
  started_at: float
  ended_at: float
  loaders: tuple[LoaderRecord, ...]

  def Span(self):
    """(earliest start, latest end) of the loaders' commands.

    Each loader's own times where known, else the controller's.
    """
    starts = [
        l.launched_at if l.start_s is None else l.start_s for l in self.loaders
    ]
    ends = [l.returned_at if l.end_s is None else l.end_s for l in self.loaders]
    return min(starts, default=self.started_at), max(
        ends, default=self.ended_at
    )
