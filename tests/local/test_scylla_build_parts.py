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

"""scylla_build's parts that need no packaging tools and no Cassandra."""

import pathlib

import pytest

from perfkit_plugins.local import scylla_build

# pylint: disable=protected-access


def test_here_documents_expand_as_bash_expands_them():
  script = (
      'f() {\n'
      '    cat > "$root/x" <<EOF\n'
      '#!/bin/bash\n'
      'export A="\\${A-$prefix/a}"\n'
      '${trust:+export T="$trust"}\n'
      '${unset:+never}\n'
      'exec "$prefix/libexec/$bin" "\\$@"\n'
      'EOF\n'
      '}\n'
  )
  text = scylla_build.Heredoc(
      script,
      'cat > "$root/x" <<EOF',
      {'prefix': '/p', 'bin': 'b', 'trust': 't'},
  )
  assert text == (
      '#!/bin/bash\n'
      'export A="${A-/p/a}"\n'
      'export T="t"\n'
      '\n'
      'exec "/p/libexec/b" "$@"\n'
  )


def test_a_missing_here_document_is_an_error():
  with pytest.raises(scylla_build.ScyllaBuildError):
    scylla_build.Heredoc('echo\n', 'cat > nothing <<EOF', {})


def test_the_relocatable_python_wrapper_is_install_shs():
  source = scylla_build.SourceDir() / 'install.sh'
  if not source.exists():
    pytest.skip(f"ScyllaDB's install.sh is not at {source}")
  text = scylla_build.Heredoc(
      source.read_text(),
      'cat > "$install"<<EOF',
      {'pythonpath': '../python3/bin'},
  )
  assert text.startswith('#!/usr/bin/env bash\n')
  assert 'PATH="${d}/../bin:${d}/../python3/bin:${PATH}"' in text
  assert text.rstrip().endswith('exec -a "$0" "${d}/libexec/${b}" "$@"')


def test_config_options_are_the_keys_scylla_yaml_names():
  text = (
      'cluster_name: c\n'
      '# api_address: 127.0.0.1\n'
      '#seed_provider:\n'
      '# true: relaxed environment checks; performance may degrade.\n'
      '#   nested_key: 1\n'
  )
  assert scylla_build.ConfigOptions(text) == [
      'api_address',
      'cluster_name',
      'seed_provider',
  ]


def test_relations_carry_the_version_and_drop_what_is_not_built():
  relations = scylla_build._Relations(
      '${misc:Depends}, scylla-conf (= ${binary:Version})\n'
      ' , scylla-node-exporter\n , procps'
  )
  assert relations == f'scylla-conf (= {scylla_build.DEB_VERSION}), procps'


def test_control_paragraphs_keep_continuation_lines():
  paragraphs = scylla_build._Paragraphs(
      'Source: s\n\nPackage: p\nDescription: short\n long\n .\n'
  )
  assert paragraphs == [
      [['Source', 's']],
      [['Package', 'p'], ['Description', 'short\n long\n .']],
  ]


def test_the_version_is_scylladbs_debian_version():
  assert scylla_build.DEB_VERSION == '2026.3.0~rc3-0.20260817.a6e1be00632f-1'
  assert scylla_build.SOURCE_NAME == '2026.3.0-rc3'


def test_the_list_file_names_the_series_directory():
  repository = scylla_build.Repository(
      pathlib.Path('/r/scylladb-2026.3'), 'F' * 40, pathlib.Path('/r/k.asc')
  )
  assert repository.ListFile('http://10.0.0.1:8000') == (
      'deb [arch=amd64 signed-by=/etc/apt/keyrings/scylladb.gpg]'
      ' http://10.0.0.1:8000/scylladb-2026.3 stable main\n'
  )


def test_a_package_built_under_a_strict_umask_is_readable(tmp_path):
  """scylla-phases-local builds with umask 077; the machines' scylla user

  runs ScyllaDB's scripts from the packages.
  """
  root = tmp_path / 'pkg'
  (root / 'opt' / 'scripts').mkdir(parents=True)
  script = root / 'opt' / 'scripts' / 'scylla-housekeeping'
  script.write_text('#!/bin/sh\n')
  script.chmod(0o700)
  (root / 'opt').chmod(0o700)
  (root / 'opt' / 'scripts').chmod(0o700)
  data = root / 'opt' / 'data'
  data.write_text('x')
  data.chmod(0o600)
  scylla_build._Readable(root)  # pylint: disable=protected-access
  assert script.stat().st_mode & 0o777 == 0o755
  assert (root / 'opt' / 'scripts').stat().st_mode & 0o777 == 0o755
  assert data.stat().st_mode & 0o777 == 0o644
