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

"""The ScyllaDB stand-in programs' parts, run here without packages.

Their answers are read with the benchmark's own parsers (tuning,
compactions, node_status), and the nodetool outputs they convert are real
Cassandra 5.0 captures (tests/testdata/lab).
"""

import json
import os
import pathlib
import socket
import threading

import pytest
import yaml

from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.local import scylla_build

# pylint: disable=g-bad-import-order,wrong-import-order
# (on sys.path from tests/local/conftest.py, as the packages install them)
from scylla_standin import cassandra
from scylla_standin import cqlsh
from scylla_standin import iotune
from scylla_standin import nodetool
from scylla_standin import package
from scylla_standin import perftune
from scylla_standin import program_options as po
from scylla_standin import rest_api
from scylla_standin import scylla
from scylla_standin import server

SETTINGS = package.Settings(
    version=scylla_build.VERSION,
    release=scylla_build.RELEASE,
    cassandra_version='5.0.9',
    heap='768M',
    config_options=('workdir', 'developer_mode', 'api_port', 'seeds'),
)


@pytest.fixture(name='log')
def _Log():
  return package.Logger('test')


# scylla: tools, pre-parse, options.


def test_version_reads_as_the_release_the_packages_stand_in_for(capsys):
  assert scylla.Main(['scylla', '--version'], SETTINGS) == 0
  printed = capsys.readouterr().out
  assert printed == '2026.3.0~rc3-0.20260817.a6e1be00632f\n'
  assert tuning.ReleaseOfVersion(printed) == (2026, 3, 0)


def test_version_answers_whatever_else_is_given(capsys):
  assert scylla.Main(['scylla', '--smp', '2', '--version'], SETTINGS) == 0
  assert capsys.readouterr().out.startswith('2026.3.0~rc3-')


def test_an_unknown_first_argument_is_refused(capsys):
  assert scylla.Main(['scylla', 'serve'], SETTINGS) == 1
  assert 'unrecognized first argument' in capsys.readouterr().out


def test_a_scylladb_tool_the_stand_in_lacks_is_named(capsys):
  assert scylla.Main(['scylla', 'sstable', 'dump'], SETTINGS) == 1
  assert 'no sstable tool' in capsys.readouterr().err


@pytest.mark.parametrize(
    'args, message',
    [
        (['--bogus'], "unrecognised option '--bogus'"),
        (['--smp'], "the required argument for option '--smp' is missing"),
        (
            ['--smp', 'two'],
            "the argument ('two') for option '--smp' is invalid",
        ),
        (['--smp', '1', '--smp', '2'], "option '--smp' cannot be specified"),
        (['--overprovisioned=1'], "option '--overprovisioned' does not take"),
        (
            ['--lock-memory=maybe'],
            "the argument ('maybe') for option '--lock-memory' is invalid.",
        ),
        (['extra'], 'too many positional options'),
        # seastar replaced these options with --io-properties-file.
        (['--max-io-requests=1'], "unrecognised option '--max-io-requests'"),
    ],
)
def test_the_server_refuses_as_boost_does(args, message, capsys):
  assert scylla.RunServer('scylla', args, SETTINGS) == 2
  out = capsys.readouterr().out
  assert out.startswith(f'error: {message}') and out.endswith('Try --help.\n')


def test_every_option_the_setup_files_write_is_taken():
  # dist/common/sysconfig/scylla-server, scylla.d/*.conf as scylla_setup's
  # scripts write them, iotune's io.conf, the non-root install's workdir.
  args = (
      '--log-to-syslog 1 --log-to-stdout 0 --default-log-level info'
      ' --network-stack posix --io-properties-file=/etc/scylla.d/io.yaml'
      ' --developer-mode=1 --cpuset 1-3 --smp 3 --lock-memory=1'
      ' --memory=4G --reserve-memory=1G --workdir /var/lib/scylla'
      ' --options-file /etc/scylla/scylla.yaml -W /w'
  ).split()
  parsed = po.Parse(args[:-2], scylla.ServerOptions(SETTINGS))
  assert parsed.values['smp'] == 3
  assert parsed.values['lock-memory'] is True
  assert parsed.values['developer-mode'] is True
  assert po.Parse(args[-2:], scylla.ServerOptions(SETTINGS)).values == {
      'workdir': '/w'
  }


