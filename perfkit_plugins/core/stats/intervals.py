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

"""Confidence intervals of one figure, and what each interval covers.

A figure varies at three levels, and an interval only speaks for the levels
its data span:

* within a run (`WITHIN_RUN`): the run's own time series. Op rates come in
  per-interval samples that are autocorrelated (compactions cluster in
  time), so the mean's interval uses batch means; a latency percentile comes
  from per-interval histograms, and its interval is Woodruff's, with the
  standard error of the share of operations below it from batch means over
  the intervals (tail events cluster in time too). A series too short for
  the published intervals to cover at least 86% of the time at a nominal
  95% (measured by simulation, up to a lag-1 autocorrelation of 0.8) gets
  an unbounded interval that says so; a percentile's interval with a bound
  beyond the histogram says that it is not published.
* between repeats on one cluster (`WITHIN_CLUSTER`): a t interval over the
  runs; it says nothing about another cluster of the same shape.
* between clusters (`ACROSS_CLUSTERS`): a t interval over cluster means;
  this is the interval a claim about the configuration needs.

Intervals of positive figures are computed on the log scale: op rates and
percentiles vary multiplicatively (a 3% slower disk is 3% whatever the
rate), and ratios of two arms are then differences of means.
"""

import collections
import dataclasses
import math
from typing import Optional, Sequence

import numpy as np
from scipy import stats

WITHIN_RUN = 'within_run'
WITHIN_CLUSTER = 'within_cluster'
ACROSS_CLUSTERS = 'across_clusters'

MIN_SERIES_POINTS = 60
"""Fewest time intervals a within-run interval is computed from.

With fewer, a nominal 95% interval of an autocorrelated series covers the
truth less than 90% of the time, so the interval is returned unbounded and
says why. In the simulation of tests/core/stats/test_interval_coverage.py
(AR(1) series, 2,000 per cell; docs/measurement.md has the table), the
batch-means interval of a mean covered it, at lag-1 autocorrelation 0.8,
67% of the time from 10 intervals, 82% from 30, 93% from 60 and 95% from
300 (0.6: 85%, 92%, 94%, 97%). The rule is on the length alone: the
autocorrelation estimated from a short series is too low more often than
not, so a rule on the estimate keeps the very series whose interval is too
narrow (of the 60-interval series at 0.8, those with an estimated effective
sample size of 10 or more were covered 86% of the time). Percentiles need
more intervals (TAIL_INTERVALS_PER_DECADE).
"""

TAIL_INTERVALS_PER_DECADE = 60
"""Time intervals a percentile's interval needs per decade of its tail.

The q-th percentile needs this many per decade of 1 - q, and at least
MIN_SERIES_POINTS (MinPercentileIntervals): 120 for a p99, 180 for a
p99.9. Its interval rests on the operations beyond it, and the further in
the tail, the fewer intervals hold most of those (a burst of slow ones). In
the same simulation (per-interval histograms whose latency level drifts as
AR(1) with lag-1 autocorrelation 0.8), of the p99's intervals with finite
bounds (the others are not published) 78% covered it from 60 intervals,
88% from 120 and 93% from 300; of the p99.9's 76% from 60, 84% from 120,
86% from 180 and 90% from 300 (tests/perf/measure_interval_coverage.py).
"""

MIN_TAIL_OPERATIONS = 400
"""Fewest operations beyond a percentile for it to be published as a figure.

The share of operations above a reported percentile is a binomial count: with
k of them it is known to within 1.96 / sqrt(k) relative at 95%, and k = 385
makes that 10%, so the reported p99.9 is then the true p99.89 to p99.91. 400
rounds that up: a p99.9 needs 400,000 operations, a p99 40,000.
"""

MIN_BATCHES = 5
"""Fewest batches a batch-means interval rests on.

Batch sizes that would leave fewer are never tried. Fewer, longer batches
have means that are less correlated, at the price of a wider t quantile
(2.78 for 4 degrees of freedom, 2.26 for 9): in simulation (AR(1) series
with lag-1 autocorrelation 0.8, 2,000 per length), at least 10 batches
covered the mean 85% of the time at 60 points and 92% at 120, at least 5
batches 93% and 94%; the intervals of independent values are 10% wider at
60 points and 2% at 300.
"""

