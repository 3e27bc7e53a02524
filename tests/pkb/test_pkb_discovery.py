"""Stock pkb.py sees the plugin as if it were in PKB's tree.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from perfkit_plugins import discovery
from perfkit_plugins import scylla_phases_flags
from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

REPO = pathlib.Path(__file__).resolve().parents[2]
CONFIG_FILES = sorted(p.name for p in (REPO / 'configs').glob('*.yaml'))
_GROUPS_RE = re.compile(r'scylla_phases decoded groups: (\{.*\})')


def RunPkb(*args, env=None, tmp_path=None):
  """Runs the checkout's pkb.py; returns the CompletedProcess."""
  full_env = dict(os.environ, **(env or {}))
  full_env.setdefault('PYTHONWARNINGS', 'ignore')
  # No cloud SDK is needed to decode configs (AWS's awscli is not here).
  temp = ['--ignore_package_requirements']
  if tmp_path:
    temp += ['--temp_dir', str(tmp_path)]
  return subprocess.run(
      [sys.executable, os.path.join(CHECKOUT, 'pkb.py'), *args, *temp],
      capture_output=True,
      text=True,
      env=full_env,
      cwd=tmp_path or CHECKOUT,
      timeout=300,
      check=False,
  )


def RunPkbScript(tmp_path, text, *args):
  """Runs a Python script against the checkout; returns its last line's JSON.

  For checks that go through PKB's own functions in one process.
  """
  script = tmp_path / 'script.py'
  script.write_text(text)
  result = subprocess.run(
      [sys.executable, str(script), *args],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(os.environ, PYTHONPATH=CHECKOUT, PYTHONWARNINGS='ignore'),
      timeout=300,
      check=False,
  )
  assert result.returncode == 0, result.stderr[-3000:]
  return json.loads(result.stdout.splitlines()[-1])


def DecodedGroups(result):
  """The VM groups the benchmark logged after PKB decoded its config."""
  assert result.returncode == 0, result.stderr[-3000:]
  match = _GROUPS_RE.search(result.stderr + result.stdout)
  assert match, result.stderr[-3000:]
  return json.loads(match.group(1))


def test_helpmatch_lists_every_flag(tmp_path):
  result = RunPkb('--helpmatch=scylla_phases', tmp_path=tmp_path)
  assert result.returncode == 0, result.stderr[-2000:]
  for _, field, _ in scylla_phases_flags.FLAG_HELP:
    name = scylla_phases_flags.FlagName(field)
    assert re.search(rf'--(\[no\])?{name}:', result.stdout), name


def test_machine_type_sets_servers_only(tmp_path):
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          '--machine_type=z3-highmem-88',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  servers, loaders = groups['servers'], groups['loaders']
  assert servers['machine_type'] == 'z3-highmem-88'
  assert servers['vm_count'] == 3
  # PKB registers the local SSDs without striping, formatting or mounting
  # them; scylla_raid_setup builds the one RAID0 (see perfkit_plugins/raid.py).
  assert servers['disk'] == {'disk_type': 'local', 'num_striped_disks': 1}
  assert servers['data_volume']['local_ssds'] == 12
  assert servers['data_volume']['mount_point'] == '/var/lib/scylla'
  assert 'RAID0' in servers['data_volume']['raid']
  assert loaders['machine_type'] == 'n2-highcpu-32'
  assert loaders['disk'] is None
  # 3 x 88 server vCPUs at 3.4 loader vCPUs each, on 32-vCPU loaders.
  assert loaders['vm_count'] == 29


_SPEC_MACHINE_TYPES_SCRIPT = r"""
import json, sys
from absl import flags
from perfkitbenchmarker import pkb
from perfkitbenchmarker import vm_util
FLAGS = flags.FLAGS
FLAGS(['pkb'] + sys.argv[1:])
FLAGS.run_uri = 'scylla01'
vm_util.GenTempDir()
print(json.dumps({
    spec.name: {
        name: group.vm_spec.machine_type
        for name, group in spec.config.vm_groups.items()
    }
    for spec in pkb._CreateBenchmarkSpecs()
}))
"""


