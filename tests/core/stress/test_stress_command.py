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

"""cassandra-stress commands, checked against the tool's own help texts.

The grammar (commands, options, their parameters, which are required, the
sub-options of `replication(...)`-style groups, the distribution forms) is
parsed from the real `cassandra-stress help ...` outputs in testdata/lab. The
only hand-written knowledge is the shape of each value the planner uses
(checked against the help's defaults where it shows one) and one rule the
help cannot show, backed by a real rejected run. The validator itself is
tested on the real accepted and rejected command lines of MANIFEST.tsv.
"""

import dataclasses
import itertools
import re
import shlex

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.stress import stress_command
from perfkit_plugins.testing import planned_runs

# ---------------------------------------------------------------------------
# Help-text grammar.

_USAGE_RE = re.compile(r'^Usage: (\S+) ?(.*)$')
_GROUP_RE = re.compile(r'^\s+(\w+)\(((?:\[[^\]]*\])*)\):')
_DEFAULT_RE = re.compile(r'^(\s+)(\S*?) ?\(default=([^)]*)\)')
_DIST_FORM_RE = re.compile(r'^\s{6}([A-Z]+)\(([^)]*)\)\s')


@dataclasses.dataclass(frozen=True)
class Token:
  """One parameter of a usage line: `n=?`, `[no-warmup]`, `[size=DIST(?)]`."""

  prefix: str
  kind: str  # value, dist, group, flag or list
  required: bool


@dataclasses.dataclass
class Usage:
  """What `cassandra-stress help <name>` says about one command or option."""

  alternatives: list
  groups: dict  # group name -> (sub-option prefixes, accepts any key)
  defaults: dict  # (group or '', prefix) -> default shown by the help


@dataclasses.dataclass
class Grammar:
  commands: set
  options: set
  usages: dict
  dist_forms: dict  # NAME -> list of argument-name lists


def _ParseToken(text):
  required = not text.startswith('[')
  inner = text.strip('[]')
  if not inner:
    return Token('', 'list', False)
  if inner.endswith('=DIST(?)'):
    # The help prints a distribution without brackets whenever it has no
    # default, optional or not: `-pop seq=... read-lookback=DIST(?)`, yet
    # the real `-pop seq=1..200000` of MANIFEST.tsv ran.
    return Token(inner[: -len('DIST(?)')], 'dist', False)
  if inner.endswith('(?)'):
    return Token(inner[:-3], 'group', required)
  if inner.endswith('?'):
    return Token(inner[:-1], 'value', required)
  return Token(inner, 'flag', required)


def ParseUsage(text):
  """Parses one `cassandra-stress help <name>` output."""
  alternatives, groups, defaults = [], {}, {}
  group = ''
  for line in text.splitlines():
    usage = _USAGE_RE.match(line)
    if usage:
      words = re.findall(r'\[[^\]]*\]|\S+', usage.group(2))
      alternatives.append([_ParseToken(w) for w in words])
      continue
    header = _GROUP_RE.match(line)
    if header:
      group = header.group(1)
      subs = re.findall(r'\[([^\]]*)\]', header.group(2))
      named = {s[:-1] for s in subs if not s.startswith('<')}
      groups[group] = (named, any(s.startswith('<') for s in subs))
      continue
    indent = len(line) - len(line.lstrip(' '))
    if indent <= 3:
      group = ''
    default = _DEFAULT_RE.match(line)
    if default:
      prefix = default.group(2).rstrip('?')
      defaults[(group, prefix)] = default.group(3)
  return Usage(alternatives, groups, defaults)


def ParseIndex(text):
  """Commands and options listed by `cassandra-stress help`."""
  sections = {}
  section = None
  for line in text.splitlines():
    header = re.match(r'^---(\w+)---$', line)
    if header:
      section = sections.setdefault(header.group(1), set())
    elif section is not None and ' : ' in line:
      section.add(line.split()[0])
  return sections['Commands'], sections['Options']


