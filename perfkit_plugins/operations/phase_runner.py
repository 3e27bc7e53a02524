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

"""Runs a planned stress step on the loaders and brings its outputs home.

Every loader's cassandra-stress starts at once (one thread per loader, held
at a barrier until all are ready) through `vm.RobustRemoteCommand`, which
survives ssh drops over hours-long runs. It runs inside the loader's script
(data/scylla_phases/loader/stress_run.sh, pushed when cassandra-stress is
installed: PushScript), which also records, on the loader:

* `<stem>.times`: the loader's clock just before and just after
  cassandra-stress (`date +%s.%N`), and its exit code. Moved to the
  controller's clock with the loader's offset, these are the loader's start
  and end wall clock.
* `<stem>.cpu`: a /proc/stat sample every few seconds while it runs
  (core/results/loader_checks.py reads it), for the loader saturation guard.
* `<stem>.pgid`: the process group of every process of the run.
* `<stem>.jvm`: cassandra-stress's JVM logs every stop there, with the
  heap and collector the run chose for its loader (JvmOptions,
  core/stress/loader_jvm.py).

While the step runs, a step that is expected to last more than a minute (or
whose length is unknown) gets a progress line in the PKB log at most every
`progress_interval_s`: elapsed, expected remaining, current op rate (from
the last interval line of each loader's output, read with a cheap `tail`).

Whatever happens (a loader's command fails, a loader is unreachable), every
loader's stdout, text log, HDR log, times, CPU and JVM files are pulled into
the local directory; a file that cannot be pulled is recorded with the
reason, and a loader's error is recorded in its LoaderRecord: nothing here
raises because of one loader, so what the others produced is never lost.
When pkb.py is interrupted (SIGINT), the step's runs are killed on every
loader at once, what they wrote is pulled, and StepInterrupted carries the
record.
run_files.LoadStepResult then reads the pulled files into results.
"""

import concurrent.futures
import functools
import logging
import os
import posixpath
import re
import shlex
import threading

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import outcomes
from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.operations import data_scripts
from perfkit_plugins.operations import remote_errors
from perfkit_plugins.operations import run_files

# Seconds between /proc/stat samples on the loaders.
CPU_SAMPLE_INTERVAL_S = 5
# How long a loader thread waits for the others before starting anyway
# (e.g. when the thread runner allows fewer threads than loaders).
_BARRIER_TIMEOUT_S = 120
# Steps longer than this get progress lines.
_PROGRESS_MIN_STEP_S = 60
# Lines of a loader's output read for its current op rate: enough for the
# op types of a mixed run and the `total` line after them.
_PROGRESS_TAIL_LINES = 8
_PROGRESS_COMMAND_TIMEOUT_S = 60
# How often the thread that watches a step looks for an interrupt (_Watch).
_WATCH_SLICE_S = 1
# Every process of a run carries its process group in this variable (set
# by the loader's script).
GROUP_VARIABLE = 'SCYLLA_PHASES_GROUP'
# The loader's script, under this package's data directory and under the
# install directory on the loaders.
_SCRIPT = ('scylla_phases', 'loader', 'stress_run.sh')
SCRIPT_SOURCE = data_scripts.Source(_SCRIPT)
# Longest a schema step may take (a JVM start and two schema changes).
_SCHEMA_TIMEOUT_S = 600


def ScriptPath(install_dir):
  """Where the loader's script is on a loader (PKB's install directory)."""
  return data_scripts.RemotePath(install_dir, _SCRIPT)


def PushScript(vm, install_dir):
  """Puts the loader's script on a loader (ScriptPath)."""
  data_scripts.Push(vm, install_dir, _SCRIPT)


def LoaderCommand(
    run, script_path, cpu_interval_s=CPU_SAMPLE_INTERVAL_S, jvm_options=''
):
  """The remote command that runs one loader's cassandra-stress.

  The loader's script in a session and process group of its own (setsid),
  with the run's stem, CPU sample interval and start delay, then the run's
  command line as its arguments (already quoted word by word): one level
  of quoting, read by /bin/sh as PKB's RobustRemoteCommand runs it.

  Args:
    run: plan.LoaderRun.
    script_path: the script on the loader (ScriptPath).
    cpu_interval_s: seconds between CPU samples.
    jvm_options: the tool JVM's options (JvmOptions), passed as JVM_OPTS,
      which cassandra-stress's launcher puts before its own; '' for none.

  Returns:
    The command line.
  """
  words = (script_path, run.stem, str(cpu_interval_s), str(run.start_delay_s))
  if jvm_options:
    words += (f'JVM_OPTS={jvm_options}',)
  return (
      f'exec setsid sh {" ".join(shlex.quote(w) for w in words)} {run.command}'
  )


