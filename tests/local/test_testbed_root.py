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

"""Where the test bed's machines live, against another user of this host.

/var/tmp is everyone's: a test bed's directory there is one no other user
can make first, and what another user made there is never removed as a
stale test bed. No machine is made: the directories only (root needed).
"""

import os
import shutil
import subprocess
import tempfile

import pytest

from perfkit_plugins.testing import testbed

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which('setpriv') or not shutil.which('ip'),
    reason='needs root, setpriv and ip',
)

# A PID above Linux's largest: no process has it, so its test bed is stale.
_DEAD_OWNER = 4194399


def test_a_test_beds_directory_is_unpredictable_roots_and_removed():
  first, second = testbed.Testbed(['m']), testbed.Testbed(['m'])
  try:
    parents = [first.root.parent, second.root.parent]
    assert parents[0] != parents[1]
    for parent in parents:
      assert parent.parent == testbed.ROOT_PARENT
      assert parent.name.startswith(testbed.ROOT_PREFIX)
      st = os.lstat(parent)
      assert (st.st_uid, st.st_mode & 0o777) == (0, 0o700)
  finally:
    first.Destroy()
    second.Destroy()
  assert not any(p.exists() for p in parents)


def test_stale_test_beds_are_looked_for_in_their_own_directories_only():
  tag = f'{testbed.PREFIX}{_DEAD_OWNER}'
  stale_root = tempfile.mkdtemp(
      prefix=testbed.ROOT_PREFIX, dir=testbed.ROOT_PARENT
  )
  os.mkdir(os.path.join(stale_root, tag))
  theirs = testbed.ROOT_PARENT / f'{testbed.ROOT_PREFIX}theirs{os.getpid()}'
  subprocess.run(
      [
          'setpriv',
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          'mkdir',
          '-p',
          str(theirs / tag / 'keep'),
      ],
      check=True,
  )
  own = testbed.Testbed(['m'])
  try:
    assert tag in testbed.RemoveStale(own.root.parent)
    assert not os.path.exists(stale_root)
    assert (theirs / tag / 'keep').is_dir()
  finally:
    own.Destroy()
    shutil.rmtree(stale_root, ignore_errors=True)
    shutil.rmtree(theirs, ignore_errors=True)
