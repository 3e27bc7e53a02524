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

"""Metadata values every PKB publisher carries.

PKB sends a run's samples to InfluxDB in one request of line protocol, whose
tag values it escapes for commas and spaces only: a value with `=` or a
line break spoils the whole request, and PKB only logs the failure. The
collapsed labels of its JSON and BigQuery publishers (`|key:value|,...`)
are read back by splitting on `|`. So the values the plugin formats use
neither (`node: value; ...`, `gaussian(1..10,5,1)`), and free text (errors,
warnings) is made safe here before it is published: `=` becomes `:`, `|`
and a backslash become `/`, a line break a space. Mount options and JVM
options are name=value by nature and keep their `=`, as PKB's own kernel
command line does: PKB's InfluxDB publisher has to escape `=` for them
(upstream/, patch 0004).
"""

KEEP_EQUALS = frozenset(
    {'scylla_data_mount_options', 'scylla_loader_jvm_options'}
)
"""Keys whose values carry name=value by nature: published as they are."""

# A backslash would escape the separator after it in line protocol.
_REPLACEMENTS = (
    ('\r\n', ' '),
    ('\n', ' '),
    ('\r', ' '),
    ('|', '/'),
    ('\\', '/'),
)


def Value(key, value):
  """The value as published: strings made safe for every publisher."""
  if not isinstance(value, str):
    return value
  for unsafe, safe in _REPLACEMENTS:
    value = value.replace(unsafe, safe)
  return value if key in KEEP_EQUALS else value.replace('=', ':')


def Metadata(metadata):
  """A copy of `metadata` with every value as Value publishes it."""
  return {key: Value(key, value) for key, value in metadata.items()}