def JvmOptions(env, run):
  """The JVM options of a run: its loader's LoaderJvm, logging to its .jvm.

  '' when the run has read no loader JVMs (env.loader_jvms is empty).
  """
  if not env.loader_jvms:
    return ''
  return loader_jvm.Options(
      env.loader_jvms[run.loader_index], run.paths[loader_files.JVM]
  )


def StopGroupsCommand(remote_dir):
  """Kills what is left of every run recorded in remote_dir (GroupFile).

  A group is killed only while one of its processes carries the run's
  GROUP_VARIABLE (a recycled group id is left alone). Prints the group
  files of the groups it killed.
  """
  directory = shlex.quote(remote_dir)
  return (
      f'for f in {directory}/*.pgid; do [ -f "$f" ] || continue;'
      ' g=$(cat "$f"); for p in $(pgrep -g "$g"); do'
      f' if grep -qz "^{GROUP_VARIABLE}=$g\\$" "/proc/$p/environ"'
      ' 2>/dev/null; then kill -KILL "-$g" && echo "$f"; break; fi;'
      ' done; done; true'
  )


def StopLoaders(loader_vms, remote_dir, run_threaded):
  """Kills what is left of every run on every loader (StopGroupsCommand).

  Runs cassandra-stress left behind by a step stopped at its bound, by an
  interrupted pkb.py or by a loader that was cut off end here.

  Args:
    loader_vms: the loader VMs.
    remote_dir: the directory whose runs' process groups are killed.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      contract for ((args), {kwargs}) params.

  Returns:
    {vm name: what was done: the number of groups killed, or why the loader
    could not be reached (one line)}.
  """

  return StopOnEach(
      loader_vms, StopGroupsCommand(remote_dir), 'run(s)', run_threaded
  )


def StopOnEach(vms, command, what, run_threaded):
  """Runs a stop command on every VM at once; says what each stopped.

  Each word the command prints is one thing it stopped.

  Args:
    vms: the VMs.
    command: the remote command.
    what: what it stops, e.g. 'run(s)'.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      contract for ((args), {kwargs}) params.

  Returns:
    {vm name: '<count> <what> stopped', or 'unreachable: <why>'}.
  """

  def StopOne(vm):
    try:
      out, _ = vm.RemoteCommand(command, timeout=_PROGRESS_COMMAND_TIMEOUT_S)
    except Exception as e:  # pylint: disable=broad-except
      # Reported, never raised: the other VMs must still be stopped.
      why = remote_errors.Summary(e)
      logging.warning('%s: could not stop its %s: %s', vm.name, what, why)
      return f'unreachable: {why}'
    return f'{len(out.split())} {what} stopped'

  vms = list(vms)
  done = run_threaded(
      _Call, [((functools.partial(StopOne, vm),), {}) for vm in vms]
  )
  return {vm.name: outcome for vm, outcome in zip(vms, done)}


def SchemaCommand(run):
  """Runs a schema step's command, its output into the run's stdout file."""
  out = shlex.quote(run.stdout_path)
  return (
      f'mkdir -p {shlex.quote(posixpath.dirname(run.stdout_path))}'
      f' && {{ {run.command}; }} > {out} 2>&1'
  )


def CreateSchema(step, env, local_dir):
  """Creates the keyspace and table from the schema step's one loader.

  Its output is pulled into local_dir whatever happens.

  Returns:
    The local path of its output.

  Raises:
    outcomes.PhaseOutputError: cassandra-stress failed (the message
      names the loader and ends with the output's last lines).
  """
  (run,) = step.runs
  vm = env.loaders[run.loader_index]
  error = None
  try:
    vm.RemoteCommand(SchemaCommand(run), timeout=_SCHEMA_TIMEOUT_S)
  except Exception as e:  # pylint: disable=broad-except
    # Recorded in the step's record; what the command printed is pulled.
    error = f'{type(e).__name__}: {remote_errors.Summary(e)}'
  local = os.path.join(local_dir, posixpath.basename(run.stdout_path))
  pulled, missing = PullAll(
      vm, local_dir, {loader_files.STDOUT: run.stdout_path}
  )
  if error:
    tail = ''
    if pulled:
      tail = ' | '.join(run_files.ReadText(local).strip().splitlines()[-5:])
    raise outcomes.PhaseOutputError(
        step.name,
        [
            f'loader {run.loader_index} ({vm.name}) could not create the'
            f' schema: {error}'
            + (f'; output ends with: {tail}' if tail else f'; {missing}')
        ],
    )
  return local


