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

"""Tests of reading and merging HDR interval logs.

Real data: the cassandra-stress log of a 200,000-write run and the text
output of the same run. Generated data: values recorded per loader into
histograms and written as logs with the hdrhistogram package's own writer,
so the merge can be checked against exact percentiles of the raw values.
"""

import math

from hdrh import histogram as hdrh_histogram
from hdrh import log as hdrh_log
import numpy as np
import pytest

from perfkit_plugins.core.results import histograms
from perfkit_plugins.core.stress import stress_output
from perfkit_plugins.testing import hdr_logs

HDR = 'cs-write-n200k-seq-t50-hdr.w.hdr'
TEXT = 'cs-write-n200k-seq-t50-hdr.txt'
BASE_S = 1_795_299_882
# Three significant figures: a bucket is at most 1/1024 of its values wide.
PRECISION = 2.0**-10


def _Record(values, significant_figures=3):
  h = hdrh_histogram.HdrHistogram(1, 60 * 10**9, significant_figures)
  distinct, counts = np.unique(values, return_counts=True)
  for value, count in zip(distinct.tolist(), counts.tolist()):
    h.record_value(value, count)
  return h


def _WriteLog(path, intervals, base_s, significant_figures=3):
  """Writes [(tag, start_s, end_s, values)] like cassandra-stress's log.

  Timestamps are relative to BaseTime as in cassandra-stress.
  """
  with open(path, 'w') as f:
    writer = hdr_logs.StressLogWriter(f, base_s)
    for tag, start_s, end_s, values in intervals:
      writer.WriteInterval(
          tag, _Record(values, significant_figures), start_s, end_s
      )
  return path.read_text()


def _Latencies(rng, n, median_ms):
  return rng.lognormal(np.log(median_ms * 1e6), 0.7, n).astype(np.int64)


@pytest.fixture
def loaders(tmp_path):
  """4 loaders x 12 one-second intervals, WRITE-st and READ-st.

  Loaders start at different fractions of a second and have different
  latency levels, so averaging their percentiles would be wrong.

  Returns:
    (logs: name -> text, raw: [(name, tag, start_s, end_s, values)]).
  """
  rng = np.random.default_rng(7)
  logs, raw = {}, []
  for i, offset in enumerate((0.0, 0.2, 0.4, 0.7)):
    name = 'loader-%d' % i
    intervals = []
    for k in range(12):
      start = BASE_S + offset + k
      for tag, median_ms in (('READ-st', 2.0 + i), ('WRITE-st', 1.0 + 3 * i)):
        values = _Latencies(rng, int(rng.integers(500, 1500)), median_ms)
        intervals.append((tag, start, start + 1.0, values))
        raw.append((name, tag, start, start + 1.0, values))
    logs[name] = _WriteLog(tmp_path / (name + '.hdr'), intervals, BASE_S)
  return logs, raw


def _AssertClose(merged_ms, values_ns, percentile):
  exact = np.percentile(values_ns, percentile, method='inverted_cdf') / 1e6
  # HdrHistogram reports the highest value of the bucket holding the exact
  # value: never below it, above it by at most the bucket width.
  assert exact <= merged_ms <= exact * (1 + PRECISION) + 1e-6


def _AssertMatchesUnion(summary, values):
  assert summary.count == len(values)
  _AssertClose(summary.p50_ms, values, 50)
  _AssertClose(summary.p95_ms, values, 95)
  _AssertClose(summary.p99_ms, values, 99)
  _AssertClose(summary.p999_ms, values, 99.9)
  _AssertClose(summary.max_ms, values, 100)
  # Bucket middles stand for values: errors cancel out, unlike bucket edges
  # (biased by about half a bucket, over 3e-4 here).
  assert summary.mean_ms == pytest.approx(values.mean() / 1e6, rel=1e-4)


def test_real_log_has_absolute_timestamps(lab):
  intervals = list(histograms.IterHdrIntervals(lab(HDR)))
  assert {i.tag for i in intervals} == {'WRITE-st'}
  assert len(intervals) == 10
  assert intervals[0].start_s == BASE_S
  assert intervals[1].start_s == pytest.approx(BASE_S + 0.999)
  assert intervals[-1].end_s == pytest.approx(BASE_S + 9.385)
  assert intervals[0].Histogram().get_total_count() == 1002


def test_real_log_merge_matches_tool_summary(lab):
  results = stress_output.ParseResults(lab(TEXT))
  summary = histograms.MergeHdrLogs({'loader': lab(HDR)}).summaries['WRITE-st']
  assert summary.count == 200_000 == results.total.partitions
  latency = results.total.latency
  assert round(summary.mean_ms, 1) == latency.mean_ms
  assert round(summary.p50_ms, 1) == latency.median_ms
  assert round(summary.p95_ms, 1) == latency.p95_ms
  assert round(summary.p99_ms, 1) == latency.p99_ms
  assert round(summary.p999_ms, 1) == latency.p999_ms
  assert round(summary.max_ms, 1) == latency.max_ms


