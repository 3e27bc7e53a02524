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

"""The ScyllaDB packages and repository, built and used on this host.

The packages are built once (tests/local/conftest.py `built`), listed with
dpkg-deb, read and verified by apt from the repository served over HTTP by
the local mirror's server, and run from an extracted root: ScyllaDB's
setup scripts on the packaged Python, the stand-in programs, and the server
with its Cassandra node on loopback. What the benchmark reads back is read
with its own parsers.
"""

import json
import os
import pathlib
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
import yaml

from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.software import scylla_config
from perfkit_plugins.engines import scylla as scylla_engine
from perfkit_plugins.local import scylla_build
from perfkit_plugins.testing import cassandra_node
from perfkit_plugins.testing import key_mirror

pytestmark = pytest.mark.live

SCRIPTS = scylla_build.PREFIX + '/scripts'
SCYLLA = scylla_build.PREFIX + '/libexec/scylla'
IOTUNE = scylla_build.PREFIX + '/libexec/iotune'
CQLSH = scylla_build.CQLSH_DIR + '/cqlsh'
NOBODY = 65534

# What `apt-get install scylla` installs, as ScyllaDB's metapackage.
PACKAGES = (
    'scylla',
    'scylla-conf',
    'scylla-cqlsh',
    'scylla-kernel-conf',
    'scylla-python3',
    'scylla-server',
)


def _Contents(deb):
  """dpkg-deb -c: path -> link target ('' for a file or directory)."""
  listing = subprocess.run(
      ['dpkg-deb', '-c', str(deb)], capture_output=True, text=True, check=True
  ).stdout
  contents = {}
  for line in listing.splitlines():
    path = line.split(None, 5)[5]
    name, _, target = path.partition(' -> ')
    contents[name.removeprefix('.').rstrip('/') or '/'] = target
  return contents


def _Deb(built, package):
  (deb,) = [d for d in built.debs if d.name.startswith(f'{package}_')]
  return deb


def _Field(deb, field):
  return subprocess.run(
      ['dpkg-deb', '--field', str(deb), field],
      capture_output=True,
      text=True,
      check=True,
  ).stdout.strip()


def test_every_package_of_the_metapackage_is_built(built):
  names = sorted(d.name.split('_')[0] for d in built.debs)
  assert names == sorted(PACKAGES)
  assert all(scylla_build.DEB_VERSION in d.name for d in built.debs)
  depends = _Field(_Deb(built, 'scylla'), 'Depends')
  for package in ('scylla-server', 'scylla-kernel-conf', 'scylla-cqlsh'):
    assert f'{package} (= {scylla_build.DEB_VERSION})' in depends


def test_scylladbs_scripts_are_where_install_sh_puts_them(built):
  contents = _Contents(_Deb(built, 'scylla-server'))
  source = scylla_build.SourceDir()
  for script in (source / 'dist/common/scripts').iterdir():
    assert f'{SCRIPTS}/{script.name}' in contents
  # Python scripts: the original in libexec/, the wrapper in their place.
  for name in ('scylla_setup', 'scylla_raid_setup', 'perftune.py'):
    assert f'{SCRIPTS}/libexec/{name}' in contents
  assert contents['/usr/sbin/scylla_setup'] == (
      '../../opt/scylladb/scripts/scylla_setup'
  )
  assert contents['/usr/lib/scylla/scylla_util.py'] == (
      '../../../opt/scylladb/scripts/scylla_util.py'
  )
  for name in ('scylla', 'iotune', 'nodetool'):
    assert contents[f'/usr/bin/{name}'] == f'../../opt/scylladb/bin/{name}'
  for path in (
      '/opt/scylladb/libexec/scylla',
      '/opt/scylladb/libexec/iotune',
      f'{SCRIPTS}/scylla_post_install.sh',
      '/etc/default/scylla-server',
      '/etc/scylla.d/io.conf',
      '/etc/systemd/system/scylla-server.service.d/dependencies.conf',
      '/etc/systemd/system/scylla-server.service.d/sysconfdir.conf',
      '/lib/systemd/system/scylla-server.service',
      '/usr/lib/systemd/system/scylla-server.slice',
      '/var/lib/scylla/data',
      '/var/lib/scylla/commitlog',
      '/var/lib/scylla-housekeeping',
      f'{scylla_build.STANDIN_SHARE}/cassandra/bin/cassandra',
      (
          f'{scylla_build.PREFIX}/share/doc/scylla/'
          'LICENSE-ScyllaDB-Source-Available.md'
      ),
  ):
    assert path in contents
  conf = _Contents(_Deb(built, 'scylla-conf'))
  assert '/etc/scylla/scylla.yaml' in conf
  kernel = _Contents(_Deb(built, 'scylla-kernel-conf'))
  assert '/usr/lib/sysctl.d/99-scylla-aio.conf' in kernel
  assert '/opt/scylladb/kernel_conf/libexec/scylla_tune_sched' in kernel
  python3 = _Contents(_Deb(built, 'scylla-python3'))
  assert python3['/opt/scylladb/python3/bin/python3'] == '/usr/bin/python3'
  cqlsh = _Contents(_Deb(built, 'scylla-cqlsh'))
  assert (
      cqlsh['/usr/bin/cqlsh'] == '../../opt/scylladb/share/cassandra/bin/cqlsh'
  )


