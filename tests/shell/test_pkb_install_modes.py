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

"""Stock pkb.py with the plugin installed both ways into a fresh virtualenv.

The rest of the PKB tests run against this checkout's editable install. Here
the plugin is installed by `pip install .` and by `pip install -e .` into a
new virtualenv, which reaches PKB's requirements through a plain path entry
to the test environment's site-packages (a path line in a `.pth` file adds
the directory without running the `.pth` hooks inside it, so only the new
install's hook can make PKB find the plugin). Slow: two pip installs.
"""

import json
import os
import pathlib
import re
import site
import subprocess
import sys

import pytest

from perfkit_plugins import discovery
from perfkit_plugins import version
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = [pytest.mark.pkb, pytest.mark.slow]

REPO = pathlib.Path(__file__).resolve().parents[2]
_GROUPS = re.compile(r'scylla_phases decoded groups: (\{.*\})')


def _InstalledVenv(tmp_path, editable):
  """A new virtualenv with the plugin installed; returns its python."""
  venv = tmp_path / 'venv'
  subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
  python = venv / 'bin' / 'python'
  new_site = subprocess.run(
      [str(python), '-c', 'import site; print(site.getsitepackages()[0])'],
      capture_output=True,
      text=True,
      check=True,
  ).stdout.strip()
  pathlib.Path(new_site, 'test_requirements.pth').write_text(
      '\n'.join(site.getsitepackages()) + '\n'
  )
  args = ['-e', str(REPO)] if editable else [str(REPO)]
  subprocess.run(
      [str(python), '-m', 'pip', 'install', '-q', '--no-deps', *args],
      capture_output=True,
      text=True,
      check=True,
  )
  return python


def _Pkb(python, tmp_path, *args):
  env = dict(os.environ, PYTHONWARNINGS='ignore')
  for name in (discovery.DISABLE_ENV, 'PYTHONPATH'):
    env.pop(name, None)
  return subprocess.run(
      [
          str(python),
          os.path.join(CHECKOUT, 'pkb.py'),
          *args,
          '--ignore_package_requirements',
          f'--temp_dir={tmp_path / "pkb"}',
      ],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=env,
      timeout=300,
      check=False,
  )


@pytest.mark.parametrize('editable', [False, True], ids=['regular', 'editable'])
def test_stock_pkb_runs_the_installed_plugin(tmp_path, editable):
  python = _InstalledVenv(tmp_path, editable)
  where = subprocess.run(
      [
          str(python),
          '-c',
          'import perfkit_plugins; print(perfkit_plugins.__file__)',
      ],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      check=True,
  ).stdout.strip()
  if not editable:
    assert not where.startswith(str(REPO)), where
  # A wheel keeps the revision it was built from; a checkout asks git.
  published = subprocess.run(
      [
          str(python),
          '-c',
          'from perfkit_plugins import version; print(version.Published())',
      ],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      check=True,
  ).stdout.strip()
  assert published == f'{version.VERSION}+{version.GitRevision()}'
  helpmatch = _Pkb(python, tmp_path, '--helpmatch=scylla_phases')
  assert helpmatch.returncode == 0, helpmatch.stderr[-2000:]
  assert '--scylla_server_machine_type' in helpmatch.stdout
  dry_run = _Pkb(
      python,
      tmp_path,
      '--benchmarks=scylla_phases',
      '--machine_type=z3-highmem-88',
      '--dry_run',
  )
  assert dry_run.returncode == 0, dry_run.stderr[-3000:]
  groups = json.loads(_GROUPS.search(dry_run.stderr + dry_run.stdout)[1])
  assert groups['servers']['machine_type'] == 'z3-highmem-88'
  assert groups['servers']['data_volume']['local_ssds'] == 12
  assert groups['loaders']['machine_type'] == 'n2-highcpu-32'
  by_name = _Pkb(
      python,
      tmp_path,
      '--benchmark_config_file=scylla_phases_smoke.yaml',
      '--dry_run',
  )
  assert by_name.returncode == 0, by_name.stderr[-3000:]
