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

"""systemctl and journalctl for a machine without systemd: a stand-in.

The private-system machines of host_machines run no service manager (no
systemd is PID 1 in them, nor on the hosts they are made on), yet
ScyllaDB's setup scripts and the engine drive units with systemctl and read
the server's log with journalctl. This one program is both: installed as
/usr/bin/systemctl and /usr/bin/journalctl in such a machine's own /usr,
it acts on the name it is called by. Each command does at once, in the
calling process or in a supervisor process it leaves behind, what systemd
would have done for it, as systemd's manuals describe it; each behaviour
cites its page. It needs only Python's standard library: it runs with the
host's /usr/bin/python3 inside the machine.

What it does:
  * Unit files from the system search path with their drop-ins and masks
    (systemd.unit(5)); `cat`, `daemon-reload` (a no-op: every command reads
    the files afresh, and a running unit keeps the configuration it was
    started with, as after a reload), `enable`, `disable`, `mask`,
    `unmask` (with `--now`), `is-enabled`, `list-unit-files`.
  * Services of Type=simple, exec, idle (as simple), notify and oneshot
    (systemd.service(5)): `start`, `stop`, `restart`, `try-restart`,
    `is-active`, `status`, `show`, `reset-failed`. Each process runs in a
    session of its own with the unit's environment, user, limits and
    working directory (systemd.exec(5)); a supervisor process of this
    program records it, writes its output to the journal, notices its end
    and runs ExecStopPost=. A session stands in for the unit's control
    group (systemd.kill(5)): a process that starts a session of its own
    escapes it.
  * Mount units: `start` mounts What= on Where= with mount(8), `stop`
    unmounts it, and a mount point is active while the kernel lists it
    (systemd.mount(5)).
  * Timer, target and slice units: `start` and `stop` only record the unit
    active or inactive. Nothing runs when a timer elapses (the machines
    live for minutes; ScyllaDB's timers fire daily or weekly), nothing is
    pulled in by a target, and no resources are controlled by a slice.
  * journalctl -u/-t/-n/-o (short, short-precise, short-iso,
    short-iso-precise, short-unix, cat) of what the units wrote.

Refused, with a message and a failing exit code: Type=forking and dbus
services, swap units (swap would be the host's), the other unit types,
`--user` and `--root`, and every command and option this module does not
list. Ignored, as if absent: dependencies and ordering (Wants=, Requires=,
After=, RequiresMountsFor=, ...: a unit starts alone), Restart= (a unit
that ends stays ended, so a run sees its failure), resource control,
sandboxing and capabilities.

Where its state lives: what runs (PIDs, results) in STATE_DIR, under the
machine's private /run: gone with the machine, as systemd's runtime state
is gone after a reboot. Enablement and masks where systemd keeps them,
links under /etc/systemd/system. The journal in JOURNAL_DIR, one file of
JSON lines per unit.
"""

import dataclasses
import errno
import fcntl
import fnmatch
import glob
import grp
import json
import os
import pwd
import re
import resource
import selectors
import signal
import socket
import string
import struct
import subprocess
import sys
import time
import traceback
import uuid

# The unit search path of the system manager, highest precedence first
# (systemd.unit(5), "Unit File Load Path"; on Debian, /lib/systemd/system
# holds the packages' units, the same directory as /usr/lib/systemd/system
# on a merged /usr).
UNIT_DIRS = (
    '/etc/systemd/system',
    '/run/systemd/system',
    '/usr/local/lib/systemd/system',
    '/lib/systemd/system',
    '/usr/lib/systemd/system',
)
# Where `enable`, `disable` and `mask` make and remove links (systemctl(1)).
CONFIG_DIR = UNIT_DIRS[0]
RUNTIME_DIR = UNIT_DIRS[1]
# Preset files, highest precedence first (systemd.preset(5)).
PRESET_DIRS = (
    '/etc/systemd/system-preset',
    '/run/systemd/system-preset',
    '/usr/local/lib/systemd/system-preset',
    '/lib/systemd/system-preset',
    '/usr/lib/systemd/system-preset',
)
STATE_DIR = '/run/systemd-standin'
JOURNAL_DIR = '/var/log/systemd-standin'
UNIT_TYPES = (
    'service',
    'socket',
    'device',
    'mount',
    'automount',
    'swap',
    'target',
    'path',
    'timer',
    'slice',
    'scope',
)
# Unit types whose start and stop only record their state.
RECORDED_TYPES = ('timer', 'target', 'slice')
SERVICE_TYPES = ('simple', 'exec', 'idle', 'notify', 'oneshot')
# The fixed $PATH of the system manager, also where a command named without
# a slash is looked for (systemd.exec(5), "Environment Variables";
# systemd.service(5), "Command Lines").
EXEC_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin'
# DefaultTimeoutStartSec= and DefaultTimeoutStopSec= (systemd-system.conf(5)).
DEFAULT_TIMEOUT_S = 90.0
# Upper bounds of the units' own timeouts here (ScyllaDB's server allows a
# year to start): a hung unit fails a test instead of holding it.
MAX_START_S = 300.0
MAX_STOP_S = 120.0
# systemctl's exit codes (systemctl(1), "Exit Status": LSB's).
EXIT_FAILURE = 1
EXIT_NOT_ACTIVE = 3
EXIT_NO_PERMISSION = 4
EXIT_NO_SUCH_UNIT = 5
# What `status` answers for a unit it does not know ("no such unit").
EXIT_NO_SUCH_UNIT_STATUS = 4
# Exit statuses systemd gives a process it could not start
# (systemd.exec(5), "Process Exit Codes").
EXIT_EXEC = 203
EXIT_USER = 217
# Signals after which a service's main process ended cleanly
# (systemd.service(5), SuccessExitStatus=).
CLEAN_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)
_WHITESPACE = ' \t\n\r'
_NAME_RE = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')
# systemd.time(7): time span units, in seconds.
_TIME_UNITS = {
    'us': 1e-6,
    'usec': 1e-6,
    'ms': 1e-3,
    'msec': 1e-3,
    's': 1,
    'sec': 1,
    'second': 1,
    'seconds': 1,
    'm': 60,
    'min': 60,
    'minute': 60,
    'minutes': 60,
    'h': 3600,
    'hr': 3600,
    'hour': 3600,
    'hours': 3600,
    'd': 86400,
    'day': 86400,
    'days': 86400,
    'w': 604800,
    'week': 604800,
    'weeks': 604800,
    'M': 2629800,
    'month': 2629800,
    'months': 2629800,
    'y': 31557600,
    'year': 31557600,
    'years': 31557600,
}
# systemd.syntax(7), "Quoting": the one-letter C escapes.
_ESCAPES = {
    'a': '\a',
    'b': '\b',
    'f': '\f',
    'n': '\n',
    'r': '\r',
    't': '\t',
    'v': '\v',
    '\\': '\\',
    '"': '"',
    "'": "'",
    's': ' ',
}
# systemd.exec(5), "Process Properties": the Limit*= settings, each of the
# resource RLIMIT_<its name in capitals> of setrlimit(2).
_LIMITS = (
    'LimitCPU',
    'LimitFSIZE',
    'LimitDATA',
    'LimitSTACK',
    'LimitCORE',
    'LimitRSS',
    'LimitNOFILE',
    'LimitAS',
    'LimitNPROC',
    'LimitMEMLOCK',
    'LimitSIGPENDING',
    'LimitMSGQUEUE',
    'LimitNICE',
    'LimitRTPRIO',
    'LimitRTTIME',
)
_SIZE_SUFFIXES = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}


class UnitError(Exception):
  """A unit cannot be loaded or acted on; the message says why."""


# Parsing.


def ParseTimespan(text, default):
  """Seconds of a systemd time span ("90", "5min 20s", "1y"), None: infinity.

  systemd.time(7), "Parsing Time Spans": a bare number is seconds; an empty
  value means the default.
  """
  text = text.strip()
  if not text:
    return default
  if text == 'infinity':
    return None
  total = 0.0
  for number, unit in re.findall(r'([0-9.]+)\s*([A-Za-z]*)', text):
    if unit and unit not in _TIME_UNITS:
      raise UnitError(f'invalid time span {text!r}')
    total += float(number) * _TIME_UNITS.get(unit, 1)
  return total


def _Unescape(text, i):
  """The character a C escape stands for, and the index after it.

  systemd.syntax(7), "Quoting" (text[i] follows the backslash); an escape
  it does not list is kept as written.
  """
  c = text[i] if i < len(text) else ''
  if c in _ESCAPES:
    return _ESCAPES[c], i + 1
  for prefix, digits in (('x', 2), ('u', 4), ('U', 8)):
    code = text[i + 1 : i + 1 + digits]
    if c == prefix and len(code) == digits:
      if all(ch in string.hexdigits for ch in code):
        return chr(int(code, 16)), i + 1 + digits
  octal = text[i : i + 3]
  if len(octal) == 3 and all(ch in string.octdigits for ch in octal):
    return chr(int(octal, 8)), i + 3
  return '\\' + c, i + 1


def SplitWords(text, commands=False):
  """The words of a setting, unquoted as systemd.syntax(7) "Quoting" says.

  Words are separated by unquoted whitespace; a double or single quote
  opening a word quotes it up to the matching quote (kept whitespace,
  quotes removed; a quote inside a word is an ordinary character); C
  escapes are replaced.

  Args:
    text: the setting's value.
    commands: split command lines too (systemd.service(5), "Command
      Lines"): a lone ';' separates two command lines (None in the list),
      '\\;' is a literal ';'.

  Raises:
    UnitError: a quote is not closed.
  """
  words = []
  i, n = 0, len(text)
  while True:
    while i < n and text[i] in _WHITESPACE:
      i += 1
    if i >= n:
      return words
    start, word, quote = i, [], None
    while i < n:
      c = text[i]
      if quote:
        if c == quote:
          quote = None
          i += 1
          continue
      elif c in _WHITESPACE:
        break
      elif c in '"\'' and i == start:
        quote = c
        i += 1
        continue
      if c == '\\':
        character, i = _Unescape(text, i + 1)
        word.append(character)
      else:
        word.append(c)
        i += 1
    if quote:
      raise UnitError(f'unbalanced quoting in {text!r}')
    raw = text[start:i]
    if commands and raw == ';':
      words.append(None)
    elif commands and raw == '\\;':
      words.append(';')
    else:
      words.append(''.join(word))


