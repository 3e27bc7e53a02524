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

"""The plan of a run as text: cluster, quota, data set, steps, duration, cost.

Pure: the `scylla-phases-plan` command resolves settings, machine shapes
and prices with PKB's own config machinery and the phase planner, then
calls RenderPlan (or RenderOwnMachinesPlan for static VMs, RenderTotals
for configs of several runs) here, so that what a run will do, how long it
will take, what it will cost and what looks wrong can be read before
anything is provisioned. The figures come from plan_data_set,
plan_estimates and plan_warnings; every estimate is printed with how it
was obtained.
"""

from perfkit_plugins.core import number_format
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.plan import plan_data_set
from perfkit_plugins.core.plan import plan_estimates
from perfkit_plugins.core.plan import plan_machines
from perfkit_plugins.core.plan import plan_warnings


def _FormatPrice(price, count, machine_type):
  if price is None:
    return f'{count} x {machine_type}: price unknown'
  where = ', '.join(p for p in (price.region, price.source, price.date) if p)
  return (
      f'{count} x {machine_type}: {count} x ${price.usd_per_hour:.3f}/h ='
      f' ${count * price.usd_per_hour:.2f}/h ({where})'
  )


def _DataDisk(settings, shapes):
  """The servers' data disk, and what their path to a network disk carries.

  A volume provisioned beyond what the instance reaches of it would make
  the disk-bound reads measure the instance, so both are shown.
  """
  if settings.data_disk == 'network':
    provisioned = [
        f'{value:,} {unit}'
        for value, unit in (
            (shapes.disk_iops, 'IOPS'),
            (shapes.disk_mib_s, 'MiB/s'),
        )
        if value
    ]
    given = f' ({" and ".join(provisioned)} provisioned)' if provisioned else ''
    path = local_disks.EBS_PATHS.get(settings.server_machine_type)
    reach = (
        f'; {settings.server_machine_type} reaches at most'
        f' {path.max_iops:,} IOPS and {path.max_mb_s:g} MB/s of EBS'
        + ('' if path.optimized_by_default else ', and is not EBS-optimized')
        if path and settings.cloud == 'AWS'
        else ''
    )
    return (
        f'one {settings.network_disk_gb} GB network disk per server{given}'
        f'{reach}'
    )
  builder = 'scylla_raid_setup' if settings.engine == 'scylla' else 'PKB'
  if shapes.local_ssds == 1:
    return f'1 local SSD per server, set up by {builder}'
  return (
      f'{shapes.local_ssds} local SSDs per server in one RAID0, built by'
      f' {builder}'
  )


def _ClusterLines(settings, shapes):
  """The Cluster section: servers, data disks, shards, loaders, workload.

  What will be provisioned and run, so a wrong machine type, disk or
  phase list shows before anything costs money.
  """
  server, loader = shapes.server_shape, shapes.loader_shape
  database = (
      f'ScyllaDB {settings.release}'
      if settings.engine == 'scylla'
      else f'Apache Cassandra {settings.cassandra_version}'
  )
  figures = [f'{server.vcpus} vCPUs']
  if server.memory_gib is not None:
    figures.append(f'{server.memory_gib:g} GiB')
  if server.numa_nodes:
    figures.append(f'{server.numa_nodes} NUMA node(s)')
  shape = ', '.join(figures) + ' each'
  if server.memory_gib is None:
    shape += ', memory unknown'
  lines = [
      'Cluster',
      (
          f'  servers: {settings.server_count} x {settings.server_machine_type}'
          f' on {settings.cloud}: {shape} (estimates: the run reads them from'
          f' the servers); {database}'
      ),
      f'  data: {_DataDisk(settings, shapes)}',
  ]
  layout = plan_machines.PredictedShards(server)
  if settings.engine == 'scylla' and layout:
    lines.append(
        f'  shards per server (perftune rule, predicted): {layout.shards};'
        f' IRQ vCPUs: {layout.irq_vcpus}'
    )
  loader_shape = f': {loader.vcpus} vCPUs each' if loader else ': shape unknown'
  lines += [
      (
          f'  loaders: {settings.loader_count} x {settings.loader_machine_type}'
          f'{loader_shape}; cassandra-stress ({settings.stress_tool}'
          f' {settings.stress_release})'
      ),
      (
          f'  workload: RF {settings.replication_factor},'
          f' {settings.consistency_level}, {settings.compaction_strategy},'
          f' rows of {settings.column_count} x {settings.column_size} bytes;'
          f' phases: {", ".join(settings.phases)}'
      ),
  ]
  return lines


