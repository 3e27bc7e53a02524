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

"""Clock offsets between the controller and a VM, by the midpoint method.

The controller reads its clock, runs `date +%s.%N` on the VM and reads its
clock again. If the command ran in the middle of that round trip, the VM's
clock minus the controller's is `remote - (sent + received) / 2`, and the
error is at most half the round trip. Of several samples the one with the
shortest round trip is the most precise (the NTP rule).
"""

import dataclasses
import re

# GNU date: seconds since the epoch, '.', nanoseconds.
DATE_COMMAND = 'date +%s.%N'

_EPOCH_RE = re.compile(r'^\s*(\d+\.\d{9})\s*$')


@dataclasses.dataclass(frozen=True)
class ClockSample:
  """One round trip, in epoch seconds.

  Attributes:
    sent: controller clock before the command.
    remote: the VM's clock, as the command printed it.
    received: controller clock after the command.
  """

  sent: float
  remote: float
  received: float


@dataclasses.dataclass(frozen=True)
class ClockOffset:
  """A VM's clock minus the controller's.

  Attributes:
    offset_s: the VM's clock minus the controller's, seconds; a VM time T
      is controller time T - offset_s.
    uncertainty_s: half the round trip of the sample used: the offset is
      right to within this.
  """

  offset_s: float
  uncertainty_s: float


def ParseEpochSeconds(text):
  """Parses the output of DATE_COMMAND into epoch seconds.

  Raises:
    ValueError: not 'seconds.nanoseconds' (e.g. a `date` without %N).
  """
  match = _EPOCH_RE.match(text)
  if not match:
    raise ValueError(f'not the output of {DATE_COMMAND!r}: {text!r}')
  return float(match.group(1))


def EstimateOffset(samples):
  """The offset from the sample with the shortest round trip.

  Args:
    samples: non-empty list of ClockSample.

  Returns:
    ClockOffset.

  Raises:
    ValueError: no samples.
  """
  if not samples:
    raise ValueError('no clock samples')
  best = min(samples, key=lambda s: s.received - s.sent)
  return ClockOffset(
      offset_s=best.remote - (best.sent + best.received) / 2,
      uncertainty_s=(best.received - best.sent) / 2,
  )
