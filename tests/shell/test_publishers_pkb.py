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

"""Every published metadata value survives each PKB publisher's format.

The samples: every one the benchmark's Run published on recording fake VMs
(tests/testdata/results/), and samples whose metadata carries what real runs
can: nodes that differ, an error quoting a command line over several lines,
a warning with `|`, mount options. Each goes through the formatting code of
PKB's publishers and is read back: InfluxDB line protocol (every tag one
key=value; mount options excepted, which PKB's publisher has to escape),
collapsed labels (JSON lines, BigQuery), CSV and Elasticsearch keys.
"""

import csv
import io
import json
import pathlib
import re

import pytest

from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.results import publishable
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()

# pylint: disable=g-import-not-at-top,g-bad-import-order,wrong-import-position
from absl import flags
from perfkitbenchmarker import publisher
from perfkit_plugins.shell import samples as samples_lib

# pylint: enable=g-import-not-at-top,g-bad-import-order,wrong-import-position

RUN_RESULTS = (
    pathlib.Path(__file__).resolve().parents[1]
    / 'testdata'
    / 'results'
    / 'scylla_phases_fake_run.json'
)
# Influx line protocol: a separator is a comma, space or = not escaped.
_UNESCAPED = r'(?<!\\)'


def _Hostile():
  """Rows whose metadata holds what real runs can put there."""
  differing, _ = tuning.ClusterMetadata({
      'server-0': {'scylla_shards': 80},
      'server-1': {'scylla_shards': 88},
  })
  return [
      sample_rows.SampleRow(
          'phase_status',
          0,
          '',
          dict(
              differing,
              scylla_step='populate',
              scylla_status='failed',
              scylla_error=(
                  'loader 0: cassandra-stress write n=1000 -rate threads=8'
                  ' exited 1:\njava.lang.RuntimeException: |x|\r\n'
              ),
              scylla_data_mount_options='rw,noatime,sunit=1024,swidth=4096',
          ),
      )
  ]


@pytest.fixture(scope='module')
def published():
  """Every sample as PKB's collector hands it to a publisher (dicts)."""
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
  dicts = []
  for line in RUN_RESULTS.read_text().splitlines():
    s = json.loads(line)
    s['metadata'] = publisher.LabelsToDict(s.pop('labels'))
    dicts.append(s)
  for row in _Hostile():
    s = samples_lib.SampleOf(row).asdict()
    s.update(
        test='scylla_phases',
        official=False,
        owner='test',
        run_uri='r',
        sample_uri='u',
        timestamp=1.0,
    )
    dicts.append(s)
  return dicts


def _Ours(metadata):
  return {k: v for k, v in metadata.items() if k.startswith('scylla_')}


def test_influxdb_line_protocol_keeps_every_tag(published):
  influx = publisher.InfluxDBPublisher('localhost:8086', 'db')
  for s in published:
    line = influx._ConstructSample(dict(s))  # pylint: disable=protected-access
    parts = re.split(_UNESCAPED + ' ', line)
    assert len(parts) == 3, line
    tags = re.split(_UNESCAPED + ',', parts[0])[1:]
    broken = [
        tag.split('=', 1)[0]
        for tag in tags
        if len(re.split(_UNESCAPED + '=', tag)) != 2
    ]
    # PKB's publisher does not escape '=': only values that carry it by
    # nature may (the upstream series escapes them).
    assert set(broken) <= publishable.KEEP_EQUALS, (broken, line)
  assert any('scylla_data_mount_options' in s['metadata'] for s in published)


def test_collapsed_labels_read_back_as_published(published):
  for s in published:
    ours = {k: str(v) for k, v in _Ours(s['metadata']).items()}
    labels = publisher.GetLabelsFromDict(_Ours(s['metadata']))
    assert publisher.LabelsToDict(labels) == ours


def test_csv_reads_back_as_published(published):
  rows = [
      {k: str(v) for k, v in _Ours(s['metadata']).items()} for s in published
  ]
  for row in rows:
    out = io.StringIO()
    writer = csv.DictWriter(out, list(row))
    writer.writeheader()
    writer.writerow(row)
    assert list(csv.DictReader(io.StringIO(out.getvalue()))) == [row]


def test_elasticsearch_keeps_every_key(published):
  for s in published:
    assert not [k for k in _Ours(s['metadata']) if '.' in k]


def test_hostile_values_are_made_safe_and_every_sample_says_its_version(
    published,
):
  hostile = published[-1]['metadata']
  assert hostile['scylla_tuning_differences'] == (
      'scylla_shards server-0: 80; server-1: 88'
  )
  assert hostile['scylla_error'] == (
      'loader 0: cassandra-stress write n:1000 -rate threads:8 exited 1:'
      ' java.lang.RuntimeException: /x/ '
  )
  assert hostile['scylla_data_mount_options'] == (
      'rw,noatime,sunit=1024,swidth=4096'
  )
  assert all(samples_lib.VERSION_KEY in s['metadata'] for s in published)
