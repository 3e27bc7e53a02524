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

"""Every config in configs/ decodes through real PKB and the plan command.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise. `--ignore_package_requirements`
lets `pkb.py --dry_run` decode AWS configs without the AWS CLI installed
(the plan command sets it itself: it calls no cloud tool).
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

REPO = pathlib.Path(__file__).resolve().parents[2]
_GROUPS_RE = re.compile(r'scylla_phases decoded groups: (\{.*\})')
_TITLE_RE = re.compile(
    r'^scylla_phases run (\d+) of (\d+): (\w+) on (\d+) x (\S+)$', re.M
)

# Per config: one (engine, server type, local SSDs or network disk type,
# loader count, loader type) per run PKB starts, in order.
EXPECTED_RUNS = {
    'scylla_phases_z3_vs_n2.yaml': [
        ('scylla', 'z3-highmem-88', 12, 30, 'c2-standard-30'),
        ('scylla', 'n2-highmem-96', 24, 33, 'c2-standard-30'),
    ],
    'scylla_phases_vs_cassandra_c3_2xlarge.yaml': [
        ('scylla', 'c3.2xlarge', 'gp3', 3, 'm4.2xlarge'),
        ('cassandra', 'c3.2xlarge', 'gp3', 3, 'm4.2xlarge'),
    ],
    'scylla_phases_vs_cassandra_i4i_2xlarge.yaml': [
        ('scylla', 'i4i.2xlarge', 1, 3, 'c6i.2xlarge'),
        ('cassandra', 'i4i.2xlarge', 1, 3, 'c6i.2xlarge'),
    ],
    'scylla_phases_smoke.yaml': [
        ('scylla', 'n2-standard-8', 2, 2, 'n2-highcpu-8'),
    ],
    'scylla_phases_smoke_aws.yaml': [
        ('scylla', 'i4i.2xlarge', 1, 2, 'c6i.2xlarge'),
    ],
    'scylla_phases_server_type_matrix.yaml': [
        ('scylla', 'z3-highmem-88', 12, 30, 'c2-standard-30'),
        ('scylla', 'z3-highmem-176-standardlssd', 12, 60, 'c2-standard-30'),
    ],
}
# Static VMs: nothing provisioned, so no machine type to expect.
OWN_MACHINES = 'scylla_phases_own_machines.yaml'
CONFIG_FILES = sorted(
    p.name for p in (REPO / 'configs').glob('*.yaml') if p.name != OWN_MACHINES
)


def _Env():
  return dict(os.environ, PYTHONWARNINGS='ignore')


def RunPkb(tmp_path, *args):
  return subprocess.run(
      [
          sys.executable,
          os.path.join(CHECKOUT, 'pkb.py'),
          *args,
          '--temp_dir',
          str(tmp_path),
      ],
      capture_output=True,
      text=True,
      env=_Env(),
      cwd=tmp_path,
      timeout=300,
      check=False,
  )


def RunPlan(tmp_path, *args):
  return subprocess.run(
      [sys.executable, '-m', 'perfkit_plugins.tools.plan_command', *args],
      capture_output=True,
      text=True,
      env=_Env(),
      cwd=tmp_path,
      timeout=300,
      check=False,
  )


def _Disk(servers):
  volume = servers['data_volume']
  return volume.get('local_ssds', volume.get('network_disk'))


def test_every_config_file_has_expectations():
  assert CONFIG_FILES == sorted(EXPECTED_RUNS)
  assert (REPO / 'configs' / OWN_MACHINES).is_file()
  assert not (REPO / 'configs' / '.keep').exists()


@pytest.mark.parametrize('config_file', CONFIG_FILES)
def test_config_decodes_in_pkb_dry_run(tmp_path, config_file):
  result = RunPkb(
      tmp_path,
      '--benchmarks=scylla_phases',
      f'--benchmark_config_file={config_file}',
      '--ignore_package_requirements',
      '--dry_run',
  )
  output = result.stderr + result.stdout
  assert result.returncode == 0, output[-3000:]
  runs = [json.loads(m) for m in _GROUPS_RE.findall(output)]
  decoded = [
      (
          r['servers']['machine_type'],
          _Disk(r['servers']),
          r['loaders']['vm_count'],
          r['loaders']['machine_type'],
      )
      for r in runs
  ]
  assert decoded == [run[1:] for run in EXPECTED_RUNS[config_file]]
  assert all(r['servers']['vm_count'] == 3 for r in runs)
  if config_file == 'scylla_phases_vs_cassandra_c3_2xlarge.yaml':
    # The study's 3.4 TB gp2 volume ran at its 10K IOPS cap.
    for r in runs:
      disk = r['servers']['disk']
      assert (disk['disk_size'], disk['provisioned_iops']) == (3400, 10000)
      assert disk['provisioned_throughput'] == 160


def _Sections(text):
  """The plan text of each run, keyed by its title's match."""
  titles = list(_TITLE_RE.finditer(text))
  ends = [t.start() for t in titles[1:]] + [len(text)]
  return [(t, text[t.end() : end]) for t, end in zip(titles, ends)]


