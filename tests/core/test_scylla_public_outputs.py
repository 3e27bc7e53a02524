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

"""The plugin's parsers on real ScyllaDB outputs from public sources.

The outputs live outside the repository, in ../shared/testdata/scylla-public
beside the checkout (its README.md says what they are, MANIFEST.tsv where
each comes from). Every file there of a kind the plugin reads has one case
here: the parser the plugin reads that kind of output with, and what the
parse must give, taken from the file's own text (or, for
scylla-cluster-tests' nodetool status inputs, from the values its unit tests
assert: expected-sct-status.json). Files the folder's README calls visibly
edited may be refused, with a clear error, but never read wrongly.
"""

import dataclasses
import datetime
import json
import math
import pathlib
import uuid

import pytest

from perfkit_plugins.core.machines import tuning
from perfkit_plugins.core.quiesce import compactions
from perfkit_plugins.core.quiesce import node_status
from perfkit_plugins.core.stress import stress_output

_REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
PUBLIC = _REPOSITORY.parent / 'shared' / 'testdata' / 'scylla-public'
# Files of the folder that are not outputs.
_NOT_OUTPUTS = frozenset(
    {'README.md', 'MANIFEST.tsv', 'expected-sct-status.json'}
)
_SCT_EXPECTED = 'expected-sct-status.json'
# Outputs of kinds the plugin does not read: `nodetool statusbinary` (a
# node's serving CQL is asked of the node by a CQL request instead:
# node_status.CqlProbeCommand).
_NOT_READ = frozenset({
    'scylla-test-statusbinary-running.txt',
    'scylla-test-statusbinary-not-running.txt',
})


@pytest.fixture(name='public', scope='module')
def PublicFolder():
  """The folder of public outputs; skips the test when it is absent."""
  if not PUBLIC.is_dir():
    pytest.skip(
        f'no ScyllaDB public outputs at {PUBLIC}: CI checks out ../shared'
        ' beside the repository'
    )
  return PUBLIC


@dataclasses.dataclass(frozen=True)
class Refused:
  """The parser must raise `error` with a message matching `match`."""

  error: type
  match: str


# Expected parse of a nodetool status input of scylla-cluster-tests: the
# dict its unit test asserts, from expected-sct-status.json.
SCT = object()


def _Ms(text):
  """'2023-09-29T07:50:59.491' read as UTC -> epoch milliseconds."""
  moment = datetime.datetime.fromisoformat(text).replace(
      tzinfo=datetime.timezone.utc
  )
  return round(moment.timestamp() * 1000)


def _UuidMs(text):
  """Epoch milliseconds of a version-1 UUID (its 100-ns count since 1582)."""
  epoch = datetime.datetime(1582, 10, 15, tzinfo=datetime.timezone.utc)
  unix = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
  return (uuid.UUID(text).time // 10_000) - (unix - epoch) // (
      datetime.timedelta(milliseconds=1)
  )


def Status(text):
  """(datacenter, code, address, load, host id, rack) of every node line.

  Also checks that exactly the nodes whose code is UN count as Up/Normal.
  """
  states = node_status.ParseNodetoolStatus(text)
  nodes = [
      (s.datacenter, s.status + s.state, s.address, s.load, s.host_id, s.rack)
      for s in states
  ]
  addresses = [s.address for s in states]
  not_un = sorted(n[2] for n in nodes if n[1] != 'UN')
  assert node_status.NotUpNormal(states, addresses) == not_un
  return nodes


def SctStatus(text):
  """The parse in the shape scylla-cluster-tests asserts (no tokens, owns)."""
  shape = {}
  for s in node_status.ParseNodetoolStatus(text):
    shape.setdefault(s.datacenter, {})[s.address] = {
        'host_id': s.host_id,
        'load': s.load.replace(' ', ''),
        'rack': s.rack,
        'state': s.status + s.state,
    }
  return shape


def CompactionStats(text):
  status = compactions.ParseCompactionStats(text)
  return status.running, status.pending


def CsVersion(text):
  version = stress_output.ParseVersion(text)
  return version.version, dict(version.components)


def _Comparable(results):
  """StressResults with a NaN mean GC time as 'NaN' (NaN != NaN)."""
  if math.isnan(results.gc_mean_ms):
    return dataclasses.replace(results, gc_mean_ms='NaN')
  return results


