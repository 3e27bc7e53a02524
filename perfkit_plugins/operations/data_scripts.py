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

"""The scripts the benchmark pushes to its machines, from its data directory.

A script lives under this package's data/ (e.g. ('scylla_phases', 'loader',
'stress_run.sh')) and, on a machine, at the same path under PKB's install
directory.
"""

import os
import posixpath
import shlex

_DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data')


def Source(parts):
  """The script's path in this package."""
  return os.path.join(_DATA_DIR, *parts)


def RemotePath(install_dir, parts):
  """Where the script is on a machine (PKB's install directory)."""
  return posixpath.join(install_dir, *parts)


def Push(vm, install_dir, parts):
  """Puts the script on a machine (RemotePath)."""
  remote = RemotePath(install_dir, parts)
  vm.RemoteCommand(f'mkdir -p {shlex.quote(posixpath.dirname(remote))}')
  vm.PushFile(Source(parts), remote)