@pytest.fixture
def grammar(lab):
  commands, options = ParseIndex(lab('cs-help.txt'))
  usages, dist_forms = {}, {}
  manifest = lab('MANIFEST.tsv').splitlines()
  for row in manifest[1:]:
    name, exit_code, _, _, command = row.split('\t')
    words = command.split()
    if words[1:2] == ['help'] and len(words) == 3 and exit_code == '0':
      text = lab(name)
      usages[words[2]] = ParseUsage(text)
      for line in text.splitlines():
        form = _DIST_FORM_RE.match(line)
        if form:
          forms = dist_forms.setdefault(form.group(1), [])
          args = form.group(2).split(',')
          if args not in forms:
            forms.append(args)
  return Grammar(commands, options, usages, dist_forms)


# ---------------------------------------------------------------------------
# Value shapes: the only hand-written part. Each key must exist in the help
# and match the default the help shows (test_shapes_agree_with_help).

_NUMBER = r'[0-9]+'
_PATH = r'/.+'  # any absolute path: one argument, quoted
_CLASS = r'[A-Za-z][A-Za-z0-9_.]*'
_COMMAND_SHAPES = {
    'n=': _NUMBER,  # "Number of operations to perform"
    'duration=': r'[0-9]+[smh]',  # "in seconds, minutes or hours"
    'cl=': r'[A-Z_]+',
}
VALUE_SHAPES = {
    **{
        (c, p): s
        for c in ('write', 'read', 'mixed')
        for p, s in _COMMAND_SHAPES.items()
    },
    ('-rate', 'threads='): _NUMBER,
    ('-rate', 'fixed='): r'[0-9]+/s',
    ('-rate', 'throttle='): r'[0-9]+/s',
    ('-pop', 'seq='): r'[0-9]+\.\.[0-9]+',
    ('-schema', 'keyspace='): r'[A-Za-z][A-Za-z0-9_]*',
    ('-log', 'file='): _PATH,
    ('-log', 'hdrfile='): _PATH,
    ('-log', 'interval='): r'[0-9]+(ms|s)?',  # "seconds or milliseconds"
    ('-node', ''): r'[^=,\s]+(,[^=,\s]+)*',  # "comma delimited list"
}
GROUP_SHAPES = {
    ('-schema', 'replication', 'factor='): _NUMBER,
    ('-schema', 'replication', 'strategy='): _CLASS,
    ('-schema', 'compaction', 'strategy='): _CLASS,
    ('mixed', 'ratio', 'write='): _NUMBER,
    ('mixed', 'ratio', 'read='): _NUMBER,
}
# -rate threads=? [throttle=?] [fixed=?] allows both; the tool does not
# (cs-write-10s-rate-throttle-and-fixed.txt: "can't have both ...").
EXCLUSIVE = (('-rate', 'throttle=', 'fixed='),)


def _Matches(token, param):
  low = param.lower()
  if token.kind == 'flag':
    return low == token.prefix
  if token.kind == 'group':
    return low.startswith(token.prefix + '(') and low.endswith(')')
  if token.kind == 'list':
    return '=' not in param
  return low.startswith(token.prefix)


def _CheckDist(grammar, value):
  match = re.fullmatch(r'~?([A-Za-z]+)\((.*)\)', value)
  if not match:
    return f'{value!r} is not a distribution'
  forms = grammar.dist_forms.get(match.group(1).upper(), [])
  args = match.group(2).split(',')
  for form in forms:
    if len(form) == len(args) and all(
        re.fullmatch(
            r'[0-9]+\.\.[0-9]+' if '..' in name else r'[0-9]+(\.[0-9]+)?', arg
        )
        for name, arg in zip(form, args)
    ):
      return None
  return f'{value!r} fits none of the forms {forms}'


