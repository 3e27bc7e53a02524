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

"""ScyllaDB's Debian packages and signed apt repository, built here.

No ScyllaDB binary can be had where this project is tested, but ScyllaDB's
own setup files can (a source tree holding its install.sh, dist/common,
dist/debian, conf/ and seastar's perftune.py). `BuildPackages` lays them out
as ScyllaDB's packaging does, reading them at build time: install.sh's root
install for Debian (`install.sh --packaging --sysconfdir /etc/default`, as
dist/debian/debian/rules:24 runs it) into a staging tree, written here in
Python step by step with the install.sh lines each step follows (install.sh
itself needs ScyllaDB's build tree), and its texts (the program thunks, the
relocatable-Python wrappers, the systemd drop-ins) taken from install.sh's
own here-documents; then split into packages by dist/debian/debian/*.install
as dh_install does, with the unit and default files dh_installinit adds,
ScyllaDB's maintainer scripts, and control fields from dist/debian/
control.template. What install.sh installs and the source does not hold is
left out.

ScyllaDB's binaries are stand-ins (perfkit_plugins/data/scylla_standin):
`scylla` (an Apache Cassandra node behind ScyllaDB's start-up, REST API and
maintenance socket; `scylla nodetool`), `iotune` and `cqlsh`, with the
Cassandra install `cassandra_build.BuildTarball` packs inside scylla-server.
scylla-python3 is the host's Python 3.11 as a virtual environment with the
modules ScyllaDB's scripts import (PYTHON_REQUIREMENTS, wheels from PyPI
cached under ~/.cache/perfkit_plugins).

`BuildAptRepository` makes an apt repository of the packages as ScyllaDB's
is laid out (`scylladb-<series>/`, suite `stable`, component `main`), its
Release signed with a throwaway key made with gpg, exported beside it.
"""

import dataclasses
import glob
import gzip
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import yaml

import perfkit_plugins
from perfkit_plugins.engines import scylla as scylla_engine
from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import mirror_server

PRODUCT = 'scylla'
# The release stood in for: tag scylla-2026.3.0-rc3-candidate-20260817021356
# of scylladb/scylladb (a6e1be00632f). Its SCYLLA-VERSION-FILE says
# 2026.3.0-rc3, whose `-` configure.py:1971 and debian_files_gen.py:25 read
# as `~`; its SCYLLA-RELEASE-FILE is build 0, the date, the commit's 12-digit
# abbreviation (SCYLLA-VERSION-GEN); the Debian revision is 1
# (debian_files_gen.py:54).
SERIES = '2026.3'
VERSION = '2026.3.0~rc3'
RELEASE = '0.20260817.a6e1be00632f'
REVISION = '1'
DEB_VERSION = f'{VERSION}-{RELEASE}-{REVISION}'
ARCHITECTURE = 'amd64'
# ScyllaDB's setup files of that release: $PERFKIT_PLUGINS_SCYLLA_SOURCE,
# else shared/scylladb/2026.3.0-rc3 beside a source checkout of this project.
SOURCE_ENV = 'PERFKIT_PLUGINS_SCYLLA_SOURCE'
SOURCE_NAME = VERSION.replace('~', '-')
MAINTAINER = 'perfkit-plugins <perfkit-plugins@localhost.invalid>'
# ScyllaDB's apt repository: one directory per series, suite, component.
REPOSITORY_DIR = f'scylladb-{SERIES}'
# The apt list file on a mirror, as --scylla_repo_url's template names it.
LIST_NAME = 'scylla-{version}.list'
SUITE = 'stable'
COMPONENT = 'main'

# install.sh's settings under dist/debian/debian/rules:24 (a root install,
# --packaging, /etc/default, Debian's p11-kit trust path).
PREFIX = '/opt/scylladb'
SYSCONFDIR = '/etc/default'
P11_TRUST_PATHS = '/etc/ssl/certs/ca-certificates.crt'
PYTHON3 = f'{PREFIX}/python3/bin/python3'

# The packages: ScyllaDB's from control.template (the debug symbols and
# transitional packages aside), and the two its source builds elsewhere.
SERVER = f'{PRODUCT}-server'
CONF = f'{PRODUCT}-conf'
KERNEL_CONF = f'{PRODUCT}-kernel-conf'
PYTHON3_PACKAGE = f'{PRODUCT}-python3'
CQLSH_PACKAGE = f'{PRODUCT}-cqlsh'
TEMPLATE_PACKAGES = (CONF, SERVER, KERNEL_CONF, PRODUCT)
# The metapackage's dependency with no package here (Prometheus' exporter).
LEFT_OUT_DEPENDS = ('scylla-node-exporter',)

# What install.sh installs from ScyllaDB's build tree, which the source
# here does not hold, is left out (install.sh lines): seastar-cpu-map.sh
# (401, 477), dpdk-devbind.py (402), libreloc/ (the binaries' libraries and
# their .hmac, 403-436), ubsan-suppressions.supp (443), README.md, ORIGIN
# and licenses/ (446-450), swagger-ui/ and api/api-doc/ (457-460),
# tools/scyllatop (461-462, 465, 549, 559-568, 592), scylla-gdb.py (583),
# seastar's addr2line.py and seastar-addr2line (589) and
# fix_system_distributed_tables.py (593).

