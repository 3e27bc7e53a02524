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

"""Which code made a result: the release and the git revision.

Every published sample carries Published() as `scylla_phases_version`, so
results in a warehouse can be tied to the code that made them. The
revision comes from the REVISION file a wheel build writes into the package
(setup.py), else from git in a source checkout (an editable install), else
'unknown'; a checkout with uncommitted changes is marked '.dirty'.
"""

import functools
import os
import subprocess

VERSION = '0.2.0'
"""The release: docs/CHANGELOG.md says what each one changed."""

REVISION_FILE = 'REVISION'
UNKNOWN = 'unknown'

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _Git(*args):
  """git's output in the package's source tree, or None without one."""
  try:
    result = subprocess.run(
        ['git', '-C', _PACKAGE_DIR, *args],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
  except (OSError, subprocess.SubprocessError):
    return None
  return result.stdout.strip() if result.returncode == 0 else None


def GitRevision():
  """The source tree's revision: 'g<12 hex>', '.dirty' appended; or None."""
  commit = _Git('rev-parse', '--short=12', 'HEAD')
  if not commit:
    return None
  dirty = _Git('status', '--porcelain', '--untracked-files=no')
  return f'g{commit}' + ('.dirty' if dirty else '')


@functools.cache
def Revision():
  """The revision this code was built from, 'unknown' when nobody said."""
  try:
    with open(os.path.join(_PACKAGE_DIR, REVISION_FILE)) as f:
      return f.read().strip() or UNKNOWN
  except OSError:
    return GitRevision() or UNKNOWN


def Published():
  """'0.2.0+g1a2b3c4d5e6f': the release and the revision (PEP 440 local)."""
  return f'{VERSION}+{Revision()}'
