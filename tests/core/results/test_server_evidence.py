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

"""Tests of a server's evidence over a step's window, and the step's limit.

The host file is a real capture of the server sampler (tests/testdata/
server-samples/README.md): 600 MiB written, then read, with direct I/O,
and one of two CPUs spinning for 3 seconds. The thread pools are real
`nodetool tpstats` of Apache Cassandra (tests/testdata/live/README.md).
"""

import pathlib

import pytest

from perfkit_plugins.core.results import sample_window
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.core.results import thread_pools

_DATA = pathlib.Path(__file__).parents[2] / 'testdata' / 'server-samples'
_HOST = (_DATA / 'host-dd-vda.txt').read_text()
_MIB = 1024 * 1024


def _Times():
  return sorted({
      float(line.split()[0])
      for line in _HOST.splitlines()
      if not line.startswith('#')
  })


def test_the_whole_capture_holds_the_disk_load_and_the_spinning_cpu():
  times = _Times()
  host = server_evidence.HostEvidenceOfWindow(_HOST, 0.0, times[0], times[-1])
  elapsed = times[-1] - times[0]
  assert host.disk_device == 'vda'
  assert (host.start_s, host.end_s) == (times[0], times[-1])
  # dd's 600 MiB each way, and a few KiB of the machine's own.
  assert 600 * _MIB <= host.disk_write_bytes_per_s * elapsed < 601 * _MIB
  assert 600 * _MIB <= host.disk_read_bytes_per_s * elapsed < 602 * _MIB
  assert 0 < host.disk_busy_pct <= 100
  assert host.net_rx_bytes_per_s == host.net_tx_bytes_per_s == 0
  assert 0 < host.cpu_busy_pct < 100 and host.cpu_iowait_pct > 0
  assert host.cpu_steal_pct >= 0
  assert not host.problems
  # A busy share per sample interval, on the controller's clock.
  assert [t for t, _ in host.cpu_series] == times[:-1]
  assert max(pct for _, pct in host.cpu_series) > 45


def test_a_window_between_samples_takes_those_inside_it():
  times = _Times()
  host = server_evidence.HostEvidenceOfWindow(
      _HOST, 0.0, times[1] - 0.5, times[3] + 0.5
  )
  assert (host.start_s, host.end_s) == (times[1], times[3])
  assert not host.problems


def test_the_clock_offset_moves_the_samples_to_the_controllers_clock():
  times = _Times()
  # The server's clock is 100 s ahead: the controller's window is 100 s
  # earlier.
  host = server_evidence.HostEvidenceOfWindow(
      _HOST, 100.0, times[0] - 100, times[-1] - 100
  )
  assert (host.start_s, host.end_s) == (times[0] - 100, times[-1] - 100)


def test_a_window_shorter_than_a_sample_interval_is_bracketed_and_said():
  times = _Times()
  middle = (times[2] + times[3]) / 2
  host = server_evidence.HostEvidenceOfWindow(
      _HOST, 0.0, middle - 0.1, middle + 0.1
  )
  assert (host.start_s, host.end_s) == (times[2], times[3])
  assert 'fewer than two host samples in the window' in host.problems[0]


def test_a_window_outside_the_samples_gives_no_figures():
  times = _Times()
  host = server_evidence.HostEvidenceOfWindow(
      _HOST, 0.0, times[-1] + 10, times[-1] + 20
  )
  assert host.cpu_busy_pct is None and host.disk_busy_pct is None
  assert host.problems == ('8 host sample(s), none bracketing the window',)
  assert len(host.cpu_series) == 7


def test_a_data_directory_not_on_a_disk_has_no_disk_figures():
  lines = [
      line
      for line in _HOST.splitlines()
      if line.split()[1:2] != ['disk'] and not line.startswith('#')
  ]
  text = '# device - overlay\n' + '\n'.join(lines)
  times = _Times()
  host = server_evidence.HostEvidenceOfWindow(text, 0.0, times[0], times[-1])
  assert host.disk_device == '' and host.disk_read_bytes_per_s is None
  assert host.cpu_busy_pct is not None
  assert 'no disk figures' in host.problems[0]


@pytest.mark.parametrize(
    'cut, message',
    [
        (lambda text: text + '\n1795892200.1 disk 254 0', 'cpu line'),
        (lambda text: text.replace(' cpu ', ' cpu x ', 1), 'not a CPU'),
        (lambda text: text[: text.rindex(' net ') + 7], 'is cut'),
    ],
)
def test_a_cut_or_foreign_line_is_an_error_naming_it(cut, message):
  with pytest.raises(server_evidence.HostLogError, match=message):
    server_evidence.HostEvidenceOfWindow(cut(_HOST), 0.0, 0.0, 1e10)


