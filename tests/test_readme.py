"""The README stays the front door: every flag, config and command is in it."""

import pathlib
import re

from perfkit_plugins import scylla_phases_flags

REPO = pathlib.Path(__file__).resolve().parent.parent
README = (REPO / 'README.md').read_text()


def test_every_flag_is_documented():
  for _, field, _ in scylla_phases_flags.FLAG_HELP:
    assert f'`--{scylla_phases_flags.FlagName(field)}`' in README, field


def test_every_config_is_documented():
  for config in (REPO / 'configs').glob('*.yaml'):
    assert f'`{config.name}`' in README, config.name


def test_ci_runs_the_readme_test_command():
  ci = (REPO / '.ci' / 'run').read_text()
  assert '.venv/bin/python -m pytest' in README
  assert re.search(r'"\$venv/bin/python" -m pytest', ci)
  assert 'bash .ci/run --setup' in README
