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

"""Several real machines on this host, for stock pkb.py as static VMs.

The machines are the product's (perfkit_plugins/local/host_machines.py:
each a network and mount namespace with its own sshd, a bridge, a mirror
served by the host), made for a test session and owned by its process,
in a directory of their own under /var/tmp no other user can make first:
their tag is PREFIX and the owner's PID, so `RemoveStale` removes the
test beds of owners that are gone (a killed session) and never one whose
owner runs, nor anything else (a local cluster's tag starts with
'pkblc'). Each bed picks a /24 no other bed or host network uses.

The mirror serves the Apache Cassandra tarball built from Maven Central's
jars (perfkit_plugins/local/cassandra_build.py) and ScyllaDB's
cassandra-stress distribution (StressTarball()). `Bed` points stock
pkb.py at them; `Reset` leaves the machines as they were made after a
fault test; `StressTimings` says when each loader of a run's stress steps
ran.

Needs root, iproute2, util-linux (unshare, nsenter) and openssh-server.
"""

import contextlib
import dataclasses
import json
import os
import pathlib
import shutil
import stat
import subprocess
import tempfile

import yaml

from perfkit_plugins.core.config import settings
from perfkit_plugins.core.results import histograms
from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import mirror as mirror_lib
from perfkit_plugins.local import processes
from perfkit_plugins.local import scylla_build
from perfkit_plugins.testing import pkb_checkout

# Each test bed's directory is in one made for it in ROOT_PARENT (never
# /tmp: each machine mounts its own) by mkdtemp: a name no other user can
# guess and make first, root's and 0700. Removed with the test bed.
ROOT_PARENT = pathlib.Path('/var/tmp')
ROOT_PREFIX = 'perfkit_plugins_testbed.'
# Interface names the test bed makes start with this (+ the owner's PID).
PREFIX = 'pkbtb'
# The machines of a test bed for a whole run: 3 servers, 2 loaders.
SERVERS = ('server-0', 'server-1', 'server-2')


def LoaderNames(count):
  """The names of `count` loaders: loader-0, loader-1 and on."""
  return tuple(f'loader-{i}' for i in range(count))


LOADERS = LoaderNames(2)


# Loaders of the session's bed that only the test of many loaders runs on
# (tests/testbed/test_many_loaders.py): with LOADERS, ten. Making the eight
# takes the bed about 4 s (a copy of /etc and of the package state each).
EXTRA_LOADERS = LoaderNames(10)[len(LOADERS) :]
# A ScyllaDB server of the same test bed: a private-system machine (its own
# /usr, /opt, /var, a loop disk, the systemd stand-in) that installs the
# ScyllaDB packages built from ScyllaDB's setup files.
SCYLLA_SERVERS = ('scylla-0',)
# Every run's loader flags here. The machines share the host's memory and
# cores, and each reports the host's memory: the default heap (a quarter of
# it, 6 GiB here) pinned and touched at every step's start took about 25 s
# of both cores, longer than a test's 15 s grace. Half a GiB holds the few
# hundred operations a second these loaders run, and is touched in half the
# time of 1 GiB at every step's start.
LOADER_FLAGS = {'scylla_loader_heap_gb': 0.5}
# A whole run's flags on those machines: every phase, in seconds rather
# than hours.
SHORT_RUN_FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_num_keys': 20000,
    'scylla_threads': 8,
    'scylla_populate_threads': 8,
    'scylla_durations': 'all=10,warmup=5,rdw=15,rdw_read_delay=3',
    'scylla_latency_rates': '200,400',
    'scylla_latency_threads': 4,
    'scylla_rdw_write_rate': 200,
    'scylla_rdw_read_threads': 2,
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 5,
    'scylla_quiesce_timeout_s': 300,
} | LOADER_FLAGS
# A run on many loaders against one server: a populate of 20,000 keys, then
# one fixed-rate step of MANY_LOADERS_STEP_S at 50 op/s a loader (with ten),
# few threads and a quarter-GiB heap each, so that ten to thirty JVMs share
# the host's two cores and memory (tests/testbed/test_many_loaders.py,
# tests/perf/bench_testbed_loaders.py).
MANY_LOADERS_STEP_S = 15
MANY_LOADERS_FLAGS = {
    'scylla_engine': 'cassandra',
    'scylla_replication_factor': 1,
    'scylla_consistency_level': 'ONE',
    'scylla_num_keys': 20000,
    'scylla_populate_threads': 2,
    'scylla_phases': 'populate,latency',
    'scylla_latency_rates': '500',
    'scylla_latency_threads': 2,
    'scylla_durations': f'latency={MANY_LOADERS_STEP_S}',
    'scylla_hdr_interval_s': 1,
    'scylla_loader_heap_gb': 0.25,
}
STRESS_TARBALL_ENV = mirror_lib.STRESS_TARBALL_ENV
STRESS_RELEASE = mirror_lib.STRESS_RELEASE
StressTarball = mirror_lib.StressTarball
# JVM options of the test bed's Cassandra servers (small memtables).
CASSANDRA_OPTIONS = cassandra_build.CLUSTER_OPTIONS
Problem = host_machines.Problem
# The main class cassandra-stress's launcher starts its JVM with.
_STRESS_MAIN_CLASS = b'org.apache.cassandra.stress.Stress'


