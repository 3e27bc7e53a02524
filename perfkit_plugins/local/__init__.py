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

"""A whole cluster on this one host, for `scylla-phases-local` and the tests.

Machines made of Linux namespaces with their own sshd (host_machines), a
mirror serving Apache Cassandra built from Maven Central's jars
(cassandra_build) and ScyllaDB's cassandra-stress (mirror), stock pkb.py
as a process (pkb_process), and the state file naming what a local cluster
is made of (cluster_state). Needs root; nothing here imports PKB.
"""
