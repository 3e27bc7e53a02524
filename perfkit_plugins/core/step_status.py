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

"""How a step ended, and the error that keeps a step's figures unpublished.

The statuses are published with every step's samples, so a reader can
tell a step that measured the database from one that failed, timed out or
measured saturated loaders; PhaseOutputError carries the status of a step
whose outputs give no figures, with every problem found.
"""

STATUS_OK = 'ok'
STATUS_FAILED = 'failed'
STATUS_TIMEOUT = 'timeout'
STATUS_SATURATED = 'loader_saturated'


class PhaseOutputError(Exception):
  """A step whose outputs cannot give results; nothing of it is published.

  Attributes:
    step_name: the step.
    status: STATUS_FAILED, or STATUS_SATURATED when saturated loaders fail
      the step.
    problems: one message per problem, each naming the loader and file.
  """

  def __init__(self, step_name, problems, status=STATUS_FAILED):
    self.step_name = step_name
    self.status = status
    self.problems = tuple(problems)
    super().__init__(f'{step_name}: ' + '; '.join(self.problems))
