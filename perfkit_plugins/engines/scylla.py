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

"""ScyllaDB on the server VMs: install, tune, configure, run, observe.

Installation follows ScyllaDB's "Install ScyllaDB Linux Packages" (signed
apt repository or yum repo file of one release series); tuning is ScyllaDB's
own: scylla_raid_setup for the data volume (see raid.py), then scylla_setup
with the options the installed release lists. Every command is built by one
function below and quotes every value it carries.
"""

import logging
import os
import posixpath
import shlex
import threading

import perfkit_plugins
from perfkit_plugins.core.machines import local_disks
from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.engines import base
from perfkit_plugins.operations import data_dir
from perfkit_plugins.operations import quiet_units
from perfkit_plugins.operations import raid

SCRIPTS_DIR = raid.SCRIPTS_DIR
SCYLLA_YAML = '/etc/scylla/scylla.yaml'
PACKAGED_YAML = '/etc/scylla/scylla.yaml.packaged'
RACKDC = '/etc/scylla/cassandra-rackdc.properties'
SCYLLA_D = '/etc/scylla.d'
IO_PROPERTIES = f'{SCYLLA_D}/io_properties.yaml'
IO_CONF = f'{SCYLLA_D}/io.conf'
CPUSET_CONF = f'{SCYLLA_D}/cpuset.conf'
PERFTUNE_YAML = f'{SCYLLA_D}/perftune.yaml'
# The PKB package module that installs the server (linux_packages/).
PACKAGE = 'scylla_server'
# The server's journal, written into the VM's temp directory for pulling.
JOURNAL_NAME = 'scylla-server.log'
API = 'http://127.0.0.1:10000'
# ScyllaDB's Prometheus page: its default port, on prometheus_address, which
# the benchmark leaves to its default, the node's listen_address.
PROMETHEUS_PORT = 9180
APT_KEYRING = '/etc/apt/keyrings/scylladb.gpg'
APT_LIST = '/etc/apt/sources.list.d/scylla.list'
APT_PREFERENCES = '/etc/apt/preferences.d/scylla.pref'
YUM_REPO = '/etc/yum.repos.d/scylla.repo'
TEMPLATE_DIR = os.path.join(
    os.path.dirname(perfkit_plugins.__file__), 'data', 'scylla_phases', 'scylla'
)


# Installation.


def AptKeyCommand(settings):
  """The release's signing keys into /etc/apt/keyrings (as ScyllaDB documents).

  The keys (scylla_config.SigningKeys: every current ScyllaDB key, or the
  mirror's --scylla_repo_key_fingerprints) come from --scylla_key_server
  (all in one gpg --recv-keys, each try bounded, three tries; then each
  key still missing from the server's HKP lookup over HTTP(S) with curl),
  or from --scylla_repo_key_url (ASCII-armored keys on a mirror). A key
  that cannot be had does not stop the others. gpg runs as the login user
  in a GnuPG home of its own, made for the command and removed after it:
  no root process parses what a key server sends, and nothing is read
  from or left in a shared directory. Only the named keys reach the
  keyring, and the command fails, naming the key, unless the keyring holds
  every required one (KeyringCheckCommand).
  """
  keys = scylla_config.SigningKeys(
      settings.release, settings.repo_key_fingerprints
  )
  gpg = 'gpg --homedir "$keyhome" --batch'
  names = shlex.join(keys.imported)
  if settings.repo_key_url:
    fetches = [
        'curl -fsSL --retry 3 --max-time 60'
        f' {shlex.quote(settings.repo_key_url)} | {gpg} --import'
    ]
  else:
    server = shlex.quote(scylla_config.GpgKeyServer(settings.key_server))
    fetches = [
        f'for i in 1 2 3; do timeout 60 {gpg} --keyserver {server}'
        f' --recv-keys {names} && break; sleep 5; done'
    ]
    for key in keys.imported:
      lookup = shlex.quote(scylla_config.KeyLookupUrl(settings.key_server, key))
      fetches.append(
          f'{gpg} --list-keys {shlex.quote(key)} > /dev/null 2>&1'
          f' || curl -fsSL --retry 3 --max-time 60 {lookup} | {gpg} --import'
      )
  return (
      'sudo mkdir -p /etc/apt/keyrings && keyhome=$(mktemp -d) && { '
      + '; '.join(fetches)
      + f'; {gpg} --export {names} | sudo tee {APT_KEYRING} > /dev/null;'
      ' written=$?; gpgconf --homedir "$keyhome" --kill all;'
      ' rm -rf "$keyhome"; [ "$written" -eq 0 ]; } && '
      + KeyringCheckCommand(keys.required)
  )


