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

"""The patches for PKB itself (upstream/) apply to the pinned PKB and pass.

upstream/*.patch is a pull request for PerfKitBenchmarker
(upstream/README.md). In order, each patch must pass `git apply --check`
and is applied to a copy of the PKB checkout at the commit the plugin is
tested with: the checkout itself is never changed, the other tests use it.
In that copy, the PKB test files the series touches run under PKB's own
runner, `python -m unittest <file>` from PKB's root, one process per file
as PKB's Dockerfile runs them; its Python files pass PKB's license header
check (hooks/lib/check-boilerplate.sh) and, where the series changed them,
pyink in PKB's style. The series' HDR module must also agree with this
plugin's own HDR merging, which decodes with the hdrhistogram package, on
every real HDR log in tests/testdata.
"""

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from perfkit_plugins.core.results import histograms
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.tools import pkb_location

pytestmark = pytest.mark.pkb

REPO = pathlib.Path(__file__).resolve().parents[2]
PATCHES = sorted((REPO / 'upstream').glob('*.patch'))
TESTDATA = REPO / 'tests' / 'testdata'
# PKB's Dockerfile runs every file of `find tests/ | grep "test.py"`.
_PKB_TEST = re.compile(r'^tests/.*test\.py$')
_DIFF_PATHS = re.compile(r'diff --git a/(\S+) b/(\S+)\n')
_PYINK = (
    '--pyink-indentation=2',
    '--line-length=80',
    '--unstable',
    '--pyink-use-majority-quotes',
)


def _Run(args, cwd, timeout=120):
  return subprocess.run(
      args,
      cwd=cwd,
      capture_output=True,
      text=True,
      timeout=timeout,
      check=False,
  )


def _TouchedPaths():
  """(paths the series changes, paths it creates), in first-touched order."""
  touched, created = [], set()
  for patch in PATCHES:
    for diff in re.split(r'(?m)^(?=diff --git )', patch.read_text()):
      match = _DIFF_PATHS.match(diff)
      if not match:
        continue
      path = match.group(2)
      if path not in touched:
        touched.append(path)
      if '\nnew file mode ' in diff:
        created.add(path)
  return touched, created


def _PkbEnvironment():
  """PKB's tests see PKB alone: no PYTHONPATH, no plugin discovery."""
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  env['PERFKIT_PLUGINS_DISABLE'] = '1'
  return env


@pytest.fixture(scope='module')
def checkout():
  problem = pkb_checkout.Problem()
  if problem:
    pytest.skip(problem)
  path = pkb_checkout.Path()
  head = _Run(['git', '-C', path, 'rev-parse', 'HEAD'], cwd=REPO)
  if head.returncode:
    pytest.skip(f'{path} is not a git checkout: {head.stderr.strip()}')
  if head.stdout.strip() != pkb_location.TESTED_COMMIT:
    pytest.skip(
        f'the series is made for PKB {pkb_location.TESTED_COMMIT}; the'
        f' checkout at {path} is at {head.stdout.strip()}'
    )
  return pathlib.Path(path)


@pytest.fixture(scope='module')
def patched(checkout, tmp_path_factory):
  """A copy of the checkout with every patch applied in order."""
  copy = tmp_path_factory.mktemp('upstream') / 'PerfKitBenchmarker'
  shutil.copytree(
      checkout,
      copy,
      symlinks=True,
      ignore=shutil.ignore_patterns('.git', '__pycache__'),
  )
  # Its own repository, so that `git apply` patches this tree, whatever
  # repository the temporary directory may be in.
  _Run(['git', 'init', '-q'], cwd=copy)
  for patch in PATCHES:
    check = _Run(['git', 'apply', '--check', str(patch)], cwd=copy)
    assert check.returncode == 0, f'{patch.name}:\n{check.stderr}'
    applied = _Run(['git', 'apply', str(patch)], cwd=copy)
    assert applied.returncode == 0, f'{patch.name}:\n{applied.stderr}'
  return copy


def test_the_series_is_numbered_from_one():
  assert PATCHES, 'no upstream/*.patch'
  numbers = [int(p.name.split('-', 1)[0]) for p in PATCHES]
  assert numbers == list(range(1, len(PATCHES) + 1))
  for number, patch in enumerate(PATCHES, start=1):
    assert f'Subject: [PATCH {number}/{len(PATCHES)}]' in patch.read_text()


def test_each_patch_applies_in_order_to_the_pinned_pkb(patched):
  touched, _ = _TouchedPaths()
  assert all((patched / path).is_file() for path in touched)


