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

"""`scylla-phases-local`: every phase of the benchmark on this one host.

    sudo scylla-phases-local                  # 3 servers, 2 loaders
    sudo scylla-phases-local run --servers 1 --loaders 1
    sudo scylla-phases-local run -- --scylla_durations=all=60
    sudo scylla-phases-local run --keep       # leave the cluster up
    sudo scylla-phases-local down             # remove a kept cluster
    python -m perfkit_plugins.tools.local_run

Makes a cluster of machines on this host (network and mount namespaces
with their own sshd: perfkit_plugins/local/host_machines.py), serves
Apache Cassandra (built from Maven Central's jars) and ScyllaDB's
cassandra-stress from a mirror on the host with their checksums, writes a
benchmark config of the machines as PKB static VMs with a plan sized for
the host (PlanFlags: every phase in about 10 minutes on 2 cores), runs
stock pkb.py through every stage, prints the benchmark's progress, then
the report's tables (scylla-phases-report) and writes its plots, and
removes everything it made: processes by PID, namespaces, links, bridge
and its work directory. The results (PKB's run directory, the report and
its plots) stay in --results_dir. pkb.py flags after `--` are passed on
(they win over the plan's).

The engine is Apache Cassandra: ScyllaDB needs its packages and real
disks. The machines share the host's CPUs and clock and have no RAID:
the figures show what a run publishes, not what a database can do.

It runs as root on a host other users may share, and trusts only what
they cannot change (trusted_paths; the README's "What the local run
trusts"): its work directory is made root's alone (0700, umask 077) and
an existing one must be so; a state file is read only if root wrote it,
and a teardown removes only what the state records the run making; the
PKB checkout (at the tested commit), the stress tarball, the jar cache
and the results directory must belong to root or the sudo user, with no
ACL letting another write them; the mirror's socket is held from before
its server starts, and it serves the machines only; the checksums of what
it serves are fixed before it serves; pkb.py flags that would change the
host are refused; the results are given to the sudo user once, when root
has written all it writes into them.

A Ctrl-C (SIGINT; SIGTERM and SIGHUP alike) is passed to pkb.py, which
stops the step, publishes what was measured and cleans the machines; a
second one kills pkb.py (its whole process group) at once; then
everything is removed, PKB's run directory only once copied into the
results. pkb.py that runs longer than
--pkb_timeout_min is interrupted the same way. With --keep
the cluster stays up after pkb.py ends (its state file names the mirror
server as its owner) for more pkb.py runs with the written config, until
`scylla-phases-local down`. A cluster whose owner is gone is removed by
the next command.

Exit status: 0 when every step's phase_status is 1; 1 when the run failed;
2 on a bad command line; 3 when it refuses to start (the reason on
stderr); 130 when interrupted.
"""

import argparse
import contextlib
import fcntl
import importlib.util
import io
import os
import pathlib
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
import uuid

import yaml

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import cluster_state
from perfkit_plugins.local import host_checks
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import mirror as mirror_lib
from perfkit_plugins.local import pkb_process
from perfkit_plugins.local import processes
from perfkit_plugins.local import scylla_build
from perfkit_plugins.local import trusted_paths
from perfkit_plugins.tools import pkb_location
from perfkit_plugins.tools import report_command

PROG = 'scylla-phases-local'
# In a directory only root can write: no other user can make it first.
DEFAULT_WORK_DIR = '/var/lib/scylla_phases_local'
DEFAULT_RESULTS_DIR = 'scylla_phases_local_results'
CONFIG_NAME = 'scylla_phases_local.yaml'
CASSANDRA_VERSION = cassandra_build.CASSANDRA_50
TAG_PREFIX = cluster_state.TAG_PREFIX
MAX_MACHINES_PER_GROUP = 20
# What the run publishes as the machines' type.
MACHINE_TYPE_LABEL = 'local'
# pkb.py flags the command gives itself.
RESERVED_PKB_FLAGS = (
    'benchmarks',
    'benchmark_config_file',
    'temp_dir',
    'run_uri',
    'run_stage',
)
# pkb.py flags that change a machine's system, which here is this host's
# (PKB's LinuxVirtualMachine.PrepareVMEnvironment applies them to static
# VMs too, and never undoes them): refused in both of a boolean's forms.
HOST_CHANGING_PKB_FLAGS = (
    'sysctl',  # /etc/sysctl.conf and sysctl -p
    'reboot_after_changing_sysctl',
    'set_files',  # any file, with sudo tee
    'append_kernel_command_line',  # GRUB, then a reboot
    'disable_smt',  # a reboot
    'enable_rt_kernel',  # a kernel install, then a reboot
    'gce_hpc_tools',  # tuning of the whole host, then a reboot
    'num_disable_cpus',  # CPUs taken offline
    'enable_transparent_hugepages',  # /sys/kernel/mm
    'disable_cstate_by_name_and_deeper',  # /sys/devices/system/cpu
    'kernel_modules_to_add',  # modprobe
    'kernel_modules_to_remove',  # modprobe -r
    'enable_nvme_interrupt_coaleasing',  # nvme set-feature
    'network_enable_BBR',  # the host's congestion control
    'tcp_max_receive_buffer',  # the host's TCP sysctls
    'tcp_max_send_buffer',
    'tcp_max_notsent_bytes',
    'rmem_max',
    'wmem_max',
    'setup_remote_firewall',  # firewall rules
    'http_proxy',  # /etc/environment
    'https_proxy',
    'ftp_proxy',
    'config_override',  # can set any flag in the config
    'flagfile',  # can set any of these
)
# How long pkb.py may run before it is interrupted as by a Ctrl-C.
DEFAULT_PKB_TIMEOUT_MIN = 120
# After a Ctrl-C, how long pkb.py gets to stop the step and clean up.
INTERRUPT_GRACE_S = 300
POLL_S = 0.5

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 3
EXIT_INTERRUPTED = 130

