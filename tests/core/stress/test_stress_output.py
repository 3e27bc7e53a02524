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

"""Tests of the cassandra-stress text output parsers, on real outputs."""

import pytest

from perfkit_plugins.core.stress import stress_output

WRITE = 'cs-write-n200k-seq-t50.txt'
WRITE_HDR = 'cs-write-n200k-seq-t50-hdr.txt'
READ = 'cs-read-30s-gaussian-t50.txt'
FIXED = 'cs-write-30s-rate-fixed-2000.txt'
LIMIT = 'cs-write-30s-rate-limit-2000.txt'
THROTTLE_AND_FIXED = 'cs-write-10s-rate-throttle-and-fixed.txt'
EPOCH = 1_795_299_000.0


@pytest.mark.parametrize(
    'name, lines, ops',
    [
        (WRITE, 13, 200_000),
        (WRITE_HDR, 10, 200_000),
        (READ, 31, 385_330),
        (FIXED, 31, 60_051),
    ],
)
def test_complete_runs_parse(lab, name, lines, ops):
  output = stress_output.ParseStressOutput(lab(name))
  assert len(output.intervals) == lines
  assert {line.op_type for line in output.intervals} == {'total'}
  assert output.intervals[-1].total_ops == ops
  assert output.results.total.partitions == ops


def test_interval_line_fields(lab):
  lines = stress_output.ParseIntervalLines(lab(WRITE_HDR))
  first = lines[0]
  assert first == stress_output.IntervalLine(
      op_type='total',
      total_ops=1002,
      op_rate=1002,
      partition_rate=1002,
      row_rate=1002,
      latency=stress_output.Latencies(4.8, 1.9, 22.5, 85.7, 122.4, 122.8),
      elapsed_s=1.0,
      stderr=0.0,
      errors=0,
      gc_count=0,
      gc_max_ms=0,
      gc_sum_ms=0,
      gc_sdv_ms=0,
      gc_mb=0,
  )
  with_gc = lines[7]
  assert (with_gc.gc_count, with_gc.gc_max_ms, with_gc.gc_sum_ms) == (
      2,
      81,
      118,
  )
  assert (with_gc.gc_sdv_ms, with_gc.gc_mb) == (22, 292)
  assert with_gc.stderr == 0.16691
  assert lines[-1].elapsed_s == 9.4
  assert lines[-1].op_rate == 24592


def test_results_block(lab):
  results = stress_output.ParseResults(lab(WRITE))
  total = results.total
  assert (total.op_rate, total.partition_rate, total.row_rate) == (
      15799,
      15799,
      15799,
  )
  assert total.latency == stress_output.Latencies(
      2.9, 2.1, 6.4, 12.3, 72.7, 1175.5
  )
  assert (total.partitions, total.errors) == (200_000, 0)
  # The bracket prints "1,175.5 ms": thousands separators there only.
  assert results.by_op_type == {'WRITE': total}
  assert results.gc_count == 4
  assert results.gc_memory_bytes == pytest.approx(1.459 * 2**30)
  assert (results.gc_time_s, results.gc_mean_ms, results.gc_stddev_ms) == (
      0.2,
      54.5,
      18.9,
  )
  assert results.operation_time_s == 12


def test_results_of_fixed_rate_and_read_runs(lab):
  fixed = stress_output.ParseResults(lab(FIXED))
  assert fixed.total.op_rate == 1977
  assert fixed.gc_memory_bytes == pytest.approx(490.012 * 2**20)
  assert fixed.operation_time_s == 30
  read = stress_output.ParseResults(lab(READ))
  assert read.by_op_type['READ'].op_rate == 12_594
  assert read.total.partitions == 385_330


@pytest.mark.parametrize(
    'name, message',
    [
        (LIMIT, 'Invalid parameter limit=2000/s'),
        (
            THROTTLE_AND_FIXED,
            "can't have both fixed and throttle set, choose one.",
        ),
    ],
)
def test_rejected_command_carries_the_tool_message(lab, name, message):
  with pytest.raises(stress_output.StressOutputError) as error:
    stress_output.ParseStressOutput(lab(name))
  assert error.value.tool_message == message
  assert 'rejected' in str(error.value)
  assert message in str(error.value)


@pytest.mark.parametrize('text', ['', '\n \n'])
def test_empty_output_fails(text):
  with pytest.raises(stress_output.StressOutputError, match='Empty'):
    stress_output.ParseStressOutput(text)


