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

"""Writes the controller's own records beside the raw outputs of a run.

Step records, clock offsets and compaction polls go into the PKB run
directory as JSON (dataclasses as objects), so every published figure can be
recomputed from files.
"""

import dataclasses
import json


def _AsJson(value):
  return dataclasses.asdict(value)


def WriteJson(path, value):
  """Writes value to path as one indented JSON document."""
  with open(path, 'w') as f:
    json.dump(value, f, indent=2, default=_AsJson)


def AppendJsonLine(path, value):
  """Appends value to path as one JSON line (a file kept as it grows)."""
  with open(path, 'a') as f:
    f.write(json.dumps(value, default=_AsJson) + '\n')
