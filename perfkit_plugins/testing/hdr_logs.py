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

"""Writes HDR interval logs the way cassandra-stress writes them.

With the hdrhistogram package's own log writer, so tests and the merge
benchmark can build logs of known values: BaseTime and StartTime comments,
timestamps relative to BaseTime and every interval line tagged with its op
type (`Tag=WRITE-st,...`), as cassandra-stress's Java writer does.
"""

from hdrh import log as hdrh_log


class _Tagging:
  """A file wrapper that tags the writer's interval lines like Java's."""

  def __init__(self, f, tag):
    self._f = f
    self._tag = tag

  def write(self, text):
    if text[:1].isdigit():
      text = 'Tag=%s,%s' % (self._tag, text)
    self._f.write(text)


class StressLogWriter:
  """A cassandra-stress HDR log on an open text file."""

  def __init__(self, f, base_s):
    """Writes the log's header.

    Args:
      f: the open file.
      base_s: BaseTime and StartTime, seconds since the epoch. The package's
        writer cannot write the StartTime comment itself, so it goes in as
        a comment.
    """
    self._f = f
    self._writer = hdrh_log.HistogramLogWriter(f)
    self._writer.output_comment('Logging op latencies for Cassandra Stress')
    self._writer.output_log_format_version()
    self._writer.output_base_time(base_s * 1000)
    self._writer.base_time = base_s * 1000
    self._writer.output_comment(
        '[StartTime: %.3f (seconds since epoch)]' % base_s
    )
    self._writer.output_legend()

  def WriteInterval(self, tag, histogram, start_s, end_s):
    """Writes one interval of op type `tag` (e.g. WRITE-st)."""
    histogram.set_start_time_stamp(start_s * 1000)
    histogram.set_end_time_stamp(end_s * 1000)
    self._writer.log = _Tagging(self._f, tag)
    self._writer.output_interval_histogram(histogram)
