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

"""ScyllaDB server configuration: repositories, setup arguments, scylla.yaml.

Pure functions: the operations code (engines/scylla.py, raid.py) runs the
commands and feeds the nodes' answers (help texts, versions, the packaged
scylla.yaml) back in here.
"""

import dataclasses
import ipaddress
import json
import re

import yaml

# ScyllaDB's package repositories (docs: "Install ScyllaDB Linux Packages"),
# as URL templates naming {version}: the release series.
REPO_URLS = {
    'apt': 'https://downloads.scylladb.com/deb/debian/scylla-{version}.list',
    'yum': 'https://downloads.scylladb.com/rpm/centos/scylla-{version}.repo',
}
# ScyllaDB's apt signing keys (64-bit ids, as its docs give them).
_KEY_2022 = 'd0a112e067426ab2'
_KEY_2024 = '491c93b9de7496a7'
_KEY_2024_RSA = 'a43e06657bac99e3'
_KEY_2026_RSA = 'c503c686b007f39e'
# Every key ScyllaDB signs its repositories with now. ScyllaDB's own
# installers import them all, whatever the release (its web installer, its
# Ansible role, scylla-cluster-tests), and so does every install here: a
# repository can be re-signed with a key its docs do not name (6.2's, in
# November 2024, with the 2024 RSA key while its docs named the 2024 key).
CURRENT_SIGNING_KEYS = (_KEY_2022, _KEY_2024, _KEY_2024_RSA, _KEY_2026_RSA)
# The key ScyllaDB's install docs of each release series name for its apt
# repository: 6.0 and 6.1 the 2024 key, 6.2 and 2025.x the 2024 RSA key,
# 2026.x the 2026 RSA key. The keyring must hold it.
SIGNING_KEYS = {
    '6.0': (_KEY_2024,),
    '6.1': (_KEY_2024,),
    '6.2': (_KEY_2024_RSA,),
    '2025': (_KEY_2024_RSA,),
    '2026': (_KEY_2026_RSA,),
}
# Full fingerprints where established: the imported key must be this one,
# not merely one whose 64-bit id matches.
KEY_FINGERPRINTS = {
    _KEY_2026_RSA: '6C6ECC84F42AF147BD2A65AEC503C686B007F39E',
}
# Where keys are fetched by default: the key server ScyllaDB's docs name;
# when gpg cannot get a key from it, the same server over HTTPS (a network
# that blocks port 80 or HKP).
APT_KEYSERVER = 'hkp://keyserver.ubuntu.com:80'
_APT_KEYSERVER_HTTPS = 'hkps://keyserver.ubuntu.com'
# A key server as gpg --keyserver takes it: scheme, host (a DNS name, an
# IPv4 address or a bracketed IPv6 one) and an optional port, nothing else.
_KEY_SERVER_RE = re.compile(
    r'(hkps?|https?)://'
    r'([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
    r'(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*'
    r'|\[[0-9A-Fa-f:.]{2,45}\])'
    r'(?::([0-9]{1,5}))?'
)
# Each scheme as gpg takes it (HKP is HTTP: GnuPG 2.2's dirmngr fetches an
# http(s):// key server's own URL, not its HKP lookup), the scheme of its
# lookup over plain HTTP(S), and the port when the URL names none (HKP's
# registered port for hkp://, as gpg uses).
_KEY_SERVER_SCHEMES = {
    'hkp': ('hkp', 'http', '11371'),
    'hkps': ('hkps', 'https', '443'),
    'http': ('hkp', 'http', '80'),
    'https': ('hkps', 'https', '443'),
}
_WEB_PORTS = {'http': '80', 'https': '443'}
_FINGERPRINT_RE = re.compile(r'[0-9A-Fa-f]{40}')

SEED_PROVIDER = 'org.apache.cassandra.locator.SimpleSeedProvider'
SNITCH = 'GossipingPropertyFileSnitch'
DATACENTER = 'datacenter1'
RACK = 'rack1'