def _CheckValue(grammar, usage_name, usage, token, param):
  value = param[len(token.prefix) :]
  if token.kind == 'dist':
    return _CheckDist(grammar, value)
  if token.kind == 'flag':
    return None
  if token.kind == 'group':
    named, any_key = usage.groups[token.prefix]
    for item in param[len(token.prefix) + 1 : -1].split(','):
      key, _, sub_value = item.partition('=')
      shape = GROUP_SHAPES.get((usage_name, token.prefix, key + '='))
      if key + '=' not in named and not any_key:
        return f'{token.prefix}() has no {key}='
      if shape is None:
        return f'no known shape for {token.prefix}({key}=)'
      if not re.fullmatch(shape, sub_value):
        return f'{item!r} in {token.prefix}() is not {shape}'
    return None
  shape = VALUE_SHAPES.get((usage_name, token.prefix))
  if shape is None:
    return f'no known shape for {usage_name} {token.prefix}'
  if not re.fullmatch(shape, value):
    return f'{usage_name} {param!r}: value is not {shape}'
  return None


def _FitAlternative(alternative, params):
  """Token matched by each param, or None when the params do not fit."""
  used = []
  for param in params:
    token = next(
        (t for t in alternative if t not in used and _Matches(t, param)), None
    )
    if token is None:
      return None
    used.append(token)
  if any(t.required and t not in used for t in alternative):
    return None
  return used


def _CheckSection(grammar, name, params):
  usage = grammar.usages.get(name)
  if usage is None:
    return [f'{name}: no help text in testdata to validate against']
  for alternative in usage.alternatives:
    tokens = _FitAlternative(alternative, params)
    if tokens is not None:
      problems = [
          _CheckValue(grammar, name, usage, t, p)
          for t, p in zip(tokens, params)
      ]
      for option, *exclusive in EXCLUSIVE:
        given = {t.prefix for t in tokens}
        if option == name and set(exclusive) <= given:
          problems.append(f'{name}: {" and ".join(exclusive)} together')
      return [p for p in problems if p]
  return [f'{name} {" ".join(params)}: fits no usage of the help text']


def Validate(grammar, line):
  """Problems of one command line (a list; empty when valid)."""
  words = shlex.split(line)
  command = words[1] if len(words) > 1 else ''
  if command not in grammar.commands:
    return [f'{command!r} is not a cassandra-stress command']
  sections = [(command, [])]
  for word in words[2:]:
    if word.startswith('-'):
      sections.append((word.lower(), []))
    else:
      sections[-1][1].append(word)
  problems = []
  names = [name for name, _ in sections]
  if len(set(names)) != len(names):
    problems.append(f'repeated option in {names}')
  for name, params in sections[1:]:
    if name not in grammar.options:
      problems.append(f'{name} is not a cassandra-stress option')
  for name, params in sections:
    problems += _CheckSection(grammar, name, params)
  return problems


# ---------------------------------------------------------------------------
# The validator against reality.


def _ManifestRuns(lab):
  for row in lab('MANIFEST.tsv').splitlines()[1:]:
    name, exit_code, _, _, command = row.split('\t')
    if command.split()[1] in ('write', 'read', 'mixed'):
      yield name, exit_code, command


def test_grammar_parsed_from_help(grammar):
  assert {'write', 'read', 'mixed'} <= grammar.commands
  assert {'-rate', '-pop', '-log', '-schema', '-node'} <= grammar.options
  rate = grammar.usages['-rate']
  assert [t.prefix for t in rate.alternatives[0]] == [
      'threads=',
      'throttle=',
      'fixed=',
  ]
  assert rate.alternatives[0][0].required
  assert grammar.usages['-schema'].groups['replication'] == (
      {'strategy=', 'factor='},
      True,
  )
  assert ['min..max', 'mean', 'stdev'] in grammar.dist_forms['GAUSSIAN']