# Batch means count as independent once the lag-1 autocorrelation of batch
# means stays below this at two consecutive batch sizes; one size alone is
# too often below it by chance when there are few batches.
_BATCH_CORRELATION = 0.05
# Each candidate batch size is this factor larger than the previous one.
_BATCH_GROWTH = 1.5


@dataclasses.dataclass(frozen=True)
class Interval:
  """A figure, its confidence interval and what the interval covers.

  Attributes:
    estimate: the figure (op/s, ms, or a ratio).
    low: lower bound; -inf when the data cannot bound it.
    high: upper bound; inf when the data cannot bound it.
    level: confidence level, e.g. 0.95.
    method: how it was computed: 'batch_means', 'woodruff', 't_repeats',
      't_clusters', or 'unbounded' when it could not be.
    covers: the variation it accounts for: WITHIN_RUN, WITHIN_CLUSTER or
      ACROSS_CLUSTERS.
    units: the number of independent units it rests on: the effective sample
      size of a series, the repeats or the clusters.
    standard_error: standard error of log(estimate), the relative standard
      error; inf when unknown. Comparisons of two figures combine these.
    dof: degrees of freedom of standard_error, for t quantiles (0 when
      unknown).
    warning: why the interval should not be trusted as it stands ('' when
      nothing is known against it).
  """

  estimate: float
  low: float
  high: float
  level: float
  method: str
  covers: str
  units: float
  standard_error: float
  dof: float
  warning: str = ''


@dataclasses.dataclass(frozen=True)
class Measurement:
  """One figure of one step from one run.

  Attributes:
    value: the published figure (op/s or ms).
    cluster: identity of the cluster the run used (e.g. the PKB run URI of
      the run that provisioned it).
    repeat: which run on that cluster, 1..R.
    within: the run's own within-run interval (MeanOfSeries or
      PercentileOfIntervals), None when the run kept no series.
    start: when the run started (epoch seconds), None when unknown: A/B
      comparisons read the arms' order in time from it.
    window: the start and end of the window the figure was measured over
      (epoch seconds), None when unknown: A/B comparisons count runs whose
      windows overlap as simultaneous.
  """

  value: float
  cluster: str
  repeat: int
  within: Optional[Interval] = None
  start: Optional[float] = None
  window: Optional[tuple[float, float]] = None


def _CheckLevel(level: float) -> None:
  if not 0 < level < 1:
    raise ValueError(f'confidence level {level} is not in (0, 1)')


def _Unbounded(
    estimate: float, level: float, covers: str, units: float, warning: str
) -> Interval:
  """An interval that says the data cannot bound the figure, and why."""
  return Interval(
      estimate=estimate,
      low=-math.inf,
      high=math.inf,
      level=level,
      method='unbounded',
      covers=covers,
      units=units,
      standard_error=math.inf,
      dof=0.0,
      warning=warning,
  )


def _LogStandardError(standard_error: float, estimate: float) -> float:
  """Relative standard error (delta method on log); inf if not positive."""
  return standard_error / estimate if estimate > 0 else math.inf


def _BatchMeans(series: np.ndarray, batch: int) -> np.ndarray:
  """Means of consecutive batches; the first n % batch points are left out."""
  count = len(series) // batch
  return series[len(series) - count * batch :].reshape(count, batch).mean(1)


def _Lag1(values: np.ndarray) -> float:
  """Lag-1 autocorrelation; 0 for a constant series."""
  centred = values - values.mean()
  denominator = float(centred @ centred)
  if denominator == 0:
    return 0.0
  return float(centred[1:] @ centred[:-1]) / denominator


def _BatchSize(series: np.ndarray) -> tuple[int, float, bool]:
  """Chooses a batch size whose batch means are close to independent.

  Batch sizes grow by _BATCH_GROWTH while at least MIN_BATCHES batches
  remain; the first size whose batch means, and those of the size before
  it, have a lag-1 autocorrelation below _BATCH_CORRELATION is chosen.

  Args:
    series: at least MIN_BATCHES values.

  Returns:
    (batch size, lag-1 autocorrelation of its batch means, whether the
    criterion was met); when it never was, the largest size tried.
  """
  below_before = False
  batch = 1
  while True:
    correlation = _Lag1(_BatchMeans(series, batch))
    below = correlation < _BATCH_CORRELATION
    if below and below_before:
      return batch, correlation, True
    below_before = below
    larger = max(batch + 1, math.ceil(batch * _BATCH_GROWTH))
    if len(series) // larger < MIN_BATCHES:
      return batch, correlation, False
    batch = larger


