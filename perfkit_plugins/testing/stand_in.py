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

"""A program a shell_vm.ShellVm cannot run, stood in for inside the machine.

Every stand-in of a ShellVm is a two-line script (at the program's path in
the machine, /usr/local/bin first on PATH and on sudo's secure_path) that
runs this file with the machine's /usr/bin/python3: standard library only.
It records its arguments, then answers from what the test configured for
the program (STAND_INS, JSON written by the ShellVm):

* `rules`: a recorded real output (stdout, stderr, exit status) for
  exactly these arguments, or for arguments matching a pattern;
* else a `behaviour` (below) for the part of a program that cannot run in
  a machine here: systemd's manager, the network, ScyllaDB's setup scripts
  whose work needs a real server;
* else the real program (`real`), for everything it can do here;
* else exit 127, saying no recorded output exists for these arguments.

The ScyllaDB behaviours run ScyllaDB's own code wherever it can run: the
setup script stand-ins take their options as the release's argparse does
(built from its recorded --help), and run ScyllaDB's scylla_util.py
functions (is_valid_nic, systemd_unit) read from its source in place.
"""

import argparse
import ast
import grp
import json
import os
import pathlib
import pwd
import re
import shlex
import stat
import subprocess
import sys
import urllib.parse

HARNESS = '/opt/shell-vm'
STAND_INS = f'{HARNESS}/stand_ins.json'
CALLS = f'{HARNESS}/calls.jsonl'
# systemd's manager state in the machine: the active units.
UNITS = f'{HARNESS}/units.json'
# Mounts that outlive the command that made them (tab-separated: source,
# target, type, options), made again in every command's mount namespace.
MOUNTS = f'{HARNESS}/mounts.tsv'
# Where systemd looks for unit files, first match wins (systemd.unit(5)).
UNIT_DIRS = (
    '/etc/systemd/system',
    '/run/systemd/system',
    '/usr/lib/systemd/system',
    '/lib/systemd/system',
)
# systemctl verbs that act on unit files: the real systemctl does them when
# no manager runs ("offline"), on the machine's private /etc and /usr.
_UNIT_FILE_VERBS = frozenset(
    ('list-unit-files', 'mask', 'unmask', 'enable', 'disable', 'is-enabled')
)
_MANAGER_VERBS = frozenset(('start', 'stop', 'restart', 'is-active'))
# Options of curl that take a value.
_CURL_VALUE_OPTIONS = frozenset(
    ('--retry', '--max-time', '--connect-timeout', '-m', '-H', '--header')
)


def _Log(path, args):
  """Appends one call to CALLS (one write: whole lines under concurrency)."""
  line = json.dumps({'path': path, 'args': args, 'uid': os.getuid()})
  with open(CALLS, 'a', encoding='utf-8') as f:
    f.write(line + '\n')


def _Matches(rule, args):
  if 'args' in rule:
    return rule['args'] == args
  return re.fullmatch(rule['pattern'], shlex.join(args)) is not None


def _Reply(rule):
  sys.stdout.write(rule.get('stdout', ''))
  sys.stderr.write(rule.get('stderr', ''))
  return rule.get('exit', 0)


def _Exec(real, args):
  os.execv(real, [real, *args])


# systemd.


def _UnitFile(unit):
  """The unit's file (a link to /dev/null when masked), or None."""
  for directory in UNIT_DIRS:
    path = os.path.join(directory, unit)
    if os.path.lexists(path):
      return path
  return None


def _Masked(path):
  return os.path.realpath(path) == '/dev/null'


def _ReadJson(path, default):
  try:
    with open(path, encoding='utf-8') as f:
      return json.load(f)
  except FileNotFoundError:
    return default


def _MountUnit(path):
  """[Mount] What, Where, Type and Options of a mount unit file."""
  fields = {}
  for line in pathlib.Path(path).read_text().splitlines():
    key, _, value = line.partition('=')
    fields[key.strip()] = value.strip()
  return fields['What'], fields['Where'], fields['Type'], fields['Options']