def CsResults(text):
  return _Comparable(stress_output.ParseResults(text))


def CsOutput(text):
  """Interval count, last `total` line's (ops, time), and the Results."""
  output = stress_output.ParseStressOutput(text)
  last = output.intervals[-1]
  return (
      len(output.intervals),
      (last.op_type, last.total_ops, last.elapsed_s),
      _Comparable(output.results),
  )


def CpuMask(text):
  return sorted(tuning.ParseCpuMask(text))


def CpusetConf(text):
  cpus, smp = tuning.ParseCpusetConf(text)
  return sorted(cpus), smp


def _Totals(rate, latencies, partitions):
  """OpTotals of a write-only run: op, partition and row rates are equal."""
  return stress_output.OpTotals(
      op_rate=rate,
      partition_rate=rate,
      row_rate=rate,
      latency=stress_output.Latencies(*latencies),
      partitions=partitions,
      errors=0,
  )


def _WriteResults(rate, latencies, partitions):
  """StressResults of a 10 s write run without JMX (no GC figures)."""
  totals = _Totals(rate, latencies, partitions)
  return stress_output.StressResults(
      total=totals,
      by_op_type={'WRITE': totals},
      gc_count=0,
      gc_memory_bytes=0.0,
      gc_time_s=0.0,
      gc_mean_ms='NaN',
      gc_stddev_ms=0.0,
      operation_time_s=10,
  )


def _History(keyspace, table, started, compacted, bytes_in, bytes_out):
  """HistoryEntry from the texts of its times (`started`: ms or None)."""
  return compactions.HistoryEntry(
      keyspace=keyspace,
      table=table,
      started_at_ms=started,
      compacted_at_ms=_Ms(compacted),
      bytes_in=bytes_in,
      bytes_out=bytes_out,
  )


# The nodes of the two-datacenter status files, in order (datacenter,
# address, load, host id, rack); the files differ in their states only.
_TWO_DC_NODES = (
    (
        'eastus',
        '10.0.59.34',
        '21.71 GB',
        'e5bcb094-e4de-43aa-8dc9-b1bf74b3b346',
        '1a',
    ),
    (
        'eastus',
        '10.0.198.153',
        '?',
        'fba174cd-917a-40f6-ab62-cc58efaaf301',
        '1a',
    ),
    (
        'westus',
        '10.1.59.34',
        '21.71 GB',
        'e5bcb094-e4de-43aa-8dc9-b1bf74546346',
        '2a',
    ),
)


def _TwoDc(*states):
  """Status's rows of a two-datacenter file whose nodes are in `states`."""
  return [
      (dc, state, address, load, host_id, rack)
      for (dc, address, load, host_id, rack), state in zip(
          _TWO_DC_NODES, states, strict=True
      )
  ]


_FUNCTIONS_ID = 'edef82f0-5e9c-11ee-a8f6-7d85dcfeb8f4'
_PEERS_ID = 'edde9300-5e9c-11ee-a8f6-7d85dcfeb8f4'
# The history of ScyllaDB's nodetool tests of 2023 and 2024 (Java and native
# nodetool print the same rows): no started_at column, so the start is the
# time of the TimeUUID id. Equal to the REST body those tests serve.
_HISTORY_2023 = [
    _History(
        'system_schema',
        'functions',
        _UuidMs(_FUNCTIONS_ID),
        '2023-09-29T07:50:59.491',
        5790,
        5944,
    ),
    _History(
        'system',
        'peers',
        _UuidMs(_PEERS_ID),
        '2023-09-29T07:50:59.380',
        11714,
        11808,
    ),
]
# The REST body of 2023 and 2024 (no started_at), oldest first.
_REST_HISTORY_2023 = [
    _History('system', 'peers', None, '2023-09-29T07:50:59.380', 11714, 11808),
    _History(
        'system_schema',
        'functions',
        None,
        '2023-09-29T07:50:59.491',
        5790,
        5944,
    ),
]

