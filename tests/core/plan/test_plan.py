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

"""The phase planner: splits, sizing, distributions and the step sequence."""

import dataclasses
import math
import re
import shlex

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.plan import plan
from perfkit_plugins.testing import planned_runs

_GIB = 2**30
_SERVERS = ('10.0.0.1', '10.0.0.2', '10.0.0.3')
_CS = '/opt/cassandra-stress/bin/cassandra-stress'
_DIR = '/tmp/pkb/stress'
_KEY_COUNTS = (
    1,
    2,
    3,
    7,
    10,
    63,
    64,
    65,
    97,
    1000,
    7919,
    104729,
    810774192,
    2**31 - 1,
    10**12 + 39,
)
_RATES = (0, 1, 2, 7, 63, 5000, 10000, 10001, 20000, 30000, 123457, 2**40)


def _Settings(**changes):
  return settings_lib.Validate(settings_lib.Settings(**changes))


def _Plan(settings, ram=3 * 64 * _GIB):
  return planned_runs.PhaseSteps(settings, _SERVERS, ram, _CS, _DIR)


def _Words(run):
  return shlex.split(run.command)


def _Param(run, prefix):
  """The value of the one word of the command starting with `prefix`."""
  (value,) = [w[len(prefix) :] for w in _Words(run) if w.startswith(prefix)]
  return value


# ---------------------------------------------------------------------------
# SplitRange and SplitRate.


@pytest.mark.parametrize('num_keys', _KEY_COUNTS)
def test_split_range_partitions_exactly(num_keys):
  for parts in range(1, 65):
    ranges = plan.SplitRange(1, num_keys, parts)
    assert len(ranges) == parts
    assert ranges[0].first == 1
    assert ranges[-1].last == num_keys
    for left, right in zip(ranges, ranges[1:]):
      assert right.first == left.last + 1  # no overlap, no gap
    counts = [r.count for r in ranges]
    assert sum(counts) == num_keys
    assert max(counts) - min(counts) <= 1
    assert counts.count(0) == max(0, parts - num_keys)
    # docs/measurement.md: loader i writes i*K/M+1 .. (i+1)*K/M.
    for i, r in enumerate(ranges):
      assert (r.first, r.last) == (
          i * num_keys // parts + 1,
          (i + 1) * num_keys // parts,
      )


def test_split_range_offset_and_spread():
  ranges = plan.SplitRange(1001, 1010, 4)
  assert [str(r) for r in ranges] == [
      '1001..1002',
      '1003..1005',
      '1006..1007',
      '1008..1010',
  ]
  assert [r.count for r in plan.SplitRange(1, 0, 3)] == [0, 0, 0]


@pytest.mark.parametrize('total', _RATES)
def test_split_rate_adds_up(total):
  for parts in range(1, 65):
    rates = plan.SplitRate(total, parts)
    assert len(rates) == parts
    assert sum(rates) == total
    assert max(rates) - min(rates) <= 1
    assert min(rates) >= 0


@pytest.mark.parametrize(
    'call',
    [
        lambda: plan.SplitRange(1, 10, 0),
        lambda: plan.SplitRange(5, 3, 2),
        lambda: plan.SplitRate(10, 0),
        lambda: plan.SplitRate(-1, 2),
    ],
)
def test_splits_reject_nonsense(call):
  with pytest.raises(ValueError):
    call()


# ---------------------------------------------------------------------------
# K and the read distributions.


def test_key_count_sources():
  ram = 3 * 15 * _GIB
  assert plan.KeyCount(_Settings(num_keys=810774192), ram) == 810774192
  # data_set_bytes: unique bytes, before replication; rounded up.
  assert plan.KeyCount(_Settings(data_set_bytes=10 * 1024 + 1), None) == 11
  # data_to_ram_ratio: replicated bytes over cluster RAM.
  settings = _Settings(data_to_ram_ratio=4.0)
  num_keys = plan.KeyCount(settings, ram)
  assert num_keys == math.ceil(4 * ram / (1024 * 3))
  assert num_keys * 1024 * 3 >= 4 * ram > (num_keys - 1) * 1024 * 3