def _Server(index, busy=None, disk=None, shards=False, dropped=0, blocked=0):
  host = server_evidence.HostEvidence(cpu_busy_pct=busy, disk_busy_pct=disk)
  pools = thread_pools.PoolsOfStep(
      dropped,
      (('MUTATION_REQ', dropped),) if dropped else (),
      blocked,
      (('Native-Transport-Requests', blocked),) if blocked else (),
      0,
  )
  return server_evidence.ServerEvidence(
      index, f'server-{index}', host, shards, pools=pools
  )


@pytest.mark.parametrize(
    'loader_cpu, saturated, servers, fixed, kind, words',
    [
        (
            60,
            False,
            [_Server(0, 95), _Server(1, 50)],
            False,
            'servers',
            [
                'CPU 95% busy on server-0',
                'busiest loader CPU 60%',
            ],
        ),
        (
            99,
            True,
            [_Server(0, 30, 92)],
            False,
            'loaders+disk',
            ['data disk 92% busy on server-0'],
        ),
        (
            40,
            False,
            [_Server(0, 50, 20)],
            False,
            'none',
            ["the clients' concurrency or the network set the throughput"],
        ),
        (
            40,
            False,
            [_Server(0, 50, 20)],
            True,
            'none',
            ['the fixed rate set the throughput'],
        ),
        (40, False, [], False, 'unknown', ['busiest loader CPU 40%']),
        # A node that dropped or blocked could not keep up, whatever its CPU.
        (
            40,
            False,
            [_Server(0, 50, 20), _Server(1, 60, 20, dropped=7, blocked=2)],
            True,
            'servers',
            [
                (
                    'messages dropped 7 (MUTATION_REQ 7), tasks blocked 2'
                    ' (Native-Transport-Requests 2) on server-1'
                ),
                'CPU 60% busy on server-1',
            ],
        ),
        (
            99,
            True,
            [_Server(0, 95, 95, blocked=1)],
            False,
            'loaders+servers+disk',
            ['tasks blocked 1 (Native-Transport-Requests 1) on server-0'],
        ),
        # ScyllaDB's reactors poll: its host CPU says nothing of its load.
        (40, False, [_Server(0, 99, shards=True)], False, 'unknown', []),
    ],
)
def test_the_limit_of_a_step(
    loader_cpu, saturated, servers, fixed, kind, words
):
  limit = server_evidence.StepLimit(loader_cpu, saturated, servers, fixed)
  assert limit.kind == kind
  for word in words:
    assert word in limit.evidence


def test_sample_pairs_fill_or_bracket_a_window():
  times = [0.0, 5.0, 10.0, 15.0]
  assert sample_window.PairOfWindow(times, 4, 15) == sample_window.Pair(
      1, 3, False
  )
  assert sample_window.PairOfWindow(times, 6, 9) == sample_window.Pair(
      1, 2, True
  )
  assert sample_window.PairOfWindow(times, 4, 6) == sample_window.Pair(
      0, 2, True
  )
  assert sample_window.PairOfWindow(times, 16, 20) is None
  assert sample_window.PairOfWindow([3.0], 0, 10) is None


def _EvidenceOfNode(node):
  """The evidence of a Cassandra server (the host capture) whose node said
  that of itself."""
  output = server_evidence.ServerOutput(
      0, 'server-0', 0.0, _HOST, None, False, node
  )
  return server_evidence.EvidenceOfServer(output, 0, 1e10)


def test_a_cassandra_server_says_what_its_pools_dropped_during_the_step():
  live = pathlib.Path(__file__).parents[2] / 'testdata' / 'live'
  start, end = (
      thread_pools.ParseTpstats(
          (live / f'c4110-{when}-tpstats.txt').read_text()
      )
      for when in ('busy', 'loaded')
  )
  evidence = _EvidenceOfNode(
      server_evidence.NodeAnswers(pools_start=start, pools_end=end)
  )
  assert evidence.pools == thread_pools.OfStep(start, end)
  assert evidence.pools.dropped == 66774 + 34528 - 9170
  limit = server_evidence.StepLimit(10, False, [evidence], False)
  assert limit.kind == 'servers'
  assert 'messages dropped 92132 (READ_REQ 66774, MUTATION_REQ 25358)' in (
      limit.evidence
  )
  # Either reading missing: no figure.
  assert (
      _EvidenceOfNode(server_evidence.NodeAnswers(pools_end=end)).pools is None
  )