@dataclasses.dataclass(frozen=True)
class StressTiming:
  """When the loaders of one stress step ran, on the controller's clock.

  Per loader, in the step's run order: when the controller launched its
  command (past the step's barrier), when cassandra-stress started (its
  times file: ssh and the loader's script before it), its first HDR
  interval's start and its last interval's end (its log: the JVM's start,
  its connections and schema come before the first), each loader's clock
  offset applied as the run applies it. cassandra-stress starts its
  intervals on whole seconds of the loader's clock, so the skews of the
  intervals are whole seconds, give or take the clock offsets.

  Attributes:
    step: the step's name.
    started_at: when the controller started the step.
    ended_at: when the last loader's command returned.
    launches: each loader's launch of its command.
    tool_starts: each loader's cassandra-stress start.
    firsts: each loader's first interval start.
    lasts: each loader's last interval end.
  """

  step: str
  started_at: float
  ended_at: float
  launches: tuple[float, ...]
  tool_starts: tuple[float, ...]
  firsts: tuple[float, ...]
  lasts: tuple[float, ...]

  @property
  def start_skew(self):
    """Seconds from the first loader's first interval to the last one's."""
    return max(self.firsts) - min(self.firsts)

  @property
  def end_skew(self):
    """Seconds from the first loader's last interval end to the last one's."""
    return max(self.lasts) - min(self.lasts)

  @property
  def shared(self):
    """Seconds every loader ran (negative: some never ran together)."""
    return min(self.lasts) - max(self.firsts)

  def After(self, before):
    """Seconds from the last loader's end of `before` to the first's start."""
    return min(self.firsts) - max(before.lasts)

  def Figures(self):
    """The skews and the shared window in words."""
    return (
        f'{self.step}: start skew {self.start_skew:.2f} s, end skew'
        f' {self.end_skew:.2f} s, shared window {self.shared:.1f} s'
    )


def StressTimings(run_dir):
  """The StressTiming of every stress step of a run directory, in run order.

  From each step's record (loaders.json) and its loaders' pulled HDR logs,
  read with the benchmark's own reader (histograms.IterHdrIntervals). For
  steps whose runs all start at once: a run planned to start late (reads
  during writes) is not moved back by its delay, as LoaderSkews moves it.
  """
  timings = []
  for path in (run_dir / 'scylla_phases' / 'steps').glob('*/loaders.json'):
    record = json.loads(path.read_text())
    firsts, lasts = [], []
    for loader in record['loaders']:
      offset_s = loader['clock_offset_s']
      with open(loader['local_files']['hdr']) as log:
        intervals = list(histograms.IterHdrIntervals(log))
      firsts.append(intervals[0].start_s - offset_s)
      lasts.append(max(i.end_s for i in intervals) - offset_s)
    timings.append(
        StressTiming(
            step=record['step_name'],
            started_at=record['started_at'],
            ended_at=record['ended_at'],
            launches=tuple(l['launched_at'] for l in record['loaders']),
            tool_starts=tuple(l['start_s'] for l in record['loaders']),
            firsts=tuple(firsts),
            lasts=tuple(lasts),
        )
    )
  return sorted(timings, key=lambda t: t.started_at)


def _Exists(pid):
  """Whether PID `pid` is taken (a zombie too: a bed's owner is kept)."""
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  return True


@dataclasses.dataclass
class Machine(host_machines.Machine):
  """A test bed's machine: the product's, and what fault tests reach for."""

  def GroupStress(self, group_file):
    """The PID of the cassandra-stress JVM of a run's process group, or None.

    The launcher script runs `java -version` in the same group first; only
    a live process running cassandra-stress's main class counts, so a
    signal sent to the PID reaches the loader, not that short-lived check.

    group_file: the run's group file (perfkit_plugins.operations.phase_runner
    .GroupFile), a path inside the machine, read through its mount
    namespace (a fault's tmpfs shows only there).
    """
    path = pathlib.Path(f'/proc/{self.sshd_pid}/root{group_file}')
    try:
      group = int(path.read_text())
    except (OSError, ValueError):
      return None
    for pid in self.Pids():
      try:
        stat = pathlib.Path(f'/proc/{pid}/stat').read_text()
        command = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
      except OSError:
        continue
      state, _, process_group = stat.rsplit(')', 1)[1].split()[:3]
      if (
          state != 'Z'
          and int(process_group) == group
          and _STRESS_MAIN_CLASS in command.split(b'\0')
      ):
        return pid
    return None