def test_key_count_ratio_is_exact_for_decimal_ratios():
  # 0.3 x 10240 x 3 / 1024 / 3 is exactly 3: a float product would give
  # 3.0000000000000004 and round up to 4.
  settings = _Settings(data_to_ram_ratio=0.3, replication_factor=3)
  assert plan.KeyCount(settings, 10240 * 3) == 3


def test_key_count_study_ratio():
  # The c3.2xlarge study by this definition: 810,774,192 keys of
  # 5 x 34 bytes, RF 3, three nodes of 15 GiB -> about 8.6 (9.7 with keys).
  study = _Settings(column_size=34, column_count=5, data_to_ram_ratio=8.6)
  assert plan.KeyCount(study, 3 * 15 * _GIB) == pytest.approx(
      810774192, rel=0.01
  )


@pytest.mark.parametrize('ram', [0, None, -1])
def test_key_count_needs_ram(ram):
  with pytest.raises(settings_lib.SettingsError, match='scylla_data_to_ram'):
    plan.KeyCount(_Settings(), ram)


def test_read_distributions():
  settings = _Settings(read_small_stdev=10000, medium_working_set_to_ram=2.0)
  ram = 3 * 64 * _GIB
  num_keys = 10**9
  dists = plan.ReadDistributions(num_keys, ram, 1024, settings)
  assert dists['small'].Spec() == 'dist=gaussian(1..1000000000,500000000,10000)'
  medium = dists['medium']
  # +-2 stdev (95.4% of reads) x row x RF = 2 x cluster RAM.
  assert medium.stdev == round(2 * ram / (4 * 1024 * 3))
  working_set = plan.GAUSSIAN_WORKING_SET_STDEVS * medium.stdev * 1024 * 3
  assert working_set == pytest.approx(2 * ram, rel=1e-6)
  assert (medium.first, medium.last, medium.mean) == (1, num_keys, 500000000)
  assert dists['large'].Spec() == 'dist=uniform(1..1000000000)'


def test_medium_stdev_is_capped_and_at_least_one():
  settings = _Settings()
  # +-2 stdev span the keys: a wider gaussian would be clamped to keys 1
  # and K by cassandra-stress, not spread over them.
  assert plan.MediumStdev(1000, 3 * 64 * _GIB, 1024, settings) == 250
  assert plan.MediumStdev(10**12, 1, 1024, settings) == 1


def test_small_read_wider_than_the_keys_names_its_flag():
  with pytest.raises(
      settings_lib.SettingsError,
      match='--scylla_read_small_stdev: 10000 is wider than the 9999 keys',
  ):
    plan.ReadDistributions(9999, 1, 1024, _Settings())


def test_middle_of_odd_and_tiny_ranges():
  tiny = _Settings(read_small_stdev=1)
  assert plan.ReadDistributions(1, 1, 1024, tiny)['small'].mean == 1
  settings = _Settings()
  # The study: gaussian(1..810774192,405387096,...).
  big = plan.ReadDistributions(810774192, 1, 1024, settings)
  assert big['small'].mean == 405387096


# ---------------------------------------------------------------------------
# The full plan: 3 servers x 4 loaders, every phase.

_ALL = _Settings(phases=settings_lib.PHASES, loader_count=4, num_keys=10**8)
_EXPECTED = [
    ('populate', 'stress'),
    ('quiesce', 'quiesce'),
    ('read_warmup', 'stress'),
    ('read_small', 'stress'),
    ('read_medium', 'stress'),
    ('read_large', 'stress'),
    ('latency_5000', 'stress'),
    ('flush_quiesce_before_latency_10000', 'flush_quiesce'),
    ('latency_10000', 'stress'),
    ('flush_quiesce_before_latency_20000', 'flush_quiesce'),
    ('latency_20000', 'stress'),
    ('flush_quiesce_before_latency_30000', 'flush_quiesce'),
    ('latency_30000', 'stress'),
    ('reads_during_writes', 'stress'),
    ('mixed', 'stress'),
    ('write_only', 'stress'),
    ('read_cache_warmup', 'stress'),
    ('read_cache', 'stress'),
]


