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

"""The run directory on the controller: records written, outputs read.

Step records, clock offsets and compaction polls go into the PKB run
directory as JSON (dataclasses as objects), beside the raw outputs pulled
from the machines, so every published figure can be recomputed from files;
a stress step's pulled outputs are read from there into its results
(core/results/step_results.py computes them).
"""

import contextlib
import dataclasses
import json

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import step_results


def _AsJson(value):
  return dataclasses.asdict(value)


def WriteJson(path, value):
  """Writes value to path as one indented JSON document."""
  with open(path, 'w') as f:
    json.dump(value, f, indent=2, default=_AsJson)


def AppendJsonLine(path, value):
  """Appends value to path as one JSON line (a file kept as it grows)."""
  with open(path, 'a') as f:
    f.write(json.dumps(value, default=_AsJson) + '\n')


def ReadText(path):
  """A pulled text file's content (undecodable bytes replaced); None: None."""
  if path is None:
    return None
  with open(path, errors='replace') as f:
    return f.read()


def LoadStepResult(step, record, settings, servers=()):
  """Reads a stress step's pulled files and computes its results.

  HDR logs are read as open files, line by line, so long logs of many
  loaders need little memory.

  Args:
    step: the plan.Step that ran.
    record: its loader_files.StepRecord (where each loader's files are).
    settings: core.config.settings.Settings (HDR interval, saturation
      guard).
    servers: server_evidence.ServerOutput of each server sampled
      (server_sampling.Outputs).

  Returns:
    step_results.StepResult.

  Raises:
    outcomes.PhaseOutputError: a loader failed or its outputs are
      missing, empty or cut; or loaders were saturated and the saturation
      action is 'fail'.
  """
  with contextlib.ExitStack() as stack:
    outputs = {}
    for loader in record.loaders:
      files = loader.local_files
      hdr = None
      if loader_files.HDR in files:
        hdr = stack.enter_context(
            open(files[loader_files.HDR], errors='replace')
        )
      outputs[loader.loader_index] = loader_files.LoaderOutput(
          stdout=ReadText(files.get(loader_files.STDOUT)),
          log=ReadText(files.get(loader_files.LOG)),
          hdr=hdr,
          cpu=ReadText(files.get(loader_files.CPU)),
          jvm=ReadText(files.get(loader_files.JVM)),
      )
    return step_results.ResultOfStep(step, record, outputs, settings, servers)