ENGINE_NOTE = (
    f'The engine here is Apache Cassandra {CASSANDRA_VERSION} (its jars from'
    ' Maven Central), not ScyllaDB, which needs its packages and real disks;'
    " --rehearse_scylla takes the ScyllaDB engine's whole path with a"
    ' stand-in server (Cassandra behind it), to check a ScyllaDB'
    " configuration before a cloud run. The machines share this host's CPUs"
    ' and clock and have no RAID: the figures show what a run publishes,'
    ' not what a database can do.'
)


def PlanFlags(cpus, servers, loaders):
  """The benchmark flags of a local run: every phase, in minutes.

  Sized at 2 cores (about 10 minutes, provisioning and cleanup included);
  the load grows with the cores. The latency ladder's rates stay below
  what the host serves, and the small memtables of the local Cassandra
  (cassandra_build.CLUSTER_OPTIONS) make the populate flush and compact,
  so the quiesce has compactions to time.

  Args:
    cpus: the host's CPUs.
    servers: the number of servers (the replication factor is at most it).
    loaders: the number of loaders (reads during writes needs two).

  Returns:
    {flag name: value}.
  """
  scale = max(1, cpus // 2)
  flags = {} if loaders > 1 else {'scylla_phases': ','.join(OneLoaderPhases())}
  return flags | {
      'scylla_engine': 'cassandra',
      'scylla_cassandra_version': CASSANDRA_VERSION,
      # Labels only (own machines get no price): the report's run names.
      'scylla_server_machine_type': MACHINE_TYPE_LABEL,
      'scylla_loader_machine_type': MACHINE_TYPE_LABEL,
      'scylla_replication_factor': min(3, servers),
      'scylla_num_keys': 50000 * scale,
      'scylla_threads': 8 * scale,
      'scylla_populate_threads': 8 * scale,
      'scylla_durations': 'all=25,warmup=10,rdw=30,rdw_read_delay=5',
      'scylla_latency_rates': ','.join(
          str(r * scale) for r in (250, 500, 1000)
      ),
      'scylla_latency_threads': 8,
      'scylla_rdw_write_rate': 250 * scale,
      'scylla_rdw_read_threads': 4 * scale,
      'scylla_hdr_interval_s': 2,
      'scylla_quiesce_poll_s': 2,
      'scylla_quiesce_settle_s': 10,
      'scylla_quiesce_timeout_s': 600,
      'scylla_step_grace_s': 120,
      # Every machine reports the host's memory, which they share: a
      # pinned, pre-touched heap per loader sized from it would not fit.
      'scylla_loader_heap_gb': 1,
  }


def OneLoaderPhases():
  """The default phases but reads during writes (writers, readers apart)."""
  return tuple(p for p in settings.DEFAULT_PHASES if p != 'reads_during_writes')


class Refusal(Exception):
  """The command cannot start; the message says why and what to do."""


class _RunFailed(Exception):
  """The run could not go on; the message says why."""


def _Count(text):
  try:
    value = int(text)
  except ValueError:
    value = 0
  if not 1 <= value <= MAX_MACHINES_PER_GROUP:
    raise argparse.ArgumentTypeError(
        f'{text!r}: give a whole number from 1 to {MAX_MACHINES_PER_GROUP}'
    )
  return value


def _Minutes(text):
  try:
    value = int(text)
  except ValueError:
    value = 0
  if value < 1:
    raise argparse.ArgumentTypeError(f'{text!r}: give whole minutes, 1 or more')
  return value


def _Parser():
  """The command line: run or down, and their options."""
  parser = argparse.ArgumentParser(
      prog=PROG,
      usage=(
          f'{PROG} [run] [--servers N] [--loaders N] [--keep] [options]'
          f' [-- pkb.py flags]\n       {PROG} down [--work_dir DIR]'
      ),
      description=(
          'Runs every phase of the scylla_phases benchmark through stock'
          ' pkb.py on a cluster of machines made on this host (network'
          ' namespaces with their own sshd; Apache Cassandra, not ScyllaDB),'
          ' prints the report and removes everything it made. Needs root.'
          ' `down` removes a cluster left up by --keep.'
      ),
      epilog=ENGINE_NOTE,
  )
  parser.add_argument(
      'command',
      nargs='?',
      default='run',
      choices=('run', 'down'),
      help='run (the default) or down',
  )
  parser.add_argument(
      '--servers',
      type=_Count,
      default=3,
      help='Cassandra servers (default: %(default)s)',
  )
  parser.add_argument(
      '--loaders',
      type=_Count,
      default=2,
      help='cassandra-stress loaders (default: %(default)s)',
  )
  parser.add_argument(
      '--rehearse_scylla',
      action='store_true',
      help=(
          "the servers take the ScyllaDB engine's path: ScyllaDB's packages"
          " from a signed apt repository on the mirror, ScyllaDB's own"
          ' scylla_raid_setup on a loop disk and scylla_setup, the server'
          ' started from its systemd unit as scylla; only the server,'
          ' iotune, nodetool and systemd are stand-ins (the server runs'
          ' Apache Cassandra). ScyllaDB setup files from --scylla_source'
      ),
  )
  parser.add_argument(
      '--scylla_source',
      default=None,
      help=(
          "with --rehearse_scylla: ScyllaDB's setup files (a source tree's"
          ' install.sh, dist/, conf/, seastar/scripts/), read to build its'
          ' packages (default: $PERFKIT_PLUGINS_SCYLLA_SOURCE, else'
          ' ../shared/scylladb/2026.3.0-rc3 beside a source checkout)'
      ),
  )
  parser.add_argument(
      '--keep',
      action='store_true',
      help=(
          'leave the cluster up after the run, for more pkb.py runs with the'
          f' config it prints; `{PROG} down` removes it'
      ),
  )
  parser.add_argument(
      '--work_dir',
      default=DEFAULT_WORK_DIR,
      help=(
          "the cluster's directory: state file, config, mirror, machines,"
          " pkb.py's temp dir; removed with the cluster (default:"
          ' %(default)s)'
      ),
  )
  parser.add_argument(
      '--results_dir',
      default=DEFAULT_RESULTS_DIR,
      help=(
          "where each run's results stay: <results_dir>/<run_uri>/ with"
          " PKB's run directory, report.txt and plots/ (default:"
          ' %(default)s)'
      ),
  )
  parser.add_argument(
      '--pkb_timeout_min',
      type=_Minutes,
      default=DEFAULT_PKB_TIMEOUT_MIN,
      help=(
          'minutes pkb.py may run; then it is interrupted as by a Ctrl-C'
          ' (default: %(default)s)'
      ),
  )
  parser.add_argument(
      '--allow_untested_pkb',
      action='store_true',
      help=(
          'run pkb.py of a checkout at another commit than the one this'
          f' release is tested with ({pkb_location.TESTED_COMMIT[:12]}), or'
          ' with local changes'
      ),
  )
  parser.add_argument(
      '--verbose',
      action='store_true',
      help=(
          "show all of pkb.py's output instead of its stages and the"
          " benchmark's steps"
      ),
  )
  return parser


def _FlagName(argument):
  return argument.lstrip('-').split('=', 1)[0]


def ParseArgs(argv):
  """(options, pkb.py flags) of a command line; exits 2 when it is bad."""
  argv = list(argv)
  pkb_flags = []
  if '--' in argv:
    split = argv.index('--')
    argv, pkb_flags = argv[:split], argv[split + 1 :]
  parser = _Parser()
  args = parser.parse_args(argv)
  if args.command == 'down':
    given = [
        f'--{name}'
        for name in ('servers', 'loaders', 'results_dir', 'pkb_timeout_min')
        if getattr(args, name) != parser.get_default(name)
    ]
    given += ['--keep'] * args.keep + ['--verbose'] * args.verbose
    given += ['--allow_untested_pkb'] * args.allow_untested_pkb
    if given or pkb_flags:
      parser.error(
          f'down takes --work_dir only, not {" ".join(given + pkb_flags)}'
      )
  for argument in pkb_flags:
    if not argument.startswith('-'):
      parser.error(
          f'{argument!r} after --: give pkb.py flags only, such as'
          ' --scylla_durations=all=60'
      )
    if _FlagName(argument) in RESERVED_PKB_FLAGS:
      parser.error(
          f'{argument}: {PROG} sets --{_FlagName(argument)} itself (flags'
          f' it sets: {", ".join("--" + f for f in RESERVED_PKB_FLAGS)})'
      )
    changing = HostChangingFlag(argument)
    if changing:
      parser.error(
          f'{argument}: --{changing} would change this host (the machines'
          ' are its namespaces and share its kernel, files and reboots),'
          ' and is refused here; flags refused: '
          + ', '.join('--' + f for f in HOST_CHANGING_PKB_FLAGS)
      )
  return args, pkb_flags


def HostChangingFlag(argument):
  """The HOST_CHANGING_PKB_FLAGS name an argument sets, or None."""
  name = _FlagName(argument)
  for candidate in (name, name.removeprefix('no')):
    if candidate in HOST_CHANGING_PKB_FLAGS:
      return candidate
  return None


def MachineNames(servers, loaders):
  """(server names, loader names) of a local cluster."""
  return (
      tuple(f'server-{i}' for i in range(servers)),
      tuple(f'loader-{i}' for i in range(loaders)),
  )


def _Plural(count, noun):
  return f'{count} {noun}{"" if count == 1 else "s"}'


def _Say(text=''):
  """Prints a line; a terminal that is gone does not stop the command.

  After a lost terminal (SIGHUP, then EIO or EPIPE on every write) the
  lines go nowhere, and the command goes on stopping pkb.py and cleaning.
  """
  try:
    print(text, flush=True)
  except OSError:
    sys.stdout = open(os.devnull, 'w')  # pylint: disable=consider-using-with


def Problems(args, work_dir, checkout):
  """Why a run of `args` cannot start here, or None (nothing is changed).

  What another local user could have made is checked first: the work and
  results directories, the PKB checkout, the stress tarball, the jar cache
  (trusted_paths).
  """
  os_release = host_checks.ReadOsRelease()
  return (
      host_machines.Problem()
      or host_checks.WorkDirProblem(work_dir)
      or WorkDirTrustProblem(work_dir)
      or trusted_paths.PathProblem(args.results_dir)
      or pkb_process.Problem(checkout)
      or trusted_paths.TreeProblem(checkout)
      or (
          None
          if args.allow_untested_pkb
          else pkb_process.CommitProblem(checkout, pkb_location.TESTED_COMMIT)
      )
      or host_checks.OsProblem(os_release)
      or host_checks.MachineToolsProblem()
      or host_checks.JavaProblem(CASSANDRA_VERSION, host_checks.InstalledJava())
      or mirror_lib.StressProblem(mirror_lib.StressTarball())
      or host_checks.JarCacheProblem()
      or host_checks.JarsProblem(CASSANDRA_VERSION)
      or host_checks.MemoryProblem(
          args.servers, args.loaders, host_checks.ReadMeminfo()
      )
      or (
          RehearsalProblem(ScyllaSource(args)) if args.rehearse_scylla else None
      )
  )


def ScyllaSource(args):
  """The ScyllaDB setup files a rehearsal builds its packages from."""
  return pathlib.Path(args.scylla_source or scylla_build.SourceDir())


def RehearsalProblem(source):
  """Why --rehearse_scylla cannot run here, or None.

  The setup files are read as root and packaged into what the machines
  run as root: they must be what no other local user can change.
  """
  problem = host_machines.SystemProblem()
  if problem:
    return problem
  if not (source / 'install.sh').is_file():
    return (
        f'--rehearse_scylla: no ScyllaDB setup files at {source} (a'
        " directory holding ScyllaDB's install.sh, dist/, conf/ and"
        ' seastar/scripts/): give --scylla_source'
    )
  return trusted_paths.TreeProblem(source)


def PkbCommand(checkout, config, work_dir):
  """The shell command that runs the benchmark on a kept cluster.

  It runs pkb.py in the cluster's pkb.py directory under `work_dir`
  (root's own), where pkb.py also looks for its data files
  (pkb_process.Command), whatever directory it is typed in.
  """
  pkb_dir = pathlib.Path(work_dir) / cluster_state.PKB_DIR
  command = pkb_process.Command(
      checkout,
      ['--benchmarks=scylla_phases', f'--benchmark_config_file={config}'],
      work_dir=pkb_dir,
  )
  return f'cd {shlex.quote(str(pkb_dir))} && {shlex.join(command)}'


def _DownCommand(work_dir):
  if str(work_dir) == DEFAULT_WORK_DIR:
    return f'{PROG} down'
  return f'{PROG} down --work_dir={shlex.quote(str(work_dir))}'


def WorkDirTrustProblem(work_dir):
  """Why root should not use work_dir, or None.

  The directories above it must be trusted (trusted_paths.PathProblem);
  an existing work directory must be root's alone (0700): what is in it
  names processes to end and files to remove.
  """
  work_dir = pathlib.Path(os.path.abspath(work_dir))
  return trusted_paths.PathProblem(
      work_dir.parent
  ) or trusted_paths.PrivateDirProblem(work_dir)


@contextlib.contextmanager
def _Locked(work_dir):
  """Holds the work directory's lock (one command decides at a time).

  The lock is the directory itself, which only root can open.
  """
  fd = os.open(work_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
  try:
    fcntl.flock(fd, fcntl.LOCK_EX)
    yield
  finally:
    os.close(fd)


def _ReadState(work_dir):
  try:
    return cluster_state.Read(work_dir)
  except cluster_state.StateError as e:
    raise Refusal(str(e)) from e


def ClaimWorkDir(work_dir, checkout, new_state, results_dir=None):
  """Writes new_state into work_dir, after removing a stale cluster there.

  A missing work directory is made, root's alone (0700); an existing one
  must be so already (WorkDirTrustProblem).

  Args:
    work_dir: the work directory.
    checkout: the PKB checkout (named in a refusal).
    new_state: the state of the command claiming it.
    results_dir: the default results directory of a stale run's evidence
      (its own is in its state).

  Raises:
    Refusal: the directory cannot be trusted, a cluster of a live owner is
      there, or the directory holds files that are not a local cluster's.
  """
  problem = WorkDirTrustProblem(work_dir)
  if problem:
    raise Refusal(problem)
  try:
    new_state.made_work_dir = trusted_paths.EnsurePrivateDir(work_dir)
  except PermissionError as e:
    raise Refusal(str(e)) from e
  # Again once it exists: a directory above it another user made in the
  # meantime is refused.
  problem = WorkDirTrustProblem(work_dir)
  if problem:
    raise Refusal(problem)
  with _Locked(work_dir):
    state = _ReadState(work_dir)
    if state is None and any(work_dir.iterdir()):
      raise Refusal(
          f"{work_dir} holds files and no local cluster's state file: give"
          ' an empty or new --work_dir'
      )
    if state is not None and state.Alive():
      if state.kept:
        raise Refusal(
            f'a local cluster is already up in {work_dir} (left by --keep): run'
            ' pkb.py on it with\n '
            f' {PkbCommand(checkout, state.config, work_dir)}\nor remove it'
            f' with: {_DownCommand(work_dir)}'
        )
      raise Refusal(
          f'a local run (PID {state.owner.pid}) is using {work_dir}: wait'
          ' for it, or stop it with Ctrl-C in its terminal (or kill -INT'
          f' {state.owner.pid})'
      )
    if state is not None:
      _Say(
          f'== Removing a local cluster left in {work_dir} by PID'
          f' {state.owner.pid}, which is gone'
      )
      left = _Teardown(work_dir, state, results_dir=results_dir)
      if left:
        raise Refusal(f'could not remove it: {", ".join(left)} remain')
      if trusted_paths.EnsurePrivateDir(work_dir):
        new_state.made_work_dir = True
    cluster_state.Write(work_dir, new_state)


def ResultsOwner(environ=None):
  """[uid, gid] the results are given to: the user who ran sudo, or None."""
  environ = os.environ if environ is None else environ
  uid = environ.get('SUDO_UID', '')
  gid = environ.get('SUDO_GID', '')
  if uid.isdigit() and gid.isdigit() and int(uid) != 0:
    return [int(uid), int(gid)]
  return None


def KeepRunResults(work_dir, state, pkb_failed=True, hand_over=True):
  """Copies PKB's run directory of `state`'s run into its results.

  <results_dir>/<run_uri>/ gets PKB's run directory (no sockets, no
  private key), the config, and what pkb.py printed when it failed or
  wrote no run directory (it died before, or was stopped); it is given to
  the user who ran sudo, and is readable by them.

  Args:
    work_dir: the work directory.
    state: the run's State.
    pkb_failed: whether pkb.py failed (its console output is kept).
    hand_over: give the copy to the user now; else the caller does, once
      it has written into it what it writes (HandOver).

  Returns:
    The copy, or None when pkb.py left neither a run directory nor output.

  Raises:
    OSError: the copy failed (PKB's directory stays where it is).
  """
  source = cluster_state.RunDir(work_dir, state.run_uri)
  console = (
      pathlib.Path(work_dir)
      / cluster_state.PKB_DIR
      / f'{state.run_uri}.console.log'
  )
  if not source.is_dir() and not console.is_file():
    return None
  results = pathlib.Path(state.results_dir)
  _MakeResultsDir(results)
  target = results / state.run_uri
  if source.is_dir():
    shutil.copytree(source, target, ignore=_NotRegular)
  else:
    target.mkdir()
  if state.config and os.path.isfile(state.config):
    shutil.copy(state.config, target / CONFIG_NAME)
  if console.is_file() and (pkb_failed or not source.is_dir()):
    # What pkb.py printed before its log existed (a bad flag, a crash).
    shutil.copy(console, target / 'pkb_console.log')
  if hand_over:
    HandOver(target, state.results_owner)
  return target


def _MakeResultsDir(results):
  """Makes the results directory (and what is missing above it) 0755.

  Checked before and again after: a directory another user made in
  between, or a link, is refused; none is followed while making them
  (trusted_paths.MakeDirs).

  Raises:
    PermissionError: it is not trusted (trusted_paths.PathProblem).
  """
  problem = trusted_paths.PathProblem(results)
  if not problem:
    umask = os.umask(0o022)
    try:
      trusted_paths.MakeDirs(results)
    finally:
      os.umask(umask)
    problem = trusted_paths.PathProblem(results) or (
        None
        if results.is_dir() and not results.is_symlink()
        else f'{results} is not a directory'
    )
  if problem:
    raise PermissionError(problem)


def HandOver(target, owner):
  """Makes a run's results readable, and `owner`'s (uid, gid) if given.

  Once, when root writes nothing more into them: root never writes into
  a directory another user owns. Through file descriptors opened without
  following links: nothing outside the results is ever changed.
  """
  fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
  try:
    os.fchmod(fd, 0o755)
    if owner:
      os.fchown(fd, *owner)
    for _, dirs, files, dir_fd in os.fwalk(dir_fd=fd):
      for name in dirs:
        os.chmod(name, 0o755, dir_fd=dir_fd, follow_symlinks=False)
      for name in files:
        os.chmod(name, 0o644, dir_fd=dir_fd, follow_symlinks=False)
      if owner:
        for name in dirs + files:
          os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)
  finally:
    os.close(fd)


def _Teardown(work_dir, state, machines=None, results_dir=None):
  """cluster_state.Teardown, keeping the run's evidence in its results."""
  if state.results_dir is None and results_dir is not None:
    state.results_dir = str(pathlib.Path(results_dir).absolute())

  def Keep(stale):
    kept = KeepRunResults(work_dir, stale)
    if kept is not None:
      _Say(f'== Results of that run: {kept}')

  return cluster_state.Teardown(
      work_dir,
      state,
      machines,
      keep_results=Keep if state.results_dir else None,
  )


def _FetchJars():
  """Cassandra's jars from the cache, else from Maven Central (said first)."""
  if not cassandra_build.Cached(CASSANDRA_VERSION):
    _Say(
        f"== Fetching Apache Cassandra {CASSANDRA_VERSION}'s jars from Maven"
        f' Central with mvn ({cassandra_build.FETCH_SIZE}, once, into'
        f' {cassandra_build.LibDir(CASSANDRA_VERSION).parent}; under a'
        ' minute on a fast link)'
    )
  started = time.monotonic()
  try:
    lib_dir = cassandra_build.FetchJars(CASSANDRA_VERSION)
  except cassandra_build.CassandraBuildError as e:
    raise Refusal(
        f'{e}\n(the jars come from Maven Central,'
        ' https://repo.maven.apache.org: check that mvn reaches it)'
    ) from e
  elapsed = time.monotonic() - started
  if elapsed > 1:
    _Say(f'   fetched in {elapsed:.0f} s')
  return lib_dir


def _NotRegular(directory, names):
  """copytree's ignore: sockets and the like, and PKB's private key."""
  ignored = []
  for name in names:
    mode = os.lstat(os.path.join(directory, name)).st_mode
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)) or name.startswith(
        'perfkitbenchmarker_keyfile'
    ):
      ignored.append(name)
  return ignored


