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

"""Tests for core/stress/stress_tools.py: which cassandra-stress, from where."""

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.stress import stress_tools


def _Tool(**changes):
  return stress_tools.StressToolOf(
      settings_lib.Validate(settings_lib.Settings(**changes))
  )


def test_scylla_release_tarball():
  tool = _Tool()
  assert tool.artifact.url == (
      'https://github.com/scylladb/cassandra-stress/releases/download/'
      'v3.18.1/cassandra-stress-bin-java21.tar.gz'
  )
  # No pinned sum: the release's own published .sha256.
  assert tool.artifact.checksum is None
  assert tool.artifact.published_url.endswith('java21.tar.gz.sha256')
  assert (tool.java.minimum, tool.java.maximum) == (21, None)
  assert tool.binary == 'bin/cassandra-stress'
  assert tool.dir_name == 'scylla-cassandra-stress-3.18.1'
  assert tool.version == '3.18.1'


def test_scylla_tool_from_a_mirror_runs_on_java_11_and_newer():
  tool = _Tool(
      stress_url='http://mirror/cs-{version}.tar.gz',
      stress_checksum='sha256:' + '0' * 64,
  )
  assert tool.artifact.url == 'http://mirror/cs-3.18.1.tar.gz'
  assert tool.artifact.checksum.source == 'flag'
  assert tool.java.minimum == 11
  assert tool.java.preferred[0] == 21


def test_a_mirror_build_asked_for_zgc_needs_a_java_with_zgc():
  tool = _Tool(
      stress_url='http://mirror/cs-{version}.tar.gz',
      stress_checksum='sha256:' + '0' * 64,
      loader_gc='zgc',
  )
  assert tool.java.minimum == 15
  assert tool.java.preferred[:2] == (21, 17)


def test_apache_tool_comes_from_the_cassandra_tarball():
  tool = _Tool(stress_tool='apache', cassandra_version='4.1.7')
  assert tool.artifact.url == (
      'https://archive.apache.org/dist/cassandra/4.1.7/'
      'apache-cassandra-4.1.7-bin.tar.gz'
  )
  assert tool.artifact.checksum.source == 'pinned'
  assert tool.java.Describe() == 'Java 11'
  assert tool.binary == 'tools/bin/cassandra-stress'
  assert tool.dir_name == 'apache-cassandra-4.1.7'
  assert _Tool(stress_tool='apache').java.Describe() == 'Java 17'


@pytest.mark.parametrize(
    'release', ['3.17.5', '3.18', 'v3.18.1', '3.18.1-rc1', '3.18.1\n']
)
def test_scylla_releases_without_the_java21_asset_are_rejected(release):
  with pytest.raises(ValueError):
    stress_tools.CheckScyllaRelease(release)


def test_settings_reject_old_scylla_release_naming_the_flag():
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_stress_release'
  ):
    settings_lib.Validate(settings_lib.Settings(stress_release='3.17.5'))
  # Ignored when the Apache tool runs: refused as such.
  with pytest.raises(
      settings_lib.SettingsError,
      match=(
          "--scylla_stress_release: '3.17.5' is read only with"
          ' --scylla_stress_tool=scylla'
      ),
  ):
    settings_lib.Validate(
        settings_lib.Settings(stress_tool='apache', stress_release='3.17.5')
    )
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_cassandra_version'
  ):
    settings_lib.Validate(
        settings_lib.Settings(stress_tool='apache', cassandra_version='3.11.17')
    )


def test_stress_tool_of_settings():
  with pytest.raises(
      settings_lib.SettingsError,
      match=(
          '--scylla_stress_release: scylladb/cassandra-stress 3.20.7 is not'
          ' a release this project knows'
      ),
  ):
    _Tool(stress_release='3.20.7')
  newer = _Tool(stress_release='3.20.7', allow_unknown_releases=True)
  assert newer.dir_name == 'scylla-cassandra-stress-3.20.7'


def test_launcher_follows_the_settings():
  settings = settings_lib.Validate(settings_lib.Settings(stress_tool='apache'))
  assert stress_tools.Launcher(settings, '/opt/pkb') == (
      '/opt/pkb/apache-cassandra-5.0.9/tools/bin/cassandra-stress',
      '/opt/pkb/apache-cassandra-5.0.9/jdk',
  )
