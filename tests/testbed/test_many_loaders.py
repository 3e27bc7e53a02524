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

"""Ten real loaders against one server, through stock pkb.py.

Studies drive 30 to 60 loaders; the other tests of the test bed two. Ten
loaders of the bed (testbed.LOADERS and EXTRA_LOADERS) and one Apache
Cassandra server (RF 1) run testbed.MANY_LOADERS_FLAGS in one pkb.py
process, every stage: a populate of 2,000 keys a loader, then one
fixed-rate step at 50 op/s a loader. Per step, on the controller's clock
(each loader's clock offset applied): every loader's command launched at
once; the loaders started and ended within a bound of each other
(the published loader_start_skew and loader_end_skew, which must be what
their pulled HDR logs give: testbed.StressTimings) and all ran together;
the time between the steps is bounded; Cleanup leaves nothing running.

The goal, every loader's first interval within 1 s of the first one's, is
not met here (docs/scale.md). The loaders' commands launch within 10 ms of each other, their
scripts start within 0.6 s and their JVMs within 0.4 s, but then ten JVMs
load their classes, connect and make their schema on the host's two
cores, all busy: the first intervals come 21 to 27 s after the launch,
spread over 2 to 7 s (with 2 loaders: 6 to 8 s after, one interval
apart). cassandra-stress's intervals start on whole seconds of the
loader's clock (StressMetrics.reportingLoop), so a skew read from them is
a whole number of seconds, give or take the clock offsets.
"""

import pytest

from perfkit_plugins.testing import results_files
from perfkit_plugins.testing import testbed as testbed_lib

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

SERVER = testbed_lib.SERVERS[0]
LOADERS = testbed_lib.LOADERS + testbed_lib.EXTRA_LOADERS
STEPS = ('populate', 'latency_500')
# The barrier releases every loader's command at once.
LAUNCH_SKEW_BOUND_S = 0.1
# On two busy cores (the module doc): measured 2 to 7 s (7 beside another
# CPU-heavy job); 1 s is the goal (docs/scale.md). Below the fixed-rate step's length, so
# its loaders share a window.
START_SKEW_BOUND_S = 10
# The populate's loaders write their keys at the server's pace, each from
# its own start: their ends spread over 3.6 to 12.3 s. Each fixed-rate
# loader runs its step's length from its own start.
END_SKEW_BOUND_S = 20
# Measured 18 to 20 s: the populate's files pulled, its results, and the
# fixed-rate step's loaders' start (above).
BETWEEN_STEPS_BOUND_S = 60
RUN_BOUND_S = 420


@pytest.fixture(scope='module', name='timings')
def _Timings(bed, tmp_path_factory):
  """The StressTimings of one run on the ten loaders, and its skews.

  The skews are the published samples: {(step, metric): value}.
  """
  config = bed.Config(
      tmp_path_factory.mktemp('many') / 'many.yaml',
      (SERVER,),
      LOADERS,
      testbed_lib.MANY_LOADERS_FLAGS,
  )
  result = bed.Pkb(config, 'many1', timeout=RUN_BOUND_S)
  assert result.returncode == 0, result.stderr[-5000:]
  for name in (SERVER, *LOADERS):
    assert bed.testbed.machines[name].Processes() == {}, name
  run_dir = bed.RunDir('many1')
  timings = testbed_lib.StressTimings(run_dir)
  for before, timing in zip((None, *timings), timings):
    after = (
        f', {timing.After(before):.1f} s after the step before'
        if before
        else ''
    )
    print(timing.Figures() + after)
  skews = {
      (s['labels']['scylla_step'], s['metric']): s['value']
      for s in results_files.StepSamples(run_dir)
      if s['metric'] in ('loader_start_skew', 'loader_end_skew')
  }
  return timings, skews


def test_every_loader_runs_each_step_beside_the_others(timings):
  timings, skews = timings
  assert [t.step for t in timings] == list(STEPS)
  for timing in timings:
    assert len(timing.firsts) == len(LOADERS), timing
    launches = timing.launches
    assert max(launches) - min(launches) < LAUNCH_SKEW_BOUND_S, timing
    start_skew = skews[timing.step, 'loader_start_skew']
    end_skew = skews[timing.step, 'loader_end_skew']
    assert start_skew == pytest.approx(timing.start_skew, abs=0.001), timing
    assert end_skew == pytest.approx(timing.end_skew, abs=0.001), timing
    assert start_skew <= START_SKEW_BOUND_S, timing
    assert end_skew <= END_SKEW_BOUND_S, timing
    assert timing.shared > 0, timing
  populate, fixed_rate = timings
  # Each loader ran the step's length, all of them together for what is
  # left once the last one started.
  assert fixed_rate.shared >= (
      testbed_lib.MANY_LOADERS_STEP_S - fixed_rate.start_skew - 1
  )
  assert 0 < fixed_rate.After(populate) < BETWEEN_STEPS_BOUND_S
