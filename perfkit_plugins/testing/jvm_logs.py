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

"""Real loader JVM stop logs moved in time, for runs captured apart from them.

The stress captures of tests/testdata/stress predate the loaders' JVM logs
(tests/testdata/jvm): a test that serves both moves the JVM log to the run,
as if that JVM had started when the run's times file says the run started.
Only the loader's clock of each line (`[<uptime>s][<epoch ms>ms]`) changes.
"""

import re

# `[12.345s][1795831150123ms]...`: the JVM's uptime, then the loader's clock.
_CLOCKS_RE = re.compile(r'^\[([\d.]+)s\]\[(\d+)ms\]')


def Moved(text, start_s):
  """The log with its clock moved so that the JVM starts at start_s.

  Raises:
    ValueError: the log's first line carries no clock and uptime.
  """
  lines = text.splitlines(keepends=True)
  first = _CLOCKS_RE.match(lines[0]) if lines else None
  if not first:
    raise ValueError('not a JVM log with time and uptime decorations')
  began_ms = int(first.group(2)) - round(float(first.group(1)) * 1000)
  shift_ms = round(start_s * 1000) - began_ms
  return ''.join(
      _CLOCKS_RE.sub(
          lambda m: f'[{m.group(1)}s][{int(m.group(2)) + shift_ms}ms]', line
      )
      for line in lines
  )
