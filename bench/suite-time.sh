#!/usr/bin/env bash
# The test suite's wall time (vitest alone: unit and integration, what `npm test` runs after
# installs, types and lint), with how long each file held a worker and the machine's load beside it.
#
#   npm run bench:suite                      this tree, once
#   bash bench/suite-time.sh DIR [LABEL]     the suite of another checkout of this repository (e.g.
#                                            a worktree of an older commit), timed the same way
#
# Run two trees at the same time (or alternately, several runs each) to compare them on a shared
# machine: only ratios measured side by side mean anything there. Needs DATABASE_URL and
# ELASTICSEARCH_URL (the shared servers) exported, as the integration tests do. Every run is from
# an empty vitest cache, as on a fresh clone. Results: .stack/suite-time/<label>-<time>.{log,json}.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(cd "${1:-$here}" && pwd)"
label="${2:-$(basename "$dir")}"
out="$here/.stack/suite-time"
mkdir -p "$out"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
log="$out/$label-$stamp.log"
json="$out/$label-$stamp.json"

cd "$dir"
rm -rf node_modules/.vite/vitest
{
  echo "[suite-time] $label: $dir at $(git rev-parse --short HEAD), started $(date -u +%H:%M:%S)"
  echo "[suite-time] load before: $(uptime)"
} | tee "$log"
# The machine's busy CPU-seconds over the run (every process, from /proc/stat): on two cores a
# run whose busy time is near twice its wall time is CPU-bound, and only less work makes it shorter.
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
b0=$(busy)
t0=$(date +%s.%N)
SUITE_TIMES_FILE="$json" npx vitest run --reporter=dot --reporter="$here/bench/suite-reporter.ts" >>"$log" 2>&1
status=$?
t1=$(date +%s.%N)
b1=$(busy)
{
  tail -n 40 "$log" | grep -E '^\s+(Test Files|Tests)\s' || true
  echo "[suite-time] load after: $(uptime)"
  echo "[suite-time] $label: vitest exit $status, $(echo "$t1 - $t0" | bc) s wall (process start to exit), ended $(date -u +%H:%M:%S)"
  echo "[suite-time] machine busy $(((b1 - b0) / $(getconf CLK_TCK))) CPU-seconds of $(echo "($t1 - $t0) * $(nproc)" | bc | cut -d. -f1) ($(nproc) cores)"
} | tee -a "$log"
grep -A 30 '^\[suite-time\] vitest wall' "$log" | head -n 16
echo "[suite-time] full log $log, per-file times $json"
exit $status
