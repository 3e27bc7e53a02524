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

"""Tests of `nodetool tpstats` parsing and a step's dropped and blocked work.

Every output is a real one of Apache Cassandra 5.0.9 or 4.1.10
(tests/testdata/live/README.md): idle, busy, and overloaded with 2-ms
timeouts until the node dropped messages.
"""

import pathlib

import pytest

from perfkit_plugins.core.results import thread_pools

_LIVE = pathlib.Path(__file__).parents[2] / 'testdata' / 'live'


def _Read(name):
  return thread_pools.ParseTpstats((_LIVE / f'{name}-tpstats.txt').read_text())


@pytest.mark.parametrize(
    'version, pools, dropped',
    [
        ('c509', 20, {'MUTATION_REQ': 34317, 'READ_REQ': 69377}),
        ('c4110', 18, {'MUTATION_REQ': 34528, 'READ_REQ': 66774}),
    ],
)
def test_every_pool_and_message_type_of_a_real_output(version, pools, dropped):
  loaded = _Read(f'{version}-loaded')
  assert len(loaded.pools) == pools
  names = [p.name for p in loaded.pools]
  assert names[:2] == ['MutationStage', 'ReadStage']
  assert names[-1] == 'Native-Transport-Requests'
  # Every verb has a row; only the overloaded ones dropped.
  assert len(loaded.dropped) == 87
  assert {k: v for k, v in loaded.dropped.items() if v} == dropped
  assert not any(_Read(f'{version}-idle').dropped.values())


def test_a_busy_node_shows_its_active_tasks():
  busy = {p.name: p for p in _Read('c509-busy').pools}
  assert busy['Native-Transport-Requests'] == thread_pools.Pool(
      'Native-Transport-Requests', 8, 0, 11876, 0, 0
  )
  assert busy['MutationStage'].completed == 14799


@pytest.mark.parametrize('version', ['c509', 'c4110'])
def test_a_step_counts_what_it_dropped_from_its_start_to_its_end(version):
  start, end = _Read(f'{version}-busy'), _Read(f'{version}-loaded')
  step = thread_pools.OfStep(start, end)
  moved = {
      name: count - start.dropped[name]
      for name, count in end.dropped.items()
      if count > start.dropped[name]
  }
  assert dict(step.dropped_by_type) == moved
  assert step.dropped == sum(moved.values()) > 0
  # Most first.
  assert step.dropped_by_type[0][0] == 'READ_REQ'
  assert (step.blocked, step.blocked_by_pool, step.pending_end) == (0, (), 0)
  assert not step.problems


def test_pools_made_during_a_step_count_from_zero():
  idle, loaded = _Read('c509-idle'), _Read('c509-loaded')
  new = {p.name for p in loaded.pools} - {p.name for p in idle.pools}
  assert new == {'MutationStage', 'ReadStage'}
  assert thread_pools.OfStep(idle, loaded).dropped == 34317 + 69377


def _Pools(blocked, pending=0, dropped=0):
  return thread_pools.ThreadPools(
      (
          thread_pools.Pool('MutationStage', 0, pending, 10, 0, 0),
          thread_pools.Pool('Native-Transport-Requests', 2, 0, 9, 1, blocked),
      ),
      {'MUTATION_REQ': dropped},
  )


def test_blocked_tasks_and_the_backlog_left():
  step = thread_pools.OfStep(_Pools(3), _Pools(15, pending=4))
  assert step.blocked == 12
  assert step.blocked_by_pool == (('Native-Transport-Requests', 12),)
  assert step.pending_end == 4
  assert thread_pools.Counts(step.blocked_by_pool) == (
      'Native-Transport-Requests 12'
  )


def test_a_restarted_node_counts_from_zero_and_says_so():
  step = thread_pools.OfStep(_Pools(40, dropped=900), _Pools(5, dropped=7))
  assert (step.blocked, step.dropped) == (5, 7)
  assert len(step.problems) == 2
  assert 'MUTATION_REQ went back from 900 to 7' in step.problems[0]


def test_an_output_without_a_pool_table_is_an_error():
  text = (_LIVE / 'c509-busy-compactionstats.txt').read_text()
  with pytest.raises(thread_pools.TpstatsError, match='no thread pool table'):
    thread_pools.ParseTpstats(text)


def test_a_cut_row_is_an_error_naming_its_line():
  lines = (_LIVE / 'c4110-loaded-tpstats.txt').read_text().splitlines()
  lines[2] = lines[2].rsplit(None, 2)[0]
  with pytest.raises(thread_pools.TpstatsError, match='line 3 is cut'):
    thread_pools.ParseTpstats('\n'.join(lines))
  lines = (_LIVE / 'c4110-loaded-tpstats.txt').read_text().splitlines()
  lines[-1] = lines[-1].replace(' 0 ', ' x ', 1)
  with pytest.raises(thread_pools.TpstatsError, match=f'line {len(lines)}'):
    thread_pools.ParseTpstats('\n'.join(lines))