def PhaseStatuses(results_text):
  """[(step, phase_status, scylla_status)] of a results file, in order."""
  return [
      (str(row.step), row.value, str(row.metadata.get('scylla_status', '')))
      for row in results_tables.ParseResults(results_text)
      if row.metric == 'phase_status'
  ]


def _Report(results_path, out_dir):
  """Prints the report's tables, writes them and its plots into out_dir."""
  argv = [str(results_path), f'--plots_dir={out_dir / "plots"}']
  if importlib.util.find_spec('matplotlib') is None:
    argv.append('--no_plots')
    _Say(
        'No plots: matplotlib is not installed (pip install'
        " 'perfkit-plugins[report]')"
    )
  text = io.StringIO()
  with contextlib.redirect_stdout(text):
    code = report_command.Main(argv)
  _Say(text.getvalue().rstrip('\n'))
  fd = os.open(
      out_dir / 'report.txt',
      os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
      0o644,
  )
  with open(fd, 'w') as report:
    report.write(text.getvalue())
  return code


class _LocalRun:
  """One `run`: the cluster, pkb.py on it, the report, the cleanup."""

  def __init__(self, args, pkb_flags, work_dir, checkout):
    self.args = args
    self.pkb_flags = pkb_flags
    self.work_dir = work_dir
    self.checkout = checkout
    self.servers, self.loaders = MachineNames(args.servers, args.loaders)
    self.state = cluster_state.State(
        owner=processes.Of(os.getpid()),
        servers=self.servers,
        loaders=self.loaders,
        results_dir=str(pathlib.Path(args.results_dir).absolute()),
        results_owner=ResultsOwner(),
    )
    self.machines = None
    self.kept = None
    self.pkb_ended = False
    self.pkb_code = None
    self.timed_out = False

  def _Save(self):
    if self.machines is not None:
      self.state.machines = self.machines.Record()
    cluster_state.Write(self.work_dir, self.state)

  def _Making(self, name):
    """Records that the work directory's entry `name` is being made."""
    self.state.made.append(name)
    self._Save()
    return self.work_dir / name

  def Build(self, lib_dir):
    """The machines, the mirror and the config; returns the config's path.

    Args:
      lib_dir: Cassandra's jars (_FetchJars).
    """
    build_dir = self._Making('build')
    build_dir.mkdir()
    tarball = cassandra_build.BuildTarball(
        CASSANDRA_VERSION,
        lib_dir,
        build_dir,
        extra_options=cassandra_build.CLUSTER_OPTIONS,
    )
    tag = f'{TAG_PREFIX}{os.getpid()}'
    self._Making(tag)
    self.machines = host_machines.HostMachines(
        self.servers + self.loaders,
        self.work_dir,
        tag,
        os_type=host_checks.OsType(host_checks.ReadOsRelease()),
        system_machines=self.servers if self.args.rehearse_scylla else (),
    )
    self._Save()
    _Say(
        f'== Making {_Plural(len(self.servers), "server")} and'
        f' {_Plural(len(self.loaders), "loader")} (namespaces with their own'
        ' sshd)'
    )
    try:
      self.machines.Create()
    finally:
      self._Save()
    mirror = mirror_lib.BuildMirror(
        self._Making('mirror'), tarball, mirror_lib.StressTarball()
    )
    if self.args.rehearse_scylla:
      _Say(
          "== Building ScyllaDB's packages from"
          f' {ScyllaSource(self.args)} (the server a stand-in)'
      )
      repository = scylla_build.BuildAptRepository(
          scylla_build.BuildPackages(
              ScyllaSource(self.args), tarball, build_dir
          ),
          mirror.directory,
          build_dir / 'gnupg',
      )
    shutil.rmtree(build_dir)
    url = self.machines.StartMirror(mirror.directory)
    self._Save()
    for name, machine in self.machines.machines.items():
      _Say(f'   {name:<9} {machine.address}')
    _Say(f'   mirror    {url}')
    flags = mirror.Flags(url) | PlanFlags(
        os.cpu_count() or 2, len(self.servers), len(self.loaders)
    )
    data_mount = host_machines.DATA_MOUNT
    if self.args.rehearse_scylla:
      flags = scylla_build.ScyllaEngineFlags(flags) | scylla_build.MirrorFlags(
          repository, mirror.directory, url
      )
      data_mount = settings.SCYLLA_DATA_DIR
    config = self._Making(CONFIG_NAME)
    config.write_text(
        "# Written by scylla-phases-local: this host's machines as PKB static"
        ' VMs.\n'
        + yaml.safe_dump(
            self.machines.PkbConfig(
                self.servers, self.loaders, flags, data_mount=data_mount
            ),
            sort_keys=False,
        )
    )
    self.state.config = str(config)
    self._Save()
    _Say(f'   config    {config}')
    return config

  def RunPkb(self, config, run_uri):
    """Runs pkb.py, showing its progress; returns (exit code, interrupted)."""
    self.state.run_uri = run_uri
    temp_dir = self._Making(cluster_state.PKB_DIR)
    arguments = [
        '--benchmarks=scylla_phases',
        f'--benchmark_config_file={config}',
        f'--run_uri={run_uri}',
        f'--temp_dir={temp_dir}',
        *self.pkb_flags,
    ]
    temp_dir.mkdir()
    console = temp_dir / f'{run_uri}.console.log'
    _Say(
        "== Running pkb.py (the benchmark's steps below; all of its output"
        f' in {temp_dir}/runs/{run_uri}/pkb.log):'
    )
    _Say(
        '   '
        + shlex.join(
            pkb_process.Command(self.checkout, arguments, work_dir=temp_dir)
        )
    )
    with open(console, 'ab') as out, processes.StopSignalsHeld():
      process = pkb_process.Start(
          self.checkout, arguments, out, new_session=True, work_dir=temp_dir
      )
      self.state.pkb = processes.Of(process.pid)
      self._Save()
    if self.args.verbose:
      view = pkb_process.ProgressView(console, everything=True)
    else:
      view = pkb_process.ProgressView(temp_dir / 'runs' / run_uri / 'pkb.log')
    interrupted = False
    deadline = None
    bound = time.monotonic() + self.args.pkb_timeout_min * 60
    while process.poll() is None:
      try:
        for line in view.Poll():
          _Say(line)
        if deadline is not None and time.monotonic() > deadline:
          _Say(f'== pkb.py did not end within {INTERRUPT_GRACE_S} s: killed')
          processes.KillGroup(process.pid)
        if deadline is None and time.monotonic() > bound:
          self.timed_out = True
          raise KeyboardInterrupt
        time.sleep(POLL_S)
      except KeyboardInterrupt:
        if interrupted:
          _Say('== Killing pkb.py')
          processes.KillGroup(process.pid)
          continue
        interrupted = True
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        process.send_signal(signal.SIGINT)
        reason = (
            f'pkb.py ran {self.args.pkb_timeout_min} minutes'
            ' (--pkb_timeout_min)'
            if self.timed_out
            else 'Interrupted'
        )
        _Say(
            f'== {reason}: pkb.py stops the step, publishes what was measured'
            ' and cleans the machines (again: kill it at once)'
        )
    for line in view.Finish():
      _Say(line)
    self.pkb_code = process.returncode
    self.state.pkb = None
    self._Save()
    self.pkb_ended = not interrupted
    if process.returncode and not interrupted:
      lines = console.read_text(errors='replace').strip().splitlines()
      _Say(
          f'== pkb.py failed (exit {process.returncode}):'
          f' {lines[-1].strip() if lines else "no output"}'
      )
    return process.returncode, interrupted

  def KeepResults(self):
    """Copies PKB's run directory into the results; returns its copy.

    Root's until HandOver.

    Raises:
      OSError: the copy failed (Finish then leaves PKB's directory).
    """
    self.kept = KeepRunResults(
        self.work_dir,
        self.state,
        pkb_failed=bool(self.pkb_code),
        hand_over=False,
    )
    self.state.results_kept = self.kept is not None
    self._Save()
    return self.kept

  def HandOver(self):
    """Gives the kept results to the user who ran sudo, once, at the end.

    The report is written into them first: root never writes into a
    directory another user owns.
    """
    if self.kept is not None:
      HandOver(self.kept, self.state.results_owner)

  def Finish(self):
    """Keeps the cluster (--keep after pkb.py ended) or removes it all."""
    if self.args.keep and self.pkb_ended and self.machines.mirror:
      self.state.owner = self.machines.mirror
      self.state.kept = True
      self._Save()
      _Say(
          '== The cluster stays up (--keep). More runs on it (pkb.py flags'
          ' after it change the plan):'
      )
      _Say(f'   {PkbCommand(self.checkout, self.state.config, self.work_dir)}')
      _Say(f'   Remove it with: {_DownCommand(self.work_dir)}')
      return True
    _Say('== Removing the local cluster (processes, namespaces, bridge, data)')
    left = _Teardown(self.work_dir, self.state, self.machines)
    if left:
      _Say(f'{PROG}: could not remove {", ".join(left)}')
      return False
    return True