def KeyringCheckCommand(keys):
  """Fails unless the apt keyring holds each of `keys` as a primary key.

  A key is a full fingerprint, compared with the `fpr` record that follows
  a `pub` record in gpg's machine listing, or a 64-bit id, compared with
  the `pub` record's key id field: whole fields compared as strings (no
  pattern; gpg writes `fpr:::::::::<FINGERPRINT>:`), never a user id or a
  subkey. A missing key is named on stderr.
  """
  checks = []
  for key in keys:
    if scylla_config.IsFingerprint(key):
      program = (
          '$1 == "fpr" && last == "pub" && toupper($10) == key { found = 1 }'
          ' { last = $1 } END { exit !found }'
      )
    else:
      program = (
          '$1 == "pub" && toupper($5) == key { found = 1 } END { exit !found }'
      )
    missing = shlex.quote(f'{APT_KEYRING} lacks the signing key {key}')
    checks.append(
        f'{{ {ShowKeysCommand()} | awk -F: -v key={shlex.quote(key)}'
        f' {shlex.quote(program)} || {{ echo {missing} >&2; false; }}; }}'
    )
  return ' && '.join(checks)


def RepoFileCommand(url, path):
  """Downloads a repository file (apt list, yum repo) into place."""
  return f'sudo curl -fsSL -o {path} {shlex.quote(url)}'


def WriteFileCommand(path, text):
  """Writes `text` to a root-owned file."""
  return (
      f'printf %s {shlex.quote(text)} | sudo tee {shlex.quote(path)}'
      ' > /dev/null'
  )


def EpelCommand():
  """EPEL, which ScyllaDB's RPMs depend on (CentOS, then Rocky/RHEL)."""
  return (
      'sudo yum install -y epel-release || sudo yum install -y'
      ' https://dl.fedoraproject.org/pub/epel/'
      'epel-release-latest-$(rpm -E %rhel).noarch.rpm'
  )


def YumPackage(release):
  """`scylla` (newest of the series) or `scylla-X.Y.Z`."""
  version = scylla_config.PinnedPackageVersion(release)
  return 'scylla' if version is None else f'scylla-{version}'


def AptInstall(vm, settings):
  """Installs ScyllaDB --scylla_release (X.Y or X.Y.Z) on Debian/Ubuntu.

  From --scylla_repo_url and its keys (--scylla_repo_key_url,
  --scylla_repo_key_fingerprints) when given (a mirror).
  """
  release = settings.release
  # What the key import runs (ScyllaDB's image build and its test framework
  # install them first; a minimal image has neither).
  vm.InstallPackages('gnupg dirmngr curl')
  vm.RemoteCommand(AptKeyCommand(settings))
  vm.RemoteCommand(
      RepoFileCommand(
          scylla_config.RepoUrl(release, settings.repo_url, 'apt'), APT_LIST
      )
  )
  preferences = scylla_config.AptPreferences(release)
  if preferences:
    vm.RemoteCommand(WriteFileCommand(APT_PREFERENCES, preferences))
  vm.RemoteCommand('sudo apt-get update')
  vm.InstallPackages('scylla')


def YumInstall(vm, settings):
  """Installs ScyllaDB --scylla_release (X.Y or X.Y.Z) on RHEL-family systems.

  From --scylla_repo_url when given (a mirror).
  """
  release = settings.release
  vm.RemoteCommand(EpelCommand())
  vm.RemoteCommand(
      RepoFileCommand(
          scylla_config.RepoUrl(release, settings.repo_url, 'yum'), YUM_REPO
      )
  )
  vm.InstallPackages(YumPackage(release))


