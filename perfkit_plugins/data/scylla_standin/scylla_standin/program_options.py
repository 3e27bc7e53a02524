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

"""Command lines parsed as Boost.Program_options parses ScyllaDB's.

ScyllaDB's server and its tools take their options through
boost::program_options in its default style (long options as `--name value`
or `--name=value`, a unique prefix of a long name accepted, short options as
`-W value` or `-Wvalue`). What it refuses, seastar's app_template reports as
`error: <boost's message>`, a blank line and `Try --help.`, exit status 2
(seastar src/core/app-template.cc:196-199); a required option left out is
reported by bpo::notify, its message alone and exit status 1 (:216-221).
The messages are Boost's own (boost/program_options/errors.hpp).
"""

import dataclasses
import typing

EXIT_BAD_SYNTAX = 2
EXIT_MISSING_REQUIRED = 1

_TRUE = ('', 'on', 'yes', '1', 'true')
_FALSE = ('off', 'no', '0', 'false')


class Error(Exception):
  """A command line that Boost refuses; str() is Boost's message."""

  exit_status = EXIT_BAD_SYNTAX

  def Report(self):
    """What app_template prints for it."""
    return f'error: {self}\n\nTry --help.'


class MissingRequired(Error):
  """A required option is missing (reported by bpo::notify)."""

  exit_status = EXIT_MISSING_REQUIRED

  def Report(self):
    return str(self)


class InvalidValue(ValueError):
  """A value its option's type does not take (a converter raises it)."""

  def __init__(self, message=''):
    super().__init__(message)
    self.message = message


def Bool(text):
  """Boost's validator of bool values (value_semantic.cpp)."""
  lowered = text.lower()
  if lowered in _TRUE:
    return True
  if lowered in _FALSE:
    return False
  raise InvalidValue(
      ". Valid choices are 'on|off', 'yes|no', '1|0' and 'true|false'"
  )


def Int(text):
  """An integer, as boost::lexical_cast reads one (no spaces around it)."""
  if text != text.strip():
    raise InvalidValue()
  try:
    return int(text, 10)
  except ValueError as e:
    raise InvalidValue() from e


def UnsignedInt(text):
  value = Int(text)
  if value < 0:
    raise InvalidValue()
  return value


@dataclasses.dataclass(frozen=True)
class Option:
  """One option.

  Attributes:
    name: long name, without dashes.
    short: one-letter short name, or ''.
    takes_value: False for a switch (no value: bool_switch, or an option
      without a value semantic).
    multiple: True for a vector value, which may be given many times.
    convert: reads the value text; raises InvalidValue.
    required: bpo's ->required().
    help: its description, for --help.
  """

  name: str
  short: str = ''
  takes_value: bool = True
  multiple: bool = False
  convert: typing.Callable[[str], typing.Any] = str
  required: bool = False
  help: str = ''


@dataclasses.dataclass
class Parsed:
  """A parsed command line.

  Attributes:
    values: option name -> value (a list for a multiple option, True for a
      switch given).
    order: (option name, text) as given, for the start-up message.
    positional: positional arguments, in order.
    unregistered: options not described (allow_unregistered only).
  """

  values: dict
  order: list
  positional: list
  unregistered: list

  def Get(self, name, default=None):
    return self.values.get(name, default)


def _Find(options, name):
  """The option of a long name: exact, else the one it is a prefix of."""
  exact = [o for o in options if o.name == name]
  if exact:
    return exact[0]
  guesses = [o for o in options if o.name.startswith(name)]
  if len(guesses) > 1:
    alternatives = ', '.join(f"'--{o.name}'" for o in guesses)
    raise Error(f"option '--{name}' is ambiguous and matches {alternatives}")
  return guesses[0] if guesses else None


def _LooksLikeKnownOption(options, token):
  """Whether a token Boost would read as a known option, not a value."""
  if token.startswith('--') and len(token) > 2:
    try:
      return _Find(options, token[2:].partition('=')[0]) is not None
    except Error:
      return True
  if token.startswith('-') and len(token) > 1:
    return any(o.short == token[1] for o in options)
  return False