def test_validator_agrees_with_real_runs(lab, grammar):
  runs = list(_ManifestRuns(lab))
  assert {code for _, code, _ in runs} == {'0', '1'}
  for name, exit_code, command in runs:
    problems = Validate(grammar, command)
    assert (problems == []) == (exit_code == '0'), (name, problems)


def test_exclusive_rate_rule_is_the_tools(lab, grammar):
  text = lab('cs-write-10s-rate-throttle-and-fixed.txt')
  assert text.startswith("can't have both fixed and throttle set")
  command = dict((n, c) for n, _, c in _ManifestRuns(lab))[
      'cs-write-10s-rate-throttle-and-fixed.txt'
  ]
  assert Validate(grammar, command) == ['-rate: throttle= and fixed= together']


def test_limit_is_not_a_rate_option(lab, grammar):
  assert lab('cs-write-30s-rate-limit-2000.txt').startswith(
      'Invalid parameter limit=2000/s'
  )
  problems = Validate(grammar, 'cs write n=1 -rate threads=1 limit=5/s')
  assert problems == [
      '-rate threads=1 limit=5/s: fits no usage of the help text'
  ]


@pytest.mark.parametrize(
    'line, problem',
    [
        ('cs write n=10 -port native=9042', '-port: no help text'),
        ('cs write n=10 -bogus', '-bogus is not a cassandra-stress option'),
        ('cs mutate n=10', 'not a cassandra-stress command'),
        ('cs write duration=30', 'value is not'),
        ('cs write n=ten', 'value is not'),
        ('cs read n=1 -pop dist=gaussian(1..10)', 'fits none of the forms'),
        ('cs read n=1 -pop dist=zipf(1..10)', 'fits none of the forms'),
        ('cs write n=1 -rate fixed=5/s', 'fits no usage'),
        ('cs write n=1 -rate threads=4 fixed=5', 'value is not'),
        ('cs write n=1 -log file=relative.log', 'value is not'),
        ('cs write n=1 -schema replication(factor=x)', 'is not'),
        ('cs write n=1 ratio(write=1,read=1)', 'fits no usage'),
        ('cs mixed n=1 ratio(insert=1)', 'has no insert='),
        ('cs write n=1 -node a=b', 'fits no usage'),
        ('cs write n=1 -rate threads=1 -rate threads=2', 'repeated option'),
    ],
)
def test_validator_rejects(grammar, line, problem):
  problems = Validate(grammar, line)
  assert any(problem in p for p in problems), problems


def test_shapes_agree_with_help(grammar):
  for (usage_name, prefix), shape in VALUE_SHAPES.items():
    usage = grammar.usages[usage_name]
    tokens = {t.prefix for alt in usage.alternatives for t in alt}
    assert prefix in tokens, (usage_name, prefix)
    default = usage.defaults.get(('', prefix))
    if default and not re.search(r'\bN\b', default):
      assert re.fullmatch(shape, default), (usage_name, prefix, default)
  for (usage_name, group, prefix), shape in GROUP_SHAPES.items():
    usage = grammar.usages[usage_name]
    named, _ = usage.groups[group]
    assert prefix in named, (usage_name, group, prefix)
    default = usage.defaults.get((group, prefix))
    if default:
      assert re.fullmatch(shape, default), (usage_name, group, default)


# ---------------------------------------------------------------------------
# Every command the planner can produce.

_SERVERS = ('10.0.0.1', '10.0.0.2', '10.0.0.3')
_GIB = 2**30


