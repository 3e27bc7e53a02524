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

"""The ScyllaDB engine on a real machine, through stock pkb.py.

The test bed's ScyllaDB server (a private-system machine: its own /usr,
/opt and /var, a loop disk, the systemd stand-in) installs the default
release's packages from the mirror's signed apt repository, the key
arriving over the engine's own key-server path; ScyllaDB's own
scylla_raid_setup makes the data volume on the loop disk (real XFS, its
mount unit, its owner), scylla_setup runs with the engine's options
through ScyllaDB's argument parsing, and the server starts from the
systemd unit as `scylla`. Only the server, iotune, systemd and the native
nodetool are stand-ins (perfkit_plugins/local/scylla_build.py,
perfkit_plugins/local/systemd_standin.py). The run goes in PKB's stages:
provision and prepare, then the machine is inspected as an operator would;
then populate, quiesce and a read step; then cleanup and teardown, after
which the volume is gone. Every ScyllaDB-specific call of a run executes.
"""

import re

import pytest

from perfkit_plugins.local import host_machines
from perfkit_plugins.local import scylla_build
from perfkit_plugins.testing import results_files
from perfkit_plugins.testing import testbed as testbed_lib

pytestmark = [pytest.mark.pkb, pytest.mark.testbed]

SERVER = testbed_lib.SCYLLA_SERVERS[0]
LOADER = testbed_lib.LOADERS[0]
DATA_DIR = '/var/lib/scylla'
NUM_KEYS = 5000
FLAGS = testbed_lib.LOADER_FLAGS | {
    'scylla_phases': 'populate,quiesce,read',
    'scylla_num_keys': NUM_KEYS,
    'scylla_threads': 4,
    'scylla_populate_threads': 4,
    'scylla_read_small_stdev': 1000,
    'scylla_durations': 'all=6,warmup=3',
    'scylla_replication_factor': 1,
    'scylla_consistency_level': 'ONE',
    'scylla_hdr_interval_s': 1,
    'scylla_quiesce_poll_s': 1,
    'scylla_quiesce_settle_s': 3,
    'scylla_quiesce_timeout_s': 300,
}
# What ScyllaDB's scylla_setup writes (scylla_sysconfig_setup,
# scylla_cpuset_setup, scylla_io_setup and the version-check answer).
SETUP_FILES = (
    '/etc/scylla.d/cpuset.conf',
    '/etc/scylla.d/io_properties.yaml',
    '/etc/scylla.d/io.conf',
    '/etc/scylla.d/housekeeping.cfg',
)


def _Users(machine):
  """{pid: (user, command line)} of the machine's processes."""
  found = {}
  for pid, command in machine.Processes().items():
    out = machine.Enter(f'ps -o user= -p {pid}', check=False).stdout.strip()
    found[pid] = (out, command)
  return found


def _CheckPrepared(machine):
  """The machine as ScyllaDB's scripts and the engine left it."""
  mount = machine.Enter(
      f'findmnt -n -o SOURCE,FSTYPE,OPTIONS {DATA_DIR}'
  ).stdout.split()
  assert mount[1] == 'xfs', mount
  assert 'noatime' in mount[2].split(','), mount
  # scylla_raid_setup's own mount unit (no udev here: by the device path).
  unit = machine.Enter('cat /etc/systemd/system/var-lib-scylla.mount').stdout
  assert f'What={host_machines.DISK_PATH}' in unit, unit
  owner = machine.Enter(f'stat -c %U:%G {DATA_DIR}').stdout.strip()
  assert owner == 'scylla:scylla', owner
  for path in SETUP_FILES:
    machine.Enter(f'test -s {path}')
  sysconfig = machine.Enter('cat /etc/default/scylla-server').stdout
  assert re.search(r'^SET_NIC_AND_DISKS=yes$', sysconfig, re.M), sysconfig
  # The server (install.sh's thunk execs libexec/scylla) and the database
  # it runs, both as the unit's User=.
  users = _Users(machine)
  servers = [
      user
      for user, command in users.values()
      if '/opt/scylladb/libexec/scylla ' in command or 'java' in command
  ]
  assert len(servers) == 2 and set(servers) == {'scylla'}, users
  machine.Enter(f'test -S {DATA_DIR}/cql.m')
  active = machine.Enter('systemctl is-active scylla-server', check=False)
  assert active.stdout.strip() == 'active', active


def _CheckRun(run_dir):
  samples = results_files.StepSamples(run_dir)
  steps = {}
  for s in samples:
    steps.setdefault(s['labels']['scylla_step'], []).append(s)
  assert {'populate', 'quiesce', 'read_small'} <= set(steps), set(steps)
  for step, rows in steps.items():
    statuses = [s['value'] for s in rows if s['metric'] == 'phase_status']
    assert statuses == [1], (step, statuses)
  labels = samples[0]['labels']
  assert labels['scylla_engine'] == 'scylla'
  assert labels['scylla_version'].startswith(scylla_build.VERSION)
  assert labels['scylla_data_fstype'] == 'xfs'
  assert labels['scylla_data_disks'] == '1'
  # The tuning read back from what scylla_setup wrote on the node.
  assert int(labels['scylla_shards_total']) >= 1
  (populate,) = [
      s
      for s in samples
      if s['metric'] == 'operations'
      and s['labels']['scylla_step'] == 'populate'
  ]
  assert populate['value'] == NUM_KEYS
  quiesce = {s['metric'] for s in steps['quiesce']}
  assert {'populate_time', 'total_time_to_quiesce'} <= quiesce, quiesce


def test_the_scylla_engine_runs_on_a_scylla_machine(bed, tmp_path):
  machine = bed.testbed.machines[SERVER]
  config = bed.ScyllaConfig(
      tmp_path / 'scylla.yaml', (SERVER,), (LOADER,), FLAGS
  )
  first = bed.Pkb(config, 'scylla1', '--run_stage=provision,prepare')
  assert first.returncode == 0, first.stderr[-5000:]
  _CheckPrepared(machine)
  second = bed.Pkb(config, 'scylla1', '--run_stage=run')
  assert second.returncode == 0, second.stderr[-5000:]
  _CheckRun(bed.RunDir('scylla1'))
  third = bed.Pkb(config, 'scylla1', '--run_stage=cleanup,teardown')
  assert third.returncode == 0, third.stderr[-5000:]
  assert machine.Processes() == {}
  mounted = machine.Enter(f'findmnt -n {DATA_DIR}', check=False).stdout
  assert not mounted, mounted