@pytest.mark.parametrize(
    'benchmarks',
    ['scylla_phases,cassandra_stress', 'cassandra_stress,scylla_phases'],
)
def test_machine_type_still_applies_to_other_benchmarks(tmp_path, benchmarks):
  """Routing --machine_type to our servers leaves it to later benchmarks.

  Goes through pkb.py's own spec creation loop (GetConfig, config decoding
  and CheckPrerequisites of each benchmark in turn).
  """
  types = RunPkbScript(
      tmp_path,
      _SPEC_MACHINE_TYPES_SCRIPT,
      f'--benchmarks={benchmarks}',
      '--machine_type=z3-highmem-88',
      '--ignore_package_requirements',
      f'--temp_dir={tmp_path}',
  )
  assert types['scylla_phases'] == {
      'servers': 'z3-highmem-88',
      'loaders': 'n2-highcpu-32',
  }
  assert set(types['cassandra_stress'].values()) == {'z3-highmem-88'}


def test_loader_type_flag_and_network_disk(tmp_path):
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          '--machine_type=n2-highmem-16',
          '--scylla_loader_machine_type=n2-highcpu-8',
          '--scylla_loader_count=2',
          '--scylla_data_disk=network',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  assert groups['servers']['machine_type'] == 'n2-highmem-16'
  assert groups['servers']['disk']['disk_type'] == 'pd-ssd'
  assert groups['servers']['disk']['mount_point'] == '/var/lib/scylla'
  assert groups['loaders'] == {
      'cloud': 'GCP',
      'vm_count': 2,
      'machine_type': 'n2-highcpu-8',
      'disk': None,
  }


def test_flag_matrix_machine_type_reaches_servers_only(tmp_path):
  config = tmp_path / 'matrix.yaml'
  config.write_text(
      'scylla_phases:\n'
      '  flag_matrix: types\n'
      '  flag_matrix_defs:\n'
      '    types:\n'
      '      machine_type: [z3-highmem-88]\n'
  )
  groups = DecodedGroups(
      RunPkb(
          '--benchmarks=scylla_phases',
          f'--benchmark_config_file={config}',
          '--dry_run',
          tmp_path=tmp_path,
      )
  )
  assert groups['servers']['machine_type'] == 'z3-highmem-88'
  assert groups['servers']['data_volume']['local_ssds'] == 12
  assert groups['loaders']['machine_type'] == 'n2-highcpu-32'


@pytest.mark.parametrize('config_file', CONFIG_FILES)
def test_config_file_by_name(tmp_path, config_file):
  result = RunPkb(
      '--benchmarks=scylla_phases',
      f'--benchmark_config_file={config_file}',
      '--dry_run',
      tmp_path=tmp_path,
  )
  groups = DecodedGroups(result)
  assert groups['servers']['vm_count'] >= 1
  assert groups['loaders']['vm_count'] >= 1