def _Grid():
  """Settings covering every phase, shape and combination the planner has."""
  every = settings_lib.PHASES
  without_rdw = tuple(p for p in every if p != 'reads_during_writes')
  base = [
      dict(loader_count=1, phases=without_rdw, num_keys=1, read_small_stdev=1),
      dict(loader_count=2, num_keys=7919, phases=every, read_small_stdev=99),
      dict(loader_count=3, phases=every, latency_rates=(7, 1000, 123457)),
      dict(loader_count=4, phases=every, read_warmup_s=0),
      dict(loader_count=7, phases=every, data_set_bytes=10**12 + 1),
      dict(loader_count=16, phases=every, num_keys=810774192),
      dict(loader_count=64, phases=every, column_size=34, column_count=5),
  ]
  # Each value of each knob at least once; knobs land in separate words,
  # so their combinations add nothing.
  knobs = (
      base,
      settings_lib.CONSISTENCY_LEVELS,
      settings_lib.SCYLLA_STRESS_COMPACTION_STRATEGIES,
      settings_lib.READ_DISTRIBUTIONS,
      (1, 2, 3),
  )
  cycles = zip(*(itertools.cycle(k) for k in knobs))
  for case, cl, compaction, mixed, rf in itertools.islice(
      cycles, 2 * max(len(k) for k in knobs)
  ):
    yield settings_lib.Validate(
        settings_lib.Settings(
            consistency_level=cl,
            compaction_strategy=compaction,
            mixed_distribution=mixed,
            # TWO and THREE need as many replicas.
            replication_factor=max(rf, {'TWO': 2, 'THREE': 3}.get(cl, 1)),
            **case,
        )
    )


def _AllRuns():
  for settings in _Grid():
    for step in planned_runs.PhaseSteps(
        settings,
        _SERVERS,
        3 * 64 * _GIB,
        '/opt/cassandra stress/bin/cassandra-stress',
        "/tmp/pkb/it's here",
    ):
      yield from step.runs


def test_every_planned_command_is_valid(grammar):
  runs = list(_AllRuns())
  assert len(runs) > 1000
  commands = {run.command for run in runs}
  for command in commands:
    assert Validate(grammar, command) == [], command
  for run in runs:
    words = shlex.split(run.command)
    assert words[0] == '/opt/cassandra stress/bin/cassandra-stress'
    assert f'hdrfile={run.hdr_path}' in words
    assert f'file={run.log_path}' in words
    assert not any(w.startswith(('limit=', 'throttle=')) for w in words)
  # The grid reaches every command, population and rate shape.
  shapes = set()
  for command in commands:
    words = shlex.split(command)
    pop = words[words.index('-pop') + 1]
    rate = words[words.index('-rate') + 2].split('=')[0]
    shapes.add(
        (words[1], re.sub(r'[(=].*', '', pop.replace('dist=', '')), rate)
    )
  assert shapes == {
      ('write', 'seq', '-log'),
      ('write', 'seq', 'fixed'),
      ('read', 'gaussian', '-log'),
      ('read', 'uniform', '-log'),
      ('mixed', 'gaussian', '-log'),
      ('mixed', 'uniform', '-log'),
  }


# ---------------------------------------------------------------------------
# The builder on its own.

_TARGET = stress_command.Target(
    stress_path='/opt/cs/bin/cassandra-stress',
    nodes=('10.0.0.1', '10.0.0.2'),
    keyspace='keyspace1',
    replication_factor=3,
    compaction_strategy='LeveledCompactionStrategy',
    consistency_level='QUORUM',
    column_size=1024,
    column_count=1,
)
_RUN = stress_command.StressRun(
    command='write',
    population=stress_command.Population('seq', 1, 100),
    threads=8,
    log_path='/tmp/pkb/w.log',
    hdr_path='/tmp/pkb/w.hdr',
    log_interval_s=10,
    duration_s=60,
    fixed_rate=500,
)


def test_build_fixed_rate_write():
  assert stress_command.BuildCommand(_TARGET, _RUN) == (
      '/opt/cs/bin/cassandra-stress write duration=60s cl=QUORUM no-warmup'
      " -node 10.0.0.1 -schema 'replication(factor=3)'"
      " 'compaction(strategy=LeveledCompactionStrategy)' keyspace=keyspace1"
      " -col 'size=FIXED(1024)' 'n=FIXED(1)' -pop seq=1..100"
      ' -rate threads=8 fixed=500/s -log file=/tmp/pkb/w.log'
      ' hdrfile=/tmp/pkb/w.hdr interval=10s'
  )