def _StartMount(path):
  """Mounts what a mount unit names, now and in every later command."""
  what, where, fstype, options = _MountUnit(path)
  subprocess.run(
      ['mount', '-t', fstype, '-o', options, what, where], check=True
  )
  with open(MOUNTS, 'a', encoding='utf-8') as f:
    f.write('\t'.join((what, where, fstype, options)) + '\n')


def _StopMount(path):
  _, where, _, _ = _MountUnit(path)
  subprocess.run(['umount', where], check=True)
  with open(MOUNTS, encoding='utf-8') as f:
    kept = [line for line in f if line.split('\t')[1] != where]
  with open(MOUNTS, 'w', encoding='utf-8') as f:
    f.writelines(kept)


def _Manager(verb, units):
  """What systemd's manager does for start, stop, restart and is-active.

  Messages and exit statuses are systemctl's (LSB codes: 3 inactive,
  5 not loaded or not found). A mount unit is mounted and unmounted.
  """
  state = _ReadJson(UNITS, {})
  code = 0
  for unit in units:
    unit = unit if '.' in unit else f'{unit}.service'
    path = _UnitFile(unit)
    active = state.get(unit, False)
    if verb == 'is-active':
      print('active' if active else 'inactive')
      code = code or (0 if active else 3)
      continue
    if verb in ('start', 'restart'):
      if path is None:
        print(
            f'Failed to {verb} {unit}: Unit {unit} not found.', file=sys.stderr
        )
        return 5
      if _Masked(path):
        print(
            f'Failed to {verb} {unit}: Unit {unit} is masked.', file=sys.stderr
        )
        return 1
      if unit.endswith('.mount') and not active:
        _StartMount(path)
      state[unit] = True
    else:
      if path is None and not active:
        print(
            f'Failed to stop {unit}: Unit {unit} not loaded.', file=sys.stderr
        )
        return 5
      if unit.endswith('.mount') and active:
        _StopMount(path)
      state[unit] = False
    with open(UNITS, 'w', encoding='utf-8') as f:
      json.dump(state, f)
  return code


def _Cat(units):
  """systemctl cat: each unit's file, or "No files found for"."""
  for unit in units:
    path = _UnitFile(unit)
    if path is None:
      print(f'No files found for {unit}.', file=sys.stderr)
      return 1
    print(f'# {path}')
    print(pathlib.Path(path).read_text(), end='')
  return 0


def Systemctl(args, config):
  """systemctl without systemd as PID 1.

  Unit-file verbs run the real systemctl (offline, on the machine's own
  /etc/systemd and /usr/lib/systemd); what needs the manager is done here
  (_Manager); `cat` reads the unit files; daemon-reload has nothing to
  reload.
  """
  words = [a for a in args if not a.startswith('-')]
  if not words:
    _Exec(config['real'], args)
  verb, units = words[0], words[1:]
  if verb in _UNIT_FILE_VERBS:
    real = [config['real'], *(a for a in args if a != '--now')]
    code = subprocess.run(real, check=False).returncode
    if code == 0 and '--now' in args:
      code = _Manager('start' if verb == 'enable' else 'stop', units)
    return code
  if verb in _MANAGER_VERBS:
    if verb == 'restart':
      _Manager('stop', units)
    return _Manager(verb, units)
  if verb == 'cat':
    return _Cat(units)
  if verb == 'daemon-reload':
    return 0
  print(f'systemctl stand-in: {verb} is not done here', file=sys.stderr)
  return 1


# The network.