def _Roots():
  """The test beds' directories of this host (root's, 0700, no link)."""
  roots = []
  for path in ROOT_PARENT.glob(f'{ROOT_PREFIX}*'):
    st = os.lstat(path)
    if (
        stat.S_ISDIR(st.st_mode)
        and st.st_uid == 0
        and not stat.S_IMODE(st.st_mode) & 0o077
    ):
      roots.append(path)
  return roots


def RemoveStale(own_root):
  """Removes test beds whose owning process is gone (killed, say).

  A test bed's tag is PREFIX and its owner's PID; only tags of that form
  whose PID no process has are removed: their processes are ended by PID
  (those in their network namespaces), their disks' loop devices detached
  (found by their backing files), then their namespaces, interfaces and
  directories are removed. Directories are looked for only in the test
  beds' own (_Roots): one another user made is never touched.

  Args:
    own_root: the caller's test bed directory (holding no stale one),
      standing for the directory of a stale test bed that has none left.

  Returns:
    The tags of the test beds removed.
  """
  netns = host_machines.NetnsNames()
  roots = {name.rsplit('-', 1)[0]: own_root for name in netns}
  roots.update(
      (name.split('v')[0], own_root) for name in host_machines.LinkNames()
  )
  for root in _Roots():
    roots.update((p.name, root) for p in root.iterdir())
  removed = []
  for tag, root in sorted(roots.items()):
    owner = tag[len(PREFIX) :]
    if not tag.startswith(PREFIX) or not owner.isdigit() or _Exists(int(owner)):
      continue
    stale = host_machines.HostMachines.FromRecord({
        'tag': tag,
        'root': str(root),
        'subnet': None,
        'os_type': 'debian12',
        'machines': {
            name: {'netns': name, 'sshd_pid': 0}
            for name in netns
            if name.startswith(f'{tag}-')
        },
    })
    stale.Destroy()
    for name in host_machines.LinkNames():
      if name.startswith(f'{tag}v'):
        subprocess.run(
            ['ip', 'link', 'del', name], capture_output=True, check=False
        )
    if root != own_root:
      with contextlib.suppress(OSError):
        root.rmdir()
    removed.append(tag)
  return removed


class Testbed(host_machines.HostMachines):
  """The product's machines, owned by this process (see the module doc)."""

  machine_class = Machine

  def __init__(self, names, subnet=None, system_machines=()):
    """Describes a test bed and makes its directory's (ROOT_PREFIX).

    Create() builds it; Destroy() removes it, that directory included.

    Args:
      names: machine names (hostnames), at most 200.
      subnet: an IPv4 /24; default a free one.
      system_machines: names of the machines made private-system machines
        (host_machines: their own /usr, /opt, /var and /run, a loop disk at
        host_machines.DISK_PATH, a systemd stand-in), e.g. SERVERS for a
        ScyllaDB engine run; by default none is.
    """
    super().__init__(
        names,
        tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=ROOT_PARENT),
        f'{PREFIX}{os.getpid()}',
        subnet=subnet,
        system_machines=system_machines,
    )

  def Create(self):
    """Removes stale test beds, then builds this one."""
    problem = self.HostProblem()
    if problem:
      raise host_machines.HostMachinesError(problem)
    RemoveStale(self.root.parent)
    return super().Create()

  def Destroy(self):
    """Removes the test bed (HostMachines.Destroy) and its directory's."""
    super().Destroy()
    with contextlib.suppress(OSError):
      self.root.parent.rmdir()


