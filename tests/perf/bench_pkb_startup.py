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

"""Measures what installing the plugin adds to pkb.py start-up.

Imports `perfkitbenchmarker.pkb` (what every pkb.py run does first: it loads
every benchmark and package module, ours included) in fresh interpreters,
alternately with the plugin's discovery on and off (PERFKIT_PLUGINS_DISABLE),
and prints the median wall time of each and the difference (with bytecode
caches written and read, as after pip install, even where
PYTHONDONTWRITEBYTECODE is set). On a loaded
2-core machine that difference moves by a few hundred ms from run to run, so
the script also prints the exact cost from `python -X importtime`, median
over the same runs: the self import times of the modules imported only with
the plugin on (ours and the libraries only we use), plus what the installed
start-up hooks cost in every process even when discovery is off (the
cumulative import time of our `.pth` file's module and, in an editable
install, setuptools' finder for it).

Run: python tests/perf/bench_pkb_startup.py [--runs 15]
  (with the plugin installed and PKB_CHECKOUT or /opt/PerfKitBenchmarker).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

_IMPORT = 'import perfkitbenchmarker.pkb'
# `import time: self [us] | cumulative | imported package` lines.
_IMPORT_TIME = re.compile(r'^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$')
# Modules the installed `.pth` files import at every interpreter start.
_HOOK_MODULE = re.compile(r'^(perfkit_plugins\b|__editable___perfkit_plugins)')


def _Once(checkout, disabled):
  """(wall seconds, {module: self µs}, hooks µs) of one fresh import.

  hooks: the cumulative import time of the outermost modules that the
  plugin's start-up hooks import (what they cost even when disabled).
  """
  env = dict(os.environ, PYTHONPATH=checkout, PYTHONWARNINGS='ignore')
  env.pop('PERFKIT_PLUGINS_DISABLE', None)
  # Users' imports read cached bytecode (pip compiles it on install); the
  # warm-up runs write it where this environment would not.
  env.pop('PYTHONDONTWRITEBYTECODE', None)
  if disabled:
    env['PERFKIT_PLUGINS_DISABLE'] = '1'
  start = time.perf_counter()
  result = subprocess.run(
      [sys.executable, '-X', 'importtime', '-c', _IMPORT],
      env=env,
      check=True,
      capture_output=True,
      text=True,
  )
  wall = time.perf_counter() - start
  modules = {}
  hooks = {}
  for line in result.stderr.splitlines():
    match = _IMPORT_TIME.match(line)
    if match:
      own, cumulative, indent, name = match.groups()
      modules[name] = int(own)
      if _HOOK_MODULE.match(name):
        hooks[name] = (len(indent), int(cumulative))
  outermost = min((depth for depth, _ in hooks.values()), default=0)
  hook_us = sum(us for depth, us in hooks.values() if depth == outermost)
  return wall, modules, hook_us


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--runs', type=int, default=15)
  args = parser.parse_args()
  checkout = os.environ.get('PKB_CHECKOUT', '/opt/PerfKitBenchmarker')
  _Once(checkout, False)  # warm the file cache and bytecode
  _Once(checkout, True)
  with_plugin, without, added, hooks = [], [], [], []
  for _ in range(args.runs):
    on_wall, on_modules, _ = _Once(checkout, False)
    off_wall, off_modules, hook_us = _Once(checkout, True)
    with_plugin.append(on_wall)
    without.append(off_wall)
    only_on = set(on_modules) - set(off_modules)
    added.append(sum(on_modules[m] for m in only_on) / 1e6)
    hooks.append(hook_us / 1e6)
  on, off = statistics.median(with_plugin), statistics.median(without)
  print(f'import perfkitbenchmarker.pkb, median of {args.runs} runs:')
  print(
      f'  without the plugin: {off * 1000:7.0f} ms (fastest'
      f' {min(without) * 1000:.0f} ms)'
  )
  print(
      f'  with the plugin:    {on * 1000:7.0f} ms (fastest'
      f' {min(with_plugin) * 1000:.0f} ms)'
  )
  print(
      f'  added (wall):       {(on - off) * 1000:7.0f} ms (fastest to fastest'
      f' {(min(with_plugin) - min(without)) * 1000:.0f} ms)'
  )
  print(
      f'  added (import time of the {len(only_on)} modules only the plugin'
      f' imports): {statistics.median(added) * 1000:.0f} ms'
  )
  print(
      '  start-up hooks (in every process, discovery on or off):'
      f' {statistics.median(hooks) * 1000:.0f} ms'
  )
  print(
      '  added in all (import time):'
      f' {(statistics.median(added) + statistics.median(hooks)) * 1000:.0f} ms'
      ' (budget 150 ms)'
  )


if __name__ == '__main__':
  main()