# Keys the benchmark writes itself; --scylla_yaml_extra may not set them.
MANAGED_KEYS = (
    'cluster_name',
    'seed_provider',
    'listen_address',
    'rpc_address',
    'endpoint_snitch',
    'enable_tablets',
    'tablets_mode_for_new_keyspaces',
)
# Keys the run relies on as ScyllaDB's packages set them: where the data
# lives (the RAID0 mount), the ports and addresses loaders, nodetool and the
# benchmark's checks reach, and open access for cassandra-stress.
RESERVED_KEYS = (
    'data_file_directories',
    'commitlog_directory',
    'schema_commitlog_directory',
    'hints_directory',
    'view_hints_directory',
    'saved_caches_directory',
    'workdir',
    'native_transport_port',
    'native_transport_port_ssl',
    'native_shard_aware_transport_port',
    'native_shard_aware_transport_port_ssl',
    'storage_port',
    'ssl_storage_port',
    'api_port',
    'api_address',
    'prometheus_port',
    'prometheus_address',
    'broadcast_address',
    'broadcast_rpc_address',
    'listen_interface',
    'rpc_interface',
    'authenticator',
    'authorizer',
    'client_encryption_options',
)
# --scylla_yaml_extra is a few settings, not a document.
YAML_EXTRA_MAX_CHARS = 16384
# First release whose scylla.yaml takes tablets_mode_for_new_keyspaces;
# before it (6.0 .. 2025.1.1) tablets are switched with enable_tablets.
TABLETS_MODE_SINCE = (2025, 1, 2)

# From 2026.4 (scylladb master f4a4091ca2, commit ecd6d64fdc) scylla_setup
# enables and starts a system-wide `perf record` service unless given this
# option, and with it stops and disables the service. Either way it first
# looks the unit up (scylla_util.systemd_unit: `systemctl cat`) and fails at
# its last step when there is none. The unit comes with its own package,
# which the `scylla` metapackage only recommends: an image that installs no
# recommended packages has scylla_setup but not the unit.
PERF_COLLECTOR_OPTION = '--no-perf-collector-setup'
PERF_COLLECTOR_UNIT = 'scylla-perf-collector.service'
PERF_COLLECTOR_PACKAGE = 'scylla-perf-collector'

_RELEASE_RE = re.compile(r'^(\d{1,4})\.(\d{1,2})(?:\.(\d{1,3}))?$')
_HELP_FLAG_RE = re.compile(r'(?<![\w-])(--[a-z0-9][a-z0-9-]*)')
_YAML_KEY_RE = re.compile(r'^[a-z][a-z0-9_]*$')
_ROUTE_DEV_RE = re.compile(r'\bdev\s+(\S+)')


def _ParseRelease(release):
  match = _RELEASE_RE.fullmatch(release)
  if not match:
    raise ValueError(
        f'{release!r} is not a ScyllaDB release such as 2026.3 or 2026.3.1'
    )
  return match.groups()


def ReleaseSeries(release):
  """'2026.3.1' -> '2026.3', the repository's series."""
  major, minor, _ = _ParseRelease(release)
  return f'{major}.{minor}'


def RepoUrl(release, template, package_manager):
  """The apt list or yum repo file URL of a release's series.

  Args:
    release: X.Y or X.Y.Z.
    template: --scylla_repo_url ({version}: the series), '' for ScyllaDB's.
    package_manager: 'apt' or 'yum'.
  """
  template = template or REPO_URLS[package_manager]
  return template.format(version=ReleaseSeries(release))


def PinnedPackageVersion(release):
  """The package version pattern of an X.Y.Z release, None for X.Y.

  A series repository holds all patch releases; X.Y installs the newest.
  """
  major, minor, patch = _ParseRelease(release)
  return None if patch is None else f'{major}.{minor}.{patch}'


def AptPreferences(release):
  """An apt_preferences(5) file pinning every scylla package to X.Y.Z.

  Pinning by preference (not `pkg=version` on the command line) holds the
  whole dependency set (scylla-server, -conf, -python3, ...) at one version
  whatever sub-packages a release has. None for an X.Y release.
  """
  version = PinnedPackageVersion(release)
  if version is None:
    return None
  return f'Package: scylla*\nPin: version {version}-*\nPin-Priority: 1001\n'


def ParseDefaultRouteNic(text):
  """The interface of the default route (`ip -o -4 route show default`).

  GCE's Ubuntu images call it ens4, most others eth0; scylla_setup falls back
  to eth0 when not told, so it is always given.

  Raises:
    ValueError: no default route.
  """
  match = _ROUTE_DEV_RE.search(text)
  if not match:
    raise ValueError(f'no default route in: {text!r}')
  return match.group(1)


def ParseHelpFlags(help_text):
  """The long options an argparse --help text lists."""
  return frozenset(_HELP_FLAG_RE.findall(help_text))


def _Require(help_flags, flag, script):
  if flag not in help_flags:
    raise ValueError(f'{script} of this release has no {flag} option')