# One value per flag that must be refused before anything is provisioned.
BAD_VALUES = {
    'scylla_engine': 'mongodb',
    'scylla_release': '2025.x',
    'scylla_cassandra_version': '5.0',
    'scylla_server_machine_type': 'no-such-type-8',
    'scylla_server_count': '0',
    'scylla_data_disk': 'tape',
    'scylla_network_disk_gb': '1',
    'scylla_tablets': 'maybe',
    'scylla_loader_machine_type': 'no-such-type-8',
    'scylla_loader_count': '-1',
    'scylla_stress_tool': 'ycsb',
    'scylla_stress_release': 'latest',
    'scylla_threads': '0',
    'scylla_populate_threads': '0',
    'scylla_loader_cpu_threshold': '150',
    'scylla_loader_saturation_action': 'ignore',
    'scylla_phases': 'populate,warp',
    'scylla_keyspace': 'bad;name',
    'scylla_replication_factor': '5',
    'scylla_consistency_level': 'SOME',
    'scylla_compaction_strategy': 'Magic',
    'scylla_num_keys': '-5',
    'scylla_data_set_bytes': '-1',
    'scylla_data_to_ram_ratio': '0',
    'scylla_column_size': '0',
    'scylla_column_count': '0',
    'scylla_read_warmup_s': '-1',
    'scylla_read_duration_s': '0',
    'scylla_read_small_duration_s': '-1',
    'scylla_read_small_stdev': '0',
    'scylla_medium_working_set_to_ram': '0',
    'scylla_latency_rates': '5000,fast',
    'scylla_latency_duration_s': '0',
    'scylla_latency_threads': '0',
    'scylla_rdw_write_rate': '0',
    'scylla_rdw_writer_fraction': '1.5',
    'scylla_rdw_write_range_fraction': '0',
    'scylla_rdw_read_threads': '0',
    'scylla_rdw_duration_s': '0',
    # The default --scylla_rdw_duration_s: readers would get no time.
    'scylla_rdw_read_delay_s': '1800',
    'scylla_mixed_duration_s': '0',
    'scylla_mixed_write_ratio': '-1',
    'scylla_mixed_read_ratio': '-1',
    'scylla_write_only_duration_s': '0',
    'scylla_read_cache_duration_s': '0',
    'scylla_quiesce_poll_s': '0',
    'scylla_quiesce_settle_s': '-1',
    'scylla_quiesce_timeout_s': '1',
    'scylla_hdr_interval_s': '0',
    'scylla_server_price_per_hour': '-3',
    'scylla_loader_price_per_hour': '-3',
    'scylla_cluster_name': '',
    'scylla_bringup_timeout_s': '0',
    'scylla_nic': 'eth0; reboot',
    'scylla_io_setup': 'guess',
    'scylla_yaml_extra': '[not, a, mapping]',
    'scylla_cassandra_heap_gb': '-1',
    'scylla_cassandra_gc': 'ZGC',
    'scylla_cassandra_compaction_throughput_mb': '-2',
    'scylla_cassandra_concurrent_reads': '-1',
    'scylla_cassandra_concurrent_writes': '-1',
    'scylla_cassandra_concurrent_compactors': '-1',
    'scylla_cassandra_memtable_allocation_type': 'unslabbed',
    'scylla_cassandra_trickle_fsync': 'sometimes',
    'scylla_mixed_distribution': 'zipf',
    'scylla_allow_existing_data': 'perhaps',
    'scylla_cassandra_url': 'https://mirror/{release}/c.tar.gz',
    'scylla_cassandra_checksum': 'md5:0123456789abcdef0123456789abcdef',
    'scylla_stress_url': 'mirror/cassandra-stress.tar.gz',
    'scylla_stress_checksum': 'sha256:1234',
    'scylla_repo_url': 'http://mirror/scylla {version}.list',
    'scylla_repo_key_url': 'key.asc',
    'scylla_step_grace_s': '5',
}


def test_every_flag_has_a_bad_value_case():
  names = {
      scylla_phases_flags.FlagName(f)
      for _, f, _ in scylla_phases_flags.FLAG_HELP
  }
  assert names == set(BAD_VALUES)


def test_bad_values_rejected_before_provisioning(tmp_path):
  """Each bad value fails spec creation, naming its flag.

  All cases run in one process (PKB's import takes seconds): each case goes
  through PKB's own flag parsing, GetConfig, config decoding and
  CheckPrerequisites, as `pkb.py` does before provisioning anything.
  """
  outcomes = RunPkbScript(tmp_path, _BAD_VALUES_SCRIPT, json.dumps(BAD_VALUES))
  for flag, message in outcomes.items():
    assert message is not None, f'--{flag}={BAD_VALUES[flag]} was accepted'
    assert f'--{flag}' in message, (flag, message)


_BAD_VALUES_SCRIPT = r"""
import json, sys
from absl import flags
from perfkitbenchmarker import pkb
from perfkitbenchmarker.linux_benchmarks import scylla_phases_benchmark as b
from perfkitbenchmarker import flag_util
FLAGS = flags.FLAGS
FLAGS(['pkb'])
outcomes = {}
for flag, value in json.loads(sys.argv[1]).items():
  saved = flags.FlagValues.flag_values_dict(FLAGS)
  try:
    FLAGS[flag].parse(value)
    FLAGS[flag].present = 1
    config = b.GetConfig({})
    spec = b.BENCHMARK_CONFIG_SPEC_CLASS(
        b.BENCHMARK_NAME, flag_values=FLAGS, **config)
    b.CheckPrerequisites(spec)
    outcomes[flag] = None
  except Exception as e:  # the message is what is checked
    outcomes[flag] = f'{type(e).__name__}: {e}'
  finally:
    for name, old in saved.items():
      FLAGS[name].value = old
    FLAGS[flag].present = 0
print(json.dumps(outcomes))
"""


