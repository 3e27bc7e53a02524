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

"""The loader JVM: its collector and heap, and the stops it makes.

cassandra-stress is a JVM. When the JVM stops its threads (a collector's
pause, or any other safepoint) no request is sent: in a fixed-rate step
every request scheduled during the stop is late by up to the stop's length,
and cassandra-stress measures from the scheduled start. A loader that stops
for 0.1% of a step can make the step's p99.9 alone. So the loader JVM is
set, not left to the JVM's defaults, and every loader logs its stops; the
benchmark publishes them beside the latencies they could have made.

Choices, with their evidence (docs/loader_jvm.md has the measurements):

* Heap: fixed (-Xms = -Xmx) and touched at start (-XX:+AlwaysPreTouch), so
  it never grows, and never faults pages in, during a step. Its size is the
  smaller of 8 GiB (what ScyllaDB's own test framework gives its loaders)
  and a quarter of the loader's memory (the JVM's own default maximum, so a
  small loader gets no more than it would have had anyway).
* Collector: generational ZGC where the loader's Java has it (21 and
  later; `-XX:+ZGenerational` on 21 and 22, where it is not yet the
  default, as ScyllaDB's test framework runs its loaders), G1 before that.
  ZGC before 21 keeps one generation, which the JDK's own account of
  generational ZGC (JEP 439) says stalls allocations at high allocation
  rates; it is there when asked (`--scylla_loader_gc=zgc`, Java 15 on).
* Logs: `-Xlog:safepoint` (every stop of the JVM, whatever caused it, with
  its length) and `-Xlog:gc` (ZGC's allocation and relocation stalls, which
  are no safepoint), into the run's `.jvm` file, each line with the
  loader's clock, so that only the stops inside a step's window count.
  Java 17 and later only: Java 11 words its safepoint lines otherwise, and
  no real Java 11 log was at hand to test a parser on, so a Java 11 loader
  publishes no stops.

The options reach the tool through JVM_OPTS, which both cassandra-stress
launchers (ScyllaDB's and Apache's) put before their own. They are words
without shell metacharacters: the launchers split $JVM_OPTS unquoted.
"""

import dataclasses
import re

# --scylla_loader_gc values; 'auto' picks by the loader's Java (Collector).
GC_CHOICES = ('auto', 'zgc', 'g1', 'jvm_default')
# Largest heap given by default (MiB), and the share of the loader's memory.
MAX_DEFAULT_HEAP_MB = 8192
HEAP_SHARE = 4
# Generational ZGC appeared in Java 21, became ZGC's default in 23 (where
# the option is deprecated) and its only mode in 24 (the option is ignored
# there, with a warning).
GENERATIONAL_ZGC_JAVA = 21
ZGC_GENERATIONAL_DEFAULT_JAVA = 23
# ZGC is a product feature from Java 15 on (experimental before).
ZGC_JAVA = 15
# The first Java whose safepoint lines ParseJvmLog reads.
LOGGED_JAVA = 17

# Each line starts with the JVM's uptime, then the loader's clock (ms since
# the epoch): the JVM prints its decorations in its own order.
_TIME_RE = re.compile(r'^\[[\d.]+s\]\[(\d+)ms\]')
_SAFEPOINT_RE = re.compile(r'\[safepoint *\].* Total: (\d+) ns')
# ZGC stalls a thread that allocates, or touches an object being moved,
# until the collector frees or moves what it needs: `[gc] Allocation Stall
# (<thread>) 45.634ms`. Thread names may hold brackets; the collector's own
# workers' stalls (`GC(30) O: Relocation Stall (ZWorkerOld#0)`) and causes
# (`Minor Collection (Allocation Stall)`) are not the tool's.
_STALL_RE = re.compile(
    r'\] (?:Allocation|Relocation) Stall \((.*)\) ([\d.]+) ?ms$'
)


@dataclasses.dataclass(frozen=True)
class LoaderJvm:
  """How one loader's JVMs run.

  Attributes:
    collector: 'zgc', 'g1' or 'jvm_default' (the JVM chooses).
    heap_mb: fixed heap in MiB, 0 for the JVM's own sizing.
    java: the Java major the JVM is.
  """

  collector: str
  heap_mb: int
  java: int


@dataclasses.dataclass(frozen=True)
class Stop:
  """One stop of a JVM.

  Attributes:
    end_s: when it ended, the loader's clock (epoch seconds); None when
      the log line has no time.
    ms: its length.
  """

  end_s: float | None
  ms: float


