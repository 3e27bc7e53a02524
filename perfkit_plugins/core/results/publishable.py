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
(upstream/02-influxdb-escaping/).

Every value is also bounded, whatever the loader count, so that PKB's
publishers and the tables a pipeline keeps take a run of 60 loaders or
more: a list of more than MAX_LIST_ITEMS values is published as its first
and last values and its count (List), and text longer than MAX_CHARS (an
error naming every loader) is cut after its first problems with how much
was left out (Value). The run directory's steps.json keeps every step's
whole error and lists.

A list keeps one form whatever its length: in brackets, `[250]` with one
loader as `[125,125]` with two. Joined by commas alone, one loader's
`250` would be a number to an index that detects types from the first
value it sees (Elasticsearch's numeric detection, a BigQuery schema
autodetected), and the next run's `125,125` would then be refused.
"""

KEEP_EQUALS = frozenset(
    {'scylla_data_mount_options', 'scylla_loader_jvm_options'}
)
"""Keys whose values carry name=value by nature: published as they are."""

MAX_LIST_ITEMS = 16
"""Lists of more values are summed up (List)."""
MAX_CHARS = 1000
"""Longer text is cut (Value)."""
# What separates the problems of an error (outcomes.PhaseOutputError).
_PROBLEM_SEPARATOR = '; '

# A backslash would escape the separator after it in line protocol.
_REPLACEMENTS = (
    ('\r\n', ' '),
    ('\n', ' '),
    ('\r', ' '),
    ('|', '/'),
    ('\\', '/'),
)


def List(values):
  """A list as one published value: its values in brackets, e.g. `[250]`.

  Brackets even around one value or none, so that the value is text of
  one form whatever the loader count (module docstring). A list of more
  than MAX_LIST_ITEMS values (one per loader, of a run of many) gives its
  first two values, its last and its count, e.g.
  `[1..100,101..200,...,2901..3000] (30 values)`.
  """
  texts = [str(v) for v in values]
  if len(texts) <= MAX_LIST_ITEMS:
    return '[' + ','.join(texts) + ']'
  return f'[{texts[0]},{texts[1]},...,{texts[-1]}] ({len(texts)} values)'


def _Cut(text):
  """Text of at most MAX_CHARS: its first whole problems, and what is left."""
  if len(text) <= MAX_CHARS:
    return text
  note = '... ({} more problems; {:,} characters in all: steps.json)'
  room = MAX_CHARS - len(note.format(10**6, 10**9))
  kept = text[:room]
  cut = kept.rfind(_PROBLEM_SEPARATOR)
  if cut > 0:
    kept = kept[:cut]
  left = text[len(kept) :].count(_PROBLEM_SEPARATOR) or 1
  return f'{kept} {note.format(left, len(text))}'


def Value(key, value):
  """The value as published: strings made safe and bounded (_Cut)."""
  if not isinstance(value, str):
    return value
  value = _Cut(value)
  for unsafe, safe in _REPLACEMENTS:
    value = value.replace(unsafe, safe)
  return value if key in KEEP_EQUALS else value.replace('=', ':')


def Metadata(metadata):
  """A copy of `metadata` with every value as Value publishes it."""
  return {key: Value(key, value) for key, value in metadata.items()}