def _FlatTop(series: np.ndarray) -> float:
  """Flat-top kernel sum of |k| R(k) over a series' autocovariances R(k).

  As Politis and White (2004) estimate them: autocovariances up to twice
  the lag after which the autocorrelation stays insignificant (below 2
  sqrt(log10(n) / n) for max(5, sqrt(log10 n)) lags in a row), weighted 1
  up to half that bandwidth and then linearly down to 0.

  Args:
    series: at least MIN_SERIES_POINTS values.

  Returns:
    G = sum over k != 0 of |k| R(k), which sets the bias of batch means; 0
    for a constant series.
  """
  count = len(series)
  centred = series - series.mean()
  lags_checked = max(5, math.ceil(math.sqrt(math.log10(count))))
  max_lag = min(math.ceil(math.sqrt(count)) + lags_checked, count - 1)
  autocovariance = (
      np.array([centred[k:] @ centred[: count - k] for k in range(max_lag + 1)])
      / count
  )
  if autocovariance[0] == 0:
    return 0.0
  small = np.abs(autocovariance[1:] / autocovariance[0]) < 2 * math.sqrt(
      math.log10(count) / count
  )
  last_significant = max_lag
  for lag in range(max_lag - lags_checked + 1):
    if small[lag : lag + lags_checked].all():
      last_significant = lag
      break
  bandwidth = min(2 * max(last_significant, 1), max_lag)
  lags = np.arange(1, bandwidth + 1)
  kernel = np.clip(2 * (1 - lags / bandwidth), 0, 1)
  return 2 * float(np.sum(kernel * lags * autocovariance[lags]))


def _TooShort(count: int, minimum: int, what: str) -> str:
  """The warning of an interval left unbounded for want of intervals."""
  return (
      f'{count} intervals: a within-run interval of {what} needs at least'
      f' {minimum} (with fewer, its coverage measured by simulation falls'
      ' under 90%)'
  )


def _Unpublished(q: float, half: float) -> str:
  """The warning of a percentile interval with a bound beyond the data.

  Such an interval is not published (no scylla_ci_low/high), and a run
  that loses its interval must say so.
  """
  beyond = 'last' if q + half >= 1 else 'first'
  return (
      f'the interval of the share of operations, {q:g} +- {half:.2g},'
      f' reaches past the {beyond} operation: the histogram cannot bound'
      ' this percentile (its tail comes in bursts too few for the run), so'
      ' no interval is published'
  )


def _MeanError(series: np.ndarray) -> tuple[float, int, float, str]:
  """Standard error of the mean of an autocorrelated series: batch means.

  Non-overlapping batch means, as latte and simulation output analysis use
  them: the series is cut into batches long enough for their means to be
  close to independent (see _BatchSize), the long-run variance is batch
  size b x variance of batch means, plus G / b for the correlation that
  still crosses batch borders (G from _FlatTop), and the variance of the
  mean is that over n.

  Args:
    series: at least MIN_SERIES_POINTS values.

  Returns:
    (standard error, degrees of freedom: batches - 1, effective sample
    size: n x variance of values / long-run variance, at most n, warning:
    '' or why the standard error is likely too small).
  """
  count = len(series)
  batch, correlation, independent = _BatchSize(series)
  means = _BatchMeans(series, batch)
  batch_variance = float(means.var(ddof=1))
  # Batch means of b points understate the long-run variance by about G / b
  # (what correlation reaches across batch borders): added back.
  long_run = batch * batch_variance + max(_FlatTop(series), 0.0) / batch
  # Effective sample size: n / (long-run variance / variance of a point).
  if long_run > 0:
    units = min(count, count * float(series.var(ddof=1)) / long_run)
  else:
    units = count
  warning = ''
  if not independent:
    warning = (
        f'batch means of {batch} points remain autocorrelated (lag 1: '
        f'{correlation:.2f}); the interval is likely too narrow'
    )
  return math.sqrt(long_run / count), len(means) - 1, units, warning


