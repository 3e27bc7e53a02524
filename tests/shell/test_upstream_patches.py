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

"""Each pull request for PKB itself (upstream/) applies alone and passes.

upstream/NN-name/ is one pull request for PerfKitBenchmarker, its patches
numbered in order (upstream/README.md); NN is the order they are sent in,
and each must stand alone: no pull request needs another one merged first.
Each one's patches must pass `git apply --check` and are applied, in order,
to a copy of the PKB checkout at the commit the plugin is tested with (the
checkout itself is never changed, the other tests use it), and to a copy
of PKB's newest master when PKB_MASTER_CHECKOUT names a checkout of it. In
that copy, the PKB test files the pull request touches run under PKB's own
runner, `python -m unittest <file>` from PKB's root, one process per file
as PKB's Dockerfile runs them; the Python files it touches pass PKB's
license header check (hooks/lib/check-boilerplate.sh), and what it changes
passes pyink in PKB's style. The HDR module of the pull request that adds
one must also agree with this plugin's own HDR merging, which decodes with
the hdrhistogram package, on every real HDR log in tests/testdata.
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
PULL_REQUESTS = sorted(
    path for path in (REPO / 'upstream').iterdir() if path.is_dir()
)
TESTDATA = REPO / 'tests' / 'testdata'
# A checkout of PKB's newest master, to apply each pull request to as well.
MASTER_ENV = 'PKB_MASTER_CHECKOUT'
HDR_MODULE = 'perfkitbenchmarker/hdr_histogram.py'
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


def _Patches(pull_request):
  return sorted(pull_request.glob('*.patch'))


def _TouchedPaths(pull_request):
  """(paths a pull request changes, paths it creates), first-touched first."""
  touched, created = [], set()
  for patch in _Patches(pull_request):
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


def _HeaderChecked(pull_request, patched):
  """The Python files of a pull request PKB's license header check reads.

  PKB's script fails at random with SIGPIPE on executable files (such as
  publisher.py), reading them through a pipe into head: those are left out.
  """
  touched, _ = _TouchedPaths(pull_request)
  return [
      path
      for path in touched
      if path.endswith('.py') and not os.access(patched / path, os.X_OK)
  ]


def _PkbEnvironment():
  """PKB's tests see PKB alone: no PYTHONPATH, no plugin discovery."""
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  env['PERFKIT_PLUGINS_DISABLE'] = '1'
  return env


def _Head(path):
  head = _Run(['git', '-C', path, 'rev-parse', 'HEAD'], cwd=REPO)
  if head.returncode:
    pytest.skip(f'{path} is not a git checkout: {head.stderr.strip()}')
  return head.stdout.strip()


@pytest.fixture(scope='module')
def checkout():
  problem = pkb_checkout.Problem()
  if problem:
    pytest.skip(problem)
  path = pkb_checkout.Path()
  head = _Head(path)
  if head != pkb_location.TESTED_COMMIT:
    pytest.skip(
        f'the pull requests are made for PKB {pkb_location.TESTED_COMMIT};'
        f' the checkout at {path} is at {head}'
    )
  return pathlib.Path(path)


@pytest.fixture(scope='module')
def master():
  path = os.environ.get(MASTER_ENV)
  if not path:
    pytest.skip(f'no checkout of PKB master: set {MASTER_ENV} to one')
  _Head(path)
  return pathlib.Path(path)


@pytest.fixture(scope='module')
def apply_alone(tmp_path_factory):
  """Applies one pull request alone to a copy of a PKB checkout, once.

  Returns:
    function(pull request directory, checkout) -> the patched copy.
  """
  copies = {}

  def Apply(pull_request, checkout):
    key = (pull_request, checkout)
    if key not in copies:
      copy = tmp_path_factory.mktemp(pull_request.name) / 'PerfKitBenchmarker'
      shutil.copytree(
          checkout,
          copy,
          symlinks=True,
          ignore=shutil.ignore_patterns('.git', '__pycache__'),
      )
      # Its own repository, so that `git apply` patches this tree, whatever
      # repository the temporary directory may be in.
      _Run(['git', 'init', '-q'], cwd=copy)
      for patch in _Patches(pull_request):
        check = _Run(['git', 'apply', '--check', str(patch)], cwd=copy)
        assert check.returncode == 0, f'{patch}:\n{check.stderr}'
        applied = _Run(['git', 'apply', str(patch)], cwd=copy)
        assert applied.returncode == 0, f'{patch}:\n{applied.stderr}'
      copies[key] = copy
    return copies[key]

  return Apply


