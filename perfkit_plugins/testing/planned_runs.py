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

"""The seed studies' settings, machines and plans, for the plan tests.

A plan's data set, estimates, warnings and text are checked against the
c3.2xlarge and Z3 studies their assumptions come from, each built the way
the `scylla-phases-plan` command builds them, from here.
"""

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.machines import machines
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.plan import plan_data_set
from perfkit_plugins.core.plan import plan_estimates
from perfkit_plugins.core.plan import plan_machines

_CS = '/opt/pkb/cassandra-stress/bin/cassandra-stress'
_DIR = '/tmp/pkb/scylla_phases'

# The c3.2xlarge study's parameters (configs/..._c3_2xlarge.yaml).
C3_STUDY = dict(
    cloud='AWS',
    server_machine_type='c3.2xlarge',
    loader_machine_type='m4.2xlarge',
    loader_count=3,
    data_disk='network',
    phases=('populate', 'quiesce', 'read', 'latency', 'reads_during_writes'),
    num_keys=810774192,
    column_size=34,
    column_count=5,
    populate_threads=800,
    threads=400,
    medium_working_set_to_ram=4.22,
    latency_threads=800,
    rdw_write_rate=30000,
    rdw_writer_fraction=0.34,
    rdw_write_range_fraction=0.0123339,
    rdw_read_threads=20,
)
Z3_STUDY = dict(
    server_machine_type='z3-highmem-88',
    loader_machine_type='c2-standard-30',
    loader_count=30,
    phases=('populate', 'quiesce', 'mixed', 'write_only', 'read_cache'),
)


def Settings(**changes):
  """Validated Settings with `changes`."""
  return settings_lib.Validate(settings_lib.Settings(**changes))


def MachinesOf(settings, local_ssds=0, server_price=None, loader_price=None):
  """plan_machines.Machines of the settings' machine types."""
  return plan_machines.Machines(
      server_shape=machines.Shape(settings.server_machine_type),
      local_ssds=local_ssds,
      loader_shape=machines.Shape(settings.loader_machine_type),
      server_price=server_price,
      loader_price=loader_price,
  )


def PhaseSteps(*args, **kwargs):
  """plan.PlanRun's steps (same arguments) but the schema step."""
  return [
      step
      for step in plan.PlanRun(*args, **kwargs)
      if step.kind != plan.KIND_SCHEMA
  ]


def PlanOf(settings, shapes):
  """The steps planned for the settings, servers named by placeholders."""
  return plan.PlanRun(
      settings,
      plan_machines.ServerPlaceholders(settings.server_count),
      plan_machines.ClusterRamBytes(settings, shapes),
      _CS,
      _DIR,
  )


def Report(settings, shapes):
  """The data set and estimate RenderPlan shows for these settings.

  Returns:
    (plan_data_set.DataSet, plan_estimates.RunEstimate).
  """
  data_set = plan_data_set.DataSetOf(
      settings, plan_machines.ClusterRamBytes(settings, shapes)
  )
  estimate = plan_estimates.Estimate(settings, PlanOf(settings, shapes), shapes)
  return data_set, estimate


def Priced(settings):
  """MachinesOf(settings) priced at $1/h each: no missing-price warning."""
  return MachinesOf(
      settings,
      server_price=cost.Price(1.0, '', 'test', ''),
      loader_price=cost.Price(1.0, '', 'test', ''),
  )