def test_a_unique_prefix_names_its_option():
  assert po.Parse(['--overprov'], po.SEASTAR_OPTIONS).values == {
      'overprovisioned': True
  }


def test_a_cpuset_seastar_cannot_parse_aborts_start_up(capsys):
  assert scylla.RunServer('scylla', ['--cpuset', '3-1'], SETTINGS) == 7
  assert 'failed to parse cpuset: 3-1' in capsys.readouterr().err


def test_a_cpuset_beyond_the_allowed_cpus_is_refused(capsys):
  cpu = max(os.sched_getaffinity(0)) + 1
  assert scylla.RunServer('scylla', ['--cpuset', str(cpu)], SETTINGS) == 1
  assert f'Bad value for --cpuset: {cpu} not allowed' in capsys.readouterr().err


def test_cpusets_read_as_seastar_reads_them():
  assert server.ParseCpuset('0,2-4') == {0, 2, 3, 4}
  assert server.ParseCpuset('1-') is None


# server: configuration, directories, checks.


def test_config_file_comes_from_the_conf_dir_as_scylladbs():
  assert server.ConfigPath(None, {'SCYLLA_CONF': '/c'}) == pathlib.Path(
      '/c/scylla.yaml'
  )
  assert server.ConfigPath(None, {'SCYLLA_HOME': '/h'}) == pathlib.Path(
      '/h/conf/scylla.yaml'
  )
  assert server.ConfigPath('/o.yaml', {'SCYLLA_CONF': '/c'}) == pathlib.Path(
      '/o.yaml'
  )


def test_the_command_line_overrides_scylla_yaml():
  cfg = server.Configuration(
      {'workdir': '/a', 'api_port': 1},
      {'workdir': '/b', 'api-port': 2, 'smp': 3},
      ('workdir', 'api_port'),
  )
  assert cfg == {'workdir': '/b', 'api_port': 2}


def test_directories_default_under_the_workdir():
  dirs = server.SetupDirectories({'workdir': '/w', 'commitlog_directory': '/c'})
  assert dirs == server.Directories(
      workdir='/w',
      data=('/w/data',),
      commitlog='/c',
      schema_commitlog='/c/schema',
      hints='/w/hints',
      view_hints='/w/view_hints',
      saved_caches='/w/saved_caches',
  )


def test_a_directory_another_user_owns_stops_start_up(tmp_path, log):
  data = tmp_path / 'data'
  data.mkdir()
  other = os.stat(data).st_uid + 1
  with pytest.raises(server.StartupFailure, match='not owned by current euid'):
    server.VerifyOwnerAndMode(str(data), True, log, euid=other)
  # Root is let through, as under docker (utils/directories.cc:122-128).
  server.VerifyOwnerAndMode(str(data), True, log, euid=0)


def test_data_directory_contents_are_verified_too(tmp_path, log):
  (tmp_path / 'ks').mkdir()
  os.mkfifo(tmp_path / 'ks' / 'pipe')
  with pytest.raises(server.StartupFailure, match='regular file or a dir'):
    server.VerifyOwnerAndMode(str(tmp_path), True, log)


def test_directories_are_created_and_locked_once(tmp_path, log):
  first, second = server.DirectoryLocks(log), server.DirectoryLocks(log)
  first.CreateAndVerify([str(tmp_path / 'commitlog')])
  assert (tmp_path / 'commitlog' / '.lock').exists()
  try:
    other_process = os.fork()
    if other_process == 0:
      try:
        second.CreateAndVerify([str(tmp_path / 'commitlog')])
      except server.StartupFailure:
        os._exit(1)  # pylint: disable=protected-access
      os._exit(0)  # pylint: disable=protected-access
    _, status = os.waitpid(other_process, 0)
    assert os.waitstatus_to_exitcode(status) == 1
  finally:
    first.Release()