def ScyllaSetupArgs(help_flags, nic, run_iotune, swap_setup=True):
  """scylla_setup arguments for a non-interactive run, valid for its release.

  RAID is done before, by scylla_raid_setup (or PKB for a network disk), so
  scylla_setup skips it. It tunes NIC and disk IRQs with perftune and writes
  cpuset.conf (--setup-nic-and-disks), and runs iotune unless the node gets
  the first node's io_properties.yaml. NTP, coredump and version-check
  steps are skipped: they change nothing ScyllaDB's performance depends on
  and reach the network or fill the boot disk. So is the perf collector
  where the release has one (PERF_COLLECTOR_OPTION): it samples every CPU
  (`perf record -a`) all along, which the measured database would pay for.
  An option the installed scylla_setup does not list is never passed
  (argparse exits on unknown options).

  Args:
    help_flags: ParseHelpFlags of the node's `scylla_setup --help`.
    nic: network interface to tune.
    run_iotune: run iotune on this node.
    swap_setup: let scylla_setup make a swap file when the node has no swap
      (scylla_swap_setup sizes it from the memory, at most half the free
      space of its directory); False skips it (--scylla_swap_setup).

  Returns:
    list of arguments (unquoted).

  Raises:
    ValueError: the release lacks an option the benchmark cannot do without.
  """
  for flag in ('--no-raid-setup', '--nic', '--setup-nic-and-disks'):
    _Require(help_flags, flag, 'scylla_setup')
  args = ['--no-raid-setup', '--nic', nic, '--setup-nic-and-disks']
  args += [
      f
      for f in (
          '--no-version-check',
          '--no-ntp-setup',
          '--no-coredump-setup',
          PERF_COLLECTOR_OPTION,
      )
      if f in help_flags
  ]
  if not swap_setup:
    _Require(help_flags, '--no-swap-setup', 'scylla_setup')
    args.append('--no-swap-setup')
  if run_iotune:
    if '--io-setup' in help_flags:
      args += ['--io-setup', '1']
  else:
    _Require(help_flags, '--no-io-setup', 'scylla_setup')
    args.append('--no-io-setup')
  return args


def RaidSetupArgs(help_flags, disks):
  """scylla_raid_setup arguments for one RAID0 over `disks`.

  ScyllaDB's own layout: mdadm RAID0 with a 1 MiB chunk, mkfs.xfs with the
  release's options, mounted at /var/lib/scylla with noatime (and discard)
  by a systemd mount unit, owned by the scylla user. `--enable-on-nextboot`
  is what scylla_setup passes itself. With a single disk scylla_raid_setup
  formats it without an array, as ScyllaDB does.

  Args:
    help_flags: ParseHelpFlags of the node's `scylla_raid_setup --help`.
    disks: device paths.

  Returns:
    list of arguments (unquoted).

  Raises:
    ValueError: no disks, or the release lacks --disks.
  """
  if not disks:
    raise ValueError('no local disks to build the RAID array from')
  _Require(help_flags, '--disks', 'scylla_raid_setup')
  args = ['--disks', ','.join(disks)]
  for flag, value in (
      ('--enable-on-nextboot', None),
      ('--raid-level', '0'),
      ('--online-discard', '1'),
  ):
    if flag in help_flags:
      args += [flag] if value is None else [flag, value]
  return args


def TabletsSetting(version, tablets):
  """The scylla.yaml key and value switching tablets for new keyspaces.

  Args:
    version: installed release tuple, e.g. (2026, 3, 1).
    tablets: whether new keyspaces use tablets.

  Returns:
    (key, value).
  """
  if tuple(version) >= TABLETS_MODE_SINCE:
    return 'tablets_mode_for_new_keyspaces', (
        'enabled' if tablets else 'disabled'
    )
  return 'enable_tablets', bool(tablets)


