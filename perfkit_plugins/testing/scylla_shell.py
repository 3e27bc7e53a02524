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

"""A ScyllaDB server as a shell_vm.ShellVm, for the engine's commands.

Installing the `scylla` package lays out ScyllaDB's own files, read in place
from ../shared/scylladb (its README): the packaged scylla.yaml, the
scylla.d and sysconfig files, the server's systemd unit, the `scylla` user
made as the Debian package's postinst makes it, and the directories the
package ships. ScyllaDB's programs that cannot run here are stand-ins
(stand_in.py) printing recorded real outputs, each named in RECORDED:

* scylla_setup and scylla_raid_setup take their options as the recorded
  release's argparse does; scylla_setup checks the NIC with ScyllaDB's own
  is_valid_nic and, in a release that has it, runs the perf collector step
  with ScyllaDB's own systemd_unit; it writes the recorded cpuset.conf and
  io_properties.yaml. scylla_raid_setup makes a real XFS on the machine's
  disk (a loop device) and mounts it through its mount unit.
* perftune.py, scylla, nodetool, cqlsh: recorded outputs.
* The network: curl serves the test's URLs (apt list, keys, the REST API's
  recorded answers); gpg imports --recv-keys from the test's key server.
* systemd's manager, apt-get, yum and mdadm (which would act on this
  host's arrays): stand-ins that do what the engine relies on, or nothing.
"""

import pathlib
import shlex

from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.engines import scylla
from perfkit_plugins.operations import raid
from perfkit_plugins.testing import shell_vm

_REPO = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = _REPO / 'tests' / 'testdata'
SHARED = _REPO.parent / 'shared'
SCYLLA_SOURCE = SHARED / 'scylladb' / '2026.3.0-rc3'
SCYLLA_PUBLIC = SHARED / 'testdata' / 'scylla-public'
SCYLLA_UTIL = SCYLLA_SOURCE / 'dist' / 'common' / 'scripts' / 'scylla_util.py'
# The recorded real outputs the stand-ins print, by what they answer.
RECORDED = {
    'cpuset.conf': TESTDATA / 'scylla_setup' / 'cpuset-v16-numa1.conf',
    'io_properties.yaml': TESTDATA / 'scylla_setup' / 'io_properties-sct.yaml',
    'perftune --get-irq-cpu-mask': (
        TESTDATA / 'perftune' / 'v16-numa1-get-irq-cpu-mask.txt'
    ),
    # The newest real `scylla --version` output at hand (its release is
    # not the scripts'; the tuning report says so, as it would on a node).
    'scylla --version': SCYLLA_PUBLIC / 'sct-scylla-version-2019.1.4.txt',
    'nodetool status': SCYLLA_PUBLIC / 'ivangdr-status-2026.1-one-dc.txt',
    'cqlsh system.tablets': (
        TESTDATA / 'scylla_public' / 'pr16600-cqlsh-system-tablets.txt'
    ),
    'REST compactions': TESTDATA / 'scylla_rest' / 'compactions-2.json',
    'REST pending_tasks_by_table': (
        TESTDATA / 'scylla_rest' / 'pending_tasks_by_table-2.json'
    ),
    'REST compaction_history': (
        TESTDATA / 'scylla_rest' / 'compaction_history.json'
    ),
}
REST_ANSWERS = {
    compactions.SCYLLA_COMPACTIONS_PATH: 'REST compactions',
    compactions.SCYLLA_PENDING_TASKS_PATH: 'REST pending_tasks_by_table',
    compactions.SCYLLA_HISTORY_PATH: 'REST compaction_history',
}
# A cloud server's device listings: GKE's node with one local NVMe SSD
# (nvme0n1), AWS's with one instance-store disk (nvme1n1); the files'
# SOURCES say where they come from.
LSBLK = {
    'GCP': (
        TESTDATA / 'devices' / 'gke-cos-local-nvme-ssd-lsblk-J-output-all.txt',
        'nvme0n1',
    ),
    'AWS': (
        TESTDATA / 'devices' / 'aws-eks-instance-store-lsblk-J-output-all.txt',
        'nvme1n1',
    ),
}
# Files the `scylla` package installs, from ScyllaDB's source (install.sh
# and dist/debian/debian/scylla-server.install lay them out so).
_PACKAGED = {
    '/etc/scylla/scylla.yaml': 'conf/scylla.yaml',
    '/etc/scylla/cassandra-rackdc.properties': (
        'conf/cassandra-rackdc.properties'
    ),
    '/etc/default/scylla-server': 'dist/common/sysconfig/scylla-server',
    '/etc/scylla.d/io.conf': 'dist/common/scylla.d/io.conf',
    '/etc/scylla.d/cpuset.conf': 'dist/common/scylla.d/cpuset.conf',
    '/etc/scylla.d/memory.conf': 'dist/common/scylla.d/memory.conf',
    '/etc/scylla.d/dev-mode.conf': 'dist/common/scylla.d/dev-mode.conf',
    '/usr/lib/systemd/system/scylla-server.service': (
        'dist/common/systemd/scylla-server.service'
    ),
}
# The directories the package ships under /var/lib/scylla
# (scylla-server.install), owned by scylla (scylla-server.postinst).
_PACKAGED_DIRS = ('data', 'commitlog', 'hints', 'view_hints', 'coredump')
# What the Debian package's postinst runs to make the server's user
# (dist/debian/debian/scylla-server.postinst, lines 11-16).
_ADD_USER = (
    'adduser --system --quiet --home /var/lib/scylla --no-create-home'
    ' --disabled-password --group scylla'
)


