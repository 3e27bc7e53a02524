"""Shared pytest fixtures: real tool outputs and the PKB checkout."""

import os
import pathlib

import pytest

from perfkit_plugins.core import histograms

TESTDATA = pathlib.Path(__file__).parent / 'testdata'


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