def ParseUnitFile(text):
  """The (section, key, value) assignments of a unit file, in order.

  systemd.syntax(7): '#' and ';' start comment lines, also inside a line
  continued by a trailing backslash (which becomes a space), "[Section]"
  opens a section, "Key=Value" assigns (whitespace around both removed).
  """
  entries = []
  section = ''
  continued = None
  lines = text.splitlines()
  for number, raw in enumerate(lines):
    line = raw.strip()
    if line.startswith(('#', ';')):
      continue
    if continued is not None:
      line = continued + line
      continued = None
    if line.endswith('\\') and number + 1 < len(lines):
      continued = line[:-1] + ' '
      continue
    line = line.rstrip('\\').strip()
    if not line:
      continue
    if line.startswith('[') and line.endswith(']'):
      section = line[1:-1]
    elif '=' in line:
      key, value = line.split('=', 1)
      entries.append((section, key.strip(), value.strip()))
  return entries


def ParseEnvironmentFile(text):
  """The (name, value) pairs of an EnvironmentFile=, in order.

  systemd.exec(5), EnvironmentFile=: lines "NAME=value"; empty lines, lines
  without '=' and those starting with '#' or ';' are ignored. An unquoted
  value keeps interior whitespace and quotes after its first character, a
  backslash keeps the next character and one before a newline continues
  the line; a '...' value is verbatim; a "..." value takes \\", \\\\, \\`
  and \\$ as escapes and keeps any other backslash. Quoted values may span
  lines. Names that are not valid variable names are ignored.
  """
  pairs = []
  key, value = [], []
  state = 'pre-key'
  trailing = None  # Where the value's trailing whitespace starts.

  def Push():
    name = ''.join(key).strip()
    text = ''.join(value if trailing is None else value[:trailing])
    if _NAME_RE.match(name):
      pairs.append((name, text))

  for c in text + '\n':
    if state == 'pre-key':
      if c in '#;':
        state = 'comment'
      elif c not in _WHITESPACE:
        key, value, state = [c], [], 'key'
    elif state == 'key':
      if c in '\n\r':
        state = 'pre-key'
      elif c == '=':
        state, trailing = 'pre-value', None
      else:
        key.append(c)
    elif state == 'pre-value':
      if c in '\n\r':
        Push()
        state = 'pre-key'
      elif c == "'":
        state = 'single'
      elif c == '"':
        state = 'double'
      elif c == '\\':
        state = 'escape'
      elif c not in _WHITESPACE:
        value.append(c)
        state = 'value'
    elif state == 'value':
      if c in '\n\r':
        Push()
        state = 'pre-key'
      elif c == '\\':
        state, trailing = 'escape', None
      else:
        if c not in _WHITESPACE:
          trailing = None
        elif trailing is None:
          trailing = len(value)
        value.append(c)
    elif state == 'escape':
      state = 'value'
      if c != '\n':
        value.append(c)
    elif state == 'single':
      if c == "'":
        state = 'pre-value'
      else:
        value.append(c)
    elif state == 'double':
      if c == '"':
        state = 'pre-value'
      elif c == '\\':
        state = 'double-escape'
      else:
        value.append(c)
    elif state == 'double-escape':
      state = 'double'
      if c in '"\\`$':
        value.append(c)
      elif c != '\n':
        value += ['\\', c]
    elif state == 'comment' and c in '\n\r':
      state = 'pre-key'
  return pairs


def EscapePath(path):
  """A path escaped for a unit name, as `systemd-escape --path` does.

  systemd.unit(5), "String Escaping for Inclusion in Unit Names": slashes
  at either end and repeated ones are dropped, '/' becomes '-', the root
  is '-'; bytes other than ASCII letters, digits, ':', '_' and '.' (and a
  leading '.') become \\xNN.
  """
  parts = [p for p in path.split('/') if p]
  if not parts:
    return '-'
  out = []
  for i, byte in enumerate('/'.join(parts).encode()):
    c = chr(byte)
    if c == '/':
      out.append('-')
    elif (c.isascii() and c.isalnum()) or c in ':_' or (c == '.' and i):
      out.append(c)
    else:
      out.append(f'\\x{byte:02x}')
  return ''.join(out)


def UnescapePath(name):
  """The path a unit name (without its type) stands for: EscapePath undone."""
  if name == '-':
    return '/'
  raw = bytearray()
  i = 0
  while i < len(name):
    if name.startswith('\\x', i) and len(name) >= i + 4:
      raw.append(int(name[i + 2 : i + 4], 16))
      i += 4
    else:
      raw += b'/' if name[i] == '-' else name[i].encode()
      i += 1
  return '/' + raw.decode(errors='replace')


def UnitName(name):
  """A unit name as systemctl(1) completes it.

  A name without a known type suffix is a service; an absolute path names
  the mount unit of that mount point.
  """
  if name.startswith('/'):
    return EscapePath(name) + '.mount'
  if name.rsplit('.', 1)[-1] in UNIT_TYPES and '.' in name:
    return name
  return name + '.service'


def _Specifiers(text, name):
  """`text` with the unit name specifiers of systemd.unit(5) replaced.

  %n, %N, %p, %i, %t, %H and %%; any other is kept as written.
  """
  stem = name.rsplit('.', 1)[0]
  prefix, _, instance = stem.partition('@')
  table = {
      'n': name,
      'N': stem,
      'p': prefix,
      'i': instance,
      't': '/run',
      'H': socket.gethostname(),
      '%': '%',
  }
  return re.sub(r'%(.)', lambda m: table.get(m[1], m[0]), text)


# Unit files.


def _SearchDirs():
  """UNIT_DIRS that exist, each directory once (/lib is /usr/lib here)."""
  seen, dirs = set(), []
  for path in UNIT_DIRS:
    real = os.path.realpath(path)
    if os.path.isdir(path) and real not in seen:
      seen.add(real)
      dirs.append(path)
  return dirs


def _FindFile(name):
  """The first path of `name` on the search path, or None."""
  for directory in _SearchDirs():
    path = os.path.join(directory, name)
    if os.path.lexists(path):
      return path
  return None


def _IsMask(path):
  """Whether a unit file masks its unit (systemd.unit(5), "Description").

  A link to /dev/null or an empty file.
  """
  if os.path.realpath(path) == '/dev/null':
    return True
  return os.path.isfile(path) and os.path.getsize(path) == 0


def _DropinNames(name):
  """The drop-in directories of a unit, highest precedence first.

  systemd.unit(5): <name>.d/, then its template's, then those of the
  prefixes of a dashed name (foo-bar-.service.d/, foo-.service.d/), then
  the top-level <type>.d/.
  """
  stem, unit_type = name.rsplit('.', 1)
  names = [f'{name}.d']
  if '@' in stem and not stem.endswith('@'):
    names.append(f'{stem.split("@")[0]}@.{unit_type}.d')
  parts = stem.split('-')
  for i in range(len(parts) - 1, 0, -1):
    names.append(f'{"-".join(parts[:i])}-.{unit_type}.d')
  names.append(f'{unit_type}.d')
  return names


def _Dropins(name):
  """The drop-in files of a unit, in the order they apply.

  systemd.unit(5): files ending in .conf; of equally named files, the one
  in the directory of highest precedence counts; they apply in the
  lexicographic order of their names, whatever their directories.
  """
  found = {}
  for directory in _SearchDirs():
    for dropin_dir in _DropinNames(name):
      path = os.path.join(directory, dropin_dir)
      if not os.path.isdir(path):
        continue
      for entry in os.listdir(path):
        if entry.endswith('.conf'):
          found.setdefault(entry, os.path.join(path, entry))
  return [found[entry] for entry in sorted(found)]


@dataclasses.dataclass
class Unit:
  """A unit as loaded from its file and drop-ins.

  Attributes:
    name: its full name (with the type suffix).
    path: its unit file (the first on the search path).
    masked: whether that file masks it.
    dropins: its drop-in files, in the order they apply.
    entries: (section, key, value) of the file and drop-ins, in order.
  """

  name: str
  path: str
  masked: bool = False
  dropins: list = dataclasses.field(default_factory=list)
  entries: list = dataclasses.field(default_factory=list)

  @property
  def type(self):
    return self.name.rsplit('.', 1)[1]

  def Values(self, section, key):
    """Every value assigned to a list setting; an empty one resets it."""
    values = []
    for entry_section, entry_key, value in self.entries:
      if (entry_section, entry_key) == (section, key):
        values = values + [value] if value else []
    return values

  def Value(self, section, key, default=''):
    """The last value assigned to a setting, or `default`."""
    values = [
        value
        for entry_section, entry_key, value in self.entries
        if (entry_section, entry_key) == (section, key)
    ]
    return values[-1] if values else default

  def Bool(self, section, key, default=False):
    value = self.Value(section, key).lower()
    if not value:
      return default
    return value in ('1', 'yes', 'y', 'true', 't', 'on')

  @property
  def description(self):
    return self.Value('Unit', 'Description') or self.name

  def Record(self):
    """What a process needs to act on the unit as it was loaded (JSON)."""
    return dataclasses.asdict(self)


def LoadUnit(name):
  """The unit `name` (with its type suffix), or None when it has no file.

  An instance (foo@bar.service) without a file of its own uses its
  template's (foo@.service).

  Raises:
    UnitError: a file cannot be read.
  """
  path = _FindFile(name)
  stem, unit_type = name.rsplit('.', 1)
  if path is None and '@' in stem:
    path = _FindFile(f'{stem.split("@")[0]}@.{unit_type}')
  if path is None:
    return None
  unit = Unit(name, path, masked=_IsMask(path))
  if unit.masked:
    return unit
  try:
    for source in [path] + _Dropins(name):
      if source != path and _IsMask(source):
        continue
      if source != path:
        unit.dropins.append(source)
      with open(source, encoding='utf-8', errors='replace') as f:
        unit.entries += ParseUnitFile(f.read())
  except OSError as e:
    raise UnitError(f'{name}: {e}') from e
  return unit


def _UnitFiles():
  """{name: path} of every unit file on the search path (the first)."""
  files = {}
  for directory in _SearchDirs():
    for entry in sorted(os.listdir(directory)):
      path = os.path.join(directory, entry)
      if entry.rsplit('.', 1)[-1] in UNIT_TYPES and not os.path.isdir(path):
        files.setdefault(entry, path)
  return files