def test_full_plan_sequence():
  steps = _Plan(_ALL)
  assert [(s.name, s.kind) for s in steps] == _EXPECTED
  for step in steps:
    assert step.phase in settings_lib.PHASES
    if step.kind == 'stress':
      assert [r.loader_index for r in step.runs] == [0, 1, 2, 3]
    else:
      assert step.runs == ()
      assert step.expected_duration_s is None
      assert step.metadata['keyspace'] == 'keyspace1'
  durations = {s.name: s.expected_duration_s for s in steps}
  assert durations['populate'] is None
  assert durations['read_warmup'] == _ALL.read_warmup_s
  assert durations['read_large'] == _ALL.read_duration_s
  assert durations['latency_20000'] == _ALL.latency_duration_s
  assert durations['mixed'] == _ALL.mixed_duration_s
  assert durations['read_small'] == _ALL.read_duration_s


def test_small_read_may_have_its_own_duration():
  # The c3.2xlarge study: small 20 minutes, medium and large 60.
  settings = _Settings(read_duration_s=3600, read_small_duration_s=1200)
  durations = {s.name: s.expected_duration_s for s in _Plan(settings)}
  assert (
      durations['read_small'],
      durations['read_medium'],
      durations['read_large'],
  ) == (1200, 3600, 3600)
  small = [s for s in _Plan(settings) if s.name == 'read_small'][0]
  assert all(' duration=1200s ' in r.command for r in small.runs)
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_durations: read_small:'
  ):
    _Settings(read_small_duration_s=-1)


def test_every_run_writes_hdr_and_nothing_uses_limit():
  steps = _Plan(_ALL)
  paths = []
  for step in steps:
    for run in step.runs:
      words = _Words(run)
      assert f'hdrfile={run.hdr_path}' in words
      assert f'file={run.log_path}' in words
      assert f'interval={_ALL.hdr_interval_s}s' in words
      assert 'no-warmup' in words
      assert run.hdr_path.startswith(_DIR + '/')
      assert not any('limit=' in w or 'throttle=' in w for w in words)
      paths += [run.log_path, run.hdr_path, run.stdout_path]
  assert len(paths) == len(set(paths))


def test_populate_ranges_cover_keys_once():
  (populate,) = [s for s in _Plan(_ALL) if s.name == 'populate']
  ranges = [r.key_range for r in populate.runs]
  assert ranges == plan.SplitRange(1, 10**8, 4)
  for run in populate.runs:
    assert run.role == 'writer'
    assert _Words(run)[1] == 'write'
    assert _Param(run, 'seq=') == str(run.key_range)
    assert f'n={run.key_range.count}' in _Words(run)
    assert run.operations == run.key_range.count
    assert run.duration_s == 0
    assert _Param(run, 'threads=') == str(_ALL.populate_threads)
    assert not any(w.startswith('fixed=') for w in _Words(run))


@pytest.mark.parametrize('loaders', [1, 2, 3, 4, 7, 13, 64])
@pytest.mark.parametrize('rate', [64, 5000, 10001, 29999])
def test_latency_rates_split_exactly(loaders, rate):
  settings = _Settings(
      phases=('latency',), loader_count=loaders, latency_rates=(rate,)
  )
  (step,) = _Plan(settings)
  fixed = [int(_Param(r, 'fixed=').removesuffix('/s')) for r in step.runs]
  assert sum(fixed) == rate
  assert fixed == [r.rate for r in step.runs]
  assert step.metadata['loader_rates'] == fixed
  assert step.metadata['cluster_rate'] == rate
  for run in step.runs:
    assert _Param(run, 'duration=') == f'{settings.latency_duration_s}s'
    assert _Param(run, 'threads=') == str(settings.latency_threads)
  assert [r.key_range for r in step.runs] == plan.SplitRange(
      1, plan.KeyCount(settings, 3 * 64 * _GIB), loaders
  )


def test_latency_rate_below_loader_count_names_flag():
  settings = _Settings(
      phases=('latency',), loader_count=4, latency_rates=(5000, 3)
  )
  with pytest.raises(ValueError, match='--scylla_latency_rates: 3 op/s'):
    _Plan(settings)


def test_too_few_keys_for_loaders_names_flag():
  with pytest.raises(ValueError, match='--scylla_num_keys: keys 1..3'):
    _Plan(_Settings(num_keys=3, loader_count=4))


