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
starts first and the others one at a time (each waits until it serves CQL
and the seed sees it Up/Normal, so no two nodes bootstrap at once). Then
every node must see every node Up/Normal before the deadline. On failure
each node's logs and configs are pulled into a local directory before the
error propagates.
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

  Every poll asks the nodes at once (the shell's run_threaded): on a large
  cluster a round costs one node's answer, not the sum. A started node
  whose database process ended fails the bring-up at once.
  """

  def __init__(self, env, poll_s, sleep, clock):
    self.engine = env.engine
    self.run_threaded = env.run_threaded
    self.deadline = clock() + env.settings.bringup_timeout_s
    self.poll_s = poll_s
    self.sleep = sleep
    self.clock = clock
    self.started = []

  def _CheckRunning(self):
    """Raises BringUpError for a started node whose process ended."""
    running = self.run_threaded(self.engine.Running, list(self.started))
    for vm, runs in zip(self.started, running):
      if not runs:
        raise BringUpError(
            f'{vm.name} ({vm.internal_ip}): the {self.engine.NAME} process'
            ' ended during bring-up; its logs are in the run directory'
        )

  def _Until(self, vms, not_yet):
    """Polls not_yet(vm) of every vm until each returns ''.

    Args:
      vms: the nodes to ask.
      not_yet: vm -> '' when that node is done, else why not (one line).

    Raises:
      BringUpError: a started node's process ended, or the deadline came
        first (the message names every node still waited for, and why).
    """
    pending = list(vms)
    while True:
      polled_at = self.clock()
      self._CheckRunning()
      whys = self.run_threaded(not_yet, pending)
      left = [(vm, why) for vm, why in zip(pending, whys) if why]
      if not left:
        return
      if self.clock() >= self.deadline:
        raise BringUpError('; '.join(f'{vm.name} {why}' for vm, why in left))
      pending = [vm for vm, _ in left]
      # After a round longer than poll_s (a nodetool), the nodes it did not
      # wait for are asked again at once.
      self.sleep(max(0.0, self.poll_s - (self.clock() - polled_at)))

  def _NotServing(self, vm):
    try:
      answer = self.engine.ServesClients(vm)
    except Exception as e:  # pylint: disable=broad-except
      # Any failure of the probe is "not yet" until the deadline.
      return f'does not serve CQL (no answer: {remote_errors.Summary(e)})'
    if answer.serving:
      return ''
    return (
        f'does not serve CQL on {vm.internal_ip}:{self.engine.native_port}'
        f' ({answer.detail})'
    )

  def _NotSeeing(self, observer):
    addresses = [vm.internal_ip for vm in self.started]
    try:
      missing = node_status.NotUpNormal(
          self.engine.NodeStates(observer), addresses
      )
    except Exception as e:  # pylint: disable=broad-except
      # Nodetool fails while the node is still starting; keep polling.
      missing = [f'(no answer: {remote_errors.Summary(e)})']
    return f'does not see {missing} Up/Normal' if missing else ''

  def _NotReady(self, vm):
    return self._NotServing(vm) or self._NotSeeing(vm)

  def WaitServing(self, vms):
    """Waits until every node of vms serves CQL (a probe, no JVM)."""
    self._Until(vms, self._NotServing)

  def WaitUpNormal(self, observers):
    """Waits until every observer lists every started node as Up/Normal."""
    self._Until(observers, self._NotSeeing)

  def WaitReady(self, vms):
    """Waits until every node of vms serves CQL and sees all Up/Normal.

    A node is asked for its view of the ring once it serves CQL, not
    before: the nodetool of a node whose database still starts would
    compete with it for CPU, and nodes that are ready at different times
    are asked at different times.
    """
    self._Until(vms, self._NotReady)


def Start(env, poll_s=1, sleep=time.sleep, clock=time.monotonic):
  """Starts the nodes (at once, or the seed first, then one at a time).

  After each start the new nodes must serve CQL (asked of each node without
  a JVM, so polling every second costs the starting databases nothing),
  then, before the next node starts, the seed must see them Up/Normal; at
  the end every node must serve CQL and see every node Up/Normal.

  Args:
    env: run_env.RunEnv (engine, configured servers: the first is the seed,
      --scylla_bringup_timeout_s for the whole bring-up, run_threaded, the
      output directory that receives each node's logs on failure).
    poll_s: seconds between polls.
    sleep: sleep function (tests pass a fake).
    clock: monotonic clock function (tests pass a fake).

  Raises:
    BringUpError: a node's process ended, or a node does not serve CQL or
      is not Up/Normal everywhere by the deadline (the logs are in
      BRINGUP_LOGS_DIR).
  """
  engine, servers = env.engine, env.servers
  bring_up = _BringUp(env, poll_s, sleep, clock)
  if engine.JOINS_AT_ONCE:
    batches = [list(servers)]
  else:
    batches = [[vm] for vm in servers]
  try:
    for batch in batches[:-1]:
      env.run_threaded(engine.Start, batch)
      bring_up.started.extend(batch)
      bring_up.WaitServing(batch)
      bring_up.WaitUpNormal(servers[:1])
    env.run_threaded(engine.Start, batches[-1])
    bring_up.started.extend(batches[-1])
    bring_up.WaitReady(servers)
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
