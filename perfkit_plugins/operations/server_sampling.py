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

"""Samples what the servers do while a stress step runs, and brings it home.

Each server runs the sampler script (data/scylla_phases/server/
server_sample.sh, pushed when the server is prepared: PushScript) from
just before the step's loaders start until just after they end. It writes,
on the server:

* `<stem>.host`: the server's CPU (/proc/stat), the data directory's disk
  (/proc/diskstats) and its network (/proc/net/dev) every
  SAMPLE_INTERVAL_S, each after the server's clock;
* `<stem>.prom`: the database's own metrics page (ScyllaDB's Prometheus
  page, filtered to the families core/results/scylla_metrics.py reads)
  every SCRAPE_INTERVAL_S, for an engine that serves one.

As the step ends each node also says how many compactions run and wait,
and Apache Cassandra's its thread pools, read as the step starts too
(`nodetool tpstats`: what the step dropped and blocked).

Collecting is evidence, never a condition of the step: a server where the
sampler cannot start, stop or be pulled is recorded with the reason, and
the step runs and publishes as it would without it.
"""

import dataclasses
import functools
import logging
import posixpath
import shlex
from typing import Mapping, Optional

from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.core.results import server_evidence
from perfkit_plugins.operations import phase_runner
from perfkit_plugins.operations import data_scripts
from perfkit_plugins.operations import remote_errors
from perfkit_plugins.operations import run_files

# Seconds between samples of a server's CPU, disk and network (as the
# loaders' CPU).
SAMPLE_INTERVAL_S = phase_runner.CPU_SAMPLE_INTERVAL_S
# Seconds between reads of the database's metrics page: each is a few lines
# per shard, a few hundred KiB an hour on a large server.
SCRAPE_INTERVAL_S = 30
# The files of a server's sampling, by kind (the suffix of the stem).
HOST = 'host'
PROM = 'prom'
_SCRIPT = ('scylla_phases', 'server', 'server_sample.sh')
SCRIPT_SOURCE = data_scripts.Source(_SCRIPT)
# How long a start waits for the sampler to begin.
_START_WAIT_S = 15
# How long a stop waits for the sampler's last sample (it looks for the
# stop file every second and may be reading the metrics page).
_STOP_WAIT_S = 15
_COMMAND_TIMEOUT_S = 60


def ScriptPath(install_dir):
  """Where the sampler script is on a server (PKB's install directory)."""
  return data_scripts.RemotePath(install_dir, _SCRIPT)


def PushScript(vm, install_dir):
  """Puts the sampler script on a server (ScriptPath)."""
  data_scripts.Push(vm, install_dir, _SCRIPT)


def Stem(remote_dir, step_name, index):
  """The remote path, without suffix, of server `index`'s files of a step."""
  return posixpath.join(remote_dir, f'{step_name}.server{index}')