def Curl(args, config):
  """curl against the URLs the test serves (`urls`), no network.

  Writes the body to -o's file or stdout; any other URL fails as an
  unreachable host does (exit 7, curl's message).
  """
  output = url = None
  i = 0
  while i < len(args):
    arg = args[i]
    if arg in ('-o', '--output'):
      output = args[i + 1]
      i += 2
    elif arg in _CURL_VALUE_OPTIONS:
      i += 2
    elif arg.startswith('-'):
      i += 1
    else:
      url = arg
      i += 1
  body = config['urls'].get(url)
  if body is None:
    parts = urllib.parse.urlsplit(url or '')
    port = parts.port or {'https': 443}.get(parts.scheme, 80)
    print(
        f'curl: (7) Failed to connect to {parts.hostname} port {port} after'
        " 0 ms: Couldn't connect to server",
        file=sys.stderr,
    )
    return 7
  if output:
    try:
      pathlib.Path(output).write_text(body)
    except OSError as e:
      print(
          f'curl: (23) Failure writing output to destination: {e.strerror}',
          file=sys.stderr,
      )
      return 23
  else:
    sys.stdout.write(body)
  return 0


def Gpg(args, config):
  """The real gpg, but --recv-keys from the test's key server (`keyserver`).

  The key server holds {fingerprint: armored key}; a key asked by
  fingerprint or by its 64-bit id is imported with the real gpg, with the
  options given (home, keyring). As gpg does, the keys found are imported
  and the exit status is 2 when any was not.
  """
  if '--recv-keys' not in args:
    _Exec(config['real'], args)
  at = args.index('--recv-keys')
  options = []
  before = args[:at]
  i = 0
  while i < len(before):
    if before[i] == '--keyserver':
      i += 2
      continue
    options.append(before[i])
    i += 1
  served = config['keyserver']
  found, missing = [], []
  for key in args[at + 1 :]:
    key = key.upper().removeprefix('0X')
    matches = [k for f, k in served.items() if f.upper().endswith(key)]
    (found if matches else missing).extend(matches or [key])
  code = 0
  if found:
    code = subprocess.run(
        [config['real'], *options, '--import'],
        input=''.join(found),
        text=True,
        check=False,
    ).returncode
  for key in missing:
    print(f'gpg: keyserver receive failed: No data ({key})', file=sys.stderr)
  return code or (2 if missing else 0)


# ScyllaDB's setup scripts.


def ScyllaUtil(path, names):
  """Functions and classes of ScyllaDB's scylla_util.py, read in place.

  Only `names` are taken (scylla_util imports modules a machine here
  lacks); they run as ScyllaDB wrote them, with subprocess's run, the
  machine's systemctl and sys.argv[0] the stand-in script's path.
  """
  tree = ast.parse(pathlib.Path(path).read_text(), path)
  body = [
      node
      for node in tree.body
      if isinstance(node, (ast.FunctionDef, ast.ClassDef))
      and node.name in names
  ]
  namespace = {
      'os': os,
      'sys': sys,
      'subprocess': subprocess,
      'run': subprocess.run,
      'DEVNULL': subprocess.DEVNULL,
      'PIPE': subprocess.PIPE,
      'Path': pathlib.Path,
  }
  exec(  # pylint: disable=exec-used
      compile(ast.Module(body=body, type_ignores=[]), path, 'exec'), namespace
  )
  return namespace


def ParserFromHelp(prog, help_text):
  """An argparse parser taking exactly the options a --help usage lists.

  `(--a A | --b)` is a required choice of one, `[--c {0,1}]` an optional
  option with choices, `--d D` outside brackets a required one; an option
  shown with a value takes one, else it is a switch. What it refuses, it
  refuses as the script's own argparse does (exit 2, usage on stderr).
  """
  usage = help_text.split('\n\n', 1)[0]
  usage_body = ' '.join(usage.split()).removeprefix(f'usage: {prog}')
  parser = argparse.ArgumentParser(prog=prog, usage=usage[len('usage: ') :])
  option = r'(--[\w-]+)(?: (\{[^}]*\}|[A-Z][A-Z0-9_]*))?'
  for group in re.finditer(
      r'\(([^)]*)\)|\[([^\]]*)\]|(--[^\s\[\(]+(?: [A-Z][A-Z0-9_]*)?)',
      usage_body,
  ):
    choice, optional, required = group.groups()
    if choice:
      target = parser.add_mutually_exclusive_group(required=True)
      specs, is_required = choice.split(' | '), False
    else:
      target = parser
      specs, is_required = [optional or required], required is not None
    for spec in specs:
      match = re.fullmatch(option, spec.strip())
      if not match:
        continue
      name, value = match.groups()
      if value is None:
        target.add_argument(name, action='store_true')
      elif value.startswith('{'):
        target.add_argument(
            name, choices=value[1:-1].split(','), required=is_required
        )
      else:
        target.add_argument(name, required=is_required)
  return parser


