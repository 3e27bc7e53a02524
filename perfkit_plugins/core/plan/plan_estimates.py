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

"""How long a planned run will take and what it will cost, before it runs.

Nothing is measured: steps with a duration flag take that long, and the
durations of steps that run "until done" are estimates from documented
assumptions, each printed next to the number it produces:

* Write throughput, for the populate estimate (and the plan's warnings
  about fixed rates): write_rates.ExpectedWriteRate, the lower of what the
  servers sustained in the published run closest to this one (same engine
  and machine family) and what the writing loaders have been seen to drive.
  Real rates depend on row size, disks, release and loaders; the populate
  step prints its real rate.
* Quiesce (waiting until no node compacts) has no estimate: it lasts at
  least the settle window and at most the timeout; the c3.2xlarge study
  measured 21 minutes (ScyllaDB) and 7 h 32 min (Cassandra) after populate.
* Provisioning, install, tuning (iotune) and bring-up: SETUP_S.
"""

import dataclasses

from perfkit_plugins.core import number_format
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.plan import write_rates

# Provisioning, install, tuning and bring-up, assumed (not measured).
SETUP_S = 1200

BASIS_FIXED = 'set by flags'
BASIS_ESTIMATED = 'estimated'
BASIS_UNKNOWN = 'unknown'
_QUIESCE_KINDS = (plan.KIND_QUIESCE, plan.KIND_FLUSH_QUIESCE)


def ExpectedWriteRate(settings, shapes, writers=None):
  """write_rates.WriteRate of these servers driven by `writers` loaders.

  Args:
    settings: validated Settings.
    shapes: plan_machines.Machines.
    writers: loaders that write; None for all of them.
  """
  writers = settings.loader_count if writers is None else writers
  loader_vcpus = None
  if shapes.loader_shape is not None:
    loader_vcpus = writers * shapes.loader_shape.vcpus
  return write_rates.ExpectedWriteRate(
      settings.engine,
      settings.server_machine_type,
      settings.server_count * shapes.server_shape.vcpus,
      loader_vcpus,
  )


def RateNote(rate):
  """How a write_rates.WriteRate was obtained, bound first."""
  servers = (
      f'servers {number_format.FormatCount(rate.server_bound)} op/s:'
      f' {rate.server_note}'
  )
  if rate.loader_bound is None:
    return f'{servers}; loaders: shape unknown'
  loaders = (
      f'loaders {number_format.FormatCount(rate.loader_bound)} op/s:'
      f' {rate.loader_note}'
  )
  if rate.bound == write_rates.BOUND_LOADERS:
    return f'bound by the {loaders}; {servers}'
  return f'bound by the {servers}; {loaders}'


@dataclasses.dataclass(frozen=True)
class StepEstimate:
  """How long one step is expected to take.

  Attributes:
    name: the plan step's name.
    seconds: expected seconds; None when unknown (quiesce).
    basis: BASIS_FIXED, BASIS_ESTIMATED or BASIS_UNKNOWN.
    note: how the number was obtained.
  """

  name: str
  seconds: float | None
  basis: str
  note: str


@dataclasses.dataclass(frozen=True)
class RunEstimate:
  """Duration and cost of one run.

  Attributes:
    steps: StepEstimate per plan step, in order.
    setup_s: assumed provisioning, install, tuning and bring-up.
    known_s: setup plus every step with a fixed or estimated duration.
    quiesce_steps: steps without an estimate.
    quiesce_min_s: their settle windows (the least they can take).
    quiesce_max_s: their timeouts (the most they can take).
    usd_per_hour: the whole cluster (servers and loaders), None if a price
      is unknown.
  """

  steps: tuple[StepEstimate, ...]
  setup_s: int
  known_s: float
  quiesce_steps: int
  quiesce_min_s: int
  quiesce_max_s: int
  usd_per_hour: float | None

  @property
  def min_s(self):
    return self.known_s + self.quiesce_min_s

  @property
  def max_s(self):
    return self.known_s + self.quiesce_max_s

  def Usd(self, seconds):
    """Cost of `seconds` of the cluster; None when a price is unknown."""
    if self.usd_per_hour is None:
      return None
    return self.usd_per_hour * seconds / 3600


def _StepEstimate(step, settings, write_rate):
  """StepEstimate of one planned step, saying how it was obtained.

  Steps with a duration flag take that long; quiesce steps end when
  compactions do, so only their bounds are known; the others write
  their operations at the expected write rate.
  """
  if step.expected_duration_s is not None:
    return StepEstimate(
        step.name, step.expected_duration_s, BASIS_FIXED, 'duration flag'
    )
  if step.kind in _QUIESCE_KINDS:
    return StepEstimate(
        step.name,
        None,
        BASIS_UNKNOWN,
        'until no node compacts: at least'
        f' {number_format.FormatDuration(settings.quiesce_settle_s)} (settle),'
        f' at most {number_format.FormatDuration(settings.quiesce_timeout_s)}'
        ' (timeout)',
    )
  operations = sum(run.operations for run in step.runs)
  return StepEstimate(
      step.name,
      operations / write_rate.ops_per_second,
      BASIS_ESTIMATED,
      f'{number_format.FormatCount(operations)} writes at'
      f' {number_format.FormatCount(write_rate.ops_per_second)} op/s'
      f' ({RateNote(write_rate)})',
  )


def Estimate(settings, steps, shapes):
  """Duration and cost of running `steps`.

  Args:
    settings: validated Settings.
    steps: plan.PlanRun result for them.
    shapes: plan_machines.Machines.

  Returns:
    RunEstimate.
  """
  write_rate = ExpectedWriteRate(settings, shapes)
  estimates = tuple(_StepEstimate(s, settings, write_rate) for s in steps)
  quiesce_steps = sum(e.seconds is None for e in estimates)
  return RunEstimate(
      steps=estimates,
      setup_s=SETUP_S,
      known_s=SETUP_S + sum(e.seconds or 0 for e in estimates),
      quiesce_steps=quiesce_steps,
      quiesce_min_s=quiesce_steps * settings.quiesce_settle_s,
      quiesce_max_s=quiesce_steps * settings.quiesce_timeout_s,
      usd_per_hour=cost.RunCost(
          1.0,
          [
              (settings.server_count, shapes.server_price),
              (settings.loader_count, shapes.loader_price),
          ],
      ),
  )
