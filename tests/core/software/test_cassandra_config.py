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

"""Tests for core/software/cassandra_config.py: choices by Cassandra version."""

import dataclasses

import pytest

from perfkit_plugins.core.config import settings as settings_lib
from perfkit_plugins.core.software import cassandra_config
from perfkit_plugins.testing import study_settings


def Settings(**kwargs):
  return settings_lib.Validate(settings_lib.Settings(**kwargs))


@pytest.mark.parametrize(
    'version,java,unit_keys,gc',
    [
        ('4.0.13', 11, False, 'CMS'),
        ('4.1.7', 11, True, 'CMS'),
        ('5.0.6', 17, True, 'G1'),
    ],
)
def test_series_of_supported_versions(version, java, unit_keys, gc):
  series = cassandra_config.SeriesOf(version)
  assert (series.java, series.unit_keys, series.default_gc) == (
      java,
      unit_keys,
      gc,
  )


@pytest.mark.parametrize('version', ['3.11.17', '5.1.0', '5.0', 'latest'])
def test_series_of_rejects_other_versions(version):
  with pytest.raises(ValueError):
    cassandra_config.SeriesOf(version)


def test_tarball_follows_the_apache_archive_scheme_and_pins_known_sums():
  tarball = cassandra_config.Tarball(
      Settings(engine='cassandra', cassandra_version='5.0.6')
  )
  assert tarball.url == (
      'https://archive.apache.org/dist/cassandra/5.0.6/'
      'apache-cassandra-5.0.6-bin.tar.gz'
  )
  assert tarball.checksum.source == 'pinned'
  assert tarball.checksum.Text().startswith('sha512:cab82049269e91ec')
  assert tarball.url_flag == 'scylla_cassandra_url'
  assert cassandra_config.DirName('4.1.7') == 'apache-cassandra-4.1.7'
  # A release newer than the pinned table: Apache's published .sha512.
  newer = cassandra_config.Tarball(
      Settings(engine='cassandra', cassandra_version='5.0.9')
  )
  assert newer.checksum is None
  assert newer.published_url == newer.url + '.sha512'


def test_tarball_from_a_mirror_with_a_given_checksum():
  tarball = cassandra_config.Tarball(
      Settings(
          engine='cassandra',
          cassandra_version='5.0.9',
          cassandra_url='http://mirror:8000/c/{version}/c-{version}.tgz',
          cassandra_checksum='sha256:' + 'AB' * 32,
      )
  )
  assert tarball.url == 'http://mirror:8000/c/5.0.9/c-5.0.9.tgz'
  assert tarball.checksum.Text() == 'sha256:' + 'ab' * 32
  assert tarball.checksum.source == 'flag'


@pytest.mark.parametrize(
    'version,java', [('4.0.13', 11), ('4.1.10', 11), ('5.0.9', 17)]
)
def test_java_is_exactly_the_series_jdk(version, java):
  requirement = cassandra_config.JavaOf(version)
  assert (requirement.minimum, requirement.maximum) == (java, java)
  assert requirement.Describe() == f'Java {java}'


def test_cms_only_on_the_java_11_series():
  cassandra_config.CheckGc('4.1.7', 'CMS')
  cassandra_config.CheckGc('5.0.6', 'G1')
  cassandra_config.CheckGc('5.0.6', '')
  with pytest.raises(ValueError, match='Java 17'):
    cassandra_config.CheckGc('5.0.6', 'CMS')


def test_settings_validation_names_the_cassandra_flags():
  with pytest.raises(settings_lib.SettingsError, match='--scylla_cassandra_gc'):
    Settings(engine='cassandra', cassandra_gc='CMS')
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_cassandra_version'
  ):
    Settings(engine='cassandra', cassandra_version='3.11.17')
  with pytest.raises(
      settings_lib.SettingsError, match='--scylla_cassandra_heap_gb'
  ):
    Settings(cassandra_heap_gb=-1)
  with pytest.raises(
      settings_lib.SettingsError,
      match='--scylla_cassandra_compaction_throughput_mb',
  ):
    Settings(cassandra_compaction_throughput_mb=-2)
  with pytest.raises(
      settings_lib.SettingsError,
      match='--scylla_cassandra_memtable_allocation_type',
  ):
    Settings(cassandra_memtable_allocation_type='offheap')
  # The Cassandra version only matters where Cassandra is installed;
  # elsewhere it would be ignored, and is refused as such.
  with pytest.raises(
      settings_lib.SettingsError,
      match="--scylla_cassandra_version: '3.11.17' is read only with",
  ):
    Settings(engine='scylla', cassandra_version='3.11.17')
  Settings(**study_settings.CASSANDRA_2017)
  Settings(**(
      study_settings.CASSANDRA_2017
      | dict(cassandra_version='4.1.7', cassandra_gc='CMS')
  ))


