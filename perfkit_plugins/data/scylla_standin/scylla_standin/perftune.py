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

"""`perftune.py`: seastar's own, less what a machine on one host cannot tune.

seastar's perftune.py runs for real (in scripts/libexec/ as
perftune-seastar.py; install.sh's wrapper, scripts/perftune.py, runs this
beside it with the package's Python), on the machine's CPUs and its
options. Two of its
tuners cannot run on a machine made of namespaces on one host, and are
left out, said on stderr, when every device they would tune is such:

* disks on a loop device: perftune looks for the IRQs of the disk's
  controller from the disk's place in sysfs (perftune.py:1700-1745,
  DiskPerfTuner.__learn_irqs), and a loop device's,
  /sys/devices/virtual/block/loopN, has none (it fails reading
  /sys/devices/virtual/modalias, :238). Every ScyllaDB call asks for disk
  tuning (scylla_util.py:259-261 perftune_base_command);
* a NIC without a device (a veth): perftune refuses it ("Not supported
  virtual device", :855-863; tunable means /sys/class/net/NIC/device
  exists, :951-952, or lower devices that are, :975-1010).

What is left runs as given. A query (--get-cpu-mask, --get-irq-cpu-mask,
--dump-options-file) left with no tuner asks the `system` tuner instead,
which computes the same masks from the CPU topology and writes nothing
when queried; a dumped options file keeps the tuners asked for, so the
tuning run that reads it leaves the same ones out. A tuning run left with
no tuner does nothing and exits 0.
"""

import glob
import os
import subprocess
import sys
import tempfile

import yaml

# Linux's block major of loop devices (Documentation/admin-guide/devices.txt).
LOOP_MAJOR = 7
_DISK_ARGUMENTS = ('--dir', '--dev')
_QUERIES = ('--get-cpu-mask', '--get-irq-cpu-mask', '--dump-options-file')
_DUMP = '--dump-options-file'
# seastar's perftune.py, beside this one (scylla_build.SEASTAR_PERFTUNE).
SEASTAR = 'perftune-seastar.py'


def _OnLoopDevice(path):
  """Whether a directory (or device) lives on a loop device; None if absent.

  perftune.py skips a directory that does not exist (:1660-1662).
  """
  try:
    st = os.stat(path)
  except OSError:
    return None
  device = st.st_rdev if path.startswith('/dev/') else st.st_dev
  return os.major(device) == LOOP_MAJOR


def _TunableNic(nic):
  """perftune's test: a device of its own, or lower devices (:951-1010)."""
  base = f'/sys/class/net/{nic}'
  return os.path.exists(f'{base}/device') or bool(glob.glob(f'{base}/lower_*'))


def _AllOnLoopDevices(targets, loop):
  """Whether the targets that exist are all on loop devices (one at least)."""
  found = [loop(t) for t in targets]
  present = [f for f in found if f is not None]
  return bool(present) and all(present)


def _Values(argv, flags):
  return [value for flag, value in zip(argv, argv[1:]) if flag in flags]


def _Without(argv, tuner, value_flags):
  """argv less `--tune <tuner>` and the flags (with their values) named."""
  kept = []
  skip = False
  for flag, value in zip(argv, argv[1:] + ['']):
    if skip:
      skip = False
      continue
    if (flag == '--tune' and value == tuner) or flag in value_flags:
      skip = True
      continue
    kept.append(flag)
  return kept


def _LeftOut(tuners, targets, nics, loop, tunable):
  """The tuners of `tuners` that cannot run here, with what they would tune."""
  left_out = {}
  if 'disks' in tuners and _AllOnLoopDevices(targets, loop):
    left_out['disks'] = targets
  if 'net' in tuners and nics and not any(tunable(n) for n in nics):
    left_out['net'] = nics
  return left_out


def Filtered(argv, loop=_OnLoopDevice, tunable=_TunableNic):
  """What to run perftune with.

  Args:
    argv: perftune.py's arguments (no program name).
    loop: whether a path is on a loop device (None: no such path).
    tunable: whether perftune can tune a NIC.

  Returns:
    (arguments, or None when nothing is left to run; {tuner: what it would
    have tuned} of the tuners left out; the tuners a dumped options file
    must name instead of `system`, or ()).
  """
  options_path = next(
      (v for f, v in zip(argv, argv[1:]) if f == '--options-file'), None
  )
  if options_path:
    with open(options_path) as f:
      options = yaml.safe_load(f) or {}
    tuners = list(options.get('tune', []))
    targets = list(options.get('dir', [])) + list(options.get('dev', []))
    left_out = _LeftOut(
        tuners, targets, list(options.get('nic', [])), loop, tunable
    )
    if not left_out:
      return argv, {}, ()
    options['tune'] = [t for t in tuners if t not in left_out]
    if 'disks' in left_out:
      options.pop('dir', None)
      options.pop('dev', None)
    if not options['tune']:
      return None, left_out, ()
    with tempfile.NamedTemporaryFile(
        'w', prefix='perftune-', suffix='.yaml', delete=False
    ) as f:
      yaml.safe_dump(options, f)
    return [f.name if a == options_path else a for a in argv], left_out, ()
  tuners = _Values(argv, ('--tune',))
  left_out = _LeftOut(
      tuners,
      _Values(argv, _DISK_ARGUMENTS),
      _Values(argv, ('--nic',)),
      loop,
      tunable,
  )
  args = list(argv)
  if 'disks' in left_out:
    args = _Without(args, 'disks', _DISK_ARGUMENTS)
  if 'net' in left_out:
    args = _Without(args, 'net', ())
  kept = [t for t in tuners if t not in left_out]
  if left_out and not kept:
    if not any(q in args for q in _QUERIES):
      return None, left_out, ()
    return args + ['--tune', 'system'], left_out, tuple(tuners)
  return args, left_out, ()


def _Run(python, real, args, env, dumped_tuners):
  """Runs perftune; a dumped options file names the tuners asked for."""
  if not dumped_tuners or _DUMP not in args:
    os.execve(python, [python, real, *args], env)
  result = subprocess.run(
      [python, real, *args], env=env, stdout=subprocess.PIPE, text=True
  )
  if result.returncode:
    return result.returncode
  options = yaml.safe_load(result.stdout)
  options['tune'] = list(dumped_tuners)
  sys.stdout.write(yaml.safe_dump(options, default_flow_style=False))
  return 0


def Main(argv):
  """Runs seastar's perftune.py (beside this one) on the filtered options.

  In the environment install.sh's wrapper set (install.sh:182-196).
  """
  real = os.path.join(os.path.dirname(os.path.realpath(argv[0])), SEASTAR)
  args, left_out, dumped_tuners = Filtered(argv[1:])
  for tuner, what in left_out.items():
    print(
        f'perftune stand-in: no {tuner} tuning of {", ".join(what)} here'
        ' (a loop device has no controller IRQs, a veth no device)',
        file=sys.stderr,
    )
  if args is None:
    return 0
  return _Run(sys.executable, real, args, dict(os.environ), dumped_tuners)
