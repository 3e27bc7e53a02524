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

"""Every machine type of PKB's local-SSD tables, through pkb.py's own path.

Each type goes through what stock pkb.py does before it provisions
(`pkb.ParseArgs`, then `pkb._CreateBenchmarkSpecs`: flag parsing, GetConfig,
PKB's config decoding, CheckPrerequisites), in this process: it is accepted
with the count PKB itself provisions and sets up, or refused before any VM
exists with a message saying why the benchmark cannot use it. Counts GCE
does not allow are refused there too, naming the flag; and the run sizes its
data set from the memory the servers report.

Needs a PKB checkout ($PKB_CHECKOUT, default /opt/PerfKitBenchmarker) under
Python 3.12; skipped with a reason otherwise.
"""

import pytest

from perfkit_plugins.testing import pkb_checkout

CHECKOUT = pkb_checkout.RequireOrSkip()
pytestmark = pytest.mark.pkb

# PKB is importable only once RequireOrSkip put its checkout on sys.path.
# pylint: disable=g-import-not-at-top,wrong-import-position,g-bad-import-order
from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker import pkb
from perfkitbenchmarker.providers.aws import aws_disk
from perfkitbenchmarker.providers.gcp import gce_disk
from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.machines import machines
from perfkit_plugins.shell import run_settings
from perfkit_plugins.testing import fake_vm

# pylint: enable=g-import-not-at-top,wrong-import-position,g-bad-import-order

FLAGS = flags.FLAGS
GIB_KB = 1024**2


@pytest.fixture(scope='module')
def temp_dir(tmp_path_factory):
  return tmp_path_factory.mktemp('pkb')


def Decode(temp_dir, *args):
  """pkb.py's specs of `args`, as it builds them before provisioning.

  Returns:
    [(settings.Settings, local SSDs per server, PKB's decoded config)].

  Raises:
    errors.Error: what pkb.py would stop with.
  """
  with flagsaver.flagsaver():
    pkb.ParseArgs([
        'pkb.py',
        '--benchmarks=scylla_phases',
        '--ignore_package_requirements',
        f'--temp_dir={temp_dir}',
        *args,
    ])
    runs = []
    for spec in pkb._CreateBenchmarkSpecs():  # pylint: disable=protected-access
      with spec.config.RedirectFlags(FLAGS):
        settings = run_settings.SettingsFromConfig(spec.config)
        servers = spec.config.vm_groups['servers']
        runs.append(
            (settings, run_settings.LocalSsds(settings, servers), spec.config)
        )
    return runs


def Refusal(temp_dir, *args):
  """The message pkb.py refuses `args` with before provisioning."""
  with pytest.raises(errors.Setup.InvalidFlagConfigurationError) as raised:
    Decode(temp_dir, *args)
  return str(raised.value)


# The loaders are not the subject: a count, so that types whose vCPUs their
# name does not carry (i3.metal) are judged on their disks alone.
_LOADERS = '--scylla_loader_count=2'


@pytest.mark.parametrize(
    'machine_type', sorted(gce_disk.FIXED_SSD_MACHINE_TYPES)
)
@pytest.mark.parametrize('engine', ['scylla', 'cassandra'])
def test_every_gce_type_of_pkbs_table_runs_with_pkbs_count(
    temp_dir, machine_type, engine
):
  ((settings, local_ssds, config),) = Decode(
      temp_dir,
      f'--machine_type={machine_type}',
      f'--scylla_engine={engine}',
      _LOADERS,
  )
  count = gce_disk.FIXED_SSD_MACHINE_TYPES[machine_type]
  servers = config.vm_groups['servers']
  assert settings.server_machine_type == machine_type
  assert local_ssds == count
  # What PKB's own GCE VM spec will create and set up.
  assert servers.vm_spec.max_local_disks == count
  expected_striped = count if engine == 'cassandra' else 1
  assert servers.disk_spec.num_striped_disks == expected_striped


def _AwsFamily(machine_type):
  return machine_type.split('.')[0].lower()


@pytest.mark.parametrize('machine_type', sorted(aws_disk.NUM_LOCAL_VOLUMES))
@pytest.mark.parametrize('engine', ['scylla', 'cassandra'])
def test_every_aws_type_of_pkbs_table_runs_with_pkbs_count_or_says_why(
    temp_dir, machine_type, engine
):
  args = (
      '--cloud=AWS',
      f'--machine_type={machine_type}',
      f'--scylla_engine={engine}',
      _LOADERS,
  )
  family = _AwsFamily(machine_type)
  if family in aws_disk.LOCAL_HDD_PREFIXES:
    message = Refusal(temp_dir, *args)
    assert message.startswith('--scylla_data_disk: ')
    assert 'is HDD' in message
    return
  if engine == 'scylla' and family in aws_disk.NON_LOCAL_NVME_TYPES:
    message = Refusal(temp_dir, *args)
    assert message.startswith('--scylla_data_disk: ')
    assert 'not NVMe' in message and '--scylla_engine=cassandra' in message
    return
  ((settings, local_ssds, config),) = Decode(temp_dir, *args)
  count = aws_disk.NUM_LOCAL_VOLUMES[machine_type]
  assert settings.server_machine_type == machine_type
  # AwsVirtualMachine sets up NUM_LOCAL_VOLUMES[machine_type] local disks.
  assert local_ssds == count
  expected_striped = count if engine == 'cassandra' else 1
  assert config.vm_groups['servers'].disk_spec.num_striped_disks == (
      expected_striped
  )


