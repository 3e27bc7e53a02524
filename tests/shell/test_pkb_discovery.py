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

"""Stock pkb.py sees the plugin as if it were in PKB's tree.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from perfkit_plugins import discovery
from perfkit_plugins.shell import scylla_phases_flags
from perfkit_plugins.testing import pkb_checkout
from perfkit_plugins.tools import local_run

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

REPO = pathlib.Path(__file__).resolve().parents[2]
CONFIG_FILES = sorted(p.name for p in (REPO / 'configs').glob('*.yaml'))
_GROUPS_RE = re.compile(r'scylla_phases decoded groups: (\{.*\})')


def RunPkb(*args, env=None, tmp_path=None):
  """Runs the checkout's pkb.py; returns the CompletedProcess."""
  full_env = dict(os.environ, **(env or {}))
  full_env.setdefault('PYTHONWARNINGS', 'ignore')
  # No cloud SDK is needed to decode configs (AWS's awscli is not here).
  temp = ['--ignore_package_requirements']
  if tmp_path:
    temp += ['--temp_dir', str(tmp_path)]
  return subprocess.run(
      [sys.executable, os.path.join(CHECKOUT, 'pkb.py'), *args, *temp],
      capture_output=True,
      text=True,
      env=full_env,
      cwd=tmp_path or CHECKOUT,
      timeout=300,
      check=False,
  )


def RunPkbScript(tmp_path, text, *args):
  """Runs a Python script against the checkout; returns its last line's JSON.

  For checks that go through PKB's own functions in one process.
  """
  script = tmp_path / 'script.py'
  script.write_text(text)
  result = subprocess.run(
      [sys.executable, str(script), *args],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONPATH=CHECKOUT, PYTHONWARNINGS='ignore'),
      timeout=300,
      check=False,
  )
  assert result.returncode == 0, result.stderr[-3000:]
  return json.loads(result.stdout.splitlines()[-1])


def DecodedGroups(result):
  """The VM groups the benchmark logged after PKB decoded its config."""
  assert result.returncode == 0, result.stderr[-3000:]
  match = _GROUPS_RE.search(result.stderr + result.stdout)
  assert match, result.stderr[-3000:]
  return json.loads(match.group(1))


def test_helpmatch_lists_every_flag(tmp_path):
  result = RunPkb('--helpmatch=scylla_phases', tmp_path=tmp_path)
  assert result.returncode == 0, result.stderr[-2000:]
  for holder in scylla_phases_flags.ALL:
    assert re.search(rf'--(\[no\])?{holder.name}:', result.stdout), holder.name


def test_machine_type_sets_servers_only(tmp_path):
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          '--machine_type=z3-highmem-88',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  servers, loaders = groups['servers'], groups['loaders']
  assert servers['machine_type'] == 'z3-highmem-88'
  assert servers['vm_count'] == 3
  # PKB registers the local SSDs without striping, formatting or mounting
  # them; scylla_raid_setup builds the one RAID0 (see
  # perfkit_plugins/operations/raid.py).
  assert servers['disk'] == {'disk_type': 'local', 'num_striped_disks': 1}
  assert servers['data_volume']['local_ssds'] == 12
  assert servers['data_volume']['mount_point'] == '/var/lib/scylla'
  assert 'RAID0' in servers['data_volume']['raid']
  assert loaders['machine_type'] == 'n2-highcpu-32'
  assert loaders['disk'] is None
  # 3 x 88 server vCPUs at 3.4 loader vCPUs each, on 32-vCPU loaders.
  assert loaders['vm_count'] == 29


_SPEC_MACHINE_TYPES_SCRIPT = r"""
import json, sys
from absl import flags
from perfkitbenchmarker import pkb
from perfkitbenchmarker import vm_util
FLAGS = flags.FLAGS
FLAGS(['pkb'] + sys.argv[1:])
FLAGS.run_uri = 'scylla01'
vm_util.GenTempDir()
print(json.dumps({
    spec.name: {
        name: group.vm_spec.machine_type
        for name, group in spec.config.vm_groups.items()
    }
    for spec in pkb._CreateBenchmarkSpecs()
}))
"""


@pytest.mark.parametrize(
    'benchmarks',
    ['scylla_phases,cassandra_stress', 'cassandra_stress,scylla_phases'],
)
def test_machine_type_still_applies_to_other_benchmarks(tmp_path, benchmarks):
  """Routing --machine_type to our servers leaves it to later benchmarks.

  Goes through pkb.py's own spec creation loop (GetConfig, config decoding
  and CheckPrerequisites of each benchmark in turn).
  """
  types = RunPkbScript(
      tmp_path,
      _SPEC_MACHINE_TYPES_SCRIPT,
      f'--benchmarks={benchmarks}',
      '--machine_type=z3-highmem-88',
      '--ignore_package_requirements',
      f'--temp_dir={tmp_path}',
  )
  assert types['scylla_phases'] == {
      'servers': 'z3-highmem-88',
      'loaders': 'n2-highcpu-32',
  }
  assert set(types['cassandra_stress'].values()) == {'z3-highmem-88'}


