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

"""ScyllaDB's CPU split between IRQs and shards: predicted and as tuned.

`scylla_setup` runs seastar's perftune.py, which keeps some CPUs for network
and disk interrupts and gives the rest to ScyllaDB (one shard per CPU, written
to /etc/scylla.d/cpuset.conf). Per-shard and per-vCPU results depend on that
split, so the benchmark predicts it before provisioning and records the real
one from every node after tuning.
"""

import dataclasses
import math
import re

import yaml

# perftune.py's default --irq-core-auto-detection-ratio: one IRQ core for
# every this many cores (seastar scripts/perftune.py, `cores_per_irq_core`).
CORES_PER_IRQ_CORE = 16

# A mask: 0x words, maybe empty ones between them, never at either end.
_MASK_LINE_RE = re.compile(r'^0x[0-9a-fA-F]*(,+0x[0-9a-fA-F]*)*$')
# A line of nothing but mask characters: a mask, well formed or not.
_MASK_LIKE_RE = re.compile(r'^[0-9a-fA-Fx,]*0x[0-9a-fA-Fx,]*$')
_CPUSET_RE = re.compile(r'--cpuset\s+([0-9,\-]+)')
_SMP_RE = re.compile(r'--smp\s+(\d+)')
# X.Y[.Z] opening a line, then the end or `-`, `~` or `.` (`3.3.rc1-0...`,
# `2026.1.0~rc1-0...`), so `666.development-0.20200205.abc` has none.
_RELEASE_RE = re.compile(r'^\s*(\d+)\.(\d+)(?:\.(\d+))?(?=[-~.]|\s*$)', re.M)


@dataclasses.dataclass(frozen=True)
class IrqLayout:
  """How many vCPUs serve IRQs and how many run shards."""

  irq_vcpus: int
  shards: int


@dataclasses.dataclass(frozen=True)
class CpuTopology:
  """vCPUs (hardware threads), physical cores and NUMA nodes of a node."""

  vcpus: int
  cores: int
  numa_nodes: int


@dataclasses.dataclass(frozen=True)
class TuningRecord:
  """The tuning one node ended up with, read back after scylla_setup.

  Attributes:
    node: VM name.
    topology: CpuTopology from lscpu.
    nproc: CPUs available to processes (nproc).
    cpuset: CPUs ScyllaDB runs on (cpuset.conf); empty when unrestricted.
    smp: --smp from cpuset.conf, or None.
    irq_cpus: CPUs perftune binds IRQs to.
    io_properties: the first disk of io_properties.yaml (read_iops, ...).
    version: `scylla --version` output.
    irq_source: where irq_cpus come from: IRQ_APPLIED (the perftune.yaml
      scylla_prepare applied when the server started) or IRQ_COMPUTED
      (perftune's rule, asked before the first start).
    swap: (path, bytes) of each active swap area (scylla_setup makes
      /swapfile on the boot disk: the smaller of 16 GiB and a third of the
      RAM, at most half the boot disk's free space).
    signing_keys: full fingerprints of the keys the node trusts for
      ScyllaDB's packages (its apt keyring), empty when none was read.
  """

  node: str
  topology: CpuTopology
  nproc: int
  cpuset: frozenset
  smp: int | None
  irq_cpus: frozenset
  io_properties: dict
  version: str
  irq_source: str = 'computed'
  swap: tuple = ()
  signing_keys: tuple = ()

  @property
  def shards(self):
    """Shards ScyllaDB starts: --smp, else one per cpuset CPU, else all."""
    if self.smp is not None:
      return self.smp
    return len(self.cpuset) if self.cpuset else self.nproc


