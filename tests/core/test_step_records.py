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

"""What a step's records say of its loaders' commands."""

from perfkit_plugins.testing import stress_steps


def test_span_uses_loader_times_else_controller_times():
  settings = stress_steps.Settings()
  step = stress_steps.StepOf(settings, 'populate')
  record = stress_steps.Record(
      step,
      changes={
          0: {'start_s': 101.5, 'end_s': 250.0},
          1: {'start_s': None, 'end_s': None, 'returned_at': 260.0},
      },
  )
  assert record.Span() == (100.0, 260.0)
