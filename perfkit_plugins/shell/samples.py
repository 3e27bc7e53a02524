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

"""Run's rows as PKB samples, and publishing what a failing Run measured."""

from perfkitbenchmarker import errors
from perfkitbenchmarker import events
from perfkitbenchmarker import publisher
from perfkitbenchmarker import sample

from perfkit_plugins import version
from perfkit_plugins.core.results import outcomes as outcomes_lib
from perfkit_plugins.core.results import publishable
from perfkit_plugins.core.results import sample_rows

VERSION_KEY = 'scylla_phases_version'


def SampleOf(row):
  """A sample_rows.SampleRow as a PKB sample (what Run returns of it).

  Every sample says which code made it (VERSION_KEY: version.Published()),
  and its values are those every PKB publisher carries (publishable).
  """
  metadata = publishable.Metadata(
      dict(row.metadata, **{VERSION_KEY: version.Published()})
  )
  if row.series:
    return sample.CreateTimeSeriesSample(
        list(row.series.values),
        list(row.series.timestamps_ms),
        row.metric,
        row.unit,
        row.series.interval_s,
        additional_metadata=metadata,
    )
  return sample.Sample(row.metric, row.value, row.unit, metadata)


def PublishBeforeFailing(benchmark_spec, samples):
  """Publishes what a failing Run measured, as pkb.py publishes Run's samples.

  pkb.py adds Run's samples to its collector only when Run returns: raising
  discards them, and no hook runs in the RUN stage after they are added. So
  a Run whose steps failed sends the signals pkb.py sends for them and hands
  them to PKB's own publishers (those the flags select, with PKB's default
  metadata; the JSON file is appended to), then raises: PKB records the
  failure on the RUN stage, exits non-zero and calls Cleanup.
  """
  events.benchmark_samples_created.send(
      benchmark_spec=benchmark_spec, samples=samples
  )
  events.all_samples_created.send(
      benchmark_spec=benchmark_spec, samples=samples
  )
  collector = publisher.SampleCollector()
  collector.AddSamples(samples, benchmark_spec.name, benchmark_spec)
  collector.PublishSamples()


def RunSamples(benchmark_spec, outcomes, context):
  """Run's samples, or, when a step failed, them published and an error.

  Args:
    benchmark_spec: the run's PKB BenchmarkSpec.
    outcomes: operations.run_sequence.RunSteps' outcomes.
    context: sample_rows.RunContext of the run.

  Returns:
    Every step's samples (PKB publishes them when Run returns).

  Raises:
    errors.Benchmarks.RunError: a step failed or timed out; the samples
      were published.
    KeyboardInterrupt: pkb.py was interrupted; the samples were published,
      and pkb.py ends as it ends on SIGINT (Cleanup first).
  """
  rows = [
      row
      for outcome in outcomes
      for row in sample_rows.OutcomeRows(outcome, context)
  ]
  # With --scylla_repeats, each figure across its repeats too.
  rows += sample_rows.RepeatRows(rows)
  samples = [SampleOf(row) for row in rows]
  failures = outcomes_lib.Failures(outcomes)
  if outcomes_lib.Interrupted(outcomes):
    PublishBeforeFailing(benchmark_spec, samples)
    raise KeyboardInterrupt('; '.join(failures))
  if failures:
    PublishBeforeFailing(benchmark_spec, samples)
    raise errors.Benchmarks.RunError(
        f'{benchmark_spec.name} steps failed (the samples measured were'
        ' published): '
        + '; '.join(failures)
    )
  return samples