def test_the_debian_layout_of_the_configuration(built):
  root = built.root
  text = (root / 'etc/scylla/scylla.yaml').read_text()
  assert text.endswith(
      'api_ui_dir: /opt/scylladb/swagger-ui/dist/\n'
      'api_doc_dir: /opt/scylladb/api/api-doc/\n'
  )
  assert (root / f'{SCRIPTS}/scylla_sysconfdir.py'.lstrip('/')).read_text() == (
      'SYSCONFDIR="/etc/default"\n'
  )
  drop_in = root / 'etc/systemd/system/scylla-server.service.d/sysconfdir.conf'
  assert 'EnvironmentFile=/etc/default/scylla-server\n' in drop_in.read_text()


def test_scylladbs_maintainer_scripts_create_the_user(built):
  with tempfile.TemporaryDirectory() as control:
    subprocess.run(
        ['dpkg-deb', '-e', str(_Deb(built, 'scylla-server')), control],
        check=True,
    )
    postinst = pathlib.Path(control, 'postinst').read_text()
    assert 'adduser --system' in postinst
    assert 'chown -R scylla:scylla /var/lib/scylla' in postinst
    assert '#DEBHELPER#\n' not in postinst
    assert os.access(pathlib.Path(control, 'postinst'), os.X_OK)
    conffiles = pathlib.Path(control, 'conffiles').read_text().split()
    assert '/etc/default/scylla-server' in conffiles


@pytest.fixture(name='apt')
def _Apt(built, tmp_path):
  """Runs apt-get on the repository, from the mirror's HTTP server.

  apt's state, cache and sources are under tmp_path (APT_CONFIG, which
  keeps the host's configuration out); the installed set is the host's.
  Returns Run(*args, keyring=<the repository's>) -> CompletedProcess.
  """
  empty = tmp_path / 'empty'
  empty.mkdir()
  for d in ('state/lists/partial', 'cache/archives/partial', 'log'):
    (tmp_path / d).mkdir(parents=True)
  config = tmp_path / 'apt.conf'
  config.write_text(f"""
Dir::State "{tmp_path}/state";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "{tmp_path}/cache";
Dir::Log "{tmp_path}/log";
Dir::Etc::SourceList "{tmp_path}/scylla.list";
Dir::Etc::SourceParts "{empty}";
Dir::Etc::Parts "{empty}";
Dir::Etc::Main "/dev/null";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "{empty}";
Dir::Etc::Trusted "{empty}/none.gpg";
Dir::Etc::TrustedParts "{empty}";
APT::Sandbox::User "root";
APT::Get::List-Cleanup "false";
Debug::NoLocking "true";
Acquire::Languages "none";
""")
  keyring = tmp_path / 'scylladb.gpg'
  subprocess.run(
      [
          'gpg',
          '--dearmor',
          '--output',
          str(keyring),
          str(built.repository.armored_key),
      ],
      check=True,
  )

  with key_mirror.ServedMirror(built.repo_dir) as url:

    def Run(*args, keyring=keyring):
      (tmp_path / 'scylla.list').write_text(
          built.repository.ListFile(url).replace(
              scylla_engine.APT_KEYRING, str(keyring)
          )
      )
      return subprocess.run(
          ['apt-get', '-q', *args],
          capture_output=True,
          text=True,
          env=dict(
              os.environ,
              APT_CONFIG=str(config),
              DEBIAN_FRONTEND='noninteractive',
          ),
          timeout=300,
          check=False,
      )

    yield Run