def Parse(args, options, max_positional=0, allow_unregistered=False):
  """Parses `args` (the arguments after the program's name).

  Args:
    args: the arguments.
    options: the Options described.
    max_positional: how many positional arguments the program takes.
    allow_unregistered: collect unknown options instead of refusing them
      (their values, if given separately, read as positional arguments).

  Returns:
    Parsed.

  Raises:
    Error: what Boost refuses.
  """
  parsed = Parsed({}, [], [], [])
  i = 0
  while i < len(args):
    token = args[i]
    i += 1
    if token == '--':
      parsed.positional += args[i:]
      break
    if token.startswith('--') and len(token) > 2:
      name, equals, value = token[2:].partition('=')
      option = _Find(options, name)
      shown = f'--{name}'
    elif token.startswith('-') and len(token) > 1:
      option = next((o for o in options if o.short == token[1]), None)
      equals, value = ('=', token[2:]) if len(token) > 2 else ('', '')
      shown = token[:2]
    else:
      parsed.positional.append(token)
      continue
    if option is None:
      if allow_unregistered:
        parsed.unregistered.append(token)
        continue
      raise Error(f"unrecognised option '{shown}'")
    shown = f'--{option.name}'
    if not option.takes_value:
      if equals:
        raise Error(f"option '{shown}' does not take any arguments")
      _Store(parsed, option, True, '')
      continue
    if not equals:
      if i >= len(args) or _LooksLikeKnownOption(options, args[i]):
        raise Error(f"the required argument for option '{shown}' is missing")
      value = args[i]
      i += 1
    try:
      converted = option.convert(value)
    except InvalidValue as e:
      raise Error(
          f"the argument ('{value}') for option '{shown}' is invalid"
          + e.message
      ) from e
    _Store(parsed, option, converted, value)
  if len(parsed.positional) > max_positional:
    raise Error(
        'too many positional options have been specified on the command line'
    )
  for option in options:
    if option.required and option.name not in parsed.values:
      raise MissingRequired(
          f"the option '--{option.name}' is required but missing"
      )
  return parsed


def _Store(parsed, option, value, text):
  if option.multiple:
    parsed.values.setdefault(option.name, []).append(value)
  elif option.name in parsed.values:
    raise Error(f"option '--{option.name}' cannot be specified more than once")
  else:
    parsed.values[option.name] = value
  parsed.order.append((option.name, text))


def Switch(name, short='', help_text=''):
  """An option without a value."""
  return Option(name, short=short, takes_value=False, help=help_text)


def Help(title, options):
  """The options' part of a --help text, as Boost lays it out."""
  lines = [f'{title}:']
  for option in options:
    names = f'--{option.name}'
    if option.short:
      names = f'-{option.short} [ {names} ]'
    if option.takes_value:
      names += ' arg'
    lines.append(f'  {names:<38} {option.help}'.rstrip())
  return '\n'.join(lines)


# The options of seastar's app_template (seastar src/core/app-template.cc
# :82-88, reactor.cc:4001-4122, smp options reactor.cc:4099-4122,
# util/log.cc:577-594, core/metrics.cc:108, core/scollectd.cc:568-578,
# net/native-stack.cc:331-359, net/dpdk.cc:2304-2313 and the virtio and
# posix stacks): every program built on it takes them.
_SEASTAR_SWITCHES = (
    'help-seastar',
    'help-loggers',
    'poll-mode',
    'relaxed-dma',
    'overprovisioned',
    'abort-on-seastar-bad-alloc',
    'no-handle-interrupt',
    'dpdk-pmd',
)
_SEASTAR_BOOLS = (
    'poll-aio',
    'blocked-reactor-report-format-oneline',
    'linux-aio-nowait',
    'unsafe-bypass-fsync',
    'kernel-page-cache',
    'abort-on-too-long-task-queue',
    'force-aio-syscalls',
    'aio-fsync',
    'lock-memory',
    'thread-affinity',
    'mbind',
    'enable-glibc-exception-scaling-workaround',
    'allow-cpus-in-remote-numa-nodes',
    'log-to-stdout',
    'log-to-syslog',
    'log-with-color',
    'collectd',
    'dhcp',
)
_SEASTAR_UNSIGNED = (
    'smp',
    'idle-poll-time-us',
    'max-task-backlog',
    'blocked-reactor-notify-ms',
    'blocked-reactor-reports-per-minute',
    'max-networking-io-control-blocks',
    'reserve-io-control-blocks',
    'num-io-groups',
)
_SEASTAR_TEXT = (
    'task-quota-ms',
    'io-latency-goal-ms',
    'io-flow-rate-threshold',
    'io-completion-notify-ms',
    'dump-memory-diagnostics-on-alloc-failure-kind',
    'reactor-backend',
    'async-workers-cpuset',
    'heapprof',
    'cpuset',
    'memory',
    'reserve-memory',
    'hugepages',
    'io-properties-file',
    'io-properties',
    'network-stack',
    'crypto-provider',
    'default-log-level',
    'logger-log-level',
    'logger-stdout-timestamps',
    'logger-ostream-type',
    'metrics-hostname',
    'collectd-address',
    'collectd-poll-period',
    'collectd-hostname',
    'net-config',
    'net-config-file',
    'tap-device',
    'host-ipv4-addr',
    'gw-ipv4-addr',
    'netmask-ipv4-addr',
    'udpv4-queue-size',
    'hw-queue-weight',
    'lro',
    'dpdk-port-index',
    'hw-fc',
    'csum-offload',
    'tso',
    'ufo',
    'virtio-ring-size',
    'event-index',
)
SEASTAR_OPTIONS = (
    (Switch('help', 'h'),)
    + tuple(Switch(n) for n in _SEASTAR_SWITCHES)
    + tuple(Option(n, convert=Bool) for n in _SEASTAR_BOOLS)
    + tuple(Option(n, convert=UnsignedInt) for n in _SEASTAR_UNSIGNED)
    + tuple(Option(n) for n in _SEASTAR_TEXT)
)
