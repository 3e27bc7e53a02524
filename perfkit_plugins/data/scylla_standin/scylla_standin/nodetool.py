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

"""`scylla nodetool`: ScyllaDB's native nodetool for `status` and `flush`.

Parsed as ScyllaDB's nodetool parses (tools/scylla-nodetool.cc:3883-3900
global options, 4324-4342 flush, 4914-4930 status; tools/utils.cc:73-135
the operation), and run by the Cassandra node's own nodetool over JMX on
loopback: `nodetool status` prints the layout both databases share. Its
failures read as ScyllaDB's nodetool reports them (scylla-nodetool.cc
:1253, 5536-5556): an unknown keyspace is an argument error (exit status
1), a node that cannot be reached an unspecified error (2). Other
operations are refused as unknown ones (tools/utils.cc:134, exit 100).
"""

import re
import subprocess
import sys

from scylla_standin import package
from scylla_standin import program_options as po

APP_NAME = 'nodetool'
EXIT_ARGUMENTS = 1
EXIT_UNSPECIFIED = 2
EXIT_UNKNOWN_OPERATION = 100
# Hosts that are this machine: the Cassandra node's JMX listens on loopback.
LOCAL_HOSTS = ('localhost', '127.0.0.1', '::1')
GLOBAL_OPTIONS = (
    po.Option('host', short='h'),
    po.Option('port', short='p', convert=po.UnsignedInt),
    po.Option('rest-api-port', convert=po.UnsignedInt),
    po.Option('password'),
    po.Option('password-file'),
    po.Option('username', short='u'),
    po.Switch('print-port'),
    po.Switch('help'),
)
# Single-dash long options ScyllaDB's nodetool rewrites (scylla-nodetool.cc
# option_substitutions) before parsing.
SUBSTITUTIONS = {
    '-Dcom.scylladb.apiPort': '--rest-api-port',
    '-pw': '--password',
    '-pwf': '--password-file',
    '-pp': '--print-port',
}
# Operation -> (its options, how many positional arguments it takes).
OPERATIONS = {
    'flush': ((), sys.maxsize),
    'status': ((po.Switch('resolve-ip', 'r'),), 2),
}
_UNKNOWN_KEYSPACE_RE = re.compile(
    r'Keyspace \[(?P<a>[^\]]+)\] does not exist|The keyspace (?P<b>\S+?),'
    r' does not exist'
)
_NO_CONNECTION = 'Failed to connect to'


def CassandraNodetool(settings, args, environ=None, timeout_s=300):
  """Runs the Cassandra install's nodetool: (exit status, stdout, stderr).

  Times print in UTC (TZ=UTC), as the REST API's parsers expect.
  """
  env = package.ChildEnvironment(environ)
  env['TZ'] = 'UTC'
  result = subprocess.run(
      [str(settings.cassandra_home / 'bin' / 'nodetool'), *args],
      capture_output=True,
      text=True,
      env=env,
      timeout=timeout_s,
      check=False,
  )
  return result.returncode, result.stdout, result.stderr


def _Fail(status, message):
  print(message, file=sys.stderr)
  return status


def Main(args, settings, program='scylla'):
  """Runs `scylla nodetool <args>`; returns the exit status."""
  if not args:
    return _Fail(
        EXIT_UNSPECIFIED,
        f'Usage: {program} {APP_NAME} OPERATION [OPTIONS] ...\n'
        f'Try `{program} {APP_NAME} --help` for more information.',
    )
  args = [SUBSTITUTIONS.get(a, a) for a in args]
  # The operation is the first positional argument of a parse that lets
  # every other option through (tools/utils.cc:73-98).
  try:
    first = po.Parse(
        args,
        GLOBAL_OPTIONS,
        max_positional=sys.maxsize,
        allow_unregistered=True,
    )
  except po.Error as e:
    # Printed on stdout (tools/utils.cc:82).
    print(e.Report())
    return e.exit_status
  operation = first.positional[0] if first.positional else None
  if operation is None:
    if first.Get('help'):
      print(f'{program} {APP_NAME} (stand-in): {", ".join(OPERATIONS)}')
      return 0
    return _Fail(EXIT_ARGUMENTS, 'error: missing mandatory operation argument')
  if operation not in OPERATIONS:
    return _Fail(
        EXIT_UNKNOWN_OPERATION,
        'error: unrecognized operation argument: expected one of'
        f' ({", ".join(OPERATIONS)}), got {operation}',
    )
  args.remove(operation)
  own_options, max_positional = OPERATIONS[operation]
  try:
    parsed = po.Parse(
        args,
        GLOBAL_OPTIONS + own_options,
        max_positional=max_positional,
    )
  except po.Error as e:
    # Printed on stdout (tools/utils.cc:82).
    print(e.Report())
    return e.exit_status
  host = parsed.Get('host', 'localhost')
  if host not in LOCAL_HOSTS:
    return _Fail(
        EXIT_UNSPECIFIED,
        'error running operation: the stand-in reaches only this machine'
        f' (--host {host})',
    )
  if operation == 'status':
    command = ['status'] + (['-r'] if parsed.Get('resolve-ip') else [])
    # Cassandra's status takes the keyspace, not the table.
    command += parsed.positional[:1]
  else:
    command = ['flush', *parsed.positional]
  try:
    status, out, err = CassandraNodetool(settings, command)
  except package.StandinError as e:
    return _Fail(EXIT_UNSPECIFIED, f'error running operation: {e}')
  if status == 0:
    sys.stdout.write(out)
    return 0
  return _Fail(*_Translate(out + err))


def _Translate(output):
  """(exit status, message) of ScyllaDB's nodetool for a Cassandra failure."""
  keyspace = _UNKNOWN_KEYSPACE_RE.search(output)
  if keyspace:
    name = keyspace.group('a') or keyspace.group('b')
    return (
        EXIT_ARGUMENTS,
        f'error processing arguments: unknown keyspace: {name}',
    )
  if _NO_CONNECTION in output:
    return (
        EXIT_UNSPECIFIED,
        (
            'error running operation: std::system_error (error system:111,'
            ' Connection refused)'
        ),
    )
  return EXIT_UNSPECIFIED, f'error running operation: {output.strip()}'
