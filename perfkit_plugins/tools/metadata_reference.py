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

"""Prints docs/metadata.md, the reference of every metric and metadata key.

    python -m perfkit_plugins.tools.metadata_reference > docs/metadata.md

The reference lives in core/results/metadata_reference.py; a test fails
when docs/metadata.md is not what this prints.
"""

import sys

from perfkit_plugins.core.results import metadata_reference


def Main():
  """Writes the reference to stdout; returns 0."""
  sys.stdout.write(metadata_reference.Markdown())
  return 0


if __name__ == '__main__':
  sys.exit(Main())
