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

"""The `scylla` executable: its tools, its pre-parse, the server's options.

As ScyllaDB's main() (main.cc:2878-2948): the first argument names a tool
(`server`, the default when it is missing or an option, or `nodetool`);
then `--version`, `--build-id`, `--build-mode` and `--list-tools` answer
and exit whatever else is given. The server's command line is then parsed
as seastar's app_template parses it (program_options), with ScyllaDB's own
options (main.cc:789-800) and every scylla.yaml key the packaged file
names as a `--key-with-dashes` option (configurable::append_all and
config_file::add_options, utils/config_file.cc:262-271).
"""

import os
import sys

from scylla_standin import nodetool
from scylla_standin import package
from scylla_standin import program_options as po
from scylla_standin import server

TOOLS = {
    'server': 'the scylladb server',
    'nodetool': (
        'a command-line tool to administer local or remote ScyllaDB nodes'
    ),
}
# ScyllaDB's other tools (main.cc:2884-2898), which the stand-in has not.
ABSENT_TOOLS = (
    'types',
    'sstable',
    'local-file-key-generator',
    'perf-fast-forward',
    'perf-row-cache-update',
    'perf-tablets',
    'perf-load-balancing',
    'perf-simple-query',
    'perf-sstable',
    'perf-compaction-efficiency',
    'perf-alternator',
    'perf-cql-raw',
)
BUILD_MODE = 'release'
APP_OPTIONS = (
    po.Switch('version', help_text='print version number and exit'),
    po.Switch('build-id', help_text='print build-id and exit'),
    po.Switch('build-mode', help_text='print build mode and exit'),
    po.Switch('list-tools', help_text='list included tools and exit'),
    po.Option(
        'options-file',
        help='configuration file (i.e. <SCYLLA_HOME>/conf/scylla.yaml)',
    ),
)
# Config options whose values are typed (the others are read as YAML).
_TYPED_CONFIG = {
    'developer_mode': po.Bool,
    'api_port': po.UnsignedInt,
    'native_transport_port': po.UnsignedInt,
    'storage_port': po.UnsignedInt,
    'num_tokens': po.UnsignedInt,
}
DESCRIPTION = """\
scylla - the perfkit-plugins stand-in for ScyllaDB's server: ScyllaDB's
start-up checks and interfaces in front of an Apache Cassandra node.

Tools: scylla {tool} [...] (see scylla --list-tools); the server is
scylla server, or scylla alone.
"""


def ConfigOptions(config_options):
  """The config keys as command-line options (workdir also as -W)."""
  return tuple(
      po.Option(
          key.replace('_', '-'),
          short='W' if key == 'workdir' else '',
          multiple=key == 'data_file_directories',
          convert=_TYPED_CONFIG.get(key, str),
      )
      for key in config_options
  )


def ServerOptions(settings):
  names = {o.name for o in APP_OPTIONS + po.SEASTAR_OPTIONS}
  config = tuple(
      o for o in ConfigOptions(settings.config_options) if o.name not in names
  )
  return APP_OPTIONS + po.SEASTAR_OPTIONS + config


def StartingMessage(settings, argv, parsed):
  """print_starting_message (main.cc:592-605)."""
  options = ', '.join(
      f'{name}: {text}' if text else name for name, text in parsed.order
  )
  return (
      f'Scylla version {settings.scylla_version} with build-id'
      f' {settings.build_id} starting ...\n'
      f'command used: "{" ".join(argv)}"\n'
      f'pid: {os.getpid()}\n'
      f'parsed command line options: [{options}]'
  )


def _PreInit(args, settings):
  """--version and the like (main.cc:2916-2948), or None to go on."""
  parsed = po.Parse(
      args, APP_OPTIONS[:4], max_positional=len(args), allow_unregistered=True
  )
  if parsed.Get('version'):
    print(settings.scylla_version)
  elif parsed.Get('build-id'):
    print(settings.build_id)
  elif parsed.Get('build-mode'):
    print(BUILD_MODE)
  elif parsed.Get('list-tools'):
    for name, description in TOOLS.items():
      print(f'{name} - {description}')
  else:
    return None
  return 0


def RunServer(argv0, args, settings):
  """Parses the server's command line and runs it; the exit status."""
  options = ServerOptions(settings)
  try:
    parsed = po.Parse(args, options)
  except po.Error as e:
    print(e.Report())
    return e.exit_status
  if parsed.Get('help'):
    print(DESCRIPTION)
    print(po.Help('Scylla options', APP_OPTIONS))
    return 0
  if not sys.stdin.isatty() or os.tcgetpgrp(0) != os.getpgrp():
    print(StartingMessage(settings, [argv0, *args], parsed), flush=True)
  cpuset = parsed.Get('cpuset')
  if cpuset is not None:
    cpus = server.ParseCpuset(cpuset)
    if cpus is None:
      print(
          'FATAL: Exception during startup, aborting: std::invalid_argument'
          ' (invalid value for option cpuset: failed to parse cpuset:'
          f' {cpuset})',
          file=sys.stderr,
      )
      return server.EXIT_FATAL
    missing = sorted(cpus - os.sched_getaffinity(0))
    if missing:
      # seastar reactor.cc:4466-4482.
      package.Logger('seastar').error(
          'Bad value for --cpuset:%s not allowed. Shutting down.',
          ''.join(f' {c}' for c in missing),
      )
      return 1
  return server.Server(settings, parsed.values).Run()


def Main(argv, settings=None):
  """`scylla [tool] args...`; returns the exit status."""
  args = argv[1:]
  tool = 'server'
  if args and not args[0].startswith('-'):
    tool, args = args[0], args[1:]
    if tool in ABSENT_TOOLS:
      print(
          f'error: the perfkit-plugins stand-in has no {tool} tool, only'
          f' {", ".join(TOOLS)}',
          file=sys.stderr,
      )
      return 1
    if tool not in TOOLS:
      print(
          'error: unrecognized first argument: expected it to be "server", a'
          ' regular command-line argument or a valid tool name (see `scylla'
          f' --list-tools`), but got {tool}'
      )
      return 1
  try:
    settings = settings or package.LoadSettings()
  except package.StandinError as e:
    print(f'error: {e}', file=sys.stderr)
    return 1
  try:
    status = _PreInit(args, settings)
  except po.Error as e:
    print(e.Report())
    return e.exit_status
  if status is not None:
    return status
  if tool == 'nodetool':
    return nodetool.Main(args, settings, os.path.basename(argv[0]))
  return RunServer(argv[0], args, settings)
