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

"""Settings of the seed studies that several tests build on."""

# The Cassandra tuning of the 2017 c3.2xlarge study (G1 with an 8 GB heap,
# concurrent reads/writes/compactors, off-heap memtables, trickle fsync),
# plus unthrottled compaction as in its second populate run. Field names are
# core/settings.Settings'.
CASSANDRA_2017 = dict(
    engine='cassandra',
    cassandra_gc='G1',
    cassandra_heap_gb=8,
    cassandra_concurrent_reads=16,
    cassandra_concurrent_writes=64,
    cassandra_concurrent_compactors=8,
    cassandra_compaction_throughput_mb=0,
    cassandra_memtable_allocation_type='offheap_buffers',
    cassandra_trickle_fsync=True,
)
