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

"""Tests for core/software/java.py: requirements, JDK listings, the choice."""

import pathlib

import pytest

from perfkit_plugins.core.software import java

LISTING = (
    pathlib.Path(__file__).parents[2]
    / 'testdata'
    / 'java'
    / 'list-debian12-temurin25.txt'
).read_text()
DEBIAN_17 = java.InstalledJava('/usr/lib/jvm/java-17-openjdk-amd64', 17)
TEMURIN_25 = java.InstalledJava('/usr/lib/jvm/temurin-25-jdk-amd64', 25)


def test_parse_real_listing_deduplicates_links_and_path():
  assert java.ParseList(LISTING) == [DEBIAN_17, TEMURIN_25]


def test_parse_skips_broken_launchers_and_reads_java_8():
  text = (
      '/usr/lib/jvm/broken/bin/java\tError: could not open lib/jvm.cfg\n'
      '/opt/jdk8/jre/bin/java\tjava version "1.8.0_392"\n'
      'not a listing line\n'
  )
  assert java.ParseList(text) == [java.InstalledJava('/opt/jdk8', 8)]


def test_exact_requirement_takes_only_its_major():
  requirement = java.Exactly('Apache Cassandra 5.0.9', 17)
  assert java.ChooseInstalled(requirement, [TEMURIN_25, DEBIAN_17]) == (
      DEBIAN_17
  )
  assert java.ChooseInstalled(requirement, [TEMURIN_25]) is None


def test_at_least_prefers_its_order_then_the_newest():
  asset = java.AtLeast('cassandra-stress', 21, (21,))
  assert asset.preferred == (21, 25)
  assert java.ChooseInstalled(asset, [DEBIAN_17, TEMURIN_25]) == TEMURIN_25
  assert java.ChooseInstalled(asset, [DEBIAN_17]) is None
  build = java.AtLeast('cassandra-stress', 11, (21, 17, 11))
  assert build.preferred == (21, 17, 11, 25)
  assert java.ChooseInstalled(build, [TEMURIN_25, DEBIAN_17]) == DEBIAN_17
  assert build.Describe() == 'Java 11 or newer'


def test_package_names():
  assert java.PackageName(17, 'apt') == 'openjdk-17-jdk-headless'
  assert java.PackageName(21, 'yum') == 'java-21-openjdk-devel'
  with pytest.raises(ValueError):
    java.PackageName(17, 'zypper')


def test_unavailable_names_what_is_needed_and_what_is_there():
  error = java.Unavailable(
      java.AtLeast('ScyllaDB cassandra-stress 3.18.1', 21, (21,)),
      'loader-0',
      'debian12',
      [DEBIAN_17],
      ['openjdk-21-jdk-headless', 'openjdk-25-jdk-headless'],
  )
  text = str(error)
  assert 'needs Java 21 or newer' in text
  assert 'loader-0 (debian12)' in text
  assert 'Java 17 at /usr/lib/jvm/java-17-openjdk-amd64' in text
  assert 'openjdk-21-jdk-headless, openjdk-25-jdk-headless' in text


def test_the_pinned_cassandra_stress_needs_java_21_and_debian_12_lacks_it():
  """Nothing refused a Debian 12 loader before provisioning; its install
  then failed for want of a Java 21 package."""
  needs_21 = java.AtLeast('cassandra-stress 3.18.1', 21, (21,))
  problem = java.ImageProblem(needs_21, 'debian12')
  assert problem == (
      'cassandra-stress 3.18.1 needs Java 21 or newer, and debian12'
      ' packages Java 17 at most'
  )
  assert java.ImageProblem(needs_21, 'ubuntu2404') is None
  assert java.ImageProblem(java.Exactly('Cassandra 5.0.9', 17), 'debian12') is (
      None
  )
