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

"""The run's settings for the package installers (linux_packages/scylla_*).

PKB's vm.Install(name) passes a package module only the VM, so the
benchmark attaches the run's settings (flags and config resolved, validated
before provisioning) to every VM of the run before it installs anything.
PKB imports the package modules while it imports its own VM classes, so
this module imports nothing of PKB's.
"""

from perfkit_plugins.shell import scylla_phases_flags

# The package module (linux_packages/) that installs the loaders' tool.
LOADER_PACKAGE = 'scylla_cassandra_stress'
# On each VM of a run: the run's settings.
_ATTRIBUTE = 'scylla_phases_settings'


def AttachToVms(settings, vms):
  """Hands `settings` to the package installers of `vms` (ForPackage)."""
  for vm in vms:
    setattr(vm, _ATTRIBUTE, settings)


def ForPackage(vm):
  """The settings a package installer uses on `vm`.

  The run's, attached by the benchmark (AttachToVms); for a package that
  something else installs, the flags' (not validated: the installer reads
  only what it installs).
  """
  settings = getattr(vm, _ATTRIBUTE, None)
  if settings is None:
    settings = scylla_phases_flags.SettingsFromFlags(validate=False)
  return settings
