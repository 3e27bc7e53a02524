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

"""What happened on each loader during a stress step, as the runner saw it.

phase_runner fills these records while a step runs, before any output is
read, and run_sequence keeps them beside the raw outputs: a step whose
outputs give no figures still says which loader ran when, how it ended
and which files could not be pulled.
"""

import dataclasses
from typing import Mapping, Optional


@dataclasses.dataclass(frozen=True)
class LoaderRecord:
  """What happened on one loader during a step.

  Attributes:
    loader_index: LoaderRun.loader_index.
    vm_name: the loader VM.
    clock_offset_s: the VM's clock minus the controller's, seconds.
    remote_files: kind (loader_files.FILE_KINDS) -> remote path.
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
      (loader_files.LoaderTimes.free_kib); None when unknown.
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
