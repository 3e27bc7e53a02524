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

"""Known traps in a planned run, each naming the flag that avoids it.

A run that measures its loaders, an overloaded cluster or the page cache
instead of the database wastes hours and money; these checks catch the
cases the settings alone allow, before provisioning:

* Loaders too few for the servers (core/plan/sizing.py's rule).
* Very large but valid values (settings_limits.Large).
* Fixed rates above the expected maximum write rate of the servers or of
  the writing loaders (plan_estimates.ExpectedWriteRate). A
  cassandra-stress thread has one request in flight, so at a fixed rate
  above MAX_OPS_PER_THREAD per thread (1 ms per request) the loader cannot
  keep its schedule and response times grow without bound.
* Medium or large reads whose working set fits in the cluster's RAM.
* A network data disk the servers' path to it cannot carry (EBS on a type
  that is not EBS-optimized, or below what the volume was given): the
  disk-bound reads would measure the instance's link, not the volume.
* Long runs on servers that cannot live-migrate at host maintenance (Z3
  with more than 18 TiB of local SSD): an event stops a server mid-run.
* Machine types without a price.
"""

import math

from perfkit_plugins.core import number_format
from perfkit_plugins.core.config import settings_limits
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.plan import plan_data_set
from perfkit_plugins.core.plan import plan_estimates
from perfkit_plugins.core.plan import plan_machines
from perfkit_plugins.core.plan import sizing

# Requests per second one cassandra-stress thread can complete at 1 ms each.
MAX_OPS_PER_THREAD = 1000
# Runs longer than this on servers that cannot live-migrate are warned of.
MAINTENANCE_WARNING_S = 3600


def _LoaderWarnings(settings, shapes):
  """Too few loaders for the servers, or a loader type of unknown shape.

  Loaders that cannot drive the servers make every figure measure the
  loaders; sizing.LoaderCount says how many the servers need.
  """
  if shapes.loader_shape is None:
    return [
        f'loaders: the shape of {settings.loader_machine_type} is unknown, so'
        ' whether the loaders can drive the servers cannot be checked'
    ]
  needed = sizing.LoaderCount(
      settings.server_count,
      shapes.server_shape.vcpus,
      shapes.loader_shape.vcpus,
  )
  if settings.loader_count >= needed:
    return []
  return [
      f'loaders: {settings.loader_count} x {settings.loader_machine_type}'
      f' ({settings.loader_count * shapes.loader_shape.vcpus} vCPUs) may be'
      f' too few for {settings.server_count} x'
      f' {settings.server_machine_type}'
      f' ({settings.server_count * shapes.server_shape.vcpus} vCPUs): the'
      f' sizing rule ({sizing.LOADER_VCPUS_PER_SERVER_VCPU} loader vCPUs per'
      f' server vCPU, from the Z3 study) asks for {needed}; results would'
      ' measure the loaders (--scylla_loader_count)'
  ]


def _FixedRates(settings):
  """(flag, cluster op/s, threads per loader, loaders) of fixed-rate steps."""
  rates = []
  if 'latency' in settings.phases:
    rates += [
        ('latency_rates', r, settings.latency_threads, settings.loader_count)
        for r in settings.latency_rates
    ]
  if 'reads_during_writes' in settings.phases:
    writers = plan.RdwWriterCount(
        settings.loader_count, settings.rdw_writer_fraction
    )
    rates.append((
        'rdw_write_rate',
        settings.rdw_write_rate,
        settings.latency_threads,
        writers,
    ))
  return rates


