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

"""Tests of core/results/scylla_metrics.py on real ScyllaDB metric pages.

The pages are ScyllaDB 5.2 and 3.x pages saved from DataDog's integration
fixtures (tests/testdata/scylla-metrics/README.md). No second scrape of the
same node exists, so a later scrape is built from the real page by
server_outputs.Transformed: each sample line keeps its name and labels,
byte for byte, and only its value changes, by a known amount; rates follow
from those amounts.
"""

import pathlib
import re
import shutil
import subprocess

import pytest

from perfkit_plugins.core.results import scylla_metrics
from perfkit_plugins.testing import server_outputs

PAGES = pathlib.Path(__file__).parents[2] / 'testdata' / 'scylla-metrics'
PAGE_5X = 'scylla-5.x-datadog-fixture.prom'
PAGE_3X = 'scylla-3.3-datadog-fixture.prom'


@pytest.fixture
def page(testdata):
  def Read(name):
    return testdata('scylla-metrics', name)

  return Read


def _Adding(deltas):
  """A change adding deltas[name](labels) to the counters named in deltas."""

  def Change(name, labels, value):
    if name not in deltas:
      return None
    return value + deltas[name](labels)

  return Change


def _Setting(values):
  """A change setting the gauges named in values to values[name](labels)."""

  def Change(name, labels, value):
    del value  # Replaced.
    return values[name](labels) if name in values else None

  return Change


def _Filtered(text):
  """The lines the sampler keeps: those matching FilterPattern()."""
  pattern = re.compile(scylla_metrics.FilterPattern())
  return [line for line in text.splitlines() if pattern.match(line)]


def _ScrapeFile(blocks):
  """A scrape file of (time, page) blocks; page None is a failed scrape."""
  lines = []
  for time, text in blocks:
    if text is None:
      lines.append(f'# scylla_phases scrape {time} failed')
    else:
      lines.append(f'# scylla_phases scrape {time}')
      lines.extend(_Filtered(text))
  return '\n'.join(lines) + '\n'


def _Shard(labels):
  return int(labels['shard'])


def _Samples(text, name):
  """(line, value) of the page's sample lines of name, values read by hand."""
  return [
      (line, float(line.rsplit(' ', 1)[1]))
      for line in text.splitlines()
      if line.startswith(name + '{')
  ]


# Parsing the real pages.


@pytest.mark.parametrize('name', [PAGE_5X, PAGE_3X])
def test_parsed_values_are_those_of_the_page_lines(page, name):
  text = page(name)
  parsed = scylla_metrics.ParseExposition(text)
  for family in scylla_metrics.FAMILIES:
    lines = _Samples(text, family)
    assert [v for _, v in parsed.get(family, [])] == [v for _, v in lines]


def test_5x_page_has_four_shards_and_its_values(page):
  parsed = scylla_metrics.ParseExposition(page(PAGE_5X))
  busy = {l['shard']: v for l, v in parsed['scylla_reactor_cpu_busy_ms']}
  assert busy == {'0': 6852, '1': 3923, '2': 2947, '3': 3593}
  assert [l['shard'] for l, _ in parsed['scylla_reactor_utilization']] == [
      '0',
      '1',
      '2',
      '3',
  ]
  delay = parsed['scylla_io_queue_total_delay_sec']
  assert len(delay) == 17  # 4 classes per shard, streaming on shard 0 only.
  assert delay[0] == (
      {
          'class': 'commitlog',
          'ioshard': '0',
          'mountpoint': 'none',
          'shard': '0',
      },
      0.080431,
  )
  errors = parsed['scylla_transport_cql_errors_total']
  assert len(errors) == 80  # 20 error types on each of 4 shards.


def test_3x_page_keeps_type_labels_and_histogram_names(page):
  parsed = scylla_metrics.ParseExposition(page(PAGE_3X))
  assert parsed['scylla_reactor_cpu_busy_ms'][0] == (
      {'shard': '0', 'type': 'derive'},
      77380,
  )
  assert 'scylla_compaction_manager_backlog' not in parsed
  contention = 'scylla_storage_proxy_coordinator_cas_write_contention'
  assert contention not in parsed
  assert len(parsed[contention + '_sum']) == 2
  assert len(parsed[contention + '_count']) == 2
  buckets = parsed[contention + '_bucket']
  assert buckets[8] == ({'le': '+Inf', 'shard': '0', 'type': 'histogram'}, 0)