def ParseYamlExtra(text):
  """--scylla_yaml_extra: a YAML (or JSON) mapping of extra scylla.yaml keys.

  Raises:
    ValueError: not a mapping, a malformed key, or a key the benchmark sets.
  """
  if not text.strip():
    return {}
  if len(text) > YAML_EXTRA_MAX_CHARS:
    raise ValueError(
        f'{len(text)} characters, above {YAML_EXTRA_MAX_CHARS}: give a few'
        ' settings, not a document'
    )
  try:
    # Aliases can expand a short text a million times over (a "billion
    # laughs"); plain settings never need them.
    if any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text)):
      raise ValueError(
          'YAML aliases (*name) are not accepted; write values out'
      )
    extra = yaml.safe_load(text)
  except yaml.YAMLError as e:
    raise ValueError(f'not YAML: {e}') from e
  if not isinstance(extra, dict):
    raise ValueError(f'{text!r} is not a mapping of scylla.yaml keys')
  for key in extra:
    if not isinstance(key, str) or not _YAML_KEY_RE.fullmatch(key):
      raise ValueError(f'{key!r} is not a scylla.yaml key')
    if key in MANAGED_KEYS:
      raise ValueError(f'{key} is set by the benchmark; it cannot be given')
    if key in RESERVED_KEYS:
      raise ValueError(
          f'{key} must stay as ScyllaDB sets it: the benchmark relies on it'
          ' (data directories, ports, addresses, open access); it cannot be'
          ' given'
      )
  try:
    json.dumps(extra)
  except TypeError as e:
    # YAML reads e.g. 2024-01-01 as a date, which scylla.yaml cannot hold.
    raise ValueError(
        f'{text!r}: values must be strings, numbers, booleans, lists or'
        f' mappings ({e}); quote other values'
    ) from e
  return extra


def ScyllaYamlContext(
    packaged_yaml,
    cluster_name,
    seeds,
    listen_address,
    tablets_setting,
    extra,
):
  """Template context for data/scylla_phases/scylla/scylla.yaml.j2.

  Every setting of the release's packaged scylla.yaml is kept (releases set
  non-default values there, e.g. rf_rack_valid_keyspaces), then the extra
  settings, then the benchmark's own keys. Values are JSON text, which YAML
  reads as is.

  Args:
    packaged_yaml: the installed /etc/scylla/scylla.yaml as shipped.
    cluster_name: cluster name.
    seeds: seed addresses.
    listen_address: the node's internal address (also rpc_address).
    tablets_setting: TabletsSetting result.
    extra: ParseYamlExtra result.

  Returns:
    dict for RenderTemplate.
  """
  packaged = yaml.safe_load(packaged_yaml) or {}
  others = {k: v for k, v in packaged.items() if k not in MANAGED_KEYS}
  others.update(extra)
  tablets_key, tablets_value = tablets_setting
  return {
      'cluster_name': json.dumps(cluster_name),
      'seed_provider': json.dumps(SEED_PROVIDER),
      'seeds': json.dumps(','.join(seeds)),
      'listen_address': json.dumps(listen_address),
      'rpc_address': json.dumps(listen_address),
      'endpoint_snitch': json.dumps(SNITCH),
      'tablets_key': tablets_key,
      'tablets_value': json.dumps(tablets_value),
      'other_settings': [(k, json.dumps(v)) for k, v in others.items()],
  }


def RackDcContext():
  """Template context for data/scylla_phases/scylla/cassandra-rackdc.*.j2."""
  return {'dc': DATACENTER, 'rack': RACK}


@dataclasses.dataclass(frozen=True)
class AptKeys:
  """The keys an apt install fetches, and those its keyring must then hold.

  Keys are full fingerprints where known (KEY_FINGERPRINTS), else 64-bit
  ids, upper case. Each imported key is fetched on its own: one that cannot
  be fetched (gone from the key server, missing from the mirror's key file)
  does not stop the others. The install fails only when the keyring lacks
  a required key, whatever the reason.
  """

  imported: tuple[str, ...]
  required: tuple[str, ...]


def _FullKey(key):
  return KEY_FINGERPRINTS.get(key, key).upper()


def SigningKeys(release, fingerprints=()):
  """The keys of a release series' apt repository.

  ScyllaDB's repositories: every current key is imported
  (CURRENT_SIGNING_KEYS), and those the release's docs name are required
  (SIGNING_KEYS). A mirror that signs with its own keys
  (--scylla_repo_key_fingerprints): `fingerprints`, each imported and
  required, and none of ScyllaDB's.

  Raises:
    ValueError: no fingerprints, and the series is not in the table.
  """
  if fingerprints:
    mirror = tuple(f.upper() for f in fingerprints)
    return AptKeys(imported=mirror, required=mirror)
  series = '.'.join(release.split('.')[:2])
  keys = SIGNING_KEYS.get(series) or SIGNING_KEYS.get(
      series.split('.', maxsplit=1)[0]
  )
  if keys is None:
    raise ValueError(f'no signing key known for ScyllaDB {series}')
  return AptKeys(
      imported=tuple(_FullKey(k) for k in CURRENT_SIGNING_KEYS),
      required=tuple(_FullKey(k) for k in keys),
  )


