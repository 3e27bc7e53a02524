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

"""run_env.RunEnv values for tests, as the shell builds them in a run."""

import tempfile
import time

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.operations import run_env
from perfkit_plugins.testing import threads

# PKB's linux_packages.INSTALL_DIR and the loaders' output directory.
INSTALL_DIR = '/opt/pkb'
REMOTE_DIR = '/tmp/pkb/scylla_phases'


def Make(
    output_dir=None,
    settings=None,
    engine=None,
    servers=(),
    loaders=(),
    clock_offsets=None,
    clock=time.time,
    **changes,
):
  """A RunEnv with the test stand-in of RunThreaded, and `changes`.

  Args:
    output_dir: the local output directory; a new temporary one if None.
    settings: core settings; Settings() if None.
    engine: the servers' engine (a fake or a real one).
    servers: server VMs.
    loaders: loader VMs.
    clock_offsets: {VM name: offset}; none measured if None.
    clock: the controller's clock.
    **changes: other RunEnv fields (run_threaded, install_dir, remote_dir).
  """
  fields = dict(
      settings=settings or settings_lib.Settings(),
      engine=engine,
      servers=tuple(servers),
      loaders=tuple(loaders),
      run_threaded=threads.RunThreaded,
      install_dir=INSTALL_DIR,
      remote_dir=REMOTE_DIR,
      output_dir=output_dir or tempfile.mkdtemp(prefix='run_env_'),
      clock_offsets=dict(clock_offsets or {}),
      clock=clock,
  )
  fields.update(changes)
  return run_env.RunEnv(**fields)
