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

"""Makes stock PerfKitBenchmarker import this plugin's modules as its own.

PKB has no plugin mechanism: `perfkitbenchmarker/linux_benchmarks/__init__.py`
and `perfkitbenchmarker/linux_packages/__init__.py` register every module found
on their own `__path__`. A `.pth` file installed with this plugin calls
`Install()` at interpreter start-up, which puts a `sys.meta_path` finder in
front of the normal ones. For exactly those two packages the finder asks the
normal finders for the spec and appends the plugin's directory to the spec's
`submodule_search_locations` before the package's `__init__` runs, so PKB
imports our modules itself, under its own names (`--helpmatch`, benchmark
lookup, `vm.Install` and pickled specs all see them as in-tree modules).

absl flags are process-global, so a flag-defining module imported under a
second name raises DuplicateFlagError. The finder therefore refuses every other
name under which the plugin directories could be reached (the source tree's
`linux_packages`, the installed copies inside `perfkit_plugins`).

PKB imports every module of those packages when it starts and does not
catch their errors, so one plugin module that stops importing (a PKB
upgrade that moved a name) would stop every `pkb.py` run, whatever its
benchmark. The finder therefore guards the plugin's own modules there: one
that fails to import becomes a stub that says why (the cause and the PKB
commits the plugin is tested with). PKB builds every benchmark's config
and checks its prerequisites before it runs any, and a failure there stops
them all, so a benchmark stub passes both with a config of no machines
(nothing is provisioned for it) and fails in Prepare and Run, where PKB
fails that benchmark alone and runs the others; its Cleanup does nothing.
A package stub's Install raises PluginImportError; the benchmark refuses,
before provisioning, to run with a package it installs stubbed
(shell/prerequisites.py).

Set PERFKIT_PLUGINS_DISABLE=1 to turn discovery off.
"""

import importlib.machinery
import os
import sys

DISABLE_ENV = 'PERFKIT_PLUGINS_DISABLE'

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def PluginDir(name):
  """Returns the plugin directory `name` (installed copy or source tree).

  A regular install places `linux_packages/` and `configs/` inside this
  package; a source checkout (and an editable install) has them beside it.

  Args:
    name: 'linux_benchmarks', 'linux_packages', 'configs' or 'data'.

  Returns:
    The absolute path of the directory.

  Raises:
    FileNotFoundError: if neither location exists.
  """
  for parent in (_PACKAGE_DIR, os.path.dirname(_PACKAGE_DIR)):
    candidate = os.path.join(parent, name)
    if os.path.isdir(candidate):
      return candidate
  raise FileNotFoundError(f'perfkit-plugins: no {name}/ directory found')


def Disabled(environ=None):
  """Whether the kill switch is set (any value but '', '0' or 'false')."""
  value = (os.environ if environ is None else environ).get(DISABLE_ENV, '')
  return value.strip().lower() not in ('', '0', 'false', 'no')


# Entry points of a stub that raise PluginImportError: a benchmark's stages
# (PKB fails that benchmark alone there), and a package module's installers.
_BENCHMARK_ENTRY_POINTS = ('Prepare', 'Run')
_PACKAGE_ENTRY_POINTS = ('Install', 'YumInstall', 'AptInstall')
_BENCHMARK_SUFFIX = '_benchmark'


class PluginImportError(ImportError):
  """A plugin module did not import with this PKB; it says why."""


def _ImportProblem(module, error):
  """Why `module` did not import, and which PKB the plugin is tested with."""
  # Only on failure: start-up of every Python process stays light.
  # pylint: disable=import-outside-toplevel
  import traceback

  from perfkit_plugins.tools import pkb_location

  # pylint: enable=import-outside-toplevel

  return (
      f'perfkit-plugins: {module.__name__} does not import with this PKB'
      f' ({type(error).__name__}: {error}); the plugin is tested with PKB'
      f' commit {pkb_location.TESTED_COMMIT} (its PKB-facing tests also with'
      f' {pkb_location.OLDEST_TESTED_COMMIT}). Every other benchmark runs.'
      ' Use that PKB commit, or a perfkit-plugins release tested with'
      ' yours. Where it failed:\n'
      + ''.join(traceback.format_exception(error)[-6:])
  )


_STUB_DESCRIPTION = (
    'does not import with this PKB (see the warning at start-up)'
)


class _Refusal:
  """A stub's entry point: raises PluginImportError saying why.

  An object of a module-level class, not a closure: PKB pickles a
  benchmark's spec, which holds its Prepare, Run and Cleanup.

  Attributes:
    module_name: the stubbed module.
    problem: why it did not import (_ImportProblem).
  """

  def __init__(self, module_name, problem):
    self.module_name = module_name
    self.problem = problem

  def __call__(self, *args, **kwargs):
    del args, kwargs
    raise PluginImportError(self.problem, name=self.module_name)


def _NothingToClean(benchmark_spec):
  """A benchmark stub's Cleanup: nothing was made."""
  del benchmark_spec


def _StubConfig(user_config):
  """A benchmark stub's config: no machines; the user's flags kept for PKB."""
  return {
      'description': _STUB_DESCRIPTION,
      'vm_groups': {},
      'flags': user_config.get('flags'),
  }