def MeanOfSeries(values: Sequence[float], level: float = 0.95) -> Interval:
  """The mean of an autocorrelated series (e.g. op rate per second).

  The mean +- a t quantile with (batches - 1) degrees of freedom x its
  batch-means standard error (_MeanError). Simulated AR(1) series of 600
  points with lag-1 autocorrelation 0.8 get 95% coverage (94% without the
  G / b term of _MeanError).

  Args:
    values: the per-interval figures in time order, equal intervals.
    level: confidence level.

  Returns:
    An Interval covering WITHIN_RUN, method 'batch_means', whose units is
    the effective sample size. With fewer than MIN_SERIES_POINTS values the
    interval is unbounded (method 'unbounded', bounds -inf and inf) and its
    warning says why; when no batch size makes batch means independent,
    the warning says the interval is likely too narrow.

  Raises:
    ValueError: no values, values not finite or not 1-D, or a level not
      in (0, 1).
  """
  _CheckLevel(level)
  series = np.asarray(values, dtype=float)
  if series.ndim != 1 or not series.size:
    raise ValueError('values must be a non-empty 1-D series')
  if not np.isfinite(series).all():
    raise ValueError('values must be finite')
  count = len(series)
  estimate = float(series.mean())
  if count < MIN_SERIES_POINTS:
    return _Unbounded(
        estimate,
        level,
        WITHIN_RUN,
        count,
        _TooShort(count, MIN_SERIES_POINTS, 'a mean'),
    )
  standard_error, dof, units, warning = _MeanError(series)
  half = float(stats.t.ppf((1 + level) / 2, dof)) * standard_error
  return Interval(
      estimate=estimate,
      low=estimate - half,
      high=estimate + half,
      level=level,
      method='batch_means',
      covers=WITHIN_RUN,
      units=units,
      standard_error=_LogStandardError(standard_error, estimate),
      dof=dof,
      warning=warning,
  )


def TooFewOperations(operations: float, q: float) -> bool:
  """Whether a percentile rests on too few operations beyond it.

  Args:
    operations: the operations the percentile is computed from.
    q: the percentile as a fraction, e.g. 0.999.

  Returns:
    True when fewer than MIN_TAIL_OPERATIONS operations lie beyond it.
  """
  return operations * (1 - q) < MIN_TAIL_OPERATIONS


def _Ranks(q: float, totals):
  """HdrHistogram's rank of the q-th percentile among `totals` values.

  ceil(q * total), at least 1, computed one ulp below q as the Java library
  does, so that a product landing on an integer is not pushed up by
  rounding (0.999 * 1000 is 999, not 1000).
  """
  return np.maximum(np.ceil(np.nextafter(q, 0.0) * totals), 1.0)


def MinPercentileIntervals(q: float) -> int:
  """Fewest time intervals the within-run interval of a percentile needs.

  MIN_SERIES_POINTS, or TAIL_INTERVALS_PER_DECADE per decade of the tail
  beyond the percentile when that is more: 60 for a p50, 79 for a p95, 120
  for a p99, 180 for a p99.9.

  Args:
    q: the percentile as a fraction in (0, 1), e.g. 0.999.

  Returns:
    The number of intervals.
  """
  # Rounded first: 1 - 0.9999 is not 1e-4 in binary, and ceil would add one.
  decades = round(-math.log10(1 - q), 9)
  return max(MIN_SERIES_POINTS, math.ceil(TAIL_INTERVALS_PER_DECADE * decades))