@pytest.mark.parametrize('config_file', CONFIG_FILES)
def test_config_plans(tmp_path, config_file):
  result = RunPlan(tmp_path, f'--benchmark_config_file={config_file}')
  assert result.returncode == 0, result.stderr[-3000:]
  expected = EXPECTED_RUNS[config_file]
  sections = _Sections(result.stdout)
  assert len(sections) == len(expected)
  for i, ((title, body), run) in enumerate(zip(sections, expected)):
    engine, server_type, disk, loaders, loader_type = run
    assert title.groups() == (
        str(i + 1),
        str(len(expected)),
        engine,
        '3',
        server_type,
    )
    assert f'  loaders: {loaders} x {loader_type}:' in body
    if isinstance(disk, int):
      assert f'{disk} local SSD' in body
    else:
      assert 'network disk per server' in body
    # Every stress step lists one command per loader; each loader contacts
    # one server, the loaders every server between them.
    commands = re.findall(
        r'^      (JAVA_HOME=\S+/jdk \S+cassandra-stress .*)$', body, re.M
    )
    steps = re.findall(r'^  (\w+) \[stress, ', body, re.M)
    assert steps
    loader_lines = re.findall(r'^    loader (\d+) ', body, re.M)
    assert len(commands) == len(loader_lines) > 0
    contacted = {re.search(r' -node (\S+) ', c).group(1) for c in commands}
    servers = {'server0', 'server1', 'server2'}
    assert contacted == (
        servers if loaders >= 3 else {f'server{i}' for i in range(loaders)}
    )
    assert set(int(n) for n in loader_lines) == set(range(loaders))
    for section in ('Data set', 'Duration', 'Cost (on-demand)', 'Warnings'):
      assert f'\n{section}\n' in body
  if len(expected) > 1:
    assert '\nAll runs\n' in result.stdout


def test_z3_study_plan_matches_the_study(tmp_path):
  result = RunPlan(
      tmp_path, '--benchmark_config_file=scylla_phases_z3_vs_n2.yaml'
  )
  z3, n2 = _Sections(result.stdout)
  assert 'shards per server (perftune rule, predicted): 80; IRQ vCPUs: 8' in (
      z3[1]
  )
  assert "-col 'size=FIXED(1024)' 'n=FIXED(1)'" in z3[1]
  assert "mixed 'ratio(write=1,read=1)'" in z3[1]
  assert 'cl=QUORUM' in z3[1] and "'replication(factor=3)'" in z3[1]
  assert '3 x $13.000/h = $39.00/h (us-central1' in z3[1]
  assert '3 x n2-highmem-96: price unknown' in n2[1]


