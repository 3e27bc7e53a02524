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

"""Checks the shape of a user's scylla_phases config before it is read.

PKB hands a benchmark's GetConfig the user's config section as parsed YAML,
before its own decoding checks anything: a count given as text, a machine
type given as a number or `vm_groups` given as a list would otherwise crash
the benchmark's sizing with a raw TypeError or KeyError. Every message here
names the config key (its path, e.g. `vm_groups.servers.vm_count`).
"""

GROUPS = ('servers', 'loaders')
# Clouds the benchmark knows machine types, local SSDs and prices of; other
# groups of PKB's config (static VMs aside) are refused.
CLOUDS = ('GCP', 'AWS')


class ConfigError(ValueError):
  """A config key has a shape the benchmark cannot use."""

  def __init__(self, key, message):
    self.key = key
    super().__init__(f'config key {key}: {message}')


def _Mapping(key, value):
  if not isinstance(value, dict):
    raise ConfigError(
        key, f'{value!r} must be a mapping (key: value lines), not a list'
    )


def CloudProblem(cloud):
  """Why the benchmark cannot run on `cloud`, or None when it can."""
  if cloud in CLOUDS:
    return None
  return (
      f'{cloud!r} is not a cloud scylla_phases supports (supported:'
      f' {", ".join(CLOUDS)}; for other machines list them as static_vms)'
  )


def _CheckCount(key, value, group):
  if value is None:
    return
  if isinstance(value, bool) or not isinstance(value, int) or value < 1:
    sized = (
        ' (null: sized from the machine types)' if group == 'loaders' else ''
    )
    raise ConfigError(
        key,
        f'{value!r} is not a VM count: give a whole number of at least 1'
        f'{sized}',
    )


def _CheckGroup(name, group):
  """Checks the shape of one vm_groups entry, naming the key at fault.

  Counts, static VMs, cloud, the servers' disk_spec (the benchmark
  decides it) and machine types are checked before PKB's GetConfig
  sizes anything from them.
  """
  prefix = f'vm_groups.{name}'
  _Mapping(prefix, group)
  _CheckCount(f'{prefix}.vm_count', group.get('vm_count'), name)
  if group.get('static_vms') is not None:
    if not isinstance(group['static_vms'], list):
      raise ConfigError(
          f'{prefix}.static_vms', 'must be a list of static VM entries'
      )
    return
  if 'cloud' in group and CloudProblem(group['cloud']):
    raise ConfigError(f'{prefix}.cloud', CloudProblem(group['cloud']))
  if name == 'servers' and group.get('disk_spec') is not None:
    raise ConfigError(
        f'{prefix}.disk_spec',
        (
            "the benchmark decides the servers' data volume: remove it and use"
            ' --scylla_data_disk (local, network) and --scylla_network_disk_gb'
        ),
    )
  if 'vm_spec' not in group:
    return
  _Mapping(f'{prefix}.vm_spec', group['vm_spec'])
  for cloud, spec in group['vm_spec'].items():
    _Mapping(f'{prefix}.vm_spec.{cloud}', spec)
    machine_type = spec.get('machine_type')
    if machine_type is not None and not isinstance(machine_type, str):
      raise ConfigError(
          f'{prefix}.vm_spec.{cloud}.machine_type',
          f'{machine_type!r} is not a machine type name (quote it)',
      )


def Check(user_config):
  """Checks the user's config section of scylla_phases.

  Args:
    user_config: what PKB passes to GetConfig (parsed YAML), or None.

  Raises:
    ConfigError: naming the key at fault.
  """
  if not user_config:
    return
  _Mapping('scylla_phases', user_config)
  groups = user_config.get('vm_groups')
  if groups is None:
    return
  _Mapping('vm_groups', groups)
  for name, group in groups.items():
    if name not in GROUPS:
      raise ConfigError(
          f'vm_groups.{name}',
          f'scylla_phases uses only the groups {" and ".join(GROUPS)}; this'
          ' one would be provisioned and never used',
      )
    _CheckGroup(name, group)