def PredictIrqLayout(
    vcpus, cores, numa_nodes, cores_per_irq_core=CORES_PER_IRQ_CORE
):
  """perftune.py's automatic IRQ CPU choice, as counts.

  Mirrors seastar scripts/perftune.py `auto_detect_irq_mask`: up to 4
  hyperthreads, IRQs share all CPUs (and so do shards); up to 4 cores, one
  hyperthread serves IRQs; up to `cores_per_irq_core` cores, one full core;
  beyond that ceil(cores per NUMA node / ratio) full cores on every NUMA node.

  Args:
    vcpus: hardware threads.
    cores: physical cores.
    numa_nodes: NUMA nodes.
    cores_per_irq_core: perftune's --irq-core-auto-detection-ratio.

  Returns:
    IrqLayout.

  Raises:
    ValueError: for an impossible topology, or one perftune refuses to
      auto-detect (NUMA nodes with different core counts).
  """
  if min(vcpus, cores, numa_nodes) < 1 or vcpus % cores or cores > vcpus:
    raise ValueError(
        f'impossible topology: {vcpus} vCPUs, {cores} cores,'
        f' {numa_nodes} NUMA nodes'
    )
  if cores % numa_nodes:
    raise ValueError(
        f'{cores} cores do not split evenly over {numa_nodes} NUMA nodes;'
        ' perftune.py cannot auto-detect IRQ CPUs there'
    )
  threads_per_core = vcpus // cores
  if vcpus <= 4:
    return IrqLayout(irq_vcpus=vcpus, shards=vcpus)
  if cores <= 4:
    irq_vcpus = 1
  elif cores <= cores_per_irq_core:
    irq_vcpus = threads_per_core
  else:
    cores_per_node = cores // numa_nodes
    irq_cores = numa_nodes * math.ceil(cores_per_node / cores_per_irq_core)
    irq_vcpus = irq_cores * threads_per_core
  return IrqLayout(irq_vcpus=irq_vcpus, shards=vcpus - irq_vcpus)


def ParseSwaps(text):
  """(path, bytes) of each swap area `swapon --show=NAME,TYPE,SIZE --bytes
  --noheadings` lists.

  Raises:
    ValueError: a line is not NAME TYPE SIZE.
  """
  swaps = []
  for line in text.splitlines():
    fields = line.split()
    if not fields:
      continue
    if len(fields) != 3 or not fields[2].isdigit():
      raise ValueError(f'not a swapon --show line: {line!r}')
    swaps.append((fields[0], int(fields[2])))
  return tuple(swaps)


def ParseKeyFingerprints(text):
  """Fingerprints of the primary keys `gpg --with-colons` lists, in order.

  A key's `fpr` record follows its `pub` record; those after a `sub`
  (subkey) record are not the key's own.
  """
  fingerprints, last = [], None
  for line in text.splitlines():
    fields = line.split(':')
    if fields[0] == 'fpr' and last == 'pub' and len(fields) > 9:
      fingerprints.append(fields[9])
    last = fields[0]
  return tuple(fingerprints)


def FormatSwaps(swaps):
  """`/swapfile 16.0 GiB` for each area, or 'none'."""
  return ', '.join(
      f'{path} {size / 2**30:.1f} GiB' for path, size in swaps
  ) or ('none')


IRQ_APPLIED = 'perftune.yaml'
IRQ_COMPUTED = 'computed'


def ParsePerftuneIrqMask(text):
  """The irq_cpu_mask of a perftune.yaml (perftune's --dump-options-file).

  Returns:
    The mask text (for ParseCpuMask), or None for an empty text (no file).

  Raises:
    ValueError: the text is not a perftune options file with the key.
  """
  if not text.strip():
    return None
  try:
    options = yaml.safe_load(text)
  except yaml.YAMLError as e:
    raise ValueError(f'perftune.yaml is not YAML: {e}') from e
  if not isinstance(options, dict) or 'irq_cpu_mask' not in options:
    raise ValueError(f'no irq_cpu_mask in perftune.yaml: {text!r}')
  return str(options['irq_cpu_mask'])


def ParseCpuMask(text):
  """CPUs of a hwloc CPU mask as printed by perftune.py.

  perftune prints `0x0000f000,0x0000000f` (32-bit words, most significant
  first; an empty word between two commas means zero, as in
  `0x3f000000,,0x0000003f`) and may print warnings before it. A comma at
  either end leaves the words' places unknown, so such a mask is refused.

  Args:
    text: perftune.py --get-irq-cpu-mask / --get-cpu-mask output.

  Returns:
    frozenset of CPU numbers.

  Raises:
    ValueError: if no mask line is found, or the last is malformed.
  """
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  masks = [l for l in lines if _MASK_LIKE_RE.match(l)]
  if not masks:
    raise ValueError(f'no CPU mask in perftune output: {text!r}')
  if not _MASK_LINE_RE.match(masks[-1]):
    raise ValueError(
        f'malformed CPU mask {masks[-1]!r}: hwloc masks are 0x words'
        ' joined by commas, with a word at both ends'
    )
  words = masks[-1].split(',')
  cpus = set()
  for position, word in enumerate(reversed(words)):
    value = int(word, 16) if word not in ('', '0x') else 0
    cpus.update(32 * position + b for b in range(32) if value >> b & 1)
  return frozenset(cpus)