def test_c3_study_plan_keeps_the_study_parameters(tmp_path):
  result = RunPlan(
      tmp_path,
      '--benchmark_config_file=scylla_phases_vs_cassandra_c3_2xlarge.yaml',
  )
  (_, scylla), (_, cassandra) = _Sections(result.stdout)
  for body in (scylla, cassandra):
    assert 'partitions: 810,774,192 of 170 B' in body
    for rate in (5000, 10000, 20000, 30000):
      assert f'  latency_{rate} [stress, 1800 s]' in body
    # Small 20 minutes, medium and large 60, as in the study.
    assert '  read_small [stress, 1200 s]' in body
    assert '  read_medium [stress, 3600 s]' in body
    assert '  read_large [stress, 3600 s]' in body
    assert 'fixed=10000/s' in body  # 30K op/s over 3 loaders
    assert "'dist=gaussian(1..810774192,405387096,10000)'" in body
    assert "'dist=gaussian(1..810774192,405387096,99952732)'" in body
    assert 'seq=1..10000007' in body  # the reads-during-writes writer
    # Writes for 4 hours; readers over the last 60 minutes of them.
    assert '  reads_during_writes [stress, 14400 s]' in body
    assert body.count('reader keys 1..810774192 20 threads starts after') == 2
    assert body.count(' duration=3600s ') >= 2
  assert 'Apache Cassandra 5.0.9' in cassandra
  # Estimated from each engine's own populate rate in the study (4 h 27 min
  # and 5 h 21 min), and no warning about the ladder's rates.
  assert re.search(r'populate +4h 27m 21s  estimated', scylla)
  assert re.search(r'populate +5h 21m 33s  estimated', cassandra)
  for body in (scylla, cassandra):
    assert '! --scylla_' not in body


@pytest.mark.parametrize(
    'config_file', ['scylla_phases_smoke.yaml', 'scylla_phases_smoke_aws.yaml']
)
def test_smoke_config_plan_stays_within_30_minutes(tmp_path, config_file):
  result = RunPlan(tmp_path, f'--benchmark_config_file={config_file}')
  ((_, body),) = _Sections(result.stdout)
  # The worst case: every quiesce to its timeout, with the assumed setup and
  # the estimated populate.
  longest = re.search(
      r'to (?:(\d+)h )?(\d+)m (\d+)s \(every quiesce to its timeout\)', body
  )
  hours, minutes, seconds = (int(g or 0) for g in longest.groups())
  assert 3600 * hours + 60 * minutes + seconds <= 30 * 60
  assert re.search(r'populate +\d+s  estimated', body)


def test_plan_flags_on_the_command_line(tmp_path):
  result = RunPlan(
      tmp_path,
      '--machine_type=z3-highmem-88',
      '--scylla_latency_rates=5000,3000000',
      '--scylla_loader_count=10',
  )
  assert result.returncode == 0, result.stderr[-3000:]
  ((title, body),) = _Sections(result.stdout)
  assert title.group(5) == 'z3-highmem-88'
  assert '  loaders: 10 x n2-highcpu-32:' in body
  assert (
      '! --scylla_latency_rates: 3,000,000 op/s is above the expected'
      ' maximum write rate of the servers, 2,230,800 op/s'
      in body
  )
  assert '! loaders: 10 x n2-highcpu-32 (320 vCPUs) may be too few' in body


def test_plan_refuses_a_replication_factor_above_the_server_count(tmp_path):
  result = RunPlan(tmp_path, '--scylla_replication_factor=5')
  assert result.returncode == 1
  assert result.stdout == ''
  assert (
      'scylla-phases-plan: --scylla_replication_factor: 5 is above the'
      ' server count 3'
      in result.stderr
  )


def test_plan_without_pkb_says_how_to_point_at_a_checkout(tmp_path):
  env = dict(_Env(), PKB_CHECKOUT=str(tmp_path / 'none'))
  env.pop('PYTHONPATH', None)
  result = subprocess.run(
      [sys.executable, '-m', 'perfkit_plugins.tools.plan_command'],
      capture_output=True,
      text=True,
      env=env,
      cwd=tmp_path,
      timeout=300,
      check=False,
  )
  assert result.returncode == 1
  assert (
      f'needs a PerfKitBenchmarker checkout and found none at {tmp_path}/none:'
      ' set PKB_CHECKOUT='
      in result.stderr
  )


