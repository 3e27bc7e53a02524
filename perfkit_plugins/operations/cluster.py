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

"""Bringing a database cluster up and down, for any Engine.

The first server is the seed: it is configured first. Where the engine's
new nodes need nothing from each other's joins (Apache Cassandra: tokens
chosen up front, no bootstrap), every node starts at once; else the seed
starts first and the others one at a time (each waits until the seed sees
it Up/Normal, so no two nodes bootstrap at once). Then every node must see
every node Up/Normal and serve CQL before the deadline. On failure each
node's logs and configs are pulled into a local directory before the error
propagates.
"""

import logging
import os
import time

from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.software import token_ring
from perfkit_plugins.operations import remote_errors


class BringUpError(Exception):
  """The cluster did not reach Up/Normal on every node in time."""


# In the run's output directory: each node's logs when bring-up failed.
BRINGUP_LOGS_DIR = 'bringup_logs'


def Configure(env):
  """Configures the seed, then the other servers (all at once).

  Args:
    env: run_env.RunEnv (engine, servers: the first is the seed,
      run_threaded).

  Returns:
    the seed addresses.
  """
  engine, servers = env.engine, env.servers
  seed_ips = [servers[0].internal_ip]
  slots = {
      vm.name: token_ring.RingSlot(i, len(servers))
      for i, vm in enumerate(servers)
  }
  engine.Configure(servers[0], seed_ips, slots[servers[0].name])
  if servers[1:]:
    env.run_threaded(
        lambda vm: engine.Configure(vm, seed_ips, slots[vm.name]),
        list(servers[1:]),
    )
  return seed_ips


class _BringUp:
  """Waits of one bring-up, all against its deadline.

  A started node whose database process ended fails the bring-up at once.
  """

  def __init__(self, engine, timeout_s, poll_s, sleep, clock):
    self.engine = engine
    self.deadline = clock() + timeout_s
    self.poll_s = poll_s
    self.sleep = sleep
    self.clock = clock
    self.started = []

  def CheckRunning(self, vms):
    """Raises BringUpError for a node whose database process ended."""
    for vm in vms:
      if not self.engine.Running(vm):
        raise BringUpError(
            f'{vm.name} ({vm.internal_ip}): the {self.engine.NAME} process'
            ' ended during bring-up; its logs are in the run directory'
        )

  def WaitUpNormal(self, observer):
    """Polls `observer` until it lists every started node as Up/Normal."""
    addresses = [vm.internal_ip for vm in self.started]
    while True:
      self.CheckRunning(self.started)
      try:
        missing = node_status.NotUpNormal(
            self.engine.NodeStates(observer), addresses
        )
      except Exception as e:  # pylint: disable=broad-except
        # Nodetool fails while the node is still starting; keep polling.
        missing = [f'(no answer: {e})']
      if not missing:
        return
      if self.clock() >= self.deadline:
        raise BringUpError(
            f'{observer.name} does not see {sorted(missing)} Up/Normal'
        )
      self.sleep(self.poll_s)

  def WaitServing(self, vm):
    """Polls a node until it serves CQL (it is Up/Normal before that)."""
    while True:
      try:
        if self.engine.ServesClients(vm):
          return
        why = 'not serving CQL yet'
      except Exception as e:  # pylint: disable=broad-except
        # Any failure of the probe is "not yet" until the deadline.
        why = f'no answer: {e}'
      self.CheckRunning([vm])
      if self.clock() >= self.deadline:
        raise BringUpError(f'{vm.name} does not serve CQL ({why})')
      self.sleep(self.poll_s)


def Start(env, poll_s=5, sleep=time.sleep, clock=time.monotonic):
  """Starts the nodes (at once, or the seed first, then one at a time).

  Then waits until every node sees every node Up/Normal and serves CQL.

  Args:
    env: run_env.RunEnv (engine, configured servers: the first is the seed,
      --scylla_bringup_timeout_s for the whole bring-up, the output
      directory that receives each node's logs on failure).
    poll_s: seconds between status polls.
    sleep: sleep function (tests pass a fake).
    clock: monotonic clock function (tests pass a fake).

  Raises:
    BringUpError: a node is not Up/Normal everywhere by the deadline (the
      logs are in BRINGUP_LOGS_DIR).
  """
  engine, servers = env.engine, env.servers
  bring_up = _BringUp(
      engine, env.settings.bringup_timeout_s, poll_s, sleep, clock
  )
  seed = servers[0]
  if engine.JOINS_AT_ONCE:
    batches = [list(servers)]
  else:
    batches = [[vm] for vm in servers]
  try:
    for batch in batches:
      env.run_threaded(engine.Start, batch)
      bring_up.started.extend(batch)
      bring_up.WaitUpNormal(seed)
    for vm in servers[1:]:
      bring_up.WaitUpNormal(vm)
    for vm in servers:
      bring_up.WaitServing(vm)
  except Exception:
    PullLogs(env, env.Dir(BRINGUP_LOGS_DIR))
    raise


def PullLogs(env, log_dir):
  """Copies every node's logs and configs into log_dir/<vm name>/.

  Never raises for a missing file: this runs while something already failed.

  Returns:
    list of local paths pulled.
  """
  engine = env.engine
  pulled = []
  for vm in env.servers:
    target = os.path.join(log_dir, vm.name)
    os.makedirs(target, exist_ok=True)
    engine.PrepareLogs(vm)
    for path in engine.LogPaths():
      try:
        vm.PullFile(target, path)
        pulled.append(os.path.join(target, os.path.basename(path)))
      except Exception as e:  # pylint: disable=broad-except
        # Best effort: a log that cannot be pulled must not stop the others.
        logging.warning('%s: could not pull %s: %s', vm.name, path, e)
  return pulled


def Stop(env, clean=True):
  """Stops every node and, when the engine can, removes its data.

  A node that cannot be stopped or cleaned (unreachable, say) does not keep
  the others from being stopped: each one's outcome is reported.

  Args:
    env: run_env.RunEnv (engine, servers, run_threaded).
    clean: also call engine.Clean(vm).

  Returns:
    {vm name: '' when done, else why not (one line)}.
  """
  engine = env.engine
  outcomes = {}

  def StopOne(vm):
    try:
      engine.Stop(vm)
      if clean:
        engine.Clean(vm)
      outcomes[vm.name] = ''
    except Exception as e:  # pylint: disable=broad-except
      # Reported, never raised here: the other nodes must still be stopped.
      why = remote_errors.Summary(e)
      outcomes[vm.name] = f'{type(e).__name__}: {why}'
      logging.warning('%s: could not stop and clean: %s', vm.name, why)

  env.run_threaded(StopOne, list(env.servers))
  return outcomes
