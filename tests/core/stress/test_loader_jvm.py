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
import shlex
import subprocess

import pytest

from perfkit_plugins.core.stress import loader_jvm

JVM_LOGS = pathlib.Path(__file__).parents[2] / 'testdata' / 'jvm'
GIB = 2**30
# JDKs of this host, to check the options against real JVMs.
JDKS = {
    17: pathlib.Path('/usr/lib/jvm/java-17-openjdk-amd64'),
    25: pathlib.Path('/usr/lib/jvm/temurin-25-jdk-amd64'),
}


def _Stops(name):
  return loader_jvm.ParseJvmLog((JVM_LOGS / name).read_text())


def test_every_safepoint_of_a_java17_g1_log_is_read():
  stops = _Stops('java17-g1.jvm')
  assert len(stops.pauses_ms) == 18
  # Its longest: `Safepoint "G1CollectForAllocation", ... Total: 18335129 ns`.
  assert stops.MaxMs() == pytest.approx(18.335129)
  assert stops.TotalMs() == pytest.approx(41.506393)
  assert stops.stalls_ms == ()


def test_java17_padded_tags_and_java25_fields_are_read():
  assert len(_Stops('java17-zgc.jvm').pauses_ms) == 22
  java25 = _Stops('java25-zgc.jvm')
  assert len(java25.pauses_ms) == 6
  assert java25.MaxMs() == pytest.approx(0.504449)


def test_the_jvms_own_choice_stops_longer_than_generational_zgc():
  assert _Stops('java25-jvm_default.jvm').MaxMs() > 20
  assert _Stops('java25-zgc.jvm').MaxMs() < 1


def test_an_empty_log_has_no_stops():
  assert loader_jvm.ParseJvmLog('') == loader_jvm.JvmStops()
  assert loader_jvm.JvmStops().MaxMs() == 0


@pytest.mark.parametrize(
    'java, collector',
    [(25, 'zgc'), (21, 'zgc'), (17, 'g1'), (11, 'g1')],
)
def test_auto_is_generational_zgc_from_java_21_else_g1(java, collector):
  assert loader_jvm.Collector('auto', java) == collector


def test_zgc_before_java_21_is_refused_naming_the_choices():
  with pytest.raises(ValueError) as e:
    loader_jvm.Collector('zgc', 17, 'for Apache Cassandra 5.0.9')
  assert str(e.value) == (
      'zgc needs Java 21 or later (generational ZGC), not Java 17 (for'
      ' Apache Cassandra 5.0.9): use one of auto, g1, jvm_default'
  )


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
          ':uptime,level,tags:filecount=0'
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
  """What Options gives starts a real JVM and logs its stops there."""
  launcher = JDKS[java] / 'bin' / 'java'
  if not launcher.exists():
    pytest.skip(f'no Java {java} at {JDKS[java]}')
  log = tmp_path / 'run.jvm'
  (tmp_path / 'run.jvm').write_text('left from an earlier run\n')
  jvm = loader_jvm.LoaderJvm(collector, 64, java)
  try:
    loader_jvm.Collector(collector, java)
  except ValueError:
    pytest.skip(f'{collector} is refused on Java {java}')
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