@pytest.mark.parametrize('loaders', range(2, 21))
@pytest.mark.parametrize('fraction', [0.01, 0.25, 0.5, 0.75, 0.99])
def test_reads_during_writes_roles(loaders, fraction):
  settings = _Settings(
      phases=('reads_during_writes',),
      loader_count=loaders,
      rdw_writer_fraction=fraction,
      rdw_write_rate=10007,
      num_keys=10**6 + 3,
  )
  (step,) = _Plan(settings)
  writers = [r for r in step.runs if r.role == 'writer']
  readers = [r for r in step.runs if r.role == 'reader']
  expected = max(1, min(loaders - 1, math.floor(loaders * fraction + 0.5)))
  assert len(writers) == expected == step.metadata['writers']
  assert len(readers) == loaders - expected
  assert [r.loader_index for r in step.runs] == list(range(loaders))
  # Writers: a disjoint split of 1..R at rates adding up to the flag.
  write_keys = math.floor((10**6 + 3) * settings.rdw_write_range_fraction)
  assert [w.key_range for w in writers] == plan.SplitRange(
      1, write_keys, len(writers)
  )
  assert sum(int(_Param(w, 'fixed=')[:-2]) for w in writers) == 10007
  for w in writers:
    assert _Words(w)[1] == 'write'
    assert _Param(w, 'seq=') == str(w.key_range)
  # Readers: uniform over every key, few threads, no rate.
  for r in readers:
    assert _Words(r)[1] == 'read'
    assert _Param(r, 'dist=') == f'uniform(1..{10**6 + 3})'
    assert _Param(r, 'threads=') == str(settings.rdw_read_threads)
    assert r.rate == 0
  durations = {_Param(r, 'duration=') for r in step.runs}
  assert durations == {f'{settings.rdw_duration_s}s'}


def test_reads_during_writes_readers_start_late_and_stop_with_writers():
  settings = _Settings(
      phases=('reads_during_writes',),
      loader_count=3,
      rdw_duration_s=14400,
      rdw_read_delay_s=10800,
  )
  (step,) = _Plan(settings)
  by_role = {}
  for run in step.runs:
    by_role.setdefault(run.role, set()).add(
        (run.start_delay_s, run.duration_s, _Param(run, 'duration='))
    )
  assert by_role == {
      'writer': {(0, 14400, '14400s')},
      'reader': {(10800, 3600, '3600s')},
  }
  assert step.expected_duration_s == 14400
  assert step.metadata['read_delay_s'] == 10800
  assert step.metadata['read_duration_s'] == 3600
  summary = plan.PlanSummary([step])
  assert 'reader keys 1..' in summary
  assert summary.count('starts after 10800 s') == sum(
      r.role == 'reader' for r in step.runs
  )


@pytest.mark.parametrize('delay', [1800, 2000])
def test_reads_during_writes_delay_must_leave_time_to_read(delay):
  with pytest.raises(
      settings_lib.SettingsError,
      match='--scylla_durations: rdw_read_delay: .*below',
  ):
    settings_lib.Validate(
        settings_lib.Settings(rdw_duration_s=1800, rdw_read_delay_s=delay)
    )


def test_reads_during_writes_small_rate_names_flag():
  settings = _Settings(
      phases=('reads_during_writes',), loader_count=6, rdw_write_rate=2
  )
  with pytest.raises(ValueError, match='--scylla_rdw_write_rate'):
    _Plan(settings)


def test_reads_during_writes_tiny_range_names_flag():
  settings = _Settings(
      phases=('reads_during_writes',), loader_count=4, num_keys=10
  )
  with pytest.raises(ValueError, match='--scylla_rdw_write_range_fraction'):
    _Plan(settings)


def test_read_steps_use_the_distributions():
  steps = {s.name: s for s in _Plan(_ALL)}
  dists = plan.ReadDistributions(10**8, 3 * 64 * _GIB, 1024, _ALL)
  for name, size in [
      ('read_warmup', 'small'),
      ('read_small', 'small'),
      ('read_medium', 'medium'),
      ('read_large', 'large'),
      ('read_cache_warmup', 'small'),
      ('read_cache', 'small'),
      ('mixed', _ALL.mixed_distribution),
  ]:
    step = steps[name]
    assert step.metadata['distribution'] == dists[size].Spec()
    assert step.metadata['distribution_size'] == size
    for run in step.runs:
      assert f'-pop {shlex.quote(dists[size].Spec())} ' in run.command
      assert run.key_range == plan.KeyRange(1, 10**8)
      assert _Param(run, 'threads=') == str(_ALL.threads)
  assert steps['read_medium'].metadata['working_set_to_ram'] == 2.0