def ProgressCommand(run):
  """Prints the interval header and the last lines of a run's stdout."""
  out = shlex.quote(run.stdout_path)
  return (
      f"{{ grep -m 1 -e '^type ' {out};"
      f' tail -n {_PROGRESS_TAIL_LINES} {out}; }} 2>/dev/null'
  )


def CommandBound(step, grace_s):
  """Seconds after which a timed step's command is stopped; None: never.

  The step's length plus grace_s (--scylla_step_grace_s) for start-up and a
  schedule that fell behind; counted steps (populate) have no expected
  length.
  """
  if step.expected_duration_s is None:
    return None
  return step.expected_duration_s + grace_s


_SSH_FAILURE = re.compile(r'return code \(255\)')


def LoaderError(error, elapsed_s, bound_s, grace_s):
  """One line saying why a loader's remote command failed.

  Args:
    error: the exception RobustRemoteCommand raised.
    elapsed_s: seconds from launch to the failure.
    bound_s: CommandBound of the step, or None.
    grace_s: the grace of that bound.
  """
  first = remote_errors.Summary(error)
  if bound_s is not None and elapsed_s >= bound_s:
    return (
        f'still running after {elapsed_s:.0f} s, stopped at its bound (the'
        f" step's length plus --scylla_step_grace_s={grace_s})"
    )
  if _SSH_FAILURE.search(str(error)):
    return f'unreachable over ssh after {elapsed_s:.0f} s ({first})'
  return f'command failed: {first}'


def _RunInOwnThreads(target, params):
  """RunThreaded's contract in threads of this module's own.

  For the watcher of a step: stopping the runs of an interrupted step (PKB's
  RunThreaded is the one being interrupted then, and passes the interrupt
  to the threads it knows) and reading every loader's progress.
  """
  with concurrent.futures.ThreadPoolExecutor(max(1, len(params))) as pool:
    futures = [pool.submit(target, *args, **kwargs) for args, kwargs in params]
    return [future.result() for future in futures]


def _Call(function):
  return function()


class _Countdown:
  """Sets `done` when `count` tasks have finished."""

  def __init__(self, count):
    self._count = count
    self._lock = threading.Lock()
    self.done = threading.Event()
    if not count:
      self.done.set()

  def Finished(self):
    with self._lock:
      self._count -= 1
      if self._count <= 0:
        self.done.set()


class ProgressWatch:
  """Each run's operation count while a step runs, and when it last moved.

  A run whose count has not moved for `stall_s` (--scylla_step_grace_s),
  or that printed none that long after its start, has stalled: a counted
  step (populate) has no other bound, and a hung cassandra-stress would
  hold pkb.py forever. Runs that have ended are not watched.
  """

  def __init__(self, runs, started_at, stall_s):
    self.stall_s = stall_s
    self.count = {run.loader_index: None for run in runs}
    # A reader that starts late is not stalled before it starts.
    self.moved_at = {
        run.loader_index: started_at + run.start_delay_s for run in runs
    }
    self.ended = set()

  def Observe(self, index, count, now):
    """Records a run's operation count (None: not known) read at `now`."""
    if count is not None and count != self.count[index]:
      self.count[index] = count
      self.moved_at[index] = now

  def Stalled(self, now):
    """{loader index: why} of the runs that stalled by `now`."""
    stalled = {}
    for index, moved_at in self.moved_at.items():
      still_s = now - moved_at
      if index in self.ended or still_s < self.stall_s:
        continue
      count = self.count[index]
      stalled[index] = (
          f'printed no progress in {still_s:.0f} s'
          if count is None
          else (
              f'made no progress for {still_s:.0f} s (its operation count'
              f' stayed at {count})'
          )
      ) + ', stopped (--scylla_step_grace_s)'
    return stalled