def _QuotaLines(settings, shapes):
  """The Quota section: VMs and vCPUs per region and machine family.

  A run past a cloud's vCPU quota fails after the VMs created before it
  are paid for, so the figures to check come first.
  """
  quota = plan_machines.Quota(settings, shapes)
  lines = [
      'Quota (VMs and vCPUs this run creates; check the regional quotas first)'
  ]
  width = max(len(q.region or '?') for q in quota)
  for q in quota:
    vcpus = (
        '? vCPUs (type unknown)'
        if q.vcpus is None
        else f'{number_format.FormatCount(q.vcpus)} vCPUs'
    )
    lines.append(
        f'  {q.region or "?":<{width}}  {q.family}: {q.vms} VMs, {vcpus}'
        f' ({", ".join(q.roles)})'
    )
  for region in dict.fromkeys(q.region for q in quota):
    here = [q for q in quota if q.region == region]
    if len(here) > 1:
      vcpus = [q.vcpus for q in here]
      total = '?' if None in vcpus else number_format.FormatCount(sum(vcpus))
      lines.append(
          f'  {region or "?":<{width}}  all: {sum(q.vms for q in here)} VMs,'
          f' {total} vCPUs'
      )
  lines.append(
      '  (GCE counts vCPUs per region: in all (CPUS) and per machine family'
      ' (N2_CPUS, C2_CPUS...))'
      if settings.cloud == 'GCP'
      else (
          '  (EC2 counts vCPUs per region and instance class, e.g. Running'
          ' On-Demand Standard instances)'
      )
  )
  return lines


def _DataSetLines(settings, data_set, shapes):
  """The Data set section: partitions, stored bytes and reads against RAM.

  Whether reads reach the disks depends on these ratios, so each read
  distribution in use is shown with its working set's size.
  """
  per_node_ram = data_set.cluster_ram_bytes / data_set.server_count
  ram_basis = (
      f'estimate: {shapes.server_shape.source}'
      if plan_machines.RamIsEstimated(shapes)
      else (
          f'stand-in: no memory figure for {settings.server_machine_type}'
          ' before its servers report one'
      )
  )
  lines = [
      'Data set',
      (
          f'  partitions: {number_format.FormatCount(data_set.keys)} of'
          f' {number_format.FormatBytes(data_set.row_bytes)} (column data)'
      ),
      (
          f'  unique data {number_format.FormatBytes(data_set.unique_bytes)};'
          f' stored with RF {data_set.replication_factor}:'
          f' {number_format.FormatBytes(data_set.stored_bytes)},'
          f' {number_format.FormatBytes(data_set.per_node_bytes)} per node'
      ),
      (
          '  cluster RAM'
          f' {number_format.FormatBytes(data_set.cluster_ram_bytes)}'
          f' ({number_format.FormatBytes(per_node_ram)} per node, {ram_basis});'
          f' stored / RAM: {data_set.ram_ratio:.2f}'
      ),
  ]
  if not settings.num_keys and not settings.data_set_bytes:
    lines.append(
        "  (partitions from the machine type's nominal RAM; the run sizes"
        " them from the servers' measured memory, a little less: give"
        ' --scylla_num_keys to fix them and their key ranges)'
        if plan_machines.RamIsEstimated(shapes)
        else (
            '  (partitions and key ranges here are for the stand-in; the'
            " run sizes them from the servers' measured memory: give"
            ' --scylla_num_keys to fix them)'
        )
    )
  working_sets = plan_data_set.WorkingSets(settings, data_set)
  for size, phases in plan_data_set.UsedDistributions(settings).items():
    stored = data_set.StoredBytes(working_sets[size])
    lines.append(
        f'  {size} reads ({", ".join(phases)}):'
        f' {number_format.FormatCount(working_sets[size])} keys,'
        f' {number_format.FormatBytes(stored)} stored,'
        f' {stored / data_set.cluster_ram_bytes:.2f} x RAM'
    )
  return lines


