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

"""The discovery hook, without PKB: a synthetic package stands in for it.

A temporary directory holds a fake `perfkitbenchmarker` with the two packages
PKB extends (`linux_benchmarks`, `linux_packages`), each registering the
modules on its `__path__` the way PKB's `__init__` does; the plugin
directories are temporary too. Subprocesses keep `sys.modules` clean.
"""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from perfkit_plugins import discovery

REPO = pathlib.Path(__file__).resolve().parent.parent

_REGISTERING_INIT = textwrap.dedent("""\
    import importlib, pkgutil
    MODULES = {
        name: importlib.import_module(__name__ + '.' + name)
        for _, name, _ in pkgutil.iter_modules(__path__)
    }
    """)


def _Write(path, text=''):
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(text)


@pytest.fixture
def synthetic(tmp_path):
  """A fake PKB tree and plugin directories; returns a script runner."""
  fake_pkb = tmp_path / 'site'
  _Write(fake_pkb / 'perfkitbenchmarker' / '__init__.py')
  for package in ('linux_benchmarks', 'linux_packages'):
    _Write(
        fake_pkb / 'perfkitbenchmarker' / package / '__init__.py',
        _REGISTERING_INIT,
    )
  _Write(
      fake_pkb / 'perfkitbenchmarker' / 'linux_packages' / 'in_tree.py',
      'X = 1\n',
  )
  plugin = tmp_path / 'plugin'
  _Write(plugin / 'benchmarks' / 'demo_benchmark.py', 'NAME = "demo"\n')
  _Write(plugin / 'packages' / 'demo_pkg.py', 'COUNT = []\nCOUNT.append(1)\n')

  directories = {
      'perfkitbenchmarker.linux_benchmarks': str(plugin / 'benchmarks'),
      'perfkitbenchmarker.linux_packages': str(plugin / 'packages'),
  }

  def Run(body, env=None):
    script = textwrap.dedent(f"""\
        import sys
        sys.path[:0] = [{str(fake_pkb)!r}, {str(plugin)!r}]
        from perfkit_plugins import discovery
        discovery.Install(make_finder=lambda: discovery.PluginFinder(
            {directories!r}, private_names=('packages', 'benchmarks')))
        """) + textwrap.dedent(body)
    full_env = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    if not env:
      full_env.pop(discovery.DISABLE_ENV, None)
    # -S: no site-packages, so no installed .pth adds the real plugin dirs.
    return subprocess.run(
        [sys.executable, '-S', '-c', script],
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
    )

  return Run


def test_plugin_modules_are_registered_under_pkb_names(synthetic):
  result = synthetic("""
      from perfkitbenchmarker import linux_benchmarks, linux_packages
      print(sorted(linux_benchmarks.MODULES), sorted(linux_packages.MODULES))
      print(linux_packages.MODULES['demo_pkg'].__name__)
      """)
  assert result.returncode == 0, result.stderr
  assert "['demo_benchmark'] ['demo_pkg', 'in_tree']" in result.stdout
  assert 'perfkitbenchmarker.linux_packages.demo_pkg' in result.stdout


def test_module_cannot_be_imported_under_a_second_name(synthetic):
  result = synthetic("""
      from perfkitbenchmarker import linux_packages
      import packages.demo_pkg
      """)
  assert result.returncode != 0
  assert 'ImportError' in result.stderr
  assert 'plugin directory' in result.stderr


def test_kill_switch_turns_discovery_off(synthetic):
  result = synthetic(
      """
      from perfkitbenchmarker import linux_packages
      print(sorted(linux_packages.MODULES))
      """,
      env={discovery.DISABLE_ENV: '1'},
  )
  assert result.returncode == 0, result.stderr
  assert "['in_tree']" in result.stdout


@pytest.mark.parametrize(
    'value,disabled',
    [('', False), ('0', False), ('false', False), ('1', True), ('yes', True)],
)
def test_disabled_values(value, disabled):
  assert discovery.Disabled({discovery.DISABLE_ENV: value}) is disabled


def test_install_is_idempotent_and_respects_kill_switch():
  meta_path = []
  assert discovery.Install(meta_path, environ={}) is not None
  assert discovery.Install(meta_path, environ={}) is None
  assert len(meta_path) == 1
  assert discovery.Install([], {discovery.DISABLE_ENV: '1'}) is None


def test_plugin_dirs_exist_in_the_source_tree():
  for name in ('linux_benchmarks', 'linux_packages', 'configs', 'data'):
    assert os.path.isdir(discovery.PluginDir(name))


def _Venv(tmp_path):
  venv = tmp_path / 'venv'
  subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
  return venv / 'bin' / 'python'


_PROBE = (
    'import sys, glob, os, site;'
    ' print([type(f).__name__ for f in sys.meta_path]);'
    ' print(glob.glob(os.path.join(site.getsitepackages()[0], "*.pth")));'
    ' import importlib.util as u;'
    ' print("helpers:", u.find_spec("perfkit_plugins.testing") is not None)'
)


@pytest.mark.slow
@pytest.mark.parametrize('editable', [False, True])
def test_install_modes_ship_the_startup_hook(tmp_path, editable):
  """Both install modes ship the .pth hook; a wheel leaves out test helpers."""
  python = _Venv(tmp_path)
  args = ['-e', str(REPO)] if editable else [str(REPO)]
  install = subprocess.run(
      [str(python), '-m', 'pip', 'install', '-q', '--no-deps', *args],
      capture_output=True,
      text=True,
      check=False,
  )
  assert install.returncode == 0, install.stderr
  env = dict(os.environ)
  env.pop(discovery.DISABLE_ENV, None)
  env.pop('PYTHONPATH', None)
  probe = subprocess.run(
      [str(python), '-c', _PROBE],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=env,
      check=True,
  )
  assert 'PluginFinder' in probe.stdout
  assert 'perfkit_plugins_discovery.pth' in probe.stdout
  if not editable:
    # The test helpers are not shipped; an editable install maps the source
    # tree, which has them.
    assert 'helpers: False' in probe.stdout
  disabled = subprocess.run(
      [str(python), '-c', _PROBE],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(env, **{discovery.DISABLE_ENV: '1'}),
      check=True,
  )
  assert 'PluginFinder' not in disabled.stdout
