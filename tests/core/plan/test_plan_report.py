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

"""The plan as text: commands, ranges, prices, warnings and totals."""

import dataclasses
import re

from perfkit_plugins.core import number_format
from perfkit_plugins.core.machines import cost
from perfkit_plugins.core.plan import plan_report
from perfkit_plugins.testing import planned_runs


def test_rendered_plan_lists_every_command_range_price_and_warning():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=3)
  )
  shapes = planned_runs.MachinesOf(
      settings,
      server_price=cost.LookUp('x', override=0.42),
      loader_price=cost.LookUp('c6i.2xlarge'),
  )
  steps = planned_runs.PlanOf(settings, shapes)
  text, estimate = plan_report.RenderPlan('title', settings, steps, shapes)
  for step in steps:
    assert f'{step.name} [{step.kind}' in text
    for run in step.runs:
      assert run.command in text
      assert f'keys {run.key_range}' in text
  # Each loader contacts its own server.
  for index in range(3):
    assert f'-node server{index} ' in text
  assert 'data: one 1000 GB network disk per server' in text
  assert 'partitions: 810,774,192 of 170 B' in text
  assert 'stored / RAM: 8.56' in text
  assert 'nominal RAM' not in text  # --scylla_num_keys fixes the keys
  assert '3 x $0.420/h = $1.26/h (user override' in text
  assert (
      '3 x $0.340/h = $1.02/h (us-east-1, ScyllaDB test-suite instance catalog'
      in text
  )
  assert (
      f'cluster: $2.28/h; this run: about ${estimate.Usd(estimate.min_s):,.2f},'
      ' plus $2.28 per hour of quiesce'
      in text
  )
  assert 'Warnings\n  ! loaders: 3 x m4.2xlarge (24 vCPUs)' in text
  assert re.search(r'populate +4h 27m 21s  estimated: ', text)


def test_rendered_plan_of_local_ssds_and_shards():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  shapes = planned_runs.MachinesOf(settings, local_ssds=12)
  text, _ = plan_report.RenderPlan(
      't', settings, planned_runs.PlanOf(settings, shapes), shapes
  )
  assert (
      'data: 12 local SSDs per server in one RAID0, built by scylla_raid_setup'
      in text
  )
  assert 'shards per server (perftune rule, predicted): 80; IRQ vCPUs: 8' in (
      text
  )
  assert "(partitions from the machine type's nominal RAM;" in text
  assert 'cluster: unknown (a price is missing)' in text
  assert 'Warnings\n  ! maintenance: z3-highmem-88 has 36,000 GiB' in text
  assert '\n  ! cost: no price for z3-highmem-88' in text


def test_totals_add_runs_and_stay_unknown_without_a_price():
  settings = planned_runs.Settings(**planned_runs.Z3_STUDY)
  priced = planned_runs.Report(settings, planned_runs.Priced(settings))[1]
  unpriced = planned_runs.Report(settings, planned_runs.MachinesOf(settings))[1]
  text = plan_report.RenderTotals([('a', priced), ('b', priced)])
  assert f'about ${2 * priced.Usd(priced.min_s):,.2f}' in text
  assert number_format.FormatDuration(2 * priced.min_s) in text
  text = plan_report.RenderTotals([('a', priced), ('b', unpriced)])
  assert 'b: ' in text and 'total: ' in text
  assert text.splitlines()[-1].count('cost unknown') == 1


def _Quota(text):
  """The Quota section's lines."""
  section = text.split('\nQuota (', 1)[1].split('\n\n', 1)[0]
  return section.splitlines()[1:]


def test_quota_lists_vms_and_vcpus_per_family_and_region():
  # The headline command: 3 x z3-highmem-88 and 29 x n2-highcpu-32.
  settings = planned_runs.Settings(
      **dict(
          planned_runs.Z3_STUDY,
          loader_machine_type='n2-highcpu-32',
          loader_count=29,
      )
  )
  shapes = dataclasses.replace(
      planned_runs.MachinesOf(settings, local_ssds=12),
      server_zone='us-central1-a',
      loader_zone='us-central1-a',
  )
  text, _ = plan_report.RenderPlan(
      't', settings, planned_runs.PlanOf(settings, shapes), shapes
  )
  assert _Quota(text)[:3] == [
      '  us-central1  z3: 3 VMs, 264 vCPUs (servers)',
      '  us-central1  n2: 29 VMs, 928 vCPUs (loaders)',
      '  us-central1  all: 32 VMs, 1,192 vCPUs',
  ]


def test_quota_of_the_z3_study_loaders_and_of_one_family():
  settings = planned_runs.Settings(
      **dict(planned_runs.Z3_STUDY, server_machine_type='c2-standard-60')
  )
  shapes = dataclasses.replace(
      planned_runs.MachinesOf(settings),
      server_zone='us-east-1a',
      loader_zone='us-east-1a',
  )
  text, _ = plan_report.RenderPlan(
      't', settings, planned_runs.PlanOf(settings, shapes), shapes
  )
  # One family in one region: one line, servers and loaders together.
  assert _Quota(text)[0] == (
      '  us-east-1  c2: 33 VMs, 1,080 vCPUs (servers, loaders)'
  )


def test_a_network_disk_says_what_was_provisioned_and_what_the_path_carries():
  settings = planned_runs.Settings(
      **dict(planned_runs.C3_STUDY, loader_count=3)
  )
  shapes = dataclasses.replace(
      planned_runs.MachinesOf(settings), disk_iops=10000, disk_mib_s=160
  )
  text, _ = plan_report.RenderPlan(
      't', settings, planned_runs.PlanOf(settings, shapes), shapes
  )
  assert (
      'data: one 1000 GB network disk per server (10,000 IOPS and 160 MiB/s'
      ' provisioned); c3.2xlarge reaches at most 8,000 IOPS and 125 MB/s of'
      ' EBS, and is not EBS-optimized'
      in text
  )