def _InstallLinks(unit):
  """{link: target} that enabling `unit` makes, and the units of Also=.

  systemd.unit(5), "[Install] Section Options": WantedBy= and RequiredBy=
  link the unit file into <target>.wants/ and .requires/; Alias= links it
  under another name; all in /etc/systemd/system.
  """
  links = {}
  for key, suffix in (('WantedBy', 'wants'), ('RequiredBy', 'requires')):
    for value in unit.Values('Install', key):
      for target in SplitWords(value):
        links[os.path.join(CONFIG_DIR, f'{target}.{suffix}', unit.name)] = (
            unit.path
        )
  for value in unit.Values('Install', 'Alias'):
    for alias in SplitWords(value):
      links[os.path.join(CONFIG_DIR, alias)] = unit.path
  also = [
      UnitName(u) for v in unit.Values('Install', 'Also') for u in v.split()
  ]
  return links, also


def _EnablementLinks(name, directory):
  """Links named `name` in the .wants/ and .requires/ dirs of `directory`."""
  found = []
  if os.path.isdir(directory):
    for entry in os.listdir(directory):
      link = os.path.join(directory, entry, name)
      if entry.endswith(('.wants', '.requires')) and os.path.islink(link):
        found.append(link)
  return found


def UnitFileState(name):
  """`is-enabled`'s answer for a unit file, or None when there is none.

  systemctl(1), "is-enabled": masked (masked-runtime in /run); alias when
  the name is a link to another unit's file; enabled (enabled-runtime in
  /run) when linked from a .wants/ or .requires/ directory or by its
  Alias=; static without [Install] settings; else disabled.
  """
  path = _FindFile(name)
  if path is None:
    return None
  if _IsMask(path):
    return 'masked-runtime' if path.startswith(RUNTIME_DIR) else 'masked'
  target = os.path.basename(os.path.realpath(path))
  if target != name and target.rsplit('.', 1)[-1] in UNIT_TYPES:
    return 'alias'
  links, also = _InstallLinks(LoadUnit(name))
  if _EnablementLinks(name, CONFIG_DIR) or any(map(os.path.islink, links)):
    return 'enabled'
  if _EnablementLinks(name, RUNTIME_DIR):
    return 'enabled-runtime'
  return 'disabled' if links or also else 'static'


def _Preset(name):
  """The preset of a unit: 'enabled' or 'disabled' (systemd.preset(5)).

  Preset files apply in the order of their names (of equally named ones,
  the directory of highest precedence counts); the first line matching the
  unit decides; with none, the unit is enabled.
  """
  files = {}
  for directory in PRESET_DIRS:
    if os.path.isdir(directory):
      for entry in os.listdir(directory):
        if entry.endswith('.preset'):
          files.setdefault(entry, os.path.join(directory, entry))
  for entry in sorted(files):
    try:
      with open(files[entry]) as f:
        lines = f.read().splitlines()
    except OSError:
      continue
    for line in lines:
      words = line.split()
      if len(words) >= 2 and words[0] in ('enable', 'disable'):
        if fnmatch.fnmatchcase(name, words[1]):
          return f'{words[0]}d'
  return 'enabled'


# Runtime state.


def _Now():
  return int(time.time() * 1e6)


def _Stat(pid):
  """Fields of /proc/<pid>/stat after the command name, or None."""
  try:
    with open(f'/proc/{pid}/stat') as f:
      return f.read().rsplit(')', 1)[1].split()
  except (OSError, IndexError):
    return None


def Identity(pid):
  """[pid, start time] of a live process (not a zombie), or None.

  The start time (field 22 of /proc/<pid>/stat) tells a process from a
  later one that reuses its PID.
  """
  fields = _Stat(pid)
  if fields is None or fields[0] == 'Z':
    return None
  return [pid, int(fields[19])]


def Running(identity):
  """Whether the process an Identity names still runs."""
  return bool(identity) and Identity(identity[0]) == list(identity)


def SessionPids(session):
  """PIDs of the live processes of a session (a service's processes)."""
  pids = []
  for entry in os.listdir('/proc'):
    if entry.isdigit():
      fields = _Stat(entry)
      if fields and fields[0] != 'Z' and int(fields[3]) == session:
        pids.append(int(entry))
  return pids


def _Signal(pids, sig):
  for pid in pids:
    try:
      os.kill(pid, sig)
    except ProcessLookupError:
      pass


def _StatePath(name, suffix='.json'):
  return os.path.join(STATE_DIR, name + suffix)


def LoadState(name):
  """The recorded runtime state of a unit ({} when none)."""
  try:
    with open(_StatePath(name)) as f:
      return json.load(f)
  except (OSError, ValueError):
    return {}


def SaveState(name, record):
  """Records a unit's runtime state (readable by every user, as systemd's)."""
  os.makedirs(STATE_DIR, mode=0o755, exist_ok=True)
  temporary = _StatePath(name, f'.json.{os.getpid()}')
  with open(temporary, 'w') as f:
    json.dump(record, f)
  os.chmod(temporary, 0o644)
  os.replace(temporary, _StatePath(name))


class _Lock:
  """Held while one command changes a unit: another waits for it."""

  def __init__(self, name):
    os.makedirs(STATE_DIR, mode=0o755, exist_ok=True)
    self._fd = os.open(_StatePath(name, '.lock'), os.O_RDWR | os.O_CREAT, 0o600)

  def __enter__(self):
    fcntl.flock(self._fd, fcntl.LOCK_EX)
    return self

  def __exit__(self, *exc):
    os.close(self._fd)


# The journal.


class Journal:
  """One unit's journal: JSON lines {t: µs since the epoch, i, p, m}.

  i is the syslog identifier and p the PID of the writer, as journald
  records them for a unit's output (systemd.exec(5), StandardOutput=
  journal and SyslogIdentifier=). Readable by root and the adm group, as
  journald's files are.
  """

  def __init__(self, name):
    self.name = name
    self.path = os.path.join(JOURNAL_DIR, name + '.journal')

  def Write(self, identifier, pid, message):
    """Appends one entry: `message` from process `pid`, now."""
    line = json.dumps(
        {'t': _Now(), 'i': identifier, 'p': pid, 'm': message},
        ensure_ascii=False,
    )
    os.makedirs(JOURNAL_DIR, mode=0o755, exist_ok=True)
    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
      if os.fstat(fd).st_size == 0:
        _ChownToAdm(fd)
      os.write(fd, (line + '\n').encode())
    finally:
      os.close(fd)

  def System(self, message):
    """A message of the service manager about the unit."""
    self.Write('systemd', os.getpid(), message)


def _ChownToAdm(fd):
  try:
    os.fchown(fd, 0, grp.getgrnam('adm').gr_gid)
  except (KeyError, PermissionError):
    pass


# Services.


@dataclasses.dataclass
class Command:
  """One command line of a service.

  Attributes:
    argv: the executable and its arguments as written.
    argv0: the argv[0] an '@' prefix gives, or None.
    ignore_failure: '-': its failure counts as success.
    expand: variables are expanded (no ':').
    privileged: '+', '!' or '!!': runs as root.
  """

  argv: list
  argv0: str = None
  ignore_failure: bool = False
  expand: bool = True
  privileged: bool = False

  def Expand(self, environment):
    """The arguments with variables replaced (systemd.service(5)).

    "Command Lines": $NAME as a whole word becomes the value split at
    whitespace (quotes respected, then removed), zero or more words;
    ${NAME} becomes the exact value within its word; $$ is a literal $; an
    unknown variable is empty. The executable is never expanded.
    """
    if not self.expand:
      return list(self.argv)
    argv = [self.argv[0]]
    for word in self.argv[1:]:
      if word.startswith('$') and _NAME_RE.match(word[1:]):
        argv += SplitWords(environment.get(word[1:], ''))
        continue
      argv.append(
          re.sub(
              r'\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}',
              lambda m: '$' if m[0] == '$$' else environment.get(m[1], ''),
              word,
          )
      )
    return argv


def ParseCommands(unit, key):
  """The command lines of an Exec*= setting of a service.

  systemd.service(5), ExecStart= and "Command Lines": each value holds one
  or more command lines separated by lone ';'; the executable may carry the
  prefixes '@' (the next word is argv[0]), '-' (a failure is ignored), ':'
  (no variable expansion), '+', '!' or '!!' (runs with full privileges:
  here, as root whatever User= says).
  """
  commands = []
  for value in unit.Values('Service', key):
    groups = [[]]
    for word in SplitWords(_Specifiers(value, unit.name), commands=True):
      if word is None:
        groups.append([])
      else:
        groups[-1].append(word)
    for group in filter(None, groups):
      prefixes = re.match(r'[@\-:+!]*', group[0])[0]
      argv = [group[0][len(prefixes) :]] + group[1:]
      argv0 = argv.pop(1) if '@' in prefixes and len(argv) > 1 else None
      commands.append(
          Command(
              argv=argv,
              argv0=argv0,
              ignore_failure='-' in prefixes,
              expand=':' not in prefixes,
              privileged='+' in prefixes or '!' in prefixes,
          )
      )
  return commands


def _Which(executable):
  """The path of an executable (absolute, or searched on EXEC_PATH)."""
  if '/' in executable:
    return executable
  for directory in EXEC_PATH.split(':'):
    path = os.path.join(directory, executable)
    if os.path.isfile(path) and os.access(path, os.X_OK):
      return path
  return executable


def _Limit(text):
  """(soft, hard) of a Limit*= value: "N", "soft:hard", sizes, infinity."""
  values = []
  for part in text.split(':', 1):
    part = part.strip()
    if part == 'infinity':
      values.append(resource.RLIM_INFINITY)
    elif part and part[-1] in _SIZE_SUFFIXES:
      values.append(int(float(part[:-1]) * _SIZE_SUFFIXES[part[-1]]))
    else:
      values.append(int(part))
  return values[0], values[-1]


def _Lower(limit, other):
  """The lower of two resource limits (RLIM_INFINITY is the highest)."""
  if limit == resource.RLIM_INFINITY:
    return other
  if other == resource.RLIM_INFINITY:
    return limit
  return min(limit, other)


def _SignalNumber(text, default):
  if not text:
    return default
  if text.isdigit():
    return signal.Signals(int(text))
  return signal.Signals[text if text.startswith('SIG') else 'SIG' + text]