# The stand-in programs and where they go: libexec/ binaries get
# install.sh's thunks (adjust_bin), cqlsh a relocatable-Python wrapper.
STANDIN_SOURCE = (
    pathlib.Path(perfkit_plugins.__file__).parent / 'data' / 'scylla_standin'
)
STANDIN_PACKAGE = 'scylla_standin'
STANDIN_SHARE = f'{PREFIX}/share/standin'
STANDIN_LIB = f'{STANDIN_SHARE}/lib'
STANDIN_BINARIES = {'scylla': 'scylla', 'iotune': 'iotune'}
# Programs ScyllaDB's relocatable package carries in libexec/ (install.sh
# :439-442) that Debian packages too: the real ones, linked from there
# (scylla_prepare:76-84 runs /opt/scylladb/bin/hwloc-calc), and the
# Debian package that has them, which scylla-server then depends on.
DEBIAN_BINARIES = {
    'hwloc-calc': '/usr/bin/hwloc-calc',
    'hwloc-distrib': '/usr/bin/hwloc-distrib',
}
DEBIAN_BINARIES_PACKAGE = 'hwloc'
# seastar's perftune.py, beside the stand-in's wrapper of it in libexec/.
SEASTAR_PERFTUNE = 'perftune-seastar.py'
CQLSH_DIR = f'{PREFIX}/share/cassandra/bin'
# scylla-cqlsh carries what its stand-in imports, as it needs no server.
CQLSH_LIB = f'{PREFIX}/share/cassandra/lib'
CQLSH_MODULES = ('__init__.py', 'cql.py', 'cqlsh.py')
# The benchmark's own modules the stand-ins import (standard library only).
SHARED_MODULES = (
    'perfkit_plugins/__init__.py',
    'perfkit_plugins/core/__init__.py',
    'perfkit_plugins/core/quiesce/__init__.py',
    'perfkit_plugins/core/quiesce/compactions.py',
    'perfkit_plugins/core/quiesce/node_status.py',
)
LAUNCHER = """#!{interpreter}
# The perfkit-plugins stand-in for ScyllaDB's {name}: {readme}.
import os
import sys

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.realpath(__file__)), {lib!r})
)
from scylla_standin import {module}

sys.exit({module}.Main(sys.argv))
"""
# bin/nodetool (ScyllaDB's bin/nodetool: the native nodetool is a tool of
# the scylla binary beside it, or $SCYLLA).
NODETOOL_SCRIPT = """#!/bin/bash -e
# The perfkit-plugins stand-in's nodetool: `scylla nodetool`, as ScyllaDB's.
exec "${SCYLLA:-$(dirname "$(realpath "$0")")/scylla}" nodetool "$@"
"""
README = f"""The perfkit-plugins stand-in for ScyllaDB {VERSION}

No ScyllaDB binary can be had where perfkit-plugins is tested: these
packages lay out ScyllaDB's own setup scripts and files as its packages do,
with stand-ins for its programs (lib/scylla_standin):

  {PREFIX}/bin/scylla     ScyllaDB's start-up, REST API (the calls the
                          benchmark makes) and maintenance socket, with an
                          Apache Cassandra node (cassandra/) as the database
  {PREFIX}/bin/nodetool   `scylla nodetool`: status and flush
  {PREFIX}/bin/iotune     a short direct-I/O measurement, written as iotune
  /usr/bin/cqlsh          answers the benchmark's system.tablets query

The Cassandra node: heap from $SCYLLA_STANDIN_HEAP (default in
standin.json), more JVM options from $SCYLLA_STANDIN_JVM_OPTIONS (both may
be set in /etc/scylla.d/*.conf, which the unit reads), Java 17 or 11 from
$JAVA_HOME, PATH or /usr/lib/jvm, JMX on loopback for nodetool.
"""

# scylla-python3: the host's Python as a virtual environment (a link to
# /usr/bin/python3 and a pyvenv.cfg: Python reads its site-packages, .pth
# files included, and not the host's), and the modules ScyllaDB's scripts
# import: yaml (scylla_util, scylla_io_setup, perftune.py), distro and
# traceback_with_variables (scylla_util), psutil and pyudev (perftune.py,
# scylla_raid_setup, scylla_nofile_setup, scylla_swap_setup), pkg_resources
# (scylla-housekeeping; setuptools before 81, whose distutils also serves
# perftune.py's `import distutils.util`). perftune.py needs libudev (pyudev).
PYTHON_VERSION = '3.11'
PYTHON_REQUIREMENTS = (
    'PyYAML==6.0.4',
    'distro==1.9.0',
    'psutil==7.2.2',
    'pyudev==0.24.5',
    'setuptools==80.10.2',
    'traceback-with-variables==2.2.1',
)
PYTHON_PLATFORMS = (
    'manylinux2014_x86_64',
    'manylinux_2_17_x86_64',
    'manylinux_2_28_x86_64',
)
PYTHON_DEPENDS = 'python3 (>= 3.11~), python3 (<< 3.12), libudev1'
WHEELS_ENV = 'PERFKIT_PLUGINS_SCYLLA_WHEELS'
DEFAULT_WHEELS = pathlib.Path('~/.cache/perfkit_plugins/scylla-python3')
COMPLETE_MARKER = 'COMPLETE'

# A scylla.yaml line setting a key, or showing one commented out.
CONFIG_KEY_RE = re.compile(
    r'^#?\s?([a-z][a-z0-9_]*):(?:\s*|\s+\S+\s*)$', re.MULTILINE
)
DEBHELPER_NOTE = (
    '# #DEBHELPER#: dh_installinit --no-start (debian/rules:28-37, debhelper'
    ' compat 9)\n# adds update-rc.d calls for /etc/init.d scripts only,'
    ' which these packages\n# do not have.'
)
_CARRIED_FIELDS = (
    'Depends',
    'Replaces',
    'Conflicts',
    'Breaks',
    'Section',
    'Priority',
)
_STANDIN_NOTE = (
    " .\n This build is a perfkit-plugins stand-in for tests: ScyllaDB's"
    ' setup\n scripts and files, with stand-ins for its programs.'
)


def SourceDir():
  """ScyllaDB's setup files: $PERFKIT_PLUGINS_SCYLLA_SOURCE, else shared/."""
  return pathlib.Path(
      os.environ.get(SOURCE_ENV)
      or pathlib.Path(perfkit_plugins.__file__).resolve().parents[2]
      / 'shared'
      / 'scylladb'
      / SOURCE_NAME
  )


class ScyllaBuildError(Exception):
  """The packages or the repository could not be built."""


def _Run(command, **kwargs):
  """Runs a command; ScyllaBuildError with its output when it fails."""
  result = subprocess.run(
      command, capture_output=True, text=True, check=False, **kwargs
  )
  if result.returncode:
    raise ScyllaBuildError(
        f'{command[0]} exited {result.returncode}: {" ".join(command)}\n'
        f'{result.stdout}\n{result.stderr}'
    )
  return result.stdout


# Files of the staging tree.


def _Dir(path, mode=0o755):
  """`install -d -m<mode>`."""
  path.mkdir(parents=True, exist_ok=True)
  path.chmod(mode)


def _Install(source, target, mode):
  """`install -m<mode> source target`: a copy with that mode."""
  _Dir(target.parent)
  if target.exists() or target.is_symlink():
    target.unlink()
  shutil.copyfile(source, target)
  target.chmod(mode)


def _Write(target, text, mode=0o644):
  """A file of `text` with that mode."""
  _Dir(target.parent)
  target.write_text(text)
  target.chmod(mode)


