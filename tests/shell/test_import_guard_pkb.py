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

"""A plugin module that stops importing fails scylla_phases alone.

Stock pkb.py in a subprocess, where a module the benchmark imports raises
ImportError (as a PKB upgrade that moved a name would make it): another
benchmark's configurations still decode, and scylla_phases fails saying
why and which PKB commit the plugin is tested with.
"""

import os
import subprocess
import sys

from perfkit_plugins.tools import pkb_location
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()

# pkb.py, run with a module the plugin imports made to fail.
_BROKEN_PKB = r"""
import os
import runpy
import sys


class Broken:

  def find_spec(self, fullname, path, target=None):
    if fullname == 'perfkit_plugins.operations.cluster':
      raise ImportError('simulated: a name this PKB no longer has')
    return None


sys.meta_path.insert(0, Broken())
pkb = sys.argv.pop(1)
sys.argv[0] = pkb
sys.path.insert(0, os.path.dirname(pkb))
runpy.run_path(pkb, run_name='__main__')
"""


def _BrokenPkb(tmp_path, benchmark):
  return subprocess.run(
      [
          sys.executable,
          '-c',
          _BROKEN_PKB,
          os.path.join(CHECKOUT, 'pkb.py'),
          f'--benchmarks={benchmark}',
          '--dry_run',
          '--ignore_package_requirements',
          f'--temp_dir={tmp_path / "pkb"}',
      ],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONWARNINGS='ignore'),
      timeout=300,
      check=False,
  )


def test_a_plugin_that_does_not_import_leaves_other_benchmarks_running(
    tmp_path,
):
  other = _BrokenPkb(tmp_path, 'iperf')
  assert other.returncode == 0, other.stderr[-3000:]
  assert 'PKB will run with the following configurations' in other.stdout
  assert (
      'perfkit-plugins: perfkitbenchmarker.linux_benchmarks'
      '.scylla_phases_benchmark does not import with this PKB (ImportError:'
      ' simulated: a name this PKB no longer has)'
  ) in other.stderr
  ours = _BrokenPkb(tmp_path, 'scylla_phases')
  assert ours.returncode != 0
  assert 'PluginImportError' in ours.stderr
  assert (
      f'the plugin is tested with PKB commit {pkb_location.TESTED_COMMIT}'
  ) in ours.stderr
