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

"""Gives a tool the Java it needs on a VM (see core/software/java.py).

A fitting JDK that is installed is used as it is; otherwise the OS's package
of one is installed, after asking the package manager whether it has it
(PKB's `vm.HasPackage`), so an image without one fails at once instead of
retrying an install that cannot succeed. The JDK is linked as
`<install dir>/jdk`; the tool's commands run with JAVA_HOME set there
(`EnvPrefix`).
"""

import shlex

from perfkit_plugins.core.software import java


def EnvPrefix(install_dir):
  """`JAVA_HOME=<install dir>/jdk`, to put before the tool's commands."""
  return f'JAVA_HOME={shlex.quote(java.JavaHome(install_dir))}'


def LinkCommand(java_home, install_dir):
  return (
      f'ln -sfn {shlex.quote(java_home)}'
      f' {shlex.quote(java.JavaHome(install_dir))}'
  )


def Installed(vm):
  """The JDKs installed on a VM (core.java.InstalledJava records)."""
  out, _ = vm.RemoteCommand(java.LIST_COMMAND)
  return java.ParseList(out)


def Ensure(vm, requirement, package_manager, install_dir):
  """Links a fitting JDK as `<install_dir>/jdk`, installing one if needed.

  Args:
    vm: the VM (RemoteCommand, HasPackage, InstallPackages).
    requirement: core.java.JavaRequirement.
    package_manager: 'apt' or 'yum'.
    install_dir: the tool's install directory (it exists).

  Returns:
    The core.java.InstalledJava used.

  Raises:
    core.java.JavaError: none installed fits and the OS packages none.
  """
  installed = Installed(vm)
  chosen = java.ChooseInstalled(requirement, installed)
  probed = []
  for major in requirement.preferred if chosen is None else ():
    package = java.PackageName(major, package_manager)
    probed.append(package)
    if vm.HasPackage(package):
      vm.InstallPackages(package)
      chosen = java.ChooseInstalled(
          java.Exactly(requirement.who, major), Installed(vm)
      )
      break
  if chosen is None:
    raise java.Unavailable(
        requirement,
        vm.name,
        getattr(vm, 'OS_TYPE', 'unknown OS'),
        installed,
        probed,
    )
  vm.RemoteCommand(LinkCommand(chosen.home, install_dir))
  return chosen
