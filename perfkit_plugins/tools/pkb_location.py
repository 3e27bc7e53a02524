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

"""Where the PerfKitBenchmarker checkout is, for commands run outside pkb.py.

PKB is not on PyPI: it runs from a checkout. `scylla-phases-plan` imports it
from the Python path, else from $PKB_CHECKOUT (default
/opt/PerfKitBenchmarker); the tests use the same place.
"""

import os

ENV = 'PKB_CHECKOUT'
DEFAULT = '/opt/PerfKitBenchmarker'
# The PKB commit this release is tested with: `.ci/run` clones it (and
# reads it from this line), `scylla-phases-local` runs only it unless told.
TESTED_COMMIT = '946ea317692cac6c78e4aec1cd041b538f1a0285'
# The oldest PKB commit the PKB-facing tests (configs, a whole Run through
# PKB's publisher, the import guard, the publishers' formats) also pass on:
# `.ci/run` runs them there too when the checkout's history holds it.
OLDEST_TESTED_COMMIT = '29cdfcb349398897d049c6175dc65206c96bb957'


def Path():
  """The checkout's directory: $PKB_CHECKOUT, else the default."""
  return os.environ.get(ENV) or DEFAULT
