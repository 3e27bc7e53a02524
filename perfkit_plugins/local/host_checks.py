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

"""What this host needs before a local cluster is made, and why not.

Each check returns None when all is well, else one sentence saying what is
missing and what to install; nothing is changed. The machines see the
host's own /usr: the JDK Cassandra runs on and the tools the benchmark's
installs ask for (sudo, fdisk, curl, python3) must be the host's.
"""

import os
import pathlib
import shutil
import subprocess

from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.core.software import java
from perfkit_plugins.local import cassandra_build
from perfkit_plugins.local import host_machines
from perfkit_plugins.local import trusted_paths

# PKB's os_type of a host, from its /etc/os-release (ID, VERSION_ID).
OS_TYPES = {
    ('debian', '12'): 'debian12',
    ('debian', '13'): 'debian13',
    ('ubuntu', '22.04'): 'ubuntu2204',
    ('ubuntu', '24.04'): 'ubuntu2404',
}
# What the benchmark runs on the machines (they are this host's), with
# Debian's package of each.
MACHINE_TOOLS = {
    'sudo': 'sudo',
    'fdisk': 'fdisk',
    'curl': 'curl',
    'tar': 'tar',
    'python3': 'python3',
}
# Memory a local cluster's processes take (GiB): a Cassandra server (heap,
# off-heap, metaspace) and a cassandra-stress loader (the 1 GiB heap the
# local run pins and touches at start, metaspace, the driver's buffers).
SERVER_GIB = 1.5
LOADER_GIB = 1.5


def ParseOsRelease(text):
  """{key: value} of an os-release file's text."""
  values = {}
  for line in text.splitlines():
    key, sep, value = line.partition('=')
    if sep:
      values[key.strip()] = value.strip().strip('"')
  return values


def OsType(os_release_text):
  """PKB's os_type of a host with this os-release, or None."""
  values = ParseOsRelease(os_release_text)
  return OS_TYPES.get((values.get('ID'), values.get('VERSION_ID')))


def OsProblem(os_release_text):
  """Why this host's OS cannot be the machines' OS, or None."""
  if OsType(os_release_text) is not None:
    return None
  name = ParseOsRelease(os_release_text).get('PRETTY_NAME', 'unknown')
  return (
      f"the machines run this host's OS ({name}), and PKB installs on it"
      ' as one of Debian 12, Debian 13, Ubuntu 22.04, Ubuntu 24.04 only'
  )


def ReadOsRelease():
  try:
    return pathlib.Path('/etc/os-release').read_text()
  except OSError:
    return ''


def MachineToolsProblem(path=host_machines.SYSTEM_PATH):
  """Why the benchmark's installs would fail on the machines, or None."""
  missing = [t for t in MACHINE_TOOLS if not shutil.which(t, path=path)]
  if not missing:
    return None
  packages = ' '.join(MACHINE_TOOLS[t] for t in missing)
  return (
      f'the machines use this host\'s programs and {", ".join(missing)}'
      f' is missing (Debian and Ubuntu: apt-get install {packages})'
  )


def InstalledJava():
  """The JDKs of this host (java.InstalledJava), as the machines see them."""
  result = subprocess.run(
      ['sh', '-c', java.LIST_COMMAND],
      capture_output=True,
      text=True,
      check=False,
  )
  return java.ParseList(result.stdout)


def JavaProblem(version, installed):
  """Why Apache Cassandra `version` cannot run on the machines, or None.

  Args:
    version: its version.
    installed: this host's JDKs (InstalledJava()).
  """
  requirement = cassandra_config.JavaOf(version)
  if java.ChooseInstalled(requirement, installed) is not None:
    return None
  have = ', '.join(f'Java {j.major} at {j.home}' for j in installed) or 'none'
  major = requirement.minimum
  return (
      f'{requirement.who} needs {requirement.Describe()} on this host (the'
      f' machines use its JDKs; found: {have}): apt-get install'
      f" openjdk-{major}-jdk-headless, or any vendor's JDK {major} under"
      ' /usr/lib/jvm'
  )


def JarsProblem(version, cache_root=None):
  """Why Cassandra `version`'s jars cannot be had, or None.

  Cached jars need nothing; else Maven fetches them from Maven Central.
  """
  if cassandra_build.Cached(version, cache_root):
    return None
  if shutil.which('mvn') and shutil.which('java'):
    return None
  return (
      f'Apache Cassandra {version} is built from its jars on Maven Central'
      f' ({cassandra_build.FETCH_SIZE}, fetched once into'
      f' {cassandra_build.LibDir(version, cache_root).parent}) with Maven,'
      ' and mvn or java is not on PATH: apt-get install maven'
      ' openjdk-17-jdk-headless (or fetch them elsewhere and point'
      f' {cassandra_build.CACHE_ENV} at a copy of the cache)'
  )


def JarCacheProblem(cache_root=None):
  """Why root should not build Cassandra from the jar cache, or None.

  The jars run as root's servers' code: the cache and every directory
  above it must be trusted (trusted_paths.TreeProblem).
  """
  return trusted_paths.TreeProblem(cache_root or cassandra_build.CacheRoot())


def AvailableGib(meminfo_text):
  """MemAvailable of a /proc/meminfo text, in GiB (None when absent)."""
  for line in meminfo_text.splitlines():
    if line.startswith('MemAvailable:'):
      return int(line.split()[1]) / 2**20
  return None


def MemoryProblem(servers, loaders, meminfo_text):
  """Why `servers` and `loaders` would not fit in memory, or None."""
  available = AvailableGib(meminfo_text)
  needed = servers * SERVER_GIB + loaders * LOADER_GIB
  if available is None or available >= needed:
    return None
  return (
      f'{servers} servers and {loaders} loaders need about {needed:.1f} GiB'
      f' of memory and {available:.1f} GiB is available: use fewer'
      ' (--servers, --loaders)'
  )


def ReadMeminfo():
  try:
    return pathlib.Path('/proc/meminfo').read_text()
  except OSError:
    return ''


# ssh's shared connections have their sockets in pkb.py's run directory
# under the work directory (<work>/pkb/runs/<run_uri>/ssh/<address>.<random
# suffix>), and a socket's path holds at most 107 bytes.
MAX_WORK_DIR_LENGTH = 50


def WorkDirProblem(work_dir):
  """Why `work_dir` cannot hold a local cluster, or None.

  Never under /tmp (each machine mounts its own /tmp over it), and short
  enough for ssh's control sockets.
  """
  work_dir = pathlib.Path(os.path.abspath(work_dir))
  if len(str(work_dir)) > MAX_WORK_DIR_LENGTH:
    return (
        f'the work directory {work_dir} is longer than'
        f" {MAX_WORK_DIR_LENGTH} characters: ssh's control sockets under it"
        ' would not fit'
    )
  if (
      work_dir == pathlib.Path('/tmp')
      or pathlib.Path('/tmp') in work_dir.parents
  ):
    return (
        f'the work directory {work_dir} is under /tmp, which every machine'
        ' replaces with its own: use one elsewhere (default'
        ' /var/lib/scylla_phases_local)'
    )
  return None
