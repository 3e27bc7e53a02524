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

"""Stand-ins for ScyllaDB's programs: scylla, iotune, nodetool and cqlsh.

No ScyllaDB binary can be had where this project is tested, so the Debian
packages perfkit_plugins.local.scylla_build makes carry these programs where
ScyllaDB's packages put theirs, around ScyllaDB's own setup scripts. Each
answers what the benchmark and those scripts ask of the original, in the
original's formats, and refuses what it cannot do as the original refuses
what it does not know. The database behind `scylla` is an Apache Cassandra
node (the package's cassandra/), configured from scylla.yaml.

Each behaviour taken from ScyllaDB's or seastar's source names the file and
lines it follows: scylladb/scylladb at a6e1be00632f (2026.3.0-rc3) and
scylladb/seastar at ffeb9a3ca4f8 (its submodule there).

The programs run on the package's Python (/opt/scylladb/python3: the host's
Python 3.11 with PyYAML, as ScyllaDB's scripts run on theirs). The package
installs this directory and, beside it, the benchmark's own
perfkit_plugins.core.quiesce (standard library only), under
<prefix>/share/standin/lib, which the launchers put on sys.path.
"""