def test_mixed_ratio_and_write_only():
  settings = _Settings(
      phases=('mixed', 'write_only'),
      mixed_write_ratio=1,
      mixed_read_ratio=3,
      mixed_distribution='large',
      num_keys=1000,
      read_small_stdev=100,
  )
  mixed, write_only = _Plan(settings)
  for run in mixed.runs:
    assert _Words(run)[1:3] == ['mixed', 'ratio(write=1,read=3)']
    assert run.role == 'mixed'
    assert _Param(run, 'dist=') == 'uniform(1..1000)'
  assert [r.key_range for r in write_only.runs] == plan.SplitRange(
      1, 1000, settings.loader_count
  )
  for run in write_only.runs:
    assert _Param(run, 'duration=') == f'{settings.write_only_duration_s}s'


def test_step_metadata():
  steps = {s.name: s for s in _Plan(_ALL)}
  for step in steps.values():
    meta = step.metadata
    assert meta['phase'] == step.phase
    assert meta['sub_phase'] == step.name
    assert meta['keys'] == 10**8
    assert meta['consistency_level'] == 'QUORUM'
    assert meta['replication_factor'] == 3
    assert meta['loaders'] == 4
  assert steps['quiesce'].metadata['after_populate'] is True
  assert steps['latency_20000'].metadata['cluster_rate'] == 20000
  assert steps['reads_during_writes'].metadata['write_rate'] == 10000


# ---------------------------------------------------------------------------
# Phase selection.


@pytest.mark.parametrize(
    'phases, names',
    [
        (('mixed', 'populate'), ['populate', 'mixed']),
        (('read_cache',), ['read_cache_warmup', 'read_cache']),
        (('quiesce', 'populate'), ['populate', 'quiesce']),
        (
            ('write_only', 'latency'),
            [
                'latency_5000',
                'flush_quiesce_before_latency_10000',
                'latency_10000',
                'flush_quiesce_before_latency_20000',
                'latency_20000',
                'flush_quiesce_before_latency_30000',
                'latency_30000',
                'write_only',
            ],
        ),
    ],
)
def test_phase_selection_keeps_methodology_order(phases, names):
  steps = _Plan(_Settings(phases=phases, num_keys=1000, read_small_stdev=100))
  assert [s.name for s in steps] == names


def test_quiesce_without_populate_is_a_plain_wait():
  (step,) = _Plan(
      _Settings(phases=('quiesce',), num_keys=1000, read_small_stdev=100)
  )
  assert step.kind == 'quiesce'
  assert step.metadata['after_populate'] is False


def test_no_warmup_step_when_warmup_is_zero():
  steps = _Plan(
      _Settings(
          phases=('read',), read_warmup_s=0, num_keys=1000, read_small_stdev=100
      )
  )
  assert [s.name for s in steps] == ['read_small', 'read_medium', 'read_large']


def test_single_latency_rate_has_no_flush():
  steps = _Plan(
      _Settings(
          phases=('latency',),
          latency_rates=(7000,),
          num_keys=1000,
          read_small_stdev=100,
      )
  )
  assert [s.name for s in steps] == ['latency_7000']


def test_plan_needs_ram_only_when_it_sizes_by_ram():
  no_reads = _Settings(
      phases=('populate', 'latency'), num_keys=1000, read_small_stdev=100
  )
  assert _Plan(no_reads, ram=None)
  with pytest.raises(ValueError, match='--scylla_medium_working_set_to_ram'):
    _Plan(
        _Settings(phases=('read',), num_keys=1000, read_small_stdev=100),
        ram=None,
    )