def test_real_log_series_matches_interval_lines(lab):
  lines = stress_output.ParseIntervalLines(lab(TEXT))
  merge = histograms.MergeHdrLogs({'loader': lab(HDR)}, step_s=1.0)
  series = merge.series['WRITE-st']
  ops = np.diff([0] + [line.total_ops for line in lines])
  assert [p.count for p in series] == ops.tolist()
  assert [round(p.p99_ms, 1) for p in series] == [
      line.latency.p99_ms for line in lines
  ]
  assert [round(p.max_ms, 1) for p in series] == [
      line.latency.max_ms for line in lines
  ]
  assert series[0].start_s == BASE_S
  assert merge.spans == {'loader': pytest.approx((BASE_S, BASE_S + 9.385))}


def test_total_of_a_single_op_type_run_is_that_type(lab):
  merge = histograms.MergeHdrLogs({'a': lab(HDR)}, step_s=1.0)
  assert merge.summaries['total-st'] == merge.summaries['WRITE-st']
  assert merge.series['total-st'] == merge.series['WRITE-st']


def test_text_time_zero_is_the_first_hdr_interval_start(lab):
  # Interval lines carry no wall clock: their time 0 is the start of the HDR
  # log's first interval (both aligned to the second by the tool), which is
  # the LoaderTimeline start to give CommonWindowRate.
  lines = stress_output.ParseIntervalLines(lab(TEXT))
  start, end = histograms.MergeHdrLogs({'a': lab(HDR)}).spans['a']
  assert lines[-1].elapsed_s == pytest.approx(end - start, abs=0.05)
  rate = stress_output.CommonWindowRate(
      {'a': stress_output.LoaderTimeline(start_s=start, intervals=lines)}
  )
  assert rate.start_s == start


def test_real_logs_of_two_loaders_add_up(lab):
  single = histograms.MergeHdrLogs({'a': lab(HDR)}).summaries['WRITE-st']
  double = histograms.MergeHdrLogs(
      {'a': lab(HDR), 'b': lab(HDR)}, clock_offsets_s={'b': 0.25}
  )
  summary = double.summaries['WRITE-st']
  assert summary.count == 400_000
  assert summary.p99_ms == single.p99_ms
  assert summary.max_ms == single.max_ms
  assert double.spans['b'][0] == BASE_S + 0.25


def test_merge_equals_percentiles_of_all_values(loaders):
  logs, raw = loaders
  merge = histograms.MergeHdrLogs(logs)
  assert sorted(merge.summaries) == ['READ-st', 'WRITE-st', 'total-st']
  for tag in ('READ-st', 'WRITE-st'):
    values = np.concatenate([v for _, t, _, _, v in raw if t == tag])
    _AssertMatchesUnion(merge.summaries[tag], values)
  everything = np.concatenate([v for _, _, _, _, v in raw])
  _AssertMatchesUnion(merge.summaries['total-st'], everything)


def test_merge_is_not_an_average_of_loader_percentiles(loaders):
  logs, _ = loaders
  merged = histograms.MergeHdrLogs(logs).summaries['WRITE-st'].p99_ms
  per_loader = [
      histograms.MergeHdrLogs({n: t}).summaries['WRITE-st'].p99_ms
      for n, t in logs.items()
  ]
  assert abs(merged - np.mean(per_loader)) > 0.1 * merged


def test_merge_in_window_takes_intervals_by_midpoint(loaders):
  logs, raw = loaders
  window = (BASE_S + 3.0, BASE_S + 8.0)
  merge = histograms.MergeHdrLogs(logs, window=window)
  assert merge.window == window
  values = np.concatenate([
      v
      for _, tag, start, end, v in raw
      if tag == 'WRITE-st' and window[0] <= (start + end) / 2 < window[1]
  ])
  _AssertMatchesUnion(merge.summaries['WRITE-st'], values)


def test_series_steps_merge_loaders_on_a_common_grid(loaders):
  logs, raw = loaders
  merge = histograms.MergeHdrLogs(logs, step_s=1.0)
  assert [p.count for p in merge.series['total-st']] == [
      r.count + w.count
      for r, w in zip(merge.series['READ-st'], merge.series['WRITE-st'])
  ]
  series = merge.series['WRITE-st']
  # Midpoints at k + 0.5 + offset: the loader offset by 0.7 s lands one step
  # later, so there are 13 steps, the first and last with fewer loaders.
  assert len(series) == 13
  assert [p.intervals for p in series] == [3] + [4] * 11 + [1]
  for step, point in enumerate(series):
    values = np.concatenate([
        v
        for _, tag, start, end, v in raw
        if tag == 'WRITE-st' and math.floor((start + end) / 2 - BASE_S) == step
    ])
    assert point.start_s == BASE_S + step
    assert point.end_s == BASE_S + step + 1
    assert point.count == len(values)
    assert point.op_rate == len(values)
    _AssertClose(point.p99_ms, values, 99)
    _AssertClose(point.p50_ms, values, 50)
    _AssertClose(point.max_ms, values, 100)