class _StepRun:
  """One stress step while it runs: its loaders' threads and the watcher.

  Attributes:
    step: the plan.Step.
    env: the run_env.RunEnv.
    started_at: when the step started, controller clock.
    cpu_interval_s: seconds between CPU samples on the loaders.
    progress_interval_s: seconds between progress lines.
    done: a _Countdown of the step's runs.
  """

  def __init__(self, step, env, cpu_interval_s, progress_interval_s):
    self.step = step
    self.env = env
    self.started_at = env.clock()
    self.cpu_interval_s = cpu_interval_s
    self.progress_interval_s = progress_interval_s
    self.done = _Countdown(len(step.runs))
    self.progress = ProgressWatch(
        step.runs, self.started_at, env.settings.step_grace_s
    )
    # {loader index: why its run was stopped} when the watcher stopped them.
    self.stopped = {}
    self._barrier = threading.Barrier(len(step.runs))
    # Set by the watcher once it runs: no run starts unwatched (Watch).
    self._watching = threading.Event()
    self._script = ScriptPath(env.install_dir)

  def Vm(self, run):
    return self.env.loaders[run.loader_index]

  def RunLoader(self, run):
    """Runs one loader's command; returns (launched_at, returned_at, error)."""
    step, clock, vm = self.step, self.env.clock, self.Vm(run)
    try:
      self._AwaitWatcher(run)
      try:
        self._barrier.wait(_BARRIER_TIMEOUT_S)
      except threading.BrokenBarrierError:
        logging.warning(
            '%s: loader %d starts without waiting for the others',
            step.name,
            run.loader_index,
        )
      launched_at = clock()
      error = None
      grace_s = self.env.settings.step_grace_s
      bound = CommandBound(step, grace_s)
      try:
        vm.RobustRemoteCommand(
            LoaderCommand(
                run,
                self._script,
                self.cpu_interval_s,
                JvmOptions(self.env, run),
            ),
            timeout=bound,
        )
      except Exception as e:  # pylint: disable=broad-except
        # Recorded, never raised: the other loaders' outputs must be kept.
        error = self.stopped.get(run.loader_index) or LoaderError(
            e, clock() - launched_at, bound, grace_s
        )
        logging.warning(
            '%s: loader %d (%s) failed: %s',
            step.name,
            run.loader_index,
            vm.name,
            error,
        )
      return launched_at, clock(), error
    finally:
      self.progress.ended.add(run.loader_index)
      self.done.Finished()

  def _AwaitWatcher(self, run):
    """Waits until the watcher runs, in slices that let SIGINT in.

    An interrupt that reaches the watcher's thread before its task starts
    ends that thread without watching; a loader that waits here sees the
    interrupt at its next slice and launches nothing.
    """
    waited_s = 0.0
    while not self._watching.wait(_WATCH_SLICE_S):
      waited_s += _WATCH_SLICE_S
      if waited_s >= _BARRIER_TIMEOUT_S:
        logging.warning(
            "%s: loader %d starts without the step's watcher",
            self.step.name,
            run.loader_index,
        )
        return

  def Watch(self):
    """Logs progress until every loader has finished; stops them on SIGINT.

    PKB's RunThreaded passes pkb.py's SIGINT to its threads as a
    KeyboardInterrupt that a thread sees only when it runs Python, and
    waits for them all: the loaders' threads wait on ssh until
    cassandra-stress ends (SIGINT from a terminal also ends ssh; from `kill
    -INT` it does not). This thread wakes every _WATCH_SLICE_S, so on an
    interrupt it kills the step's runs at once and their threads return.
    """
    step = self.step
    try:
      self._watching.set()
      log_progress = (
          step.expected_duration_s is None
          or step.expected_duration_s > _PROGRESS_MIN_STEP_S
      )
      # Often enough to see a stall well within --scylla_step_grace_s.
      poll_s = min(
          self.progress_interval_s, max(1.0, self.progress.stall_s / 4)
      )
      slice_s = min(_WATCH_SLICE_S, poll_s)
      polled_s = logged_s = 0.0
      while not self.done.done.wait(slice_s):
        polled_s += slice_s
        logged_s += slice_s
        if polled_s < poll_s:
          continue
        polled_s = 0.0
        rates = self.Poll()
        if self.done.done.is_set() or self.stopped:
          continue
        if log_progress and logged_s >= self.progress_interval_s:
          logged_s = 0.0
          elapsed_s = self.env.clock() - self.started_at
          logging.info(ProgressMessage(step, elapsed_s, rates))
    except KeyboardInterrupt:
      logging.warning('%s: interrupted, stopping its loaders', step.name)
      self.StopRuns()
      raise

  def Poll(self):
    """Reads every run's progress; stops the step when a run stalled.

    Every loader is read at once: one after the other, 60 loaders would
    take 60 round trips per poll, and a stall would be seen that much later.

    Returns:
      per run, (op/s, total ops) of its last interval, or None.
    """
    rates = _RunInOwnThreads(
        _CurrentRate, [((self.Vm(run), run), {}) for run in self.step.runs]
    )
    now = self.env.clock()
    for run, rate in zip(self.step.runs, rates):
      self.progress.Observe(run.loader_index, rate and rate[1], now)
    stalled = self.progress.Stalled(now)
    if stalled:
      first = min(stalled)
      for run in self.step.runs:
        self.stopped[run.loader_index] = stalled.get(
            run.loader_index,
            f'stopped with the step: loader {first} {stalled[first]}',
        )
      logging.warning(
          '%s: stopping its loaders: %s',
          self.step.name,
          '; '.join(f'loader {i} {why}' for i, why in sorted(stalled.items())),
      )
      self.StopRuns()
    return rates

  def StopRuns(self):
    """Kills the step's runs on its loaders now (StopLoaders)."""
    by_directory = {}
    for run in self.step.runs:
      vm = self.Vm(run)
      directory = posixpath.dirname(run.stem)
      by_directory.setdefault(directory, {})[vm.name] = vm
    for directory, loaders in sorted(by_directory.items()):
      StopLoaders(list(loaders.values()), directory, _RunInOwnThreads)