CASES = {
    # nodetool status: captures of running clusters.
    'ivangdr-status-2026.1-one-dc.txt': (
        Status,
        [(
            'europe-west2-b-dc1',
            'UN',
            '192.168.49.198',
            '1.04 MB',
            '0aea3d21-13b4-452e-a177-606b1c752f1b',
            'b',
        )],
    ),
    'ivangdr-status-2026.2-after-decommission.txt': (
        Status,
        [(
            'europe-west2-b-dc1',
            'UN',
            '192.168.49.209',
            '766.26 KB',
            '0aea3d21-13b4-452e-a177-606b1c752f1b',
            'b',
        )],
    ),
    'ivangdr-status-2026.2-two-dc.txt': (
        Status,
        [
            (
                'europe-west2-b-dc1',
                'UN',
                '192.168.49.209',
                '1.25 MB',
                '0aea3d21-13b4-452e-a177-606b1c752f1b',
                'b',
            ),
            (
                'europe-west2-c-dc2',
                'UN',
                '192.168.147.149',
                '940.95 KB',
                'f381543d-c737-4ce6-8aa4-94d6eae6ee3c',
                'c',
            ),
        ],
    ),
    'stawarz-status-north.txt': (
        Status,
        [
            (
                'north',
                'UN',
                '192.168.160.2',
                '91.33 KB',
                '4a27a531-f250-458a-9bff-b1f05d24a834',
                'north2',
            ),
            (
                'north',
                'UN',
                '192.168.160.3',
                '90.91 KB',
                'e434ef65-256e-4631-8590-554ee72f6f3c',
                'north3',
            ),
            (
                'north',
                'UN',
                '192.168.160.4',
                '91.26 KB',
                '149e12c3-dcfa-4ab7-b4b1-4b1d9b4a4113',
                'north1',
            ),
        ],
    ),
    'stawarz-status-north-south.txt': (
        Status,
        [
            (
                'north',
                'UN',
                '192.168.176.2',
                '108.46 KB',
                'e4c95388-8b4f-41c9-8b72-fed301e13dba',
                'north3',
            ),
            (
                'north',
                'UN',
                '192.168.176.3',
                '108.7 KB',
                'e64abf0d-afb8-45be-b3b2-f693051e1452',
                'north2',
            ),
            (
                'north',
                'UN',
                '192.168.176.4',
                '108.43 KB',
                'bd25b189-d93f-40fa-b724-012c572fb4be',
                'north1',
            ),
            (
                'south',
                'UN',
                '192.168.176.5',
                '108.62 KB',
                'a9a770f7-a535-445a-b1b6-eb629f5a89ce',
                'south1',
            ),
            (
                'south',
                'UN',
                '192.168.176.6',
                '108.8 KB',
                'd18b8cbd-bd7e-403b-9ad9-a837481eb483',
                'south2',
            ),
            (
                'south',
                'UN',
                '192.168.176.7',
                '108.38 KB',
                '12aa3833-9e09-4b83-b2a6-c7e2d8c43ab2',
                'south3',
            ),
        ],
    ),
    # nodetool status: documentation examples.
    'scylla-docs-status-rst.txt': (
        Status,
        [
            (
                'datacenter1',
                'UN',
                '127.0.0.1',
                '394.97 MB',
                '292a6c7f-2063-484c-b54d-9015216f1750',
                'rack1',
            ),
            (
                'datacenter1',
                'UN',
                '127.0.0.2',
                '151.07 MB',
                '102b6ecd-2081-4073-8172-bf818c35e27b',
                'rack1',
            ),
            # The docs' typo: not hex. Read as printed (the host id is
            # never interpreted), not dropped.
            (
                'datacenter1',
                'UN',
                '127.0.0.3',
                '249.07 MB',
                '20db6ecd-2981-447s-l172-jf118c17o27y',
                'rack1',
            ),
            # eXcluded: listed, and not Up/Normal.
            (
                'datacenter1',
                'XN',
                '127.0.0.4',
                '149.07 MB',
                'dd961642-c7c6-4962-9f5a-ea774dbaed77',
                'rack1',
            ),
        ],
    ),
    'scylla-docs-dockerhub-status.txt': (
        Status,
        [(
            'datacenter1',
            'UN',
            '172.17.0.2',
            '125.51 KB',
            'c9155121-786d-44f8-8667-a8b915b95665',
            'rack1',
        )],
    ),
    'scylla-docs-console-demo-status.txt': (
        Status,
        [
            (
                'datacenter1',
                'UN',
                '172.17.0.3',
                '127.42 KB',
                '66a3bfe7-3e90-4859-a394-becc00af1cf2',
                'rack1',
            ),
            (
                'datacenter1',
                'UN',
                '172.17.0.2',
                '110.58 KB',
                'f66639bf-3259-47f5-8487-602fcb082624',
                'rack1',
            ),
            (
                'datacenter1',
                'UN',
                '172.17.0.4',
                '118.38 KB',
                'd978ff65-0331-4f27-a129-9be2d7169ad6',
                'rack1',
            ),
        ],
    ),
    'scylla-docs-add-dc-status.txt': (
        Status,
        [
            (
                'US-DC',
                'UN',
                '54.191.2.121',
                '120.97 KB',
                'c84b80ea-cb60-422b-bc72-fa86ede4ac2e',
                'RACK1',
            ),
            (
                'US-DC',
                'UN',
                '54.191.72.56',
                '109.54 KB',
                '129087eb-9aea-4af6-92c6-99fdadb39c33',
                'RACK1',
            ),
            (
                'US-DC',
                'UN',
                '54.187.25.99',
                '104.94 KB',
                '0540c7d7-2622-4f1f-a3f0-acb39282e0fc',
                'RACK1',
            ),
            (
                'ASIA-DC',
                'UN',
                '54.160.174.243',
                '109.54 KB',
                'c7686ffd-7a5b-4124-858e-df2e61130aaa',
                'RACK1',
            ),
            (
                'ASIA-DC',
                'UN',
                '54.235.9.159',
                '109.75 KB',
                '39798227-9f6f-4868-8193-08570856c09a',
                'RACK1',
            ),
            (
                'ASIA-DC',
                'UN',
                '54.146.228.25',
                '128.33 KB',
                '7a4957a1-9590-4434-9746-9c8a6f796a0c',
                'RACK1',
            ),
        ],
    ),
    # nodetool status: scylla-cluster-tests' inputs.
    'sct-status-typical.txt': (SctStatus, SCT),
    'sct-status-one-space.txt': (SctStatus, SCT),
    'sct-status-azure-empty-rack.txt': (SctStatus, SCT),
    'sct-status-oci-rack.txt': (SctStatus, SCT),
    # Its 8-digit host ids are an edit; read as printed, as SCT asserts.
    'sct-status-ipv6.txt': (SctStatus, SCT),
    'sct-status-two-dc.txt': (Status, _TwoDc('UN', 'UN', 'UN')),
    'sct-status-dn-eastus.txt': (Status, _TwoDc('DN', 'UN', 'UN')),
    'sct-status-dn-westus.txt': (Status, _TwoDc('UN', 'UN', 'DN')),
    # nodetool compactionstats (running, pending).
    'scylla-test-compactionstats-n0-tp0.txt': (CompactionStats, (0, 0)),
    'scylla-test-compactionstats-n0-tp1024.txt': (CompactionStats, (0, 0)),
    'scylla-test-compactionstats-n1-tp0.txt': (CompactionStats, (1, 1)),
    'scylla-test-compactionstats-n1-tp1024.txt': (CompactionStats, (1, 1)),
    'scylla-test-compactionstats-n2-tp0.txt': (CompactionStats, (2, 2)),
    'scylla-test-compactionstats-n2-tp1024.txt': (CompactionStats, (2, 2)),
    # Cassandra 2.0's header (`column family`): a major and a minor run.
    'scylla-docs-compactionstats-rst.txt': (CompactionStats, (2, 2)),
    # REST bodies the engine reads.
    'scylla-test-rest-compactions-n0.json': (
        compactions.ParseScyllaRunningCompactions,
        0,
    ),
    'scylla-test-rest-compactions-n1.json': (
        compactions.ParseScyllaRunningCompactions,
        1,
    ),
    'scylla-test-rest-compactions-n2.json': (
        compactions.ParseScyllaRunningCompactions,
        2,
    ),
    'scylla-test-rest-pending_tasks_by_table-n0.json': (
        compactions.ParseScyllaPendingTasks,
        0,
    ),
    'scylla-test-rest-pending_tasks_by_table-n1.json': (
        compactions.ParseScyllaPendingTasks,
        1,
    ),
    'scylla-test-rest-pending_tasks_by_table-n2.json': (
        compactions.ParseScyllaPendingTasks,
        2,
    ),
    'scylla-test-rest-compaction_history-2023.json': (
        compactions.ParseScyllaCompactionHistory,
        _REST_HISTORY_2023,
    ),
    'scylla-test-rest-compaction_history-2024.json': (
        compactions.ParseScyllaCompactionHistory,
        _REST_HISTORY_2023,
    ),
    'scylla-test-rest-compaction_history-2025.json': (
        compactions.ParseScyllaCompactionHistory,
        [
            _History(
                'system',
                'peers',
                _Ms('2023-09-29T07:40:59.380'),
                '2023-09-29T07:50:59.380',
                11714,
                11808,
            ),
            _History(
                'system_schema',
                'functions',
                _Ms('2023-09-29T07:40:59.491'),
                '2023-09-29T07:50:59.491',
                5790,
                5944,
            ),
            _History(
                'system_schema',
                'functions',
                _Ms('2023-09-29T07:50:59.492'),
                '2023-09-29T07:50:59.492',
                579,
                594,
            ),
        ],
    ),
    # nodetool compactionhistory, Java and native.
    'scylla-test-compactionhistory-2023-cassandra-nodetool.txt': (
        compactions.ParseCompactionHistory,
        _HISTORY_2023,
    ),
    'scylla-test-compactionhistory-2023-scylla-nodetool.txt': (
        compactions.ParseCompactionHistory,
        _HISTORY_2023,
    ),
    'scylla-test-compactionhistory-2024-cassandra-nodetool.txt': (
        compactions.ParseCompactionHistory,
        _HISTORY_2023,
    ),
    'scylla-test-compactionhistory-2024-scylla-nodetool.txt': (
        compactions.ParseCompactionHistory,
        _HISTORY_2023,
    ),
    # Java nodetool prints no started_at. Two ids' times fall after their
    # row's compacted_at (the first in 2025; the test behind the file prints
    # peers' started_at as its compacted_at), so they cannot be starts.
    'scylla-test-compactionhistory-2025-cassandra-nodetool.txt': (
        compactions.ParseCompactionHistory,
        [
            _History(
                'system_schema',
                'functions',
                None,
                '2023-09-29T07:50:59.492',
                579,
                594,
            ),
            _History(
                'system_schema',
                'functions',
                _UuidMs(_FUNCTIONS_ID),
                '2023-09-29T07:50:59.491',
                5790,
                5944,
            ),
            _History(
                'system',
                'peers',
                None,
                '2023-09-29T07:40:59.380',
                11714,
                11808,
            ),
        ],
    ),
    'scylla-test-compactionhistory-2025-scylla-nodetool.txt': (
        compactions.ParseCompactionHistory,
        [
            _History(
                'system_schema',
                'functions',
                _Ms('2023-09-29T07:50:59.492'),
                '2023-09-29T07:50:59.492',
                579,
                594,
            ),
            _History(
                'system_schema',
                'functions',
                _Ms('2023-09-29T07:40:59.491'),
                '2023-09-29T07:50:59.491',
                5790,
                5944,
            ),
            _History(
                'system',
                'peers',
                _Ms('2023-09-29T07:40:59.380'),
                '2023-09-29T07:50:59.380',
                11714,
                11808,
            ),
        ],
    ),
    'scylla-docs-compactionhistory-rst.txt': (
        compactions.ParseCompactionHistory,
        [
            _History(
                'ks',
                'test',
                _Ms('2024-12-17T16:19:55.914'),
                '2024-12-17T16:39:55.914',
                11000,
                5583,
            ),
            _History(
                'ks',
                'test',
                _Ms('2024-12-17T16:19:55.913'),
                '2024-12-17T16:39:55.913',
                10919,
                5490,
            ),
            _History(
                'system',
                'raft',
                _Ms('2024-12-17T16:19:52.570'),
                '2024-12-17T16:39:52.570',
                102199,
                96181,
            ),
            _History(
                'system_schema',
                'columns',
                _Ms('2024-12-17T16:19:52.563'),
                '2024-12-17T16:39:52.563',
                25478,
                19882,
            ),
            _History(
                'system',
                'topology',
                _Ms('2024-12-17T16:19:52.555'),
                '2024-12-17T16:39:52.555',
                22197,
                14236,
            ),
        ],
    ),
    # cqlsh: the plugin reads only system.tablets; other tables are refused.
    'scylla-docs-cqlsh-cdc-streams.txt': (
        compactions.ParseScyllaTabletTransitions,
        Refused(ValueError, 'not a system.tablets result'),
    ),
    'scylla-docs-cqlsh-cdc-timestamps.txt': (
        compactions.ParseScyllaTabletTransitions,
        Refused(ValueError, 'not a system.tablets result'),
    ),
    # cassandra-stress version.
    'sct-cs-version-3.20.1.txt': (
        CsVersion,
        (
            '3.20.1',
            {
                'scylla-java-driver': '3.11.5.11',
                'scylla-java-driver-4x': '4.19.0.1',
            },
        ),
    ),
    'sct-cs-version-snapshot.txt': (CsVersion, ('3.12.0-SNAPSHOT', {})),
    'sct-cs-version-malformed.txt': (CsVersion, ('3.12.0-SNAPSHOT', {})),
    # cassandra-stress output.
    'miltroj-cs-results-block.txt': (
        CsResults,
        _WriteResults(15156.0, (0.6, 0.6, 0.9, 1.2, 2.4, 17.3), 164042),
    ),
    'miltroj-cs-write-10s-vs-scylla.txt': (
        CsOutput,
        (
            11,
            ('total', 166163, 10.7),
            _WriteResults(15545.0, (0.6, 0.6, 0.8, 1.1, 1.7, 10.4), 166163),
        ),
    ),
    # scylla --version: the release, or None for no release.
    'sct-scylla-version-2019.1.4.txt': (tuning.ReleaseOfVersion, (2019, 1, 4)),
    'sct-scylla-version-3.3.rc1.txt': (tuning.ReleaseOfVersion, (3, 3)),
    'sct-scylla-version-4.4.dev.txt': (tuning.ReleaseOfVersion, (4, 4)),
    # A development build: no release in it (not 0.20200205.2816404).
    'sct-scylla-version-666.development.txt': (tuning.ReleaseOfVersion, None),
    # perftune.py CPU masks: 32-bit words, most significant first, an empty
    # word is zero.
    'sct-mask-12.txt': (
        CpuMask,
        [0, 1, 2, 48, 49, 50, 96, 97, 98, 144, 145, 146],
    ),
    'sct-mask-2.txt': (CpuMask, [0, 64]),
    # Where the word `0x00000001` sits is unknown with edge commas.
    'sct-mask-leading-comma.txt': (
        CpuMask,
        Refused(ValueError, 'malformed CPU mask'),
    ),
    # /etc/scylla.d/cpuset.conf.
    'sct-cpuset-22.conf': (
        CpusetConf,
        ([*range(1, 8), *range(9, 16), *range(17, 24), 31], None),
    ),
    'sct-cpuset-3.conf': (CpusetConf, ([1, 9, 17], None)),
    'sct-cpuset-commented.conf': (CpusetConf, ([], None)),
}


