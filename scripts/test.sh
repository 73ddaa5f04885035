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

echo "[test] type-checking (npm run build)" >&2
if ! npm run -s build; then
  echo "build: 0 passed, 1 failed"
  exit 1
fi

echo "[test] linting (npm run lint)" >&2
if ! npm run -s lint; then
  echo "lint: 0 passed, 1 failed"
  exit 1
fi

mkdir -p .stack
report=.stack/vitest-report.json
rm -f "$report"
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
status=$?

if [ -f "$report" ]; then
  node -e '
    const r = require(process.argv[1]);
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
  ' "$PWD/$report"
else
  echo "0 passed, 1 failed"
  [ $status -eq 0 ] && status=1
fi
exit $status