def test_output_cut_before_results_fails(lab):
  text = lab(WRITE)
  cut = text[: text.index('Results:')]
  with pytest.raises(stress_output.StressOutputError, match='No Results'):
    stress_output.ParseStressOutput(cut)
  assert len(stress_output.ParseIntervalLines(cut)) == 13


def test_output_cut_inside_results_fails(lab):
  text = lab(READ)
  cut = text[: text.index('Total GC memory')]
  with pytest.raises(stress_output.StressOutputError, match='missing .*GC mem'):
    stress_output.ParseStressOutput(cut)


def test_output_cut_inside_an_interval_line_fails(lab):
  text = lab(READ)
  cut = text[: text.index('total,        228610,   14523') + 40]
  with pytest.raises(stress_output.StressOutputError, match='cut'):
    stress_output.ParseStressOutput(cut)


def test_output_cut_before_intervals_fails(lab):
  text = lab(READ)
  cut = text[: text.index('Running READ')]
  with pytest.raises(
      stress_output.StressOutputError, match='No interval lines.*RequestHandler'
  ):
    stress_output.ParseStressOutput(cut)


def test_interval_lines_skip_driver_log_lines(lab):
  # In the read run a driver WARN line sits between warm-up and the header;
  # in the write run one sits before the header too: neither is an interval.
  text = lab(READ)
  assert 'WARN  [cluster1-nio-worker-1]' in text
  assert len(stress_output.ParseIntervalLines(text)) == 31


def test_version(lab):
  version = stress_output.ParseVersion(lab('cs-version.txt'))
  assert version.version == '3.12.0-SNAPSHOT'
  assert version.components == {'scylla-java-driver': '3.11.5.7'}


def test_version_missing_fails(lab):
  with pytest.raises(stress_output.StressOutputError, match='Version'):
    stress_output.ParseVersion(lab('cs-help.txt'))


def _Timeline(lab, name, start_s):
  return stress_output.LoaderTimeline(
      start_s=start_s, intervals=stress_output.ParseIntervalLines(lab(name))
  )


def test_common_window_rate_of_two_loaders(lab):
  # a: 13 intervals, 12.7 s; b: 10 intervals, 9.4 s, started 3 s later.
  # Window [3.0, 12.4]: a's ops from time 3.0 to 12.0 (185,947 - 20,354),
  # plus 0.4 of its last 0.7 s interval (14,053 ops); all 200,000 of b.
  rate = stress_output.CommonWindowRate({
      'a': _Timeline(lab, WRITE, EPOCH),
      'b': _Timeline(lab, WRITE_HDR, EPOCH + 3.0),
  })
  ops = (185_947 - 20_354) + 14_053 * 0.4 / 0.7 + 200_000
  assert (rate.start_s, rate.end_s) == pytest.approx((EPOCH + 3, EPOCH + 12.4))
  assert rate.duration_s == pytest.approx(9.4)
  assert rate.ops == pytest.approx(ops)
  assert rate.op_rate == pytest.approx(ops / 9.4)


def test_common_window_rate_of_one_loader_is_its_average(lab):
  rate = stress_output.CommonWindowRate({'a': _Timeline(lab, READ, EPOCH)})
  assert rate.ops == 385_330
  assert rate.op_rate == pytest.approx(385_330 / 30.6)


def test_common_window_rate_fails_without_overlap(lab):
  with pytest.raises(
      stress_output.StressOutputError,
      match=r'late starts at .* after early .*\(--scylla_durations\)',
  ):
    stress_output.CommonWindowRate({
        'early': _Timeline(lab, WRITE_HDR, EPOCH),
        'late': _Timeline(lab, WRITE, EPOCH + 20),
    })


def test_common_window_rate_fails_without_such_op_type(lab):
  with pytest.raises(stress_output.StressOutputError, match="a: no 'READ'"):
    stress_output.CommonWindowRate(
        {'a': _Timeline(lab, WRITE, EPOCH)}, op_type='READ'
    )


def test_common_window():
  assert stress_output.CommonWindow({'a': (0.0, 10.0), 'b': (2.0, 12.0)}) == (
      2.0,
      10.0,
  )
  with pytest.raises(stress_output.StressOutputError, match='No loaders'):
    stress_output.CommonWindow({})