def ParseCpuList(text):
  """'0,2-4' (cpuset(7) list format) -> frozenset({0, 2, 3, 4})."""
  cpus = set()
  for part in text.strip().split(','):
    if not part:
      continue
    first, _, last = part.partition('-')
    cpus.update(range(int(first), int(last or first) + 1))
  return frozenset(cpus)


def FormatCpuList(cpus):
  """frozenset({0, 2, 3, 4}) -> '0,2-4'."""
  ranges = []
  for cpu in sorted(cpus):
    if ranges and cpu == ranges[-1][1] + 1:
      ranges[-1][1] = cpu
    else:
      ranges.append([cpu, cpu])
  return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in ranges)


def ParseCpusetConf(text):
  """The CPUs and --smp of /etc/scylla.d/cpuset.conf.

  Only the uncommented CPUSET line counts (the packaged file carries a
  commented example).

  Returns:
    (frozenset of CPUs, empty when unrestricted; smp or None).
  """
  for line in text.splitlines():
    line = line.strip()
    if line.startswith('CPUSET='):
      cpuset = _CPUSET_RE.search(line)
      smp = _SMP_RE.search(line)
      return (
          ParseCpuList(cpuset.group(1)) if cpuset else frozenset(),
          int(smp.group(1)) if smp else None,
      )
  return frozenset(), None


def ParseLscpuTopology(text):
  """CpuTopology from `lscpu -p=CPU,CORE,SOCKET,NODE`.

  Cores are counted as distinct (socket, core) pairs, NUMA nodes as distinct
  node numbers (an empty node column means no NUMA information: one node).
  """
  cpus, cores, nodes = set(), set(), set()
  for line in text.splitlines():
    if not line.strip() or line.startswith('#'):
      continue
    cpu, core, socket, node = (line.split(',') + ['', '', ''])[:4]
    cpus.add(int(cpu))
    cores.add((socket, core))
    nodes.add(node or '0')
  if not cpus:
    raise ValueError(f'no CPU lines in lscpu output: {text!r}')
  return CpuTopology(vcpus=len(cpus), cores=len(cores), numa_nodes=len(nodes))


def ParseIoProperties(text):
  """The first disk's entry of io_properties.yaml (mountpoint, read_iops...)."""
  data = yaml.safe_load(text) or {}
  disks = data.get('disks') or []
  if not disks:
    raise ValueError(f'no disks in io_properties.yaml: {text!r}')
  return dict(disks[0])


def ReleaseOfVersion(version):
  """'2026.3.1-0.20261001.abc' -> (2026, 3, 1); None if there is none.

  `scylla --version` prints the version then `-` and the build. The
  release opens the text (or a line of it): numbers found later belong to
  the build, so a development build's `666.development-0.20200205.abc`
  gives None rather than (0, 20200205).
  """
  match = _RELEASE_RE.search(version)
  if not match:
    return None
  return tuple(int(p) for p in match.groups() if p is not None)


def Differences(record, prediction, release):
  """What to warn about: the node differs from the prediction or the request.

  Args:
    record: TuningRecord read from the node.
    prediction: IrqLayout predicted for that node's topology.
    release: the requested release ('2026.3' or '2026.3.1').

  Returns:
    list of human-readable differences, empty when all agree.
  """
  problems = []
  if len(record.irq_cpus) != prediction.irq_vcpus:
    problems.append(
        f'{record.node}: {len(record.irq_cpus)} IRQ CPUs'
        f' ({FormatCpuList(record.irq_cpus)}), predicted'
        f' {prediction.irq_vcpus}'
    )
  if record.shards != prediction.shards:
    problems.append(
        f'{record.node}: {record.shards} shards, predicted {prediction.shards}'
    )
  shared = prediction.irq_vcpus + prediction.shards > record.topology.vcpus
  if record.cpuset & record.irq_cpus and not shared:
    problems.append(
        f'{record.node}: shards share CPUs with IRQs:'
        f' {FormatCpuList(record.cpuset & record.irq_cpus)}'
    )
  if record.nproc != record.topology.vcpus:
    problems.append(
        f'{record.node}: nproc {record.nproc} != lscpu'
        f' {record.topology.vcpus} vCPUs'
    )
  wanted = tuple(int(p) for p in release.split('.'))
  installed = ReleaseOfVersion(record.version)
  if installed is None or installed[: len(wanted)] != wanted:
    problems.append(
        f'{record.node}: runs {record.version!r}, requested {release}'
    )
  return problems


