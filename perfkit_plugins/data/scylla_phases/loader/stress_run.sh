#!/bin/sh
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

# Runs one loader's cassandra-stress for the scylla_phases benchmark.
#
#   setsid sh stress_run.sh STEM CPU_INTERVAL_S START_DELAY_S COMMAND [ARG...]
#
# COMMAND may start with NAME=VALUE words (run through env). Every file of
# the run is STEM plus a suffix:
#
#   .pgid   the run's process group: this script leads a group of its own
#           (setsid) whose every process carries SCYLLA_PHASES_GROUP=<group>
#           in its environment, this script included, before the file is
#           written; the benchmark stops a run by its group, and only while
#           a member carries the variable (a recycled id is left alone).
#   .cpu    a /proc/stat sample before the run, every CPU_INTERVAL_S while
#           it runs and after it, each after the loader's `date +%s.%N`.
#   .times  `start <date>` just before COMMAND, then `end <date> exit <code>`
#           and `free <KiB>` (space left in the output directory: a full
#           disk cuts files silently).
#   .out    COMMAND's stdout and stderr.
#   .log    COMMAND's report (cassandra-stress `-log file=`).
#   .jvm    the tool JVM's stop log, when its options ask for one (JVM_OPTS
#           -Xlog); empty otherwise.
#
# cassandra-stress ends its report with END once every result is written,
# then spends about two seconds closing its driver (netty's quiet period)
# before its JVM exits. The run ends at END: the script stops the tool
# there and records exit code 0, the code the tool exits with after END.
#
# START_DELAY_S seconds pass before the first sample (readers that join a
# step after its writers). Exits with COMMAND's exit code (0 once its report
# ends with END), or 1 when the output directory cannot be prepared.

if [ "${SCYLLA_PHASES_GROUP:-}" != "$$" ]; then
  SCYLLA_PHASES_GROUP=$$
  export SCYLLA_PHASES_GROUP
  exec sh "$0" "$@"
fi

set -u
stem=$1
interval=$2
delay=$3
shift 3

directory=$(dirname "$stem")
mkdir -p "$directory" &&
  rm -f "$stem.out" "$stem.log" "$stem.hdr" "$stem.times" "$stem.cpu" &&
  : >"$stem.jvm" &&
  echo "$$" >"$stem.pgid" || exit 1

sample() {
  echo "$(date +%s.%N) $(head -n 1 /proc/stat)"
}

if [ "$delay" != 0 ]; then
  sleep "$delay"
fi
sample >"$stem.cpu"
(while sleep "$interval"; do sample; done) >>"$stem.cpu" 2>&1 &
sampler=$!
echo "start $(date +%s.%N)" >"$stem.times"
env "$@" >"$stem.out" 2>&1 &
tool=$!
tail -n +1 -F --pid="$tool" "$stem.log" 2>/dev/null | {
  grep -q -x -m 1 END && {
    pkill -KILL -P "$tool"
    kill -KILL "$tool"
  }
} 2>/dev/null &
# (A shell reports a job killed by a signal on stderr: not an error here.)
wait "$tool" 2>/dev/null
status=$?
if [ "$(tail -n 1 "$stem.log" 2>/dev/null)" = END ]; then
  status=0
fi
{
  kill "$sampler"
  wait "$sampler"
} 2>/dev/null
sample >>"$stem.cpu"
echo "end $(date +%s.%N) exit $status" >>"$stem.times"
echo "free $(df -Pk "$directory" | awk 'NR == 2 {print $4}')" >>"$stem.times"
exit "$status"
