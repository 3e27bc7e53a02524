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

"""`nodetool status` parsing on real outputs."""

import dataclasses

import pytest

from perfkit_plugins.core.quiesce import node_status


def test_one_node(lab):
  states = node_status.ParseNodetoolStatus(lab('nt-idle-status.txt'))
  assert states == [
      node_status.NodeState(
          address='127.0.0.1',
          status='U',
          state='N',
          datacenter='datacenter1',
          rack='rack1',
          host_id='dc21cebe-cca2-42eb-9cb4-4198a1bceb17',
          load='58.28 MiB',
      )
  ]


def test_three_nodes(lab):
  states = node_status.ParseNodetoolStatus(lab('trio-nt-status.txt'))
  assert [s.address for s in states] == ['127.0.0.3', '127.0.0.2', '127.0.0.1']
  assert [s.load for s in states] == ['45.19 MiB', '45.2 MiB', '45.2 MiB']
  assert all(s.up_normal for s in states)


def test_all_up_normal(lab):
  states = node_status.ParseNodetoolStatus(lab('trio-nt-status.txt'))
  expected = ['127.0.0.1', '127.0.0.2', '127.0.0.3']
  assert node_status.NotUpNormal(states, expected) == []


def test_missing_node_is_not_up_normal(lab):
  states = node_status.ParseNodetoolStatus(lab('nt-idle-status.txt'))
  expected = ['127.0.0.2', '127.0.0.1', '127.0.0.3']
  assert node_status.NotUpNormal(states, expected)
  assert node_status.NotUpNormal(states, expected) == ['127.0.0.2', '127.0.0.3']


def test_rejects_other_output(lab):
  with pytest.raises(ValueError, match='no node'):
    node_status.ParseNodetoolStatus(lab('nt-idle-compactionstats.txt'))


@pytest.mark.parametrize('status, state', [('D', 'N'), ('U', 'J'), ('U', 'L')])
def test_down_or_moving_node_is_not_up_normal(lab, status, state):
  states = node_status.ParseNodetoolStatus(lab('trio-nt-status.txt'))
  states[1] = dataclasses.replace(states[1], status=status, state=state)
  expected = ['127.0.0.1', '127.0.0.2', '127.0.0.3']
  assert node_status.NotUpNormal(states, expected) == ['127.0.0.2']


@pytest.mark.parametrize(
    'name, host_id, load',
    [
        (
            'c509-status.txt',
            '906ab8b4-0a8a-405f-8cfb-2c5603988821',
            '114.4 KiB',
        ),
        (
            'c4110-status.txt',
            'd53ca766-0e8e-4a35-8865-c126be24faf6',
            '104.06 KiB',
        ),
    ],
)
def test_single_token_layout(testdata, name, host_id, load):
  # num_tokens 1: no Tokens count, a Token column before Rack.
  states = node_status.ParseNodetoolStatus(testdata('live', name))
  assert states == [
      node_status.NodeState(
          '127.0.0.1', 'U', 'N', 'datacenter1', 'rack1', host_id, load
      )
  ]


def test_statusbinary_on_real_outputs(testdata):
  assert node_status.ParseStatusBinary(
      testdata('live', 'c509-statusbinary.txt')
  )
  assert not node_status.ParseStatusBinary(
      testdata('live', 'c509-statusbinary-disabled.txt')
  )
  with pytest.raises(ValueError):
    node_status.ParseStatusBinary('nodetool: Failed to connect\n')


@pytest.mark.parametrize('code', ['XN', 'XUN', '?N', '?J', 'DL', 'UM'])
def test_every_status_code_is_kept(lab, code):
  # ScyllaDB's native nodetool prints X (excluded), XU (excluded but live)
  # and ? (neither live nor down) besides U and D (tools/scylla-nodetool.cc).
  text = lab('trio-nt-status.txt').replace(
      'UN  127.0.0.2', f'{code}  127.0.0.2'
  )
  states = node_status.ParseNodetoolStatus(text)
  assert [s.address for s in states] == ['127.0.0.3', '127.0.0.2', '127.0.0.1']
  assert states[1].status + states[1].state == code
  expected = ['127.0.0.1', '127.0.0.2', '127.0.0.3']
  assert node_status.NotUpNormal(states, expected) == ['127.0.0.2']


def test_unknown_load_tokens_and_host_id(lab):
  # What ScyllaDB prints for a node without load, token count (a tablets
  # keyspace without a table) or host id, and an empty rack.
  lines = lab('trio-nt-status.txt').splitlines()
  assert lines[6].startswith('UN  127.0.0.2 ')
  lines[6] = 'UJ  127.0.0.2  ?          ?       ?                 ?'
  text = '\n'.join(lines)
  states = node_status.ParseNodetoolStatus(text)
  assert states[1] == node_status.NodeState(
      '127.0.0.2', 'U', 'J', 'datacenter1', '', '?', '?'
  )


@pytest.mark.parametrize(
    'line, reason',
    [
        ('UN  127.0.0.2  45.2 MiB', 'no tokens'),  # cut
        ('UN  127.0.0.2  45.2       16      100.0%  eaad9ada  rack1', 'load'),
        ('UN  127.0.0.2  45.2 MiB   many    100.0%  eaad9ada  rack1', 'tokens'),
        ('UN  127.0.0.2  45.2 MiB   16      all     eaad9ada  rack1', 'owns'),
        ('Un  127.0.0.2  45.2 MiB   16      100.0%  eaad9ada  rack1', 'code'),
    ],
)
def test_unreadable_node_line_is_refused(lab, line, reason):
  """A line that does not fit the header is an error, not a lost node."""
  lines = lab('trio-nt-status.txt').splitlines()
  lines[6] = line
  with pytest.raises(ValueError, match=f'unreadable .*{reason}'):
    node_status.ParseNodetoolStatus('\n'.join(lines))


def test_unknown_header_is_refused(lab):
  text = lab('trio-nt-status.txt').replace('Rack', 'Rack  Zone')
  with pytest.raises(ValueError, match="unknown column 'Zone'"):
    node_status.ParseNodetoolStatus(text)
