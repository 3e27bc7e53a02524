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

"""cassandra-stress command lines: a frozen description in, a shell string out.

The syntax is the one of ScyllaDB's cassandra-stress 3.18.1 as its own help
texts define it (tests/testdata/lab/cs-help*.txt; the tests check every
command the planner builds against them). Choices, with their evidence:

* Every parameter is its own shell word, quoted with `shlex.quote`:
  cassandra-stress splits its arguments on `-option` words only and takes
  each following word as one parameter (`StressSettings.parseMap`), so
  `'dist=gaussian(1..9,5,2)'` reaches it intact.
* `-node` names one node per process, a different one for each loader
  (StressRun.contact_node): after every write run's schema check
  cassandra-stress sleeps one second per `-node` address
  (`SettingsSchema.createKeySpaces`, "Sleeping Ns for propagation"), 30 s
  before each write step of a 30-node cluster. The driver learns every
  other node from the one it contacts and routes by token over all of them.
* `no-warmup` always: the built-in warm-up runs up to 50,000 x (node count)
  operations per process with no rate limit (`StressAction.warmup`), outside
  the measured window and outside any `fixed=` schedule, and writes keys no
  populate range accounts for. The plan has explicit warm-up steps instead.
* Rates: `fixed=R/s` (open-loop schedule, latency measured from the intended
  start) or `throttle=R/s`, never both (cassandra-stress exits with "can't
  have both fixed and throttle set"). The pre-3.8 `limit=R/s` is rejected
  ("Invalid parameter limit=2000/s") and cannot be expressed here.
* No `-mode`: without it both ScyllaDB's and Apache's cassandra-stress use the
  native protocol with prepared statements. Apache's 4.x/5.x ignore `native`
  and `cql3` and, when `-mode` is given without `prepared`, switch to
  unprepared statements.
* `-schema replication(factor=N)`: 3.18.1 names the replica count `factor`;
  its default strategy, NetworkTopologyStrategy, turns it into
  `replication_factor`.
* `-col size=FIXED(s) n=FIXED(c)` on every command, reads included: reads
  validate the columns they get against the same generator.
* `-log file=... hdrfile=... interval=Ns`: `file=` receives the same report as
  stdout (settings, interval lines, `Results:`) without the driver's log
  lines; the HDR interval log gets one histogram per interval.
"""

import dataclasses
import functools
import shlex

COMMANDS = ('write', 'read', 'mixed')
POPULATION_KINDS = ('seq', 'gaussian', 'uniform')


@dataclasses.dataclass(frozen=True)
class Population:
  """The partition keys (seeds) a run visits, `-pop`.

  Attributes:
    kind: 'seq' (each key once, in order, wrapping), 'gaussian' or 'uniform'.
    first: lowest key, at least 1.
    last: highest key.
    mean: centre of a gaussian.
    stdev: standard deviation of a gaussian, in keys.
  """

  kind: str
  first: int
  last: int
  mean: int = 0
  stdev: int = 0

  def Spec(self):
    """The `-pop` parameter, e.g. 'seq=1..10' or 'dist=uniform(1..10)'."""
    span = f'{self.first}..{self.last}'
    if self.kind == 'seq':
      return f'seq={span}'
    if self.kind == 'gaussian':
      return f'dist=gaussian({span},{self.mean},{self.stdev})'
    return f'dist=uniform({span})'


@dataclasses.dataclass(frozen=True)
class Target:
  """What every command of a run shares: binary, cluster and schema.

  java_home, when set, is the JAVA_HOME the command runs with (the JDK
  linked beside the tool on every loader).
  """

  stress_path: str
  nodes: tuple[str, ...]
  keyspace: str
  replication_factor: int
  compaction_strategy: str
  consistency_level: str
  column_size: int
  column_count: int
  java_home: str = ''


@dataclasses.dataclass(frozen=True)
class StressRun:
  """One cassandra-stress process.

  Attributes:
    command: 'write', 'read' or 'mixed'.
    population: the keys it visits.
    threads: concurrent clients in this process.
    log_path: remote path of the text report (`-log file=`).
    hdr_path: remote path of the HDR interval log (`-log hdrfile=`).
    log_interval_s: seconds per report line and per HDR histogram.
    operations: `n=`, for runs that stop after a number of operations.
    duration_s: `duration=`, for timed runs; exactly one of the two is set.
    fixed_rate: op/s of this process on an open-loop schedule, 0 for none.
    throttle_rate: op/s cap of this process, 0 for none.
    write_ratio: writes per `read_ratio` reads, mixed runs only.
    read_ratio: reads per `write_ratio` writes, mixed runs only.
    contact_node: which of the target's nodes the process contacts (the
      index modulo their count: a loader's index spreads loaders over
      nodes).
  """

  command: str
  population: Population
  threads: int
  log_path: str
  hdr_path: str
  log_interval_s: int
  operations: int = 0
  duration_s: int = 0
  fixed_rate: int = 0
  throttle_rate: int = 0
  write_ratio: int = 0
  read_ratio: int = 0
  contact_node: int = 0


def _Check(condition, message):
  if not condition:
    raise ValueError(message)