def SkipReason():
  """Why a ScyllaDB shell server cannot be made here, or ''."""
  reason = shell_vm.SkipReason()
  if reason:
    return reason
  if not SCYLLA_UTIL.is_file():
    return f'no ScyllaDB sources at {SCYLLA_SOURCE}: CI checks out ../shared'
  return ''


def Recorded(name):
  """The text of one recorded output (RECORDED)."""
  return RECORDED[name].read_text()


def HelpText(script, release):
  """A setup script's recorded --help (testdata/scylla_setup)."""
  return (
      TESTDATA / 'scylla_setup' / f'{script}-help-{release}.txt'
  ).read_text()


class ScyllaServer(shell_vm.ShellVm):
  """A ShellVm that installs ScyllaDB as its packages lay it out.

  Attributes:
    help_release: the release whose recorded --help texts the setup
      script stand-ins take options by.
    install_recommends: whether installing `scylla` installs the packages
      it recommends (apt's default; an image may turn it off).
    local_disk: the device name of the local SSD lsblk lists (AddDisk
      makes it a disk of the machine).
  """

  def __init__(
      self,
      root,
      name,
      modules,
      urls=None,
      keyserver=None,
      cloud='GCP',
      help_release='branch-2026.3',
      install_recommends=True,
  ):
    """Makes the machine, before ScyllaDB is installed.

    Args:
      root: an empty directory for the machine's files.
      name: VM name.
      modules: {PKB package module: function(vm)}, as ShellVm's.
      urls: {URL: body} curl serves besides the REST API's answers.
      keyserver: {fingerprint: armored key} gpg --recv-keys gets.
      cloud: whose local SSD listing lsblk prints (LSBLK).
      help_release: as the attribute.
      install_recommends: as the attribute.
    """
    super().__init__(
        root,
        name=name,
        modules=modules,
        packages={
            'scylla': self._InstallScylla,
            'scylla-perf-collector': self._InstallPerfCollector,
        },
    )
    self.help_release = help_release
    self.install_recommends = install_recommends
    served = {
        scylla.API + path: Recorded(answer)
        for path, answer in REST_ANSWERS.items()
    }
    listing, self.local_disk = LSBLK[cloud]
    self.StandIn('systemctl', behaviour='systemctl', real='/usr/bin/systemctl')
    self.StandIn('curl', behaviour='curl', urls=served | (urls or {}))
    self.StandIn(
        'gpg', behaviour='gpg', real='/usr/bin/gpg', keyserver=keyserver or {}
    )
    for manager in ('apt-get', 'yum'):
      self.StandIn(manager, rules=[{'pattern': '.*'}])
    # Only what Clean runs: the real one would stop this host's arrays.
    self.StandIn('mdadm', rules=[{'args': ['--stop', '--scan']}])
    self.StandIn(
        'lsblk',
        rules=[{
            'args': shlex.split(raid.LSBLK_COMMAND)[1:],
            'stdout': listing.read_text(),
        }],
        real='/usr/bin/lsblk',
    )

  def _InstallScylla(self, vm):
    """Lays out the `scylla` package (and what it recommends, if so)."""
    self.RunAsRoot(
        f'{_ADD_USER} && mkdir -p /var/lib/scylla && cd /var/lib/scylla'
        f' && mkdir -p {" ".join(_PACKAGED_DIRS)}'
        ' && chown -R scylla:scylla /var/lib/scylla'
    )
    for target, source in _PACKAGED.items():
      self.WriteFile(target, (SCYLLA_SOURCE / source).read_text())
    setup_help = HelpText('scylla_setup', self.help_release)
    self.StandIn(
        'scylla_setup',
        at=raid.SCRIPTS_DIR,
        behaviour='setup_script',
        help=setup_help,
        # The machine's /tmp is its own: the path it reads is the real one.
        scylla_util=str(SCYLLA_UTIL.resolve()),
        effects=['nic_exists']
        + (['perf_collector'] if self._HasPerfCollector(setup_help) else []),
        writes=[
            {'path': scylla.CPUSET_CONF, 'text': Recorded('cpuset.conf')},
            {
                'path': scylla.IO_PROPERTIES,
                'text': Recorded('io_properties.yaml'),
                'unless': 'no_io_setup',
            },
        ],
    )
    self.StandIn(
        'scylla_raid_setup',
        at=raid.SCRIPTS_DIR,
        behaviour='setup_script',
        help=HelpText('scylla_raid_setup', self.help_release),
        effects=['raid'],
    )
    self.StandIn(
        'perftune.py',
        at=raid.SCRIPTS_DIR,
        rules=[{
            'pattern': r'--tune net --nic \S+ --get-irq-cpu-mask',
            'stdout': Recorded('perftune --get-irq-cpu-mask'),
        }],
    )
    self.StandIn(
        'scylla',
        at='/usr/bin',
        rules=[{'args': ['--version'], 'stdout': Recorded('scylla --version')}],
    )
    self.StandIn(
        'nodetool',
        at='/usr/bin',
        rules=[
            {'args': ['status'], 'stdout': Recorded('nodetool status')},
            {'pattern': r'flush \S+'},
        ],
    )
    self.StandIn(
        'cqlsh',
        at='/usr/bin',
        rules=[{
            'pattern': r'\S+ -e .*system\.tablets.*',
            'stdout': Recorded('cqlsh system.tablets'),
        }],
    )
    if self.install_recommends and self._HasPerfCollector(setup_help):
      vm.InstallPackages(scylla_config.PERF_COLLECTOR_PACKAGE)

  @staticmethod
  def _HasPerfCollector(setup_help):
    """Whether the release has the perf collector (and its package)."""
    flags = scylla_config.ParseHelpFlags(setup_help)
    return scylla_config.PERF_COLLECTOR_OPTION in flags

  def _InstallPerfCollector(self, vm):
    """Lays out the unit the scylla-perf-collector package ships.

    Its path is the package's (dist/debian/debian/
    scylla-perf-collector.install, master f4a4091ca2); its content is not
    read here.
    """
    del vm
    self.WriteFile(
        f'/usr/lib/systemd/system/{scylla_config.PERF_COLLECTOR_UNIT}',
        '[Service]\nExecStart=/usr/bin/perf record -a\n',
    )
    self.RunAsRoot('mkdir -p /var/log/scylla-perf')
