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

"""The releases this project knows, so a mistyped one fails before paying.

A release that does not exist fails only at install time, after the
machines are provisioned and billed. The tables below list what the project
knew on KNOWN_AS_OF; a newer release is refused with a message saying so,
and --scylla_allow_unknown_releases tries it as given.
"""

KNOWN_AS_OF = '2026-11-24'

# ScyllaDB release series (X.Y); any patch release of a series is accepted.
SCYLLA_SERIES = (
    '5.4',
    '6.0',
    '6.1',
    '6.2',
    '2024.1',
    '2024.2',
    '2025.1',
    '2025.2',
    '2025.3',
    '2025.4',
    '2026.1',
    '2026.2',
    '2026.3',
)
# ScyllaDB's 2024 key (491c93b9de7496a7), which 6.0's and 6.1's docs name,
# signs with a subkey that expired on 2026-01-31.
_EXPIRED_SUBKEY = (
    "signed by the subkey 87722433EBB454AE of ScyllaDB's 2024 key, which"
    ' expired on 2026-01-31'
)
# Series the ScyllaDB engine cannot serve, and why: refused before
# provisioning, also with --scylla_allow_unknown_releases.
SCYLLA_UNSERVED = {
    '5.4': (
        'its nodetool is the Java one, which needs the scylla-jmx service'
        " (ScyllaDB's own nodetool is `nodetool` from 6.0 on)"
    ),
    '6.0': (
        f'its apt repository is {_EXPIRED_SUBKEY}: apt refuses it'
        ' (EXPKEYSIG; scylladb/scylladb issues 28644 and 31337)'
    ),
    '6.1': (
        'its docs name the same key as 6.0, whose repository is'
        f' {_EXPIRED_SUBKEY} and refused by apt (EXPKEYSIG)'
    ),
    '2024.1': (
        'an Enterprise release (packages scylla-enterprise*); from 2025.1 on'
        ' the package is scylla again'
    ),
    '2024.2': (
        'an Enterprise release (packages scylla-enterprise*); from 2025.1 on'
        ' the package is scylla again'
    ),
}
# Apache Cassandra: the newest patch release of each series.
CASSANDRA_LATEST_PATCH = {(4, 0): 20, (4, 1): 11, (5, 0): 9}
# scylladb/cassandra-stress releases with the Java 21 binary asset.
SCYLLA_STRESS_RELEASES = ('3.18.0', '3.18.1')

OVERRIDE_FLAG = 'scylla_allow_unknown_releases'


def _Unknown(what, known):
  return ValueError(
      f'{what} is not a release this project knows (as of {KNOWN_AS_OF}:'
      f' {known}); check it, or give --{OVERRIDE_FLAG} to try it as given'
  )


def CheckScylla(release):
  """Raises ValueError unless `release` (X.Y or X.Y.Z) is of a known series."""
  series = '.'.join(release.split('.')[:2])
  if series not in SCYLLA_SERIES:
    raise _Unknown(f'ScyllaDB {release}', ', '.join(SCYLLA_SERIES))


def CheckScyllaServed(release):
  """Raises ValueError when the engine cannot serve `release`'s series."""
  series = '.'.join(release.split('.')[:2])
  why = SCYLLA_UNSERVED.get(series)
  if why:
    served = [s for s in SCYLLA_SERIES if s not in SCYLLA_UNSERVED]
    raise ValueError(
        f'ScyllaDB {release} cannot be benchmarked here: {why}. Releases that'
        f' work: {", ".join(served)}'
    )


def CheckCassandra(version):
  """Raises ValueError unless `version` (X.Y.Z) was released."""
  major, minor, patch = (int(p) for p in version.split('.'))
  latest = CASSANDRA_LATEST_PATCH.get((major, minor))
  if latest is None or patch > latest:
    known = ', '.join(
        f'{a}.{b}.0 to {a}.{b}.{p}'
        for (a, b), p in sorted(CASSANDRA_LATEST_PATCH.items())
    )
    raise _Unknown(f'Apache Cassandra {version}', known)


def CheckScyllaStress(release):
  """Raises ValueError unless `release` is a known cassandra-stress release."""
  if release not in SCYLLA_STRESS_RELEASES:
    raise _Unknown(
        f'scylladb/cassandra-stress {release}',
        ', '.join(SCYLLA_STRESS_RELEASES),
    )
