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

"""Which Java a tool runs on: requirements, installed JDKs, the choice.

Each Java tool the benchmark installs states the Java it needs (a
JavaRequirement); on each VM a JDK that is already installed and fits is
used as it is, otherwise the OS's package of a fitting JDK is installed, and
when the image has neither the install fails at once with a message that
names what is there. The chosen JDK is linked as `<install dir>/jdk` and
every command of the tool runs with JAVA_HOME pointing there, so a machine
with several JDKs needs no change to its default `java`.
"""

import dataclasses
import posixpath
import re
import shlex

# The JDK majors probed in OS package repositories (LTS releases).
# A tool's JDK is linked at this name in the tool's install directory.
JDK_LINK = 'jdk'
LTS = (25, 21, 17, 11)
# After a launcher: the line of its `-version` output that names the
# version (a JAVA_TOOL_OPTIONS in the environment adds a line before it).
_VERSION_LINE = "-version 2>&1 | grep -m 1 ' version '"
# Lists every java launcher under /usr/lib/jvm and on PATH: its real path,
# a tab, and its version line.
LIST_COMMAND = (
    'for java in /usr/lib/jvm/*/bin/java "$(command -v java)"; do'
    ' [ -x "$java" ] && printf "%s\\t%s\\n" "$(readlink -f "$java")"'
    f' "$("$java" {_VERSION_LINE})"; done; true'
)
# `java -version` version lines: 'openjdk version "17.0.15" 2025-04-15',
# 'java version "1.8.0_392"', 'openjdk version "25" 2025-09-16'.
_VERSION_RE = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')


def JavaHome(install_dir):
  """The JAVA_HOME a tool installed in `install_dir` runs with (JDK_LINK)."""
  return posixpath.join(install_dir, JDK_LINK)


class JavaError(Exception):
  """No fitting JDK is installed or installable."""


@dataclasses.dataclass(frozen=True)
class JavaRequirement:
  """The Java a tool runs on.

  Attributes:
    who: what needs it, for messages (e.g. 'Apache Cassandra 5.0.9').
    minimum: lowest JDK major it runs on.
    maximum: highest, or None when any newer one works.
    preferred: majors to choose, best first; the first installed one wins,
      then the first the OS packages.
  """

  who: str
  minimum: int
  maximum: int | None
  preferred: tuple[int, ...]

  def Allows(self, major):
    return self.minimum <= major and (
        self.maximum is None or major <= self.maximum
    )

  def Describe(self):
    if self.maximum == self.minimum:
      return f'Java {self.minimum}'
    if self.maximum is None:
      return f'Java {self.minimum} or newer'
    return f'Java {self.minimum} to {self.maximum}'


@dataclasses.dataclass(frozen=True)
class InstalledJava:
  """One JDK on a VM.

  Attributes:
    home: its JAVA_HOME.
    major: its major version.
  """

  home: str
  major: int


# PKB os_types whose distribution packages no JDK from this major on
# (Debian 11 and 12 package 11 and 17 only; checked against bookworm's and
# bookworm-security's package lists on 2026-11-27).
NEWEST_PACKAGED = {'debian11': 17, 'debian12': 17}


def ImageProblem(requirement, os_type):
  """Why a fresh image of `os_type` cannot get a JDK `requirement` allows.

  Only for VMs provisioned from the image: own machines may have a JDK
  installed (the install step checks those).

  Returns:
    One sentence, or None.
  """
  newest = NEWEST_PACKAGED.get(os_type)
  if newest is None or requirement.Allows(newest):
    return None
  return (
      f'{requirement.who} needs {requirement.Describe()}, and {os_type}'
      f' packages Java {newest} at most'
  )


def Exactly(who, major):
  """The requirement of a tool that runs on one JDK major only."""
  return JavaRequirement(who, major, major, (major,))


def AtLeast(who, minimum, preferred):
  """The requirement of a tool that runs on `minimum` or newer."""
  ordered = tuple(preferred) + tuple(
      m for m in LTS if m >= minimum and m not in preferred
  )
  return JavaRequirement(who, minimum, None, ordered)


def PackageName(major, package_manager):
  """The OS package of a headless JDK.

  Args:
    major: JDK major version, e.g. 17.
    package_manager: 'apt' (Debian, Ubuntu) or 'yum' (RHEL family).

  Returns:
    The package name, e.g. 'openjdk-17-jdk-headless'.
  """
  if package_manager == 'apt':
    return f'openjdk-{major}-jdk-headless'
  if package_manager == 'yum':
    return f'java-{major}-openjdk-devel'
  raise ValueError(f'unknown package manager {package_manager!r}')


def VersionCommand(java_home):
  """Prints the version line of `java -version` of the JDK at java_home."""
  launcher = shlex.quote(posixpath.join(java_home, 'bin', 'java'))
  return f'{launcher} {_VERSION_LINE}'


def MajorOf(version_line):
  """The major of a `java -version` version line (1.8 is 8), or None."""
  match = _VERSION_RE.search(version_line)
  if not match:
    return None
  major = int(match.group(1))
  if major == 1 and match.group(2):
    major = int(match.group(2))
  return major


def ParseList(text):
  """Parses LIST_COMMAND's output into InstalledJava records, deduplicated.

  Lines that are not a launcher and its version are skipped (a broken JDK
  prints an error instead of a version).
  """
  found = {}
  for line in text.splitlines():
    path, sep, version_line = line.partition('\t')
    major = MajorOf(version_line)
    if not sep or major is None or not path.endswith('/bin/java'):
      continue
    home = path[: -len('/bin/java')]
    if home.endswith('/jre'):
      home = home[: -len('/jre')]
    found.setdefault(home, InstalledJava(home, major))
  return list(found.values())


def ChooseInstalled(requirement, installed):
  """The installed JDK to use, or None when none fits.

  Preferred majors first, in their order; then any other that fits, newest
  first.
  """
  fitting = [j for j in installed if requirement.Allows(j.major)]
  for major in requirement.preferred:
    for java in fitting:
      if java.major == major:
        return java
  return max(fitting, key=lambda j: j.major, default=None)


def Unavailable(requirement, vm_name, os_name, installed, probed_packages):
  """The JavaError for a VM that has no fitting JDK and packages none."""
  have = ', '.join(f'Java {j.major} at {j.home}' for j in installed) or 'none'
  return JavaError(
      f'{requirement.who} needs {requirement.Describe()}: {vm_name}'
      f' ({os_name}) has none installed (installed JDKs: {have}) and its'
      f' package repositories offer none of {", ".join(probed_packages)}.'
      ' Install a fitting JDK under /usr/lib/jvm (any vendor) or use an OS'
      ' image that packages one.'
  )
