#!/usr/bin/env bash
# npm run demo: the whole service on this machine with sample data, API on http://localhost:$PORT.
# Installs dependencies, starts PostgreSQL + Elasticsearch (scripts/stack.sh; skipped where
# DATABASE_URL / ELASTICSEARCH_URL are set), migrates, loads ~50,000 sample listings (idempotent:
# same seed => no change on a re-run), starts the indexer, the webhook dispatcher and the API,
# prints example requests, then stays in the foreground until Ctrl-C (which stops them; the stack keeps
# running: npm run stack:down stops it). DEMO_LISTINGS, DEMO_SEED, PORT, INDEX_PREFIX adjust it;
# DEMO_EXIT_AFTER_READY=1 exits once everything answers (for checks).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[demo] %s\n' "$*" >&2; }

if [ ! -x node_modules/.bin/tsx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing dependencies (npm install)"
  npm install --no-fund --no-audit >&2
fi

if [ -z "${DATABASE_URL:-}" ] || [ -z "${ELASTICSEARCH_URL:-}" ]; then
  say "starting the local stack (first run downloads Elasticsearch; later runs take seconds)"
  eval "$(bash scripts/stack.sh up | sed 's/^/export /')"
fi
export PORT="${PORT:-3000}" INDEX_PREFIX="${INDEX_PREFIX:-mp}"
say "DATABASE_URL=$DATABASE_URL"
say "ELASTICSEARCH_URL=$ELASTICSEARCH_URL"

say "migrating"
npx tsx scripts/migrate.ts >&2

say "loading ${DEMO_LISTINGS:-50000} sample listings (seed ${DEMO_SEED:-1})"
npx tsx scripts/sample.ts --listings "${DEMO_LISTINGS:-50000}" --seed "${DEMO_SEED:-1}" --load

mkdir -p .stack
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "starting the indexer (log: .stack/demo-indexer.log); it builds the index on first start"
# node --import tsx (not npx/tsx wrappers) so that $! is the process itself and Ctrl-C stops it.
INDEXER_METRICS_PORT="${INDEXER_METRICS_PORT:-9464}" node --import tsx indexer/main.ts > .stack/demo-indexer.log 2>&1 &
pids+=($!)

say "starting the webhook dispatcher (log: .stack/demo-webhooks.log)"
# The demo's webhook receivers are on this machine: let deliveries reach private addresses.
WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_METRICS_PORT="${WEBHOOK_METRICS_PORT:-9465}" \
  node --import tsx dispatcher/main.ts > .stack/demo-webhooks.log 2>&1 &
pids+=($!)

say "starting the API on http://localhost:$PORT (log: .stack/demo-api.log)"
node --import tsx src/main.ts > .stack/demo-api.log 2>&1 &
pids+=($!)

# Ready when the API answers and the index holds the sample: a landing search with results.
for i in $(seq 1 600); do
  if body=$(curl -fsS "http://localhost:$PORT/search?limit=1" 2>/dev/null) && [[ "$body" == *'"productId"'* ]]; then break; fi
  for p in "${pids[@]}"; do
    if ! kill -0 "$p" 2>/dev/null; then
      say "a process died; last log lines:"; tail -n 20 .stack/demo-indexer.log .stack/demo-webhooks.log .stack/demo-api.log >&2; exit 1
    fi
  done
  [ "$i" = 600 ] && { say "not ready after 600 s"; tail -n 20 .stack/demo-indexer.log .stack/demo-api.log >&2; exit 1; }
  sleep 1
done

product=$(curl -fsS "http://localhost:$PORT/search?keyword=bolt&limit=1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s).data.items[0];console.log(i?i.productId:1)})')
seller=$(psql "$DATABASE_URL" -tAc "SELECT seller_code FROM sellers WHERE seller_id = 1" 2>/dev/null || echo "")
key=""
[ -n "$seller" ] && key=$(npx tsx scripts/api-keys.ts issue --seller "$seller" --label demo 2>/dev/null | grep -o 'mp_[A-Za-z0-9_-]*' | head -1 || true)

cat <<MSG

The marketplace search service is up on http://localhost:$PORT (index alias ${INDEX_PREFIX}-market).
Try:
  curl -s 'http://localhost:$PORT/search?keyword=bolt&limit=3'
  curl -s 'http://localhost:$PORT/search?category=Magic:%20The%20Gathering&condition=Near%20Mint&condition=Unopened&sort=name_desc'
  curl -s 'http://localhost:$PORT/products/$product'
  curl -s -X POST 'http://localhost:$PORT/lines/lookup' -H 'Content-Type: application/json' -d '{"lines":[{"sellerId":1,"skuId":1}]}'
  curl -s 'http://localhost:$PORT/readyz'          API docs: http://localhost:$PORT/docs
MSG
if [ -n "$key" ]; then
cat <<MSG
Seller API (a fresh key for seller '$seller', shown once):
  curl -s 'http://localhost:$PORT/me' -H 'Authorization: Bearer $key'
  curl -s 'http://localhost:$PORT/listings?limit=2' -H 'Authorization: Bearer $key'
MSG
fi
echo "Indexer metrics: http://127.0.0.1:${INDEXER_METRICS_PORT:-9464}/metrics   Webhook metrics: http://127.0.0.1:${WEBHOOK_METRICS_PORT:-9465}/metrics"
echo "Ctrl-C stops the API, the indexer and the webhook dispatcher (in-flight deliveries finish first)."

[ "${DEMO_EXIT_AFTER_READY:-0}" = 1 ] && exit 0
wait