def test_the_list_file_is_scylladbs(built):
  assert built.repository.ListFile('http://m:1/') == (
      'deb [arch=amd64 signed-by=/etc/apt/keyrings/scylladb.gpg]'
      ' http://m:1/scylladb-2026.3 stable main\n'
  )
  assert len(built.repository.fingerprint) == 40
  keys = subprocess.run(
      [
          'gpg',
          '--show-keys',
          '--with-colons',
          str(built.repository.armored_key),
      ],
      capture_output=True,
      text=True,
      check=True,
  ).stdout
  assert tuning.ParseKeyFingerprints(keys) == (built.repository.fingerprint,)


def test_apt_verifies_the_repository_and_installs_scylla_from_it(apt):
  update = apt('update')
  assert update.returncode == 0, update.stdout + update.stderr
  assert 'W:' not in update.stdout + update.stderr
  simulated = apt('-s', 'install', 'scylla')
  assert simulated.returncode == 0, simulated.stdout + simulated.stderr
  installs = {
      line.split()[1]
      for line in simulated.stdout.splitlines()
      if line.startswith('Inst ')
  }
  assert installs == set(PACKAGES)
  download = apt('install', '--download-only', '-y', 'scylla')
  assert download.returncode == 0, download.stdout + download.stderr


def test_apt_refuses_the_repository_without_its_key(built, apt, tmp_path):
  empty = tmp_path / 'empty.gpg'
  empty.write_bytes(b'')
  update = apt('update', keyring=empty)
  assert update.returncode == 100
  assert f'NO_PUBKEY {built.repository.fingerprint[-16:]}' in update.stdout
  assert 'is not signed' in update.stderr


def test_scylla_version_names_the_release(built):
  version = subprocess.run(
      [*built.Program(SCYLLA), '--version'],
      capture_output=True,
      text=True,
      check=True,
  ).stdout
  assert tuning.ReleaseOfVersion(version) == (2026, 3, 0)


