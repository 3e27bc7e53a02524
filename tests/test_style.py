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
