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

"""Results files as releases before run identities and intervals wrote them.

The report must read files of every release. The committed results files
come from today's code; OlderRelease strips what an older release did not
publish, so the tests of older files read real samples too.
"""

import json
import re

# What a sample of an older release lacks: the run's identity, its
# repeats and every figure's interval.
_NEWER_KEYS = re.compile(
    r'^scylla_(cluster|run_start|repeat|repeats|repeats_aggregated|warmup'
    r'|ci_\w+)$'
)


def OlderRelease(text):
  """A results file (JSON lines) without the keys older releases lacked."""
  lines = []
  for line in text.splitlines():
    if not line.strip():
      continue
    sample = json.loads(line)
    if 'metadata' in sample:
      sample['metadata'] = {
          k: v
          for k, v in sample['metadata'].items()
          if not _NEWER_KEYS.match(k)
      }
    if 'labels' in sample:
      fields = sample['labels'][1:-1].split('|,|') if sample['labels'] else []
      sample['labels'] = ','.join(
          f'|{field}|'
          for field in fields
          if not _NEWER_KEYS.match(field.split(':', 1)[0])
      )
    lines.append(json.dumps(sample))
  return '\n'.join(lines) + '\n'


def Labels(text):
  """PKB's collapsed `|key:value|,|key:value|` labels as a dict."""
  return dict(
      part.split(':', 1) for part in text.strip('|').split('|,|') if part
  )


def StepSamples(run_dir):
  """The samples of a run directory's results file that name a step.

  Their `labels` as a dict (Labels).
  """
  path = run_dir / 'perfkitbenchmarker_results.json'
  samples = [json.loads(line) for line in path.read_text().splitlines()]
  for s in samples:
    s['labels'] = Labels(s['labels'])
  return [s for s in samples if 'scylla_step' in s['labels']]