def _SignalName(number):
  try:
    return signal.Signals(number).name[3:]
  except ValueError:
    return str(number)


class Service:
  """The settings of a service unit this stand-in acts on.

  Attributes:
    unit: the Unit.
    type: Type= (systemd.service(5)).
    exec: {"ExecStartPre": [Command], ...}.
    timeout_start, timeout_stop: seconds (None: infinity), at most
      MAX_START_S and MAX_STOP_S.
    kill_mode, kill_signal: systemd.kill(5).
    remain_after_exit: RemainAfterExit=.
    notify_access: NotifyAccess= (default main for Type=notify).
    success_exit: SuccessExitStatus= as (exit codes, signals).
  """

  def __init__(self, unit):
    self.unit = unit
    self.exec = {
        key: ParseCommands(unit, key)
        for key in (
            'ExecStartPre',
            'ExecStart',
            'ExecStartPost',
            'ExecStop',
            'ExecStopPost',
        )
    }
    value = unit.Value('Service', 'Type')
    self.type = value or ('simple' if self.exec['ExecStart'] else 'oneshot')
    both = unit.Value('Service', 'TimeoutSec')
    start_default = None if self.type == 'oneshot' else DEFAULT_TIMEOUT_S
    self.timeout_start = _Bounded(
        ParseTimespan(
            unit.Value('Service', 'TimeoutStartSec', both), start_default
        ),
        MAX_START_S,
    )
    self.timeout_stop = _Bounded(
        ParseTimespan(
            unit.Value('Service', 'TimeoutStopSec', both), DEFAULT_TIMEOUT_S
        ),
        MAX_STOP_S,
    )
    self.kill_mode = unit.Value('Service', 'KillMode', 'control-group')
    self.kill_signal = _SignalNumber(
        unit.Value('Service', 'KillSignal'), signal.SIGTERM
    )
    self.remain_after_exit = unit.Bool('Service', 'RemainAfterExit')
    self.notify_access = unit.Value(
        'Service', 'NotifyAccess', 'main' if self.type == 'notify' else 'none'
    )
    codes, signals = set(), set()
    for value in unit.Values('Service', 'SuccessExitStatus'):
      for word in value.split():
        if word.isdigit():
          codes.add(int(word))
        else:
          signals.add(_SignalNumber(word, None))
    self.success_exit = (codes, signals)

  def Check(self):
    """Raises UnitError when this stand-in cannot run the service."""
    if self.type not in SERVICE_TYPES:
      raise UnitError(
          f'Type={self.type} is not supported by this stand-in (only'
          f' {", ".join(SERVICE_TYPES)})'
      )
    starts = self.exec['ExecStart']
    if self.type != 'oneshot' and len(starts) != 1:
      raise UnitError(
          f'Type={self.type} needs exactly one ExecStart= command line'
      )

  def Outcome(self, returncode, daemon):
    """(result, EXIT_CODE, EXIT_STATUS) of a process that ended.

    systemd.exec(5), $SERVICE_RESULT: exit code 0, or a code of
    SuccessExitStatus=, is success; so are SIGHUP, SIGINT, SIGTERM and
    SIGPIPE for the main process of a daemon (systemd.service(5),
    SuccessExitStatus=), but not for a command such as ExecStartPre=.
    """
    codes, signals = self.success_exit
    if returncode >= 0:
      clean = returncode == 0 or returncode in codes
      return ('success' if clean else 'exit-code'), 'exited', str(returncode)
    number = -returncode
    clean = number in signals or (daemon and number in CLEAN_SIGNALS)
    return ('success' if clean else 'signal'), 'killed', _SignalName(number)


def _Bounded(seconds, bound):
  return bound if seconds is None else min(seconds, bound)


class _Runner:
  """Starts a service's processes and writes their output to its journal."""

  def __init__(self, service, journal, invocation):
    self.service = service
    self.unit = service.unit
    self.journal = journal
    self.invocation = invocation
    self._selector = selectors.DefaultSelector()
    self._buffers = {}

  def Environment(self, extra=None):
    """The environment of a process of the unit, read now.

    systemd.exec(5), "Environment Variables in Spawned Processes": $PATH,
    $INVOCATION_ID, the locale of locale.conf(5), $USER, $LOGNAME, $HOME,
    $SHELL for a unit with User=; then Environment= (systemd.syntax(7)
    quoting, later ones override, an empty one resets); then the files of
    EnvironmentFile=, read just before the process starts, overriding
    Environment= ('-': a file that does not exist is skipped; a pattern
    stands for the files it matches).

    Raises:
      UnitError: an environment file does not exist.
    """
    environment = {'PATH': EXEC_PATH, 'INVOCATION_ID': self.invocation}
    if os.path.isfile('/etc/locale.conf'):
      with open('/etc/locale.conf') as f:
        environment.update(ParseEnvironmentFile(f.read()))
    user = self.unit.Value('Service', 'User')
    if user:
      try:
        entry = _User(user)
      except KeyError as e:
        raise UnitError(f'no such user: {user}') from e
      environment.update(
          USER=entry.pw_name,
          LOGNAME=entry.pw_name,
          HOME=entry.pw_dir,
          SHELL=entry.pw_shell,
      )
    environment.update(extra or {})
    for value in self.unit.Values('Service', 'Environment'):
      for word in SplitWords(_Specifiers(value, self.unit.name)):
        name, equals, text = word.partition('=')
        if equals and _NAME_RE.match(name):
          environment[name] = text
    for value in self.unit.Values('Service', 'EnvironmentFile'):
      value = _Specifiers(value, self.unit.name)
      optional = value.startswith('-')
      pattern = value[1:] if optional else value
      paths = [pattern]
      if any(c in pattern for c in '*?['):
        paths = sorted(glob.glob(pattern))
      if not paths and not optional:
        raise UnitError(f'no environment file matches {pattern}')
      for path in paths:
        try:
          with open(path, encoding='utf-8', errors='replace') as f:
            environment.update(ParseEnvironmentFile(f.read()))
        except FileNotFoundError as e:
          if not optional:
            raise UnitError(f'environment file {path}: {e.strerror}') from e
    return environment

  def Spawn(self, command, extra=None):
    """Starts one command line; its Popen, or the outcome if it cannot.

    The process is in a session of its own, with stdin from /dev/null and
    stdout and stderr to the journal (systemd.exec(5), StandardInput=null,
    StandardOutput=journal), in WorkingDirectory= (default /) with UMask=
    0022, as User=/Group= (the user's groups as initgroups(3) gives them)
    unless the command is privileged. A process that cannot be started
    gets the status systemd gives it (systemd.exec(5), "Process Exit
    Codes"); one whose environment cannot be read, the result
    'resources'.
    """
    try:
      environment = self.Environment(extra)
      argv = command.Expand(environment)
    except UnitError as e:
      self.journal.System(f'{self.unit.name}: {e}')
      return ('resources', None, None)
    executable = _Which(argv[0])
    if command.argv0 is not None:
      argv[0] = command.argv0
    credentials = {}
    user = self.unit.Value('Service', 'User')
    group = self.unit.Value('Service', 'Group')
    home = '/'
    if (user or group) and not command.privileged:
      try:
        entry = _User(user or 'root')
        gid = _Group(group) if group else entry.pw_gid
      except KeyError as e:
        self.journal.System(f'{self.unit.name}: no such user or group: {e}')
        return ('exit-code', 'exited', str(EXIT_USER))
      credentials = {
          'user': entry.pw_uid,
          'group': gid,
          'extra_groups': os.getgrouplist(entry.pw_name, gid),
      }
      home = entry.pw_dir
    directory = self.unit.Value('Service', 'WorkingDirectory', '/')
    optional_directory = directory.startswith('-')
    directory = directory.lstrip('-')
    if directory == '~':
      directory = home
    if optional_directory and not os.path.isdir(directory):
      directory = '/'
    read_end, write_end = os.pipe()
    try:
      # Ended by PID (stop, or the supervisor at the service's end).
      # pylint: disable-next=consider-using-with
      process = subprocess.Popen(
          argv,
          executable=executable,
          env=environment,
          cwd=directory,
          stdin=subprocess.DEVNULL,
          stdout=write_end,
          stderr=write_end,
          start_new_session=True,
          umask=0o022,
          **credentials,
      )
    except OSError as e:
      os.close(read_end)
      self.journal.System(
          f'{self.unit.name}: Failed to execute {executable}: {e.strerror}'
      )
      return ('exit-code', 'exited', str(EXIT_EXEC))
    finally:
      os.close(write_end)
    identifier = self.unit.Value('Service', 'SyslogIdentifier')
    self._buffers[read_end] = (
        identifier or os.path.basename(executable),
        process.pid,
        bytearray(),
    )
    self._selector.register(read_end, selectors.EVENT_READ)
    return process

  def Pump(self, timeout):
    """Writes what the processes wrote to the journal, line by line."""
    for key, _ in self._selector.select(timeout):
      self.Readable(key.fileobj)

  def Readable(self, fd):
    """Handles a readable file descriptor of the selector."""
    identifier, pid, buffer = self._buffers[fd]
    data = os.read(fd, 65536)
    *lines, rest = (buffer + data).split(b'\n')
    if not data:
      lines += [rest] if rest else []
      rest = b''
      self._selector.unregister(fd)
      os.close(fd)
      del self._buffers[fd]
    buffer[:] = rest
    for line in lines:
      self.journal.Write(identifier, pid, line.decode(errors='replace'))

  def Until(self, done, deadline):
    """Pumps output until done() is true or the deadline; whether done."""
    while not done():
      if deadline is not None and time.monotonic() >= deadline:
        return False
      wait = 0.05 if deadline is None else deadline - time.monotonic()
      self.Pump(max(0.0, min(0.05, wait)))
    return True

  def Drain(self, timeout=1.0):
    """Writes out what is left to read, for at most `timeout` seconds."""
    self.Until(lambda: not self._buffers, time.monotonic() + timeout)

  def End(self, process, pids, timeout):
    """SIGTERM to `pids`, SIGKILL after `timeout` s; waits for `process`."""
    _Signal(pids(), signal.SIGTERM)
    _Signal(pids(), signal.SIGCONT)
    deadline = None if timeout is None else time.monotonic() + timeout
    if not self.Until(
        lambda: not pids() and process.poll() is not None, deadline
    ):
      _Signal(pids(), signal.SIGKILL)
      self.Until(lambda: process.poll() is not None, None)

  def RunCommands(self, commands, deadline, extra=None):
    """Runs command lines one after the other; the result.

    systemd.service(5), ExecStartPre=: a command failing (not prefixed
    with '-') stops the rest; one running past the deadline is ended, the
    result 'timeout'; what a command left running is ended before the next
    starts.

    Returns:
      (result, EXIT_CODE, EXIT_STATUS) of the last command run.
    """
    outcome = ('success', None, None)
    for command in commands:
      process = self.Spawn(command, extra)
      if isinstance(process, tuple):
        outcome = process
      elif not self.Until(lambda p=process: p.poll() is not None, deadline):
        self.End(process, lambda p=process: SessionPids(p.pid), MAX_STOP_S)
        outcome = ('timeout', 'killed', 'TERM')
      else:
        processes_left = SessionPids(process.pid)
        if processes_left:
          _Signal(processes_left, signal.SIGKILL)
        outcome = self.service.Outcome(process.returncode, daemon=False)
        if outcome[0] != 'success':
          _, code, status = outcome
          self.journal.System(
              f'{self.unit.name}: Control process exited, code={code},'
              f' status={status}'
          )
      if outcome[0] != 'success' and not command.ignore_failure:
        return outcome
      outcome = ('success',) + outcome[1:]
    return outcome


