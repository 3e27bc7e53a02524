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

"""The README stays the front door: every flag, config and command is in it."""

import pathlib
import re

import pytest

from perfkit_plugins.core.results import metadata_reference
from perfkit_plugins.shell import scylla_phases_flags

REPO = pathlib.Path(__file__).resolve().parent.parent
README = (REPO / 'README.md').read_text()


def test_every_flag_is_documented():
  for holder in scylla_phases_flags.ALL:
    assert f'`--{holder.name}`' in README, holder.name


def test_every_config_is_documented():
  for config in (REPO / 'configs').glob('*.yaml'):
    assert f'`{config.name}`' in README, config.name


def test_published_samples_table_has_the_reference_units():
  """Each row's units, one for all its metrics or one each, in order."""
  section = README.split('## Published samples\n', 1)[1].split('\n### ')[0]
  units = {}
  for row in section.splitlines():
    if not row.startswith('| `'):
      continue
    metrics_cell, units_cell = row.strip('|').split('|')[:2]
    metrics = re.findall(r'`([a-z0-9_]+)`', metrics_cell)
    shown = [u.replace('(none)', '') for u in units_cell.strip().split(', ')]
    if len(shown) == 1:
      shown *= len(metrics)
    assert len(shown) == len(metrics), row
    units.update(zip(metrics, shown))
  assert units == {m.name: m.unit for m in metadata_reference.METRICS}


def test_ci_runs_the_readme_test_command():
  ci = (REPO / '.ci' / 'run').read_text()
  assert '.venv/bin/python -m pytest' in README
  assert re.search(r'"\$venv/bin/python" -m pytest', ci)
  assert 'bash .ci/run --setup' in README


def test_example_report_is_the_reports_output_on_the_run_fixture(capsys):
  # pylint: disable=g-import-not-at-top
  from perfkit_plugins.tools import report_command

  # pylint: enable=g-import-not-at-top
  fixture = 'tests/testdata/results/scylla_phases_fake_run.json'
  assert f'`scylla-phases-report {fixture}`' in README
  assert report_command.Main([str(REPO / fixture), '--no_plots']) == 0
  printed = capsys.readouterr().out.rstrip('\n')
  example = README.split('### Example\n', 1)[1].split('```\n')[1]
  assert example.rstrip('\n') == printed, 'README example is stale'
  image = re.search(r'!\[[^]]*\]\(([^)]+\.png)\)', README).group(1)
  assert (REPO / image).read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


SWAP_SETUP = (
    REPO.parent
    / 'shared'
    / 'scylladb'
    / '2026.3.0-rc3'
    / 'dist'
    / 'common'
    / 'scripts'
    / 'scylla_swap_setup'
)


def test_the_readmes_swap_size_has_the_half_of_free_space_cap():
  """scylla_swap_setup sizes the swap file as the smaller of 16 GiB and a
  third of the RAM, then caps it at half the free space of its directory,
  and refuses (so scylla_setup fails) when that half is 1 GiB or less; the
  README says all of it."""
  if not SWAP_SETUP.is_file():
    pytest.skip(f'no ScyllaDB sources at {SWAP_SETUP}: CI checks out ../shared')
  script = SWAP_SETUP.read_text()
  for rule in (
      'swapsize = GB(16) if GB(16) < int(memtotal / 3) else int(memtotal / 3)',
      'half_of_diskfree = int(diskfree / 2)',
      'if half_of_diskfree <= GB(1):',
      'swapsize = half_of_diskfree',
  ):
    assert rule in script, rule
  said = ' '.join(README.split('`scylla_swap` (', 1)[1].split(')')[0].split())
  for rule in (
      'the smaller of 16 GiB and a third of the RAM',
      'at most half the free space of the boot disk',
      '1 GiB or less',
      '`--scylla_swap_setup=false`',
  ):
    assert rule in said, rule


# The scylla-cluster-tests options that exist on its master
# (bcde45b0a301e87821896a6e43237560d993204c, 2026-08-20; sdcm/sct_config.py
# defines every option). `cs_safepoint_logging` is only in the unmerged
# pull request scylladb/scylla-cluster-tests#15819.
SCT_MASTER_OPTIONS = frozenset(('cs_extra_jvm_opts',))


def test_loader_jvm_md_cites_only_options_scylla_cluster_tests_has():
  doc = (REPO / 'docs' / 'loader_jvm.md').read_text()
  cited = set(re.findall(r'`(cs_[a-z_]+)`', doc))
  assert cited and cited <= SCT_MASTER_OPTIONS, cited - SCT_MASTER_OPTIONS