def test_without_io_properties_only_developer_mode_starts(log):
  with pytest.raises(server.StartupFailure, match='I/O Scheduler'):
    server.VerifyIoScheduler({}, False, log)
  server.VerifyIoScheduler({}, True, log)


def test_io_properties_file_is_read(tmp_path, log):
  path = tmp_path / 'io.yaml'
  path.write_text(iotune.PropertiesYaml([iotune.Disk('/', 1, 2, 3, 4)]))
  server.VerifyIoScheduler({'io-properties-file': str(path)}, False, log)
  path.write_text('{}\n')
  with pytest.raises(server.StartupFailure, match='no disks'):
    server.VerifyIoScheduler({'io-properties-file': str(path)}, False, log)


def test_readiness_reaches_systemd_as_a_datagram(tmp_path, log):
  address = str(tmp_path / 'notify')
  with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
    s.bind(address)
    server.Notify(
        'serving', log, ready=True, environ={'NOTIFY_SOCKET': address}
    )
    assert s.recv(100) == b'READY=1\nSTATUS=serving\n'


def test_the_maintenance_socket_passes_connections_on(tmp_path):
  with socket.create_server(('127.0.0.1', 0)) as target:
    maintenance = server.MaintenanceSocket(
        tmp_path / 'cql.m', target.getsockname()
    )
    assert oct(os.stat(tmp_path / 'cql.m').st_mode & 0o777) == '0o660'
    maintenance.Start()
    try:
      with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(tmp_path / 'cql.m'))
        accepted, _ = target.accept()
        with accepted:
          client.sendall(b'ping')
          assert accepted.recv(4) == b'ping'
          accepted.sendall(b'pong')
          assert client.recv(4) == b'pong'
    finally:
      maintenance.Stop()
  assert not (tmp_path / 'cql.m').exists()


def test_something_else_at_the_maintenance_socket_stops_start_up(tmp_path):
  (tmp_path / 'cql.m').touch()
  with pytest.raises(server.StartupFailure, match='there is something else'):
    server.MaintenanceSocket(tmp_path / 'cql.m', ('127.0.0.1', 9))


# The Cassandra node behind.


def _Dirs():
  return server.SetupDirectories({'workdir': '/w'})


def test_the_node_takes_the_cluster_from_scylla_yaml():
  cfg = yaml.safe_load("""
cluster_name: c1
num_tokens: 256
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: 10.0.0.1,10.0.0.2
listen_address: 10.0.0.3
rpc_address: 10.0.0.3
endpoint_snitch: GossipingPropertyFileSnitch
commitlog_sync_period_in_ms: 10000
read_request_timeout_in_ms: 5000
batch_size_fail_threshold_in_kb: 1024
tablets_mode_for_new_keyspaces: enabled
""")
  out = cassandra.CassandraYaml(cfg, _Dirs())
  assert out['cluster_name'] == 'c1'
  assert out['num_tokens'] == 256
  assert out['seed_provider'][0]['parameters'] == [
      {'seeds': '10.0.0.1,10.0.0.2'}
  ]
  assert out['endpoint_snitch'] == 'GossipingPropertyFileSnitch'
  assert out['commitlog_sync'] == 'periodic'
  assert out['commitlog_sync_period'] == '10000ms'
  assert out['read_request_timeout'] == '5000ms'
  assert out['batch_size_fail_threshold'] == '1024KiB'
  assert out['compaction_throughput'] == '0MiB/s'
  assert out['data_file_directories'] == ['/w/data/cassandra']
  assert out['commitlog_directory'] == '/w/commitlog/cassandra'
  assert 'tablets_mode_for_new_keyspaces' not in out


