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

"""Tests of core/software/artifacts.py: URL templates, checksums, sources."""

import hashlib

import pytest

from perfkit_plugins.core.software import artifacts

SHA256 = hashlib.sha256(b'x').hexdigest()


def _Make(checksum='', pinned=None, template='http://m/{version}/t.tgz'):
  return artifacts.Make(
      'Thing 1.2.3 tarball',
      '1.2.3',
      template,
      'scylla_thing_url',
      checksum,
      'scylla_thing_checksum',
      pinned=pinned,
  )


def test_flag_checksum_wins_over_pinned():
  artifact = _Make(f'sha256:{SHA256.upper()}', pinned={'1.2.3': 'ab' * 64})
  assert artifact.checksum == artifacts.Checksum('sha256', SHA256, 'flag')
  assert artifact.url == 'http://m/1.2.3/t.tgz'


def test_pinned_then_published():
  assert _Make(pinned={'1.2.3': 'ab' * 64}).checksum.source == 'pinned'
  published = _Make(pinned={'9.9.9': 'ab' * 64})
  assert published.checksum is None
  assert published.published_url == 'http://m/1.2.3/t.tgz.sha512'


@pytest.mark.parametrize(
    'text',
    [
        'md5:' + 'a' * 32,
        'sha256:' + 'a' * 63,
        'sha512:' + 'a' * 64,
        'sha256:' + 'g' * 64,
        SHA256,
        f'sha256:{SHA256}\n',
    ],
)
def test_malformed_checksums_are_rejected(text):
  if text.endswith('\n'):
    # Surrounding blanks are tolerated, a trailing newline included.
    assert artifacts.ParseChecksum(text).digest == SHA256
    return
  with pytest.raises(ValueError, match='sha256:<64 hex digits>'):
    artifacts.ParseChecksum(text)


@pytest.mark.parametrize(
    'template,problem',
    [
        ('http://m/{release}/t.tgz', 'names release'),
        ('http://m/{version/t.tgz', 'not a URL template'),
        ('m/{version}/t.tgz', 'not an http'),
        ('http://m/{version}/t t.tgz', 'not an http'),
        ('http://m/t.tgz\n', 'not an http'),
    ],
)
def test_bad_url_templates(template, problem):
  with pytest.raises(ValueError, match=problem):
    artifacts.ExpandUrl(template, '1.2.3')


def test_url_without_placeholder_is_taken_as_is():
  assert artifacts.ExpandUrl('file:///srv/t.tgz', '1') == 'file:///srv/t.tgz'


def test_published_file_shapes():
  assert artifacts.ParsePublished(f'{SHA256}  t.tgz\n', 'sha256') == SHA256
  assert artifacts.ParsePublished(SHA256.upper(), 'sha256') == SHA256
  with pytest.raises(ValueError, match='not a sha512 checksum file'):
    artifacts.ParsePublished(f'{SHA256}  t.tgz', 'sha512')
  with pytest.raises(ValueError):
    artifacts.ParsePublished('<html>404</html>', 'sha256')


def test_verify_names_artifact_url_and_both_flags():
  artifact = _Make(f'sha256:{SHA256}')
  artifacts.Verify(artifact, artifact.checksum, SHA256.upper() + '\n')
  with pytest.raises(artifacts.ArtifactError) as raised:
    artifacts.Verify(artifact, artifact.checksum, 'ab' * 32)
  message = str(raised.value)
  assert message.startswith('Thing 1.2.3 tarball: checksum mismatch')
  assert 'http://m/1.2.3/t.tgz' in message
  assert '--scylla_thing_url' in message
  assert '--scylla_thing_checksum' in message
  assert f'expected sha256:{SHA256} (flag checksum)' in message


def test_pinned_table_holds_sha512_digests():
  assert len(artifacts.PINNED_SHA512) >= 40
  for version, digest in artifacts.PINNED_SHA512.items():
    assert version.count('.') == 2
    assert len(digest) == 128 and int(digest, 16) >= 0
