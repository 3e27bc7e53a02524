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

"""The reference of published metrics and keys holds what the code publishes.

Three sources, so a key no fixture shows is caught too: the committed
results files (every metric with its unit, every key, and the types of the
typed one), the keys a plan gives its steps (published with the prefix),
and the source: every `scylla_` name perfkit_plugins/ uses as a metadata
key (a dict key, a keyword argument, an assigned subscript, an f-string
template) must be registered, and any other `scylla_` string must be a key,
a flag of the benchmark or a name listed here as neither. The typed samples
of a whole run are checked in tests/shell/test_run_pkb.py.
"""

import ast
import dataclasses
import pathlib
import re

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.results import metadata_reference as reference
from perfkit_plugins.core.results import results_tables
from perfkit_plugins.core.results import sample_rows
from perfkit_plugins.testing import planned_runs
from perfkit_plugins.tools import metadata_reference as reference_command

REPO = pathlib.Path(__file__).resolve().parents[3]
DOC = REPO / 'docs' / 'metadata.md'
CODE = REPO / 'perfkit_plugins'
FLAGS_MODULE = CODE / 'shell' / 'scylla_phases_flags.py'
FIXTURES = sorted(
    (REPO / 'tests' / 'testdata' / 'results').glob('*.json')
) + sorted((REPO / 'tests' / 'testdata' / 'report').glob('*.json'))
NAME_RE = re.compile(r'scylla_[a-z0-9_]+\Z')
# `scylla_` strings of the code that are neither keys nor flags.
NOT_KEYS = {
    'scylla_phases_settings': 'an attribute of the benchmark spec',
    'scylla_phases_cleaned_up': 'an attribute of the benchmark spec',
    'scylla_data_volumes': 'an attribute of the benchmark spec',
    'scylla_phases_local_results': "scylla-phases-local's results directory",
    'scylla_phases_report': "scylla-phases-report's plots directory",
    'scylla_setup': "ScyllaDB's setup script",
    'scylla_raid_setup': "ScyllaDB's RAID script",
    'scylla_kernel_check': "ScyllaDB's kernel check script",
    'scylla_tune_sched': "ScyllaDB's scheduler tuning script",
    'scylla_standin': "the stand-in ScyllaDB server's Python package",
}
# The module whose `scylla_` names are ScyllaDB's metrics.
SCYLLA_METRICS = CODE / 'core' / 'results' / 'scylla_metrics.py'
# The package modules PKB installs by name (vm.Install('scylla_server')).
PACKAGES = {path.stem for path in (REPO / 'linux_packages').glob('*.py')}


def test_docs_are_what_the_renderer_writes():
  assert (
      DOC.read_text() == reference.Markdown()
  ), f'docs/metadata.md is stale: run `{reference.COMMAND}`'


def test_the_command_prints_the_docs(capsys):
  assert reference_command.Main() == 0
  assert capsys.readouterr().out == reference.Markdown()


def test_every_name_is_registered_once():
  names = [m.name for m in reference.METRICS]
  assert len(names) == len(set(names))
  names = [k.name for k in reference.KEYS]
  assert len(names) == len(set(names))
  assert {k.type for k in reference.KEYS} <= set(reference.TYPES)
  assert all(
      NAME_RE.match(k.name.replace('<', '').replace('>', ''))
      for k in reference.KEYS
  )


def FixtureSamples():
  """(file name, results_tables.Row, typed) of every committed sample.

  Typed: the file keeps the values' types (PKB's --nocollapse_labels);
  collapsed labels are text, which the report's reader only guesses
  types from.
  """
  for path in FIXTURES:
    text = path.read_text()
    typed = '"labels"' not in text
    for row in results_tables.ParseResults(text, path.name):
      yield path.name, row, typed


def test_committed_results_keep_the_contract():
  samples = list(FixtureSamples())
  assert {typed for *_, typed in samples} == {True, False}
  problems = {
      f'{name}: {problem}'
      for name, row, typed in samples
      for problem in reference.SampleProblems(
          row.metric, row.unit, row.metadata, typed
      )
  }
  assert not problems, sorted(problems)