def _LinkRelative(target, link):
  """`ln -srf target link`: a relative link."""
  _Dir(link.parent)
  if link.exists() or link.is_symlink():
    link.unlink()
  link.symlink_to(os.path.relpath(target, link.parent))


def _Resolve(path):
  """A file of dist/debian/debian, following a git link kept as text.

  The shared source stores git's symbolic links as files holding their
  target (`../../common/systemd/scylla-server.service`).
  """
  path = pathlib.Path(path)
  if path.is_symlink():
    return path.resolve()
  text = path.read_text()
  if '\n' not in text.strip() and text.strip().startswith('.'):
    target = (path.parent / text.strip()).resolve()
    if target.is_file():
      return target
  return path


# install.sh's here-documents, expanded as bash expands an unquoted one.

_EXPANSION_RE = re.compile(
    r'\\([$`\\\n])|\$\{(\w+)(?:(:?[-+])((?:[^{}]|\{[^{}]*\})*))?\}|\$(\w+)'
)


def _Expand(text, variables):
  """Expands $name, ${name}, ${name:+word}, ${name-word} and escapes."""

  def Replace(match):
    escaped, braced, operator, word, plain = match.groups()
    if escaped is not None:
      return '' if escaped == '\n' else escaped
    if plain is not None:
      return variables.get(plain, '')
    value = variables.get(braced)
    if operator in (':+', '+'):
      present = bool(value) if operator == ':+' else value is not None
      return _Expand(word, variables) if present else ''
    if operator in (':-', '-'):
      absent = not value if operator == ':-' else value is None
      return _Expand(word, variables) if absent else value
    return value or ''

  return _EXPANSION_RE.sub(Replace, text)


def Heredoc(script, marker, variables):
  """The here-document opened on the first line holding `marker`, expanded.

  Args:
    script: install.sh's text.
    marker: text of the line that opens it (`cat > "$install"<<EOF`).
    variables: the shell variables it expands.

  Raises:
    ScyllaBuildError: no such here-document.
  """
  lines = script.splitlines(keepends=True)
  for i, line in enumerate(lines):
    opener = re.search(r'<<\s*(\w+)', line)
    if marker in line and opener:
      body = []
      for text in lines[i + 1 :]:
        if text.rstrip('\n') == opener.group(1):
          return _Expand(''.join(body), variables)
        body.append(text)
  raise ScyllaBuildError(f'no here-document at {marker!r} in install.sh')


@dataclasses.dataclass(frozen=True)
class _Source:
  """ScyllaDB's files, read in place."""

  root: pathlib.Path

  @property
  def install_sh(self):
    return (self.root / 'install.sh').read_text()

  @property
  def scripts(self):
    return self.root / 'dist' / 'common' / 'scripts'

  @property
  def debian(self):
    return self.root / 'dist' / 'debian' / 'debian'


def _Executable(path):
  return os.access(path, os.X_OK)


def _RelocatePython3(source, install_dir, script, root):
  """install.sh:166-198 relocate_python3: script into libexec/, a wrapper."""
  install_dir = root / install_dir.lstrip('/')
  target = install_dir / script.name
  if not _Executable(script):
    _Install(script, target, 0o755)
    return
  _Install(script, install_dir / 'libexec' / script.name, 0o755)
  python_dir = os.path.dirname(
      os.path.relpath(root / PYTHON3.lstrip('/'), install_dir)
  )
  _Write(
      target,
      Heredoc(
          source.install_sh,
          'cat > "$install"<<EOF',
          {'pythonpath': python_dir},
      ),
      0o755,
  )


def _IsPythonScript(path):
  """install.sh:585: a line opening with `#!/usr/bin/env python3`."""
  return any(
      line.startswith('#!/usr/bin/env python3')
      for line in path.read_text(errors='replace').splitlines()
  )


def _Launcher(name, module, interpreter, location, lib_dir=STANDIN_LIB):
  """A stand-in program's file, at `location`, importing from lib_dir."""
  lib = os.path.relpath(lib_dir, os.path.dirname(location))
  return LAUNCHER.format(
      interpreter=interpreter,
      name=name,
      readme=f'{STANDIN_SHARE}/README',
      lib=lib,
      module=module,
  )


def _StageStandin(root, cassandra_tarball, config_options):
  """The stand-ins' library, settings and Cassandra install (share/standin)."""
  share = root / STANDIN_SHARE.lstrip('/')
  modules = sorted(
      p.name for p in STANDIN_SOURCE.glob(f'{STANDIN_PACKAGE}/*.py')
  )
  _StageLib(root, STANDIN_LIB, modules)
  cassandra = share / 'cassandra'
  with tarfile.open(cassandra_tarball) as archive:
    members = archive.getmembers()
    top = members[0].name.split('/')[0]
    match = re.fullmatch(r'apache-cassandra-(.+)', top)
    if not match:
      raise ScyllaBuildError(f'{cassandra_tarball} is no Cassandra tarball')
    for member in members:
      parts = member.name.split('/')
      if (
          len(parts) < 2
          or parts[1] == 'logs'
          or not (member.isfile() or member.isdir())
      ):
        continue
      target = cassandra.joinpath(*parts[1:])
      if member.isdir():
        _Dir(target)
        continue
      _Dir(target.parent)
      with archive.extractfile(member) as data, open(target, 'wb') as out:
        shutil.copyfileobj(data, out)
      target.chmod(0o755 if member.mode & 0o111 else 0o644)
  settings = {
      'version': VERSION,
      'release': RELEASE,
      'cassandra_version': match.group(1),
      'heap': cassandra_build.DEFAULT_HEAP,
      'config_options': config_options,
  }
  _Write(share / 'standin.json', json.dumps(settings, indent=1) + '\n')
  _Write(share / 'README', README)


def _StageLib(root, lib_dir, modules):
  """The stand-in's modules named, and the benchmark's they import."""
  lib = root / lib_dir.lstrip('/')
  for module in modules:
    _Install(
        STANDIN_SOURCE / STANDIN_PACKAGE / module,
        lib / STANDIN_PACKAGE / module,
        0o644,
    )
  repository = pathlib.Path(perfkit_plugins.__file__).parents[1]
  for module in SHARED_MODULES:
    _Install(repository / module, lib / module, 0o644)