def _User(name):
  return pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)


def _Group(name):
  return int(name) if name.isdigit() else grp.getgrnam(name).gr_gid


class _Supervisor(_Runner):
  """The process that starts a service and stays with it until it ends.

  It reports to the `systemctl start` that forked it once the service is
  up or has failed (a JSON line on `report_fd`), keeps the runtime state,
  writes the processes' output to the journal, and when the main process
  ends, ends what is left of the service and runs ExecStopPost=.
  """

  def __init__(self, unit, report_fd):
    super().__init__(Service(unit), Journal(unit.name), uuid.uuid4().hex)
    self._report_fd = report_fd
    self._main = None
    self._ready = False
    self._notify = None
    self.record = {
        'unit': unit.Record(),
        'state': 'activating',
        'result': 'success',
        'supervisor': Identity(os.getpid()),
        'main': None,
        'invocation': self.invocation,
        'since': _Now(),
    }

  def _Save(self, **changes):
    self.record.update(changes)
    SaveState(self.unit.name, self.record)

  def _Report(self, result):
    if self._report_fd is not None:
      os.write(self._report_fd, json.dumps({'result': result}).encode())
      os.close(self._report_fd)
      self._report_fd = None

  def Supervise(self):
    """Starts the service, and supervises it until it ends.

    systemd.service(5): ExecStartPre=, the main process (as Type= says),
    ExecStartPost=, each failure (or the start timing out) ending the
    start; a service whose processes have all ended is inactive, or still
    active with RemainAfterExit=.
    """
    service = self.service
    self._Save()
    self.journal.System(f'Starting {self.unit.description}...')
    deadline = None
    if service.timeout_start is not None:
      deadline = time.monotonic() + service.timeout_start
    try:
      self._ApplyProcessProperties()
      outcome = self.RunCommands(service.exec['ExecStartPre'], deadline)
      if outcome[0] == 'success':
        outcome = self._StartMain(deadline)
      if outcome[0] == 'success':
        extra = {'MAINPID': str(self._main.pid)} if self._main else {}
        outcome = self.RunCommands(
            service.exec['ExecStartPost'], deadline, extra
        )
    except (UnitError, OSError, ValueError) as e:
      self.journal.System(f'{self.unit.name}: {e}')
      outcome = ('resources', None, None)
    if outcome[0] != 'success':
      self._Report(outcome[0])
      self._Finish(outcome)
      self.journal.System(f'Failed to start {self.unit.description}.')
      return
    if self._main is not None:
      self._Save(state='active')
      self.journal.System(f'Started {self.unit.description}.')
      self._Report('success')
      self.Until(lambda: self._main.poll() is not None, None)
      outcome = service.Outcome(self._main.returncode, daemon=True)
      _, code, status = outcome
      if outcome[0] != 'success':
        self.journal.System(
            f'{self.unit.name}: Main process exited, code={code},'
            f' status={status}'
        )
    if outcome[0] == 'success' and service.remain_after_exit:
      self.Drain()
      self._Save(state='active', main=None, supervisor=None)
    else:
      self._Finish(outcome)
    if self._main is None:
      self.journal.System(f'Finished {self.unit.description}.')
      self._Report('success')

  def _ApplyProcessProperties(self):
    """Limit*= and OOMScoreAdjust= (systemd.exec(5)), set on this process.

    Every process of the unit inherits them, as systemd sets them on each.
    systemd, PID 1, may raise a hard limit (CAP_SYS_RESOURCE); a stand-in
    in a container without that capability cannot: it sets the most it
    may, the limit's present hard one, and says so in the journal (the
    server then checks what it got, as ScyllaDB checks RLIMIT_NOFILE).
    """
    for key in _LIMITS:
      value = self.unit.Value('Service', key)
      if value:
        limit = getattr(resource, 'RLIMIT_' + key[len('Limit') :].upper())
        wanted = _Limit(value)
        try:
          resource.setrlimit(limit, wanted)
        except (OSError, ValueError):
          hard = resource.getrlimit(limit)[1]
          resource.setrlimit(limit, tuple(_Lower(w, hard) for w in wanted))
          self.journal.System(
              f"{self.unit.name}: {key}={value} is above this host's hard"
              f' limit {hard} (no CAP_SYS_RESOURCE): set to it'
          )
    adjust = self.unit.Value('Service', 'OOMScoreAdjust')
    if adjust:
      try:
        with open('/proc/self/oom_score_adj', 'w') as f:
          f.write(adjust)
      except PermissionError:
        # Lowering it needs CAP_SYS_RESOURCE too (proc(5)).
        self.journal.System(
            f'{self.unit.name}: OOMScoreAdjust={adjust} not set: lowering'
            ' it needs CAP_SYS_RESOURCE, which this host does not give'
        )

  def _StartMain(self, deadline):
    """Starts the main process (or, Type=oneshot, runs ExecStart=).

    systemd.service(5), Type=: exec is up once the process executes its
    program, and so are simple and idle here (Popen returns once the
    program runs: a missing one fails the start, as with exec); notify
    once it sends READY=1 (sd_notify(3)) on the NOTIFY_SOCKET it is given,
    failing if it ends first or the start times out; oneshot once its
    command lines have run, without a main process.
    """
    service = self.service
    if service.type == 'oneshot':
      return self.RunCommands(service.exec['ExecStart'], deadline)
    extra = {}
    if service.notify_access != 'none':
      extra['NOTIFY_SOCKET'] = self._NotifySocket()
    process = self.Spawn(service.exec['ExecStart'][0], extra)
    if isinstance(process, tuple):
      return process
    self._main = process
    self._Save(main=Identity(process.pid) or [process.pid, 0])
    if service.type != 'notify':
      return ('success', None, None)
    if not self.Until(
        lambda: self._ready or process.poll() is not None, deadline
    ):
      self.journal.System(f'{self.unit.name}: start operation timed out.')
      return ('timeout', 'killed', 'TERM')
    if not self._ready:
      outcome = service.Outcome(process.returncode, daemon=True)
      return ('protocol',) + outcome[1:] if outcome[0] == 'success' else outcome
    return ('success', None, None)

  def _NotifySocket(self):
    """The datagram socket sd_notify(3) messages come to; its path.

    Every user may send to it (a service's user is often not root); the
    sender's PID comes with each message (SO_PASSCRED).
    """
    directory = os.path.join(STATE_DIR, 'notify')
    os.makedirs(directory, mode=0o755, exist_ok=True)
    path = os.path.join(directory, self.unit.name)
    if os.path.lexists(path):
      os.unlink(path)
    self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    self._notify.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    self._notify.bind(path)
    os.chmod(path, 0o777)
    self._selector.register(self._notify, selectors.EVENT_READ)
    return path

  def Readable(self, fd):
    if self._notify is not None and fd is self._notify:
      self._Notification()
    else:
      super().Readable(fd)

  def _Notification(self):
    """Handles one sd_notify(3) message.

    READY=1 ends the start; STOPPING=1 says it is stopping; the others
    (STATUS=, ...) change nothing here. With NotifyAccess=main
    (Type=notify's default) only the main process is heard, with all any
    process (systemd.service(5), NotifyAccess=).
    """
    size = struct.calcsize('3i')
    data, ancillary, _, _ = self._notify.recvmsg(4096, socket.CMSG_SPACE(size))
    sender = None
    for level, kind, payload in ancillary:
      if (level, kind) == (socket.SOL_SOCKET, socket.SCM_CREDENTIALS):
        sender = struct.unpack('3i', payload[:size])[0]
    main_pid = self._main.pid if self._main else None
    if self.service.notify_access != 'all' and sender != main_pid:
      self.journal.System(
          f'{self.unit.name}: Got notification message from PID {sender}, but'
          f' reception only permitted for main PID {main_pid}'
      )
      return
    for line in data.decode(errors='replace').splitlines():
      if line == 'READY=1':
        self._ready = True
      elif line == 'STOPPING=1':
        self._Save(state='deactivating')

  def _Finish(self, outcome):
    """Ends what is left of the service, runs ExecStopPost=, records.

    systemd.service(5), ExecStopPost=: it runs after the service stopped,
    also when it failed to start, with $SERVICE_RESULT, $EXIT_CODE and
    $EXIT_STATUS (systemd.exec(5)). systemd.kill(5): what is left of the
    control group gets SIGTERM, and SIGKILL after TimeoutStopSec=.
    """
    result, code, status = outcome
    self._Save(state='deactivating')
    if self._main is not None:
      session = self._main.pid
      self.End(
          self._main, lambda: SessionPids(session), self.service.timeout_stop
      )
    self.Drain()
    extra = {'SERVICE_RESULT': result}
    if code is not None:
      extra.update(EXIT_CODE=code, EXIT_STATUS=status)
    deadline = None
    if self.service.timeout_stop is not None:
      deadline = time.monotonic() + self.service.timeout_stop
    self.RunCommands(self.service.exec['ExecStopPost'], deadline, extra)
    self.Drain()
    if self._notify is not None:
      self._notify.close()
      os.unlink(os.path.join(STATE_DIR, 'notify', self.unit.name))
    failed = result != 'success'
    self._Save(
        state='failed' if failed else 'inactive',
        result=result,
        exit=[code, status],
        main=None,
        supervisor=None,
        since=_Now(),
    )
    if failed:
      self.journal.System(f"{self.unit.name}: Failed with result '{result}'.")
    else:
      self.journal.System(f'{self.unit.name}: Deactivated successfully.')


