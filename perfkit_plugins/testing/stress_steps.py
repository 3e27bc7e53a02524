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

"""A planned stress step, its loaders' records and the lab's write run.

The tests of a step's results give each loader the lab's real text output
and HDR log of one write run (moved in time for loaders that start later
or whose clock is off), and the real times and CPU files a loader command
wrote; the step and its records are planned and built here, as
phase_runner builds them, with every loader run ending well unless a test
changes it.
"""

import dataclasses

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import step_results
from perfkit_plugins.testing import planned_runs

WRITE_TEXT = 'cs-write-n200k-seq-t50-hdr.txt'
WRITE_HDR = 'cs-write-n200k-seq-t50-hdr.w.hdr'
# A read run and its own HDR log (testdata/stress, see its README).
READ_RUN = 'read_small.loader0'
# The write run's last interval line: 200,000 operations at 9.4 s.
WRITE_OPS, WRITE_SECONDS = 200000, 9.4


def Settings(**changes):
  """Validated settings of the tests' steps (two loaders), with `changes`."""
  fields = dict(
      phases=('populate',),
      num_keys=400000,
      loader_count=2,
      hdr_interval_s=1,
      latency_rates=(4000,),
      latency_duration_s=30,
      rdw_duration_s=30,
      rdw_write_rate=2000,
  )
  fields.update(changes)
  return settings_lib.Validate(settings_lib.Settings(**fields))


def StepOf(settings, name):
  """The planned step `name`: one server, loader outputs under /r."""
  steps = planned_runs.PhaseSteps(
      settings, ['10.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
  )
  return next(step for step in steps if step.name == name)


def Record(step, offsets=None, changes=None):
  """A StepRecord where every loader ran and exited 0, but for `changes`.

  Args:
    step: the planned step.
    offsets: loader index -> clock offset.
    changes: loader index -> loader_files.LoaderRecord fields to replace.
  """
  loaders = []
  for run in step.runs:
    loader = loader_files.LoaderRecord(
        loader_index=run.loader_index,
        vm_name=f'vm{run.loader_index}',
        clock_offset_s=(offsets or {}).get(run.loader_index, 0.0),
        remote_files=run.paths,
        local_files={},
        missing_files={},
        start_s=100.0,
        end_s=200.0,
        exit_code=0,
        error=None,
        launched_at=100.0,
        returned_at=200.0,
    )
    loaders.append(
        dataclasses.replace(loader, **(changes or {}).get(run.loader_index, {}))
    )
  return loader_files.StepRecord(step.name, 99.0, 201.0, tuple(loaders))


def PopulateResult(outputs, settings=None, offsets=None):
  """The StepResult of a populate step whose loaders gave `outputs`.

  Args:
    outputs: loader index -> loader_files.LoaderOutput.
    settings: the step's settings; Settings() if None.
    offsets: loader index -> clock offset.
  """
  settings = settings or Settings()
  step = StepOf(settings, 'populate')
  return step_results.ResultOfStep(
      step, Record(step, offsets), outputs, settings
  )