def ConfigOptions(scylla_yaml_text):
  """scylla.yaml keys ScyllaDB takes as options: set or shown commented.

  A commented key counts when its line is `#key:` or `# key:` with at most
  one word after it (so prose such as `# true: relaxed checks` does not).
  """
  keys = set(yaml.safe_load(scylla_yaml_text) or {})
  keys.update(CONFIG_KEY_RE.findall(scylla_yaml_text))
  return sorted(keys)


def _StageInstallSh(source, root, cassandra_tarball):
  """install.sh's root install for Debian packaging, into `root`.

  Args:
    source: _Source.
    root: the staging tree (install.sh's --root).
    cassandra_tarball: the stand-in server's Cassandra install.
  """
  script = source.install_sh
  prefix = root / PREFIX.lstrip('/')
  etc, usr = root / 'etc', root / 'usr'
  sysconfdir = root / SYSCONFDIR.lstrip('/')
  systemd = usr / 'lib' / 'systemd' / 'system'
  dist = source.root / 'dist' / 'common'
  conf = source.root / 'conf'

  # scylla-conf (343-358): scylla.yaml pointing at the API docs, the rack
  # file (housekeeping.cfg only with --housekeeping, which rules omit).
  _Dir(etc / 'scylla')
  _Dir(etc / 'scylla.d')
  yaml_text = ''.join(
      line
      for line in (conf / 'scylla.yaml').read_text().splitlines(keepends=True)
      if 'api_ui_dir' not in line and 'api_doc_dir' not in line
  )
  yaml_text += f'api_ui_dir: {PREFIX}/swagger-ui/dist/\n'
  yaml_text += f'api_doc_dir: {PREFIX}/api/api-doc/\n'
  _Write(etc / 'scylla' / 'scylla.yaml', yaml_text)
  _Install(
      conf / 'cassandra-rackdc.properties',
      etc / 'scylla' / 'cassandra-rackdc.properties',
      0o644,
  )

  # scylla-kernel-conf (359-381): sysctl files, the scheduler tuning.
  for sysctl in sorted((dist / 'sysctl.d').glob('*.conf')):
    _Install(sysctl, usr / 'lib' / 'sysctl.d' / sysctl.name, 0o644)
  kernel_conf = prefix / 'kernel_conf'
  _Install(
      dist / 'kernel_conf' / 'scylla_tune_sched',
      kernel_conf / 'scylla_tune_sched',
      0o755,
  )
  _Install(
      dist / 'kernel_conf' / 'post_install.sh',
      kernel_conf / 'post_install.sh',
      0o755,
  )
  _Install(
      dist / 'systemd' / 'scylla-tune-sched.service',
      systemd / 'scylla-tune-sched.service',
      0o644,
  )
  _RelocatePython3(
      source,
      f'{PREFIX}/kernel_conf',
      dist / 'kernel_conf' / 'scylla_tune_sched',
      root,
  )

  # scylla-server (383-400): sysconfig, scylla.d, directories, units.
  for name in ('scylla-housekeeping', 'scylla-server'):
    _Install(dist / 'sysconfig' / name, sysconfdir / name, 0o644)
  for conf_file in sorted((dist / 'scylla.d').glob('*.conf')):
    _Install(conf_file, etc / 'scylla.d' / conf_file.name, 0o644)
  for name in ('bin', 'libexec', 'libreloc', 'scripts'):
    _Dir(prefix / name)
  units = [
      dist / 'systemd' / f'{name}.service'
      for name in (
          'scylla-fstrim',
          'scylla-housekeeping-daily',
          'scylla-housekeeping-restart',
          'scylla-server',
      )
  ]
  units += sorted((dist / 'systemd').glob('*.slice'))
  units += sorted((dist / 'systemd').glob('*.timer'))
  for unit in units:
    _Install(unit, systemd / unit.name, 0o644)

  # The binaries (439-442): the stand-ins in libexec/, each with install.sh's
  # thunk in bin/ (adjust_bin, 147-164).
  for name in [*STANDIN_BINARIES, *DEBIAN_BINARIES]:
    if name in STANDIN_BINARIES:
      _Write(
          prefix / 'libexec' / name,
          _Launcher(
              name,
              STANDIN_BINARIES[name],
              PYTHON3,
              f'{PREFIX}/libexec/{name}',
          ),
          0o755,
      )
    else:
      (prefix / 'libexec' / name).symlink_to(DEBIAN_BINARIES[name])
    _Write(
        prefix / 'bin' / name,
        Heredoc(
            script,
            'cat > "$root/$prefix/bin/$bin" <<EOF',
            {
                'prefix': PREFIX,
                'bin': name,
                'p11_trust_paths': P11_TRUST_PATHS,
            },
        ),
        0o755,
    )
  _StageStandin(
      root, cassandra_tarball, ConfigOptions((conf / 'scylla.yaml').read_text())
  )

  # Documents (445-450), with the licences that go with every copy of
  # ScyllaDB's and seastar's files.
  doc = prefix / 'share' / 'doc' / 'scylla'
  _Install(source.root / 'NOTICE.txt', doc / 'NOTICE.txt', 0o644)
  for license_file in source.root.glob('LICENSE*'):
    _Install(license_file, doc / license_file.name, 0o644)
  for name in ('LICENSE', 'NOTICE'):
    _Install(
        source.root / 'seastar' / name,
        doc / 'licenses' / 'seastar' / name,
        0o644,
    )

  # Data directories (451-456).
  data = root / 'var' / 'lib' / 'scylla'
  for sub in ('', 'data', 'commitlog', 'hints', 'view_hints', 'coredump'):
    _Dir(data / sub)

  # ScyllaDB's scripts (463-464, `cp -pr`: modes kept), with
  # scylla_post_install.sh, which create-relocatable-package.py:225-228
  # puts among them (a stand-in written from ScyllaDB's).
  scripts = prefix / 'scripts'
  for path in sorted(source.scripts.iterdir()):
    _Install(path, scripts / path.name, path.stat().st_mode & 0o777 | 0o200)
  _Install(
      STANDIN_SOURCE / 'scripts' / 'scylla_post_install.sh',
      scripts / 'scylla_post_install.sh',
      0o755,
  )

  # Tools (471-474): nodetool's completion, bin/nodetool.
  _Install(
      dist / 'nodetool-completion',
      etc / 'bash_completion.d' / 'nodetool-completion',
      0o644,
  )
  _Write(prefix / 'bin' / 'nodetool', NODETOOL_SCRIPT, 0o755)

  # systemd drop-ins (479-498): dependencies, the Debian sysconfig dir.
  drop_ins = etc / 'systemd' / 'system'
  _Install(
      dist / 'systemd' / 'scylla-server.service.d' / 'dependencies.conf',
      drop_ins / 'scylla-server.service.d' / 'dependencies.conf',
      0o644,
  )
  _Write(
      drop_ins / 'scylla-server.service.d' / 'sysconfdir.conf',
      Heredoc(
          script,
          'scylla-server.service.d/sysconfdir.conf',
          {'sysconfdir': SYSCONFDIR},
      ),
  )
  for kind in ('daily', 'restart'):
    _Write(
        drop_ins / f'scylla-housekeeping-{kind}.service.d' / 'sysconfdir.conf',
        Heredoc(
            script,
            'scylla-housekeeping-$i.service.d/sysconfdir.conf',
            {'sysconfdir': SYSCONFDIR, 'i': kind},
        ),
    )

  # Root install (538-568): scylla_sysconfdir.py, links into /usr.
  _Write(
      scripts / 'scylla_sysconfdir.py',
      Heredoc(
          script, 'scripts/scylla_sysconfdir.py', {'sysconfdir': SYSCONFDIR}
      ),
  )
  _Dir(root / 'var' / 'lib' / 'scylla-housekeeping')
  for name in ('scylla', 'iotune', 'nodetool'):
    _LinkRelative(prefix / 'bin' / name, usr / 'bin' / name)
  sbin_files = sorted(
      p.name
      for p in source.scripts.iterdir()
      if re.fullmatch(r'scylla_.*setup', p.name)
      or p.name in ('node_health_check', 'scylla_kernel_check')
  )
  for name in sbin_files:
    _LinkRelative(scripts / name, usr / 'sbin' / name)
  _Dir(usr / 'lib' / 'scylla' / 'scyllatop' / 'views')
  for path in sorted(scripts.iterdir()):
    if path.is_file():
      _LinkRelative(path, usr / 'lib' / 'scylla' / path.name)

  # Python scripts relocated onto the package's Python (585-591).
  for path in sorted(source.scripts.iterdir()):
    if path.is_file() and _IsPythonScript(path):
      _RelocatePython3(source, f'{PREFIX}/scripts', path, root)
  _RelocatePython3(
      source,
      f'{PREFIX}/scripts',
      source.root / 'seastar' / 'scripts' / 'perftune.py',
      root,
  )
  # install.sh's wrapper runs libexec/perftune.py: the stand-in's, which
  # runs seastar's (moved beside it) less what a machine made on one host
  # cannot tune.
  libexec = root / PREFIX.lstrip('/') / 'scripts' / 'libexec'
  (libexec / 'perftune.py').rename(libexec / SEASTAR_PERFTUNE)
  _Write(
      libexec / 'perftune.py',
      _Launcher(
          'perftune.py',
          'perftune',
          '/usr/bin/env python3',
          f'{PREFIX}/scripts/libexec/perftune.py',
      ),
      0o755,
  )

  # debian/rules:26: Debian's housekeeping sysconfig.
  _Install(
      source.root / 'dist' / 'debian' / 'sysconfig' / 'scylla-housekeeping',
      sysconfdir / 'scylla-housekeeping',
      0o644,
  )