def _DurationLines(estimate):
  """The Duration section: one line per step with its basis, and the total.

  Every number says whether it was set by flags, estimated or unknown,
  and the total spans the quiesce steps' settle windows to timeouts.
  """
  width = max([len(e.name) for e in estimate.steps] + [len('setup')])
  lines = [
      'Duration',
      (
          f'  {"setup":<{width}} '
          f' {number_format.FormatDuration(estimate.setup_s):>11}  assumed:'
          ' provisioning, install, tuning, bring-up'
      ),
  ]
  for e in estimate.steps:
    shown = (
        '?' if e.seconds is None else number_format.FormatDuration(e.seconds)
    )
    lines.append(f'  {e.name:<{width}}  {shown:>11}  {e.basis}: {e.note}')
  lines.append(
      f'  total: {number_format.FormatDuration(estimate.min_s)}'
      + (
          ' (quiesce at its settle window) to'
          f' {number_format.FormatDuration(estimate.max_s)} (every quiesce to'
          f' its timeout); {estimate.quiesce_steps} quiesce step(s) of unknown'
          ' length'
          if estimate.quiesce_steps
          else ''
      )
  )
  return lines


def _CostLines(settings, shapes, estimate):
  """The Cost section: each role's price and source, and the run's cost.

  Without every price the cluster's cost is unknown; the servers' share
  is still shown when their price is known.
  """
  lines = [
      'Cost (on-demand)',
      '  '
      + _FormatPrice(
          shapes.server_price,
          settings.server_count,
          settings.server_machine_type,
      ),
      '  '
      + _FormatPrice(
          shapes.loader_price,
          settings.loader_count,
          settings.loader_machine_type,
      ),
  ]
  if estimate.usd_per_hour is None:
    lines.append('  cluster: unknown (a price is missing)')
    if shapes.server_price is not None:
      servers = settings.server_count * shapes.server_price.usd_per_hour
      lines.append(
          f'  servers alone: about ${servers * estimate.min_s / 3600:,.2f}'
          ' for this run (quiesce at its settle window)'
      )
    return lines
  lines.append(
      f'  cluster: ${estimate.usd_per_hour:.2f}/h; this run: about'
      f' ${estimate.Usd(estimate.min_s):,.2f}'
      + (
          f', plus ${estimate.usd_per_hour:.2f} per hour of quiesce (at most'
          f' ${estimate.Usd(estimate.max_s):,.2f})'
          if estimate.quiesce_steps
          else ''
      )
  )
  return lines


def RenderPlan(title, settings, steps, shapes, timeout_minutes=None):
  """The plan of one run as text.

  Args:
    title: first line (which run of a config this is).
    settings: validated Settings.
    steps: plan.PlanRun result.
    shapes: plan_machines.Machines.
    timeout_minutes: PKB's --timeout_minutes for this run, None if unknown.

  Returns:
    (text, plan_estimates.RunEstimate).
  """
  data_set = plan_data_set.DataSetOf(
      settings, plan_machines.ClusterRamBytes(settings, shapes)
  )
  estimate = plan_estimates.Estimate(settings, steps, shapes)
  warnings = plan_warnings.Warnings(
      settings, shapes, data_set, estimate, timeout_minutes
  )
  sections = [
      [title, '=' * len(title)],
      _ClusterLines(settings, shapes),
      _QuotaLines(settings, shapes),
      _DataSetLines(settings, data_set, shapes),
      [
          'Steps (commands name the servers'
          f' {plan_machines.SERVER_PLACEHOLDER.format("N")}: their addresses at'
          ' run time)'
      ]
      + ['  ' + line for line in plan.PlanSummary(steps).splitlines()],
      _DurationLines(estimate),
      _CostLines(settings, shapes, estimate),
      ['Warnings'] + [f'  ! {w}' for w in warnings or ['none']],
  ]
  return '\n\n'.join('\n'.join(s) for s in sections), estimate