def PercentileOfIntervals(
    counts, bucket_values, q: float, level: float = 0.95
) -> Interval:
  """A latency percentile of a run, with its within-run interval.

  The percentile is HdrHistogram's: the value of the first bucket whose
  cumulative count reaches ceil(q x total) of the histogram summed over
  all intervals. Its interval is Woodruff's (1952): the estimate's share
  of operations F (those at or below it over all) is a ratio of two sums
  over time intervals, known to +- t x SE(F), and the bounds are the
  percentiles q - t x SE(F) and q + t x SE(F) of the same histogram.
  SE(F) comes from the series of each interval's operations at or below
  the estimate minus q x all its operations: slow operations come in
  bursts (a compaction, a flush, a GC pause), so it is the batch-means
  standard error of that series' mean (_MeanError), over the mean number
  of operations per interval; t has the batches' degrees of freedom.
  Counting operations as independent would treat a burst as independent
  events and give far too narrow an interval. The work is three passes
  over `counts` (about 0.05 s for 3,600 intervals and 3,000 buckets).

  Args:
    counts: intervals x buckets array of bucket counts of the loaders'
      merged histogram, one row per time interval in time order.
    bucket_values: each bucket's reported value (ms), increasing.
    q: the percentile as a fraction in (0, 1), e.g. 0.999.
    level: confidence level.

  Returns:
    An Interval covering WITHIN_RUN, method 'woodruff', whose bounds are
    bucket values (a bound beyond the histogram's first or last operation
    is -inf or inf), whose units is the effective sample size of the
    series, whose standard_error is half the width of the interval on the
    log scale over t (inf when a bound is infinite or not positive) and
    whose dof is the batches' - 1. With fewer than MinPercentileIntervals(q)
    intervals it is unbounded; the warning says so, and also when
    TooFewOperations or when a bound is infinite (such an interval is not
    published).

  Raises:
    ValueError: shapes that do not match, negative or non-finite counts,
      no operations, or q or level out of range.
  """
  _CheckLevel(level)
  if not 0 < q < 1:
    raise ValueError(f'percentile {q} is not a fraction in (0, 1)')
  matrix = np.asarray(counts)
  values = np.asarray(bucket_values, dtype=float)
  if (
      matrix.dtype.kind not in 'iuf'
      or matrix.ndim != 2
      or values.ndim != 1
      or matrix.shape[1] != len(values)
      or not matrix.size
  ):
    raise ValueError(
        f'counts {matrix.shape} must be numbers, intervals x buckets, with'
        f' buckets = {values.shape}'
    )
  cumulative = np.cumsum(matrix.sum(axis=0, dtype=float))
  if not np.isfinite(cumulative).all() or matrix.min() < 0:
    raise ValueError('counts must be finite and not negative')
  operations = float(cumulative[-1])
  if not operations:
    raise ValueError('the histograms hold no operations')

  def Bucket(share):
    """Index of the first bucket whose cumulative count reaches the rank."""
    return int(np.searchsorted(cumulative, _Ranks(share, operations)))

  index = Bucket(q)
  estimate = float(values[index])
  warnings = []
  if TooFewOperations(operations, q):
    warnings.append(
        f'{operations:.0f} operations leave {operations * (1 - q):.0f}'
        f' beyond the percentile; at least {MIN_TAIL_OPERATIONS} are'
        ' needed'
    )
  count = matrix.shape[0]
  minimum = MinPercentileIntervals(q)
  if count < minimum:
    warnings.append(_TooShort(count, minimum, 'this percentile'))
    return _Unbounded(estimate, level, WITHIN_RUN, count, '; '.join(warnings))
  per_interval = matrix.sum(axis=1, dtype=float)
  below = matrix[:, : index + 1].sum(axis=1, dtype=float) - q * per_interval
  standard_error, dof, units, warning = _MeanError(below)
  warnings.append(warning)
  quantile = float(stats.t.ppf((1 + level) / 2, dof))
  half = quantile * standard_error / float(per_interval.mean())
  low = float(values[Bucket(q - half)]) if q - half > 0 else -math.inf
  high = float(values[Bucket(q + half)]) if q + half < 1 else math.inf
  if low > 0 and math.isfinite(high):
    log_error = math.log(high / low) / 2 / quantile
  else:
    log_error = math.inf
  if not math.isfinite(low) or not math.isfinite(high):
    warnings.append(_Unpublished(q, half))
  return Interval(
      estimate=estimate,
      low=low,
      high=high,
      level=level,
      method='woodruff',
      covers=WITHIN_RUN,
      units=units,
      standard_error=log_error,
      dof=dof,
      warning='; '.join(filter(None, warnings)),
  )