def test_scylladbs_defaults_reach_the_node():
  out = cassandra.CassandraYaml({}, _Dirs())
  assert out['cluster_name'] == 'Test Cluster'
  assert out['seed_provider'][0]['parameters'] == [{'seeds': '127.0.0.1'}]
  assert out['listen_address'] == out['rpc_address'] == 'localhost'
  assert out['num_tokens'] == 1


def test_a_snitch_the_node_lacks_is_refused():
  with pytest.raises(cassandra.ConfigError, match='Ec2Snitch'):
    cassandra.CassandraYaml({'endpoint_snitch': 'Ec2Snitch'}, _Dirs())


def test_the_rack_file_needs_dc_and_rack():
  cassandra.CheckRackDc('dc=d1\nrack=r1\n', 'f')
  with pytest.raises(cassandra.ConfigError, match='Halting'):
    cassandra.CheckRackDc('# dc=d1\nrack=r1\n', 'f')


def test_the_node_home_appends_the_heap(tmp_path):
  install = tmp_path / 'install'
  (install / 'conf').mkdir(parents=True)
  (install / 'conf' / 'jvm-server.options').write_text('-Xss256k\n')
  (install / 'conf' / 'jvm17-server.options').write_text('-XX:+UseG1GC\n')
  node = cassandra.Node(install, tmp_path / 'work')
  node.Write({'cluster_name': 'c'}, 'dc=d\nrack=r\n', '512M', ('-Dx=1',))
  conf = node.home / 'conf'
  assert (conf / 'jvm-server.options').read_text().splitlines() == [
      '-Xss256k',
      '-Xms512M',
      '-Xmx512M',
      '-Dx=1',
  ]
  assert yaml.safe_load((conf / 'cassandra.yaml').read_text()) == {
      'cluster_name': 'c'
  }
  assert (node.home / 'bin' / 'cassandra').readlink() == (
      install / 'bin' / 'cassandra'
  )


def test_java_17_is_found_in_the_jvm_directory(tmp_path):
  for name, version in (('jdk-25', '25.0.1'), ('jdk-17', '17.0.15')):
    (tmp_path / name / 'bin').mkdir(parents=True)
    (tmp_path / name / 'bin' / 'java').touch()
    (tmp_path / name / 'release').write_text(f'JAVA_VERSION="{version}"\n')
  home = package.JavaHome({'PATH': ''}, jvm_root=tmp_path)
  assert home == tmp_path / 'jdk-17'


# REST API answers from Cassandra 5.0's nodetool.


def test_running_and_pending_compactions_of_a_busy_node(lab):
  running, pending = rest_api.ParseCompactionStats(
      lab('nt-busy1-compactionstats.txt')
  )
  assert running == [{
      'id': 'f9583bd0-e5fa-11f1-8727-9180dc88d892',
      'ks': 'keyspace1',
      'cf': 'standard1',
      'unit': 'bytes',
      'completed': 53249140,
      'total': 86496856,
      'task_type': 'COMPACTION',
  }]
  assert pending == [{'ks': 'keyspace1', 'cf': 'standard1', 'task': 1}]
  status = compactions.CompactionStatus(
      running=compactions.ParseScyllaRunningCompactions(json.dumps(running)),
      pending=compactions.ParseScyllaPendingTasks(json.dumps(pending)),
  )
  assert status == compactions.ParseCompactionStats(
      lab('nt-busy1-compactionstats.txt')
  )


def test_an_idle_node_has_nothing_running_or_pending(lab):
  assert rest_api.ParseCompactionStats(lab('nt-idle-compactionstats.txt')) == (
      [],
      [],
  )


def test_history_reads_as_nodetools(lab):
  text = lab('nt-busy1-compactionhistory.txt')
  history = rest_api.ParseCompactionHistory(text)
  assert history[0]['id'] == 'e23c3fa0-e5fa-11f1-8727-9180dc88d892'
  assert compactions.ParseScyllaCompactionHistory(
      json.dumps(history)
  ) == compactions.ParseCompactionHistory(text)


