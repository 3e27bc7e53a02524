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

"""`nodetool status` parsing on real outputs; the CQL probe run for real.

The probe's serving answer, from a real Cassandra node, is checked by the
live tests (tests/live/test_live_engine.py).
"""

import dataclasses
import socket
import subprocess
import threading

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


def _Probe(port):
  """What the CQL probe prints when run here against loopback:port."""
  return subprocess.run(
      ['sh', '-c', node_status.CqlProbeCommand('127.0.0.1', port, 5)],
      capture_output=True,
      text=True,
      check=True,
  ).stdout


def _Server(answer):
  """A TCP server on loopback that sends `answer` to what it receives.

  Returns:
    (its port, a thread that serves one connection and then ends).
  """
  listener = socket.create_server(('127.0.0.1', 0))

  def Serve():
    with listener:
      connection, _ = listener.accept()
      with connection:
        connection.recv(9)
        connection.sendall(answer)

  thread = threading.Thread(target=Serve, daemon=True)
  thread.start()
  return listener.getsockname()[1], thread


def test_cql_probe_sends_an_options_request():
  # Protocol v4, stream 0, opcode OPTIONS (0x05), no body.
  assert node_status.CQL_OPTIONS_FRAME == bytes.fromhex('040000000500000000')
  command = node_status.CqlProbeCommand('10.0.0.1', 9042)
  assert command.startswith('python3 -c ')
  assert command.endswith(' 10.0.0.1 9042 2 040000000500000000')


def test_cql_probe_on_a_closed_port():
  with socket.create_server(('127.0.0.1', 0)) as taken:
    port = taken.getsockname()[1]
  out = _Probe(port)
  assert node_status.ParseCqlProbe(out) == node_status.CqlAnswer(
      False, '[Errno 111] Connection refused'
  )


def test_cql_probe_on_a_server_that_is_not_cql():
  port, thread = _Server(b'HTTP/1.1 400 Bad Request\r\n\r\n')
  answer = node_status.ParseCqlProbe(_Probe(port))
  thread.join()
  assert answer == node_status.CqlAnswer(
      False, 'answered ' + b'HTTP/1.1 '.hex()
  )


def test_cql_probe_on_a_server_that_hangs_up():
  port, thread = _Server(b'')
  answer = node_status.ParseCqlProbe(_Probe(port))
  thread.join()
  assert answer == node_status.CqlAnswer(False, 'answered nothing')


def test_cql_probe_output_refuses_other_text():
  with pytest.raises(ValueError, match="not a CQL probe's output"):
    node_status.ParseCqlProbe('python3: command not found\n')


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
