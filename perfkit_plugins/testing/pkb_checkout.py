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

"""Locates the PerfKitBenchmarker checkout the PKB-dependent tests use.

PKB is not on PyPI: it runs from a checkout on sys.path, under Python 3.12,
with its requirements installed. Tests that need it call `RequireOrSkip()` at
module level, which puts the checkout on sys.path or skips the module with a
reason that says how to enable it.
"""

import os
import sys

from perfkit_plugins.local import pkb_process
from perfkit_plugins.tools import pkb_location

ENV = pkb_location.ENV
Path = pkb_location.Path


def Problem():
  """Why PKB cannot be used here, or None when it can."""
  path = Path()
  if not os.path.isfile(os.path.join(path, 'pkb.py')):
    return (
        f'no PerfKitBenchmarker checkout at {path}: set {ENV} to a checkout'
        ' (Python 3.12, its requirements.txt with pint<0.26 and'
        ' setuptools<81) to run the PKB tests'
    )
  if sys.version_info[:2] != (3, 12):
    return (
        f'PKB needs Python 3.12, this is {sys.version.split()[0]}: run the'
        ' tests from the virtualenv `bash .ci/run --setup` makes (it picks'
        ' Python 3.12, or set PYTHON=/path/to/python3.12)'
    )
  return None


def RequireOrSkip():
  """Puts the checkout on sys.path, or skips the calling test module.

  Returns:
    The checkout's path.
  """
  import pytest  # pylint: disable=g-import-not-at-top

  problem = Problem()
  if problem:
    pytest.skip(problem, allow_module_level=True)
  # A checkout that is there but does not import is a failure, not a skip.
  if Path() not in sys.path:
    sys.path.insert(0, Path())
  _ShareTestsPackage(os.path.join(Path(), 'tests'))
  return Path()


def _ShareTestsPackage(pkb_tests):
  """Lets `from tests import pkb_common_test_case` reach PKB's helpers.

  pytest (importlib mode) registers this repository's `tests` directory as
  a namespace package named `tests`, which hides PKB's own `tests` package;
  adding PKB's directory to that namespace makes both importable.
  """
  tests = sys.modules.get('tests')
  if tests is not None and getattr(tests, '__file__', None) is None:
    if pkb_tests not in list(tests.__path__):
      tests.__path__.append(pkb_tests)


def StartPkb(args, stdout, python=sys.executable, env=None):
  """Starts stock `pkb.py` with `args`; returns its Popen (output: stdout)."""
  return pkb_process.Start(Path(), args, stdout, python=python, env=env)


def RunPkb(args, timeout, python=sys.executable, env=None):
  """Runs stock `pkb.py` of the checkout with `args`.

  Args:
    args: pkb.py's arguments.
    timeout: seconds before the process is killed (a test failure).
    python: the interpreter (one with the plugin installed).
    env: environment; default this process's, without PYTHONPATH.

  Returns:
    subprocess.CompletedProcess with text stdout and stderr.
  """
  return pkb_process.Run(Path(), args, timeout, python=python, env=env)
