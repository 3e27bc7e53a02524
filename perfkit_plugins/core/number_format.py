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

"""Counts, byte sizes and durations as short text for people to read.

The plan report, the results tables and the plots print the same kinds of
figures; one way of writing them keeps a plan and the results of its run
comparable at a glance.
"""


def FormatCount(number):
  """1234567.8 -> '1,234,568'."""
  return f'{round(number):,}'


def FormatBytes(count):
  """Binary units, three significant digits: 1536 -> '1.50 KiB'."""
  value = float(count)
  for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'):
    if value < 1024 or unit == 'PiB':
      break
    value /= 1024
  if unit == 'B':
    return f'{count:,} B'
  return f'{value:.3g} {unit}' if value < 100 else f'{value:.0f} {unit}'


def FormatDuration(seconds):
  """3725 -> '1h 02m 05s'; 65 -> '1m 05s'; 5 -> '5s'."""
  total = round(seconds)
  hours, rest = divmod(total, 3600)
  minutes, secs = divmod(rest, 60)
  if hours:
    return f'{hours}h {minutes:02d}m {secs:02d}s'
  if minutes:
    return f'{minutes}m {secs:02d}s'
  return f'{secs}s'
