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

"""The files one loader run of a stress step leaves, and how they read.

Each run leaves five files (FILE_KINDS) that phase_runner pulls to the
controller: cassandra-stress's stdout and stderr, its `-log file=` report,
its HDR log, the times file its command writes around it and the loader's
CPU samples. The kinds name them everywhere (remote paths, pulled files,
missing files), and the times file is read here: the loader's own clock
just before and after cassandra-stress, its exit code and the space left in
its output directory, the only record of a run that never ended.
"""

import dataclasses
import re
from typing import Optional

from perfkit_plugins.core import histograms

STDOUT = 'stdout'
LOG = 'log'
HDR = 'hdr'
TIMES = 'times'
CPU = 'cpu'
FILE_KINDS = (STDOUT, LOG, HDR, TIMES, CPU)

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
  """

  stdout: Optional[str]
  log: Optional[str]
  hdr: Optional[histograms.LogSource]
  cpu: Optional[str]