def RenderOwnMachinesPlan(title, settings, steps, static_vms, server_price):
  """The plan of a run on static VMs (own machines), unknowns named.

  Their vCPUs, memory and disks are read from them when the run starts; the
  key count (unless given), the reads' working sets, populate's duration
  and the commands follow from them, so they are listed as unknown here.

  Args:
    title: first line.
    settings: validated Settings (servers_static).
    steps: plan.PlanRun result, planned for a stand-in memory: only names,
      kinds, durations and loaders are shown.
    static_vms: {group: ['user@address:port', ...]}.
    server_price: cost.ServerPrice (the user's only), or None.

  Returns:
    text.
  """
  database = (
      f'ScyllaDB {settings.release}'
      if settings.engine == 'scylla'
      else f'Apache Cassandra {settings.cassandra_version}'
  )

  def Group(name, count):
    listed = static_vms.get(name) or []
    if listed:
      return f'{count} static VM(s): {", ".join(listed)}'
    return f'{count} x {settings.loader_machine_type or "?"}'

  keys = (
      f'{number_format.FormatCount(settings.num_keys)} (--scylla_num_keys)'
      if settings.num_keys
      else 'sized from their memory; give --scylla_num_keys to fix them'
  )
  price = (
      'never from a price table for own machines; none given'
      ' (--scylla_server_price_per_hour)'
      if server_price is None
      else (
          f'${server_price.usd_per_hour:.3f}/h per server'
          f' ({server_price.source})'
      )
  )
  timed = sum(s.expected_duration_s or 0 for s in steps)
  until_done = sum(s.expected_duration_s is None for s in steps)
  sections = [
      [title, '=' * len(title)],
      [
          'Cluster',
          f'  servers: {Group("servers", settings.server_count)}; {database}',
          (
              f'  data: {settings.data_dir}, declared by their disk_specs, used'
              ' as it is (never formatted)'
          ),
          (
              f'  loaders: {Group("loaders", settings.loader_count)};'
              f' cassandra-stress ({settings.stress_tool}'
              f' {settings.stress_release})'
          ),
          (
              f'  workload: RF {settings.replication_factor},'
              f' {settings.consistency_level}, {settings.compaction_strategy};'
              f' phases: {", ".join(settings.phases)}'
          ),
      ],
      [
          'Unknown until the machines are reached',
          (
              '  their vCPUs, memory, NUMA nodes and disks: read from them at'
              ' the start of the run, and published'
          ),
          f'  partitions: {keys}',
          (
              "  the reads' working sets and every command (key ranges follow"
              ' the partitions)'
          ),
          "  populate's duration: no published write rate for these machines",
          f'  price: {price}',
      ],
      ['Steps']
      + [
          f'  {s.name} [{s.kind}, '
          + (
              'until done'
              if s.expected_duration_s is None
              else f'{s.expected_duration_s} s'
          )
          + (f'] on {len(s.runs)} loader(s)' if s.runs else '] on the servers')
          for s in steps
      ]
      + [
          f'  timed steps: {number_format.FormatDuration(timed)}, plus'
          f' {until_done} step(s) that run until done'
      ],
  ]
  return '\n\n'.join('\n'.join(s) for s in sections)


def RenderTotals(estimates):
  """One line per run and a total, for configs with several runs.

  Args:
    estimates: [(title, plan_estimates.RunEstimate)].

  Returns:
    text.
  """
  lines = ['All runs']
  usd = [e.Usd(e.min_s) for _, e in estimates]
  for (title, e), dollars in zip(estimates, usd):
    shown = 'cost unknown' if dollars is None else f'about ${dollars:,.2f}'
    lines.append(f'  {title}: {number_format.FormatDuration(e.min_s)}, {shown}')
  total_s = sum(e.min_s for _, e in estimates)
  total = 'cost unknown' if None in usd else f'about ${sum(usd):,.2f}'
  lines.append(
      f'  total: {number_format.FormatDuration(total_s)}, {total} (quiesce at'
      ' its settle window)'
  )
  return '\n'.join(lines)