def test_each_process_contacts_one_node_loaders_spread_over_nodes():
  # cassandra-stress sleeps a second per -node address after a write run's
  # schema check: one address, the loader's own, whatever the cluster size.
  nodes = [
      shlex.split(
          stress_command.BuildCommand(
              _TARGET, dataclasses.replace(_RUN, contact_node=i)
          )
      )
      for i in range(3)
  ]
  assert [w[w.index('-node') + 1] for w in nodes] == [
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.1',
  ]
  schema = shlex.split(stress_command.SchemaCommand(_TARGET))
  assert schema[schema.index('-node') + 1] == '10.0.0.1'


def test_build_mixed_gaussian_words():
  run = dataclasses.replace(
      _RUN,
      command='mixed',
      population=stress_command.Population('gaussian', 1, 100, 50, 7),
      fixed_rate=0,
      write_ratio=1,
      read_ratio=3,
  )
  words = shlex.split(stress_command.BuildCommand(_TARGET, run))
  assert words[1:3] == ['mixed', 'ratio(write=1,read=3)']
  assert words[words.index('-pop') + 1] == 'dist=gaussian(1..100,50,7)'
  assert words[words.index('-rate') + 1 :][:2] == ['threads=8', '-log']


def test_build_quotes_hostile_paths():
  run = dataclasses.replace(_RUN, log_path='/tmp/a b/$(touch x);.log')
  target = dataclasses.replace(_TARGET, stress_path="/o'pt/cs")
  words = shlex.split(stress_command.BuildCommand(target, run))
  assert words[0] == "/o'pt/cs"
  assert 'file=/tmp/a b/$(touch x);.log' in words


@pytest.mark.parametrize(
    'changes, message',
    [
        (dict(throttle_rate=5), 'cannot combine fixed= and throttle='),
        (dict(operations=10), 'exactly one of'),
        (dict(duration_s=0), 'exactly one of'),
        (dict(write_ratio=1, read_ratio=1), 'takes no ratio'),
        (dict(command='mixed', fixed_rate=0), 'ratio write=0,read=0 is empty'),
        (dict(command='counter_write'), 'unknown command'),
        (dict(threads=0), 'threads=0'),
        (dict(fixed_rate=-1), 'negative'),
        (dict(hdr_path=''), 'HDR'),
        (dict(log_interval_s=0), 'interval'),
        (
            dict(population=stress_command.Population('seq', 0, 10)),
            'empty or below 1',
        ),
        (
            dict(population=stress_command.Population('seq', 5, 4)),
            'empty or below 1',
        ),
        (
            dict(
                population=stress_command.Population('gaussian', 1, 10, 11, 1)
            ),
            'outside',
        ),
        (
            dict(population=stress_command.Population('gaussian', 1, 10, 5, 0)),
            'stdev 0',
        ),
        (
            dict(population=stress_command.Population('zipf', 1, 10)),
            'unknown population',
        ),
    ],
)
def test_build_rejects_run(changes, message):
  with pytest.raises(ValueError, match=re.escape(message)):
    stress_command.BuildCommand(_TARGET, dataclasses.replace(_RUN, **changes))


@pytest.mark.parametrize(
    'changes, message',
    [
        (dict(nodes=()), 'no database node'),
        (dict(nodes=('10.0.0.1,10.0.0.2',)), 'not a node address'),
        (dict(nodes=('a=b',)), 'not a node address'),
        (dict(stress_path=''), 'no cassandra-stress path'),
        (dict(replication_factor=0), 'replication_factor'),
    ],
)
def test_build_rejects_target(changes, message):
  with pytest.raises(ValueError, match=re.escape(message)):
    stress_command.BuildCommand(dataclasses.replace(_TARGET, **changes), _RUN)
