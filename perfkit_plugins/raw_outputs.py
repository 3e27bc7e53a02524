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
