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

"""Each node's tokens of a new Apache Cassandra cluster, chosen up front.

A new cluster whose nodes all know their tokens before they start can start
them at once: no node bootstraps (there is no data to stream), none asks
the ring for tokens, so none can pick tokens another node picks at the same
moment (token allocation reads the ring as it is when the node joins). The
tokens split Murmur3's range into count * per_node equal ranges, dealt out
in turn (node i owns ranges i, i + count, ...), so every node owns the same
share, and with a single rack every replica set is as even as the ring.
"""

import dataclasses

# Murmur3Partitioner's tokens: [-2**63, 2**63 - 1].
_MIN_TOKEN = -(2**63)
_RANGE = 2**64


@dataclasses.dataclass(frozen=True)
class RingSlot:
  """A server's place in the cluster: index of count (the seed is 0)."""

  index: int
  count: int

  def __post_init__(self):
    if not 0 <= self.index < self.count:
      raise ValueError(f'ring slot {self.index} of {self.count}')


def EvenTokens(slot, per_node):
  """The node's tokens: per_node of count * per_node evenly spaced ones.

  Args:
    slot: RingSlot of the node.
    per_node: tokens per node (cassandra.yaml's num_tokens).

  Returns:
    list of int tokens, ascending.
  """
  total = slot.count * per_node
  return [
      _MIN_TOKEN + (k * _RANGE) // total
      for k in range(slot.index, total, slot.count)
  ]
