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

# Samples one server's load during a stress step of the scylla_phases
# benchmark, from the step's start until the benchmark says stop.
#
#   setsid sh server_sample.sh STEM INTERVAL_S DATA_DIR [URL EVERY PATTERN]
#
# At once, then every INTERVAL_S seconds (a whole number), it appends to
# STEM.host, each line after the server's `date +%s.%N`:
#
#   <date> cpu  ...            the first line of /proc/stat
#   <date> disk <line>         the /proc/diskstats line of the device that
#                              holds DATA_DIR (none when it is not a disk)
#   <date> net <rx> <tx>       bytes received and sent since boot, every
#                              interface but lo together (/proc/net/dev)
#
# after a first line `# device <name> <source>`: the device's name in
# /proc/diskstats and what df names as DATA_DIR's source. With URL (the
# database's metrics page), the first sample, every EVERY-th and the last
# also append to STEM.prom a line `# scylla_phases scrape <date>` and the
# lines of the page that match PATTERN (grep -E), or the line
# `# scylla_phases scrape <date> failed` when the page cannot be read.
#
# It stops once STEM.stop exists (within a second), after a last sample,
# and then writes STEM.done.

set -u
stem=$1
interval=$2
data=$3
url=${4:-}
every=${5:-1}
pattern=${6:-}

mkdir -p "$(dirname "$stem")" &&
  rm -f "$stem.host" "$stem.prom" "$stem.page" "$stem.stop" "$stem.done" ||
  exit 1

source=$(df -P "$data" 2>/dev/null | awk 'NR == 2 {print $1}')
device=$(basename "$(readlink -f "$source" 2>/dev/null)" 2>/dev/null)
echo "# device ${device:--} ${source:--}" >"$stem.host"

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -sf --max-time 5 -o "$stem.page" "$url"
  else
    python3 -c '
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as page:
  open(sys.argv[2], "wb").write(page.read())
' "$url" "$stem.page" 2>/dev/null
  fi
}

scrape() {
  if fetch; then
    echo "# scylla_phases scrape $1"
    grep -E "$pattern" "$stem.page"
  else
    echo "# scylla_phases scrape $1 failed"
  fi >>"$stem.prom"
  rm -f "$stem.page"
}

sample() {
  now=$(date +%s.%N)
  {
    echo "$now $(head -n 1 /proc/stat)"
    awk -v now="$now" -v device="$device" \
      '$3 == device {print now, "disk", $0}' /proc/diskstats
    awk -v now="$now" 'NR > 2 {
      sub(/:/, " ")
      if ($1 != "lo") {rx += $2; tx += $10}
    } END {printf "%s net %.0f %.0f\n", now, rx, tx}' /proc/net/dev
  } >>"$stem.host"
  if [ -n "$url" ] && { [ $((count % every)) -eq 0 ] || [ "$1" = last ]; }
  then
    scrape "$now"
  fi
  count=$((count + 1))
}

count=0
while [ ! -e "$stem.stop" ]; do
  sample next
  waited=0
  while [ "$waited" -lt "$interval" ] && [ ! -e "$stem.stop" ]; do
    sleep 1
    waited=$((waited + 1))
  done
done
sample last
echo finished >"$stem.done"
