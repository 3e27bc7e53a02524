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

"""`iotune`: seastar's disk evaluation, as scylla_io_setup runs it.

scylla_io_setup runs `iotune --format envfile --options-file
/etc/scylla.d/io.conf --properties-file /etc/scylla.d/io_properties.yaml
--evaluation-directory DIR ...` (dist/common/scripts/scylla_io_setup
:174-204). Like seastar's (apps/iotune/iotune.cc:864-1114) this evaluates
each mount point once, in one of the directories given on it
(:927-936, mount points found as :840-862), checks it takes direct I/O,
and writes the properties file (:809-838: `disks:` with mountpoint,
read_iops, read_bandwidth, write_iops, write_bandwidth) and the options
file (:800-808: `SEASTAR_IO="--io-properties-file=..."` for envfile, else
`io-properties-file=...`), mode 0664 less the umask.

The numbers are a short real measurement in a test file of the directory:
sequential 1 MiB writes then reads, random writes then reads of the
physical block (4 KiB unless --random-*-io-buffer-size), all with O_DIRECT
from one thread at queue depth 1, each for a tenth of --duration (120 s by
default, as iotune's random tests) but at most half a second, in at most
256 MiB. One request in flight measures latency-bound rates, a floor of
what seastar's iotune, which keeps the disk's queue full from every
shard, finds. Seastar also refuses a file system whose appending direct
writes block (fsqual.cc:63-110), which leaves XFS: this checks direct I/O
only and warns on other file systems.
"""

import dataclasses
import errno
import mmap
import os
import random
import time

from scylla_standin import package
from scylla_standin import program_options as po

DEFAULT_DURATION_S = 120
MAX_TEST_S = 0.5
MAX_FILE_BYTES = 256 << 20
SEQUENTIAL_BUFFER = 1 << 20
RANDOM_BUFFER = 4096
TEST_FILE = 'testfile'
GOOD_FILE_SYSTEM = 'xfs'
OPTIONS = (
    po.Option(
        'evaluation-directory',
        multiple=True,
        required=True,
        help='directory where to execute the evaluation',
    ),
    po.Option('properties-file', help='path in which to write the YAML file'),
    po.Option(
        'options-file', help='path in which to write the legacy conf file'
    ),
    po.Option(
        'duration',
        convert=po.UnsignedInt,
        help='time, in seconds, for which to run the test',
    ),
    po.Option('format', help='Configuration file format (seastar | envfile)'),
    po.Switch('fs-check', help_text='perform FS check only'),
    po.Switch('detect-physical-block-size'),
    po.Option('accuracy', convert=po.UnsignedInt),
    po.Option('saturation'),
    po.Option('random-write-io-buffer-size', convert=po.UnsignedInt),
    po.Option('random-read-io-buffer-size', convert=po.UnsignedInt),
    po.Option('force-io-depth', convert=po.UnsignedInt),
    po.Option(
        'get-best-iops-with-buffer-sizes', multiple=True, convert=po.UnsignedInt
    ),
)


@dataclasses.dataclass(frozen=True)
class Disk:
  """One disk_descriptor (iotune.cc:781-790)."""

  mountpoint: str
  read_iops: int
  read_bandwidth: int
  write_iops: int
  write_bandwidth: int


def MountpointOf(path):
  """The mount point of a path: up until the device changes (:840-862)."""
  candidate = os.path.realpath(path)
  device = os.stat(candidate).st_dev
  while candidate != '/':
    parent = os.path.dirname(candidate)
    if os.stat(parent).st_dev != device:
      break
    candidate = parent
  return candidate


def FileSystemType(mountpoint, mountinfo='/proc/self/mountinfo'):
  """The file system type mounted at mountpoint, or ''."""
  try:
    with open(mountinfo) as f:
      lines = f.read().splitlines()
  except OSError:
    return ''
  found = ''
  for line in lines:
    fields = line.split()
    if ' - ' in line and len(fields) > 4 and fields[4] == mountpoint:
      found = line.split(' - ', 1)[1].split()[0]
  return found


def PropertiesYaml(disks):
  """io_properties.yaml as yaml-cpp emits it (iotune.cc:809-838)."""
  lines = ['disks:']
  for disk in disks:
    lines += [
        f'  - mountpoint: {disk.mountpoint}',
        f'    read_iops: {disk.read_iops}',
        f'    read_bandwidth: {disk.read_bandwidth}',
        f'    write_iops: {disk.write_iops}',
        f'    write_bandwidth: {disk.write_bandwidth}',
    ]
  return '\n'.join(lines) + '\n'


def OptionsText(file_format, properties_file):
  """io.conf (iotune.cc:800-808)."""
  if file_format == 'seastar':
    return f'io-properties-file={properties_file}\n'
  return f'SEASTAR_IO="--io-properties-file={properties_file}"\n'


def _WriteFile(path, text):
  """As iotune's string_to_file: O_CREAT|O_TRUNC, 0664 (:792-798)."""
  fd = os.open(
      path, os.O_WRONLY | os.O_CLOEXEC | os.O_CREAT | os.O_TRUNC, 0o664
  )
  with os.fdopen(fd, 'w') as f:
    f.write(text)


def _Timed(seconds, step):
  """Calls step() until it returns False or `seconds` pass: (calls, s)."""
  start = time.monotonic()
  calls = 0
  while time.monotonic() - start < seconds:
    if step(calls) is False:
      break
    calls += 1
  return calls, max(time.monotonic() - start, 1e-9)


