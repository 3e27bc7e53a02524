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

"""What every operation of a run needs, handed down by the shell as one value.

The shell builds a RunEnv once per stage from PKB's spec (its VM groups,
RunThreaded, install directory and run directory) and the run's settings;
the operations take it instead of long parameter lists, and never import PKB
to find any of it.
"""

import dataclasses
import os
import time
from typing import Any, Callable, Mapping


@dataclasses.dataclass(frozen=True)
class RunEnv:
  """The run's machines, settings and PKB primitives.

  Attributes:
    settings: the run's validated core.config.settings.Settings.
    engine: the servers' engines.base.Engine.
    servers: the server VMs (anything with PKB's VM interface); the first is
      the seed.
    loaders: the loader VMs; a plan's LoaderRun.loader_index indexes them.
    run_threaded: PKB's background_tasks.RunThreaded, or anything with its
      contract (((args), {kwargs}) params, max_concurrent_threads).
    install_dir: where packages are installed on the VMs (PKB's
      linux_packages.INSTALL_DIR).
    remote_dir: where loaders write their outputs before they are pulled.
    output_dir: this run's local directory for raw outputs (in PKB's run
      directory).
    clock_offsets: {VM name: its clock minus the controller's, seconds}; a
      VM missing here counts as 0.
    clock: the controller's clock (epoch seconds).
    loader_jvms: each loader's core.stress.loader_jvm.LoaderJvm, in the
      loaders' order, once the run has read them (stress_install.LoaderJvm);
      empty before, and then cassandra-stress runs with no JVM options.
  """

  settings: Any
  engine: Any
  servers: tuple
  loaders: tuple
  run_threaded: Callable[..., list]
  install_dir: str
  remote_dir: str
  output_dir: str
  clock_offsets: Mapping[str, float] = dataclasses.field(default_factory=dict)
  clock: Callable[[], float] = time.time
  loader_jvms: tuple = ()

  def Dir(self, *parts):
    """A local directory under output_dir, created when missing."""
    path = os.path.join(self.output_dir, *parts)
    os.makedirs(path, exist_ok=True)
    return path

  def Offset(self, vm):
    """The VM's clock minus the controller's, seconds (0 when unmeasured)."""
    return self.clock_offsets.get(vm.name, 0.0)
