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

"""The benchmark's Run as pkb.py makes it, on recording fake VMs.

The config is decoded the way pkb.py decodes it (PKB's flags, the module's
GetConfig, PKB's BenchmarkConfigSpec), the spec is PKB's own BenchmarkSpec
holding fake servers and loaders, and samples go through PKB's
SampleCollector (with its default metadata provider) and a JSON publisher.
Servers answer with real ScyllaDB REST responses and tuning files
(tests/testdata); what the loaders serve is up to the caller. Used by
tests/shell/test_run_pkb.py and the scale benchmark
(tests/perf/bench_run_scale.py), whose fake VMs take a simulated network
latency on every remote command and file pull.

PKB must be importable (pkb_checkout.RequireOrSkip, or the checkout on
sys.path) before this module is imported.
"""

import json
import pathlib
import time

from perfkitbenchmarker import benchmark_spec as bm_spec
from perfkitbenchmarker import publisher

from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import data_dir
from perfkit_plugins.shell import run_settings
from perfkit_plugins.testing import fake_vm

REPO = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = REPO / 'tests' / 'testdata'
# z3-highmem-88 (the config's GCP server type): 2 NUMA nodes.
SERVER_VCPUS = 88
SERVER_COUNT = 3
VERSION = '2026.3.1-0.20261001.0123456789ab'
LOADER_MACHINE_TYPE = 'n2-highcpu-32'


def Testdata(folder, name):
  """tests/testdata/<folder>/<name> as text."""
  return (TESTDATA / folder / name).read_text()


class PkbFakeVm(fake_vm.FakeVm):
  """A FakeVm with what PKB's own phase and publishing code reads of a VM.

  Every remote command and every file pull first waits latency_s, as a
  round trip to a real VM does.
  """

  is_static = False
  scratch_disks = ()
  create_operation_name = None

  def __init__(self, name, internal_ip, machine_type, latency_s=0.0, **kwargs):
    super().__init__(name, internal_ip, **kwargs)
    self.machine_type = machine_type
    self.latency_s = latency_s
    # The VM's clock is the controller's (clock offsets near 0), printed as
    # `date +%s.%N` prints it.
    self.Reply(r'^date \+%s\.%N$', lambda _: f'{time.time():.9f}\n')
    self.Reply(r'^lscpu ', fake_vm.LscpuListing(self.num_cpus, 1))
    # quiet_units' mask and read-back: nothing of the list on this image.
    self.Reply(r'^masked=; for unit in ', 'masked:\n')
    self.Reply(
        r'/bin/cassandra-stress version$',
        Testdata('stress_tool', 'version-3.18.1.txt'),
    )
    # The JDK linked beside cassandra-stress (Java 21 or later).
    self.Reply(
        r'/jdk/bin/java -version ',
        Testdata('java', 'version-temurin25.txt'),
    )

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **_):
    time.sleep(self.latency_s)
    return super().RemoteCommand(command, ignore_failure, timeout)

  def PullFile(self, local_path, remote_path):
    time.sleep(self.latency_s)
    super().PullFile(local_path, remote_path)

  def GetResourceMetadata(self):
    return {
        'cloud': 'GCP',
        'machine_type': self.machine_type,
        'zone': 'us-central1-a',
        'name': self.name,
    }

  def GetOSResourceMetadata(self):
    return {'os_type': 'ubuntu2404'}

  def StopBackgroundWorkload(self):
    pass

  def IsInterruptible(self):
    return False

  def UpdateInterruptibleVmStatus(self, use_api=False):
    del use_api