def test_the_committed_results_show_every_metric():
  assert {row.metric for _, row, _ in FixtureSamples()} == {
      m.name for m in reference.METRICS
  }


def PlanMetadata(loader_count=4):
  """(published name, value) of every key a plan gives a step.

  Every phase, but reads_during_writes with one loader (it needs two).
  """
  phases = tuple(
      phase
      for phase in settings_lib.PHASES
      if loader_count > 1 or phase != 'reads_during_writes'
  )
  for repeats in (1, 2):
    settings = settings_lib.Validate(
        settings_lib.Settings(
            phases=phases,
            num_keys=100000,
            loader_count=loader_count,
            repeats=repeats,
        )
    )
    for step in planned_runs.PhaseSteps(
        settings, ['10.0.0.1'], 1 << 30, '/cs', '/r'
    ):
      for key, value in step.metadata.items():
        yield sample_rows.PREFIX + key, value


def test_every_key_a_plan_gives_its_steps_is_registered():
  keys = {name for name, _ in PlanMetadata()}
  assert {'scylla_warmup', 'scylla_after_populate', 'scylla_repeat'} <= keys
  assert not {key for key in keys if reference.KeyOf(key) is None}


@pytest.mark.parametrize('loader_count', [1, 2])
def test_every_list_a_plan_gives_its_steps_is_registered_as_a_list(
    loader_count,
):
  # With one loader too: published as `[250]`, not as `250`, which an
  # index guessing types would take for a number (publishable.List).
  lists = {
      name
      for name, value in PlanMetadata(loader_count)
      if isinstance(value, (list, tuple))
  }
  assert {'scylla_loader_rates', 'scylla_loader_key_ranges'} <= lists
  assert not {
      name for name in lists if reference.KeyOf(name).type != reference.LIST
  }


@dataclasses.dataclass(frozen=True)
class Use:
  """A `scylla_` name in the source.

  Attributes:
    name: the string, or an f-string's template with {} for each field.
    where: path:line.
    as_key: whether it is written as a metadata key (a dict key, a
      keyword argument, an assigned subscript) rather than merely named.
  """

  name: str
  where: str
  as_key: bool


def _Template(node):
  """An f-string as 'scylla_{}_node_vcpus', or None if it is not a name."""
  text = ''.join(
      value.value if isinstance(value, ast.Constant) else '{}'
      for value in node.values
  )
  return text if re.match(r'scylla_[a-z0-9_{}]+\Z', text) else None


def _IsName(node):
  return (
      isinstance(node, ast.Constant)
      and isinstance(node.value, str)
      and NAME_RE.match(node.value)
  )


def Uses(source, path, flags):
  """Every `scylla_` name in Python source, and whether it is a key.

  A dict all of whose keys are flag names passes flags (a run's command
  line), not metadata: its keys are names only.
  """
  tree = ast.parse(source)
  as_key, in_template = set(), set()
  for node in ast.walk(tree):
    if isinstance(node, ast.JoinedStr):
      in_template.update(id(value) for value in node.values)
    elif isinstance(node, ast.Dict):
      names = [k for k in node.keys if _IsName(k)]
      if not all(k.value in flags for k in names):
        as_key.update(id(k) for k in names)
    elif isinstance(node, (ast.Assign, ast.AugAssign)):
      targets = node.targets if isinstance(node, ast.Assign) else [node.target]
      as_key.update(
          id(t.slice) for t in targets if isinstance(t, ast.Subscript)
      )
  for node in ast.walk(tree):
    if isinstance(node, ast.keyword) and node.arg and NAME_RE.match(node.arg):
      yield Use(node.arg, f'{path}:{node.lineno}', True)
    elif isinstance(node, ast.JoinedStr) and _Template(node):
      yield Use(_Template(node), f'{path}:{node.lineno}', True)
    elif _IsName(node) and id(node) not in in_template:
      yield Use(node.value, f'{path}:{node.lineno}', id(node) in as_key)


