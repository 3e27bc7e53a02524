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

"""A run's own interval of a figure, as the statistics tests give one."""

import math

from perfkit_plugins.core.stats import intervals


def WithinRun(value, standard_error, dof=20):
  """A batch-means within-run interval: value x exp(+-2 standard_error).

  Args:
    value: the figure.
    standard_error: standard error of its log.
    dof: degrees of freedom of that standard error.

  Returns:
    intervals.Interval covering WITHIN_RUN.
  """
  return intervals.Interval(
      estimate=value,
      low=value * math.exp(-2 * standard_error),
      high=value * math.exp(2 * standard_error),
      level=0.95,
      method='batch_means',
      covers=intervals.WITHIN_RUN,
      units=dof + 1,
      standard_error=standard_error,
      dof=dof,
  )
