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

"""Tokens chosen up front: distinct, in range, every node an equal share."""

import pytest

from perfkit_plugins.core.software import token_ring

MIN, MAX = -(2**63), 2**63 - 1


def _Ring(count, per_node):
  """Every token of the cluster, ascending, with its node's index."""
  return sorted(
      (token, index)
      for index in range(count)
      for token in token_ring.EvenTokens(
          token_ring.RingSlot(index, count), per_node
      )
  )


@pytest.mark.parametrize('count', [1, 2, 3, 5, 12, 100])
@pytest.mark.parametrize('per_node', [1, 16, 256])
def test_each_node_owns_an_equal_share_of_the_ring(count, per_node):
  ring = _Ring(count, per_node)
  tokens = [t for t, _ in ring]
  assert len(set(tokens)) == count * per_node
  assert MIN <= tokens[0] and tokens[-1] <= MAX
  # A node owns the range that ends at each of its tokens (wrapping; a
  # lone token owns the whole ring).
  owned = [0] * count
  for (previous, _), (token, index) in zip(ring[-1:] + ring[:-1], ring):
    owned[index] += (token - previous - 1) % 2**64 + 1
  assert sum(owned) == 2**64
  assert max(owned) - min(owned) <= per_node


def test_the_nodes_take_turns_around_the_ring():
  # So that the next distinct nodes clockwise (a token's replicas with one
  # rack) are every other node in turn, not the same neighbour.
  assert [index for _, index in _Ring(3, 4)] == [0, 1, 2] * 4


def test_one_node_of_one_token_starts_at_the_lowest_token():
  assert token_ring.EvenTokens(token_ring.RingSlot(0, 1), 1) == [MIN]


@pytest.mark.parametrize('index,count', [(-1, 3), (3, 3), (0, 0)])
def test_a_slot_outside_the_cluster_is_refused(index, count):
  with pytest.raises(ValueError, match=f'ring slot {index} of {count}'):
    token_ring.RingSlot(index, count)