def _Stub(module, error):
  """Empties a module that failed to import into one that says why.

  A benchmark keeps its BENCHMARK_NAME (so `--benchmarks` still finds it
  and fails it alone); its config has no machines, whatever the user's
  config asks (nothing is provisioned for a benchmark that cannot run), its
  stages raise PluginImportError and its Cleanup does nothing (nothing was
  made). A package's installers raise PluginImportError.
  """
  problem = _ImportProblem(module, error)
  refuse = _Refusal(module.__name__, problem)
  keep = {'__name__', '__file__', '__spec__', '__loader__', '__package__'}
  for name in set(vars(module)) - keep - {'__builtins__'}:
    delattr(module, name)
  module.__doc__ = problem
  module.IMPORT_PROBLEM = problem
  short_name = module.__name__.rsplit('.', 1)[-1]
  if short_name.endswith(_BENCHMARK_SUFFIX):
    module.BENCHMARK_NAME = short_name[: -len(_BENCHMARK_SUFFIX)]
    module.BENCHMARK_CONFIG = (
        f'{module.BENCHMARK_NAME}:\n  description: {_STUB_DESCRIPTION}\n'
        '  vm_groups: {}\n'
    )
    module.GetConfig = _StubConfig
    for name in _BENCHMARK_ENTRY_POINTS:
      setattr(module, name, refuse)
    module.Cleanup = _NothingToClean
  else:
    for name in _PACKAGE_ENTRY_POINTS:
      setattr(module, name, refuse)
  # pylint: disable-next=import-outside-toplevel
  import logging

  logging.getLogger(__name__).warning('%s', problem)


class _GuardedLoader:
  """A plugin module's loader that turns its import failure into a stub."""

  def __init__(self, loader):
    self.loader = loader

  def __getattr__(self, name):
    if name == 'loader':  # Not set yet (a copy being made): no recursion.
      raise AttributeError(name)
    return getattr(self.loader, name)

  def create_module(self, spec):
    return self.loader.create_module(spec)

  def exec_module(self, module):
    try:
      self.loader.exec_module(module)
    except Exception as e:  # pylint: disable=broad-except
      try:
        _Stub(module, e)
      except Exception:  # pylint: disable=broad-except
        raise e from None  # The stub failed too: PKB sees the real cause.


class PluginFinder:
  """Extends PKB's module packages with plugin directories.

  A meta path finder needs only `find_spec`; not subclassing
  importlib.abc.MetaPathFinder keeps that module (and `inspect`, `typing`)
  out of the start-up of every Python process in the environment.

  Attributes:
    extensions: package name -> directory appended to its search path.
    private_names: module names under which plugin directories could also be
      imported; importing them raises ImportError.
  """

  def __init__(self, extensions, private_names):
    self.extensions = dict(extensions)
    self.private_names = tuple(private_names)

  def find_spec(self, fullname, path, target=None):
    """importlib's MetaPathFinder hook: widens or refuses a package.

    Args:
      fullname: the module being imported.
      path: the parent package's search path.
      target: unused; part of the hook's signature.

    Returns:
      The spec of a package whose search path gets a plugin directory, or
      of a plugin module there (its import guarded), or None to let the
      other finders look.

    Raises:
      ImportError: a plugin directory imported under another name.
    """
    del target
    parent = fullname.rpartition('.')[0]
    if parent in self.extensions:
      spec = importlib.machinery.PathFinder.find_spec(fullname, path)
      if (
          spec is not None
          and spec.loader is not None
          and spec.origin
          and os.path.dirname(os.path.realpath(spec.origin))
          == os.path.realpath(self.extensions[parent])
      ):
        spec.loader = _GuardedLoader(spec.loader)
        return spec
      return None
    if fullname in self.extensions:
      spec = importlib.machinery.PathFinder.find_spec(fullname, path)
      if spec is not None and spec.submodule_search_locations is not None:
        extra = self.extensions[fullname]
        if extra not in spec.submodule_search_locations:
          spec.submodule_search_locations.append(extra)
      return spec
    if fullname in self.private_names:
      spec = importlib.machinery.PathFinder.find_spec(fullname, path)
      if spec is not None and _IsPluginDir(spec, self.extensions.values()):
        raise ImportError(
            f'perfkit-plugins: {fullname} is a plugin directory, imported by'
            ' PKB as perfkitbenchmarker.linux_benchmarks/linux_packages;'
            ' importing it under another name would define its flags twice.',
            name=fullname,
        )
    return None


def _IsPluginDir(spec, plugin_dirs):
  """Whether a package spec is one of the plugin directories."""
  real_dirs = {os.path.realpath(d) for d in plugin_dirs}
  locations = spec.submodule_search_locations or ()
  return any(os.path.realpath(loc) in real_dirs for loc in locations)


def DefaultFinder():
  """The finder for this installation's plugin directories."""
  return PluginFinder(
      extensions={
          'perfkitbenchmarker.linux_benchmarks': PluginDir('linux_benchmarks'),
          'perfkitbenchmarker.linux_packages': PluginDir('linux_packages'),
      },
      private_names=(
          'linux_packages',
          'perfkit_plugins.linux_packages',
          'perfkit_plugins.linux_benchmarks',
      ),
  )


def Install(meta_path=None, environ=None, make_finder=DefaultFinder):
  """Puts the plugin finder first on `meta_path` unless disabled.

  Called from the installed `.pth` file, so it must be cheap and must never
  raise: a failure here would break every Python process in the environment.

  Args:
    meta_path: the list to install into (default `sys.meta_path`).
    environ: the environment to read the kill switch from (default os.environ).
    make_finder: builds the finder (tests point it at other directories).

  Returns:
    The installed finder, or None when disabled or already installed.
  """
  meta_path = sys.meta_path if meta_path is None else meta_path
  if Disabled(environ) or any(isinstance(f, PluginFinder) for f in meta_path):
    return None
  try:
    finder = make_finder()
  except FileNotFoundError as e:
    sys.stderr.write(f'{e}; discovery disabled\n')
    return None
  meta_path.insert(0, finder)
  return finder