def _CurrentRate(vm, run):
  """(op/s, total ops) of a run's last `total` interval line, or None."""
  try:
    text, _ = vm.RemoteCommand(
        ProgressCommand(run),
        ignore_failure=True,
        timeout=_PROGRESS_COMMAND_TIMEOUT_S,
    )
    if not text.endswith('\n'):
      # The last line may still be being written.
      text = text[: text.rfind('\n') + 1]
    lines = [
        line
        for line in stress_output.ParseIntervalLines(text)
        if line.op_type == 'total'
    ]
  except Exception:  # pylint: disable=broad-except
    # Progress is best effort: a slow or unreachable loader only leaves a
    # gap in the progress line.
    return None
  return (lines[-1].op_rate, lines[-1].total_ops) if lines else None


def _Remaining(step, elapsed_s, rates):
  """Expected seconds left, or None when unknown."""
  if step.expected_duration_s is not None:
    return max(0.0, step.expected_duration_s - elapsed_s)
  planned = sum(run.operations for run in step.runs)
  if not planned or None in rates:
    return None
  done = sum(total_ops for _, total_ops in rates)
  if not done:
    return None
  return elapsed_s * max(0, planned - done) / done


def ProgressMessage(step, elapsed_s, rates):
  """One progress line for the PKB log.

  Args:
    step: plan.Step.
    elapsed_s: seconds since the loaders started.
    rates: per run, (op/s, total ops) of its last interval, or None.

  Returns:
    e.g. 'populate: 600 s elapsed, about 1200 s left, 123456 op/s from 4/4
    loaders'.
  """
  remaining = _Remaining(step, elapsed_s, rates)
  left = (
      'time left unknown'
      if remaining is None
      else f'about {remaining:.0f} s left'
  )
  known = [rate for rate in rates if rate is not None]
  return (
      f'{step.name}: {elapsed_s:.0f} s elapsed, {left},'
      f' {sum(rate for rate, _ in known):.0f} op/s from'
      f' {len(known)}/{len(rates)} loaders'
  )


def PullAll(vm, local_dir, paths):
  """Pulls {kind: remote path}; returns ({kind: local}, {kind: reason})."""
  pulled, missing = {}, {}
  for kind, remote in paths.items():
    try:
      vm.PullFile(local_dir, remote)
    except Exception as e:  # pylint: disable=broad-except
      # A file that cannot be pulled is named; the others are still pulled.
      missing[kind] = f'{type(e).__name__}: {remote_errors.Summary(e)}'
      continue
    local = os.path.join(local_dir, posixpath.basename(remote))
    if os.path.exists(local):
      pulled[kind] = local
    else:
      missing[kind] = f'pulled, but {local} does not exist'
  return pulled, missing


def _LoaderTimes(pulled):
  """core LoaderTimes from a pulled times file, or (None, reason)."""
  path = pulled.get(loader_files.TIMES)
  if path is None:
    return None, 'no times file'
  with open(path, errors='replace') as f:
    text = f.read()
  try:
    return loader_files.ParseTimes(text), None
  except ValueError as e:
    return None, str(e)