def MeanOfUnits(values: Sequence[float], level: float, covers: str) -> Interval:
  """The mean of independent units (repeats or clusters), t interval.

  Positive values are averaged on the log scale: the estimate is their
  geometric mean and the interval exp(mean log +- t x SE), because the
  noise of op rates and percentiles is multiplicative and a ratio of two
  such means is then a difference of logs. Values that are not all
  positive have no logs: they are averaged as they are, and the warning
  says so.

  Args:
    values: one figure per unit: per repeat (covers WITHIN_CLUSTER) or per
      cluster (covers ACROSS_CLUSTERS).
    level: confidence level.
    covers: WITHIN_CLUSTER or ACROSS_CLUSTERS.

  Returns:
    An Interval, method 't_repeats' or 't_clusters', with n - 1 degrees of
    freedom.

  Raises:
    ValueError: fewer than 2 values (one unit says nothing about the
      variation between units), non-finite values, an unknown `covers` or
      a level not in (0, 1).
  """
  _CheckLevel(level)
  methods = {WITHIN_CLUSTER: 't_repeats', ACROSS_CLUSTERS: 't_clusters'}
  if covers not in methods:
    raise ValueError(f'covers is {covers!r}, not one of {sorted(methods)}')
  units = np.asarray(values, dtype=float)
  if units.ndim != 1 or len(units) < 2:
    raise ValueError(
        f'{units.size} unit(s): at least 2 are needed for an interval'
        ' across units'
    )
  if not np.isfinite(units).all():
    raise ValueError('values must be finite')
  count = len(units)
  quantile = float(stats.t.ppf((1 + level) / 2, count - 1))
  warning = ''
  if (units > 0).all():
    logs = np.log(units)
    centre = float(logs.mean())
    standard_error = float(logs.std(ddof=1)) / math.sqrt(count)
    estimate = math.exp(centre)
    low = math.exp(centre - quantile * standard_error)
    high = math.exp(centre + quantile * standard_error)
  else:
    estimate = float(units.mean())
    linear_error = float(units.std(ddof=1)) / math.sqrt(count)
    low = estimate - quantile * linear_error
    high = estimate + quantile * linear_error
    standard_error = _LogStandardError(linear_error, estimate)
    warning = 'values not all positive: mean and interval on the linear scale'
  return Interval(
      estimate=estimate,
      low=low,
      high=high,
      level=level,
      method=methods[covers],
      covers=covers,
      units=count,
      standard_error=standard_error,
      dof=count - 1,
      warning=warning,
  )


def ClusterValues(measurements: Sequence[Measurement]) -> dict[str, float]:
  """Each cluster's value: the mean of its repeats, in first-seen order.

  The mean is geometric (on the log scale, as MeanOfUnits averages) when
  all values are positive, else arithmetic.

  Args:
    measurements: measurements of one figure.

  Returns:
    cluster -> value.
  """
  by_cluster = collections.defaultdict(list)
  for measurement in measurements:
    by_cluster[measurement.cluster].append(measurement.value)
  result = {}
  for cluster, values in by_cluster.items():
    array = np.asarray(values, dtype=float)
    if (array > 0).all():
      result[cluster] = math.exp(float(np.log(array).mean()))
    else:
      result[cluster] = float(array.mean())
  return result


def Summarize(
    measurements: Sequence[Measurement], level: float = 0.95
) -> Interval:
  """The interval of one figure at the highest replicated level present.

  * Two clusters or more: a t interval over cluster values (ClusterValues),
    covering ACROSS_CLUSTERS; every cluster weighs the same whatever its
    number of repeats.
  * One cluster with two runs or more: a t interval over the runs,
    covering WITHIN_CLUSTER only, and the warning says so.
  * One run: its own within-run interval, covering WITHIN_RUN (unbounded,
    with a warning, when the run has none). Its estimate is the within-run
    interval's, which may differ slightly from the run's published value.

  Args:
    measurements: the figure of one step from each run.
    level: confidence level of the t intervals (a single run's interval
      keeps the level it was computed at).

  Returns:
    The Interval.

  Raises:
    ValueError: no measurements.
  """
  if not measurements:
    raise ValueError('no measurements to summarize')
  clusters = ClusterValues(measurements)
  if len(clusters) >= 2:
    return MeanOfUnits(list(clusters.values()), level, ACROSS_CLUSTERS)
  if len(measurements) >= 2:
    interval = MeanOfUnits(
        [m.value for m in measurements], level, WITHIN_CLUSTER
    )
    scope = (
        'one cluster: the interval covers run-to-run noise on this cluster'
        ' only, not differences between clusters'
    )
    return dataclasses.replace(
        interval, warning='; '.join(filter(None, (interval.warning, scope)))
    )
  single = measurements[0]
  if single.within is None:
    return _Unbounded(
        single.value,
        level,
        WITHIN_RUN,
        1,
        'one run without a within-run interval: no noise estimate at all',
    )
  return single.within