def _Run(args, pkb_flags):
  """`run`: checks, claims the work dir, runs, reports, removes or keeps."""
  started = time.monotonic()
  work_dir = pathlib.Path(os.path.abspath(args.work_dir))
  checkout = pkb_location.Path()
  problem = Problems(args, work_dir, checkout)
  if problem:
    raise Refusal(problem)
  lib_dir = _FetchJars()
  # Again once fetched: a cache directory made meanwhile must be trusted.
  problem = host_checks.JarCacheProblem()
  if problem:
    raise Refusal(problem)
  run = _LocalRun(args, pkb_flags, work_dir, checkout)
  ClaimWorkDir(work_dir, checkout, run.state, args.results_dir)
  _Say(
      f'== scylla_phases on this host: {_Plural(args.servers, "server")},'
      f' {_Plural(args.loaders, "loader")}, work directory {work_dir}'
  )
  if args.loaders < 2:
    _Say(
        '   With one loader, reads during writes (writers and readers on'
        ' loaders of their own) is left out.'
    )
  _Say(
      textwrap.fill(
          ENGINE_NOTE, 79, initial_indent='   ', subsequent_indent='   '
      )
  )
  code = EXIT_FAILED
  run_uri = uuid.uuid4().hex[:8]
  try:
    with processes.StopSignalsHandledBy(signal.default_int_handler):
      try:
        config = run.Build(lib_dir)
        pkb_code, interrupted = run.RunPkb(config, run_uri)
        kept = run.KeepResults()
        if interrupted:
          if kept is not None:
            _Say(f'== Results so far: {kept}')
          if run.timed_out:
            raise _RunFailed(
                'pkb.py ran longer than'
                f' --pkb_timeout_min={args.pkb_timeout_min}'
            )
          raise KeyboardInterrupt
        if kept is None:
          raise _RunFailed('pkb.py wrote no run directory')
        _Say(f'== Results: {kept}')
        results = kept / 'perfkitbenchmarker_results.json'
        if not results.exists():
          raise _RunFailed(
              'pkb.py published no results (its output:'
              f' {kept / "pkb_console.log"})'
          )
        _Say('== Report (scylla-phases-report)')
        if _Report(results, kept):
          _Say('== The report could not be made (see above)')
        statuses = PhaseStatuses(results.read_text())
        failed = [s for s in statuses if s[1] != 1]
        _Say(
            f'== {len(statuses) - len(failed)} of {len(statuses)} steps'
            ' ended with phase_status 1'
            + ''.join(f'\n   {step}: {status}' for step, _, status in failed)
        )
        if pkb_code == 0 and statuses and not failed:
          code = EXIT_OK
      except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
        _Say('== Interrupted')
      except (
          _RunFailed,
          host_machines.HostMachinesError,
          mirror_lib.ChecksumError,
          OSError,
          subprocess.SubprocessError,
      ) as e:
        _Say(f'{PROG}: {e}')
  finally:
    with processes.StopSignalsHandledBy(signal.SIG_IGN):
      try:
        run.HandOver()
      except OSError as e:
        _Say(f'{PROG}: the results could not be handed over: {e}')
      if not run.Finish() and code == EXIT_OK:
        code = EXIT_FAILED
  minutes, seconds = divmod(int(time.monotonic() - started), 60)
  _Say(f'== Done in {minutes}m {seconds:02d}s (exit {code})')
  return code