def _RateWarnings(settings, shapes):
  """Fixed rates the servers, the writing loaders or their threads miss.

  A rate above what the servers sustain measures an overloaded cluster;
  one above what its loaders or their threads can keep falls behind its
  schedule, so response times grow without bound.
  """
  warnings = []
  for flag, rate, threads, loaders in _FixedRates(settings):
    expected = plan_estimates.ExpectedWriteRate(settings, shapes, loaders)
    if rate > expected.server_bound:
      warnings.append(
          f'--scylla_{flag}: {number_format.FormatCount(rate)} op/s is above'
          ' the expected maximum write rate of the servers,'
          f' {number_format.FormatCount(expected.server_bound)} op/s'
          f' ({expected.server_note}): that step would measure an overloaded'
          ' cluster'
      )
    if expected.loader_bound is not None and rate > expected.loader_bound:
      warnings.append(
          f'--scylla_{flag}: {number_format.FormatCount(rate)} op/s is more'
          f' than its {loaders} writing loader(s) are known to drive,'
          f' {number_format.FormatCount(expected.loader_bound)} op/s'
          f' ({expected.loader_note}): the schedule may fall behind'
          ' (--scylla_loader_count)'
      )
    per_loader = -(-rate // loaders)
    if per_loader > threads * MAX_OPS_PER_THREAD:
      warnings.append(
          f'--scylla_{flag}: {number_format.FormatCount(per_loader)} op/s per'
          f' loader needs more than {threads} threads (at most'
          f' {number_format.FormatCount(MAX_OPS_PER_THREAD)} op/s per thread at'
          ' 1 ms): the schedule would fall behind (--scylla_latency_threads)'
      )
  return warnings


def _RamWarnings(settings, shapes, data_set):
  """Medium or large reads whose working set fits in the cluster RAM.

  Those reads are meant to reach the disks; served from memory they
  would measure the cache instead. Small reads fit in RAM by design. With
  no memory figure for the server type nothing can be compared: that is
  said instead.
  """
  if not plan_machines.RamIsEstimated(shapes):
    return [
        f'memory: no figure for {settings.server_machine_type} before its'
        ' servers report one; the data set, working sets and key ranges shown'
        ' are for a stand-in, the run sizes them from the measured memory'
        ' (--scylla_num_keys fixes the keys)'
    ]
  warnings = []
  working_sets = plan_data_set.WorkingSets(settings, data_set)
  for size, phases in plan_data_set.UsedDistributions(settings).items():
    if size == 'small':
      continue
    stored = data_set.StoredBytes(working_sets[size])
    if stored <= data_set.cluster_ram_bytes:
      warnings.append(
          f'{size} reads ({", ".join(phases)}): the working set,'
          f' {number_format.FormatCount(working_sets[size])} keys'
          f' ({number_format.FormatBytes(stored)} with'
          f' {settings.replication_factor} replicas), fits in the cluster RAM'
          f' ({number_format.FormatBytes(data_set.cluster_ram_bytes)}), so they'
          ' would be served from memory; raise --scylla_num_keys,'
          ' --scylla_data_set_bytes or --scylla_data_to_ram_ratio'
          + (
              ' or --scylla_medium_working_set_to_ram'
              if size == 'medium'
              else ''
          )
      )
  return warnings


def _DiskWarnings(settings, shapes):
  """A network data disk the servers' path to it cannot carry.

  The disk-bound reads (medium, large) would measure that path instead of
  the volume the run provisioned.
  """
  if settings.data_disk != 'network' or settings.cloud != 'AWS':
    return []
  shortfall = local_disks.EbsShortfall(
      settings.server_machine_type, shapes.disk_iops, shapes.disk_mib_s
  )
  if not shortfall:
    return []
  return [
      f'data disk: {shortfall}; the disk-bound reads (medium, large) would'
      " measure the instance's path to EBS, not the volume (choose an"
      ' EBS-optimized type to measure the volume)'
  ]


def _MaintenanceWarnings(settings, shapes, estimate):
  """Long runs on servers a host maintenance event stops.

  Such a server is terminated at the event (PKB creates GCE VMs with
  --no-restart-on-failure unless --gce_automatic_restart), and the step
  running then fails; the longer the run, the likelier an event.
  """
  problem = local_disks.LiveMigrationProblem(
      settings.cloud, settings.server_machine_type, shapes.local_ssds
  )
  if not problem or estimate.min_s <= MAINTENANCE_WARNING_S:
    return []
  return [
      f'maintenance: {problem}; a host maintenance event during this run'
      f' (at least {number_format.FormatDuration(estimate.min_s)}) stops a'
      ' server and fails the step it hits (PKB creates VMs with'
      ' --no-restart-on-failure unless --gce_automatic_restart). Keep runs'
      ' short, or choose a type with at most 18 TiB (a -standardlssd type)'
  ]


def _TimeoutWarnings(estimate, timeout_minutes):
  """A run that outlives the deadline PKB tags its resources with.

  PKB labels every VM with --timeout_minutes (timeout_utc): the cleanup
  jobs of many teams delete what is past it, mid-run or not.
  """
  if timeout_minutes is None or estimate.max_s <= timeout_minutes * 60:
    return []
  if estimate.min_s > timeout_minutes * 60:
    how_long = f'takes at least {number_format.FormatDuration(estimate.min_s)}'
  else:
    how_long = (
        f'may take up to {number_format.FormatDuration(estimate.max_s)} (every'
        ' quiesce to its timeout)'
    )
  return [
      f'timeout: this run {how_long}, longer than --timeout_minutes='
      f'{timeout_minutes}, the deadline PKB tags every VM with (timeout_utc):'
      ' a cleanup job that honours the tag may delete the machines mid-run;'
      f' give --timeout_minutes={math.ceil(estimate.max_s / 60) + 60}'
      ' (the run and an hour for provisioning and teardown)'
  ]


def Warnings(settings, shapes, data_set, estimate, timeout_minutes=None):
  """Known traps in these settings, as messages naming the flag to change.

  Checked: too few loaders for the server type; very large clusters,
  thread counts and data sets (settings_limits.Large); fixed rates above the
  expected maximum write rate, or above what the loaders' threads can keep;
  medium or large reads whose working set fits in RAM; a network disk the
  servers' path cannot carry; long runs on servers that cannot live-migrate;
  a run longer than PKB's --timeout_minutes (when given); unknown prices.
  (A replication factor above the server count never gets here: settings
  validation rejects it, naming the flag.)

  Returns:
    list of str.
  """
  warnings = _LoaderWarnings(settings, shapes)
  warnings += settings_limits.Large(settings, data_set.keys)
  warnings += _RateWarnings(settings, shapes)
  warnings += _RamWarnings(settings, shapes, data_set)
  warnings += _DiskWarnings(settings, shapes)
  warnings += _MaintenanceWarnings(settings, shapes, estimate)
  warnings += _TimeoutWarnings(estimate, timeout_minutes)
  if estimate.usd_per_hour is None:
    warnings.append(
        'cost: no price for '
        + ' and '.join(_UnpricedFlags(settings, shapes))
        + '; per-dollar figures will be missing from the results'
    )
  return warnings


def _UnpricedFlags(settings, shapes):
  unpriced = []
  for role, price, machine_type in (
      ('server', shapes.server_price, settings.server_machine_type),
      ('loader', shapes.loader_price, settings.loader_machine_type),
  ):
    if price is None:
      unpriced.append(
          f'{machine_type} (give --scylla_{role}_price_per_hour, USD per VM'
          ' per hour)'
      )
  return unpriced