def SourceUses(flags):
  """Uses in perfkit_plugins/ but the test helpers (perfkit_plugins.testing).

  scylla_metrics names ScyllaDB's own metrics (its page's `scylla_`
  families), never a key.
  """
  for path in sorted(CODE.rglob('*.py')):
    if path == SCYLLA_METRICS:
      continue
    if 'testing' not in path.relative_to(CODE).parts:
      yield from Uses(path.read_text(), path.relative_to(REPO), flags)


def FlagNames():
  """The names of the benchmark's flags.

  Each is defined as `_Define(flags.DEFINE_<kind>, '<name>', ...)`, the
  flags module's guard against a name PKB defines too.
  """
  tree = ast.parse(FLAGS_MODULE.read_text())
  return frozenset(
      node.args[1].value
      for node in ast.walk(tree)
      if isinstance(node, ast.Call)
      and isinstance(node.func, ast.Name)
      and node.func.id == '_Define'
      and len(node.args) > 1
      and isinstance(node.args[1], ast.Constant)
  )


def Names(use, name):
  """Whether a use names the key `name` (a template or prefix: may)."""
  if '{}' in use.name:
    parts = use.name.split('{}')
    pattern = '[a-z0-9_]+'.join(re.escape(p) for p in parts) + r'\Z'
    return re.match(pattern, name) is not None
  if use.name.endswith('_'):
    return name.startswith(use.name)
  return name == use.name


def Problem(use, flags):
  """Why a use breaks the contract, or None."""
  if any(Names(use, key.name) for key in reference.KEYS):
    return None
  if '{}' in use.name:
    return f'{use.where}: no registered key is named like {use.name!r}'
  if use.name.endswith('_'):
    return f'{use.where}: no registered key starts with {use.name!r}'
  if use.as_key:
    return f'{use.where}: metadata key {use.name!r} is not registered'
  if use.name in flags or use.name in NOT_KEYS or use.name in PACKAGES:
    return None
  return (
      f'{use.where}: {use.name!r} is no registered key, no flag and not in'
      ' NOT_KEYS'
  )


def CodeProblems(source, path, flags):
  return [
      problem
      for use in Uses(source, path, flags)
      if (problem := Problem(use, flags)) is not None
  ]


def test_every_key_the_code_names_is_registered():
  flags = FlagNames()
  assert 'scylla_threads' in flags and 'scylla_engine' in flags
  problems = [
      problem
      for use in SourceUses(flags)
      if (problem := Problem(use, flags)) is not None
  ]
  assert not problems, (
      'register the key in perfkit_plugins/core/results/metadata_reference.py'
      f' and run `{reference.COMMAND}`:\n'
      + '\n'.join(problems)
  )


@pytest.mark.parametrize(
    'line',
    [
        "metadata['scylla_new_fact'] = 1",
        'metadata.update(scylla_new_fact=1)',
        'row = dict(metadata, scylla_new_fact=1)',
        "metadata = {'scylla_new_fact': 1, 'scylla_threads': 2}",
        "NEW_KEY = 'scylla_new_fact'",
        "metadata[f'scylla_{role}_node_new_fact'] = 1",
        "prefix = 'scylla_new_'",
        # A flag's name written as a metadata key is a key.
        "metadata['scylla_step_grace_s'] = 1",
    ],
)
def test_a_new_key_anywhere_fails(line):
  assert CodeProblems(line, 'new.py', FlagNames())


def test_flags_and_known_names_pass():
  flags = FlagNames()
  for line in (
      "args = {'scylla_threads': 8, 'scylla_durations': 'all=5'}",
      "FLAG = 'scylla_step_grace_s'",
      "vm.Install('scylla_server')",
      "metadata[f'scylla_{role}_node_vcpus'] = 8",
      "key = 'scylla_ci_' + name",
  ):
    assert not CodeProblems(line, 'old.py', flags), line


def test_every_registered_key_is_published_by_the_code():
  """A key the code no longer names is not left in the reference."""
  uses = list(SourceUses(FlagNames()))
  plan_keys = {name for name, _ in PlanMetadata()}
  unused = [
      key.name
      for key in reference.KEYS
      if key.name not in plan_keys
      and not any(Names(use, key.name) for use in uses)
  ]
  assert not unused
