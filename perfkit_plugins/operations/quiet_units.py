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

"""Periodic jobs and agents masked on a run's machines, and read back.

ScyllaDB's machine images mask apt's timers, snapd and each cloud's agent
(scylla_config.QuietUnits). A job that wakes during a fixed-rate step
delays requests wherever it runs: on a server, and on a loader, whose late
requests count as latency. So the run's own machines, servers and loaders
of either engine, are made so before anything is measured. The samples say
which of the units are masked, read back from each machine: Run may be
another pkb.py process than Prepare.
"""

import shlex

from perfkit_plugins.core.software import scylla_config


def MaskCommand(units):
  """Stops and masks those of `units` the machine has.

  Prints `masked:` and the units it masked (scylla_config.ParseMaskedUnits
  reads it).
  """
  names = ' '.join(shlex.quote(u) for u in units)
  return (
      f'masked=; for unit in {names}; do'
      ' if systemctl list-unit-files --no-legend "$unit" 2>/dev/null'
      ' | grep -q .; then sudo systemctl stop "$unit" 2>/dev/null;'
      ' sudo systemctl mask "$unit" >/dev/null && masked="$masked $unit";'
      ' fi; done; echo "masked:$masked"'
  )


def MaskedCommand(units):
  """Prints `masked:` and those of `units` whose unit file is masked now."""
  names = ' '.join(shlex.quote(u) for u in units)
  return (
      f'masked=; for unit in {names}; do'
      ' if [ "$(systemctl is-enabled "$unit" 2>/dev/null)" = masked ]; then'
      ' masked="$masked $unit"; fi; done; echo "masked:$masked"'
  )


def Mask(vm, units):
  """Masks `units` on one machine (MaskCommand); returns those it masked."""
  out, _ = vm.RemoteCommand(MaskCommand(units))
  return scylla_config.ParseMaskedUnits(out)


def QuietLoader(vm, settings):
  """Masks the units on a loader the run provisioned (Mask).

  Own machines (static VMs) stay as they are: a mask outlives the run.

  Returns:
    the units masked.
  """
  if settings.loaders_static:
    return ()
  return Mask(vm, scylla_config.QuietUnits(settings.cloud))


def Masked(vm, units):
  """Those of `units` masked on one machine, sorted."""
  out, _ = vm.RemoteCommand(MaskedCommand(units))
  return scylla_config.ParseMaskedUnits(out)


def Metadata(units):
  """The sample value of a machine's masked units: space-separated, or none."""
  return ' '.join(units) or 'none'
