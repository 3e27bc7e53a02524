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

"""Shared pytest fixtures: real tool outputs and the PKB checkout.

Flags count as parsed, as in PKB's own tests: a test reads the defaults (or
what flagsaver sets) through the flags' holders. A test that needs none of
PKB, a real node, fresh virtualenvs or the test bed is marked `fast`
(`pytest -m fast`: the edit-and-test loop).
"""

import pathlib
import signal

from absl import flags
import pytest

from perfkit_plugins.core.plan import plan
from perfkit_plugins.core.results import histograms
from perfkit_plugins.testing import loader_outputs

TESTDATA = pathlib.Path(__file__).parent / 'testdata'

# A non-interactive shell's background job (`bash .ci/run &`) starts with
# SIGINT ignored, and every process started from it inherits that: pkb.py
# would then install no KeyboardInterrupt handler. The interrupt tests send
# pkb.py SIGINT as a Ctrl-C would, so its default action is restored here.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
  signal.signal(signal.SIGINT, signal.default_int_handler)

flags.FLAGS.mark_as_parsed()

# Markers of the tests that need more than this checkout (pytest.ini).
_SLOW_MARKERS = ('pkb', 'live', 'slow', 'testbed')


def pytest_collection_modifyitems(items):
  """Marks `fast` every test that needs none of _SLOW_MARKERS."""
  for item in items:
    if not any(item.get_closest_marker(m) for m in _SLOW_MARKERS):
      item.add_marker(pytest.mark.fast)


@pytest.fixture
def lab():
  """Returns a function that reads a real tool output from testdata/lab."""

  def Read(name):
    return (TESTDATA / 'lab' / name).read_text()

  return Read


@pytest.fixture
def testdata():
  """Returns a function that reads testdata/<folder>/<name> as text."""

  def Read(folder, name):
    return (TESTDATA / folder / name).read_text()

  return Read


@pytest.fixture
def shifted_hdr():
  """Returns a function that rewrites a real HDR log, moved in time.

  Shift(text, shift_s, kinds=(), op=None) -> the log with absolute
  timestamps moved by shift_s, its op type renamed to `op` if given (a read
  run's log from a write run's), and each `OP-st` histogram followed by
  copies tagged `OP-<kind>` for each of `kinds` (e.g. ('rt',) as a
  fixed-rate run writes). Intervals are read with the plugin's HDR reader
  and the hdrh library; histogram payloads are copied unchanged. Several
  loaders of one test each get a real log this way.
  """

  def Shift(text, shift_s, kinds=(), op=None):
    lines = ['#[Shifted copy of a cassandra-stress HDR log]']
    for interval in histograms.IterHdrIntervals(text):
      own_op, _, own_kind = interval.tag.rpartition('-')
      new_op = op or own_op
      max_ms = interval.Histogram().get_max_value() / 1e6
      for kind in (own_kind,) + tuple(kinds):
        lines.append(
            f'Tag={new_op}-{kind},{interval.start_s + shift_s:.3f},'
            f'{interval.end_s - interval.start_s:.3f},{max_ms:.3f},'
            f'{interval.payload}'
        )
    return '\n'.join(lines) + '\n'

  return Shift


# Warm-up steps serve the capture of the read they warm up.
_WARMUP_SOURCES = {
    'read_warmup': 'read_small',
    'read_cache_warmup': 'read_cache',
}


def StressSource(step, run):
  """The real capture in testdata/stress that a loader serves for `run`.

  Returns the capture's file stem: the step's own name (every repeat of
  it the same) for loader 0 of most steps; for a fixed-rate step the
  capture at the loader's own rate (latency_500, latency_1000); for reads
  during writes the writer's (loader0) or the reader's (loader1) files of
  the two-loader capture.
  """
  if step.phase == 'latency':
    return f'latency_{run.rate}.loader0'
  name = step.published_name
  if step.phase == 'reads_during_writes':
    return f'{name}.loader{0 if run.role == plan.ROLE_WRITER else 1}'
  return f'{_WARMUP_SOURCES.get(name, name)}.loader0'


@pytest.fixture
def stress_output():
  """Returns Read(source, kind): a real loader file of testdata/stress.

  loader_outputs.Capture: `source` is a capture's file stem
  ('populate.loader0', see StressSource), `kind` a loader_files file kind.
  """
  return loader_outputs.Capture


@pytest.fixture
def serve_stress_outputs(stress_output):
  """Returns Serve(vms, steps, missing=()): loaders that write real outputs.

  Each FakeVm of `vms` (loader i is vms[i]) answers the loader wrapper of
  every run planned for it in `steps` by writing the real files of the
  capture StressSource chooses into its remote_files; a command it was not
  planned to run fails the test. The schema step's loader holds the real
  output of a schema step. `missing` holds (step name, loader index,
  file kind) that the loader does not write.
  """

  def Serve(vms, steps, missing=()):
    return loader_outputs.Serve(
        vms,
        steps,
        lambda step, run, kind: stress_output(StressSource(step, run), kind),
        missing,
        (TESTDATA / 'stress' / 'schema.loader0.out').read_text(),
    )

  return Serve