# What the commands act on.


def ServiceState(record):
  """ActiveState of a service from its runtime state record.

  Checked against the processes: a unit recorded as running whose
  supervisor is gone failed; one whose main process is gone is
  deactivating (its supervisor is ending it).
  """
  state = record.get('state', 'inactive')
  if state in ('inactive', 'failed'):
    return state
  supervisor = record.get('supervisor')
  if supervisor is not None and not Running(supervisor):
    return 'failed'
  if state == 'active' and record.get('main') and not Running(record['main']):
    return 'deactivating'
  return state


def MountTable():
  """(major:minor, mount point) of each mount of this mount namespace.

  From /proc/self/mountinfo (proc(5)), whose octal escapes are undone.
  """
  table = []
  with open('/proc/self/mountinfo') as f:
    for line in f:
      fields = line.split()
      point = re.sub(r'\\([0-7]{3})', lambda m: chr(int(m[1], 8)), fields[4])
      table.append((fields[2], point))
  return table


def MountPoints():
  """The mount points of this mount namespace."""
  return [point for _, point in MountTable()]


def _Where(unit, name):
  """The mount point of a mount unit: Where=, or what its name says."""
  if unit is not None and unit.Value('Mount', 'Where'):
    return os.path.normpath(_Specifiers(unit.Value('Mount', 'Where'), name))
  return UnescapePath(name.rsplit('.', 1)[0])


def ActiveState(name):
  """ActiveState of a unit: active, inactive, failed, activating, ...

  A mount unit is active while its mount point is mounted, however it was
  mounted (systemd.mount(5)).
  """
  record = LoadState(name)
  unit_type = name.rsplit('.', 1)[1]
  if unit_type == 'mount':
    unit = LoadUnit(name)
    if _Where(unit, name) in MountPoints():
      return 'active'
    return 'failed' if record.get('state') == 'failed' else 'inactive'
  if unit_type == 'service':
    return ServiceState(record)
  return record.get('state', 'inactive')


def StartUnit(name):
  """`systemctl start` of one unit; the exit code."""
  unit = LoadUnit(name)
  if unit is None:
    _Stderr(f'Failed to start {name}: Unit {name} not found.')
    return EXIT_NO_SUCH_UNIT
  if unit.masked:
    _Stderr(f'Failed to start {name}: Unit {name} is masked.')
    return EXIT_FAILURE
  with _Lock(name):
    state = ActiveState(name)
    if state in ('active', 'activating', 'reloading'):
      return 0
    try:
      if unit.type == 'service':
        Service(unit).Check()
        if state == 'deactivating':
          # The start waits for the stop, as a queued job does.
          _WaitGone(LoadState(name).get('supervisor'), None)
        result = _StartService(unit)
      elif unit.type == 'mount':
        result = _Mount(unit)
      elif unit.type in RECORDED_TYPES:
        SaveState(name, {'state': 'active', 'since': _Now()})
        Journal(name).System(f'Started {unit.description}.')
        result = 'success'
      else:
        raise UnitError(
            f'.{unit.type} units are not supported by this stand-in'
        )
    except UnitError as e:
      _Stderr(f'Failed to start {name}: {e}')
      return EXIT_FAILURE
  if result != 'success':
    _Stderr(_JobFailed(name, result))
    return EXIT_FAILURE
  return 0


def _JobFailed(name, result):
  """systemctl's message for a start job that failed."""
  why = {
      'exit-code': 'the control process exited with error code',
      'signal': 'a fatal signal was delivered to the control process',
      'timeout': 'a timeout was exceeded',
      'protocol': (
          'the service did not take the steps required by its unit'
          ' configuration'
      ),
  }.get(result, 'of unavailable resources or another system error')
  return (
      f'Job for {name} failed because {why}.\nSee "systemctl status {name}"'
      f' and "journalctl -xeu {name}" for details.'
  )


def _StartService(unit):
  """Forks the supervisor of a service, waits for its report; the result.

  The supervisor is detached (a session of its own, its parent gone), so
  the service outlives the command and the login that started it.
  """
  read_end, write_end = os.pipe()
  child = os.fork()
  if child == 0:
    try:
      os.close(read_end)
      os.setsid()
      if os.fork() == 0:
        _Detach(write_end)
        supervisor = _Supervisor(unit, write_end)
        try:
          supervisor.Supervise()
        except Exception:  # pylint: disable=broad-except
          supervisor.journal.System(traceback.format_exc())
    finally:
      os._exit(0)  # pylint: disable=protected-access
  os.close(write_end)
  os.waitpid(child, 0)
  report = b''
  while chunk := os.read(read_end, 4096):
    report += chunk
  os.close(read_end)
  try:
    return json.loads(report)['result']
  except (ValueError, KeyError):
    return 'resources'


def _Detach(keep_fd):
  """Standard streams to /dev/null, every other descriptor but one closed."""
  os.chdir('/')
  null = os.open(os.devnull, os.O_RDWR)
  for fd in (0, 1, 2):
    os.dup2(null, fd)
  os.closerange(3, keep_fd)
  os.closerange(keep_fd + 1, os.sysconf('SC_OPEN_MAX'))


def _Mount(unit):
  """Mounts a mount unit's What= on Where=; the result.

  systemd.mount(5): the unit must be named after Where=, which may not be
  a symbolic link and is made (mode 0755) if missing; mount(8) mounts What=
  there with Type= and Options=, within TimeoutSec=.
  """
  name = unit.name
  where = _Where(unit, name)
  what = _Specifiers(unit.Value('Mount', 'What'), name)
  if not what or not os.path.isabs(where):
    raise UnitError('What= and an absolute Where= are needed')
  if EscapePath(where) + '.mount' != name:
    raise UnitError("Where= setting doesn't match unit name. Refusing.")
  if os.path.islink(where):
    raise UnitError(f'mount point {where} is a symbolic link')
  Journal(name).System(f'Mounting {unit.description}...')
  os.makedirs(where, mode=0o755, exist_ok=True)
  command = ['mount', what, where]
  if unit.Value('Mount', 'Type'):
    command += ['-t', unit.Value('Mount', 'Type')]
  options = _Specifiers(unit.Value('Mount', 'Options'), name)
  if options:
    command += ['-o', options]
  return _MountCommand(name, unit, command, 'active')


def _Unmount(unit, name):
  """Unmounts a mount unit's Where= with umount(8); the result."""
  where = _Where(unit, name)
  if where not in MountPoints():
    return 'success'
  Journal(name).System(f'Unmounting {_Description(unit, name)}...')
  return _MountCommand(name, unit, ['umount', where], 'inactive')


def _MountCommand(name, unit, command, state):
  """Runs mount(8) or umount(8) for a mount unit; records the result.

  Its output goes to the unit's journal; on success the unit is `state`,
  else failed.
  """
  journal = Journal(name)
  timeout = DEFAULT_TIMEOUT_S
  if unit is not None:
    timeout = _Bounded(
        ParseTimespan(unit.Value('Mount', 'TimeoutSec'), DEFAULT_TIMEOUT_S),
        MAX_STOP_S,
    )
  # Waited for below, and killed if it times out.
  # pylint: disable-next=consider-using-with
  process = subprocess.Popen(
      command,
      stdin=subprocess.DEVNULL,
      stdout=subprocess.PIPE,
      stderr=subprocess.STDOUT,
      text=True,
  )
  try:
    output, _ = process.communicate(timeout=timeout)
    result = 'success' if process.returncode == 0 else 'exit-code'
  except subprocess.TimeoutExpired:
    process.kill()
    output, _ = process.communicate()
    result = 'timeout'
  for line in output.splitlines():
    journal.Write(command[0], process.pid, line)
  description = _Description(unit, name)
  if result == 'success':
    done = 'Mounted' if state == 'active' else 'Unmounted'
    journal.System(f'{done} {description}.')
    SaveState(name, {'state': state, 'since': _Now()})
  else:
    journal.System(f"{name}: Failed with result '{result}'.")
    verb = 'mount' if state == 'active' else 'unmount'
    journal.System(f'Failed to {verb} {description}.')
    SaveState(name, {'state': 'failed', 'result': result, 'since': _Now()})
  return result


def _Description(unit, name):
  return name if unit is None else unit.description


def StopUnit(name):
  """`systemctl stop` of one unit; the exit code.

  A unit with no file may still be stopped while it runs (its runtime
  state, or a mounted mount point, names it).
  """
  unit = LoadUnit(name)
  if unit is None and ActiveState(name) in ('inactive', 'failed'):
    _Stderr(f'Failed to stop {name}: Unit {name} not loaded.')
    return EXIT_NO_SUCH_UNIT
  with _Lock(name):
    unit_type = name.rsplit('.', 1)[1]
    if unit_type == 'mount':
      result = _Unmount(unit, name)
    elif unit_type == 'service':
      result = _StopService(name)
    else:
      if ActiveState(name) == 'active':
        SaveState(name, {'state': 'inactive', 'since': _Now()})
        Journal(name).System(f'Stopped {_Description(unit, name)}.')
      result = 'success'
  if result != 'success':
    _Stderr(f'Job for {name} failed. See "systemctl status {name}".')
    return EXIT_FAILURE
  return 0


