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

"""IRQ/shard rule against real perftune.py outputs; tuning record parsing."""

import pytest

from perfkit_plugins.core.machines import tuning

# (vCPUs, NUMA nodes) of every perftune capture in testdata/perftune.
TOPOLOGIES = [(v, n) for v in (8, 16, 88, 96, 176) for n in (1, 2, 4)]


@pytest.mark.parametrize('vcpus,numa_nodes', TOPOLOGIES)
def test_prediction_matches_perftune(testdata, vcpus, numa_nodes):
  name = f'v{vcpus}-numa{numa_nodes}'
  irq = tuning.ParseCpuMask(
      testdata('perftune', f'{name}-get-irq-cpu-mask.txt')
  )
  compute = tuning.ParseCpuMask(
      testdata('perftune', f'{name}-get-cpu-mask.txt')
  )
  layout = tuning.PredictIrqLayout(vcpus, vcpus // 2, numa_nodes)
  assert layout == tuning.IrqLayout(irq_vcpus=len(irq), shards=len(compute))
  assert irq | compute == frozenset(range(vcpus))
  assert not irq & compute


@pytest.mark.parametrize(
    'vcpus,numa_nodes,irq_vcpus,shards',
    [
        (8, 1, 1, 7),
        (16, 1, 2, 14),
        (88, 2, 8, 80),
        (88, 1, 6, 82),
        (88, 4, 8, 80),
        (96, 2, 8, 88),
        (176, 2, 12, 164),
        (176, 4, 16, 160),
    ],
)
def test_reference_table(vcpus, numa_nodes, irq_vcpus, shards):
  assert tuning.PredictIrqLayout(
      vcpus, vcpus // 2, numa_nodes
  ) == tuning.IrqLayout(irq_vcpus, shards)


def test_small_machines_share_cpus():
  assert tuning.PredictIrqLayout(4, 2, 1) == tuning.IrqLayout(4, 4)
  assert tuning.PredictIrqLayout(2, 2, 1) == tuning.IrqLayout(2, 2)


def test_one_thread_per_core():
  # 32 cores without SMT on 2 nodes: one IRQ core per node.
  assert tuning.PredictIrqLayout(32, 32, 2) == tuning.IrqLayout(2, 30)


@pytest.mark.parametrize('args', [(88, 44, 3), (88, 0, 1), (7, 2, 1)])
def test_impossible_topologies_rejected(args):
  with pytest.raises(ValueError):
    tuning.PredictIrqLayout(*args)


def test_mask_with_empty_word_and_warning():
  text = 'WARNING: something\n0x3f000000,,0x0000003f\n'
  assert tuning.ParseCpuMask(text) == frozenset(
      list(range(6)) + list(range(88, 94))
  )
  with pytest.raises(ValueError):
    tuning.ParseCpuMask('ERROR: no mask')


@pytest.mark.parametrize(
    'mask', ['0x0000003f,', ',0x0000003f', '0x3f000000,,0x0000003f,,']
)
def test_mask_with_a_comma_at_an_end_is_refused(mask):
  # The words' places are unknown: CPUs 0-5, or 32-37, or 64-69?
  with pytest.raises(ValueError, match='malformed CPU mask'):
    tuning.ParseCpuMask(f'0x00000001\n{mask}\n')


def test_cpuset_conf_is_complement_of_irq_mask(testdata):
  cpus, smp = tuning.ParseCpusetConf(
      testdata('scylla_setup', 'cpuset-v88-numa2.conf')
  )
  irq = tuning.ParseCpuMask(
      testdata('perftune', 'v88-numa2-get-irq-cpu-mask.txt')
  )
  assert smp is None
  assert len(cpus) == 80
  assert cpus | irq == frozenset(range(88)) and not cpus & irq
  assert tuning.FormatCpuList(cpus) == '4-43,48-87'


def test_packaged_cpuset_conf_is_unrestricted(testdata):
  # Only the commented example: no restriction.
  packaged = testdata('scylla_setup', 'cpuset-v8-numa1.conf').splitlines()[:4]
  assert tuning.ParseCpusetConf('\n'.join(packaged)) == (frozenset(), None)


def test_cpu_list_round_trip():
  assert tuning.ParseCpuList('0,2-4,7') == frozenset({0, 2, 3, 4, 7})
  assert tuning.FormatCpuList(frozenset({0, 2, 3, 4, 7})) == '0,2-4,7'


def test_lscpu_topology(testdata):
  assert tuning.ParseLscpuTopology(
      testdata('node', 'lscpu-p.txt')
  ) == tuning.CpuTopology(vcpus=2, cores=2, numa_nodes=1)


def test_io_properties(testdata):
  io = tuning.ParseIoProperties(
      testdata('scylla_setup', 'io_properties-sct.yaml')
  )
  assert io['read_iops'] == 540317
  assert io['write_bandwidth'] == 116202240


def _Record(testdata, version='2026.3.1-0.20261001.0123456789ab'):
  cpus, smp = tuning.ParseCpusetConf(
      testdata('scylla_setup', 'cpuset-v88-numa2.conf')
  )
  return tuning.TuningRecord(
      node='server-0',
      topology=tuning.CpuTopology(88, 44, 2),
      nproc=88,
      cpuset=cpus,
      smp=smp,
      irq_cpus=tuning.ParseCpuMask(
          testdata('perftune', 'v88-numa2-get-irq-cpu-mask.txt')
      ),
      io_properties=tuning.ParseIoProperties(
          testdata('scylla_setup', 'io_properties-sct.yaml')
      ),
      version=version,
  )


def test_record_agrees_with_prediction(testdata):
  record = _Record(testdata)
  assert record.shards == 80
  metadata, problems = tuning.Report([record], '2026.3')
  assert problems == []
  node = metadata['server-0']
  assert node['scylla_shards'] == node['scylla_predicted_shards'] == 80
  assert node['scylla_irq_vcpus'] == node['scylla_predicted_irq_vcpus'] == 8
  assert node['scylla_irq_cpus'] == '0-3,44-47'
  assert node['scylla_io_read_iops'] == 540317
  assert all(k.startswith('scylla_') for k in node)


def test_differences_are_reported(testdata):
  record = _Record(testdata, version='2025.1.14-0.20250101.abc')
  wrong_topology = tuning.TuningRecord(
      **{**record.__dict__, 'topology': tuning.CpuTopology(88, 44, 1)}
  )
  _, problems = tuning.Report([wrong_topology], '2026.3')
  text = '\n'.join(problems)
  assert 'predicted 6' in text  # IRQ CPUs on one NUMA node
  assert 'predicted 82' in text  # shards
  assert 'requested 2026.3' in text


def test_release_of_version():
  assert tuning.ReleaseOfVersion('2026.3.1-0.20261001.abc') == (2026, 3, 1)
  assert tuning.ReleaseOfVersion('6.2') == (6, 2)
  assert tuning.ReleaseOfVersion('unknown') is None
  # A development build (scylla-cluster-tests' test_cluster.py): the
  # build's numbers are no release.
  assert tuning.ReleaseOfVersion('666.development-0.20200205.2816404f575') is (
      None
  )
  assert tuning.ReleaseOfVersion('WARNING: x\n2026.1.3-0.2026.abc') == (
      2026,
      1,
      3,
  )


def test_cluster_metadata_of_alike_nodes_is_the_common_value():
  per_node = {
      'server-0': {'scylla_shards': 80, 'scylla_cpuset': '4-43,48-87'},
      'server-1': {'scylla_shards': 80, 'scylla_cpuset': '4-43,48-87'},
  }
  metadata, problems = tuning.ClusterMetadata(per_node)
  assert metadata == {
      'scylla_shards': 80,
      'scylla_cpuset': '4-43,48-87',
      'scylla_tuning_uniform': True,
  }
  assert problems == []


def test_cluster_metadata_lists_every_node_where_they_differ():
  per_node = {
      'server-0': {'scylla_shards': 80, 'scylla_cpuset': '4-43,48-87'},
      'server-1': {'scylla_shards': 88, 'scylla_cpuset': '0-87'},
      'server-2': {'scylla_shards': 80, 'scylla_cpuset': '4-43,48-87'},
  }
  metadata, problems = tuning.ClusterMetadata(per_node)
  # A key keeps one type: text lists every node's value, a number is
  # listed apart.
  assert 'scylla_shards' not in metadata
  assert metadata['scylla_tuning_differences'] == (
      'scylla_shards server-0: 80; server-1: 88; server-2: 80'
  )
  assert metadata['scylla_cpuset'] == (
      'server-0: 4-43,48-87; server-1: 0-87; server-2: 4-43,48-87'
  )
  assert metadata['scylla_tuning_uniform'] is False
  assert problems == [
      'nodes differ in scylla_shards: server-0: 80; server-1: 88; server-2: 80',
      (
          'nodes differ in scylla_cpuset: server-0: 4-43,48-87; server-1: 0-87;'
          ' server-2: 4-43,48-87'
      ),
  ]


def test_each_nodes_own_data_path_is_listed_but_no_difference():
  per_node = {
      'server-0': {'scylla_data_device': '/mnt/machines/server-0/data'},
      'server-1': {'scylla_data_device': '/mnt/machines/server-1/data'},
  }
  metadata, problems = tuning.ClusterMetadata(per_node)
  assert metadata == {
      'scylla_data_device': (
          'server-0: /mnt/machines/server-0/data;'
          ' server-1: /mnt/machines/server-1/data'
      ),
      'scylla_tuning_uniform': True,
  }
  assert problems == []


@pytest.mark.parametrize('shape', ['v88-numa2', 'v16-numa1'])
def test_the_applied_perftune_yaml_gives_the_irq_cpus_perftune_computes(
    testdata, shape
):
  mask = tuning.ParsePerftuneIrqMask(
      testdata('perftune', f'{shape}-dump-options-file.txt')
  )
  assert tuning.ParseCpuMask(mask) == tuning.ParseCpuMask(
      testdata('perftune', f'{shape}-get-irq-cpu-mask.txt')
  )


def test_no_perftune_yaml_yet_and_a_broken_one():
  assert tuning.ParsePerftuneIrqMask('') is None
  with pytest.raises(ValueError, match='no irq_cpu_mask'):
    tuning.ParsePerftuneIrqMask('tune:\n- net\n')


def test_swap_areas_as_swapon_lists_them(testdata):
  assert tuning.ParseSwaps(testdata('swap', 'none.txt')) == ()
  swaps = tuning.ParseSwaps(testdata('swap', 'swapfile-64m.txt'))
  assert swaps == (('/swapfile', 67104768),)
  assert tuning.FormatSwaps(swaps) == '/swapfile 0.1 GiB'
  assert tuning.FormatSwaps(()) == 'none'
  with pytest.raises(ValueError, match='not a swapon --show line'):
    tuning.ParseSwaps('/swapfile file')


def test_key_fingerprints_are_the_primary_keys_not_their_subkeys(testdata):
  keys = tuning.ParseKeyFingerprints(
      testdata('scylla_setup', 'keyring-two-keys.colons')
  )
  # The first key's encryption subkey (27343CAE...) is not listed.
  assert keys == (
      '07E918998DD8D703CB5E69736255F44D2489D24C',
      'E781AFD68DD64EE626115EF7B67AB7C80FC1D6D2',
  )
  assert tuning.ParseKeyFingerprints('') == ()
