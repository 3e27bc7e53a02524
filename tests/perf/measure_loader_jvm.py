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

"""Measures what the loader JVM's collector and heap do to a latency step.

Runs real cassandra-stress (the tarball in ../shared/tools, or
$PERFKIT_PLUGINS_STRESS_TARBALL) against a real Cassandra node on loopback:
one populate, then fixed-rate reads under each JVM setting, interleaved
over rounds so drift hits every setting alike. For each run it prints the
loader's own stops (every safepoint from `-Xlog:safepoint`, and allocation
stalls from `-Xlog:gc`), its CPU seconds per 1,000 operations, and the
p99 / p99.9 / max latency cassandra-stress reports.

    python tests/perf/measure_loader_jvm.py [--rounds 2] [--seconds 90]
        [--rate 2000] [--threads 16] [--heap_mb 2048] [--command read]
        [--only java25-zgc,...] [--keep DIR]

--rate 0 runs as fast as it can (no fixed rate).

The settings are the loader options `core/stress/loader_jvm.py` can give
(the JVM's defaults, and its pinned ones per collector) on the JDKs this
host has. Figures from a 2-core host whose database shares the cores: read
them for the loader's own stops, which do not depend on the host's speed,
not as latency references.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

from perfkit_plugins.core.stress import loader_jvm
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.operations import java_install
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import local_vm

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_TARBALL = _ROOT.parent / 'shared/tools/cassandra-stress-3.18.1-bin.tar.gz'
_KEYS = 100_000
# Stands for each run's log path in the options.
_LOG = 'JVMLOG'


def HostJdks():
  """{Java major: JAVA_HOME} of the JDKs this host has."""
  installed = java_install.Installed(local_vm.LocalVm())
  return {j.major: pathlib.Path(j.home) for j in installed}


def _Settings(jdks, heap_mb, only):
  """(name, java major, JVM options): the settings compared."""
  settings = []
  for major in sorted(jdks):
    for collector in ('jvm_default', 'g1', 'zgc'):
      name = f'java{major}-{collector}'
      if only and name not in only:
        continue
      heap = 0 if collector == 'jvm_default' else heap_mb
      options = loader_jvm.Options(
          loader_jvm.LoaderJvm(collector, heap, major), _LOG
      )
      settings.append((name, major, options))
  return settings


def _Stress(stress, java_home, options, args, log_dir, name):
  """Runs cassandra-stress; returns (stdout, CPU seconds of its JVM)."""
  env = dict(os.environ, JAVA_HOME=str(java_home))
  if options:
    env['JVM_OPTS'] = options.replace(_LOG, str(log_dir / f'{name}.jvm'))
  with open(log_dir / f'{name}.out', 'w') as out:
    process = subprocess.Popen(
        [str(stress)] + args, env=env, stdout=out, stderr=subprocess.STDOUT
    )
    _, status, usage = os.wait4(process.pid, 0)
  if os.waitstatus_to_exitcode(status) != 0:
    raise RuntimeError(f'{name}: cassandra-stress failed, see {log_dir}')
  return (log_dir / f'{name}.out').read_text(), usage.ru_utime + usage.ru_stime


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--rounds', type=int, default=2)
  parser.add_argument('--seconds', type=int, default=90)
  parser.add_argument('--rate', type=int, default=2000)
  parser.add_argument('--threads', type=int, default=16)
  parser.add_argument('--heap_mb', type=int, default=2048)
  parser.add_argument('--only', default='', help='e.g. java25-zgc,java17-g1')
  parser.add_argument(
      '--command', default='read', choices=('read', 'write'), help='the step'
  )
  parser.add_argument('--keep', help='directory for every output')
  args = parser.parse_args(argv)
  jdks = HostJdks()
  settings = _Settings(
      jdks, args.heap_mb, set(filter(None, args.only.split(',')))
  )
  tarball = pathlib.Path(
      os.environ.get('PERFKIT_PLUGINS_STRESS_TARBALL', _TARBALL)
  )
  work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix='loader-jvm-'))
  work.mkdir(parents=True, exist_ok=True)
  with tarfile.open(tarball) as archive:
    archive.extractall(work / 'tool', filter='data')
  stress = work / 'tool/cassandra-stress/bin/cassandra-stress'
  version = cassandra_node.VERSIONS[0]
  node = cassandra_node.CassandraNode(
      version, work / 'node', cassandra_node.FetchJars(version)
  )
  logs = work / 'logs'
  logs.mkdir(exist_ok=True)
  common = ['cl=ONE', 'no-warmup', '-node', cassandra_node.LOOPBACK]
  common += ['-port', f'native={node.native_port}']
  node.Start()
  try:
    _Stress(
        stress,
        jdks[min(jdks)],
        '',
        ['write', f'n={_KEYS}'] + common + ['-pop', f'seq=1..{_KEYS}'],
        logs,
        'populate',
    )
    node.Nodetool('flush')
    rows = []
    for round_index in range(args.rounds):
      for name, major, options in settings:
        run = f'{name}-r{round_index}'
        started = time.monotonic()
        out, cpu_s = _Stress(
            stress,
            jdks[major],
            options,
            [args.command, f'duration={args.seconds}s']
            + common
            + ['-pop', f'dist=uniform(1..{_KEYS})']
            + ['-rate', f'threads={args.threads}']
            + ([f'fixed={args.rate}/s'] if args.rate else []),
            logs,
            run,
        )
        total = stress_output.ParseStressOutput(out).results.total
        stops = loader_jvm.ParseJvmLog((logs / f'{run}.jvm').read_text())
        ops = total.op_rate * args.seconds
        rows.append((
            name,
            stops,
            1000 * cpu_s / ops,
            total.latency,
            time.monotonic() - started,
        ))
        print(
            f'{run:28} stops {len(stops.pauses):5d}'
            f' stalls {len(stops.stalls):4d}'
            f' max {stops.MaxMs():7.2f} ms sum {stops.TotalMs():8.1f} ms'
            f' | cpu {1000 * cpu_s / ops:6.3f} s/kop'
            f' | p99 {total.latency.p99_ms:6.2f} p99.9'
            f' {total.latency.p999_ms:6.2f} max {total.latency.max_ms:7.2f} ms',
            flush=True,
        )
  finally:
    node.Stop()
  print('\nmedians over rounds (max stop ms, stop sum ms, cpu s/kop, p99.9 ms)')
  for name, _, _ in settings:
    mine = [r for r in rows if r[0] == name]
    print(
        f'{name:28}'
        f' {statistics.median(r[1].MaxMs() for r in mine):7.2f}'
        f' {statistics.median(r[1].TotalMs() for r in mine):8.1f}'
        f' {statistics.median(r[2] for r in mine):6.3f}'
        f' {statistics.median(r[3].p999_ms for r in mine):7.2f}'
    )
  if not args.keep:
    shutil.rmtree(work, ignore_errors=True)
  return 0


if __name__ == '__main__':
  sys.exit(main())