@pytest.mark.parametrize(
    'flag, message',
    [
        (
            '--scylla_replication_factor=5',
            '--scylla_replication_factor: 5 is above the server count 3',
        ),
        (
            '--machine_type=bogus-8',
            "--machine_type: unknown machine type 'bogus-8'",
        ),
    ],
)
def test_bad_value_on_the_command_line_stops_pkb(tmp_path, flag, message):
  result = RunPkb(
      '--benchmarks=scylla_phases', flag, '--dry_run', tmp_path=tmp_path
  )
  assert result.returncode != 0
  assert message in result.stderr + result.stdout


def test_names_and_flags_do_not_collide_with_pkb(tmp_path):
  """No module name and no flag of ours exists in PKB itself."""
  script = (
      'import json; from absl import flags;'
      ' import perfkitbenchmarker.pkb;'
      ' from perfkitbenchmarker import linux_benchmarks, linux_packages;'
      ' print(json.dumps({"flags": sorted(flags.FLAGS),'
      ' "benchmarks": sorted(m.__name__ for m in linux_benchmarks.ALL_FILES),'
      ' "packages": sorted(linux_packages.PACKAGES)}))'
  )
  result = subprocess.run(
      [sys.executable, '-c', script],
      capture_output=True,
      text=True,
      cwd=tmp_path,
      env=dict(
          os.environ,
          PYTHONPATH=CHECKOUT,
          PYTHONWARNINGS='ignore',
          **{discovery.DISABLE_ENV: '1'},
      ),
      timeout=300,
      check=True,
  )
  pkb_names = json.loads(result.stdout.splitlines()[-1])
  ours_flags = {
      scylla_phases_flags.FlagName(f)
      for _, f, _ in scylla_phases_flags.FLAG_HELP
  }
  assert not ours_flags & set(pkb_names['flags'])
  ours_benchmarks = {
      'perfkitbenchmarker.linux_benchmarks.' + p.stem
      for p in (REPO / 'perfkit_plugins' / 'linux_benchmarks').glob('*.py')
  }
  assert not ours_benchmarks & set(pkb_names['benchmarks'])
  ours_packages = {p.stem for p in (REPO / 'linux_packages').glob('*.py')}
  assert ours_packages
  assert not ours_packages & set(pkb_names['packages'])
  assert all(name.startswith('scylla_') for name in ours_packages)


def test_pkb_own_tests_pass_with_the_plugin_installed():
  result = subprocess.run(
      [
          sys.executable,
          '-m',
          'pytest',
          '-q',
          '-p',
          'no:cacheprovider',
          'tests/benchmark_sets_test.py',
          'tests/linux_benchmarks/cassandra_stress_benchmark_test.py',
      ],
      capture_output=True,
      text=True,
      cwd=CHECKOUT,
      env=dict(os.environ, PYTHONWARNINGS='ignore'),
      timeout=600,
      check=False,
  )
  assert result.returncode == 0, result.stdout[-3000:]
  assert ' passed' in result.stdout


@pytest.mark.parametrize(
    'args,message',
    [
        (
            ['--machine_type=n2-highmem-16', '--scylla_loader_count=2'],
            '--scylla_data_disk: n2-highmem-16 on GCP has no local SSDs',
        ),
        (
            ['--scylla_tablets', '--scylla_release=5.4'],
            '--scylla_tablets: ScyllaDB 5.4 has no tablets',
        ),
        (['--scylla_engine=cassandra', '--scylla_tablets'], '--scylla_tablets'),
        (['--num_striped_disks=4'], '--num_striped_disks'),
        (
            ['--scylla_engine=cassandra', '--num_striped_disks=4'],
            '--num_striped_disks=4: the benchmark decides',
        ),
        (['--scratch_dir=/mnt/data'], '--scratch_dir=/mnt/data'),
    ],
)
def test_bad_combinations_stop_pkb(tmp_path, args, message):
  result = RunPkb(
      '--benchmarks=scylla_phases', *args, '--dry_run', tmp_path=tmp_path
  )
  assert result.returncode != 0
  assert message in result.stderr + result.stdout
