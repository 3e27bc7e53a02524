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

"""Tests of the loader JVM's settings and of reading its stop logs."""

import pathlib
import re
import shlex
import subprocess

import pytest

from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.operations import java_install
from perfkit_plugins.testing import local_vm

JVM_LOGS = pathlib.Path(__file__).parents[2] / 'testdata' / 'jvm'
GIB = 2**30
# The JDKs of this host, to check the options against real JVMs.
JDKS = {
    j.major: pathlib.Path(j.home)
    for j in java_install.Installed(local_vm.LocalVm())
}


def _Stops(name):
  return loader_jvm.ParseJvmLog((JVM_LOGS / name).read_text())


def test_every_safepoint_of_a_java17_g1_log_is_read():
  stops = _Stops('java17-g1.jvm')
  assert len(stops.pauses) == 21
  # Its first: `[2.881s][1795832334189ms][info][safepoint] Safepoint
  # "ICBufferFull", ... Total: 315473 ns`.
  assert stops.pauses[0] == loader_jvm.Stop(1795832334.189, 0.315473)
  # Its longest, a G1 young pause.
  assert stops.MaxMs() == pytest.approx(24.535388)
  assert stops.TotalMs() == pytest.approx(42.836273)
  assert not stops.stalls


def test_java17_padded_tags_and_java25_fields_are_read():
  assert len(_Stops('java17-zgc.jvm').pauses) == 22
  java25 = _Stops('java25-zgc.jvm')
  assert len(java25.pauses) == 6
  assert java25.MaxMs() == pytest.approx(0.858223)


def test_application_threads_zgc_stalls_are_read_not_the_collectors():
  stops = _Stops('java25-zgc-heap64m-write.jvm')
  # 873 `] Allocation Stall (` and 94 `] Relocation Stall (` lines; not
  # the 2 of collector workers (`GC(30) O: Relocation Stall
  # (ZWorkerOld#0)`) nor the 34 causes `Minor Collection (Allocation
  # Stall)`.
  assert len(stops.stalls) == 873 + 94
  assert len(stops.pauses) == 580
  # `[7.738s][1795832467601ms][info][gc       ] Allocation Stall
  # (Thread-26) 45.634ms`.
  assert loader_jvm.Stop(1795832467.601, 45.634) in stops.stalls
  assert stops.MaxMs() == pytest.approx(113.707)


def test_the_jvms_own_choice_stops_longer_than_generational_zgc():
  assert _Stops('java25-jvm_default.jvm').MaxMs() > 20
  assert _Stops('java25-zgc.jvm').MaxMs() < 1


def test_an_empty_log_has_no_stops():
  assert loader_jvm.ParseJvmLog('') == loader_jvm.JvmStops()
  assert loader_jvm.JvmStops().MaxMs() == 0


def test_only_stops_that_overlap_the_window_count():
  stop = loader_jvm.Stop
  stops = loader_jvm.JvmStops(
      pauses=(stop(99.0, 30.0), stop(100.02, 30.0), stop(None, 5.0)),
      stalls=(stop(111.0, 2000.0), stop(112.5, 1.0)),
  )
  # The window 100..110 on a clock 1 s behind the loader's.
  kept = stops.Within(99.0, 109.0, offset_s=1.0)
  # A pause ending at 100.02 began at 99.99: it overlaps. A stall of 2 s
  # ending at 111 began at 109. One of unknown time is kept.
  assert kept.pauses == (stop(100.02, 30.0), stop(None, 5.0))
  assert kept.stalls == (stop(111.0, 2000.0),)
  assert kept.MaxMs() == 2000.0
  assert kept.TotalMs() == 35.0


@pytest.mark.parametrize(
    'java, collector',
    [(25, 'zgc'), (21, 'zgc'), (17, 'g1'), (11, 'g1')],
)
def test_auto_is_generational_zgc_from_java_21_else_g1(java, collector):
  assert loader_jvm.Collector('auto', java) == collector


def test_zgc_without_zgc_is_refused_naming_the_choices():
  with pytest.raises(ValueError) as e:
    loader_jvm.Collector('zgc', 11, 'for Apache Cassandra 4.1.10')
  assert str(e.value) == (
      'zgc needs Java 15 or later, not Java 11 (for Apache Cassandra'
      ' 4.1.10): use one of auto, g1, jvm_default'
  )