# Packages.


def _Paragraphs(text):
  """deb822 paragraphs: lists of [field, value] (continuations joined)."""
  paragraphs = []
  for block in re.split(r'\n\s*\n', text.strip()):
    fields = []
    for line in block.splitlines():
      if line[:1] in (' ', '\t') and fields:
        fields[-1][1] += '\n' + line
      else:
        name, _, value = line.partition(':')
        fields.append([name.strip(), value.strip()])
    paragraphs.append(fields)
  return paragraphs


def _Relations(value):
  """A relation field with the build's version, without what is not built."""
  value = value.replace('${binary:Version}', DEB_VERSION)
  relations = [r.strip() for r in value.replace('\n', ' ').split(',')]
  return ', '.join(
      r
      for r in relations
      if r and not r.startswith('${') and r.split()[0] not in LEFT_OUT_DEPENDS
  )


@dataclasses.dataclass
class _Package:
  """One binary package being assembled."""

  name: str
  source: str
  fields: list
  root: pathlib.Path
  scripts: dict = dataclasses.field(default_factory=dict)

  def Control(self):
    """DEBIAN/control (dh_gencontrol): fields, version, installed size."""
    files = [p for p in self.root.rglob('*') if 'DEBIAN' not in p.parts]
    size = sum(
        p.lstat().st_size for p in files if p.is_file() and not p.is_symlink()
    )
    lines = [f'Package: {self.name}']
    if self.source != self.name:
      lines.append(f'Source: {self.source}')
    lines += [
        f'Version: {DEB_VERSION}',
        f'Architecture: {ARCHITECTURE}',
        f'Maintainer: {MAINTAINER}',
        f'Installed-Size: {(size + 1023) // 1024 + len(files)}',
    ]
    lines += [f'{name}: {value}' for name, value in self.fields]
    return '\n'.join(lines) + '\n'


def _TemplatePackages(source, staging):
  """ScyllaDB's packages from control.template, as debian_files_gen.py."""
  template = (source.root / 'dist' / 'debian' / 'control.template').read_text()
  paragraphs = _Paragraphs(template.replace('%{product}', PRODUCT))
  source_name = dict(paragraphs[0])['Source']
  # What binary packages take from the source's paragraph.
  inherited = [
      [n, v]
      for n, v in paragraphs[0]
      if n in ('Section', 'Priority', 'Homepage')
  ]
  packages = {}
  for paragraph in paragraphs[1:]:
    values = dict(paragraph)
    if values['Package'] not in TEMPLATE_PACKAGES:
      continue
    fields = [
        [n, v if n in ('Section', 'Priority') else _Relations(v)]
        for n, v in paragraph
        if n in _CARRIED_FIELDS
    ]
    own = {n for n, _ in fields}
    fields = [f for f in fields if f[1]]
    fields += [f for f in inherited if f[0] not in own]
    fields.append(['Description', values['Description'] + '\n' + _STANDIN_NOTE])
    name = values['Package']
    if name == SERVER:
      depends = dict(fields).get('Depends')
      fields = [f for f in fields if f[0] != 'Depends']
      fields.insert(
          0,
          [
              'Depends',
              ', '.join(filter(None, (depends, DEBIAN_BINARIES_PACKAGE))),
          ],
      )
    packages[name] = _Package(name, source_name, fields, staging / name)
  return packages


