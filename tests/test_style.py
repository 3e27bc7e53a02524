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

"""The code keeps PerfKitBenchmarker's formatting, so it can move upstream.

pyink with the settings in pyproject.toml (Google style: 2-space indent, 80
columns, majority quotes, hugged brackets) as PKB's own code is formatted.
"""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent


def test_python_files_are_pyink_formatted():
  result = subprocess.run(
      [
          sys.executable,
          '-m',
          'pyink',
          '--check',
          '--diff',
          'perfkit_plugins',
          'linux_packages',
          'tests',
          'setup.py',
      ],
      capture_output=True,
      text=True,
      cwd=REPO,
      timeout=300,
      check=False,
  )
  assert result.returncode == 0, (
      'run `python -m pyink .` to format:\n' + result.stdout[-3000:]
  )


def test_python_files_carry_the_licence_header():
  """Each file says it is Apache-2.0 (LICENSE), as PKB's files do."""
  header = (REPO / 'LICENSE').read_text()
  assert 'Apache License' in header and 'Version 2.0, January 2004' in header
  paths = [REPO / 'setup.py']
  for folder in ('perfkit_plugins', 'linux_packages', 'tests'):
    paths += sorted((REPO / folder).rglob('*.py'))
  missing = [
      str(p.relative_to(REPO))
      for p in paths
      if not p.read_text().startswith('# Copyright')
      or 'Licensed under the Apache License, Version 2.0' not in p.read_text()
  ]
  assert not missing, missing


def test_production_code_never_imports_the_test_helpers():
  """perfkit_plugins.testing serves the tests; what users run needs none."""
  paths = [
      p
      for p in sorted((REPO / 'perfkit_plugins').rglob('*.py'))
      if 'testing' not in p.relative_to(REPO).parts
  ]
  paths += sorted((REPO / 'linux_packages').glob('*.py'))
  importers = [
      str(p.relative_to(REPO))
      for p in paths
      if 'perfkit_plugins.testing' in p.read_text()
      or 'from perfkit_plugins import testing' in p.read_text()
  ]
  assert not importers, importers
