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

"""Fake servers that answer the server sampler, for runs on fake VMs.

A fake server told to stop a step's sampler (server_sampling.StopCommand)
writes the files a real one would have written during the step, over the
span its step's loaders' HDR logs cover (a fake VM's clock is the
controller's):

* its host file: a real capture's samples (tests/testdata/server-samples/),
  one every SAMPLE_INTERVAL_S, each moved on by the next of the capture's
  own deltas between samples;
* for ScyllaDB, its scrapes: a real 5.x metrics page
  (tests/testdata/scylla-metrics/) every SCRAPE_INTERVAL_S, each counter
  moved on at the rate of its page value over an hour of uptime, and
  shard s's reactor busy for BUSY_SHARES[s] of the time.
"""

import re
import shlex

from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.results import loader_files
from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.operations import server_sampling

HOST_CAPTURE = ('server-samples', 'host-dd-vda.txt')
METRICS_PAGE = ('scylla-metrics', 'scylla-5.x-datadog-fixture.prom')
# Busy share of each shard's reactor, by shard number (the page's four).
BUSY_SHARES = (0.55, 0.62, 0.7, 0.93)
# The uptime the page's counters are taken to have accumulated over.
_PAGE_UPTIME_S = 3600.0
_BUSY_MS = 'scylla_reactor_cpu_busy_ms'
_STEM = re.compile(r'^touch (?P<stop>\S+) ')


def Transformed(page, change):
  """A metrics page with each sample's value replaced by change(...).

  change(name, labels, value) returns the new value, or None to keep the
  line; every other byte of the page stays as it was.
  """
  lines = []
  for line in page.splitlines():
    if line and not line.startswith('#'):
      ((name, [(labels, value)]),) = scylla_metrics.ParseExposition(
          line
      ).items()
      new = change(name, labels, value)
      if new is not None:
        line = f'{line.rsplit(" ", 1)[0]} {new!r}'
    lines.append(line)
  return '\n'.join(lines) + '\n'


def _HostSamples(capture):
  """The capture's device line and samples: [(time, [line tokens])].

  A line's tokens are its words and the spaces between them after its
  time, so that a sample keeps the capture's spacing (/proc/stat's `cpu  `).
  """
  device = ''
  samples = {}
  for line in capture.splitlines():
    if line.startswith('#'):
      device = line
      continue
    time, rest = line.split(' ', 1)
    samples.setdefault(time, []).append(re.findall(r'\S+|\s+', rest))
  return device, [(float(t), lines) for t, lines in samples.items()]


def _Moved(before, after):
  """Per line, the change of each counter token from one sample to the next."""
  return [
      [int(b) - int(a) if a.isdigit() else 0 for a, b in zip(old, new)]
      for old, new in zip(before, after)
  ]


def HostFile(capture, start_s, end_s, interval_s):
  """A host file sampled every interval_s from start_s to past end_s."""
  device, samples = _HostSamples(capture)
  deltas = [
      _Moved(before, after)
      for (_, before), (_, after) in zip(samples, samples[1:])
  ]
  current = [list(tokens) for tokens in samples[0][1]]
  lines = [device]
  time = start_s
  step = 0
  while True:
    lines += [f'{time:.9f} ' + ''.join(tokens) for tokens in current]
    if time > end_s:
      break
    for tokens, moved in zip(current, deltas[step % len(deltas)]):
      tokens[:] = [
          str(int(t) + m) if t.isdigit() else t for t, m in zip(tokens, moved)
      ]
    time += interval_s
    step += 1
  return '\n'.join(lines) + '\n'


def _Counters(page):
  """The families the page's own `# TYPE <name> counter` lines name."""
  return frozenset(
      words[2]
      for words in (line.split() for line in page.splitlines())
      if words[:2] == ['#', 'TYPE'] and words[3:] == ['counter']
  )


def ScrapeFile(page, start_s, end_s, interval_s):
  """Scrapes of the page every interval_s from start_s to past end_s."""
  counters = _Counters(page)
  page = '\n'.join(
      line for line in page.splitlines() if not line.startswith('#')
  )
  blocks = []
  time = start_s
  while True:
    elapsed = time - start_s

    def Moved(name, labels, value, elapsed=elapsed):
      if name == _BUSY_MS:
        shard = int(labels.get('shard', 0))
        return value + 1000 * elapsed * BUSY_SHARES[shard % len(BUSY_SHARES)]
      if name in counters and value:
        return value + value * elapsed / _PAGE_UPTIME_S
      return None

    blocks.append(
        f'# scylla_phases scrape {time:.9f}\n' + Transformed(page, Moved)
    )
    if time > end_s:
      break
    time += interval_s
  return ''.join(blocks)


def _LoaderSpan(loaders, step):
  """(first start, last end) of the step's loaders' HDR intervals."""
  starts, ends = [], []
  for run in step.runs:
    text = loaders[run.loader_index].remote_files.get(
        run.paths[loader_files.HDR]
    )
    if text is None:
      continue
    for interval in histograms.IterHdrIntervals(text):
      starts.append(interval.start_s)
      ends.append(interval.end_s)
  return (min(starts), max(ends)) if starts else None


def Serve(servers, loaders, steps, read):
  """Makes fake servers write their sampling files when told to stop.

  Args:
    servers: the fake servers (FakeVm); each answers the stop of its
      sampler of every stress step of `steps`.
    loaders: the fake loaders, whose HDR logs give each step's span.
    steps: the planned steps.
    read: (folder, name) -> a testdata file's text.

  Returns:
    servers.
  """
  capture = read(*HOST_CAPTURE)
  page = read(*METRICS_PAGE)
  stress = {s.name: s for s in steps if s.kind == plan.KIND_STRESS}

  def Answer(vm):
    def Stop(command):
      stem = shlex.split(_STEM.match(command).group('stop'))[0]
      stem = stem[: -len('.stop')]
      name = stem.rsplit('/', 1)[1].rsplit('.server', 1)[0]
      span = _LoaderSpan(loaders, stress[name])
      if span is not None:
        start = span[0] - server_sampling.SAMPLE_INTERVAL_S / 2
        vm.remote_files[f'{stem}.{server_sampling.HOST}'] = HostFile(
            capture, start, span[1], server_sampling.SAMPLE_INTERVAL_S
        )
        vm.remote_files[f'{stem}.{server_sampling.PROM}'] = ScrapeFile(
            page, start, span[1], server_sampling.SCRAPE_INTERVAL_S
        )
      return ''

    return Stop

  for vm in servers:
    vm.Reply(r'^touch \S+\.server\d+\.stop ', Answer(vm))
  return servers
