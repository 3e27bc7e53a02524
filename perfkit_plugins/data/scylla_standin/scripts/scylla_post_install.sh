#!/bin/bash
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

# /opt/scylladb/scripts/scylla_post_install.sh of the perfkit-plugins
# stand-in packages, which scylla-server's postinst runs (ScyllaDB's
# dist/debian/debian/scylla-server.postinst:28). ScyllaDB's script lives in
# its source tree, not in the files its packages are built from here, so this
# one is written from what it does (scylla_post_install.sh of scylladb/scylladb
# a6e1be00632f):
#   - nothing on a system without systemd (:10-12);
#   - from Linux 5.8, CAP_PERFMON for scylla-server, by a drop-in (:21-31);
#   - below ~21.4 GiB of memory, scylla-helper.slice held to 1200M/1400M,
#     as seastar reserves at least 1.5 GB (:33-45);
#   - an existing systemd-coredump timeout drop-in without RuntimeMaxSec
#     made unlimited (:47-56);
#   - systemd reloaded (:58).

[ -d /run/systemd/system ] || exit 0

# Whether version $1 is at least $2.
at_least() {
    [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]
}

if at_least "$(uname -r)" 5.8; then
    mkdir -p /etc/systemd/system/scylla-server.service.d
    printf '[Service]\nAmbientCapabilities=CAP_PERFMON\n' \
        > /etc/systemd/system/scylla-server.service.d/capabilities.conf
fi

mem_kib=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\) kB$/\1/p' /proc/meminfo)
if [ "$((mem_kib * 1024))" -lt 23008753371 ]; then
    mkdir -p /etc/systemd/system/scylla-helper.slice.d
    printf '[Slice]\nMemoryHigh=1200M\nMemoryMax=1400M\n' \
        > /etc/systemd/system/scylla-helper.slice.d/memory.conf
fi

coredump=/etc/systemd/system/systemd-coredump@.service.d/timeout.conf
if [ -e "$coredump" ] && ! grep -q RuntimeMaxSec "$coredump"; then
    printf '[Service]\nRuntimeMaxSec=infinity\nTimeoutSec=infinity\n' \
        > "$coredump"
fi

systemctl --system daemon-reload >/dev/null || true