def test_the_rest_api_answers_scylladbs_paths_only():
  calls = []

  def Nodetool(*args):
    calls.append(args)
    return 'pending tasks   0\ncompactions completed   0\n'

  api = rest_api.RestApi('127.0.0.1', 0, Nodetool)
  api.Start()
  port = api.server.server_address[1]
  try:
    for path, status, body in (
        (rest_api.COMPACTIONS_PATH, 200, []),
        (rest_api.PENDING_PATH, 200, []),
        (
            '/storage_service/host_id',
            404,
            {'message': 'Not found', 'code': 404},
        ),
    ):
      with socket.create_connection(('127.0.0.1', port)) as s:
        s.sendall(f'GET {path} HTTP/1.0\r\n\r\n'.encode())
        response = b''
        while chunk := s.recv(4096):
          response += chunk
      head, _, payload = response.decode().partition('\r\n\r\n')
      assert head.split()[1] == str(status)
      assert json.loads(payload) == body
  finally:
    api.Stop()
  assert calls == [('compactionstats',), ('compactionstats',)]


# nodetool, iotune, cqlsh.


def test_nodetool_refuses_what_it_does_not_do(capsys):
  assert nodetool.Main(['repair'], SETTINGS) == 100
  assert (
      'expected one of (flush, status), got repair' in capsys.readouterr().err
  )
  assert nodetool.Main([], SETTINGS) == 2
  assert nodetool.Main(['-p'], SETTINGS) == 2


def test_nodetool_failures_read_as_scylladbs():
  assert nodetool._Translate(  # pylint: disable=protected-access
      'nodetool: Keyspace [ks9] does not exist.\n'
  ) == (1, 'error processing arguments: unknown keyspace: ks9')
  status, message = nodetool._Translate(  # pylint: disable=protected-access
      "nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException"
  )
  assert status == 2 and 'Connection refused' in message


def test_iotune_as_scylla_io_setup_runs_it(tmp_path, capsys):
  (tmp_path / 'data').mkdir()
  (tmp_path / 'commitlog').mkdir()
  etc = tmp_path / 'scylla.d'
  etc.mkdir()
  status = iotune.Main([
      'iotune',
      '--format',
      'envfile',
      '--options-file',
      str(etc / 'io.conf'),
      '--properties-file',
      str(etc / 'io_properties.yaml'),
      '--evaluation-directory',
      str(tmp_path / 'data'),
      '--evaluation-directory',
      str(tmp_path / 'commitlog'),
      '--duration',
      '1',
  ])
  assert status == 0, capsys.readouterr()
  disk = tuning.ParseIoProperties((etc / 'io_properties.yaml').read_text())
  assert disk['mountpoint'] == iotune.MountpointOf(str(tmp_path))
  assert all(disk[k] > 0 for k in ('read_iops', 'write_bandwidth'))
  assert (etc / 'io.conf').read_text() == (
      f'SEASTAR_IO="--io-properties-file={etc}/io_properties.yaml"\n'
  )
  assert not list((tmp_path / 'data').iterdir())


def test_iotune_needs_an_evaluation_directory(capsys):
  assert iotune.Main(['iotune']) == 1
  assert 'is required but missing' in capsys.readouterr().out


def test_cqlsh_answers_the_tablets_query_with_no_tablets(capsys):
  with socket.create_server(('127.0.0.1', 0)) as fake:
    port = fake.getsockname()[1]

    def Answer():
      connection, _ = fake.accept()
      with connection:
        connection.recv(9)
        connection.sendall(bytes([0x84, 0, 0, 0, 0x06, 0, 0, 0, 0]))

    thread = threading.Thread(target=Answer)
    thread.start()
    status = cqlsh.Main([
        'cqlsh',
        '127.0.0.1',
        str(port),
        '-e',
        compactions.SCYLLA_TABLETS_QUERY,
    ])
    thread.join()
  assert status == 0
  out = capsys.readouterr().out
  assert compactions.ParseScyllaTabletTransitions(out) == 0
  assert out.endswith('\n\n(0 rows)\n')


