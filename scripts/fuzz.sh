#!/usr/bin/env bash
# npm run fuzz: schema-driven fuzzing of the HTTP API with Schemathesis (from PyPI, installed into
# .stack/fuzz-venv on first use) against /openapi.json, for a bounded time. Fails on any 5xx, any
# response outside the envelope (scripts/fuzz/hooks.py) and any response that does not match the
# OpenAPI document (status code, Content-Type, headers, response schema).
#
# Two ways to run it:
#   FUZZ_BASE_URL=http://host:port FUZZ_SELLER_KEY=mp_... npm run fuzz
#       targets a running API; its rate limits must be high enough for the run.
#   npm run fuzz            (with DATABASE_URL / ELASTICSEARCH_URL of a PostgreSQL and an Elasticsearch)
#       builds a throwaway environment: a fresh database on DATABASE_URL's server (migrated, loaded
#       with FUZZ_FIXTURE), a fresh index prefix (reindexed), a seller key, and the API on a free
#       port with rate limits out of the way; removes the database and indices afterwards
#       (FUZZ_KEEP=1 keeps them). Never touches the configured database or index prefix.
#
# Settings: FUZZ_SECONDS (default 300: Schemathesis' --max-time), FUZZ_MAX_EXAMPLES (per operation, default 200),
# FUZZ_SELLER (seller code for the key, default maple), FUZZ_FIXTURE (default
# test/fixtures/example.json), FUZZ_WORKERS (default 2), FUZZ_REPORT (JUnit XML path, default
# .stack/fuzz/junit.xml). Extra arguments go to `schemathesis run`.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_BUDGET=${FUZZ_SECONDS:-300}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-200}
WORKERS=${FUZZ_WORKERS:-2}
OUT=.stack/fuzz
REPORT=${FUZZ_REPORT:-$OUT/junit.xml}
VENV=.stack/fuzz-venv
mkdir -p "$OUT"

log() { echo "[fuzz] $*" >&2; }

if [ ! -x "$VENV/bin/schemathesis" ]; then
  log "installing Schemathesis into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet 'schemathesis>=4.1,<5'
fi

cleanup_cmds=()
cleanup() {
  local status=$?
  local _n
  for ((_n=${#cleanup_cmds[@]}-1; _n>=0; _n--)); do eval "${cleanup_cmds[$_n]}" || true; done
  exit $status
}
trap cleanup EXIT

if [ -n "${FUZZ_BASE_URL:-}" ]; then
  BASE=$FUZZ_BASE_URL
  KEY=${FUZZ_SELLER_KEY:?FUZZ_SELLER_KEY is needed with FUZZ_BASE_URL}
else
  : "${DATABASE_URL:?set DATABASE_URL (a server where a throwaway database may be created) or FUZZ_BASE_URL}"
  : "${ELASTICSEARCH_URL:?set ELASTICSEARCH_URL or FUZZ_BASE_URL}"
  RUN="fuzz_$(date +%s)_$$"
  SERVER_URL=$DATABASE_URL
  DB_URL=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.toString())' "$SERVER_URL" "$RUN")
  log "throwaway database $RUN and index prefix $RUN"
  node -e '
    const pg = require("pg");
    const c = new pg.Client({ connectionString: process.argv[1] });
    c.connect().then(() => c.query(`CREATE DATABASE ${process.argv[2]}`)).then(() => c.end()).catch((e) => { console.error(e.message); process.exit(1); });
  ' "$SERVER_URL" "$RUN"
  if [ -z "${FUZZ_KEEP:-}" ]; then
    cleanup_cmds+=("node -e 'const pg = require(\"pg\"); const c = new pg.Client({ connectionString: process.argv[1] }); c.connect().then(() => c.query(\"DROP DATABASE IF EXISTS $RUN WITH (FORCE)\")).then(() => c.end());' '$SERVER_URL'")
    # By name: wildcard deletes are refused by default (action.destructive_requires_name).
    cleanup_cmds+=("for _ix in \$(curl -s '$ELASTICSEARCH_URL/_cat/indices/$RUN-market-v*?h=index'); do curl -s -X DELETE '$ELASTICSEARCH_URL/'\$_ix >/dev/null; done")
  fi
  export DATABASE_URL=$DB_URL INDEX_PREFIX=$RUN LOG_LEVEL=${FUZZ_LOG_LEVEL:-info}
  npx tsx scripts/migrate.ts >&2
  npx tsx scripts/fixture-load.ts "${FUZZ_FIXTURE:-test/fixtures/example.json}" >&2
  npx tsx scripts/reindex.ts >"$OUT/reindex.log" 2>&1
  KEY=$(npx tsx scripts/api-keys.ts issue --seller "${FUZZ_SELLER:-maple}" --label fuzz 2>/dev/null)
  PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  # Limits out of the way: the run itself would otherwise spend every budget in seconds.
  RATE_LIMIT_SELLER_PER_MIN=100000000 RATE_LIMIT_PUBLIC_PER_MIN=100000000 RATE_LIMIT_SELLER_ADDRESS_PER_MIN=100000000 \
  RATE_LIMIT_AUTH_FAILURES_PER_MIN=100000000 SELLER_MAX_CONCURRENT_WRITES=1000 PORT=$PORT \
    node --import tsx src/main.ts >"$OUT/api.log" 2>&1 &  # one process, so the kill below stops it
  API_PID=$!
  cleanup_cmds+=("kill $API_PID 2>/dev/null; wait $API_PID 2>/dev/null")
  BASE=http://127.0.0.1:$PORT
  for _ in $(seq 1 100); do
    curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "$BASE/healthz" >/dev/null || { log "the API did not start; see $OUT/api.log"; exit 1; }
  log "API on $BASE (log: $OUT/api.log)"
fi

log "schemathesis against $BASE/openapi.json for at most ${SECONDS_BUDGET}s, ${MAX_EXAMPLES} examples per operation"
set +e
# --max-time bounds the run; timeout is only a guard against a hung run.
SCHEMATHESIS_HOOKS=hooks PYTHONPATH=${FUZZ_HOOKS_DIR:-scripts/fuzz} timeout --signal=INT "$((SECONDS_BUDGET + 120))" \
  "$VENV/bin/schemathesis" run "$BASE/openapi.json" \
    --url "$BASE" \
    --header "Authorization: Bearer $KEY" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,envelope \
    --max-time "$SECONDS_BUDGET" \
    --max-examples "$MAX_EXAMPLES" \
    --workers "$WORKERS" \
    --seed "${FUZZ_SEED:-15}" \
    --generation-database :memory: \
    --report junit --report-junit-path "$REPORT" \
    "$@" 2>&1 | tee "$OUT/schemathesis.log"
status=${PIPESTATUS[0]}
set -e
if [ -z "${FUZZ_BASE_URL:-}" ]; then
  # Every request the API answered, by status (from its request log).
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter((l) => l.startsWith("{"));
    const by = {};
    for (const l of lines) { try { const j = JSON.parse(l); if (j.res) by[j.res.statusCode] = (by[j.res.statusCode] ?? 0) + 1; } catch {} }
    console.error("[fuzz] API answers by status (from the request log at LOG_LEVEL):", JSON.stringify(by));
  ' "$OUT/api.log" || true
fi
if [ "$status" = 124 ]; then log "hung past ${SECONDS_BUDGET}s + 120s and was stopped"; fi
exit "$status"
