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

"""pkb.py interrupted during a step, through PKB's own RunThreaded.

PKB's RunThreaded turns SIGINT into a KeyboardInterrupt in each of its
threads and waits for them; a thread blocked on a remote command sees it only
when the command returns. The loaders' commands here block until their runs
are killed, as an ssh session blocks until cassandra-stress ends: the step
must still end at once, its runs stopped on every loader.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise.
"""

import os
import signal
import threading

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.testing import fake_vm
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.testing import planned_runs
from perfkit_plugins.testing import run_envs

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import background_tasks

WAIT_S = 30
STOP = r'^for f in .*\.pgid'


def test_sigint_stops_the_steps_runs_at_once(tmp_path):
  settings = settings_lib.Settings(
      phases=('latency',),
      num_keys=400000,
      loader_count=2,
      latency_rates=(4000,),
      latency_duration_s=3600,
  )
  (step,) = [
      s
      for s in planned_runs.PhaseSteps(
          settings, ['10.0.0.1'], 1 << 30, '/opt/cs/bin/cassandra-stress', '/r'
      )
      if s.name == 'latency_4000'
  ]
  vms = [fake_vm.FakeVm(f'loader{i}', f'10.0.1.{i}') for i in range(2)]
  started = threading.Semaphore(0)
  # Set when a run is stopped, which ends its command.
  kills = []
  for vm in vms:
    killed = threading.Event()
    kills.append(killed)

    def Run(command, killed=killed):
      started.release()
      # Blocks without running Python, as a thread waiting on ssh does.
      killed.wait(WAIT_S)
      return ''

    def Stop(command, killed=killed):
      killed.set()
      return '/tmp/run.pgid\n'

    vm.Reply(r'stress_run\.sh', Run)
    vm.Reply(STOP, Stop)

  def Interrupt():
    for _ in vms:
      assert started.acquire(timeout=WAIT_S)
    os.kill(os.getpid(), signal.SIGINT)

  threading.Thread(target=Interrupt, daemon=True).start()
  with flagsaver.flagsaver(), pytest.raises(
      phase_runner.StepInterrupted
  ) as raised:
    flags.FLAGS(['pkb.py'])
    phase_runner.RunStressStep(
        step,
        run_envs.Make(
            str(tmp_path),
            settings,
            loaders=vms,
            run_threaded=background_tasks.RunThreaded,
        ),
        str(tmp_path),
    )
  # Ended because they were stopped, not at the step's hour.
  assert all(killed.is_set() for killed in kills)
  for vm in vms:
    assert len(vm.CommandsMatching(STOP)) == 1
  record = raised.value.record
  assert [l.error for l in record.loaders] == [
      'pkb.py was interrupted (SIGINT) while it ran'
  ] * 2
