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

"""Every benchmark flag is grouped once and sets one Settings field."""

import dataclasses

from absl import flags

from perfkit_plugins import scylla_phases_flags
from perfkit_plugins.core import settings as settings_lib


def test_every_flag_defined_is_in_one_group():
  defined = {
      flag.name
      for flag in flags.FLAGS.flags_by_module_dict()[
          scylla_phases_flags.__name__
      ]
  }
  grouped = [holder.name for holder in scylla_phases_flags.ALL]
  assert len(grouped) == len(set(grouped))
  assert set(grouped) == defined


def test_every_settings_field_has_a_flag_or_comes_from_pkb():
  fields = {f.name for f in dataclasses.fields(settings_lib.Settings)}
  flagged = {scylla_phases_flags.FieldOf(h) for h in scylla_phases_flags.ALL}
  assert not flagged & set(scylla_phases_flags.FROM_PKB)
  assert flagged | set(scylla_phases_flags.FROM_PKB) == fields


def test_flag_defaults_are_the_settings_defaults():
  """Written once: only --scylla_loader_count's 0 (derive) differs."""
  assert scylla_phases_flags.SettingsFromFlags(
      validate=False
  ) == dataclasses.replace(settings_lib.Settings(), loader_count=0)
