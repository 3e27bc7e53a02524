"""Installs a binary tarball (Apache Cassandra, cassandra-stress) on a VM.

The tarball is downloaded with curl and unpacked, its top directory stripped,
into `<root>/<dir_name>`, through a scratch directory that is renamed at the
end: a failed download or extraction never leaves a half-filled install
directory, and an install directory that exists is not fetched again.
"""

import posixpath
import shlex

# PKB's linux_packages.INSTALL_DIR, created world-writable on every VM.
INSTALL_ROOT = '/opt/pkb'


def InstallDir(dir_name, root=INSTALL_ROOT):
  """The directory a tarball is unpacked into."""
  return posixpath.join(root, dir_name)


def FetchCommand(url, target_dir):
  """The shell command that downloads `url` and unpacks it into target_dir.

  Args:
    url: a .tar.gz URL.
    target_dir: final directory; it receives the tarball's top directory's
      contents.

  Returns:
    A POSIX shell command; it does nothing when target_dir exists.
  """
  target = shlex.quote(target_dir)
  partial = shlex.quote(target_dir + '.partial')
  archive = shlex.quote(target_dir + '.tar.gz')
  return (
      f'[ -d {target} ] || {{ '
      f'curl -fsSL --retry 5 -o {archive} {shlex.quote(url)}'
      f' && rm -rf {partial} && mkdir -p {partial}'
      f' && tar -xzf {archive} -C {partial} --strip-components=1'
      f' && mv {partial} {target} && rm -f {archive}; }}'
  )


def Fetch(vm, url, dir_name, root=INSTALL_ROOT):
  """Downloads and unpacks `url` on `vm`; returns the install directory."""
  target_dir = InstallDir(dir_name, root)
  vm.RemoteCommand(FetchCommand(url, target_dir))
  return target_dir