# Tuning.


def DefaultRouteCommand():
  return 'ip -o -4 route show default'


def QuietServicesCommand(cloud):
  """Stops and masks the units ScyllaDB's images mask (quiet_units).

  On GCE it also tells the guest agent to leave NIC queues alone.
  """
  command = quiet_units.MaskCommand(scylla_config.QuietUnits(cloud))
  if cloud == 'GCP':
    command = (
        f'printf {shlex.quote(scylla_config.GCE_NO_MULTIQUEUE)}'
        f' | sudo tee -a {scylla_config.GCE_INSTANCE_CONFIGS} > /dev/null && '
        + command
    )
  return command


def UnitPresentCommand(unit):
  """Prints `present` when systemd finds `unit`'s file, else `missing`.

  As scylla_util.systemd_unit looks a unit up (`systemctl cat`).
  """
  return (
      f'systemctl cat {shlex.quote(unit)} > /dev/null 2>&1'
      ' && echo present || echo missing'
  )


def ScyllaSetupCommand(args):
  return f'sudo {SCRIPTS_DIR}/scylla_setup ' + shlex.join(args)


def IrqMaskCommand(nic):
  return (
      f'sudo {SCRIPTS_DIR}/perftune.py --tune net --nic {shlex.quote(nic)}'
      ' --get-irq-cpu-mask'
  )


def ReadFileCommand(path):
  return f'sudo cat {shlex.quote(path)}'


def ReadIfPresentCommand(path):
  """The file's text, or nothing when there is no such file."""
  return f'sudo cat {shlex.quote(path)} 2>/dev/null || true'


def LscpuCommand():
  return 'lscpu -p=CPU,CORE,SOCKET,NODE'


def SwapCommand():
  """The swap areas, in bytes.

  With sudo for sudo's PATH: swapon is in /usr/sbin, which is not on the
  PATH of an ssh command on Debian's images (sshd's default,
  /usr/local/bin:/usr/bin:/bin:/usr/games).
  """
  return 'sudo swapon --show=NAME,TYPE,SIZE --bytes --noheadings'


def VersionCommand():
  return 'scylla --version'


def ShowKeysCommand():
  """Lists the apt keyring's keys for machines (`gpg --with-colons`)."""
  return f'gpg --show-keys --with-colons {APT_KEYRING}'


def _EnsureUnit(vm, unit, package):
  """Installs `package` when the node has no `unit` (UnitPresentCommand).

  scylla_setup of a release with a perf collector fails without its unit,
  whether it is to enable it or, as here, to stop and disable it
  (scylla_config.PERF_COLLECTOR_OPTION).
  """
  out, _ = vm.RemoteCommand(UnitPresentCommand(unit))
  if out.strip() != 'present':
    vm.InstallPackages(package)


def ReadTuning(vm, nic):
  """The tuning scylla_setup left on one node, as a plain record."""
  cpuset_text, _ = vm.RemoteCommand(ReadFileCommand(CPUSET_CONF))
  # What scylla_prepare applied when the server started (it writes the
  # file then); before the first start, what perftune's rule gives.
  applied, _ = vm.RemoteCommand(ReadIfPresentCommand(PERFTUNE_YAML))
  mask = tuning.ParsePerftuneIrqMask(applied)
  irq_source = tuning.IRQ_APPLIED
  if mask is None:
    mask, _ = vm.RemoteCommand(IrqMaskCommand(nic))
    irq_source = tuning.IRQ_COMPUTED
  io_text, _ = vm.RemoteCommand(ReadFileCommand(IO_PROPERTIES))
  nproc, _ = vm.RemoteCommand('nproc')
  lscpu, _ = vm.RemoteCommand(LscpuCommand())
  version, _ = vm.RemoteCommand(VersionCommand())
  swaps, _ = vm.RemoteCommand(SwapCommand())
  # Yum installs keep their keys in the RPM database: none listed here.
  keys, _ = vm.RemoteCommand(ShowKeysCommand(), ignore_failure=True)
  cpuset, smp = tuning.ParseCpusetConf(cpuset_text)
  return tuning.TuningRecord(
      node=vm.name,
      topology=tuning.ParseLscpuTopology(lscpu),
      nproc=int(nproc.strip()),
      cpuset=cpuset,
      smp=smp,
      irq_cpus=tuning.ParseCpuMask(mask),
      io_properties=tuning.ParseIoProperties(io_text),
      version=version.strip(),
      irq_source=irq_source,
      swap=tuning.ParseSwaps(swaps),
      signing_keys=tuning.ParseKeyFingerprints(keys),
  )