def Server(index, testdata=Testdata, latency_s=0.0):
  """A fake ScyllaDB node, tuned like a z3-highmem-88 and never compacting.

  Tuning files, the default route and REST answers are real outputs; the
  CPU listing is built for the machine shape (no real one exists here).
  """
  vm = PkbFakeVm(
      f'server-{index}',
      f'10.0.0.{index + 2}',
      'z3-highmem-88',
      latency_s=latency_s,
      num_cpus=SERVER_VCPUS,
  )
  vm.Reply(r'^ip -o -4 route', testdata('node', 'ip-route-default.txt'))
  vm.Reply(r'^sudo systemctl is-active scylla-server$', 'active\n')
  vm.Reply(
      r'cat /etc/scylla.d/cpuset.conf',
      testdata('scylla_setup', 'cpuset-v88-numa2.conf'),
  )
  vm.Reply(
      r'perftune.py .*--get-irq-cpu-mask',
      testdata('perftune', 'v88-numa2-get-irq-cpu-mask.txt'),
  )
  vm.Reply(
      r'cat /etc/scylla.d/io_properties.yaml',
      testdata('scylla_setup', 'io_properties-sct.yaml'),
  )
  vm.Reply(r'^nproc$', f'{SERVER_VCPUS}\n')
  vm.Reply(r'^lscpu ', fake_vm.LscpuListing(SERVER_VCPUS, 2))
  vm.Reply(r'^scylla --version', VERSION + '\n')
  vm.Reply(
      r'^gpg --show-keys --with-colons ',
      testdata('scylla_setup', 'keyring-two-keys.colons'),
  )
  for path, name in (
      (compactions.SCYLLA_COMPACTIONS_PATH, 'compactions-0.json'),
      (compactions.SCYLLA_PENDING_TASKS_PATH, 'pending_tasks_by_table-0.json'),
      (compactions.SCYLLA_HISTORY_PATH, 'compaction_history.json'),
  ):
    vm.Reply(
        '^' + scylla.RestGetCommand(path).replace('.', r'\.') + '$',
        testdata('scylla_rest', name),
    )
  vm.remote_files[scylla.SCYLLA_YAML] = testdata(
      'scylla_setup', 'scylla.yaml-branch-2026.3'
  )
  return vm


def Loader(index, latency_s=0.0):
  """Fake loader `index` (an n2-highcpu-32), that serves nothing yet."""
  return PkbFakeVm(
      f'loader-{index}',
      f'10.0.{1 + index // 250}.{index % 250}',
      LOADER_MACHINE_TYPE,
      latency_s=latency_s,
  )


def BenchmarkSpec(benchmark_module, flag_values, testdata=Testdata, **kwargs):
  """PKB's BenchmarkSpec of the decoded config, fake VMs in its groups.

  As pkb.py builds it from the parsed flags: the module's GetConfig, its
  config spec class and CheckPrerequisites. SERVER_COUNT fake servers and
  the config's count of fake loaders (Loader) are in its groups, with what
  Prepare keeps of each server's data volume (12 local SSDs of a
  z3-highmem-88 in one array), as PKB's pickled spec carries it to Run.

  Args:
    benchmark_module: the scylla_phases benchmark module.
    flag_values: PKB's parsed flags.
    testdata: reads a testdata file (Testdata, or the tests' fixture).
    **kwargs: latency_s of every fake VM.

  Returns:
    The BenchmarkSpec.
  """
  config = benchmark_module.GetConfig({})
  config_spec = benchmark_module.BENCHMARK_CONFIG_SPEC_CLASS(
      benchmark_module.BENCHMARK_NAME, flag_values=flag_values, **config
  )
  benchmark_module.CheckPrerequisites(config_spec)
  spec = bm_spec.BenchmarkSpec(
      benchmark_module, config_spec, f'{benchmark_module.BENCHMARK_NAME}0'
  )
  servers = [Server(i, testdata, **kwargs) for i in range(SERVER_COUNT)]
  loaders = [
      Loader(i, **kwargs)
      for i in range(config_spec.vm_groups['loaders'].vm_count)
  ]
  spec.unmanaged_vm_groups = {'servers': servers, 'loaders': loaders}
  spec.scylla_data_volumes = {
      vm.name: data_dir.DataVolume(
          tuple(f'/dev/nvme{i}n1' for i in range(1, 13)),
          '/dev/md0',
          'xfs',
          'rw,noatime,discard',
      )
      for vm in servers
  }
  return spec


def Plan(benchmark_spec):
  """The steps Run plans for this spec (from the RAM its servers report)."""
  settings = run_settings.SettingsFromConfig(benchmark_spec.config)
  servers = benchmark_spec.vm_groups['servers']
  return run_settings.PlanSteps(
      settings,
      [vm.internal_ip for vm in servers],
      run_settings.ClusterRamBytes(settings, servers),
  )


def RunStage(benchmark_spec):
  """Calls the module's Run as pkb.py does; returns its samples."""
  with benchmark_spec.RedirectGlobalFlags():
    return benchmark_spec.BenchmarkRun(benchmark_spec)


def Publish(benchmark_module, benchmark_spec, samples, path):
  """PKB's collector with its default metadata, JSON lines into path.

  Returns:
    The published samples, as dicts.
  """
  collector = publisher.SampleCollector(
      publishers=[publisher.NewlineDelimitedJSONPublisher(str(path))],
      publishers_from_flags=False,
      add_default_publishers=False,
  )
  collector.AddSamples(samples, benchmark_module.BENCHMARK_NAME, benchmark_spec)
  collector.PublishSamples()
  return [json.loads(line) for line in path.read_text().splitlines()]