@dataclasses.dataclass(frozen=True)
class JvmStops:
  """What stopped one JVM, from its log (ParseJvmLog).

  Attributes:
    pauses: every safepoint (all threads stopped), in order.
    stalls: every ZGC stall (one thread waited for memory).
  """

  pauses: tuple[Stop, ...] = ()
  stalls: tuple[Stop, ...] = ()

  def MaxMs(self):
    """The longest stop of either kind, 0 when there was none."""
    return max((s.ms for s in self.pauses + self.stalls), default=0.0)

  def TotalMs(self):
    """Time stopped at safepoints (stalls stop one thread, not all)."""
    return sum(s.ms for s in self.pauses)

  def Within(self, start_s, end_s, offset_s=0.0):
    """The stops that overlap [start_s, end_s] on another clock.

    Args:
      start_s: the window's start, on that clock.
      end_s: its end.
      offset_s: the loader's clock minus that clock.

    Stops of unknown time are kept.
    """

    def Keep(stop):
      if stop.end_s is None:
        return True
      end = stop.end_s - offset_s
      return end >= start_s and end - stop.ms / 1000 <= end_s

    return JvmStops(
        tuple(filter(Keep, self.pauses)), tuple(filter(Keep, self.stalls))
    )


def Collector(choice, java, who='on the loaders'):
  """The collector --scylla_loader_gc=`choice` gives a loader on `java`.

  'zgc' before Java 21 is ZGC of a single generation: chosen only when
  asked.

  Raises:
    ValueError: 'zgc' asked on a Java without ZGC; the message names `who`
      runs that Java, and the choices that work.
  """
  if choice == 'auto':
    return 'zgc' if java >= GENERATIONAL_ZGC_JAVA else 'g1'
  if choice == 'zgc' and java < ZGC_JAVA:
    others = ', '.join(c for c in GC_CHOICES if c != 'zgc')
    raise ValueError(
        f'zgc needs Java {ZGC_JAVA} or later, not Java {java} ({who}): use'
        f' one of {others}'
    )
  return choice


def HeapMb(heap_gb, memory_bytes):
  """The loader heap: --scylla_loader_heap_gb, or the default for its RAM.

  Args:
    heap_gb: the flag; 0 for the default (the smaller of MAX_DEFAULT_HEAP_MB
      and the loader's memory over HEAP_SHARE).
    memory_bytes: the loader's memory.
  """
  if heap_gb:
    return int(heap_gb * 1024)
  return min(MAX_DEFAULT_HEAP_MB, memory_bytes // HEAP_SHARE // 2**20)


def Choose(gc, heap_gb, java, memory_bytes):
  """The LoaderJvm of a loader, from the flags and what the loader has.

  'jvm_default' leaves the heap to the JVM too, unless a size is given.
  """
  collector = Collector(gc, java)
  if collector == 'jvm_default' and not heap_gb:
    return LoaderJvm(collector, 0, java)
  return LoaderJvm(collector, HeapMb(heap_gb, memory_bytes), java)


def Options(jvm, log_path):
  """The JVM_OPTS value of a loader JVM that logs its stops to `log_path`.

  Raises:
    ValueError: `log_path` would not survive the launchers' word splitting.
  """
  if not re.fullmatch(r'[\w./+-]+', log_path):
    raise ValueError(f'{log_path!r} is not a plain path for -Xlog')
  words = []
  if jvm.heap_mb:
    words += [f'-Xms{jvm.heap_mb}m', f'-Xmx{jvm.heap_mb}m']
    words.append('-XX:+AlwaysPreTouch')
  if jvm.collector == 'g1':
    words.append('-XX:+UseG1GC')
  elif jvm.collector == 'zgc':
    words.append('-XX:+UseZGC')
    if GENERATIONAL_ZGC_JAVA <= jvm.java < ZGC_GENERATIONAL_DEFAULT_JAVA:
      words.append('-XX:+ZGenerational')
  if jvm.java >= LOGGED_JAVA:
    # One file, never rotated: an existing one is overwritten.
    words.append(
        f'-Xlog:safepoint=info,gc=info:file={log_path}'
        ':timemillis,uptime,level,tags:filecount=0'
    )
  return ' '.join(words)


def ParseJvmLog(text):
  """The stops a loader JVM logged (Options' `-Xlog` file), as JvmStops.

  Lines of other kinds are skipped; a missing or empty log gives no stops.
  """
  pauses, stalls = [], []
  for line in text.splitlines():
    time = _TIME_RE.match(line)
    end_s = int(time.group(1)) / 1000 if time else None
    match = _SAFEPOINT_RE.search(line)
    if match:
      pauses.append(Stop(end_s, int(match.group(1)) / 1e6))
      continue
    match = _STALL_RE.search(line)
    if match:
      stalls.append(Stop(end_s, float(match.group(2))))
  return JvmStops(tuple(pauses), tuple(stalls))
