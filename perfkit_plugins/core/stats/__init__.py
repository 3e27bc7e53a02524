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

"""Statistics that turn one-off figures into numbers one can defend.

A published op rate or latency percentile is one draw from a noisy process:
it moves within a run (compactions come and go), between runs on one
cluster, and between clusters (machines, disks and neighbours differ). The
modules here are pure functions over numbers the benchmark already keeps:

* `intervals`: confidence intervals of one figure, within a run (batch means
  for op rates, Woodruff's interval with a batch-means standard error for
  percentiles, none for a series too short) and across repeats or
  clusters (t intervals on the log scale), each saying what it covers;
* `comparison`: A/B verdicts (ratio B/A with its interval, Welch tests,
  Benjamini-Hochberg across all compared figures, equivalence tests) and
  the sentences that state them;
* `experiment`: planning (noise of each level, clusters needed for a given
  power, a counterbalanced run order, the cost).

The package does no I/O and reads no flags; importing it imports nothing
(each module imports numpy and scipy.stats, so import them where needed).
"""