def _StopService(name):
  """Stops a service as systemd.service(5) and systemd.kill(5) say.

  ExecStop= runs first (with $MAINPID); then KillSignal= (SIGTERM) goes to
  the main process's session (KillMode=control-group, the default), to
  the main process alone (mixed, process) or to none (none), followed by
  SIGCONT; what is left after TimeoutStopSec= gets SIGKILL. The supervisor
  then runs ExecStopPost=; with no supervisor (a RemainAfterExit= unit
  whose processes ended, or one whose supervisor was killed) it runs here.

  Returns:
    The result: 'success', or why it failed.
  """
  record = LoadState(name)
  main_process = record.get('main')
  if ServiceState(record) in ('inactive', 'failed') and not Running(
      main_process
  ):
    return 'success'
  service = Service(Unit(**record['unit']))
  journal = Journal(name)
  runner = _Runner(service, journal, record.get('invocation', ''))
  journal.System(f'Stopping {service.unit.description}...')
  deadline = None
  if service.timeout_stop is not None:
    deadline = time.monotonic() + service.timeout_stop
  if service.exec['ExecStop']:
    extra = {'MAINPID': str(main_process[0])} if Running(main_process) else {}
    runner.RunCommands(service.exec['ExecStop'], deadline, extra)
  supervisor = record.get('supervisor')
  supervised = Running(supervisor)
  if Running(main_process):
    session = main_process[0]
    if service.kill_mode == 'control-group':
      _Signal(SessionPids(session), service.kill_signal)
    elif service.kill_mode != 'none':
      _Signal([session], service.kill_signal)
    _Signal([session], signal.SIGCONT)
    if not runner.Until(lambda: not SessionPids(session), deadline):
      journal.System(f'{name}: State stop-sigterm timed out. Killing.')
      _Signal(SessionPids(session), signal.SIGKILL)
  if supervised:
    # It runs ExecStopPost= and records the end.
    if not _WaitGone(supervisor, time.monotonic() + MAX_STOP_S):
      _Signal([supervisor[0]], signal.SIGKILL)
      SaveState(name, dict(record, state='failed', result='timeout'))
      return 'timeout'
  else:
    runner.RunCommands(
        service.exec['ExecStopPost'], deadline, {'SERVICE_RESULT': 'success'}
    )
    runner.Drain()
    if LoadState(name).get('state') != 'failed':
      SaveState(name, dict(record, state='inactive', main=None, since=_Now()))
  journal.System(f'Stopped {service.unit.description}.')
  return 'success'


def _WaitGone(identity, deadline):
  """Waits until a process is gone or the deadline; whether it is gone."""
  while Running(identity):
    if deadline is not None and time.monotonic() >= deadline:
      return False
    time.sleep(0.05)
  return True


# systemctl.


def _Stderr(message):
  """An error or a note, on stderr as systemctl and journalctl write them."""
  print(message, file=sys.stderr)


def _Units(args):
  if not args:
    raise UnitError('too few arguments')
  return [UnitName(arg) for arg in args]


def _Each(names, action):
  """Runs `action` for every unit; the first failing exit code, or 0."""
  code = 0
  for name in names:
    result = action(name)
    code = code or result
  return code


def Start(unused_options, args):
  return _Each(_Units(args), StartUnit)


def Stop(unused_options, args):
  return _Each(_Units(args), StopUnit)


def RestartUnit(name):
  """Stop, then start (systemd.service(5), ExecStop=: "Service restart")."""
  if LoadUnit(name) is None:
    _Stderr(f'Failed to restart {name}: Unit {name} not found.')
    return EXIT_NO_SUCH_UNIT
  return StopUnit(name) or StartUnit(name)


def Restart(unused_options, args):
  return _Each(_Units(args), RestartUnit)


def TryRestart(unused_options, args):
  """Restarts the units that are active; leaves the others."""
  return _Each(
      _Units(args),
      lambda n: RestartUnit(n) if ActiveState(n) == 'active' else 0,
  )


def IsActive(options, args):
  """Prints each unit's state; 0 if any is active, else 3 (systemctl(1))."""
  states = [ActiveState(name) for name in _Units(args)]
  if not options['quiet']:
    for state in states:
      print(state)
  return 0 if 'active' in states else EXIT_NOT_ACTIVE


def IsEnabled(options, args):
  """Prints each unit file's state; 0 if any is enabled (systemctl(1))."""
  code = EXIT_FAILURE
  for name in _Units(args):
    state = UnitFileState(name)
    if state is None:
      _Stderr(
          f'Failed to get unit file state for {name}: No such file or directory'
      )
      continue
    if not options['quiet']:
      print(state)
    if state in ('enabled', 'enabled-runtime', 'static', 'alias', 'indirect'):
      code = 0
  return code


def Cat(unused_options, args):
  """Prints each unit's file and drop-ins, each after "# <path>"."""
  code = 0
  for index, name in enumerate(_Units(args)):
    unit = LoadUnit(name)
    if unit is None:
      _Stderr(f'No files found for {name}.')
      code = EXIT_FAILURE
      continue
    if index:
      print()
    if unit.masked:
      print(f'# Unit {name} is masked.')
      continue
    for number, path in enumerate([unit.path] + unit.dropins):
      with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
      print(('\n' if number else '') + f'# {path}')
      print(text, end='' if text.endswith('\n') else '\n')
  return code


def DaemonReload(unused_options, unused_args):
  """Nothing to reload: every command reads the unit files afresh."""
  return 0


def Enable(options, args):
  """Links each unit as its [Install] section says; `--now` starts it."""
  names = _Units(args)
  code = 0
  for name in names:
    unit = LoadUnit(name)
    if unit is None:
      _Stderr(f'Failed to enable unit: Unit file {name} does not exist.')
      code = code or EXIT_FAILURE
      continue
    if unit.masked:
      _Stderr(f'Failed to enable unit: Unit file {unit.path} is masked.')
      code = code or EXIT_FAILURE
      continue
    links, also = _InstallLinks(unit)
    if not links and not also:
      _Stderr(
          'The unit files have no installation config (WantedBy=,'
          ' RequiredBy=, Also=, Alias= settings in the [Install] section):'
          f' {name} is not meant to be enabled.'
      )
    for link, target in links.items():
      if not os.path.lexists(link):
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(target, link)
        _Stderr(f'Created symlink {link} \u2192 {target}.')
    if also:
      code = code or Enable(dict(options, now=False), also)
  if options['now']:
    code = code or Start(options, args)
  return code


def Disable(options, args):
  """Removes the links enabling each unit; `--now` stops it."""
  code = 0
  for name in _Units(args):
    unit = LoadUnit(name)
    if unit is None:
      _Stderr(f'Failed to disable unit: Unit file {name} does not exist.')
      code = code or EXIT_FAILURE
      continue
    links, also = ({}, []) if unit.masked else _InstallLinks(unit)
    for link in _EnablementLinks(name, CONFIG_DIR) + list(links):
      if os.path.islink(link):
        os.unlink(link)
        _Stderr(f'Removed "{link}".')
    if also:
      code = code or Disable(dict(options, now=False), also)
  if options['now']:
    code = code or _Each(_Units(args), _StopIfRunning)
  return code


def _StopIfRunning(name):
  """`--now` of disable and mask: stops the unit if it runs."""
  if ActiveState(name) in ('inactive', 'failed'):
    return 0
  return StopUnit(name)


def Mask(options, args):
  """Links each unit to /dev/null in /etc/systemd/system: it cannot start.

  systemctl(1), mask: a file of that name there that is not such a link is
  left, and the command fails.
  """
  code = 0
  for name in _Units(args):
    link = os.path.join(CONFIG_DIR, name)
    if os.path.islink(link) and os.path.realpath(link) == '/dev/null':
      continue
    if os.path.lexists(link):
      _Stderr(f'Failed to mask unit: File {link} already exists.')
      code = code or EXIT_FAILURE
      continue
    os.makedirs(CONFIG_DIR, exist_ok=True)
    os.symlink('/dev/null', link)
    _Stderr(f'Created symlink {link} \u2192 /dev/null.')
  if options['now']:
    code = code or _Each(_Units(args), _StopIfRunning)
  return code


def Unmask(unused_options, args):
  """Removes the /dev/null links masking each unit."""
  for name in _Units(args):
    for directory in (CONFIG_DIR, RUNTIME_DIR):
      link = os.path.join(directory, name)
      if os.path.islink(link) and os.path.realpath(link) == '/dev/null':
        os.unlink(link)
        _Stderr(f'Removed "{link}".')
  return 0


def ListUnitFiles(options, args):
  """Unit files with their state and preset; 1 when patterns match none.

  systemctl(1), list-unit-files: sorted by name, in aligned columns, under
  a legend unless --no-legend.
  """
  rows = []
  for name in sorted(_UnitFiles()):
    if args and not any(fnmatch.fnmatchcase(name, p) for p in args):
      continue
    state = UnitFileState(name)
    preset = '-'
    if state not in ('static', 'alias', 'generated', 'transient'):
      preset = _Preset(name)
    rows.append((name, state, preset))
  count = len(rows)
  legend = not options['no_legend']
  if legend:
    rows.insert(0, ('UNIT FILE', 'STATE', 'PRESET'))
  widths = [max([len(row[i]) for row in rows] or [0]) for i in (0, 1)]
  for name, state, preset in rows:
    print(f'{name:<{widths[0]}} {state:<{widths[1]}} {preset}')
  if legend:
    print(f'\n{count} unit files listed.')
  return EXIT_FAILURE if args and not count else 0


def _Properties(name):
  """The properties `show` and `status` print for a unit (a few)."""
  unit = LoadUnit(name)
  record = LoadState(name)
  active = ActiveState(name)
  if unit is None:
    load = 'not-found'
  else:
    load = 'masked' if unit.masked else 'loaded'
  main_process = record.get('main') if active != 'inactive' else None
  sub = {
      'active': 'running' if main_process else 'exited',
      'inactive': 'dead',
      'failed': 'failed',
  }.get(active, active)
  if name.endswith('.mount') and active == 'active':
    sub = 'mounted'
  code, status = record.get('exit') or [None, None]
  return {
      'Id': name,
      'Description': _Description(unit, name),
      'LoadState': load,
      'ActiveState': active,
      'SubState': sub,
      'Result': record.get('result', 'success'),
      'UnitFileState': UnitFileState(name) or '',
      'FragmentPath': unit.path if unit else '',
      'DropInPaths': ' '.join(unit.dropins) if unit else '',
      'MainPID': (
          str(main_process[0])
          if main_process and Running(main_process)
          else '0'
      ),
      'ExecMainCode': code or '0',
      'ExecMainStatus': status or '0',
      'InvocationID': record.get('invocation', ''),
  }


def Show(options, args):
  """Prints properties as NAME=VALUE (`-p` chooses, `--value` bare)."""
  wanted = [p for value in options['property'] for p in value.split(',')]
  for index, name in enumerate(_Units(args)):
    if index:
      print()
    properties = _Properties(name)
    for key, value in properties.items():
      if wanted and key not in wanted:
        continue
      print(value if options['value'] else f'{key}={value}')
  return 0