def Measure(directory, test_s, write_buffer, read_buffer):
  """Sequential and random rates of the file system of `directory`.

  Returns:
    (read_iops, read_bandwidth, write_iops, write_bandwidth).

  Raises:
    OSError: the directory takes no direct I/O, or the I/O failed.
  """
  path = os.path.join(directory, TEST_FILE)
  fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o600)
  # Page-aligned, as O_DIRECT needs.
  buffer = mmap.mmap(-1, max(SEQUENTIAL_BUFFER, write_buffer, read_buffer))
  buffer.write(os.urandom(len(buffer)))
  view = memoryview(buffer)
  try:
    blocks = MAX_FILE_BYTES // SEQUENTIAL_BUFFER

    def WriteBlock(i):
      if i >= blocks:
        return False
      os.pwrite(fd, view[:SEQUENTIAL_BUFFER], i * SEQUENTIAL_BUFFER)
      return True

    written, seconds = _Timed(test_s, WriteBlock)
    os.fsync(fd)
    written = max(written, 1)
    write_bandwidth = written * SEQUENTIAL_BUFFER / seconds
    size = written * SEQUENTIAL_BUFFER

    def ReadBlock(i):
      os.preadv(
          fd, [view[:SEQUENTIAL_BUFFER]], (i % written) * SEQUENTIAL_BUFFER
      )

    read, seconds = _Timed(test_s, ReadBlock)
    read_bandwidth = read * SEQUENTIAL_BUFFER / seconds
    rng = random.Random(0)

    def RandomWrite(_):
      offset = rng.randrange(size // write_buffer) * write_buffer
      os.pwrite(fd, view[:write_buffer], offset)

    writes, seconds = _Timed(test_s, RandomWrite)
    os.fsync(fd)
    write_iops = writes / seconds

    def RandomRead(_):
      offset = rng.randrange(size // read_buffer) * read_buffer
      os.preadv(fd, [view[:read_buffer]], offset)

    reads, seconds = _Timed(test_s, RandomRead)
    read_iops = reads / seconds
  finally:
    view.release()
    buffer.close()
    os.close(fd)
    os.unlink(path)
  return (
      int(read_iops),
      int(read_bandwidth),
      int(write_iops),
      int(write_bandwidth),
  )


def Main(argv):
  """`iotune args...`; returns the exit status."""
  log = package.Logger('iotune')
  try:
    parsed = po.Parse(argv[1:], OPTIONS + po.SEASTAR_OPTIONS)
  except po.Error as e:
    print(e.Report())
    return e.exit_status
  if parsed.Get('help'):
    print('IOTune (perfkit-plugins stand-in)\n')
    print(po.Help('App options', OPTIONS))
    return 0
  file_format = parsed.Get('format', 'seastar')
  duration = parsed.Get('duration', DEFAULT_DURATION_S)
  test_s = min(duration * 0.1, MAX_TEST_S)
  write_buffer = parsed.Get('random-write-io-buffer-size') or RANDOM_BUFFER
  read_buffer = parsed.Get('random-read-io-buffer-size') or RANDOM_BUFFER
  # One directory per mount point, the last given (iotune.cc:927-936).
  by_mountpoint = {}
  for directory in parsed.Get('evaluation-directory'):
    try:
      by_mountpoint[MountpointOf(directory)] = directory
    except OSError as e:
      log.error('Could not evaluate %s: %s', directory, e)
      return 1
  disks = []
  for mountpoint, directory in by_mountpoint.items():
    fs_type = FileSystemType(mountpoint)
    if fs_type != GOOD_FILE_SYSTEM:
      log.warning(
          (
              '%s is on %s, not %s: seastar would test its appending direct'
              ' writes, which most other file systems block'
          ),
          directory,
          fs_type or 'an unknown file system',
          GOOD_FILE_SYSTEM,
      )
    log.info('%s passed sanity checks', directory)
    if parsed.Get('fs-check'):
      continue
    print('Starting Evaluation. This may take a while...', flush=True)
    try:
      read_iops, read_bw, write_iops, write_bw = Measure(
          directory, test_s, write_buffer, read_buffer
      )
    except OSError as e:
      if e.errno == errno.EINVAL:
        log.error('Linux AIO is not supported by filesystem at %s', directory)
      else:
        log.error('Could not evaluate %s: %s', directory, e)
      return 1
    print(f'Measuring sequential write bandwidth: {write_bw >> 20} MiB/s')
    print(f'Measuring sequential read bandwidth: {read_bw >> 20} MiB/s')
    print(f'Measuring random write IOPS: {write_iops} IOPS')
    print(f'Measuring random read IOPS: {read_iops} IOPS')
    disks.append(Disk(mountpoint, read_iops, read_bw, write_iops, write_bw))
  if parsed.Get('fs-check'):
    return 0
  properties_file = parsed.Get('properties-file')
  for option, text in (
      ('properties-file', lambda: PropertiesYaml(disks)),
      ('options-file', lambda: OptionsText(file_format, properties_file)),
  ):
    path = parsed.Get(option)
    if path:
      print(f'Writing result to {path}', flush=True)
      try:
        _WriteFile(path, text())
      except OSError as e:
        log.error(
            (
                'Exception when writing %s: %s.\nPlease add the above values'
                ' manually to your seastar command line.'
            ),
            'properties file'
            if option == 'properties-file'
            else 'configuration file',
            e,
        )
        return 1
  return 0
