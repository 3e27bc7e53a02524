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

"""Counts, byte sizes and durations as people read them."""

import pytest

from perfkit_plugins.core import number_format


@pytest.mark.parametrize(
    'seconds, text',
    [
        (0, '0s'),
        (59.6, '1m 00s'),
        (65, '1m 05s'),
        (3725, '1h 02m 05s'),
        (90000, '25h 00m 00s'),
    ],
)
def test_format_duration(seconds, text):
  assert number_format.FormatDuration(seconds) == text


@pytest.mark.parametrize(
    'count, text',
    [
        (170, '170 B'),
        (1536, '1.5 KiB'),
        (3 * 15 * 2**30, '45 GiB'),
        (810774192 * 170, '128 GiB'),
        (250 * 2**40, '250 TiB'),
    ],
)
def test_format_bytes(count, text):
  assert number_format.FormatBytes(count) == text