def _Record(run, vm, offset_s, launched, pulled, missing):
  launched_at, returned_at, error = launched
  times, reason = _LoaderTimes(pulled)
  start_s = end_s = exit_code = free_kib = None
  if times is not None:
    start_s = times.start_s - offset_s
    end_s = None if times.end_s is None else times.end_s - offset_s
    exit_code = times.exit_code
    free_kib = times.free_kib
  if reason and error is None and loader_files.TIMES not in missing:
    error = f'unreadable times file: {reason}'
  return loader_files.LoaderRecord(
      loader_index=run.loader_index,
      vm_name=vm.name,
      clock_offset_s=offset_s,
      remote_files=run.paths,
      local_files=pulled,
      missing_files=missing,
      start_s=start_s,
      end_s=end_s,
      exit_code=exit_code,
      error=error,
      launched_at=launched_at,
      returned_at=returned_at,
      output_free_kib=free_kib,
  )


def RunStressStep(
    step,
    env,
    local_dir,
    progress_interval_s=60,
    cpu_interval_s=CPU_SAMPLE_INTERVAL_S,
):
  """Runs a stress step on its loaders and pulls every output.

  Args:
    step: plan.Step of kind 'stress'; run i runs on
      env.loaders[run.loader_index].
    env: run_env.RunEnv (loaders, their clock offsets, RunThreaded, the
      install directory, --scylla_step_grace_s, the controller's clock).
    local_dir: existing local directory (the PKB run directory) that
      receives every loader's files.
    progress_interval_s: seconds between progress lines.
    cpu_interval_s: seconds between CPU samples on the loaders.

  Returns:
    loader_files.StepRecord. Never raises because of a loader: failures
    are in the record.

  Raises:
    ValueError: the step is not a stress step or names a missing loader.
    StepInterrupted: pkb.py was interrupted; the record is kept in it.
  """
  if step.kind != 'stress':
    raise ValueError(f'{step.name} is a {step.kind} step, not a stress step')
  for run in step.runs:
    if not 0 <= run.loader_index < len(env.loaders):
      raise ValueError(
          f'{step.name}: loader {run.loader_index} of {len(env.loaders)}'
      )
  running = _StepRun(step, env, cpu_interval_s, progress_interval_s)
  logging.info(
      'Starting %s on %d loaders (%s)',
      step.name,
      len(step.runs),
      (
          'counted: it ends when every key is written'
          if step.expected_duration_s is None
          else f'expected {step.expected_duration_s} s'
      ),
  )
  tasks = [functools.partial(running.RunLoader, run) for run in step.runs]
  tasks.append(running.Watch)
  interrupted = False
  try:
    # Every loader and the watcher run at once, also past PKB's default
    # cap of 200 threads: the loaders wait for each other at the barrier.
    launched = env.run_threaded(
        _Call,
        [((task,), {}) for task in tasks],
        max_concurrent_threads=len(tasks),
    )
  except KeyboardInterrupt:
    # pkb.py got SIGINT: the watcher stopped the loaders; what they wrote
    # so far is still pulled and recorded.
    interrupted = True
    launched = [(
        running.started_at,
        env.clock(),
        'pkb.py was interrupted (SIGINT) while it ran',
    )] * len(step.runs)
  ended_at = env.clock()
  pulls = env.run_threaded(
      _Call,
      [
          (
              (functools.partial(PullAll, running.Vm(r), local_dir, r.paths),),
              {},
          )
          for r in step.runs
      ],
  )
  loaders = []
  for run, run_launch, (pulled, missing) in zip(step.runs, launched, pulls):
    vm = running.Vm(run)
    loaders.append(
        _Record(run, vm, env.Offset(vm), run_launch, pulled, missing)
    )
    if missing:
      logging.warning(
          '%s: loader %d (%s): could not pull %s',
          step.name,
          run.loader_index,
          vm.name,
          '; '.join(f'{kind}: {why}' for kind, why in missing.items()),
      )
  logging.info(
      '%s finished in %.0f s', step.name, ended_at - running.started_at
  )
  record = loader_files.StepRecord(
      step_name=step.name,
      started_at=running.started_at,
      ended_at=ended_at,
      loaders=tuple(loaders),
  )
  if interrupted:
    raise StepInterrupted(record)
  return record


class StepInterrupted(KeyboardInterrupt):
  """pkb.py was interrupted during a stress step; its record is kept.

  Attributes:
    record: the step's loader_files.StepRecord (files pulled after the
      interrupt).
  """

  def __init__(self, record):
    super().__init__(f'{record.step_name} interrupted')
    self.record = record
