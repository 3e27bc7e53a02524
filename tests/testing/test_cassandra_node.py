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

"""The live-node helper's parts that need no Java: jar cache, config, scripts.

`mvn` is replaced by small scripts on PATH, so the cache logic is checked
without Maven Central.
"""

import os
import pathlib
import subprocess

import pytest
import yaml

from perfkit_plugins.testing import cassandra_node


@pytest.fixture
def fake_mvn(tmp_path, monkeypatch):
  """Puts an `mvn` on PATH running the given shell body; returns its log."""
  bin_dir = tmp_path / 'fakebin'
  bin_dir.mkdir()
  log = tmp_path / 'mvn.log'

  def Install(body):
    script = bin_dir / 'mvn'
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\n{body}\n')
    script.chmod(0o755)
    monkeypatch.setenv('PATH', f'{bin_dir}{os.pathsep}{os.environ["PATH"]}')
    return log

  return Install


def test_fetch_jars_copies_into_the_cache_and_marks_it_complete(
    fake_mvn, tmp_path
):
  log = fake_mvn(
      'for a in "$@"; do case $a in -DoutputDirectory=*)'
      ' d=${a#-DoutputDirectory=}; mkdir -p "$d"; touch'
      ' "$d/cassandra-all.jar";; esac; done'
  )
  lib_dir = cassandra_node.FetchJars('5.0.9', tmp_path / 'cache')
  assert lib_dir == tmp_path / 'cache' / '5.0.9' / 'lib'
  assert (lib_dir / 'cassandra-all.jar').exists()
  assert (lib_dir.parent / cassandra_node.COMPLETE_MARKER).exists()
  [call] = log.read_text().splitlines()
  assert 'copy-dependencies' in call and '-DincludeScope=runtime' in call
  assert sorted(p.name for p in (tmp_path / 'cache').iterdir()) == ['5.0.9']


def test_fetch_jars_does_not_run_maven_when_cached(fake_mvn, tmp_path):
  log = fake_mvn('exit 1')
  version_dir = tmp_path / 'cache' / '4.1.10'
  (version_dir / 'lib').mkdir(parents=True)
  (version_dir / cassandra_node.COMPLETE_MARKER).write_text('')
  assert cassandra_node.FetchJars('4.1.10', tmp_path / 'cache') == (
      version_dir / 'lib'
  )
  assert not log.exists()


def test_failed_fetch_raises_and_leaves_nothing_behind(fake_mvn, tmp_path):
  fake_mvn('echo "Could not resolve cassandra-all"; exit 1')
  with pytest.raises(cassandra_node.CassandraNodeError, match='resolve'):
    cassandra_node.FetchJars('9.9.9', tmp_path / 'cache')
  assert list((tmp_path / 'cache').iterdir()) == []


def test_cache_root_from_environment(monkeypatch, tmp_path):
  monkeypatch.setenv(cassandra_node.CACHE_ENV, str(tmp_path))
  assert cassandra_node.LibDir('5.0.9') == tmp_path / '5.0.9' / 'lib'


def test_node_config_stays_on_loopback_and_in_its_directory(tmp_path):
  config = cassandra_node.NodeConfig(tmp_path, 17000, 19042)
  text = yaml.safe_dump(config)
  assert config['listen_address'] == config['rpc_address'] == '127.0.0.1'
  assert config['seed_provider'][0]['parameters'] == [
      {'seeds': '127.0.0.1:17000'}
  ]
  assert config['native_transport_port'] == 19042
  for key in ('commitlog_directory', 'hints_directory', 'cdc_raw_directory'):
    assert pathlib.Path(config[key]).is_relative_to(tmp_path)
  assert str(tmp_path) in text


def test_nodetool_script_uses_the_node_port_unless_given_one(tmp_path):
  script = cassandra_node.NodetoolScript(17199)
  path = tmp_path / 'nodetool'
  path.write_text(script.replace('exec "$', 'exec echo "$'))
  path.chmod(0o755)

  def Args(*args):
    out = subprocess.run([str(path), *args], capture_output=True, text=True)
    return out.stdout.split()

  assert Args('status')[-5:] == ['-h', '127.0.0.1', '-p', '17199', 'status']
  assert Args('-p', '7199', 'status')[-5:] == [
      '-h',
      '127.0.0.1',
      '-p',
      '7199',
      'status',
  ]
  assert '17199' not in Args('--port=7199', 'status')
  assert Args('repair', '-pr')[-3:] == ['17199', 'repair', '-pr']


def test_versioned_options_file_follows_the_tarball_scripts():
  assert cassandra_node.VersionedOptionsFile('4.1.10') == 'jvm11-server.options'
  assert cassandra_node.VersionedOptionsFile('5.0.9') == 'jvm17-server.options'
