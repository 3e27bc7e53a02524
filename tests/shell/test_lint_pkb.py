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

"""The production code passes pylint with PKB's own .pylintrc.

What upstream review would run first. The test helpers
(perfkit_plugins/testing) are not production code. A message that is
deliberate is disabled on its line with the reason beside it. Needs a PKB
checkout (its .pylintrc, and PKB on the path so imports resolve).
"""

import os
import pathlib
import subprocess
import sys

import pytest

from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_production_code_passes_pkbs_pylint():
  result = subprocess.run(
      [
          sys.executable,
          '-m',
          'pylint',
          f'--rcfile={os.path.join(CHECKOUT, ".pylintrc")}',
          '--ignore=testing',
          '--score=no',
          'perfkit_plugins',
          'linux_packages',
      ],
      capture_output=True,
      text=True,
      cwd=REPO,
      env=dict(os.environ, PYTHONPATH=os.pathsep.join([CHECKOUT, str(REPO)])),
      timeout=600,
      check=False,
  )
  assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
