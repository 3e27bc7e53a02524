"""Shared pytest fixtures: real tool outputs and the PKB checkout."""

import os
import pathlib

import pytest

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