# The filter the sampler runs on the node.


@pytest.mark.skipif(not shutil.which('grep'), reason='needs grep')
@pytest.mark.parametrize('name', [PAGE_5X, PAGE_3X])
def test_grep_keeps_exactly_the_sample_lines_of_families(page, name):
  text = page(name)
  result = subprocess.run(
      ['grep', '-E', scylla_metrics.FilterPattern(), str(PAGES / name)],
      capture_output=True,
      text=True,
      check=True,
  )
  expected = [
      line
      for line in text.splitlines()
      if not line.startswith('#')
      and re.split('[{ ]', line)[0] in scylla_metrics.FAMILIES
  ]
  assert result.stdout.splitlines() == expected
  # Real neighbours whose names start like a family's are dropped.
  assert 'scylla_transport_requests_serving{shard="0"' in text
  assert 'scylla_transport_requests_serving' not in result.stdout


@pytest.mark.skipif(not shutil.which('grep'), reason='needs grep')
def test_grep_drops_longer_names_of_real_lines(page):
  text = page(PAGE_5X)
  longer = '\n'.join(
      re.sub(r'^(\w+)', r'\1_total', line)
      for line in text.splitlines()
      if not line.startswith('#')
  )
  result = subprocess.run(
      ['grep', '-E', scylla_metrics.FilterPattern()],
      input=longer,
      capture_output=True,
      text=True,
      check=False,
  )
  assert result.returncode == 1  # No line matched.
  assert not result.stdout


# Rates over a window.


def _Later5x(text):
  """The 5.x page 30 s later, with known increases and gauge values."""
  later = server_outputs.Transformed(
      text,
      _Adding({
          'scylla_reactor_cpu_busy_ms': lambda l: 3000.0 * (_Shard(l) + 1),
          'scylla_transport_requests_served': lambda l: 300.0,
          'scylla_cache_row_hits': lambda l: 90.0,
          'scylla_cache_row_misses': lambda l: 30.0,
          'scylla_cache_partition_hits': lambda l: 10.0,
          'scylla_io_queue_total_read_bytes': (
              lambda l: 30720.0 if l['class'] == 'default' else 0.0
          ),
          'scylla_io_queue_total_write_bytes': lambda l: 3072.0,
          'scylla_io_queue_total_delay_sec': lambda l: 0.5,
          'scylla_io_queue_total_operations': lambda l: 100.0,
          'scylla_transport_cql_errors_total': (
              lambda l: 3.0 if l['type'] == 'read_timeout' else 0.0
          ),
      }),
  )
  return server_outputs.Transformed(
      later,
      _Setting({
          'scylla_compaction_manager_backlog': lambda l: 1000.0,
          'scylla_compaction_manager_compactions': lambda l: 1.0,
          'scylla_storage_proxy_coordinator_foreground_writes': (
              lambda l: 5.0 if l['scheduling_group_name'] == 'main' else 0.0
          ),
          'scylla_database_queued_reads': (
              lambda l: 2.0 if l['class'] == 'user' else 7.0
          ),
      }),
  )


def test_rates_of_known_increases_of_the_5x_page(page, tmp_path):
  text = page(PAGE_5X)
  path = tmp_path / 'server0.scylla-metrics'
  path.write_text(_ScrapeFile([(1000.5, text), (1030.5, _Later5x(text))]))
  scrapes = scylla_metrics.ParseScrapes(path.read_text())
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 1000.0, 1031.0)
  assert (evidence.start_s, evidence.end_s) == (1000.5, 1030.5)
  assert evidence.shards == 4
  # 3, 6, 9 and 12 busy seconds of 30: 10, 20, 30 and 40 percent.
  assert evidence.reactor_mean_pct == pytest.approx(25.0)
  assert evidence.reactor_max_pct == pytest.approx(40.0)
  assert evidence.reactor_min_pct == pytest.approx(10.0)
  assert evidence.cql_requests_per_s == pytest.approx(4 * 300 / 30)
  assert evidence.cache_row_hit_pct == pytest.approx(75.0)
  assert evidence.cache_partition_hit_pct == pytest.approx(100.0)
  assert evidence.disk_read_bytes_per_s == pytest.approx(4 * 30720 / 30)
  assert evidence.disk_write_bytes_per_s == pytest.approx(17 * 3072 / 30)
  # 17 series each waited 0.5 s more for 100 more requests: 5 ms each.
  assert evidence.io_queue_delay_ms == pytest.approx(5.0)
  assert evidence.timeouts_per_s == pytest.approx(4 * 3 / 30)
  # Gauges: the mean of the two scrapes' sums over shards.
  assert evidence.compaction_backlog == pytest.approx((0 + 4000) / 2)
  assert evidence.compactions_running_max == 4
  assert evidence.pending_compactions_mean == 0
  assert evidence.foreground_writes_mean == pytest.approx((0 + 20) / 2)
  assert evidence.queued_reads_mean == pytest.approx((0 + 8) / 2)
  assert evidence.background_writes_mean == 0
  assert evidence.problems == ()