@pytest.mark.parametrize(
    'script, args, expected',
    [
        (
            'scylla-phases-plan',
            ('--machine_type=z3-highmem-88', '--scylla_phases=populate,mixed'),
            'scylla_phases run 1 of 1: scylla on 3 x z3-highmem-88',
        ),
        ('scylla-phases-report', ('--help',), 'usage: scylla-phases-report'),
    ],
)
def test_console_scripts_are_installed(tmp_path, script, args, expected):
  path = pathlib.Path(sys.executable).parent / script
  assert path.is_file(), f'{path}: reinstall the plugin (pip install -e .)'
  result = subprocess.run(
      [str(path), *args],
      capture_output=True,
      text=True,
      env=_Env(),
      cwd=tmp_path,
      timeout=300,
      check=False,
  )
  assert result.returncode == 0, result.stderr[-3000:]
  assert expected in result.stdout


def test_own_machines_config_decodes_and_plans_its_unknowns(tmp_path):
  result = RunPkb(
      tmp_path,
      '--benchmarks=scylla_phases',
      f'--benchmark_config_file={OWN_MACHINES}',
      '--dry_run',
  )
  output = result.stderr + result.stdout
  assert result.returncode == 0, output[-3000:]
  (run,) = [json.loads(m) for m in _GROUPS_RE.findall(output)]
  assert run['servers']['static_vms'] == [
      f'perfkit@10.0.0.{i}:22' for i in (11, 12, 13)
  ]
  assert run['servers']['data_volume'] == {
      'declared_by_static_vms': '/mnt/data'
  }
  assert run['loaders']['vm_count'] == 2
  plan = RunPlan(tmp_path, f'--benchmark_config_file={OWN_MACHINES}')
  assert plan.returncode == 0, plan.stderr[-3000:]
  text = plan.stdout
  assert text.startswith(
      'scylla_phases run 1 of 1: cassandra on 3 x own machines (static VMs)'
  )
  for line in (
      '  data: /mnt/data, declared by their disk_specs, used as it is',
      'Unknown until the machines are reached',
      '  partitions: 1,000,000 (--scylla_num_keys)',
      '  price: never from a price table for own machines; none given',
      '  schema [schema, 0 s] on 1 loader(s)',
      '  quiesce [quiesce, until done] on the servers',
  ):
    assert line in text, line
  assert 'z3-highmem' not in text
  # A price given is the only one.
  priced = RunPlan(
      tmp_path,
      f'--benchmark_config_file={OWN_MACHINES}',
      '--scylla_server_price_per_hour=1.5',
  )
  assert '$1.500/h per server (user override' in priced.stdout


def test_plans_show_quota_disk_paths_and_maintenance(tmp_path):
  z3, n2 = _Sections(
      RunPlan(
          tmp_path, '--benchmark_config_file=scylla_phases_z3_vs_n2.yaml'
      ).stdout
  )
  # The loaders' quota is the one to ask for: 900 and 990 C2 vCPUs.
  assert '  us-central1  c2: 30 VMs, 900 vCPUs (loaders)' in z3[1]
  assert '  us-central1  all: 33 VMs, 1,164 vCPUs' in z3[1]
  assert '  us-central1  c2: 33 VMs, 990 vCPUs (loaders)' in n2[1]
  # 12 x 3,000 GiB of Titanium SSD: no live migration for a 6-hour run.
  assert '! maintenance: z3-highmem-88 has 36,000 GiB of local SSD' in z3[1]
  assert '! maintenance' not in n2[1]
  for _, body in _Sections(
      RunPlan(
          tmp_path,
          '--benchmark_config_file=scylla_phases_vs_cassandra_c3_2xlarge.yaml',
      ).stdout
  ):
    assert (
        'data: one 3400 GB network disk per server (10,000 IOPS and 160'
        ' MiB/s provisioned); c3.2xlarge reaches at most 8,000 IOPS and 125'
        ' MB/s of EBS, and is not EBS-optimized'
        in body
    )
    assert '! data disk: c3.2xlarge reaches EBS at most 8,000 IOPS' in body


@pytest.mark.parametrize('flag', ['--help', '-h', '--helpfull'])
def test_plan_help_exits_0_with_the_benchmarks_flags(tmp_path, flag):
  result = RunPlan(tmp_path, flag)
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.startswith('`scylla-phases-plan`: what a scylla_phases')
  assert '--scylla_release' in result.stdout
