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
(PKB's RunThreaded in a run); tests of that layer hand in this one.
"""

import concurrent.futures


def RunThreaded(target, params):
  """Calls target once per param in its own thread; returns the results.

  Args:
    target: the function to call.
    params: one per call, either a VM-like single argument or, as PKB's
      RunThreaded accepts, an ((args), {kwargs}) pair.

  Returns:
    The results, in the order of params; the first exception is raised.
  """
  calls = [
      p
      if isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], dict)
      else ((p,), {})
      for p in params
  ]
  with concurrent.futures.ThreadPoolExecutor(max(1, len(calls))) as pool:
    futures = [pool.submit(target, *args, **kwargs) for args, kwargs in calls]
    return [future.result() for future in futures]
