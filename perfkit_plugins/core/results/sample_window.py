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

"""Which two samples of a counter measure a step's window.

A step's figures are measured over its window (the loaders' common
window); counters sampled on the servers become rates between two samples.
The two that fit the window best are the first sample at or after its
start and the last at or before its end: the interval lies inside the
window, missing at most a sample interval at each end. When fewer than two
samples fall inside (a window shorter than the sample interval), the last
sample before the start and the first after the end bracket it instead: a
wider interval, which the caller says.
"""

import bisect
import dataclasses
from typing import Optional, Sequence


@dataclasses.dataclass(frozen=True)
class Pair:
  """The two samples a window's rates are taken between.

  Attributes:
    first: index of the earlier sample.
    last: index of the later one.
    wider: whether the interval is wider than the window (fewer than two
      samples inside it).
  """

  first: int
  last: int
  wider: bool


def PairOfWindow(
    times: Sequence[float], start_s: float, end_s: float
) -> Optional[Pair]:
  """The pair of samples that measures [start_s, end_s] (module docstring).

  Args:
    times: the samples' times, ascending.
    start_s: the window's start, on the same clock.
    end_s: its end.

  Returns:
    Pair, or None when no two samples bracket or fill the window.
  """
  inside_from = bisect.bisect_left(times, start_s)
  inside_to = bisect.bisect_right(times, end_s) - 1
  if inside_to - inside_from >= 1:
    return Pair(inside_from, inside_to, False)
  before = bisect.bisect_right(times, start_s) - 1
  after = bisect.bisect_left(times, end_s)
  if before < 0 or after >= len(times) or after <= before:
    return None
  return Pair(before, after, True)
