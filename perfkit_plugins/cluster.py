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

The first server is the seed: it is configured and started first, the others
join one at a time (each waits until the seed sees it Up/Normal, so no two
nodes bootstrap at once), then every node must see every node Up/Normal
before the deadline. On failure each node's logs and configs are pulled into
a local directory before the error propagates.
"""

import logging
import os
import time

from perfkit_plugins import remote_errors
from perfkit_plugins.core import node_status


class BringUpError(Exception):
  """The cluster did not reach Up/Normal on every node in time."""


def Configure(engine, servers, run_threaded):
  """Configures the seed, then the other servers.

  Args:
    engine: base.Engine.
    servers: server VMs; the first is the seed.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      contract, to configure the other servers at once.

  Returns:
    the seed addresses.
  """
  seed_ips = [servers[0].internal_ip]
  engine.Configure(servers[0], seed_ips)
  if servers[1:]:
    run_threaded(lambda vm: engine.Configure(vm, seed_ips), list(servers[1:]))
  return seed_ips


def _CheckRunning(engine, vms):
  """Raises BringUpError for a node whose database process ended."""
  for vm in vms:
    if not engine.Running(vm):
      raise BringUpError(
          f'{vm.name} ({vm.internal_ip}): the {engine.NAME} process ended'
          ' during bring-up; its logs are in the run directory'
      )


def _WaitUpNormal(
    engine, observer, addresses, deadline, poll_s, sleep, clock, started
):
  """Polls `observer` until it lists every address as Up/Normal.

  A started node whose database process ended fails the bring-up at once.
  """
  while True:
    _CheckRunning(engine, started)
    try:
      missing = node_status.NotUpNormal(engine.NodeStates(observer), addresses)
    except Exception as e:  # pylint: disable=broad-except
      # Nodetool fails while the node is still starting; keep polling.
      missing = [f'(no answer: {e})']
    if not missing:
      return
    if clock() >= deadline:
      raise BringUpError(
          f'{observer.name} does not see {sorted(missing)} Up/Normal'
      )
    sleep(poll_s)


def _WaitServing(engine, vm, deadline, poll_s, sleep, clock):
  """Polls a node until it serves CQL (it is Up/Normal before that)."""
  while True:
    try:
      if engine.ServesClients(vm):
        return
      why = 'not serving CQL yet'
    except Exception as e:  # pylint: disable=broad-except
      # Any failure of the probe is "not yet" until the deadline.
      why = f'no answer: {e}'
    _CheckRunning(engine, [vm])
    if clock() >= deadline:
      raise BringUpError(f'{vm.name} does not serve CQL ({why})')
    sleep(poll_s)


def Start(
    engine,
    servers,
    timeout_s,
    log_dir,
    poll_s=10,
    sleep=time.sleep,
    clock=time.monotonic,
):
  """Starts the seed, then the others; waits for Up/Normal and CQL.

  Args:
    engine: base.Engine.
    servers: configured server VMs; the first is the seed.
    timeout_s: deadline for the whole bring-up.
    log_dir: local directory receiving each node's logs on failure.
    poll_s: seconds between status polls.
    sleep: sleep function (tests pass a fake).
    clock: monotonic clock function (tests pass a fake).

  Raises:
    BringUpError: a node is not Up/Normal everywhere by the deadline (the
      logs are in log_dir).
  """
  deadline = clock() + timeout_s
  seed = servers[0]
  started = []
  try:
    for vm in servers:
      engine.Start(vm)
      started.append(vm)
      _WaitUpNormal(
          engine,
          seed,
          [s.internal_ip for s in started],
          deadline,
          poll_s,
          sleep,
          clock,
          started,
      )
    for vm in servers[1:]:
      _WaitUpNormal(
          engine,
          vm,
          [s.internal_ip for s in started],
          deadline,
          poll_s,
          sleep,
          clock,
          started,
      )
    for vm in servers:
      _WaitServing(engine, vm, deadline, poll_s, sleep, clock)
  except Exception:
    PullLogs(engine, servers, log_dir)
    raise


def PullLogs(engine, servers, log_dir):
  """Copies every node's logs and configs into log_dir/<vm name>/.

  Never raises for a missing file: this runs while something already failed.

  Returns:
    list of local paths pulled.
  """
  pulled = []
  for vm in servers:
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


def Stop(engine, servers, run_threaded, clean=True):
  """Stops every node and, when the engine can, removes its data.

  A node that cannot be stopped or cleaned (unreachable, say) does not keep
  the others from being stopped: each one's outcome is reported.

  Args:
    engine: base.Engine.
    servers: server VMs.
    run_threaded: PKB's background_tasks.RunThreaded, as for Configure.
    clean: also call engine.Clean(vm).

  Returns:
    {vm name: '' when done, else why not (one line)}.
  """
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

  run_threaded(StopOne, list(servers))
  return outcomes