def _DhInstall(staging_root, install_file, package_root):
  """dh_install: the .install file's globs, from the staging tree."""
  for pattern in install_file.read_text().split():
    # Shell globbing: `*` takes no hidden file.
    for relative in sorted(glob.glob(pattern, root_dir=staging_root)):
      found, target = staging_root / relative, package_root / relative
      if found.is_dir() and not found.is_symlink():
        shutil.copytree(found, target, symlinks=True, dirs_exist_ok=True)
      else:
        _Dir(target.parent)
        shutil.copy2(found, target, follow_symlinks=False)


def _DhInstallinit(source, packages):
  """dh_installinit in compat 9: <package>[.<name>].service, <pkg>.default.

  Units into lib/systemd/system (debian/rules:28-37), defaults into
  etc/default.
  """
  for path in sorted(source.debian.iterdir()):
    for name, package in packages.items():
      if not path.name.startswith(f'{name}.'):
        continue
      rest = path.name[len(name) + 1 :]
      if rest == 'service':
        target = package.root / 'lib/systemd/system' / f'{name}.service'
      elif rest.endswith('.service') and '.' not in rest[: -len('.service')]:
        target = package.root / 'lib/systemd/system' / rest
      elif rest == 'default':
        target = package.root / 'etc/default' / name
      else:
        continue
      _Install(_Resolve(path), target, 0o644)


def _MaintainerScripts(source, package):
  """ScyllaDB's preinst, postinst, prerm and postrm of the package."""
  for kind in ('preinst', 'postinst', 'prerm', 'postrm'):
    path = source.debian / f'{package.name}.{kind}'
    if path.exists():
      package.scripts[kind] = path.read_text().replace(
          '#DEBHELPER#', DEBHELPER_NOTE
      )


def _Docs(source, package):
  """dh_installdocs and dh_installchangelogs: copyright, changelog."""
  doc = package.root / 'usr' / 'share' / 'doc' / package.name
  _Install(source.debian / 'copyright', doc / 'copyright', 0o644)
  template = (
      source.root / 'dist' / 'debian' / 'changelog.template'
  ).read_text()
  changelog = (
      template.replace('%{product}', PRODUCT)
      .replace('%{version}', VERSION)
      .replace('%{release}', RELEASE)
      .replace('%{revision}', REVISION)
      .replace('%{codename}', SUITE)
  )
  data = io.BytesIO()
  with gzip.GzipFile(
      filename='', mode='wb', fileobj=data, compresslevel=9, mtime=0
  ) as f:
    f.write(changelog.encode())
  _Dir(doc)
  (doc / 'changelog.Debian.gz').write_bytes(data.getvalue())
  (doc / 'changelog.Debian.gz').chmod(0o644)


def _Readable(root):
  """Every file readable by all, every directory and program enterable.

  A package's files are (dh_fixperms); what was made here under a strict
  umask (scylla-phases-local runs with 077) would be root's alone on the
  machine, where the `scylla` user runs ScyllaDB's scripts.
  """
  for path in [root, *root.rglob('*')]:
    if path.is_symlink():
      continue
    mode = path.stat().st_mode
    extra = 0o044
    if path.is_dir() or mode & 0o100:
      extra |= 0o011
    path.chmod(mode | extra)


def _Deb(package, out_dir):
  """dh_installdeb, dh_md5sums, dh_gencontrol and dpkg-deb: the .deb."""
  debian = package.root / 'DEBIAN'
  _Dir(package.root)
  _Dir(debian)
  conffiles = (
      sorted(
          '/' + str(p.relative_to(package.root))
          for p in (package.root / 'etc').rglob('*')
          if p.is_file() and not p.is_symlink()
      )
      if (package.root / 'etc').exists()
      else []
  )
  sums = []
  for path in sorted(package.root.rglob('*')):
    relative = path.relative_to(package.root)
    if (
        relative.parts[0] == 'DEBIAN'
        or not path.is_file()
        or path.is_symlink()
        or '/' + str(relative) in conffiles
    ):
      continue
    sums.append(f'{hashlib.md5(path.read_bytes()).hexdigest()}  {relative}\n')
  _Write(debian / 'md5sums', ''.join(sums))
  if conffiles:
    _Write(debian / 'conffiles', ''.join(f'{c}\n' for c in conffiles))
  for kind, text in package.scripts.items():
    _Write(debian / kind, text, 0o755)
  _Write(debian / 'control', package.Control())
  _Readable(package.root)
  deb = pathlib.Path(out_dir) / (
      f'{package.name}_{DEB_VERSION}_{ARCHITECTURE}.deb'
  )
  _Run([
      'dpkg-deb',
      '--root-owner-group',
      '-Zgzip',
      '-z1',
      '--build',
      str(package.root),
      str(deb),
  ])
  return deb


def WheelCache():
  """The directory of the cached wheels: $PERFKIT_PLUGINS_SCYLLA_WHEELS."""
  return pathlib.Path(os.environ.get(WHEELS_ENV) or DEFAULT_WHEELS).expanduser()


def _PipTarget():
  """pip's options choosing wheels for the host's Python 3.11 on amd64."""
  options = [
      '--only-binary=:all:',
      '--python-version',
      PYTHON_VERSION,
      '--implementation',
      'cp',
      '--abi',
      'cp' + PYTHON_VERSION.replace('.', ''),
  ]
  for platform in PYTHON_PLATFORMS:
    options += ['--platform', platform]
  return options


def FetchWheels(cache=None):
  """PYTHON_REQUIREMENTS' wheels from PyPI, once, into the cache.

  Returns:
    The directory holding them.
  """
  cache = cache or WheelCache()
  wanted = '\n'.join(PYTHON_REQUIREMENTS) + '\n'
  marker = cache / COMPLETE_MARKER
  if marker.exists() and marker.read_text() == wanted:
    return cache
  cache.parent.mkdir(parents=True, exist_ok=True)
  scratch = pathlib.Path(tempfile.mkdtemp(dir=cache.parent))
  try:
    _Run([
        sys.executable,
        '-m',
        'pip',
        'download',
        '--disable-pip-version-check',
        '--quiet',
        '--dest',
        str(scratch),
        *_PipTarget(),
        *PYTHON_REQUIREMENTS,
    ])
    (scratch / COMPLETE_MARKER).write_text(wanted)
    shutil.rmtree(cache, ignore_errors=True)
    scratch.rename(cache)
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
  return cache