def test_plan_summary_lists_steps_and_commands():
  steps = _Plan(_ALL)
  text = plan.PlanSummary(steps)
  for step in steps:
    assert re.search(rf'^{step.name} \[{step.kind}, ', text, re.M)
    for run in step.runs:
      assert run.command in text
  known = sum(s.expected_duration_s or 0 for s in steps)
  assert text.endswith(
      f'expected: {known} s plus 5 step(s) that run until done'
  )


# ---------------------------------------------------------------------------
# Settings checks the planner relies on.


@pytest.mark.parametrize(
    'changes, flag',
    [
        (dict(compaction_strategy='UnifiedCompactionStrategy'), 'compaction'),
        (dict(latency_rates=(5000, 5000)), 'latency_rates'),
        (dict(mixed_distribution='huge'), 'mixed_distribution'),
    ],
)
def test_settings_reject(changes, flag):
  with pytest.raises(settings_lib.SettingsError, match=f'--scylla_{flag}'):
    _Settings(**changes)


def test_unified_compaction_with_apache_stress_is_planned():
  settings = _Settings(
      engine='cassandra',
      stress_tool='apache',
      compaction_strategy='UnifiedCompactionStrategy',
      phases=('populate',),
      num_keys=100,
  )
  (step,) = _Plan(settings)
  assert 'compaction(strategy=UnifiedCompactionStrategy)' in _Words(
      step.runs[0]
  )


def test_steps_are_frozen():
  step = _Plan(_Settings(phases=('populate',), num_keys=100))[0]
  with pytest.raises(dataclasses.FrozenInstanceError):
    step.name = 'other'


def test_repeats_interleave_the_measured_steps_in_rounds():
  settings = _Settings(
      phases=('populate', 'quiesce', 'read', 'latency', 'mixed'),
      latency_rates=(5000, 10000),
      repeats=3,
  )
  steps = _Plan(settings)
  names = [s.name for s in steps]
  # Populate and its quiesce once; then round after round, never one
  # step's repeats back to back.
  assert names[:2] == ['populate', 'quiesce']
  one_round = [
      'read_warmup',
      'read_small',
      'read_medium',
      'read_large',
      'latency_5000',
      'flush_quiesce_before_latency_10000',
      'latency_10000',
      'mixed',
  ]
  assert names[2:10] == [f'{n}.r1' for n in one_round]
  # A round after one that wrote starts on a settled cluster.
  assert names[10] == 'flush_quiesce_before_round_2'
  assert steps[10].kind == plan.KIND_FLUSH_QUIESCE
  assert names[11:19] == [f'{n}.r2' for n in one_round]
  assert names[19] == 'flush_quiesce_before_round_3'
  assert names[20:] == [f'{n}.r3' for n in one_round]
  # Samples keep the step's name and say the repeat.
  small = [s for s in steps if s.label == 'read_small']
  assert [(s.repeat, s.published_name) for s in small] == [
      (1, 'read_small'),
      (2, 'read_small'),
      (3, 'read_small'),
  ]
  assert [s.metadata['repeat'] for s in small] == [1, 2, 3]
  # Every repeat writes its own files, and its commands say so.
  for step in small:
    for run in step.runs:
      assert f'/read_small.r{step.repeat}.loader' in run.stem
      assert f'file={run.log_path}' in _Words(run)
  stems = [run.stem for s in steps for run in s.runs]
  assert len(stems) == len(set(stems))
  # Warm-ups are marked: no statistic counts them.
  warmups = [s for s in steps if s.metadata.get('warmup')]
  assert [s.name for s in warmups] == [f'read_warmup.r{k}' for k in (1, 2, 3)]


def test_one_repeat_plans_as_before():
  settings = _Settings(phases=('populate', 'quiesce', 'read'))
  steps = _Plan(settings)
  assert [s.name for s in steps] == [
      'populate',
      'quiesce',
      'read_warmup',
      'read_small',
      'read_medium',
      'read_large',
  ]
  assert {(s.label, s.repeat) for s in steps} == {('', 1)}


def test_rounds_of_reads_only_need_no_quiesce_between_them():
  settings = _Settings(phases=('read',), repeats=2, read_warmup_s=0)
  names = [s.name for s in _Plan(settings)]
  assert names == [
      f'read_{size}.r{k}'
      for k in (1, 2)
      for size in ('small', 'medium', 'large')
  ]
