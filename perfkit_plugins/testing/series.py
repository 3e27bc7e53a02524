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

"""Autocorrelated series for the simulations that calibrate intervals."""

import math

from scipy import signal


def Ar1(rng, shape, phi):
  """Stationary AR(1) series of unit variance along the last axis."""
  shocks = rng.standard_normal(shape)
  shocks[..., 0] /= math.sqrt(1 - phi**2)
  return signal.lfilter([1], [1, -phi], shocks, axis=-1) * math.sqrt(1 - phi**2)