def test_cqlsh_runs_no_other_statement(capsys):
  assert cqlsh.Main(['cqlsh', '-e', 'SELECT * FROM system.local']) == 2
  assert 'answers only' in capsys.readouterr().err


def test_cqlsh_without_a_node_is_a_connection_error():
  with socket.create_server(('127.0.0.1', 0)) as closed:
    port = closed.getsockname()[1]
  with pytest.raises(SystemExit, match='Connection error'):
    cqlsh.Main([
        'cqlsh',
        '127.0.0.1',
        str(port),
        '-e',
        compactions.SCYLLA_TABLETS_QUERY,
    ])


# ScyllaDB's calls (scylla_util.py:259-261, scylla_sysconfig_setup:72).
_SYSCONFIG_CALL = [
    '--tune',
    'disks',
    '--dir',
    '/var/lib/scylla/data',
    '--dir',
    '/var/lib/scylla/commitlog',
    '--tune',
    'net',
    '--nic',
    'eth0',
    '--get-cpu-mask',
]
_NET_QUERY = ['--tune', 'net', '--nic', 'eth0', '--get-cpu-mask']


def test_perftune_leaves_out_only_the_disk_tuning_of_loop_devices():
  args, left_out, dumped = perftune.Filtered(
      _SYSCONFIG_CALL, loop=lambda _: True, tunable=lambda _: True
  )
  assert args == _NET_QUERY and not dumped
  assert left_out == {
      'disks': ['/var/lib/scylla/data', '/var/lib/scylla/commitlog']
  }
  assert perftune.Filtered(
      _SYSCONFIG_CALL, loop=lambda _: False, tunable=lambda _: True
  ) == (_SYSCONFIG_CALL, {}, ())
  # perftune.py skips a directory that does not exist; so does the filter.
  args, _, _ = perftune.Filtered(
      _SYSCONFIG_CALL,
      loop=lambda p: None if 'commitlog' in p else True,
      tunable=lambda _: True,
  )
  assert args == _NET_QUERY


def test_perftune_queries_on_a_veth_ask_the_system_tuner():
  args, left_out, dumped = perftune.Filtered(
      _SYSCONFIG_CALL, loop=lambda _: True, tunable=lambda _: False
  )
  assert args == ['--nic', 'eth0', '--get-cpu-mask', '--tune', 'system']
  assert set(left_out) == {'disks', 'net'}
  assert dumped == ('disks', 'net')
  tuning = [a for a in _SYSCONFIG_CALL if a != '--get-cpu-mask']
  assert (
      perftune.Filtered(tuning, loop=lambda _: True, tunable=lambda _: False)[0]
      is None
  )


def test_perftune_options_file_of_loop_devices_tunes_the_nic(tmp_path):
  options = tmp_path / 'perftune.yaml'
  options.write_text(
      yaml.safe_dump({
          'tune': ['net', 'disks'],
          'nic': ['eth0'],
          'dir': ['/var/lib/scylla/data'],
          'irq_cpu_mask': '0x1',
      })
  )
  args, left_out, _ = perftune.Filtered(
      ['--options-file', str(options)],
      loop=lambda _: True,
      tunable=lambda _: True,
  )
  assert left_out == {'disks': ['/var/lib/scylla/data']}
  written = yaml.safe_load(pathlib.Path(args[1]).read_text())
  os.unlink(args[1])
  assert written == {'tune': ['net'], 'nic': ['eth0'], 'irq_cpu_mask': '0x1'}
  assert (
      perftune.Filtered(
          ['--options-file', str(options)],
          loop=lambda _: True,
          tunable=lambda _: False,
      )[0]
      is None
  )