def test_defaults_write_no_tuning():
  assert cassandra_config.TuningOptions(Settings(engine='cassandra')) == []
  assert cassandra_config.JvmOptions(Settings(engine='cassandra'), 8) == (
      '-Dcassandra.skip_wait_for_gossip_to_settle=0',
  )


def test_study_tuning_uses_unit_keys_from_4_1():
  for version in ('4.1.7', '5.0.6'):
    options = cassandra_config.TuningOptions(
        Settings(
            **(study_settings.CASSANDRA_2017 | dict(cassandra_version=version))
        )
    )
    assert options == [
        ('concurrent_reads', '16'),
        ('concurrent_writes', '64'),
        ('concurrent_compactors', '8'),
        ('compaction_throughput', '0MiB/s'),
        ('memtable_allocation_type', 'offheap_buffers'),
        ('trickle_fsync', 'true'),
    ]


def test_tuning_uses_old_key_names_on_4_0():
  options = dict(
      cassandra_config.TuningOptions(
          Settings(
              engine='cassandra',
              cassandra_version='4.0.13',
              cassandra_compaction_throughput_mb=16,
          )
      )
  )
  assert options == {'compaction_throughput_mb_per_sec': '16'}


def test_yaml_context_quotes_strings_and_places_dirs_on_the_data_disk():
  s = Settings(engine='cassandra', cassandra_version='5.0.6')
  context = cassandra_config.YamlContext(
      s,
      cluster_name='it\'s "ours"',
      seed_ips=['10.0.0.2', '10.0.0.3'],
      initial_tokens=[-(2**63), 0],
      listen_address='10.0.0.4',
      data_dir='/mnt/disk 0',
      storage_port=7010,
  )
  assert context['cluster_name'] == '"it\'s \\"ours\\""'
  assert context['seeds'] == '"10.0.0.2:7010,10.0.0.3:7010"'
  assert context['listen_address'] == '"10.0.0.4"'
  assert context['data_file_directory'] == '"/mnt/disk 0/data"'
  assert dict(context['directories']) == {
      'commitlog_directory': '"/mnt/disk 0/commitlog"',
      'saved_caches_directory': '"/mnt/disk 0/saved_caches"',
      'hints_directory': '"/mnt/disk 0/hints"',
      'cdc_raw_directory': '"/mnt/disk 0/cdc_raw"',
  }
  assert context['initial_token'] == '-9223372036854775808,0'
  assert context['options'] == [('commitlog_sync_period', '10000ms')]


def test_yaml_context_commitlog_key_on_4_0():
  s = Settings(engine='cassandra', cassandra_version='4.0.13')
  context = cassandra_config.YamlContext(
      s,
      cluster_name='c',
      seed_ips=['10.0.0.2'],
      initial_tokens=[0],
      listen_address='10.0.0.2',
      data_dir='/d',
  )
  assert context['options'] == [('commitlog_sync_period_in_ms', '10000')]


def test_jvm_options_g1_with_heap():
  options = cassandra_config.JvmOptions(
      Settings(**study_settings.CASSANDRA_2017), num_cpus=8
  )
  assert options == (
      *cassandra_config.START_OPTIONS,
      '-Xms8G',
      '-Xmx8G',
      *cassandra_config.GC_OPTIONS['G1'],
  )
  assert not any(o.startswith('-Xmn') for o in options)


def test_jvm_options_cms_young_generation_follows_cassandra_env():
  # 4.1 runs CMS by default: -Xmn = min(100 MB x vCPUs, heap / 4).
  s = Settings(
      engine='cassandra', cassandra_version='4.1.7', cassandra_heap_gb=16
  )
  assert cassandra_config.JvmOptions(s, num_cpus=8) == (
      *cassandra_config.START_OPTIONS,
      '-Xms16G',
      '-Xmx16G',
      '-Xmn800M',
  )
  assert cassandra_config.JvmOptions(s, num_cpus=88)[-1] == '-Xmn4096M'
  chosen = dataclasses.replace(s, cassandra_gc='CMS')
  assert cassandra_config.JvmOptions(chosen, num_cpus=8) == (
      cassandra_config.START_OPTIONS
      + ('-Xms16G', '-Xmx16G', '-Xmn800M')
      + cassandra_config.GC_OPTIONS['CMS']
  )


def test_jvm_options_files_by_series():
  assert cassandra_config.JvmOptionsFiles('4.1.7') == (
      'jvm-server.options',
      'jvm11-server.options',
  )
  assert cassandra_config.JvmOptionsFiles('5.0.6')[1] == 'jvm17-server.options'


@pytest.mark.parametrize(
    'name,version',
    [('c509-version.txt', '5.0.9'), ('c4110-version.txt', '4.1.10')],
)
def test_parse_release_version_on_real_nodetool_output(testdata, name, version):
  text = testdata('live', name)
  assert cassandra_config.ParseReleaseVersion(text) == version


def test_parse_release_version_rejects_other_output(testdata):
  with pytest.raises(ValueError):
    cassandra_config.ParseReleaseVersion(testdata('live', 'c509-status.txt'))