def IsFingerprint(key):
  """Whether `key` is a full (v4, 40 hex digits) fingerprint."""
  return bool(_FINGERPRINT_RE.fullmatch(key))


def ParseKeyServer(url):
  """A key server URL gpg takes, as (scheme, host, port or '').

  Raises:
    ValueError: not a scheme, a host and an optional port, or a port or
      bracketed IPv6 address that is not one.
  """
  match = _KEY_SERVER_RE.fullmatch(url)
  try:
    if not match:
      raise ValueError(url)
    scheme, host, port = match.groups()
    if host.startswith('['):
      ipaddress.IPv6Address(host[1:-1])
    if port and not 0 < int(port) < 65536:
      raise ValueError(port)
  except ValueError as e:
    raise ValueError(
        f'{url!r} is not a key server URL: hkp://, hkps://, http:// or'
        ' https://, a host and an optional port, nothing else (e.g.'
        f' {APT_KEYSERVER})'
    ) from e
  return scheme, host, port or ''


def GpgKeyServer(server):
  """The key server URL gpg --keyserver is given for `server`.

  hkp:// and hkps:// as they are; http:// and https:// (an HKP server on
  a web server's port) as hkp:// and hkps:// on that port.
  """
  scheme, host, port = ParseKeyServer(server)
  gpg_scheme, _, default_port = _KEY_SERVER_SCHEMES[scheme]
  if gpg_scheme == scheme:
    return server
  return f'{gpg_scheme}://{host}:{port or default_port}'


def KeyLookupUrl(server, key):
  """Where curl fetches `key` from `server` when gpg --recv-keys fails.

  The server's HKP lookup (what gpg asks for) over plain HTTP(S), on the
  same host and port: it needs no dirmngr. The default server is asked
  over HTTPS, as a network that blocks its HKP port 80 may allow 443.
  """
  if server == APT_KEYSERVER:
    server = _APT_KEYSERVER_HTTPS
  scheme, host, port = ParseKeyServer(server)
  _, lookup_scheme, default_port = _KEY_SERVER_SCHEMES[scheme]
  port = port or default_port
  address = host if port == _WEB_PORTS[lookup_scheme] else f'{host}:{port}'
  return (
      f'{lookup_scheme}://{address}/pks/lookup?op=get&options=mr&search=0x{key}'
  )


# What ScyllaDB's machine images mask or remove while the image is built
# (scylla-machine-image, packer/scylla_install_image): periodic package
# and housekeeping jobs that would run beside the measured database, snapd
# (the image purges it: it refreshes snaps on its own schedule) and each
# cloud's agent that changes the system on its own (on AWS's Ubuntu images
# the SSM agent is a snap; the image removes its unit too). Masked on the
# run's own machines, servers before scylla_setup and loaders before
# cassandra-stress is installed (operations/quiet_units.py).
QUIET_UNITS = (
    'apt-daily.timer',
    'apt-daily-upgrade.timer',
    'unattended-upgrades.service',
    'dpkg-db-backup.timer',
    'man-db.timer',
    'motd-news.timer',
    'apt-news.service',
    'esm-cache.service',
    'fwupd-refresh.timer',
    'update-notifier-download.timer',
    'update-notifier-motd.timer',
    'fstrim.timer',
    'fstrim.service',
    'etckeeper.timer',
    'etckeeper.service',
    # The socket first: it would start the service again.
    'snapd.socket',
    'snapd.service',
    'snapd.snap-repair.timer',
)
QUIET_CLOUD_UNITS = {
    'GCP': ('google-osconfig-agent.service',),
    'AWS': (
        'amazon-ssm-agent.service',
        'snap.amazon-ssm-agent.amazon-ssm-agent.service',
    ),
    'Azure': ('walinuxagent.service',),
}
# GCE's guest agent sets up NIC queues and their IRQs itself unless told
# not to, which would undo perftune's IRQ placement (ScyllaDB's GCE images
# write the same setting).
GCE_INSTANCE_CONFIGS = '/etc/default/instance_configs.cfg'
GCE_NO_MULTIQUEUE = '[InstanceSetup]\nset_multiqueue = false\n'


def QuietUnits(cloud):
  """The units masked on a run's own machine of `cloud`."""
  return QUIET_UNITS + QUIET_CLOUD_UNITS.get(cloud, ())


def ParseMaskedUnits(text):
  """The units a quiet_units command printed (`masked:` and them), sorted."""
  for line in text.splitlines():
    if line.startswith('masked:'):
      return tuple(sorted(line.split()[1:]))
  raise ValueError(f'no list of masked units in: {text!r}')