def test_series_keeps_steps_without_operations(tmp_path):
  rng = np.random.default_rng(3)
  log = _WriteLog(
      tmp_path / 'gap.hdr',
      [
          ('WRITE-st', BASE_S, BASE_S + 10, _Latencies(rng, 100, 1.0)),
          ('WRITE-st', BASE_S + 30, BASE_S + 40, _Latencies(rng, 100, 1.0)),
      ],
      BASE_S,
  )
  series = histograms.MergeHdrLogs({'a': log}, step_s=10).series['WRITE-st']
  assert [p.count for p in series] == [100, 0, 0, 100]
  assert series[1].p99_ms is None
  assert series[1].op_rate == 0


def test_lines_streamed_from_a_file_merge_like_text(lab, tmp_path):
  path = tmp_path / 'w.hdr'
  path.write_text(lab(HDR))
  with open(path) as f:
    streamed = histograms.MergeHdrLogs({'a': f})
  assert (
      streamed.summaries == histograms.MergeHdrLogs({'a': lab(HDR)}).summaries
  )


def test_absolute_timestamps_without_base_time(tmp_path):
  rng = np.random.default_rng(5)
  path = tmp_path / 'abs.hdr'
  with open(path, 'w') as f:
    writer = hdrh_log.HistogramLogWriter(f)
    writer.output_legend()
    h = _Record(_Latencies(rng, 50, 1.0))
    writer.output_interval_histogram(h, BASE_S + 5.0, BASE_S + 6.0)
  (interval,) = histograms.IterHdrIntervals(path.read_text())
  assert interval.tag == ''
  assert (interval.start_s, interval.end_s) == (BASE_S + 5, BASE_S + 6)


def test_relative_timestamps_after_start_time_only(lab):
  text = lab(HDR).replace(
      '#[BaseTime: 1795299882.000 (seconds since epoch)]\n', ''
  )
  assert 'BaseTime' not in text
  first = next(histograms.IterHdrIntervals(text))
  assert first.start_s == BASE_S


@pytest.mark.parametrize(
    'text, message',
    [
        ('', 'no interval histograms'),
        ('\n'.join(['#[BaseTime: 1.000 (seconds since epoch)]'] * 3), 'no int'),
    ],
)
def test_empty_log_names_the_loader(lab, text, message):
  with pytest.raises(histograms.HdrLogError, match='loader-7: .*' + message):
    histograms.MergeHdrLogs({'ok': lab(HDR), 'loader-7': text})


def test_header_only_log_is_empty(lab):
  header = ''.join(lab(HDR).splitlines(keepends=True)[:5])
  with pytest.raises(histograms.HdrLogError, match='no interval histograms'):
    histograms.MergeHdrLogs({'a': header})


@pytest.mark.parametrize('cut', [1, 100, 1000])
def test_log_cut_in_its_last_line_fails(lab, cut):
  text = lab(HDR).rstrip('\n')[:-cut]
  with pytest.raises(histograms.HdrLogError, match='loader-3: line 15: .*cut'):
    histograms.MergeHdrLogs({'loader-0': lab(HDR), 'loader-3': text})


def test_log_cut_before_the_histogram_fails(lab):
  text = lab(HDR)
  text = text[: text.rindex('Tag=') + len('Tag=WRITE-st,8.99')]
  with pytest.raises(histograms.HdrLogError, match='line 15: not an interval'):
    list(histograms.IterHdrIntervals(text))


def test_corrupt_histogram_fails_on_merge(lab):
  lines = lab(HDR).splitlines()
  tag, start, length, maximum, payload = lines[7].split(',')
  lines[7] = ','.join(
      (tag, start, length, maximum, payload[:40] + 'A' * 20 + payload[60:])
  )
  with pytest.raises(histograms.HdrLogError, match='b: undecodable WRITE-st'):
    histograms.MergeHdrLogs({'b': '\n'.join(lines)})


def test_intervals_out_of_order_fail(lab):
  lines = lab(HDR).splitlines()
  lines[6], lines[7] = lines[7], lines[6]
  with pytest.raises(histograms.HdrLogError, match='c: intervals go back'):
    histograms.MergeHdrLogs({'c': '\n'.join(lines)})


def test_loader_without_intervals_in_window_fails(lab):
  with pytest.raises(histograms.HdrLogError, match='late: no interval'):
    histograms.MergeHdrLogs(
        {'early': lab(HDR), 'late': lab(HDR)},
        window=(BASE_S, BASE_S + 5),
        clock_offsets_s={'late': 100.0},
    )


def test_no_logs_fail():
  with pytest.raises(histograms.HdrLogError, match='No HDR logs'):
    histograms.MergeHdrLogs({})


def test_different_precisions_fail(tmp_path):
  rng = np.random.default_rng(9)
  interval = ('WRITE-st', BASE_S, BASE_S + 1, _Latencies(rng, 10, 1.0))
  logs = {
      'three': _WriteLog(tmp_path / '3.hdr', [interval], BASE_S),
      'two': _WriteLog(tmp_path / '2.hdr', [interval], BASE_S, 2),
  }
  with pytest.raises(histograms.HdrLogError, match='another precision'):
    histograms.MergeHdrLogs(logs)