def test_touched_pkb_tests_pass_under_pkbs_runner(patched):
  touched, _ = _TouchedPaths()
  tests = [path for path in touched if _PKB_TEST.match(path)]
  assert tests, 'the series changes no PKB test file'
  env = _PkbEnvironment()
  for test in tests:
    result = subprocess.run(
        [sys.executable, '-m', 'unittest', test],
        cwd=patched,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f'{test}:\n{result.stderr[-5000:]}'
    assert re.search(r'^OK', result.stderr, re.MULTILINE), result.stderr


def test_new_python_files_pass_pkbs_license_header_check(patched):
  # The files the series creates: it leaves the headers of the others as
  # they are (and PKB's script fails at random with SIGPIPE on executable
  # ones such as publisher.py, reading them through a pipe into head).
  _, created = _TouchedPaths()
  python = sorted(path for path in created if path.endswith('.py'))
  assert python
  result = _Run(
      ['bash', 'hooks/lib/check-boilerplate.sh', *python], cwd=patched
  )
  assert result.returncode == 0, result.stderr
  assert not result.stdout.strip(), 'no PKB license header:\n' + result.stdout


def _PyinkChangedLines(paths, cwd):
  """path -> the lines pyink would change in it (its diff's removed lines)."""
  result = _Run(
      [sys.executable, '-m', 'pyink', *_PYINK, '--diff', '--quiet', *paths],
      cwd=cwd,
  )
  assert result.returncode in (0, 1), result.stderr
  changed = {path: set() for path in paths}
  path = None
  for line in result.stdout.splitlines():
    if line.startswith('--- '):
      path = line[len('--- ') :].split('\t')[0]
    elif line.startswith('-'):
      changed[path].add(line[1:])
  return changed


def test_python_changes_are_pyink_formatted(patched, checkout):
  """New files are formatted; changed ones gain no unformatted line.

  A file PKB already has may hold lines today's pyink would change (e.g.
  cassandra_stress_benchmark.py's two blank lines after the imports): those
  must be the only ones.
  """
  touched, created = _TouchedPaths()
  python = [path for path in touched if path.endswith('.py')]
  after = _PyinkChangedLines(python, patched)
  before = _PyinkChangedLines(
      [path for path in python if path not in created], checkout
  )
  for path in python:
    changed = after[path] - before.get(path, set())
    assert not changed, f'{path}: pyink would change {sorted(changed)}'


def _UpstreamHdrModule(patched):
  spec = importlib.util.spec_from_file_location(
      'upstream_hdr_histogram',
      patched / 'perfkitbenchmarker' / 'hdr_histogram.py',
  )
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def _Statistics(histogram):
  """(count, mean, p50, p95, p99, p99.9, max) in ms, as HistogramSummary."""
  return (
      histogram.total_count,
      histogram.Mean() / 1e6,
      *(histogram.ValueAtPercentile(p) / 1e6 for p in (50, 95, 99, 99.9, 100)),
  )


def _Expected(summary):
  return (
      summary.count,
      summary.mean_ms,
      summary.p50_ms,
      summary.p95_ms,
      summary.p99_ms,
      summary.p999_ms,
      summary.max_ms,
  )


def test_upstream_hdr_module_agrees_with_the_plugin_on_real_logs(patched):
  hdr_histogram = _UpstreamHdrModule(patched)
  logs = sorted(TESTDATA.rglob('*.hdr'))
  assert len(logs) >= 10
  for path in logs:
    text = path.read_text()
    expected = histograms.MergeHdrLogs({path.name: text}).summaries
    for tag, histogram in hdr_histogram.ParseIntervalLog(text).items():
      assert _Statistics(histogram) == pytest.approx(
          _Expected(expected[tag]), rel=1e-12
      ), (path.name, tag)


def test_upstream_hdr_module_merges_two_loaders_as_the_plugin(patched):
  """The two loaders of one real step: the plugin's `total-st`."""
  hdr_histogram = _UpstreamHdrModule(patched)
  logs = {
      name: (
          (TESTDATA / 'stress' / f'reads_during_writes.{name}.hdr').read_text()
      )
      for name in ('loader0', 'loader1')
  }
  merged = hdr_histogram.Histogram()
  for text in logs.values():
    for tag, histogram in hdr_histogram.ParseIntervalLog(text).items():
      if tag.endswith('-st'):
        merged.Add(histogram)

  expected = histograms.MergeHdrLogs(logs).summaries['total-st']
  assert _Statistics(merged) == pytest.approx(_Expected(expected), rel=1e-12)
