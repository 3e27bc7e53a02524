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
from absl.testing import flagsaver
import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.shell import scylla_phases_flags


def test_every_flag_defined_is_in_one_group():
  defined = {
      flag.name
      for flag in flags.FLAGS.flags_by_module_dict()[
          scylla_phases_flags.__name__
      ]
  }
  grouped = [holder.name for holder in scylla_phases_flags.ALL]
  retired = {holder.name for holder in scylla_phases_flags.RETIRED}
  assert len(grouped) == len(set(grouped))
  assert set(grouped) == defined - retired


def test_every_settings_field_has_a_flag_or_comes_from_pkb():
  fields = {f.name for f in dataclasses.fields(settings_lib.Settings)}
  flagged = {
      scylla_phases_flags.FieldOf(h)
      for h in scylla_phases_flags.ALL
      if h is not scylla_phases_flags.DURATIONS
  } | set(settings_lib.DURATIONS.values())
  assert not flagged & set(scylla_phases_flags.FROM_PKB)
  assert flagged | set(scylla_phases_flags.FROM_PKB) == fields


def test_flag_defaults_are_the_settings_defaults():
  """Written once: only --scylla_loader_count's 0 (derive) differs."""
  assert scylla_phases_flags.SettingsFromFlags(
      validate=False
  ) == dataclasses.replace(settings_lib.Settings(), loader_count=0)


def test_durations_set_their_fields_all_first():
  with flagsaver.flagsaver(
      (scylla_phases_flags.DURATIONS, ['read_small=20', 'all=60', 'warmup=5'])
  ):
    settings = scylla_phases_flags.SettingsFromFlags(validate=False)
  assert (
      settings.read_duration_s,
      settings.read_small_duration_s,
      settings.read_warmup_s,
      settings.latency_duration_s,
      settings.rdw_read_delay_s,
  ) == (60, 20, 5, 60, 0)


@pytest.mark.parametrize(
    'entries, message',
    [
        (['read'], "'read' is not name=seconds"),
        (['warp=5'], "unknown step 'warp'; allowed: all, warmup, read,"),
        (['read=5', 'read=6'], 'read is given twice'),
        (['read=0'], 'read: 0 must be at least 1'),
    ],
)
def test_bad_durations_name_the_flag(entries, message):
  with flagsaver.flagsaver((scylla_phases_flags.DURATIONS, entries)):
    with pytest.raises(settings_lib.SettingsError) as raised:
      scylla_phases_flags.SettingsFromFlags(loader_count=2)
  assert str(raised.value).startswith('--scylla_durations: ')
  assert message in str(raised.value)


def test_retired_flags_name_their_replacement():
  for holder in scylla_phases_flags.RETIRED:
    with pytest.raises(flags.IllegalFlagValueError) as raised:
      flags.FLAGS[holder.name].parse('60')
    assert '--scylla_durations=' in str(raised.value)
