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

"""Checks that every loader of a stress step left complete outputs.

A total with a loader missing is never published (docs/measurement.md):
a loader whose command failed, or whose text log, HDR log or times file is
missing, empty or cut, fails the whole step with a PhaseOutputError naming
the loader and the file. A loader whose output directory had at most
FULL_DIRECTORY_KIB left when its run ended is named first: a full disk
cuts files without any tool saying so.
"""

import posixpath
import signal

from perfkit_plugins.core import loader_files
from perfkit_plugins.core import step_status
from perfkit_plugins.core import stress_output

# A loader whose output directory had at most this much space left when
# its run ended is said to have run out of space when its step fails.
FULL_DIRECTORY_KIB = 1024


def _ToolMessage(output):
  """What cassandra-stress's stdout says went wrong, or ''."""
  if not output.stdout:
    return ''
  try:
    stress_output.ParseStressOutput(output.stdout)
  except stress_output.StressOutputError as e:
    return f' (its stdout: {e})'
  return ''


def LoaderFailure(record):
  """What went wrong with a loader's command, in one line, or None.

  What the loader recorded comes first: a signal is named (cassandra-stress
  killed by SIGKILL: its exit code is 128 + the signal's number), else its
  non-zero exit code; without a recorded end, the error the runner saw
  (unreachable, stopped at its bound, the command's failure).
  """
  code = record.exit_code
  if code is not None and 128 < code < 128 + signal.NSIG:
    try:
      name = signal.Signals(code - 128).name
    except ValueError:
      name = f'signal {code - 128}'
    return f'{record.name}: cassandra-stress killed by {name} (exit {code})'
  if code:
    return f'{record.name}: cassandra-stress exited with {code}'
  if record.error:
    return f'{record.name}: {record.error}'
  return None


def RecordProblems(record, output):
  """Problems of a loader's command and its times file."""
  times_path = record.remote_files[loader_files.TIMES]
  failure = LoaderFailure(record)
  problems = [failure + _ToolMessage(output)] if failure else []
  if loader_files.TIMES in record.missing_files:
    problems.append(
        f'{record.name}: times file {times_path} missing:'
        f' {record.missing_files[loader_files.TIMES]}'
    )
  elif record.start_s is None:
    problems.append(f'{record.name}: no start time in {times_path}')
  elif record.exit_code is None:
    problems.append(
        f'{record.name}: cassandra-stress did not finish (no end time in'
        f' {times_path})'
    )
  return problems


def OutputError(step_name, problems, records):
  """PhaseOutputError, led by the loaders that ran out of space."""
  full = [
      f'{r.name}: no space left in'
      f' {posixpath.dirname(r.remote_files[loader_files.TIMES])}'
      f' ({r.output_free_kib} KiB free when cassandra-stress ended)'
      for r in records.values()
      if r.output_free_kib is not None
      and r.output_free_kib <= FULL_DIRECTORY_KIB
  ]
  return step_status.PhaseOutputError(step_name, full + list(problems))


def ParseLog(record, output, problems):
  """The loader's parsed text log, or None with the problem recorded."""
  path = record.remote_files[loader_files.LOG]
  if output.log is None:
    why = record.missing_files.get(loader_files.LOG, 'not pulled')
    problems.append(f'{record.name}: log {path} missing: {why}')
    return None
  try:
    return stress_output.ParseStressOutput(output.log)
  except stress_output.StressOutputError as e:
    problems.append(f'{record.name}: log {path}: {e}')
    return None


def CheckHdr(record, output, problems):
  if output.hdr is None:
    why = record.missing_files.get(loader_files.HDR, 'not pulled')
    problems.append(
        f'{record.name}: HDR log {record.remote_files[loader_files.HDR]}'
        f' missing: {why}'
    )
  elif isinstance(output.hdr, str) and not output.hdr.strip():
    problems.append(
        f'{record.name}: HDR log {record.remote_files[loader_files.HDR]} is'
        ' empty'
    )


def HdrProblem(error, records):
  """The merge error, with the remote path of the loader's HDR log."""
  message = str(error)
  for record in records.values():
    if message.startswith(record.name + ':'):
      return f'{message} (HDR log {record.remote_files[loader_files.HDR]})'
  return f'HDR logs: {message}'