def test_zgc_of_one_generation_when_asked_before_java_21():
  assert loader_jvm.Collector('zgc', 17) == 'zgc'
  options = loader_jvm.Options(loader_jvm.LoaderJvm('zgc', 1024, 17), 'x.jvm')
  assert '-XX:+UseZGC' in options.split()
  assert 'ZGenerational' not in options


@pytest.mark.parametrize(
    'memory_gib, heap_mb',
    [(32, 8192), (64, 8192), (16, 4096), (8, 2048)],
)
def test_default_heap_is_a_quarter_of_memory_up_to_8_gib(memory_gib, heap_mb):
  assert loader_jvm.HeapMb(0, memory_gib * GIB) == heap_mb


def test_a_given_heap_wins():
  assert loader_jvm.HeapMb(1.5, 64 * GIB) == 1536


def test_jvm_default_leaves_the_heap_to_the_jvm_unless_given():
  assert loader_jvm.Choose('jvm_default', 0, 21, 32 * GIB).heap_mb == 0
  assert loader_jvm.Choose('jvm_default', 2, 21, 32 * GIB).heap_mb == 2048


def test_options_pin_the_heap_and_log_every_stop():
  jvm = loader_jvm.Choose('auto', 0, 21, 32 * GIB)
  assert loader_jvm.Options(jvm, '/tmp/s.loader0.jvm').split() == [
      '-Xms8192m',
      '-Xmx8192m',
      '-XX:+AlwaysPreTouch',
      '-XX:+UseZGC',
      '-XX:+ZGenerational',
      (
          '-Xlog:safepoint=info,gc=info:file=/tmp/s.loader0.jvm'
          ':timemillis,uptime,level,tags:filecount=0'
      ),
  ]


def test_generational_is_not_asked_where_it_is_the_only_zgc():
  options = loader_jvm.Options(loader_jvm.LoaderJvm('zgc', 1024, 25), 'x.jvm')
  assert '-XX:+UseZGC' in options.split()
  assert 'ZGenerational' not in options


def test_java_11_gets_no_log_it_cannot_be_read_from():
  options = loader_jvm.Options(loader_jvm.LoaderJvm('g1', 1024, 11), 'x.jvm')
  assert options == '-Xms1024m -Xmx1024m -XX:+AlwaysPreTouch -XX:+UseG1GC'


def test_a_log_path_the_launcher_would_split_is_refused():
  jvm = loader_jvm.LoaderJvm('g1', 0, 17)
  for path in ('/tmp/a b.jvm', '/tmp/*.jvm', '/tmp/a;b.jvm'):
    with pytest.raises(ValueError):
      loader_jvm.Options(jvm, path)


@pytest.mark.parametrize('java', sorted(JDKS))
@pytest.mark.parametrize('collector', ['zgc', 'g1', 'jvm_default'])
def test_real_jvms_start_with_the_options(tmp_path, java, collector):
  """What Options gives starts a real JVM and logs its stops there.

  On every JDK this host has (Java 21's -XX:+ZGenerational and Java 11 meet
  no real JVM here).
  """
  launcher = JDKS[java] / 'bin' / 'java'
  log = tmp_path / 'run.jvm'
  (tmp_path / 'run.jvm').write_text('left from an earlier run\n')
  jvm = loader_jvm.LoaderJvm(collector, 64, java)
  options = loader_jvm.Options(jvm, str(log))
  # As the launcher passes them: $JVM_OPTS split on blanks, unquoted.
  done = subprocess.run(
      ['sh', '-c', f'{shlex.quote(str(launcher))} $JVM_OPTS -version'],
      env={'JVM_OPTS': options},
      capture_output=True,
      text=True,
      check=False,
  )
  assert done.returncode == 0, done.stderr
  assert 'warning' not in done.stderr.lower()
  text = log.read_text()
  assert 'left from an earlier run' not in text
  assert '[gc' in text
  assert not list(tmp_path.glob('run.jvm.*'))
  # Every line carries the uptime, then the loader's clock.
  assert re.match(r'\[[\d.]+s\]\[\d+ms\]\[info\]\[gc', text)