def _StagePython3(root):
  """scylla-python3: the host's Python, a virtual environment of its own."""
  python = root / PREFIX.lstrip('/') / 'python3'
  _Dir(python / 'bin')
  (python / 'bin' / 'python3').symlink_to('/usr/bin/python3')
  _Write(
      python / 'pyvenv.cfg',
      'home = /usr/bin\ninclude-system-site-packages = false\n'
      f'version = {PYTHON_VERSION}\n',
  )
  site = python / 'lib' / f'python{PYTHON_VERSION}' / 'site-packages'
  _Run([
      sys.executable,
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--quiet',
      '--no-index',
      '--find-links',
      str(FetchWheels()),
      '--no-compile',
      '--target',
      str(site),
      *_PipTarget(),
      *PYTHON_REQUIREMENTS,
  ])
  # Console scripts name the build's Python; ScyllaDB's scripts need none.
  shutil.rmtree(site / 'bin', ignore_errors=True)
  for path in site.rglob('*'):
    if not path.is_symlink():
      path.chmod(0o755 if path.is_dir() else 0o644)


def _StageCqlsh(source, root):
  """scylla-cqlsh: the stand-in under share/cassandra, /usr/bin/cqlsh."""
  name = 'cqlsh'
  scratch = root / 'scratch'
  _Write(
      scratch / name,
      _Launcher(
          name,
          'cqlsh',
          '/usr/bin/env python3',
          f'{CQLSH_DIR}/libexec/{name}',
          CQLSH_LIB,
      ),
      0o755,
  )
  _StageLib(root, CQLSH_LIB, CQLSH_MODULES)
  _RelocatePython3(source, CQLSH_DIR, scratch / name, root)
  shutil.rmtree(scratch)
  _LinkRelative(
      root / CQLSH_DIR.lstrip('/') / name, root / 'usr' / 'bin' / name
  )


def _OwnPackage(name, description, depends, staging):
  """A package ScyllaDB's source does not describe (python3, cqlsh)."""
  fields = [['Depends', depends]] if depends else []
  fields += [
      ['Section', 'database'],
      ['Priority', 'optional'],
      ['Description', description + '\n' + _STANDIN_NOTE],
  ]
  return _Package(name, name, fields, staging / name)


def BuildPackages(source_dir, cassandra_tarball, out_dir):
  """Builds ScyllaDB's packages of VERSION into out_dir.

  Args:
    source_dir: ScyllaDB's setup files (install.sh, dist/, conf/,
      seastar/scripts/), read in place.
    cassandra_tarball: cassandra_build.BuildTarball's archive, the stand-in
      server's database.
    out_dir: existing directory receiving the .deb files.

  Returns:
    list of the .deb paths: scylla, scylla-conf, scylla-cqlsh,
    scylla-kernel-conf, scylla-python3, scylla-server.

  Raises:
    ScyllaBuildError: a tool failed (dpkg-deb, pip).
  """
  source = _Source(pathlib.Path(source_dir))
  with tempfile.TemporaryDirectory() as work:
    work = pathlib.Path(work)
    staging = work / 'tmp'
    _StageInstallSh(source, staging, cassandra_tarball)
    packages = _TemplatePackages(source, work)
    for name, package in packages.items():
      _Dir(package.root)
      install_file = source.debian / f'{name}.install'
      if install_file.exists():
        _DhInstall(staging, install_file, package.root)
      _MaintainerScripts(source, package)
    _DhInstallinit(source, packages)
    server = packages[SERVER]
    shutil.copytree(
        staging / STANDIN_SHARE.lstrip('/'),
        server.root / STANDIN_SHARE.lstrip('/'),
        symlinks=True,
        dirs_exist_ok=True,
    )
    python3 = _OwnPackage(
        PYTHON3_PACKAGE,
        (
            "Python 3 for ScyllaDB's scripts\n The host's Python 3.11 with the"
            " modules ScyllaDB's setup scripts import."
        ),
        PYTHON_DEPENDS,
        work,
    )
    _StagePython3(python3.root)
    cqlsh = _OwnPackage(
        CQLSH_PACKAGE,
        "cqlsh, the CQL shell\n Answers the benchmark's system.tablets query.",
        f'{PYTHON3_PACKAGE} (= {DEB_VERSION})',
        work,
    )
    _StageCqlsh(source, cqlsh.root)
    debs = []
    for package in [*packages.values(), python3, cqlsh]:
      _Docs(source, package)
      debs.append(_Deb(package, out_dir))
  return sorted(debs)


# The repository.


@dataclasses.dataclass(frozen=True)
class Repository:
  """A signed apt repository of the packages.

  Attributes:
    root: its directory (repo_dir/scylladb-<series>): dists/, pool/.
    fingerprint: the signing key's fingerprint (40 hex digits).
    armored_key: the key, ASCII-armored (repo_dir/keys/<fingerprint>.asc,
      where mirror_server's key lookups find it).
  """

  root: pathlib.Path
  fingerprint: str
  armored_key: pathlib.Path

  def ListFile(self, base_url):
    """The apt .list file for the repository served at base_url.

    As ScyllaDB's (`deb [arch=... signed-by=/etc/apt/keyrings/
    scylladb.gpg] <base>/scylladb-<series> stable main`).
    """
    return (
        f'deb [arch={ARCHITECTURE} signed-by={scylla_engine.APT_KEYRING}]'
        f' {base_url.rstrip("/")}/{self.root.name} {SUITE} {COMPONENT}\n'
    )


def _Gpg(gnupg_home, *args):
  return _Run([
      'gpg',
      '--homedir',
      str(gnupg_home),
      '--batch',
      '--no-tty',
      '--pinentry-mode',
      'loopback',
      '--passphrase',
      '',
      *args,
  ])


