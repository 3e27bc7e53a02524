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

"""One line out of a failed remote command's exception.

PKB's RemoteCommandError holds the whole story (the command, the full ssh
command line, stdout, stderr) over many lines; a step's error, a loader's
missing file or a machine Cleanup could not reach is published in one line
(`scylla_error`, loaders.json, cleanup.json): what the remote side said on
stderr when it said something, else the first line.
"""

# Longest line kept.
MAX_CHARS = 160


def Summary(error):
  """One line of at most MAX_CHARS saying why a remote command failed."""
  text = str(error).strip()
  lines = [line.strip() for line in text.splitlines() if line.strip()]
  line = lines[0] if lines else type(error).__name__
  _, marker, stderr = text.rpartition('STDERR:')
  stderr = stderr.strip()
  if marker and stderr:
    line = stderr.splitlines()[-1].strip()
  if len(line) > MAX_CHARS:
    line = line[: MAX_CHARS - 3] + '...'
  return line