def _NicExists(parsed, config, path):
  """scylla_setup's non-interactive NIC check (2026.3 scylla_setup 281-291).

  With sysconfig setup (the default) a NIC given must exist
  (scylla_util.is_valid_nic: /sys/class/net/<nic>); none given means eth0.
  """
  del path  # Unused.
  if getattr(parsed, 'no_sysconfig_setup', False):
    return 0
  util = ScyllaUtil(config['scylla_util'], ('is_valid_nic',))
  nic = parsed.nic or 'eth0'
  if not util['is_valid_nic'](nic):
    print(f"NIC {nic} doesn't exist.")
    return 1
  return 0


def _PerfCollector(parsed, config, path):
  """The perf collector step of scylla_setup from 2026.4 (master f4a4091ca2).

  scylla_setup lines 318 and 547-557: as root, with
  --no-perf-collector-setup it stops and disables
  scylla-perf-collector.service, else it enables and starts it; both look
  the unit up first (systemd_unit, scylla_util.py lines 419-429: `systemctl
  cat`), which raises SystemdException when no such unit exists. Run here
  with ScyllaDB's own systemd_unit (the same class in 2026.3's
  scylla_util.py, read in place), so the exception ends the script with
  its traceback and exit status 1, as it ends scylla_setup.
  """
  sys.argv[0] = path
  util = ScyllaUtil(
      config['scylla_util'],
      (
          'scriptsdir_p',
          'scylladir_p',
          'is_nonroot',
          'out',
          'SystemdException',
          'systemd_unit',
      ),
  )
  if util['is_nonroot']():
    return 0
  unit = util['systemd_unit']('scylla-perf-collector.service')
  if parsed.no_perf_collector_setup:
    unit.stop()
    unit.disable()
  else:
    unit.enable()
    unit.start()
  return 0


