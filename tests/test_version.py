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

"""Tests of the version every sample carries."""

import pathlib
import re
import subprocess
import sys
import zipfile

import pytest

from perfkit_plugins import version

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def package_dir(monkeypatch, tmp_path):
  """Points the version module at an empty directory, caches cleared."""
  monkeypatch.setattr(version, '_PACKAGE_DIR', str(tmp_path))
  version.Revision.cache_clear()
  yield tmp_path
  version.Revision.cache_clear()


def test_a_checkout_publishes_its_git_revision():
  version.Revision.cache_clear()
  head = subprocess.run(
      ['git', '-C', str(REPO), 'rev-parse', '--short=12', 'HEAD'],
      capture_output=True,
      text=True,
      check=True,
  ).stdout.strip()
  published = version.Published()
  assert re.fullmatch(
      re.escape(f'{version.VERSION}+g{head}') + r'(\.dirty)?', published
  ), published


def test_a_wheel_publishes_the_revision_it_was_built_from(package_dir):
  (package_dir / version.REVISION_FILE).write_text('g0123456789ab\n')
  assert version.Published() == f'{version.VERSION}+g0123456789ab'


def test_without_git_or_a_revision_file_the_revision_is_unknown(package_dir):
  del package_dir
  assert version.Published() == f'{version.VERSION}+unknown'


def test_the_release_is_a_version_and_the_changelog_names_it():
  assert re.fullmatch(r'[0-9]+\.[0-9]+\.[0-9]+', version.VERSION)
  changelog = (REPO / 'docs' / 'CHANGELOG.md').read_text()
  assert f'\n## {version.VERSION} ' in changelog


@pytest.mark.slow
def test_a_wheel_built_from_an_sdist_keeps_the_checkouts_revision(tmp_path):
  # Build frontends build wheels from an unpacked sdist, where git is gone.
  subprocess.run(
      [sys.executable, 'setup.py', '-q', 'sdist', '-d', str(tmp_path)],
      cwd=REPO,
      capture_output=True,
      check=True,
  )
  (sdist,) = tmp_path.glob('*.tar.gz')
  subprocess.run(
      [
          sys.executable,
          '-m',
          'pip',
          'wheel',
          '-q',
          '--no-deps',
          '--no-build-isolation',
          str(sdist),
          '-w',
          str(tmp_path),
      ],
      cwd=tmp_path,
      capture_output=True,
      check=True,
  )
  (wheel,) = tmp_path.glob('*.whl')
  with zipfile.ZipFile(wheel) as archive:
    revision = archive.read('perfkit_plugins/REVISION').decode().strip()
  assert revision == version.GitRevision()
