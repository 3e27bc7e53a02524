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