# Configuration.


def PreservePackagedYamlCommand():
  """Keeps the release's scylla.yaml once, before it is first replaced."""
  return f'sudo cp -n {SCYLLA_YAML} {PACKAGED_YAML}'


def InstallFileCommand(source, target):
  return (
      f'sudo install -m 644 -o root -g root {shlex.quote(source)}'
      f' {shlex.quote(target)}'
  )


# Running.


def ServiceCommand(action):
  return f'sudo systemctl {action} scylla-server'


def NodetoolStatusCommand():
  return 'nodetool status'


def FlushCommand(keyspace):
  return f'nodetool flush {shlex.quote(keyspace)}'


def RestGetCommand(path):
  return f'curl -sSf {shlex.quote(API + path)}'


def TabletsCommand(host):
  """cqlsh on the node's own address (rpc_address is not localhost)."""
  return (
      f'cqlsh {shlex.quote(host)}'
      f' -e {shlex.quote(compactions.SCYLLA_TABLETS_QUERY)}'
  )


def JournalCommand(journal_log):
  """Writes scylla-server's journal to journal_log (its directory made)."""
  return (
      f'mkdir -p {shlex.quote(posixpath.dirname(journal_log))}'
      ' && sudo journalctl -u scylla-server --no-pager -o short-precise'
      f' > {shlex.quote(journal_log)}'
  )


def RemoveDataCommand():
  dirs = ' '.join(
      f'{local_disks.DATA_DIR}/{d}/*'
      for d in ('data', 'commitlog', 'hints', 'view_hints', 'saved_caches')
  )
  return f'sudo rm -rf {dirs}'