def StartCommand(script_path, stem, data_dir, metrics_url=None):
  """Starts the sampler in the background, in a session of its own.

  Args:
    script_path: the script on the server (ScriptPath).
    stem: Stem of the server's files.
    data_dir: the database's data directory (its disk is sampled).
    metrics_url: the database's metrics page, None when it serves none.

  Returns:
    the remote command; it returns once the sampler has begun its host
    file (so a stop that follows finds it), and fails when it has not
    within _START_WAIT_S.
  """
  words = [
      'setsid',
      'sh',
      script_path,
      stem,
      str(SAMPLE_INTERVAL_S),
      data_dir,
  ]
  if metrics_url:
    words += [
        metrics_url,
        str(max(1, SCRAPE_INTERVAL_S // SAMPLE_INTERVAL_S)),
        scylla_metrics.FilterPattern(),
    ]
  quoted = ' '.join(shlex.quote(word) for word in words)
  host = shlex.quote(f'{stem}.{HOST}')
  # A file of an earlier run on this stem would pass the wait below.
  old = ' '.join(
      shlex.quote(f'{stem}.{suffix}') for suffix in (HOST, PROM, 'stop', 'done')
  )
  return (
      f'rm -f {old}; {quoted} </dev/null >/dev/null 2>&1 &'
      f' i=0; while [ ! -s {host} ] &&'
      f' [ "$i" -lt {_START_WAIT_S * 5} ]; do sleep 0.2; i=$((i + 1)); done;'
      f' [ -s {host} ]'
  )


def StopCommand(stem):
  """Tells the sampler to stop and waits for its last sample.

  Fails when the sampler did not say it was done within _STOP_WAIT_S.
  """
  stop = shlex.quote(f'{stem}.stop')
  done = shlex.quote(f'{stem}.done')
  return (
      f'touch {stop} && i=0 && while [ ! -e {done} ] &&'
      f' [ "$i" -lt {_STOP_WAIT_S * 5} ]; do sleep 0.2; i=$((i + 1)); done'
      f' && [ -e {done} ]'
  )


def StopAllCommand(remote_dir):
  """Tells every sampler of remote_dir that has not finished to stop.

  For the end of a run whose controller stopped before its step did (an
  interrupted or killed pkb.py): a sampler runs until told. Prints the
  stems it told.
  """
  directory = shlex.quote(remote_dir)
  return (
      f'for f in {directory}/*.server*.{HOST}; do [ -f "$f" ] || continue;'
      ' s=${f%.'
      + HOST
      + '}; [ -e "$s.done" ] && continue;'
      ' touch "$s.stop" && echo "$s"; done; true'
  )


def StopAll(env):
  """Stops what is left of every server's samplers (StopAllCommand).

  Returns:
    {server name: what was done, or why it could not be reached}.
  """
  return phase_runner.StopOnEach(
      env.servers,
      StopAllCommand(env.remote_dir),
      'sampler(s)',
      env.run_threaded,
  )


@dataclasses.dataclass(frozen=True)
class ServerFiles:
  """What one server's sampling of a step left, on the controller.

  Attributes:
    index: the server's index in the run's servers.
    vm_name: its VM name.
    clock_offset_s: its clock minus the controller's.
    local_files: {HOST or PROM: local path} of the files pulled.
    missing_files: {HOST or PROM: why it is not here}.
    error: why the sampling did not start or stop, or None.
    node: what the node said of itself at the step's ends
      (server_evidence.NodeAnswers).
  """

  index: int
  vm_name: str
  clock_offset_s: float
  local_files: Mapping[str, str]
  missing_files: Mapping[str, str]
  error: Optional[str] = None
  node: server_evidence.NodeAnswers = server_evidence.NodeAnswers()


def _Call(function):
  return function()


def _Quietly(vm, command, what):
  """Runs a command; returns None, or why it failed (logged)."""
  try:
    vm.RemoteCommand(command, timeout=_COMMAND_TIMEOUT_S)
  except Exception as e:  # pylint: disable=broad-except
    # Evidence is never a condition of the step: the reason is kept.
    why = f'could not {what} its sampler: {remote_errors.Summary(e)}'
    logging.warning('%s: %s', vm.name, why)
    return why
  return None


def _Ask(question, vm, what):
  """(question(vm), '') or, when it fails, (None, why `what` is unknown)."""
  try:
    return question(vm), ''
  except Exception as e:  # pylint: disable=broad-except
    # Evidence is never a condition of the step: the reason is kept.
    return None, f'{what} unknown: {remote_errors.Summary(e)}'


class Sampling:
  """The samplers of one stress step, on every server."""

  def __init__(self, env, step_name):
    self._env = env
    self._stems = [
        Stem(env.remote_dir, step_name, index)
        for index in range(len(env.servers))
    ]
    self._errors = {}
    self._pools = {}

  def _Each(self, task):
    """Runs task(index, vm) on every server at once; returns the results."""
    servers = self._env.servers
    return self._env.run_threaded(
        _Call,
        [
            ((functools.partial(task, index, vm),), {})
            for index, vm in enumerate(servers)
        ],
    )

  def Start(self):
    """Reads every node's thread pools and starts every server's sampler;
    a server that fails is recorded.

    Nothing runs when --scylla_sample_servers is off.
    """
    env = self._env
    if not env.settings.sample_servers:
      return
    script = ScriptPath(env.install_dir)

    def StartOne(index, vm):
      pools = _Ask(env.engine.ThreadPools, vm, 'thread pools')
      command = StartCommand(
          script,
          self._stems[index],
          env.settings.data_dir,
          env.engine.MetricsUrl(vm),
      )
      return _Quietly(vm, command, 'start'), pools

    for index, (error, pools) in enumerate(self._Each(StartOne)):
      self._pools[index] = pools
      if error:
        self._errors[index] = error

  def StopAndPull(self, local_dir):
    """Stops every sampler, pulls its files into local_dir and asks each
    node for its compactions (running and pending as the step ends) and
    its thread pools.

    Returns:
      tuple of ServerFiles, in the servers' order; () when the servers
      were not sampled (--scylla_sample_servers).
    """
    env = self._env
    if not env.settings.sample_servers:
      return ()

    def StopOne(index, vm):
      error = self._errors.get(index)
      if error is None:
        error = _Quietly(vm, StopCommand(self._stems[index]), 'stop')
      paths = {kind: f'{self._stems[index]}.{kind}' for kind in (HOST, PROM)}
      if env.engine.MetricsUrl(vm) is None:
        del paths[PROM]
      pulled, missing = phase_runner.PullAll(vm, local_dir, paths)
      status, why = _Ask(env.engine.CompactionStatus, vm, 'compactions')
      pools_start, start_error = self._pools.get(index, (None, ''))
      pools_end, end_error = _Ask(env.engine.ThreadPools, vm, 'thread pools')
      return ServerFiles(
          index=index,
          vm_name=vm.name,
          clock_offset_s=env.Offset(vm),
          local_files=pulled,
          missing_files=missing,
          error=error,
          node=server_evidence.NodeAnswers(
              compactions=status,
              pools_start=pools_start,
              pools_end=pools_end,
              problems=tuple(w for w in (why, start_error or end_error) if w),
          ),
      )

    return tuple(self._Each(StopOne))


def Outputs(servers):
  """server_evidence.ServerOutput of each server's pulled files.

  A server whose metrics page was read (or should have been) runs an
  engine of shards (ScyllaDB's is the only such page read).

  Args:
    servers: ServerFiles of each server (Sampling.StopAndPull).

  Returns:
    tuple of server_evidence.ServerOutput.
  """
  outputs = []
  for files in servers:
    problems = [files.error] if files.error else []
    problems += [
        f'no {kind} file: {why}' for kind, why in files.missing_files.items()
    ]
    outputs.append(
        server_evidence.ServerOutput(
            index=files.index,
            name=files.vm_name,
            clock_offset_s=files.clock_offset_s,
            host=run_files.ReadText(files.local_files.get(HOST)),
            metrics=run_files.ReadText(files.local_files.get(PROM)),
            shards=PROM in files.local_files or PROM in files.missing_files,
            node=files.node,
            problems=tuple(problems),
        )
    )
  return tuple(outputs)