def Status(unused_options, args):
  """A short status and the unit's last journal lines.

  Exit code as systemctl(1) gives it: 0 active, 3 not active, 4 no such
  unit.
  """
  code = 0
  for name in _Units(args):
    properties = _Properties(name)
    if properties['LoadState'] == 'not-found':
      _Stderr(f'Unit {name} could not be found.')
      code = code or EXIT_NO_SUCH_UNIT_STATUS
      continue
    print(f'\u25cf {name} - {properties["Description"]}')
    print(
        f'     Loaded: {properties["LoadState"]} ({properties["FragmentPath"]};'
        f' {properties["UnitFileState"]})'
    )
    print(
        f'     Active: {properties["ActiveState"]} ({properties["SubState"]})'
    )
    if properties['MainPID'] != '0':
      print(f'   Main PID: {properties["MainPID"]}')
    try:
      entries = _ReadJournal([Journal(name).path])[-10:]
    except PermissionError:
      entries = []
      _Stderr(
          'Warning: some journal files were not opened due to insufficient'
          ' permissions.'
      )
    if entries:
      print()
    for entry in entries:
      print(_FormatEntry(entry, 'short', socket.gethostname()))
    if properties['ActiveState'] != 'active':
      code = code or EXIT_NOT_ACTIVE
  return code


def ResetFailed(unused_options, args):
  """Forgets that units failed (all, without arguments)."""
  if args:
    names = _Units(args)
  else:
    names = [f[:-5] for f in os.listdir(STATE_DIR) if f.endswith('.json')]
  for name in names:
    record = LoadState(name)
    if record.get('state') == 'failed':
      with _Lock(name):
        SaveState(name, dict(record, state='inactive', result='success'))
  return 0


# verb: (function, whether it changes the system: root only).
COMMANDS = {
    'start': (Start, True),
    'stop': (Stop, True),
    'restart': (Restart, True),
    'try-restart': (TryRestart, True),
    'is-active': (IsActive, False),
    'is-enabled': (IsEnabled, False),
    'cat': (Cat, False),
    'daemon-reload': (DaemonReload, True),
    'enable': (Enable, True),
    'disable': (Disable, True),
    'mask': (Mask, True),
    'unmask': (Unmask, True),
    'list-unit-files': (ListUnitFiles, False),
    'show': (Show, False),
    'status': (Status, False),
    'reset-failed': (ResetFailed, True),
}
# Options without a value, as their key in the options dict.
_SYSTEMCTL_FLAGS = {
    '--now': 'now',
    '--no-legend': 'no_legend',
    '--quiet': 'quiet',
    '-q': 'quiet',
    '--value': 'value',
    '--no-pager': None,
    '--system': None,
    '--full': None,
    '-l': None,
    '--all': None,
    '-a': None,
    '--plain': None,
    '--no-block': None,
    '--no-ask-password': None,
    '--force': None,
    '-f': None,
}


def _SystemctlOptions(argv):
  """(options, verb and arguments) of a systemctl command line.

  Raises:
    UnitError: an option this stand-in does not know or refuses.
  """
  options = {
      'now': False,
      'no_legend': False,
      'quiet': False,
      'value': False,
      'property': [],
  }
  words = []
  arguments = iter(argv)
  for arg in arguments:
    if arg == '--':
      words += list(arguments)
    elif arg in _SYSTEMCTL_FLAGS:
      if _SYSTEMCTL_FLAGS[arg]:
        options[_SYSTEMCTL_FLAGS[arg]] = True
    elif arg in ('-p', '--property'):
      options['property'].append(next(arguments, ''))
    elif arg.startswith('--property='):
      options['property'].append(arg.split('=', 1)[1])
    elif arg.startswith('-p') and len(arg) > 2:
      options['property'].append(arg[2:])
    elif arg.startswith('-') and arg != '-':
      raise UnitError(
          f"unrecognized option '{arg}' (this stand-in manages the system"
          ' instance only, with the options it lists)'
      )
    else:
      words.append(arg)
  return options, words


def Systemctl(argv):
  """systemctl: the exit code of the command line `argv`."""
  try:
    options, words = _SystemctlOptions(argv)
    if not words or words[0] not in COMMANDS:
      raise UnitError(
          f'unsupported command {words[0] if words else "(none)"!r}; this'
          f' stand-in knows {", ".join(COMMANDS)}'
      )
    function, changes = COMMANDS[words[0]]
    if changes and os.geteuid() != 0:
      _Stderr(f'Failed to {words[0]} {" ".join(words[1:])}: Access denied')
      return EXIT_NO_PERMISSION
    return function(options, words[1:])
  except UnitError as e:
    _Stderr(f'systemctl: {e}')
    return EXIT_FAILURE


# journalctl.


def _ReadJournal(paths, identifiers=()):
  """The entries of journal files, oldest first ([] for missing files).

  Raises:
    PermissionError: a file cannot be read by this user.
  """
  entries = []
  for path in paths:
    try:
      with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
          try:
            entries.append(json.loads(line))
          except ValueError:
            continue
    except FileNotFoundError:
      continue
  if identifiers:
    entries = [e for e in entries if e['i'] in identifiers]
  entries.sort(key=lambda e: e['t'])
  return entries


def _FormatEntry(entry, output, hostname):
  """One entry as journalctl(1) prints it with --output=`output`."""
  if output == 'cat':
    return entry['m']
  seconds, micros = divmod(entry['t'], 1_000_000)
  local = time.localtime(seconds)
  if output == 'short-unix':
    stamp = f'{seconds}.{micros:06d}'
  elif output.startswith('short-iso'):
    fraction = f'.{micros:06d}' if output == 'short-iso-precise' else ''
    stamp = time.strftime('%Y-%m-%dT%H:%M:%S', local) + fraction
    stamp += time.strftime('%z', local)
  else:
    fraction = f'.{micros:06d}' if output == 'short-precise' else ''
    stamp = time.strftime('%b %d %H:%M:%S', local) + fraction
  host = f' {hostname}' if hostname else ''
  return f'{stamp}{host} {entry["i"]}[{entry["p"]}]: {entry["m"]}'


OUTPUTS = (
    'short',
    'short-precise',
    'short-iso',
    'short-iso-precise',
    'short-unix',
    'cat',
)
_JOURNALCTL_FLAGS = (
    '--no-pager',
    '-q',
    '--quiet',
    '-x',
    '--catalog',
    '-e',
    '--pager-end',
    '-a',
    '--all',
    '-l',
    '--full',
    '-m',
    '--merge',
    '--no-hostname',
)


def Journalctl(argv):
  """journalctl: prints the journal of units; the exit code.

  journalctl(1): -u/--unit (units, patterns allowed), -t/--identifier,
  -o/--output, -n/--lines (10 without a number, -e 1000), --no-hostname,
  -q; "-- No entries --" when nothing matches. -b (this boot: all of it
  here), --no-pager and the other display flags change nothing.
  """
  units, identifiers, output, lines = [], [], 'short', None
  flags = set()
  arguments = list(argv)
  while arguments:
    arg = arguments.pop(0)
    name, equals, value = arg.partition('=')
    if name in ('-u', '--unit', '-t', '--identifier', '-o', '--output'):
      if not equals:
        value = arguments.pop(0) if arguments else ''
      if name in ('-u', '--unit'):
        units.append(value)
      elif name in ('-t', '--identifier'):
        identifiers.append(value)
      else:
        output = value
    elif arg.startswith('-u') and len(arg) > 2:
      units.append(arg[2:])
    elif arg.startswith('-o') and len(arg) > 2:
      output = arg[2:]
    elif name in ('-n', '--lines'):
      if not equals and arguments and arguments[0].isdigit():
        value = arguments.pop(0)
      lines = int(value) if value else 10
    elif arg.startswith('-n') and arg[2:].isdigit():
      lines = int(arg[2:])
    elif name in ('-b', '--boot'):
      # This boot, or the one a following offset or ID names: all the
      # same here, the journal lives as long as the machine.
      if (
          not equals
          and arguments
          and re.fullmatch(r'-?\d+|[0-9a-f]{32}', arguments[0])
      ):
        arguments.pop(0)
    elif arg in _JOURNALCTL_FLAGS:
      flags.add(arg)
    else:
      _Stderr(f"journalctl: unrecognized option or argument '{arg}'")
      return EXIT_FAILURE
  if output not in OUTPUTS:
    _Stderr(f'journalctl: unsupported output {output!r} (only {OUTPUTS})')
    return EXIT_FAILURE
  if lines is None and flags & {'-e', '--pager-end'}:
    lines = 1000
  paths = []
  if os.path.isdir(JOURNAL_DIR):
    paths = sorted(
        os.path.join(JOURNAL_DIR, f)
        for f in os.listdir(JOURNAL_DIR)
        if f.endswith('.journal')
    )
  if units:
    patterns = [UnitName(u) for u in units]
    paths = [
        p
        for p in paths
        if any(
            fnmatch.fnmatchcase(os.path.basename(p)[:-8], pattern)
            for pattern in patterns
        )
    ]
  quiet = flags & {'-q', '--quiet'}
  try:
    entries = _ReadJournal(paths, identifiers)
  except PermissionError:
    if not quiet:
      _Stderr(
          'Hint: You are currently not seeing messages from other users and'
          " the system.\n      Users in groups 'adm', 'systemd-journal' can"
          ' see all messages.\n      Pass -q to turn off this notice.'
      )
    entries = []
  if lines is not None:
    entries = entries[-lines:] if lines else []
  hostname = '' if '--no-hostname' in flags else socket.gethostname()
  if not entries and not quiet:
    print('-- No entries --')
  for entry in entries:
    print(_FormatEntry(entry, output, hostname))
  return 0


def main(argv=None):
  """Runs as the program it is called as: systemctl or journalctl."""
  argv = sys.argv if argv is None else argv
  program = os.path.basename(argv[0])
  try:
    if program == 'journalctl':
      return Journalctl(argv[1:])
    return Systemctl(argv[1:])
  except BrokenPipeError:
    return EXIT_FAILURE
  except OSError as e:
    if e.errno in (errno.EACCES, errno.EPERM):
      _Stderr(f'{program}: {e}')
      return EXIT_NO_PERMISSION
    raise


if __name__ == '__main__':
  sys.exit(main())
