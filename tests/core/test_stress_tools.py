"""Tests for core/stress_tools.py: which cassandra-stress, from where."""

import pytest

from perfkit_plugins.core import settings as settings_lib
from perfkit_plugins.core import stress_tools


def test_scylla_release_tarball():
  tool = stress_tools.StressToolFor('scylla', '3.18.1', '5.0.6')
  assert tool.url == (
      'https://github.com/scylladb/cassandra-stress/releases/download/'
      'v3.18.1/cassandra-stress-bin-java21.tar.gz'
  )
  assert tool.java == 21
  assert tool.binary == 'bin/cassandra-stress'
  assert tool.dir_name == 'scylla-cassandra-stress-3.18.1'
  assert tool.version == '3.18.1'


def test_apache_tool_comes_from_the_cassandra_tarball():
  tool = stress_tools.StressToolFor('apache', '3.18.1', '4.1.7')
  assert tool.url == (
      'https://archive.apache.org/dist/cassandra/4.1.7/'
      'apache-cassandra-4.1.7-bin.tar.gz'
  )
  assert tool.java == 11
  assert tool.binary == 'tools/bin/cassandra-stress'
  assert tool.dir_name == 'apache-cassandra-4.1.7'
  assert stress_tools.StressToolFor('apache', '3.18.1', '5.0.6').java == 17


@pytest.mark.parametrize('release', ['3.17.5', '3.18', 'v3.18.1', '3.18.1-rc1'])
def test_scylla_releases_without_the_java21_asset_are_rejected(release):
  with pytest.raises(ValueError):
    stress_tools.StressToolFor('scylla', release, '5.0.6')


def test_unknown_tool():
  with pytest.raises(ValueError):
    stress_tools.StressToolFor('tlp', '3.18.1', '5.0.6')


def test_settings_reject_old_scylla_release_naming_the_flag():
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_stress_release'
  ):
    settings_lib.Validate(settings_lib.Settings(stress_release='3.17.5'))
  # Irrelevant when the Apache tool runs; its version must be supported.
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
  s = settings_lib.Validate(settings_lib.Settings(stress_release='3.20.7'))
  assert stress_tools.StressToolOf(s).dir_name == (
      'scylla-cassandra-stress-3.20.7'
  )