class TestPublicOutputs:
  """Every file of the folder, read by the plugin's parser for its kind."""

  @pytest.mark.parametrize('name', sorted(CASES))
  def test_public_output(self, public, name):
    """The file's parse is the expected one, or the expected refusal."""
    parse, expected = CASES[name]
    text = (public / name).read_text()
    if expected is SCT:
      expected = json.loads((public / _SCT_EXPECTED).read_text())[name]
      for nodes in expected.values():
        for node in nodes.values():
          # Columns the plugin does not read.
          del node['tokens'], node['owns']
    if isinstance(expected, Refused):
      with pytest.raises(expected.error, match=expected.match):
        parse(text)
    else:
      assert parse(text) == expected

  def test_every_public_output_has_a_case(self, public):
    outputs = {path.name for path in public.iterdir()} - _NOT_OUTPUTS
    assert outputs == set(CASES) | _NOT_READ
    manifest = (public / 'MANIFEST.tsv').read_text().splitlines()[1:]
    listed = {line.split('\t')[0] for line in manifest if line.strip()}
    assert listed == set(CASES) | _NOT_READ | {_SCT_EXPECTED}

  def test_every_sct_expectation_has_a_case(self, public):
    expected = json.loads((public / _SCT_EXPECTED).read_text())
    sct_cases = {name for name, (_, e) in CASES.items() if e is SCT}
    assert sct_cases == set(expected)
