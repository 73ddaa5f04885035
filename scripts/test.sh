#!/usr/bin/env bash
# The README's test command (npm test). On a fresh clone it installs dependencies; the
# integration tests' global setup starts the real PostgreSQL and Elasticsearch it needs
# (scripts/stack.sh) unless DATABASE_URL / ELASTICSEARCH_URL are set or Docker answers.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/vitest ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm ci installs exactly the locked tree and never rewrites package-lock.json (npm install
  # would, adding or dropping other platforms' optional entries), so a fresh clone stays clean.
  echo "[test] installing dependencies (npm ci)" >&2
  npm ci --no-fund --no-audit >&2 || exit 1
fi

# The storefront's browser tests drive Debian's Chromium through playwright-core (Playwright's own
# browser download cannot reach its host from these machines); installed once, like the servers.
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "[test] installing Chromium (apt-get install chromium)" >&2
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } </dev/null >&2; then
      echo "chromium: 0 passed, 1 failed"
      exit 1
    fi
  else
    echo "[test] no Chromium at $chromium and not root to install it: the storefront tests will fail (apt-get install chromium, or set CHROMIUM_PATH)" >&2
  fi
fi

# Types and lint run beside the tests, one after the other: on a busy two-core machine they took
# minutes of wall time on little CPU (tsc 3.7 min on 16 CPU-seconds), while most of the tests'
# time is waiting on servers. Their output is printed after the tests; any failure fails the run.
mkdir -p .stack
checks_log=.stack/test-checks.log
checks_failed=.stack/test-checks.failed
rm -f "$checks_log" "$checks_failed"
(
  echo "[test] type-checking (npm run build)"
  npm run -s build || echo build >>"$checks_failed"
  echo "[test] linting (npm run lint)"
  npm run -s lint || echo lint >>"$checks_failed"
) >"$checks_log" 2>&1 &
checks=$!

report=.stack/vitest-report.json
rm -f "$report"
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
status=$?

wait "$checks"
cat "$checks_log" >&2

if [ -f "$report" ]; then
  node -e '
    const r = require(process.argv[1]);
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
  ' "$PWD/$report"
else
  echo "0 passed, 1 failed"
  [ $status -eq 0 ] && status=1
fi
if [ -f "$checks_failed" ]; then
  for check in $(cat "$checks_failed"); do echo "$check: 0 passed, 1 failed"; done
  status=1
fi
exit $status