def TuningMetadata(record, prediction=None):
  """Sample metadata for one node's tuning, beside the prediction.

  Keys are prefixed `scylla_` so they never collide with PKB's.

  Args:
    record: TuningRecord.
    prediction: IrqLayout for the node's topology, or None when perftune's
      rule does not apply to it.

  Returns:
    dict.
  """
  metadata = {
      'scylla_version': record.version,
      'scylla_vcpus': record.topology.vcpus,
      'scylla_cores': record.topology.cores,
      'scylla_numa_nodes': record.topology.numa_nodes,
      'scylla_nproc': record.nproc,
      'scylla_shards': record.shards,
      'scylla_cpuset': FormatCpuList(record.cpuset),
      'scylla_irq_cpus': FormatCpuList(record.irq_cpus),
      'scylla_irq_vcpus': len(record.irq_cpus),
      'scylla_irq_cpus_source': record.irq_source,
      'scylla_swap': FormatSwaps(record.swap),
      'scylla_repo_keys': ' '.join(record.signing_keys) or 'none',
  }
  if prediction is not None:
    metadata['scylla_predicted_shards'] = prediction.shards
    metadata['scylla_predicted_irq_vcpus'] = prediction.irq_vcpus
  for key in ('read_iops', 'read_bandwidth', 'write_iops', 'write_bandwidth'):
    if key in record.io_properties:
      metadata[f'scylla_io_{key}'] = record.io_properties[key]
  return metadata


def Report(records, release):
  """Metadata of every node and the differences to warn about.

  Args:
    records: TuningRecord list, one per server.
    release: the requested release.

  Returns:
    ({node: metadata dict}, [difference messages]).
  """
  metadata, problems = {}, []
  for record in records:
    topology = record.topology
    try:
      prediction = PredictIrqLayout(
          topology.vcpus, topology.cores, topology.numa_nodes
      )
    except ValueError as e:
      prediction = None
      problems.append(f'{record.node}: {e}')
    if prediction is not None:
      problems += Differences(record, prediction, release)
    metadata[record.node] = TuningMetadata(record, prediction)
  return metadata, problems


NODE_OWN_KEYS = frozenset({'scylla_data_device'})
"""Keys naming each node's own thing (its data directory or device path).

Their values may differ by node without the nodes being set up
differently: they are listed per node (ClusterMetadata) but are no
difference to warn about.
"""


def ClusterMetadata(
    per_node,
    uniform_key='scylla_tuning_uniform',
    differences_key='scylla_tuning_differences',
):
  """One metadata dict for the cluster from every node's, and differences.

  Nodes of one group are identical machines and should be tuned alike: a
  key on which they agree gets the common value. A key on which they differ
  lists every node's value (`server-0: /dev/md0; server-1: /dev/md1`) when
  its values are text; a number or flag cannot hold that and keep its type
  in every run, so such a key is left out and `differences_key` lists it
  (`scylla_shards server-0: 80; server-1: 88 / ...`). No node's tuning is
  hidden behind the first one's. `uniform_key` says whether all agreed.

  Args:
    per_node: {node: metadata dict}, as Report returns it (non-empty).
    uniform_key: the key saying whether all agreed, or None for none.
    differences_key: the key listing the differences, when there are any.

  Returns:
    (metadata dict, [difference messages]).
  """
  nodes = list(per_node)
  metadata, problems, differences = {}, [], []
  keys = dict.fromkeys(key for node in nodes for key in per_node[node])
  for key in keys:
    values = [per_node[node].get(key) for node in nodes]
    if all(value == values[0] for value in values):
      metadata[key] = values[0]
      continue
    listed = '; '.join(f'{n}: {v}' for n, v in zip(nodes, values))
    if all(isinstance(v, str) for v in values if v is not None):
      metadata[key] = listed
    else:
      differences.append(f'{key} {listed}')
    if key not in NODE_OWN_KEYS:
      problems.append(f'nodes differ in {key}: {listed}')
  if differences:
    metadata[differences_key] = ' / '.join(differences)
  if uniform_key:
    metadata[uniform_key] = not problems
  return metadata, problems