def test_counter_going_down_gives_none_and_says_so(page):
  text = page(PAGE_5X)
  earlier = server_outputs.Transformed(
      text,
      _Adding({
          'scylla_transport_requests_served': lambda l: 100.0,
          'scylla_reactor_cpu_busy_ms': lambda l: 100.0,
      }),
  )
  scrapes = scylla_metrics.ParseScrapes(_ScrapeFile([(0, earlier), (30, text)]))
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 0, 30)
  assert evidence.cql_requests_per_s is None
  assert any(
      p.startswith('scylla_transport_requests_served: counter went down')
      for p in evidence.problems
  )
  # Busy ms went down too: the utilization gauge of both scrapes is used.
  gauge = [v for _, v in _Samples(text, 'scylla_reactor_utilization')]
  assert evidence.reactor_mean_pct == pytest.approx(sum(gauge) / 4)
  assert evidence.reactor_max_pct == pytest.approx(0.182733)
  assert any(
      p.startswith('scylla_reactor_cpu_busy_ms: counter went down')
      for p in evidence.problems
  )


def test_families_missing_from_the_3x_page(page):
  text = page(PAGE_3X)
  later = server_outputs.Transformed(
      text,
      _Adding({
          'scylla_reactor_aio_bytes_read': lambda l: 4096.0,
          'scylla_storage_proxy_coordinator_read_timeouts': lambda l: 6.0,
          'scylla_reactor_cpu_busy_ms': lambda l: 15000.0,
      }),
  )
  scrapes = scylla_metrics.ParseScrapes(_ScrapeFile([(0, text), (30, later)]))
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 0, 30)
  assert evidence.compaction_backlog is None
  assert evidence.pending_compactions_mean is None
  assert evidence.io_queue_delay_ms is None
  assert set(evidence.problems) == {
      'scylla_compaction_manager_backlog: not on the page',
      'scylla_compaction_manager_pending_compactions: not on the page',
      'scylla_io_queue_total_delay_sec: not on the page',
      'no row reads in the interval',
      'no partition reads in the interval',
  }
  # 3.x splits no I/O queue bytes: the reactor's AIO bytes stand in.
  assert evidence.disk_read_bytes_per_s == pytest.approx(4 * 4096 / 30)
  assert evidence.timeouts_per_s == pytest.approx(4 * 6 / 30)
  assert evidence.reactor_mean_pct == pytest.approx(50.0)
  assert evidence.compactions_running_max == 0


def test_failed_scrape_is_skipped(page):
  text = page(PAGE_5X)
  later = _Later5x(text)
  scrapes = scylla_metrics.ParseScrapes(
      _ScrapeFile([(0, text), (15, None), (30, later)])
  )
  assert [s.failed for s in scrapes] == [False, True, False]
  assert not scrapes[1].samples
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 0, 30)
  assert (evidence.start_s, evidence.end_s) == (0, 30)
  assert evidence.reactor_mean_pct == pytest.approx(25.0)
  assert evidence.problems == ()


