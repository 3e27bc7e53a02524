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

"""PKB's background_tasks.RunThreaded contract, for tests without PKB.

The operations layer takes a way to run things in parallel from the shell
(PKB's RunThreaded in a run); tests of that layer hand in this one. It
refuses what PKB's refuses and, like PKB's, runs at most
max_concurrent_threads calls at once (200 unless given), so a caller that
needs every call running together must say so.
"""

import concurrent.futures
import threading

# PKB's background_tasks.MAX_CONCURRENT_THREADS: pkb.py's default cap.
MAX_CONCURRENT_THREADS = 200


def RunThreaded(target, thread_params, max_concurrent_threads=None):
  """Calls target once per param, in threads; returns the results in order.

  Args:
    target: the function to call.
    thread_params: a list; when its first item is a tuple, every item is
      an ((args), {kwargs}) pair, else each item is the single argument.
    max_concurrent_threads: most calls running at once.

  Returns:
    The results, in the order of thread_params; the first exception is
    raised.

  Raises:
    ValueError: thread_params is not a list, or its tuples are not pairs.
  """
  if not isinstance(thread_params, list):
    raise ValueError('Param "thread_params" must be a list')
  if not thread_params:
    return []
  if not isinstance(thread_params[0], tuple):
    calls = [((param,), {}) for param in thread_params]
  elif not isinstance(thread_params[0][0], tuple) or not isinstance(
      thread_params[0][1], dict
  ):
    raise ValueError('If Param is a tuple, the tuple must be (tuple, dict)')
  else:
    calls = thread_params
  workers = min(len(calls), max_concurrent_threads or MAX_CONCURRENT_THREADS)
  with concurrent.futures.ThreadPoolExecutor(workers) as pool:
    futures = [pool.submit(target, *args, **kwargs) for args, kwargs in calls]
    return [future.result() for future in futures]


class Rendezvous:
  """Replies of fake VMs that return only when `parties` calls wait at once.

  A test that makes every VM's reply of one command a Rendezvous proves that
  the code under test asks all the VMs together: asked one after the other,
  the first call waits alone until timeout_s and raises
  threading.BrokenBarrierError (and so do all later ones), whatever the
  machine's speed.
  """

  def __init__(self, parties, timeout_s=30):
    self._barrier = threading.Barrier(parties, timeout=timeout_s)

  def Reply(self, stdout):
    """A FakeVm.Reply stdout callable: waits for the others, then stdout."""

    def Answer(command):
      self._barrier.wait()
      return stdout(command) if callable(stdout) else stdout

    return Answer
