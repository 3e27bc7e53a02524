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

"""The setup's PKB step (`bash .ci/run --pkb`): clone at the pinned commit.

A local git repository stands in for PKB's public one (no machine here
reaches GitHub): two commits, the older one pinned, so a checkout of the
newest would fail the test. An unreachable repository gets the message
that says how to point at an existing checkout.
"""

import os
import pathlib
import re
import subprocess

import pytest

from perfkit_plugins.tools import pkb_location

ROOT = pathlib.Path(__file__).resolve().parents[1]
CI_RUN = ROOT / '.ci' / 'run'


def _Git(directory, *args):
  return subprocess.run(
      ['git', '-C', str(directory), *args],
      check=True,
      capture_output=True,
      text=True,
  ).stdout.strip()


def _RunPkbStep(env):
  return subprocess.run(
      ['bash', str(CI_RUN), '--pkb'],
      env=os.environ | env,
      capture_output=True,
      text=True,
      timeout=120,
      check=False,
  )


@pytest.fixture(name='upstream')
def _Upstream(tmp_path):
  """A repository with pkb.py in two commits; the older one's hash."""
  repo = tmp_path / 'upstream'
  repo.mkdir()
  _Git(repo, 'init', '-q')
  _Git(repo, 'config', 'user.email', 'test@example.com')
  _Git(repo, 'config', 'user.name', 'test')
  (repo / 'pkb.py').write_text('pinned\n')
  _Git(repo, 'add', 'pkb.py')
  _Git(repo, 'commit', '-q', '-m', 'pinned')
  pinned = _Git(repo, 'rev-parse', 'HEAD')
  (repo / 'pkb.py').write_text('newer\n')
  _Git(repo, 'commit', '-q', '-am', 'newer')
  return repo, pinned


def test_clones_at_the_pinned_commit_when_no_checkout_is_given(
    tmp_path, upstream
):
  repo, pinned = upstream
  checkout = tmp_path / 'opt' / 'PerfKitBenchmarker'
  result = _RunPkbStep({
      'PKB_CHECKOUT': str(checkout),
      'PKB_REPOSITORY': f'file://{repo}',
      'PKB_COMMIT': pinned,
  })
  assert result.returncode == 0, result.stderr
  assert _Git(checkout, 'rev-parse', 'HEAD') == pinned
  assert (checkout / 'pkb.py').read_text() == 'pinned\n'
  assert not list(checkout.parent.glob('*.partial.*'))


def test_a_clone_whose_head_is_not_the_pinned_commit_is_refused(
    tmp_path, upstream
):
  repo, pinned = upstream
  # A branch named like the pinned commit's short hash, at another commit:
  # `git checkout <name>` takes the branch.
  _Git(repo, 'branch', pinned[:12], 'HEAD')
  checkout = tmp_path / 'opt' / 'PerfKitBenchmarker'
  result = _RunPkbStep({
      'PKB_CHECKOUT': str(checkout),
      'PKB_REPOSITORY': f'file://{repo}',
      'PKB_COMMIT': pinned[:12],
  })
  assert result.returncode == 1
  assert f'is not {pinned[:12]}' in result.stderr
  assert not checkout.exists()
  assert not list(checkout.parent.glob('*.partial.*'))


def test_the_pinned_commit_is_the_one_the_local_run_checks(tmp_path):
  checkout = tmp_path / 'mine'
  checkout.mkdir()
  (checkout / 'pkb.py').write_text('my own\n')
  env = {k: v for k, v in os.environ.items() if k != 'PKB_COMMIT'}
  result = subprocess.run(
      ['bash', str(CI_RUN), '--pkb'],
      env=env | {'PKB_CHECKOUT': str(checkout)},
      capture_output=True,
      text=True,
      timeout=120,
      check=False,
  )
  assert result.returncode == 0, result.stderr
  assert f'not the tested {pkb_location.TESTED_COMMIT}' in result.stderr


def test_an_existing_checkout_is_kept_as_it_is(tmp_path, upstream):
  repo, pinned = upstream
  checkout = tmp_path / 'mine'
  checkout.mkdir()
  (checkout / 'pkb.py').write_text('my own\n')
  result = _RunPkbStep({
      'PKB_CHECKOUT': str(checkout),
      'PKB_REPOSITORY': f'file://{repo}',
      'PKB_COMMIT': pinned,
  })
  assert result.returncode == 0, result.stderr
  assert (checkout / 'pkb.py').read_text() == 'my own\n'
  assert not (checkout / '.git').exists()
  assert f'is at none, not the tested {pinned}' in result.stderr


def test_an_unreachable_repository_says_how_to_point_at_a_checkout(tmp_path):
  checkout = tmp_path / 'PerfKitBenchmarker'
  result = _RunPkbStep({
      'PKB_CHECKOUT': str(checkout),
      'PKB_REPOSITORY': f'file://{tmp_path}/no-such-repository',
  })
  assert result.returncode == 1
  assert 'Could not clone PerfKitBenchmarker' in result.stderr
  assert 'PKB_CHECKOUT=/path/to/PerfKitBenchmarker bash .ci/run --setup' in (
      result.stderr
  )
  assert re.search(r'checkout [0-9a-f]{40}', result.stderr)
  assert not checkout.exists()
  assert not list(tmp_path.glob('*.partial.*'))


def test_a_directory_without_pkb_is_refused_untouched(tmp_path):
  checkout = tmp_path / 'other'
  checkout.mkdir()
  (checkout / 'notes.txt').write_text('mine\n')
  result = _RunPkbStep({'PKB_CHECKOUT': str(checkout)})
  assert result.returncode == 1
  assert 'holds no pkb.py' in result.stderr
  assert [p.name for p in checkout.iterdir()] == ['notes.txt']
