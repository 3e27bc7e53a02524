"""Test doubles shipped with the plugin (as PKB ships test_util)."""