def _Down(args):
  """`down`: removes the cluster a --keep left (or a stale one)."""
  work_dir = pathlib.Path(os.path.abspath(args.work_dir))
  problem = host_machines.Problem()
  if problem:
    raise Refusal(problem)
  if not work_dir.is_dir():
    _Say(f'No local cluster in {work_dir}.')
    return EXIT_OK
  problem = WorkDirTrustProblem(work_dir)
  if problem:
    raise Refusal(problem)
  with _Locked(work_dir):
    state = _ReadState(work_dir)
    if state is None:
      _Say(f'No local cluster in {work_dir}.')
      return EXIT_OK
    if state.Alive() and not state.kept:
      raise Refusal(
          f'a local run (PID {state.owner.pid}) is using {work_dir} and'
          ' removes it when it ends: stop it with Ctrl-C in its terminal (or'
          f' kill -INT {state.owner.pid})'
      )
    _Say(f'== Removing the local cluster in {work_dir}')
    with processes.StopSignalsHandledBy(signal.SIG_IGN):
      left = _Teardown(work_dir, state, results_dir=DEFAULT_RESULTS_DIR)
  if left:
    _Say(f'{PROG}: could not remove {", ".join(left)}')
    return EXIT_FAILED
  _Say('== Removed')
  return EXIT_OK


def Main(argv=None):
  """Runs the command line; returns the exit status (see the docstring)."""
  args, pkb_flags = ParseArgs(sys.argv[1:] if argv is None else argv)
  # What the command writes is root's alone unless it says otherwise.
  os.umask(0o077)
  try:
    if args.command == 'down':
      return _Down(args)
    return _Run(args, pkb_flags)
  except Refusal as e:
    print(f'{PROG}: cannot {args.command}: {e}', file=sys.stderr)
    return EXIT_REFUSED
  except KeyboardInterrupt:
    # Before anything was made, or after all was removed.
    print(f'{PROG}: interrupted', file=sys.stderr)
    return EXIT_INTERRUPTED


if __name__ == '__main__':
  sys.exit(Main())