def SigningKey(gnupg_home):
  """The fingerprint of gnupg_home's secret key, made (RSA 3072) if none."""
  gnupg_home = pathlib.Path(gnupg_home)
  gnupg_home.mkdir(parents=True, exist_ok=True)
  gnupg_home.chmod(0o700)

  def Fingerprints():
    listing = _Gpg(gnupg_home, '--with-colons', '--list-secret-keys')
    found, last = [], None
    for line in listing.splitlines():
      fields = line.split(':')
      if fields[0] == 'fpr' and last == 'sec':
        found.append(fields[9])
      last = fields[0]
    return found

  found = Fingerprints()
  if not found:
    _Gpg(
        gnupg_home,
        '--quick-generate-key',
        f'ScyllaDB {SERIES} stand-in repository (perfkit-plugins test key)'
        ' <perfkit-plugins@localhost.invalid>',
        'rsa3072',
        'sign',
        'never',
    )
    found = Fingerprints()
  return found[0]


def _ReleaseText(dists, index_files):
  """dists/<suite>/Release: the suite's description and index checksums."""
  lines = [
      'Origin: perfkit-plugins',
      f'Label: ScyllaDB {SERIES} (stand-in)',
      f'Suite: {SUITE}',
      f'Codename: {SUITE}',
      f'Version: {SERIES}',
      'Date: ' + time.strftime('%a, %d %b %Y %H:%M:%S UTC', time.gmtime()),
      f'Architectures: {ARCHITECTURE}',
      f'Components: {COMPONENT}',
      f'Description: ScyllaDB {VERSION} packages (perfkit-plugins stand-in)',
  ]
  for field, algorithm in (('MD5Sum', 'md5'), ('SHA256', 'sha256')):
    lines.append(f'{field}:')
    for path in index_files:
      data = path.read_bytes()
      digest = hashlib.new(algorithm, data).hexdigest()
      lines.append(f' {digest} {len(data):>16} {path.relative_to(dists)}')
  return '\n'.join(lines) + '\n'


def BuildAptRepository(debs, repo_dir, gnupg_home):
  """A signed apt repository of debs in repo_dir/scylladb-<series>.

  Args:
    debs: BuildPackages' files.
    repo_dir: directory to hold the repository (created).
    gnupg_home: gpg's home for the throwaway signing key (created; a key it
      already holds is used again).

  Returns:
    Repository.

  Raises:
    ScyllaBuildError: dpkg-scanpackages or gpg failed.
  """
  repo_dir = pathlib.Path(repo_dir)
  root = repo_dir / REPOSITORY_DIR
  for deb in debs:
    fields = _Run(['dpkg-deb', '--field', str(deb), 'Package', 'Source'])
    values = dict(
        line.split(': ', 1) for line in fields.splitlines() if ': ' in line
    )
    source = values.get('Source', values['Package']).split()[0]
    pool = root / 'pool' / COMPONENT / source[0] / source
    pool.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(deb, pool / pathlib.Path(deb).name)
  dists = root / 'dists' / SUITE
  binary = dists / COMPONENT / f'binary-{ARCHITECTURE}'
  binary.mkdir(parents=True, exist_ok=True)
  packages = _Run(
      ['dpkg-scanpackages', '--arch', ARCHITECTURE, 'pool'], cwd=root
  )
  (binary / 'Packages').write_text(packages)
  with gzip.GzipFile(binary / 'Packages.gz', 'wb', mtime=0) as f:
    f.write(packages.encode())
  release = dists / 'Release'
  release.write_text(
      _ReleaseText(dists, [binary / 'Packages', binary / 'Packages.gz'])
  )
  fingerprint = SigningKey(gnupg_home)
  try:
    for args in (
        ['--clearsign', '--output', str(dists / 'InRelease')],
        ['--armor', '--detach-sign', '--output', str(dists / 'Release.gpg')],
    ):
      _Gpg(
          gnupg_home,
          '--yes',
          '--local-user',
          fingerprint,
          '--digest-algo',
          'SHA512',
          *args,
          str(release),
      )
    keys = repo_dir / mirror_server.KEYS_DIR
    keys.mkdir(parents=True, exist_ok=True)
    armored_key = keys / f'{fingerprint}.asc'
    armored_key.write_text(_Gpg(gnupg_home, '--armor', '--export', fingerprint))
  finally:
    # The agent gpg started for this home.
    subprocess.run(
        ['gpgconf', '--homedir', str(gnupg_home), '--kill', 'gpg-agent'],
        capture_output=True,
        check=False,
    )
  return Repository(root, fingerprint, armored_key)


# What a Cassandra run's flags hold that the ScyllaDB engine refuses (the
# mirror's tarball, the version: --scylla_engine=cassandra only).
CASSANDRA_ONLY_FLAGS = (
    'scylla_cassandra_version',
    'scylla_cassandra_url',
    'scylla_cassandra_checksum',
)
# The ScyllaDB engine's flags on a private-system machine of host_machines.
MACHINE_FLAGS = {
    'scylla_engine': 'scylla',
    # The machine's only route is its bridge: no default route to find.
    'scylla_nic': host_machines.NIC,
    # A swap file would be the host's.
    'scylla_swap_setup': False,
    'scylla_raid_devices': host_machines.DISK_PATH,
}


def ScyllaEngineFlags(flags):
  """A Cassandra run's flags with the ScyllaDB engine on machines instead.

  The ScyllaDB engine on host_machines' private-system machines
  (MACHINE_FLAGS), without what only the Cassandra engine reads.
  """
  return {
      name: value
      for name, value in flags.items()
      if name not in CASSANDRA_ONLY_FLAGS
  } | MACHINE_FLAGS


def MirrorFlags(repository, mirror_dir, base_url):
  """Serves a repository from a mirror; the benchmark flags installing it.

  Writes the apt list file of every series of the repository where
  --scylla_repo_url's template finds it. The engine imports the mirror's
  own key (--scylla_repo_key_fingerprints) from the mirror's key server
  (mirror_server answers HKP lookups from its keys/ directory), over
  gpg's key-server path first, as it would from ScyllaDB's.

  Args:
    repository: BuildAptRepository's result, built in mirror_dir.
    mirror_dir: the directory the mirror serves.
    base_url: the mirror's base URL, http://HOST:PORT.

  Returns:
    {flag name: value}.
  """
  list_name = LIST_NAME.format(version=SERIES)
  (pathlib.Path(mirror_dir) / list_name).write_text(
      repository.ListFile(base_url)
  )
  host_port = base_url.split('://', 1)[1].rstrip('/')
  return {
      'scylla_release': SERIES,
      'scylla_repo_url': f'{base_url}/{LIST_NAME}',
      'scylla_key_server': f'hkp://{host_port}',
      'scylla_repo_key_fingerprints': repository.fingerprint,
  }
