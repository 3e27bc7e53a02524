"""Measures what installing the plugin adds to pkb.py start-up.

Imports `perfkitbenchmarker.pkb` (what every pkb.py run does first: it loads
every benchmark and package module, ours included) in fresh interpreters,
alternately with the plugin's discovery on and off (PERFKIT_PLUGINS_DISABLE),
and prints the median of each and the difference.

Run: python tests/perf/bench_pkb_startup.py [--runs 7]
  (with the plugin installed and PKB_CHECKOUT or /opt/PerfKitBenchmarker).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

_IMPORT = 'import perfkitbenchmarker.pkb'


def _Once(checkout, disabled):
  env = dict(os.environ, PYTHONPATH=checkout, PYTHONWARNINGS='ignore')
  env.pop('PERFKIT_PLUGINS_DISABLE', None)
  if disabled:
    env['PERFKIT_PLUGINS_DISABLE'] = '1'
  start = time.perf_counter()
  subprocess.run([sys.executable, '-c', _IMPORT], env=env, check=True)
  return time.perf_counter() - start


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--runs', type=int, default=7)
  args = parser.parse_args()
  checkout = os.environ.get('PKB_CHECKOUT', '/opt/PerfKitBenchmarker')
  _Once(checkout, False)  # warm the file cache and bytecode
  _Once(checkout, True)
  with_plugin, without = [], []
  for _ in range(args.runs):
    with_plugin.append(_Once(checkout, False))
    without.append(_Once(checkout, True))
  on, off = statistics.median(with_plugin), statistics.median(without)
  print(f'import perfkitbenchmarker.pkb, median of {args.runs} runs:')
  print(f'  without the plugin: {off * 1000:7.0f} ms')
  print(f'  with the plugin:    {on * 1000:7.0f} ms')
  print(f'  added:              {(on - off) * 1000:7.0f} ms')


if __name__ == '__main__':
  main()
