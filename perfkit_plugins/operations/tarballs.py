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

"""Installs a verified binary tarball (Apache Cassandra, cassandra-stress).

The tarball (core/artifacts.Artifact) is downloaded with curl, its digest
is compared with the expected checksum on the controller, and only then is
it unpacked, its top directory stripped, into `<root>/<dir_name>` through a
scratch directory renamed at the end: a failed download, a wrong checksum or
an interrupted extraction never leaves a half-filled install directory. The
install directory records the checksum it was verified against; an install
whose record matches is not downloaded again, any other is replaced.
"""

import posixpath
import shlex

from perfkit_plugins.core.software import artifacts

# In an install directory: the checksum its tarball was verified against.
CHECKSUM_RECORD = '.scylla_phases_checksum'


def InstallDir(dir_name, root):
  """The directory a tarball is unpacked into, under the install root.

  The root is PKB's linux_packages.INSTALL_DIR in a run (the shell hands it
  in), created world-writable on every VM.
  """
  return posixpath.join(root, dir_name)


def RecordedChecksumCommand(target_dir):
  """Prints the checksum an existing install was verified against, if any."""
  record = shlex.quote(posixpath.join(target_dir, CHECKSUM_RECORD))
  return f'cat {record} 2>/dev/null || true'


def DownloadCommand(url, path):
  """Downloads `url` to `path` (creating its directory)."""
  return (
      f'mkdir -p {shlex.quote(posixpath.dirname(path))} && curl -fsSL'
      f' --retry 3 --connect-timeout 30 -o {shlex.quote(path)}'
      f' {shlex.quote(url)}'
  )


def PrintCommand(url):
  """Prints the document at `url` (a published checksum file)."""
  return f'curl -fsSL --retry 3 --connect-timeout 30 {shlex.quote(url)}'


def DigestCommand(algorithm, path):
  """Prints `<hex digest>  <path>` of a file."""
  return f'{algorithm}sum {shlex.quote(path)}'


def UnpackCommand(archive, target_dir, checksum):
  """Unpacks a verified archive into target_dir, replacing what was there.

  Args:
    archive: the downloaded .tar.gz.
    target_dir: final directory; it receives the tarball's top directory's
      contents and the checksum record.
    checksum: the artifacts.Checksum the archive was verified against.

  Returns:
    A POSIX shell command.
  """
  target = shlex.quote(target_dir)
  partial = shlex.quote(target_dir + '.partial')
  record = shlex.quote(posixpath.join(target_dir + '.partial', CHECKSUM_RECORD))
  return (
      f'rm -rf {partial} && mkdir -p {partial}'
      f' && tar -xzf {shlex.quote(archive)} -C {partial} --strip-components=1'
      f' && printf "%s\\n" {shlex.quote(checksum.Text())} > {record}'
      f' && rm -rf {target} && mv {partial} {target}'
      f' && rm -f {shlex.quote(archive)}'
  )


def _Remote(vm, artifact, what, command):
  """Runs a command of the install; failures name the artifact and flag."""
  try:
    return vm.RemoteCommand(command)[0]
  except Exception as e:
    # PKB raises its RemoteCommandError; its text has curl's or tar's words.
    raise artifacts.ArtifactError(
        f'{artifact.name}: could not {what} on {vm.name} (URL from'
        f' --{artifact.url_flag}): {e}'
    ) from e


def ExpectedChecksum(vm, artifact):
  """The checksum to verify against: given, pinned, or published.

  Raises:
    artifacts.ArtifactError: none given or pinned, and the published one
      cannot be fetched or read.
  """
  if artifact.checksum is not None:
    return artifact.checksum
  text = _Remote(
      vm,
      artifact,
      f'fetch its published checksum {artifact.published_url} (no'
      f' --{artifact.checksum_flag} given and none pinned for'
      f' {artifact.version}; give one)',
      PrintCommand(artifact.published_url),
  )
  try:
    digest = artifacts.ParsePublished(text, artifact.published_algorithm)
  except ValueError as e:
    raise artifacts.ArtifactError(
        f'{artifact.name}: {artifact.published_url}: {e}; give the checksum'
        f' with --{artifact.checksum_flag}'
    ) from e
  return artifacts.Checksum(
      artifact.published_algorithm, digest, artifacts.SOURCE_PUBLISHED
  )


def Fetch(vm, artifact, dir_name, root):
  """Installs a verified tarball on `vm`.

  Args:
    vm: the VM.
    artifact: artifacts.Artifact.
    dir_name: install directory name under root.
    root: install root.

  Returns:
    (install directory, the artifacts.Checksum it was verified against).

  Raises:
    artifacts.ArtifactError: the download failed, or the file's checksum is
      not the expected one (the message names the artifact, its URL flag and
      its checksum flag).
  """
  target = InstallDir(dir_name, root)
  expected = ExpectedChecksum(vm, artifact)
  recorded = _Remote(
      vm, artifact, 'read the install', RecordedChecksumCommand(target)
  )
  if recorded.strip() == expected.Text():
    return target, expected
  archive = target + '.tar.gz'
  _Remote(
      vm,
      artifact,
      f'download {artifact.url}',
      DownloadCommand(artifact.url, archive),
  )
  digest = _Remote(
      vm,
      artifact,
      'checksum the download',
      DigestCommand(expected.algorithm, archive),
  )
  try:
    artifacts.Verify(artifact, expected, (digest.split() or [''])[0])
  except artifacts.ArtifactError:
    vm.RemoteCommand(f'rm -f {shlex.quote(archive)}', ignore_failure=True)
    raise
  _Remote(vm, artifact, 'unpack it', UnpackCommand(archive, target, expected))
  return target, expected
