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

"""`cqlsh` (scylla-cqlsh): the tablet query the benchmark asks, answered.

The benchmark runs `cqlsh <host> -e '<SELECT ... FROM system.tablets>'`
(compactions.SCYLLA_TABLETS_QUERY) to see tablets move. The Cassandra node
behind the stand-in server has no tablets: the answer is an empty result,
printed as cqlsh prints one without a terminal (scylla-cqlsh bin/cqlsh.py
print_result and print_formatted_result, :1207-1293: a blank line, the
header and its rule, two blank lines, `(0 rows)`) once the node at
host:port answers CQL (else `Connection error: ...`, exit status 1,
:2858-2859). Any other statement, or none (the interactive shell), is
refused: this is no CQL shell. Options are cqlsh's (optparse, :197-252).
"""

import optparse
import os
import re
import sys

from scylla_standin import cql

from perfkit_plugins.core.quiesce import compactions

DEFAULT_PORT = 9042
EXIT_REFUSED = 2
_QUERY_COLUMNS_RE = re.compile(r'^select\s+(.+?)\s+from\s+', re.I)


def _Parser():
  """cqlsh's options (bin/cqlsh.py:197-252), the statement's among them."""
  parser = optparse.OptionParser(
      description='CQL Shell (perfkit-plugins stand-in)',
      usage='Usage: %prog [options] [host [port]]',
  )
  for flags, kwargs in (
      (('-C', '--color'), {'action': 'store_true', 'dest': 'color'}),
      (('--no-color',), {'action': 'store_false', 'dest': 'color'}),
      (('--browser',), {}),
      (('--ssl',), {'action': 'store_true'}),
      (('--no-compression',), {'action': 'store_true'}),
      (('--client-route',), {'action': 'append', 'dest': 'client_routes'}),
      (('--client-routes-advanced-shard-awareness',), {'action': 'store_true'}),
      (
          ('--no-client-routes-advanced-shard-awareness',),
          {'action': 'store_false'},
      ),
      (('-u', '--username'), {}),
      (('-p', '--password'), {}),
      (('-k', '--keyspace'), {}),
      (('-f', '--file'), {}),
      (('--debug',), {'action': 'store_true'}),
      (('--driver-debug',), {'action': 'store_true'}),
      (('--coverage',), {'action': 'store_true'}),
      (('--encoding',), {}),
      (('--cqlshrc',), {}),
      (('--credentials',), {}),
      (('--cqlversion',), {}),
      (('--protocol-version',), {'type': 'int'}),
      (('-e', '--execute'), {}),
      (('--connect-timeout',), {'type': 'float', 'default': 5}),
      (('--request-timeout',), {'type': 'float', 'default': 10}),
      (('-t', '--tty'), {'action': 'store_true'}),
      (('--insecure-password-without-warning',), {'action': 'store_true'}),
  ):
    parser.add_option(*flags, **kwargs)
  return parser


def Normalized(statement):
  """A statement's words, lower case, without a closing `;`."""
  return ' '.join(statement.strip().rstrip(';').split()).lower()


def EmptyResult(columns, tty=False):
  """cqlsh's output of a SELECT that returned no row."""
  header = ' | '.join(columns)
  rule = '-' + '-+-'.join('-' * len(c) for c in columns) + '-'
  lines = ['', ' ' + header.rstrip(), rule, '']
  if not tty:
    lines.append('')
  lines.append('(0 rows)')
  return '\n'.join(lines) + '\n'


def Main(argv):
  """`cqlsh [options] [host [port]]`; returns the exit status."""
  parser = _Parser()
  parser.prog = os.path.basename(argv[0])
  options, hosts = parser.parse_args(argv[1:])
  if len(hosts) > 2:
    parser.error('Too many arguments')
  host = hosts[0] if hosts else os.environ.get('CQLSH_HOST', '127.0.0.1')
  port = (
      int(hosts[1])
      if len(hosts) > 1
      else int(os.environ.get('CQLSH_PORT', DEFAULT_PORT))
  )
  query = compactions.SCYLLA_TABLETS_QUERY
  if options.execute is None or Normalized(options.execute) != Normalized(
      query
  ):
    print(
        f'{parser.prog}: the perfkit-plugins stand-in answers only'
        f' -e "{query}"',
        file=sys.stderr,
    )
    return EXIT_REFUSED
  if not cql.ServesCql(host, port, options.connect_timeout):
    sys.exit(
        "Connection error: ('Unable to connect to any servers',"
        f" {{'{host}:{port}': ConnectionRefusedError(111, \"Tried connecting"
        f" to [('{host}', {port})]. Last error: Connection refused\")}})"
    )
  columns = [
      c.strip() for c in _QUERY_COLUMNS_RE.match(query).group(1).split(',')
  ]
  sys.stdout.write(EmptyResult(columns, tty=options.tty or sys.stdin.isatty()))
  return 0