@pytest.mark.parametrize(
    'script, required',
    [
        ('scylla_setup', ('--no-raid-setup', '--nic', '--setup-nic-and-disks')),
        ('scylla_raid_setup', ('--disks', '--raid-level', '--online-discard')),
        ('perftune.py', ('--tune', '--nic', '--get-irq-cpu-mask')),
    ],
)
def test_scylladbs_scripts_run_on_the_packaged_python(built, script, required):
  result = subprocess.run(
      [str(built.root / f'{SCRIPTS}/{script}'.lstrip('/')), '--help'],
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 0, result.stdout + result.stderr
  flags = scylla_config.ParseHelpFlags(result.stdout)
  assert set(required) <= flags
  if script == 'scylla_setup':
    assert scylla_config.ScyllaSetupArgs(flags, 'eth0', run_iotune=True)


def test_iotune_writes_what_scylla_io_setup_expects(built, tmp_path):
  data = tmp_path / 'data'
  data.mkdir()
  result = subprocess.run(
      [
          *built.Program(IOTUNE),
          '--format',
          'envfile',
          '--options-file',
          str(tmp_path / 'io.conf'),
          '--properties-file',
          str(tmp_path / 'io_properties.yaml'),
          '--evaluation-directory',
          str(data),
      ],
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 0, result.stdout + result.stderr
  disk = tuning.ParseIoProperties((tmp_path / 'io_properties.yaml').read_text())
  assert disk['write_iops'] > 0
  assert (
      'SEASTAR_IO="--io-properties-file=' in (tmp_path / 'io.conf').read_text()
  )


def _NodeConfig(directory, **ports):
  """A scylla.yaml of a lone node on loopback, and its rack file."""
  conf = directory / 'conf'
  conf.mkdir(parents=True)
  settings = {
      'cluster_name': 'standin',
      'workdir': str(directory / 'work'),
      'listen_address': '127.0.0.1',
      'rpc_address': '127.0.0.1',
      'api_address': '127.0.0.1',
      'num_tokens': 16,
      'endpoint_snitch': 'GossipingPropertyFileSnitch',
      'seed_provider': [{
          'class_name': 'org.apache.cassandra.locator.SimpleSeedProvider',
          'parameters': [{'seeds': '127.0.0.1'}],
      }],
      **ports,
  }
  (conf / 'scylla.yaml').write_text(yaml.safe_dump(settings))
  (conf / 'cassandra-rackdc.properties').write_text('dc=dc1\nrack=rack1\n')
  return conf


def test_the_server_refuses_directories_it_does_not_own(built):
  if os.geteuid() != 0:
    pytest.skip('runs the server as another user: needs root')
  with tempfile.TemporaryDirectory() as directory:
    directory = pathlib.Path(directory)
    directory.chmod(0o755)
    conf = _NodeConfig(directory, api_port=cassandra_node.FreePort())
    (directory / 'work' / 'commitlog').mkdir(parents=True)
    (directory / 'work').chmod(0o777)
    (directory / 'work' / 'commitlog').chmod(0o777)
    result = subprocess.run(
        [*built.Program(SCYLLA), '--developer-mode', '1'],
        env=dict(os.environ, SCYLLA_CONF=str(conf)),
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
  assert result.returncode == 1
  assert (
      f'File not owned by current euid: {NOBODY}. Owner is: 0' in result.stderr
  )
  assert 'Startup failed' in result.stderr


def _Get(port, path):
  with urllib.request.urlopen(f'http://127.0.0.1:{port}{path}') as response:
    return response.read().decode()


def test_the_server_runs_a_node_behind_scylladbs_interfaces(built, tmp_path):
  ports = {
      'api_port': cassandra_node.FreePort(),
      'native_transport_port': cassandra_node.FreePort(),
      'storage_port': cassandra_node.FreePort(),
  }
  conf = _NodeConfig(tmp_path, **ports)
  notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
  notify.bind(str(tmp_path / 'notify'))
  notify.settimeout(1)
  env = dict(
      os.environ,
      SCYLLA_CONF=str(conf),
      NOTIFY_SOCKET=str(tmp_path / 'notify'),
      SCYLLA_STANDIN_HEAP='512M',
  )
  with open(tmp_path / 'server.log', 'wb') as log:
    # Stopped below, by SIGTERM.
    # pylint: disable-next=consider-using-with
    process = subprocess.Popen(
        [*built.Program(SCYLLA), '--developer-mode=1', '--smp', '1'],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
  try:
    deadline, states = time.monotonic() + 240, []
    while time.monotonic() < deadline and process.poll() is None:
      try:
        states.append(notify.recv(4096).decode())
      except socket.timeout:
        continue
      if 'READY=1' in states[-1]:
        break
    assert any('READY=1' in s for s in states), (
        tmp_path / 'server.log'
    ).read_text()[-5000:]
    api = ports['api_port']
    assert (
        compactions.ParseScyllaRunningCompactions(
            _Get(api, compactions.SCYLLA_COMPACTIONS_PATH)
        )
        == 0
    )
    assert (
        compactions.ParseScyllaPendingTasks(
            _Get(api, compactions.SCYLLA_PENDING_TASKS_PATH)
        )
        == 0
    )
    history = compactions.ParseScyllaCompactionHistory(
        _Get(api, compactions.SCYLLA_HISTORY_PATH)
    )
    assert all(h.keyspace.startswith('system') for h in history)

    def Nodetool(*args):
      return subprocess.run(
          [*built.Program(SCYLLA), 'nodetool', *args],
          capture_output=True,
          text=True,
          timeout=120,
          check=False,
      )

    status = Nodetool('status')
    assert status.returncode == 0, status.stderr
    (node,) = node_status.ParseNodetoolStatus(status.stdout)
    assert (node.address, node.up_normal) == ('127.0.0.1', True)
    assert Nodetool('flush', 'system').returncode == 0
    missing = Nodetool('flush', 'no_such_keyspace')
    assert missing.returncode == 1
    assert 'unknown keyspace: no_such_keyspace' in missing.stderr

    tablets = subprocess.run(
        [
            str(built.root / CQLSH.lstrip('/')),
            '127.0.0.1',
            str(ports['native_transport_port']),
            '-e',
            compactions.SCYLLA_TABLETS_QUERY,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert tablets.returncode == 0, tablets.stderr
    assert compactions.ParseScyllaTabletTransitions(tablets.stdout) == 0

    with socket.socket(socket.AF_UNIX) as maintenance:
      maintenance.connect(str(tmp_path / 'work' / 'cql.m'))
      maintenance.sendall(node_status.CQL_OPTIONS_FRAME)
      assert maintenance.recv(9)[4] == node_status.CQL_SUPPORTED_OPCODE
  finally:
    process.send_signal(signal.SIGTERM)
    exit_status = process.wait(180)
    notify.close()
  assert exit_status == 0
  assert (
      json.loads(
          (
              built.root
              / scylla_build.STANDIN_SHARE.lstrip('/')
              / 'standin.json'
          ).read_text()
      )['version']
      == scylla_build.VERSION
  )
