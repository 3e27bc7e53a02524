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

Stock pkb.py in a subprocess, started by a wrapper that makes one plugin
module raise ImportError as it runs (as a PKB upgrade that moved a name
would make it), or that defines a `scylla_*` flag as PKB would once it
has one of that name. A broken benchmark module leaves the other
benchmarks of the same pkb.py run running and fails scylla_phases saying
why and which PKB commit the plugin is tested with; a broken package
module the run installs is refused before anything is provisioned; a
flag PKB defines too, before or after the plugin's, breaks nothing.
"""

import json
import os
import subprocess
import sys

import pytest

from perfkit_plugins.tools import pkb_location
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# pkb.py, run with one plugin module made to fail as it executes (a module
# name, or ''), and with PKB defining --scylla_release itself ('before' or
# 'after' the plugin defines its flags, or '').
_PKB = r"""
import importlib.machinery
import json
import os
import runpy
import sys

from absl import flags

broken, pkb_flag = json.loads(sys.argv.pop(1))
real_exec_module = importlib.machinery.SourceFileLoader.exec_module


def ExecModule(loader, module):
  if module.__name__ == broken:
    raise ImportError('simulated: a name this PKB no longer has')
  real_exec_module(loader, module)


def DefinePkbFlag():
  flags.DEFINE_string('scylla_release', '2099.1', "PKB's own flag.")


importlib.machinery.SourceFileLoader.exec_module = ExecModule
if pkb_flag == 'before':
  DefinePkbFlag()
if pkb_flag == 'after':
  import perfkit_plugins.shell.scylla_phases_flags
  DefinePkbFlag()
pkb = sys.argv.pop(1)
sys.argv[0] = pkb
sys.path.insert(0, os.path.dirname(pkb))
runpy.run_path(pkb, run_name='__main__')
"""

_BENCHMARK = 'perfkitbenchmarker.linux_benchmarks.scylla_phases_benchmark'
_SERVER_PACKAGE = 'perfkitbenchmarker.linux_packages.scylla_server'
_SIMULATED = '(ImportError: simulated: a name this PKB no longer has)'
_STUB_WARNING = 'does not import with this PKB'


def _Pkb(tmp_path, *args, broken='', pkb_flag='', timeout=300):
  return subprocess.run(
      [
          sys.executable,
          '-c',
          _PKB,
          json.dumps([broken, pkb_flag]),
          os.path.join(CHECKOUT, 'pkb.py'),
          *args,
          '--ignore_package_requirements',
          f'--temp_dir={tmp_path / "pkb"}',
      ],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONWARNINGS='ignore'),
      timeout=timeout,
      check=False,
  )


def test_a_broken_benchmark_module_leaves_the_others_configured(tmp_path):
  result = _Pkb(
      tmp_path,
      '--benchmarks=cluster_boot,scylla_phases',
      '--dry_run',
      broken=_BENCHMARK,
  )
  assert result.returncode == 0, result.stderr[-3000:]
  assert f'perfkit-plugins: {_BENCHMARK} {_STUB_WARNING} {_SIMULATED}' in (
      result.stderr
  )
  assert 'PKB will run with the following configurations' in result.stdout
  assert 'Benchmark name: cluster_boot\n' in result.stdout
  assert 'Benchmark name: scylla_phases\n' in result.stdout


def test_a_broken_benchmark_module_fails_scylla_phases_alone(tmp_path):
  """A real run: cluster_boot runs (and fails here for want of a cloud)."""
  result = _Pkb(
      tmp_path,
      '--benchmarks=cluster_boot,scylla_phases',
      '--run_uri=guard38',
      broken=_BENCHMARK,
      timeout=600,
  )
  assert result.returncode == 1, result.stderr[-3000:]
  statuses_file = tmp_path / 'pkb' / 'runs' / 'guard38'
  with open(statuses_file / 'completion_statuses.json') as f:
    statuses = {s['name']: s for s in map(json.loads, f)}
  assert list(statuses) == ['cluster_boot', 'scylla_phases']
  ours = statuses['scylla_phases']
  assert ours['status'] == 'FAILED'
  assert f'{_STUB_WARNING} {_SIMULATED}' in ours['status_detail']
  assert (
      f'the plugin is tested with PKB commit {pkb_location.TESTED_COMMIT}'
  ) in ours['status_detail']
  theirs = statuses['cluster_boot']
  assert 'perfkit-plugins' not in theirs.get('status_detail', ''), theirs
  assert 'Provisioning resources for benchmark cluster_boot' in result.stderr
  assert 'PluginImportError' in result.stderr


@pytest.mark.parametrize(
    'engine,refused', [('scylla', True), ('cassandra', False)]
)
def test_a_broken_package_module_is_refused_before_provisioning(
    tmp_path, engine, refused
):
  result = _Pkb(
      tmp_path,
      '--benchmarks=scylla_phases',
      f'--scylla_engine={engine}',
      '--dry_run',
      broken=_SERVER_PACKAGE,
  )
  assert (result.returncode != 0) == refused, result.stderr[-3000:]
  assert ('Prerequisite check failed for scylla_phases' in result.stderr) == (
      refused
  )
  assert (
      'scylla_phases installs scylla_server on the machines it would'
      ' provision; refused before provisioning (PKB then starts no benchmark'
      ' of this run: run the others without it): perfkit-plugins:'
      f' {_SERVER_PACKAGE} {_STUB_WARNING} {_SIMULATED}'
      in result.stderr
  ) == refused


@pytest.mark.parametrize('pkb_flag', ['before', 'after'])
def test_a_flag_pkb_defines_too_breaks_nothing(tmp_path, pkb_flag):
  result = _Pkb(tmp_path, '--helpmatch=scylla', pkb_flag=pkb_flag)
  assert result.returncode == 0, result.stderr[-3000:]
  assert _STUB_WARNING not in result.stderr
  assert 'perfkit_plugins.shell.scylla_phases_flags:' in result.stdout
  assert '--scylla_phases:' in result.stdout


@pytest.mark.parametrize('pkb_flag', ['before', 'after'])
def test_the_plugin_reads_the_flag_pkb_defines(pkb_flag):
  """Whichever defines it first, PKB's flag is the one both read."""
  script = f"""
from absl import flags
if {pkb_flag == 'after'}:
  from perfkit_plugins.shell import scylla_phases_flags
pkb_release = flags.DEFINE_string('scylla_release', '2099.1', "PKB's own.")
from perfkit_plugins.shell import scylla_phases_flags
flags.FLAGS(['pkb.py', '--scylla_release=2098.1'])
print(scylla_phases_flags.RELEASE.value, pkb_release.value,
      flags.FLAGS['scylla_release'].help)
"""
  result = subprocess.run(
      [sys.executable, '-c', script],
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 0, result.stderr
  assert result.stdout.split() == ['2098.1', '2098.1', "PKB's", 'own.']