def test_cut_last_block_is_dropped(page):
  text = page(PAGE_5X)
  whole = _ScrapeFile([(0, text), (30, text)])
  last = _Filtered(text)[-1]
  for cut in (
      whole + '# scylla_phases scrape 60\n' + last[: len(last) // 2],
      whole + '# scylla_phases scr',
      whole + '# scylla_phases scrape 60',
  ):
    scrapes = scylla_metrics.ParseScrapes(cut)
    assert [s.time for s in scrapes] == [0, 30]
  assert len(scylla_metrics.ParseScrapes(whole)) == 2


def test_window_with_one_scrape_inside_uses_a_wider_interval(page):
  text = page(PAGE_5X)

  def Busy(seconds):
    return server_outputs.Transformed(
        text, _Adding({'scylla_reactor_cpu_busy_ms': lambda l: seconds * 1e3})
    )

  scrapes = scylla_metrics.ParseScrapes(
      _ScrapeFile([(100, text), (130, Busy(15)), (160, Busy(30))])
  )
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 110, 150)
  assert (evidence.start_s, evidence.end_s) == (100, 160)
  assert evidence.reactor_mean_pct == pytest.approx(50.0)
  assert any('wider interval 100.0..160.0' in p for p in evidence.problems)


def test_no_scrape_after_the_window_gives_nothing(page):
  text = page(PAGE_5X)
  scrapes = scylla_metrics.ParseScrapes(_ScrapeFile([(100, text)]))
  evidence = scylla_metrics.EvidenceOfWindow(scrapes, 90, 150)
  assert evidence.reactor_mean_pct is None
  assert evidence.start_s is None
  assert evidence.problems == (
      'fewer than two good scrapes around the window 90..150',
  )


# The exposition format on real lines.


def test_escaped_label_values_of_a_real_line(page):
  line = next(
      line
      for line in page(PAGE_5X).splitlines()
      if 'type="read_timeout"' in line
  )
  escaped = line.replace('read_timeout', r'read\"time\\out\n')
  [(labels, value)] = scylla_metrics.ParseExposition(escaped)[
      'scylla_transport_cql_errors_total'
  ]
  assert labels == {'shard': '0', 'type': 'read"time\\out\n'}
  assert value == 0


@pytest.mark.parametrize(
    'value, expected',
    [('NaN', None), ('+Inf', float('inf')), ('-Inf', float('-inf'))],
)
def test_special_values_and_timestamp_of_a_real_line(page, value, expected):
  line = page(PAGE_5X).splitlines()[2]  # scylla_cache_partition_hits shard 0
  head = line.rsplit(' ', 1)[0]
  for text in (f'{head} {value}', f'{head} {value} 1795299882123'):
    [(_, parsed)] = scylla_metrics.ParseExposition(text)[
        'scylla_cache_partition_hits'
    ]
    if expected is None:
      assert parsed != parsed  # NaN.
    else:
      assert parsed == expected


@pytest.mark.parametrize(
    'corrupt',
    [
        lambda line: line.replace('}', ''),
        lambda line: line.replace('="', '='),
        lambda line: line.replace(' 0', ' 1_000'),
        lambda line: line.replace(' 0', ' 0 12 34'),
        lambda line: line.replace('shard', 'shard="1",shard'),
        lambda line: line.replace('"2"', r'"\t"'),
    ],
)
def test_bad_line_names_its_number_and_text(page, corrupt):
  lines = page(PAGE_5X).splitlines()
  lines[10] = corrupt(lines[10])  # scylla_cache_partition_misses shard 2
  with pytest.raises(scylla_metrics.MetricsFormatError) as raised:
    scylla_metrics.ParseExposition('\n'.join(lines))
  assert raised.value.lineno == 11
  assert raised.value.line == lines[10]
  assert str(raised.value).startswith('line 11: ')


def test_bad_line_in_a_scrape_file_is_numbered_in_the_file(page):
  text = page(PAGE_5X)
  file_lines = _ScrapeFile([(0, text), (30, text)]).splitlines()
  bad = len(file_lines) - 3
  file_lines[bad] = file_lines[bad].replace('{', '(')
  with pytest.raises(scylla_metrics.MetricsFormatError) as raised:
    scylla_metrics.ParseScrapes('\n'.join(file_lines) + '\n')
  assert raised.value.lineno == bad + 1


def test_lines_after_a_failed_scrape_are_an_error(page):
  line = _Filtered(page(PAGE_5X))[0]
  with pytest.raises(scylla_metrics.MetricsFormatError) as raised:
    scylla_metrics.ParseScrapes(
        f'# scylla_phases scrape 0 failed\n{line}\n# scylla_phases scrape 30\n'
    )
  assert raised.value.lineno == 2