class ScyllaEngine(base.Engine):
  """ScyllaDB from the vendor's packages, tuned by its own scripts.

  Configure the first server alone, then the others (cluster.Configure does):
  with --scylla_io_setup=reuse the first server's iotune result is copied to
  the others, which must be identical machines.

  Attributes:
    tuning_records: TuningRecord of every configured server, by VM name.
  """

  NAME = 'scylla'

  def __init__(
      self, settings, vm_tmp_dir, local_ssds=0, output_dir=None, owner=''
  ):
    """Creates the engine.

    Args:
      settings: validated settings.Settings.
      vm_tmp_dir: a directory of the ssh user's on every server (PKB's
        vm_util.VM_TMP_DIR) for staged files and the journal.
      local_ssds: local SSDs of the server type (local_disks.LocalSsdCount).
      output_dir: local directory for raw outputs (device listings).
      owner: the run's id, recorded in the data directory it claims.
    """
    super().__init__(settings)
    self.owner = owner
    self.vm_tmp_dir = vm_tmp_dir
    self.journal_log = posixpath.join(vm_tmp_dir, JOURNAL_NAME)
    self.local_ssds = local_ssds
    self.output_dir = output_dir
    self.extra_yaml = scylla_config.ParseYamlExtra(settings.yaml_extra)
    self.tuning_records = {}
    self._io_files = None
    self._lock = threading.Lock()

  def Install(self, vm):
    vm.Install(PACKAGE)

  def Configure(self, vm, seed_ips, ring_slot):
    """Data volume, scylla_setup, scylla.yaml; records the tuning."""
    # ScyllaDB's nodes take their tokens as they join, one at a time.
    del ring_slot
    if self.settings.data_disk == 'local':
      volume = raid.BuildDataRaid(vm, self.local_ssds, self.output_dir)
    elif self.settings.raid_devices:
      volume = raid.BuildRaidOn(vm, self.settings.raid_devices)
    else:
      volume = raid.UseGivenDisk(vm)
    data_dir.Claim(
        vm,
        local_disks.DATA_DIR,
        self.owner,
        self.settings.allow_existing_data,
    )
    vm.RemoteCommand(QuietServicesCommand(self.settings.cloud))
    nic = self.settings.nic or self._DefaultNic(vm)
    with self._lock:
      io_files = self._io_files if self.settings.io_setup == 'reuse' else None
    if io_files:
      for path, text in io_files:
        vm.RemoteCommand(WriteFileCommand(path, text))
    help_text, _ = vm.RemoteCommand(raid.ScriptHelpCommand('scylla_setup'))
    help_flags = scylla_config.ParseHelpFlags(help_text)
    if scylla_config.PERF_COLLECTOR_OPTION in help_flags:
      _EnsureUnit(
          vm,
          scylla_config.PERF_COLLECTOR_UNIT,
          scylla_config.PERF_COLLECTOR_PACKAGE,
      )
    args = scylla_config.ScyllaSetupArgs(
        help_flags,
        nic,
        run_iotune=not io_files,
        swap_setup=self.settings.swap_setup,
    )
    vm.RemoteCommand(ScyllaSetupCommand(args))
    if not io_files:
      files = tuple(
          (path, vm.RemoteCommand(ReadFileCommand(path))[0])
          for path in (IO_PROPERTIES, IO_CONF)
      )
      with self._lock:
        self._io_files = self._io_files or files
    self._WriteConfig(vm, seed_ips)
    record = ReadTuning(vm, nic)
    with self._lock:
      self.volumes[vm.name] = volume
      self.tuning_records[vm.name] = record

  def Tuning(self, vms):
    """Every node's tuning read back, as the cluster's sample metadata.

    With each node's data volume (member disks, device, file system, mount
    options) where this engine configured it, and the noisy units masked
    there (read back: Run may be another process than Prepare). Differences
    to the rule and between nodes are logged; a key on which the nodes
    differ lists every node's value (tuning.ClusterMetadata).
    """
    records = [
        ReadTuning(vm, self.settings.nic or self._DefaultNic(vm)) for vm in vms
    ]
    per_node, _ = TuningReport(records, self.settings.release)
    for node, volume in self.volumes.items():
      if node in per_node:
        per_node[node].update(volume.Metadata())
    units = scylla_config.QuietUnits(self.settings.cloud)
    for vm in vms:
      per_node[vm.name]['scylla_masked_units'] = quiet_units.Metadata(
          quiet_units.Masked(vm, units)
      )
    metadata, differences = tuning.ClusterMetadata(per_node)
    for difference in differences:
      logging.warning('ScyllaDB tuning differs: %s', difference)
    metadata['scylla_shards_total'] = sum(r.shards for r in records)
    return metadata, metadata['scylla_shards_total']

  def _DefaultNic(self, vm):
    out, _ = vm.RemoteCommand(DefaultRouteCommand())
    return scylla_config.ParseDefaultRouteNic(out)

  def _WriteConfig(self, vm, seed_ips):
    """Writes scylla.yaml and the rack file, staged in the scratch dir.

    scylla.yaml keeps every setting of the release's packaged file (kept
    aside before it is first replaced: releases set non-default values
    there), then --scylla_yaml_extra, then the cluster's own keys.
    """
    vm.RemoteCommand(PreservePackagedYamlCommand())
    packaged, _ = vm.RemoteCommand(ReadFileCommand(PACKAGED_YAML))
    reported = self.Version(vm)
    version = tuning.ReleaseOfVersion(reported)
    if version is None:
      raise ValueError(
          f'{vm.name}: `scylla --version` names no release: {reported!r}'
      )
    context = scylla_config.ScyllaYamlContext(
        packaged,
        self.settings.cluster_name,
        seed_ips,
        vm.internal_ip,
        scylla_config.TabletsSetting(version, self.settings.tablets),
        self.extra_yaml,
    )
    for template, target, values in (
        ('scylla.yaml.j2', SCYLLA_YAML, context),
        (
            'cassandra-rackdc.properties.j2',
            RACKDC,
            scylla_config.RackDcContext(),
        ),
    ):
      staged = posixpath.join(self.vm_tmp_dir, os.path.basename(target))
      vm.RenderTemplate(os.path.join(TEMPLATE_DIR, template), staged, values)
      vm.RemoteCommand(InstallFileCommand(staged, target))

  def Start(self, vm):
    vm.RemoteCommand(ServiceCommand('start'))

  def Stop(self, vm):
    vm.RemoteCommand(ServiceCommand('stop'), ignore_failure=True)

  def Running(self, vm):
    out, _ = vm.RemoteCommand(ServiceCommand('is-active'), ignore_failure=True)
    return out.strip() == 'active'

  def NodetoolCommand(self, *args):
    return shlex.join(['nodetool', *args])

  def MetricsUrl(self, vm):
    host = vm.internal_ip
    if ':' in host:
      host = f'[{host}]'
    return f'http://{host}:{PROMETHEUS_PORT}/metrics'

  def Clean(self, vm):
    """Removes the data this run wrote; with local SSDs also the array."""
    vm.RemoteCommand(
        data_dir.ReleaseCommand(
            local_disks.DATA_DIR, self.owner, RemoveDataCommand()
        )
    )
    if self.settings.data_disk == 'local' or self.settings.raid_devices:
      raid.RemoveRaid(vm)

  def NodeStates(self, vm):
    out, _ = vm.RemoteCommand(NodetoolStatusCommand())
    return node_status.ParseNodetoolStatus(out)

  def Flush(self, vm, keyspace):
    vm.RemoteCommand(FlushCommand(keyspace))

  def CompactionStatus(self, vm):
    running, _ = vm.RemoteCommand(
        RestGetCommand(compactions.SCYLLA_COMPACTIONS_PATH)
    )
    pending, _ = vm.RemoteCommand(
        RestGetCommand(compactions.SCYLLA_PENDING_TASKS_PATH)
    )
    transitions = 0
    if self.settings.tablets:
      tablets, _ = vm.RemoteCommand(TabletsCommand(vm.internal_ip))
      transitions = compactions.ParseScyllaTabletTransitions(tablets)
    return compactions.CompactionStatus(
        running=compactions.ParseScyllaRunningCompactions(running),
        pending=compactions.ParseScyllaPendingTasks(pending),
        tablet_transitions=transitions,
    )

  def CompactionHistory(self, vm):
    out, _ = vm.RemoteCommand(RestGetCommand(compactions.SCYLLA_HISTORY_PATH))
    return compactions.ParseScyllaCompactionHistory(out)

  def Version(self, vm):
    out, _ = vm.RemoteCommand(VersionCommand())
    return out.strip()

  def PrepareLogs(self, vm):
    """Writes the server's journal to journal_log, one of LogPaths."""
    vm.RemoteCommand(JournalCommand(self.journal_log), ignore_failure=True)

  def LogPaths(self):
    return [
        self.journal_log,
        SCYLLA_YAML,
        RACKDC,
        CPUSET_CONF,
        IO_PROPERTIES,
        IO_CONF,
        PERFTUNE_YAML,
    ]


def TuningReport(records, release):
  """tuning.Report, with a log warning for every difference.

  Args:
    records: ScyllaEngine.tuning_records values.
    release: the requested release.

  Returns:
    ({node: metadata}, [differences]).
  """
  metadata, problems = tuning.Report(records, release)
  for problem in problems:
    logging.warning('ScyllaDB tuning differs: %s', problem)
  return metadata, problems