def test_pull_requests_are_numbered_in_sending_order():
  assert PULL_REQUESTS, 'no upstream/NN-name/ directory'
  numbers = [int(path.name.split('-', 1)[0]) for path in PULL_REQUESTS]
  assert numbers == list(range(1, len(PULL_REQUESTS) + 1))
  for pull_request in PULL_REQUESTS:
    patches = _Patches(pull_request)
    assert patches, f'{pull_request.name} holds no patch'
    assert [int(p.name.split('-', 1)[0]) for p in patches] == list(
        range(1, len(patches) + 1)
    )
    for number, patch in enumerate(patches, start=1):
      subject = (
          f'[PATCH {number}/{len(patches)}]' if len(patches) > 1 else '[PATCH]'
      )
      assert f'Subject: {subject} ' in patch.read_text(), patch


def _ApplyAndRunPkbTests(pull_request, patched):
  touched, _ = _TouchedPaths(pull_request)
  assert all((patched / path).is_file() for path in touched)
  tests = [path for path in touched if _PKB_TEST.match(path)]
  assert tests, f'{pull_request.name} changes no PKB test file'
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


@pytest.mark.parametrize('pull_request', PULL_REQUESTS, ids=lambda p: p.name)
def test_applies_alone_to_the_pinned_pkb_and_its_tests_pass(
    pull_request, checkout, apply_alone
):
  _ApplyAndRunPkbTests(pull_request, apply_alone(pull_request, checkout))


@pytest.mark.parametrize('pull_request', PULL_REQUESTS, ids=lambda p: p.name)
def test_applies_alone_to_pkb_master_and_its_tests_pass(
    pull_request, master, apply_alone
):
  _ApplyAndRunPkbTests(pull_request, apply_alone(pull_request, master))


@pytest.mark.parametrize('pull_request', PULL_REQUESTS, ids=lambda p: p.name)
def test_python_files_pass_pkbs_license_header_check(
    pull_request, checkout, apply_alone
):
  patched = apply_alone(pull_request, checkout)
  python = _HeaderChecked(pull_request, patched)
  assert python, f'{pull_request.name} changes no Python file'
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


@pytest.mark.parametrize('pull_request', PULL_REQUESTS, ids=lambda p: p.name)
def test_python_changes_are_pyink_formatted(
    pull_request, checkout, apply_alone
):
  """New files are formatted; changed ones gain no unformatted line.

  A file PKB already has may hold lines today's pyink would change (e.g.
  cassandra_stress_benchmark.py's two blank lines after the imports): those
  must be the only ones.
  """
  touched, created = _TouchedPaths(pull_request)
  python = [path for path in touched if path.endswith('.py')]
  after = _PyinkChangedLines(python, apply_alone(pull_request, checkout))
  before = _PyinkChangedLines(
      [path for path in python if path not in created], checkout
  )
  for path in python:
    changed = after[path] - before.get(path, set())
    assert not changed, f'{path}: pyink would change {sorted(changed)}'


@pytest.fixture(scope='module')
def hdr_patched(checkout, apply_alone):
  """PKB with the pull request that adds HDR_MODULE applied alone."""
  (pull_request,) = [
      p for p in PULL_REQUESTS if HDR_MODULE in _TouchedPaths(p)[1]
  ]
  return apply_alone(pull_request, checkout)


def _UpstreamHdrModule(patched):
  spec = importlib.util.spec_from_file_location(
      'upstream_hdr_histogram', patched / HDR_MODULE
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


def test_upstream_hdr_module_agrees_with_the_plugin_on_real_logs(hdr_patched):
  hdr_histogram = _UpstreamHdrModule(hdr_patched)
  logs = sorted(TESTDATA.rglob('*.hdr'))
  assert len(logs) >= 10
  for path in logs:
    text = path.read_text()
    expected = histograms.MergeHdrLogs({path.name: text}).summaries
    for tag, histogram in hdr_histogram.ParseIntervalLog(text).items():
      assert _Statistics(histogram) == pytest.approx(
          _Expected(expected[tag]), rel=1e-12
      ), (path.name, tag)


def test_upstream_hdr_module_merges_two_loaders_as_the_plugin(hdr_patched):
  """The two loaders of one real step: the plugin's `total-st`."""
  hdr_histogram = _UpstreamHdrModule(hdr_patched)
  logs = {
      name: (
          (TESTDATA / 'stress' / f'reads_during_writes.{name}.hdr').read_text()
      )
      for name in ('loader0', 'loader1')
  }
  merged = hdr_histogram.Histogram()
  for text in logs.values():
    service_times = hdr_histogram.ParseIntervalLog(
        text, lambda tag: tag.endswith('-st')
    )
    for histogram in service_times.values():
      merged.Add(histogram)

  expected = histograms.MergeHdrLogs(logs).summaries['total-st']
  assert _Statistics(merged) == pytest.approx(_Expected(expected), rel=1e-12)
