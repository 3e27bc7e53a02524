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

"""The controller's clock and the VMs': each VM's offset, and today's date.

Times recorded on VMs (loader start and end, compaction history) are moved
to the controller's clock with these offsets, so figures that combine
several machines stay exact to well under a second. The controller's date
in UTC dates a run (its prices).
"""

import datetime
import time

from perfkit_plugins.core import midpoint_estimate


def UtcDate():
  """Today's date on the controller, in UTC (YYYY-MM-DD): a run's date."""
  return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


def MeasureClockOffset(vm, samples=5, clock=time.time):
  """Measures one VM's clock offset by the midpoint method.

  Args:
    vm: a VM (RemoteCommand).
    samples: round trips to make; the shortest is used.
    clock: the controller's clock (epoch seconds).

  Returns:
    core.midpoint_estimate.ClockOffset (VM clock minus controller clock).
  """
  taken = []
  for _ in range(samples):
    sent = clock()
    stdout, _ = vm.RemoteCommand(midpoint_estimate.DATE_COMMAND)
    received = clock()
    taken.append(
        midpoint_estimate.ClockSample(
            sent, midpoint_estimate.ParseEpochSeconds(stdout), received
        )
    )
  return midpoint_estimate.EstimateOffset(taken)


def MeasureClockOffsets(vms, run_threaded, samples=5, clock=time.time):
  """Measures every VM's clock offset, all VMs at once.

  Args:
    vms: VMs with distinct names.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      contract, to reach every VM at once.
    samples: round trips per VM.
    clock: the controller's clock (epoch seconds).

  Returns:
    {vm.name: core.midpoint_estimate.ClockOffset}.
  """
  vms = list(vms)
  offsets = run_threaded(lambda vm: MeasureClockOffset(vm, samples, clock), vms)
  return {vm.name: offset for vm, offset in zip(vms, offsets)}