@dataclasses.dataclass
class Bed:
  """A test bed with its mirror, and stock pkb.py pointed at it.

  Attributes:
    testbed: the Testbed.
    mirror_flags: the benchmark flags that install from its mirror.
    temp_dir: PKB's --temp_dir (short: PKB's ssh control sockets live in
      it).
    scylla_flags: the ScyllaDB engine's flags on its private-system
      machines, installing ScyllaDB's packages from the mirror (in place of
      the mirror flags' Cassandra tarball); empty without them.
  """

  testbed: Testbed
  mirror_flags: dict
  temp_dir: pathlib.Path
  scylla_flags: dict = dataclasses.field(default_factory=dict)

  def Config(self, path, servers, loaders, flags):
    """Writes a config of these machines with the mirror's and these flags."""
    return self._Write(
        path,
        self.testbed.PkbConfig(
            servers, loaders, self.mirror_flags | dict(flags)
        ),
    )

  def ScyllaConfig(self, path, servers, loaders, flags):
    """Writes a config of the ScyllaDB engine on private-system servers.

    Their data disk is declared at ScyllaDB's /var/lib/scylla, where
    scylla_raid_setup builds the volume (scylla_flags).
    """
    return self._Write(
        path,
        self.testbed.PkbConfig(
            servers,
            loaders,
            self.scylla_flags | dict(flags),
            data_mount=settings.SCYLLA_DATA_DIR,
        ),
    )

  @staticmethod
  def _Write(path, config):
    pathlib.Path(path).write_text(yaml.safe_dump(config, sort_keys=False))
    return path

  def RunDir(self, run_uri):
    return pathlib.Path(self.temp_dir) / 'runs' / run_uri

  def Arguments(self, config, run_uri, *args):
    return [
        '--benchmarks=scylla_phases',
        f'--benchmark_config_file={config}',
        f'--run_uri={run_uri}',
        f'--temp_dir={self.temp_dir}',
        *args,
    ]

  def StartPkb(self, config, run_uri, *args):
    """Starts stock pkb.py on the test bed; returns its Popen.

    Its output goes to pkb.out in the temp dir.
    """
    # pylint: disable-next=consider-using-with
    out = open(pathlib.Path(self.temp_dir) / f'{run_uri}.out', 'ab')
    try:
      return pkb_checkout.StartPkb(
          self.Arguments(config, run_uri, *args), stdout=out
      )
    finally:
      out.close()

  def Reset(self):
    """Leaves every machine as the test bed made it: after a fault test.

    Every process but sshd ended (by PID), links up, tmpfs mounts of
    faults removed, the runs' outputs (group files included, which the next
    fault test looks for) and data directories emptied.
    """
    for machine in self.testbed.machines.values():
      machine.SetLink(True)
      processes.EndPids(lambda m=machine: list(m.Processes()))
      machine.Enter(
          'while grep -q " /tmp/pkb/scylla_phases tmpfs " /proc/mounts;'
          ' do umount /tmp/pkb/scylla_phases; done;'
          ' rm -rf /tmp/pkb/scylla_phases',
          check=False,
      )
      for path in machine.data_dir.iterdir():
        if path.is_dir() and not path.is_symlink():
          shutil.rmtree(path)
        else:
          path.unlink()

  def Pkb(self, config, run_uri, *args, timeout=1800):
    """Runs stock pkb.py on the test bed; returns the CompletedProcess."""
    return pkb_checkout.RunPkb(
        self.Arguments(config, run_uri, *args), timeout=timeout
    )


@contextlib.contextmanager
def MirroredTestbed(
    names,
    temp_dir,
    cassandra_version=cassandra_build.CASSANDRA_50,
    system_machines=(),
    scylla_source=None,
):
  """A test bed of `names` serving Cassandra and cassandra-stress; a Bed.

  The Cassandra tarball is built from Maven Central's jars (servers started
  with CASSANDRA_OPTIONS), cassandra-stress is StressTarball(), checked on
  the machines against the checksum the mirror publishes beside it; the
  machines named in `system_machines` are private-system ones (Testbed).
  With `scylla_source` (ScyllaDB's setup files: scylla_build.SourceDir())
  the mirror also serves ScyllaDB's packages built from them with the
  stand-in server (scylla_build), as a signed apt repository with its key,
  and the Bed's scylla_flags install them.
  Everything is destroyed on exit.
  """
  with tempfile.TemporaryDirectory() as scratch:
    tarball = cassandra_build.BuildTarball(
        cassandra_version,
        cassandra_build.FetchJars(cassandra_version),
        scratch,
        extra_options=CASSANDRA_OPTIONS,
    )
    with Testbed(names, system_machines=system_machines) as testbed:
      mirror = mirror_lib.BuildMirror(
          testbed.root / 'mirror', tarball, StressTarball()
      )
      if scylla_source:
        repository = scylla_build.BuildAptRepository(
            scylla_build.BuildPackages(scylla_source, tarball, scratch),
            mirror.directory,
            pathlib.Path(scratch) / 'gnupg',
        )
      url = testbed.StartMirror(mirror.directory)
      flags = mirror.Flags(url)
      # The test bed checks cassandra-stress against the `.sha256` the
      # mirror publishes beside it, as a release asset is checked.
      del flags['scylla_stress_checksum']
      scylla_flags = {}
      if scylla_source:
        scylla_flags = scylla_build.ScyllaEngineFlags(
            flags
        ) | scylla_build.MirrorFlags(repository, mirror.directory, url)
      yield Bed(testbed, flags, pathlib.Path(temp_dir), scylla_flags)