def test_loader_type_flag_and_network_disk(tmp_path):
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          '--machine_type=n2-highmem-16',
          '--scylla_loader_machine_type=n2-highcpu-8',
          '--scylla_loader_count=2',
          '--scylla_data_disk=network',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  assert groups['servers']['machine_type'] == 'n2-highmem-16'
  assert groups['servers']['disk']['disk_type'] == 'pd-ssd'
  assert groups['servers']['disk']['mount_point'] == '/var/lib/scylla'
  assert groups['loaders'] == {
      'cloud': 'GCP',
      'vm_count': 2,
      'machine_type': 'n2-highcpu-8',
      'disk': None,
  }


def test_flag_matrix_machine_type_reaches_servers_only(tmp_path):
  config = tmp_path / 'matrix.yaml'
  config.write_text(
      'scylla_phases:\n'
      '  flag_matrix: types\n'
      '  flag_matrix_defs:\n'
      '    types:\n'
      '      machine_type: [z3-highmem-88]\n'
  )
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          f'--benchmark_config_file={config}',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  assert groups['servers']['machine_type'] == 'z3-highmem-88'
  assert groups['servers']['data_volume']['local_ssds'] == 12
  assert groups['loaders']['machine_type'] == 'n2-highcpu-32'


@pytest.mark.parametrize('config_file', CONFIG_FILES)
def test_config_file_by_name(tmp_path, config_file):
  result = RunPkb(
      '--benchmarks=scylla_phases',
      f'--benchmark_config_file={config_file}',
      '--dry_run',
      tmp_path=tmp_path,
  )
  groups = DecodedGroups(result)
  assert groups['servers']['vm_count'] >= 1
  assert groups['loaders']['vm_count'] >= 1


@pytest.mark.parametrize(
    'flag, message',
    [
        (
            '--scylla_replication_factor=5',
            '--scylla_replication_factor: 5 is above the server count 3',
        ),
        (
            '--machine_type=bogus-8',
            "--machine_type: unknown machine type 'bogus-8'",
        ),
    ],
)
def test_bad_value_on_the_command_line_stops_pkb(tmp_path, flag, message):
  result = RunPkb(
      '--benchmarks=scylla_phases', flag, '--dry_run', tmp_path=tmp_path
  )
  assert result.returncode != 0
  assert message in result.stderr + result.stdout


def test_names_and_flags_do_not_collide_with_pkb(tmp_path):
  """No module name and no flag of ours exists in PKB itself."""
  script = (
      'import json; from absl import flags;'
      ' import perfkitbenchmarker.pkb;'
      ' from perfkitbenchmarker import linux_benchmarks, linux_packages;'
      ' print(json.dumps({"flags": sorted(flags.FLAGS),'
      ' "benchmarks": sorted(m.__name__ for m in linux_benchmarks.ALL_FILES),'
      ' "packages": sorted(linux_packages.PACKAGES)}))'
  )
  result = subprocess.run(
      [sys.executable, '-c', script],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(
          os.environ,
          PYTHONPATH=CHECKOUT,
          PYTHONWARNINGS='ignore',
          **{discovery.DISABLE_ENV: '1'},
      ),
      timeout=300,
      check=True,
  )
  pkb_names = json.loads(result.stdout.splitlines()[-1])
  ours_flags = {holder.name for holder in scylla_phases_flags.ALL}
  assert not ours_flags & set(pkb_names['flags'])
  ours_benchmarks = {
      'perfkitbenchmarker.linux_benchmarks.' + p.stem
      for p in (REPO / 'perfkit_plugins' / 'linux_benchmarks').glob('*.py')
  }
  assert not ours_benchmarks & set(pkb_names['benchmarks'])
  ours_packages = {p.stem for p in (REPO / 'linux_packages').glob('*.py')}
  assert ours_packages
  assert not ours_packages & set(pkb_names['packages'])
  assert all(name.startswith('scylla_') for name in ours_packages)
  # The pkb.py flags scylla-phases-local sets itself or refuses are PKB's
  # (and absl's --flagfile, which FLAGS does not list).
  refused = local_run.RESERVED_PKB_FLAGS + local_run.HOST_CHANGING_PKB_FLAGS
  assert set(refused) - set(pkb_names['flags']) == {'flagfile'}


def test_pkb_own_tests_pass_with_the_plugin_installed():
  result = subprocess.run(
      [
          sys.executable,
          '-m',
          'pytest',
          '-q',
          '-p',
          'no:cacheprovider',
          'tests/benchmark_sets_test.py',
          'tests/linux_benchmarks/cassandra_stress_benchmark_test.py',
      ],
      capture_output=True,
      text=True,
      cwd=CHECKOUT,
      env=dict(os.environ, PYTHONWARNINGS='ignore'),
      timeout=600,
      check=False,
  )
  assert result.returncode == 0, result.stdout[-3000:]
  assert ' passed' in result.stdout