def _CheckPopulation(pop):
  _Check(pop.kind in POPULATION_KINDS, f'unknown population {pop.kind!r}')
  _Check(
      1 <= pop.first <= pop.last,
      f'population range {pop.first}..{pop.last} is empty or below 1',
  )
  if pop.kind == 'gaussian':
    _Check(
        pop.first <= pop.mean <= pop.last,
        f'gaussian mean {pop.mean} is outside {pop.first}..{pop.last}',
    )
    _Check(pop.stdev >= 1, f'gaussian stdev {pop.stdev} is below 1')


# Every run of a plan shares one Target: checked once, not once per run
# (1,000 loaders x 1,000 nodes would be 20 million node checks).
@functools.lru_cache(maxsize=8)
def _CheckTarget(target):
  _Check(target.stress_path, 'no cassandra-stress path')
  _Check(target.nodes, 'no database node to connect to')
  for node in target.nodes:
    # -node takes one comma-separated word ("[^=,]+(,[^=,]+)*").
    _Check(
        node and not set(node) & set(', \t\n='),
        f'{node!r} is not a node address',
    )
  for field in ('replication_factor', 'column_size', 'column_count'):
    _Check(getattr(target, field) >= 1, f'{field} must be at least 1')


def _CheckRun(run):
  """Refuses a StressRun cassandra-stress would reject or misread.

  Caught when the command is built, a bad run fails the plan with its
  reason (ValueError) instead of failing on every loader with a usage
  message, or running something other than what was planned.
  """
  _Check(run.command in COMMANDS, f'unknown command {run.command!r}')
  _CheckPopulation(run.population)
  _Check(run.threads >= 1, f'threads={run.threads} must be at least 1')
  _Check(
      (run.operations > 0) != (run.duration_s > 0),
      'give exactly one of an operation count and a duration',
  )
  _Check(min(run.operations, run.duration_s) >= 0, 'negative count or duration')
  _Check(
      min(run.fixed_rate, run.throttle_rate) >= 0, 'rates cannot be negative'
  )
  _Check(
      not (run.fixed_rate and run.throttle_rate),
      'cassandra-stress cannot combine fixed= and throttle= rates',
  )
  _Check(run.log_interval_s >= 1, 'the log interval must be at least 1 s')
  _Check(run.log_path and run.hdr_path, 'every run needs a log and HDR log')
  is_mixed = run.command == 'mixed'
  ratios = (run.write_ratio, run.read_ratio)
  if is_mixed:
    _Check(
        min(ratios) >= 0 and sum(ratios) > 0,
        f'mixed ratio write={run.write_ratio},read={run.read_ratio} is empty',
    )
  else:
    _Check(ratios == (0, 0), f'a {run.command} run takes no ratio')


def _Words(target, run):
  """The command as the argument list cassandra-stress receives."""
  words = [target.stress_path, run.command]
  if run.command == 'mixed':
    words.append(f'ratio(write={run.write_ratio},read={run.read_ratio})')
  if run.operations:
    words.append(f'n={run.operations}')
  else:
    words.append(f'duration={run.duration_s}s')
  words += [f'cl={target.consistency_level}', 'no-warmup']
  words += ['-node', target.nodes[run.contact_node % len(target.nodes)]]
  words += _SchemaWords(target)
  words += ['-pop', run.population.Spec()]
  words += ['-rate', f'threads={run.threads}']
  if run.fixed_rate:
    words.append(f'fixed={run.fixed_rate}/s')
  if run.throttle_rate:
    words.append(f'throttle={run.throttle_rate}/s')
  words += [
      '-log',
      f'file={run.log_path}',
      f'hdrfile={run.hdr_path}',
      f'interval={run.log_interval_s}s',
  ]
  return words


def _Command(target, words):
  command = ' '.join(shlex.quote(word) for word in words)
  if target.java_home:
    return f'JAVA_HOME={shlex.quote(target.java_home)} {command}'
  return command


def SchemaCommand(target):
  """The command that creates the keyspace and table, and writes nothing.

  `write n=0` makes cassandra-stress create the schema its -schema and -col
  options describe and stop ("N=0: SCHEMA CREATED, NOTHING ELSE DONE."):
  run on one loader before the first step, so loaders starting together
  never race to create it (the losers fail with "Keyspace ... does not
  exist" while the schema settles).
  """
  _CheckTarget(target)
  words = [target.stress_path, 'write', 'n=0', f'cl={target.consistency_level}']
  words += ['no-warmup', '-node', target.nodes[0]]
  words += _SchemaWords(target)
  words += ['-rate', 'threads=1']
  return _Command(target, words)


def _SchemaWords(target):
  """The -schema and -col options: what every command of a run shares."""
  return [
      '-schema',
      f'replication(factor={target.replication_factor})',
      f'compaction(strategy={target.compaction_strategy})',
      f'keyspace={target.keyspace}',
      '-col',
      f'size=FIXED({target.column_size})',
      f'n=FIXED({target.column_count})',
  ]


def BuildCommand(target, run):
  """The shell command line of one cassandra-stress process.

  Args:
    target: a Target (binary, nodes, schema).
    run: a StressRun (what this process does).

  Returns:
    A string for a remote shell; every word is shlex-quoted.

  Raises:
    ValueError: the combination cannot run (both fixed= and throttle=, no
      count and no duration, an empty range, a ratio on a non-mixed run...).
  """
  _CheckTarget(target)
  _CheckRun(run)
  return _Command(target, _Words(target, run))