def _Raid(parsed, config, path):
  """What scylla_raid_setup does to one disk (2026.3, lines 170-375).

  The disk must be a block device; a mounted /var/lib/scylla or an
  existing mount unit is refused. Then, as the script does without an
  array (one disk, no --force-raid): wipefs, mkfs.xfs with its options,
  the mount unit with What= the disk itself (the script's fallback when
  udev gives no by-uuid link, as here), started and enabled through
  systemctl, and the directory tree owned by scylla. Several disks (an
  mdadm array) are not done here.
  """
  del config, path  # Unused.
  disks = parsed.disks.split(',')
  if len(disks) != 1 or getattr(parsed, 'force_raid', False):
    print('stand-in: one disk, no array', file=sys.stderr)
    return 1
  (disk,) = disks
  if not os.path.exists(disk):
    print(f'{disk} is not found')
    return 1
  if not stat.S_ISBLK(os.stat(disk).st_mode):
    print(f'{disk} is not block device')
    return 1
  root = (getattr(parsed, 'root', None) or '/var/lib/scylla').rstrip('/')
  if os.path.ismount(root):
    print(f'{root} is already mounted')
    return 1
  unit_name = subprocess.run(
      ['systemd-escape', '-p', '--suffix=mount', root],
      capture_output=True,
      text=True,
      check=True,
  ).stdout.strip()
  unit_path = f'/etc/systemd/system/{unit_name}'
  if os.path.exists(unit_path):
    print(f'mount unit {unit_path} already exists')
    return 1
  subprocess.run(['wipefs', '-a', disk], check=True, capture_output=True)
  subprocess.run(
      ['mkfs.xfs', disk, '-K', '-m', 'rmapbt=0', '-m', 'reflink=0'],
      check=True,
      capture_output=True,
  )
  os.makedirs(root, exist_ok=True)
  discard = str(getattr(parsed, 'online_discard', 'True')).lower() in (
      'y',
      'yes',
      't',
      'true',
      'on',
      '1',
  )
  options = 'noatime' + (',discard' if discard else '') + ',lazytime'
  pathlib.Path(unit_path).write_text(
      '[Unit]\nDescription=Scylla data directory\n'
      'Before=local-fs.target scylla-server.service\nAfter=\nWants=\n'
      f'DefaultDependencies=no\n\n[Mount]\nWhat={disk}\nWhere={root}\n'
      f'Type=xfs\nOptions={options}\n\n[Install]\nWantedBy=local-fs.target\n'
  )
  for verb in ('start', 'enable'):
    if verb == 'enable' and not parsed.enable_on_nextboot:
      continue
    subprocess.run(['systemctl', verb, unit_name], check=True)
  uid = pwd.getpwnam('scylla').pw_uid
  gid = grp.getgrnam('scylla').gr_gid
  os.chown(root, uid, gid)
  for name in (
      'coredump',
      'data',
      'commitlog',
      'hints',
      'view_hints',
      'saved_caches',
  ):
    os.makedirs(f'{root}/{name}', exist_ok=True)
    os.chown(f'{root}/{name}', uid, gid)
  return 0


_EFFECTS = {
    'nic_exists': _NicExists,
    'perf_collector': _PerfCollector,
    'raid': _Raid,
}


def SetupScript(path, args, config):
  """One of ScyllaDB's setup scripts (scylla_setup, scylla_raid_setup).

  As the scripts do: root only ("Requires root permission.", exit 1);
  --help prints the release's recorded help; options are taken as its
  argparse takes them (ParserFromHelp). Then its `effects` (above) run in
  order, and `writes` lays out the files it writes ({path, text, and
  optionally unless: an option that, given, skips the file}).
  """
  if os.getuid() > 0:
    print('Requires root permission.')
    return 1
  prog = os.path.basename(path)
  if args in (['--help'], ['-h']):
    sys.stdout.write(config['help'])
    return 0
  parsed = ParserFromHelp(prog, config['help']).parse_args(args)
  for effect in config.get('effects', ()):
    code = _EFFECTS[effect](parsed, config, path)
    if code:
      return code
  for write in config.get('writes', ()):
    if write.get('unless') and getattr(parsed, write['unless'], False):
      continue
    target = pathlib.Path(write['path'])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(write['text'])
  return 0


_BEHAVIOURS = {
    'systemctl': lambda path, args, config: Systemctl(args, config),
    'curl': lambda path, args, config: Curl(args, config),
    'gpg': lambda path, args, config: Gpg(args, config),
    'setup_script': SetupScript,
}


def Main(argv):
  """argv: this file, the stand-in's path, then the program's arguments."""
  path, args = argv[1], argv[2:]
  _Log(path, args)
  program = os.path.basename(path)
  config = _ReadJson(STAND_INS, {}).get(program, {})
  for rule in config.get('rules', ()):
    if _Matches(rule, args):
      return _Reply(rule)
  if config.get('behaviour'):
    return _BEHAVIOURS[config['behaviour']](path, args, config)
  if config.get('real'):
    _Exec(config['real'], args)
  print(
      f'{program} (stand-in): no recorded output for {shlex.join(args)}',
      file=sys.stderr,
  )
  return 127


if __name__ == '__main__':
  sys.exit(Main(sys.argv))
