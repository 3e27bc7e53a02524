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

"""Fixtures of the stress step tests: real runs as loader output."""

import pytest

from perfkit_plugins.core.results import loader_files
from perfkit_plugins.testing import stress_steps


@pytest.fixture
def write_output(lab, testdata, shifted_hdr):
  """LoaderOutput of the write run, its HDR log moved by shift_s."""

  def Make(shift_s=0.0, kinds=(), cpu='loader-idle.cpu'):
    text = lab(stress_steps.WRITE_TEXT)
    return loader_files.LoaderOutput(
        stdout=text,
        log=text,
        hdr=shifted_hdr(lab(stress_steps.WRITE_HDR), shift_s, kinds),
        cpu=testdata('loader', cpu),
    )

  return Make


@pytest.fixture
def capture(stress_output, testdata):
  """LoaderOutput of a real capture of testdata/stress ('mixed.loader0').

  Its CPU samples are those of testdata/loader's `cpu` file.
  """

  def Make(source, cpu='loader-idle.cpu'):
    return loader_files.LoaderOutput(
        stdout=stress_output(source, 'stdout'),
        log=stress_output(source, 'log'),
        hdr=stress_output(source, 'hdr'),
        cpu=testdata('loader', cpu),
    )

  return Make