def test_every_type_of_pkbs_tables_is_a_name_of_its_cloud():
  for machine_type in gce_disk.FIXED_SSD_MACHINE_TYPES:
    assert machines.TypeProblem(machine_type, 'GCP') is None, machine_type
  for machine_type in aws_disk.NUM_LOCAL_VOLUMES:
    assert machines.TypeProblem(machine_type, 'AWS') is None, machine_type


def test_loaders_are_sized_for_pkbs_types_whose_names_carry_vcpus(temp_dir):
  # Issue 21's examples, refused before; their loaders sized from vCPUs.
  for args, loaders in (
      (('--machine_type=c3-standard-88-lssd',), 29),
      (('--machine_type=z3-highmem-192-highlssd-metal', _LOADERS), 2),
      (('--cloud=AWS', '--machine_type=i7ie.6xlarge'), 8),
      (('--cloud=AWS', '--machine_type=i8g.48xlarge'), 62),
  ):
    if 'metal' in args[0]:
      # GCE bundles its SSDs, PKB's table does not list it: said why.
      assert 'PKB does not know' in Refusal(temp_dir, *args)
      continue
    ((settings, _, _),) = Decode(temp_dir, *args)
    assert settings.loader_count == loaders, args


@pytest.mark.parametrize(
    'args,named,allowed',
    [
        (
            ('--machine_type=n2-highmem-96', '--gce_num_local_ssds=20'),
            '--gce_num_local_ssds=20: ',
            'takes 16 or 24 local SSDs',
        ),
        (
            ('--machine_type=n2-standard-16', '--gce_num_local_ssds=1'),
            '--gce_num_local_ssds=1: ',
            'takes 2, 4, 8, 16 or 24 local SSDs',
        ),
        (
            ('--machine_type=z3-highmem-88', '--gce_num_local_ssds=4'),
            '--gce_num_local_ssds=4: ',
            'comes with 12 local SSD(s)',
        ),
        (
            ('--machine_type=c3-standard-8', '--gce_num_local_ssds=2'),
            '--gce_num_local_ssds=2: ',
            'takes no local SSDs',
        ),
    ],
)
def test_a_count_gce_does_not_give_is_refused_naming_the_flag(
    temp_dir, args, named, allowed
):
  message = Refusal(temp_dir, *args)
  assert message.startswith(named), message
  assert allowed in message


def test_a_count_from_the_config_is_refused_naming_its_key(temp_dir):
  config = temp_dir / 'n2_20.yaml'
  config.write_text(
      'scylla_phases:\n  vm_groups:\n    servers:\n      vm_spec:\n'
      '        GCP:\n          machine_type: n2-highmem-96\n'
      '          num_local_ssds: 20\n'
  )
  message = Refusal(temp_dir, f'--benchmark_config_file={config}')
  assert message.startswith(
      'config key vm_groups.servers.vm_spec.GCP.num_local_ssds: '
  )
  assert 'takes 16 or 24 local SSDs' in message


def test_requested_ssds_go_to_the_servers_only(temp_dir):
  ((_, local_ssds, config),) = Decode(
      temp_dir, '--machine_type=n2-highmem-96', '--gce_num_local_ssds=24'
  )
  assert local_ssds == 24
  assert config.vm_groups['servers'].vm_spec.max_local_disks == 24
  # PKB would have given each of the 31 loaders 24 local SSDs.
  assert config.vm_groups['loaders'].vm_spec.num_local_ssds == 0
  assert config.vm_groups['loaders'].vm_spec.max_local_disks == 0


def test_the_z3_vs_n2_loaders_get_no_local_ssds(temp_dir):
  # Its flag_zip gives gce_num_local_ssds 24 to the n2 run: PKB gave it to
  # the 33 c2-standard-30 loaders too, which GCE refuses (4 or 8).
  z3, n2 = Decode(
      temp_dir, '--benchmark_config_file=scylla_phases_z3_vs_n2.yaml'
  )
  assert (z3[1], n2[1]) == (12, 24)
  for _, _, config in (z3, n2):
    assert config.vm_groups['loaders'].vm_spec.max_local_disks == 0


def test_local_ssds_on_aws_are_never_asked_with_a_gce_flag(temp_dir):
  message = Refusal(temp_dir, '--cloud=AWS', '--machine_type=c6i.2xlarge')
  assert message.startswith('--scylla_data_disk: ')
  assert 'aws_disk.NUM_LOCAL_VOLUMES' in message
  assert 'gce_num_local_ssds' not in message
  message = Refusal(
      temp_dir,
      '--cloud=AWS',
      '--machine_type=i4i.4xlarge',
      '--gce_num_local_ssds=2',
  )
  assert message.startswith('--gce_num_local_ssds=2: ')
  assert 'GCP only' in message


@pytest.mark.parametrize(
    'machine_type,reported_gib',
    [('z3-highmem-88', 688.9), ('n1-highmem-16', 102.3), ('c6i.8xlarge', 61.8)],
)
def test_the_run_sizes_the_data_set_from_what_the_servers_report(
    machine_type, reported_gib
):
  settings = settings_lib.Settings(server_machine_type=machine_type)
  servers = [
      fake_vm.FakeVm(
          f'server-{i}',
          f'10.0.0.{i}',
          total_memory_kb=int(reported_gib * GIB_KB),
      )
      for i in range(3)
  ]
  measured = 3 * int(reported_gib * GIB_KB) * 1024
  assert run_settings.ClusterRamBytes(settings, servers) == measured
  planned = run_settings.ClusterRamBytes(settings)
  table = machines.PlannedClusterRamBytes(machine_type, 3)
  assert planned == (table or 3 * machines.STAND_IN_RAM_PER_SERVER)
