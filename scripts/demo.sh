#!/usr/bin/env bash
# npm run demo: the whole service on this machine with sample data, API on http://localhost:$PORT.
# Installs dependencies, starts PostgreSQL + Elasticsearch (scripts/stack.sh; skipped where
# DATABASE_URL / ELASTICSEARCH_URL are set), migrates, loads ~50,000 sample listings (idempotent:
# same seed => no change on a re-run) and ~2,000 sample orders (entered through checkout, some
# accepted, shipped, delivered or cancelled through the seller API's operations; same seed => the
# same orders, nothing changes on a re-run), starts the indexer, the webhook dispatcher and the API
# (which also serves the storefront page at /), prints the storefront's URL and example requests,
# then stays in the foreground until Ctrl-C (which stops them; the stack keeps running: npm run
# stack:down stops it). DEMO_LISTINGS, DEMO_ORDERS (0: none), DEMO_SEED, PORT,
# INDEX_PREFIX adjust it; DEMO_EXIT_AFTER_READY=1 exits once everything answers (for checks).
# No local webhook receiver: endpoints are part of a seller's record (the sample's or a fixture's,
# no API sets them), so pointing seller 1 at one would mean rewriting that record after every
# sample load, and an order's event is routed when it is written, before the receiver exists.
# Sample sellers' endpoints are https://hooks.example/... (unreachable here): their events retry and
# end `failed`, visible in the dispatcher's log and metrics; `npm run webhooks:redeliver` re-queues them.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[demo] %s\n' "$*" >&2; }

if [ ! -x node_modules/.bin/tsx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing dependencies (npm ci: the locked tree, package-lock.json left as it is)"
  npm ci --no-fund --no-audit >&2
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

orders="${DEMO_ORDERS:-2000}"
say "loading ${DEMO_LISTINGS:-50000} sample listings and $orders orders (seed ${DEMO_SEED:-1})"
npx tsx scripts/sample.ts --listings "${DEMO_LISTINGS:-50000}" --seed "${DEMO_SEED:-1}" --orders "$orders" --load

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
INDEXER_METRICS_PORT="${INDEXER_METRICS_PORT:-9464}" node --max-semi-space-size=64 --import tsx indexer/main.ts > .stack/demo-indexer.log 2>&1 &
pids+=($!)

say "starting the webhook dispatcher (log: .stack/demo-webhooks.log)"
# The demo's webhook receivers are on this machine: let deliveries reach private addresses.
WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_METRICS_PORT="${WEBHOOK_METRICS_PORT:-9465}" \
  node --import tsx dispatcher/main.ts > .stack/demo-webhooks.log 2>&1 &
pids+=($!)

say "starting the API on http://localhost:$PORT (log: .stack/demo-api.log)"
node --max-old-space-size="${API_MAX_OLD_SPACE_MB:-256}" --import tsx src/main.ts > .stack/demo-api.log 2>&1 &
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
Storefront (search, product pages, cart; open it in a browser): http://localhost:$PORT/
Try:
  curl -s 'http://localhost:$PORT/search?keyword=bolt&limit=3'
  curl -s 'http://localhost:$PORT/search/suggest?q=lightnin%20bo&limit=5'   (names as people type, typos forgiven, with /search totals)
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
  curl -s 'http://localhost:$PORT/orders?limit=2' -H 'Authorization: Bearer $key'
MSG
  # Example orders of seller 1 (the API has no order search): any one, a created one to accept, a
  # created one with two or more units to cancel in part, an accepted tracked one to ship.
  pick() { psql "$DATABASE_URL" -tAc "$1" 2>/dev/null | head -1 || true; }
  any=$(pick "SELECT order_id FROM orders WHERE seller_id = 1 ORDER BY created_at DESC LIMIT 1")
  to_accept=$(pick "SELECT order_id FROM orders WHERE seller_id = 1 AND status = 'created' ORDER BY created_at LIMIT 1")
  to_cancel=$(pick "SELECT o.order_id || ' ' || min(l.sku_id) FROM orders o JOIN order_lines l USING (order_id) WHERE o.seller_id = 1 AND o.status = 'created' AND o.order_id <> '$to_accept' GROUP BY o.order_id HAVING sum(l.quantity) > 1 ORDER BY o.order_id LIMIT 1")
  to_ship=$(pick "SELECT order_id FROM orders WHERE seller_id = 1 AND status = 'accepted' AND shipping_tracked ORDER BY created_at LIMIT 1")
  auth="-H 'Authorization: Bearer $key'"
  json="-H 'Content-Type: application/json'"
  [ -n "$any" ] && echo "  curl -s 'http://localhost:$PORT/orders/$any' $auth"
  [ -n "$to_accept" ] && echo "  curl -s -X PATCH 'http://localhost:$PORT/orders/$to_accept/fulfillment' $auth $json -d '{\"status\":\"accepted\"}'"
  [ -n "$to_ship" ] && echo "  curl -s -X PATCH 'http://localhost:$PORT/orders/$to_ship/fulfillment' $auth $json -d '{\"status\":\"shipped\",\"trackingCompany\":\"Canada Post\",\"trackingNumber\":\"7023210039414604\"}'"
  if [ -n "$to_cancel" ]; then
    echo "  curl -s -X POST 'http://localhost:$PORT/orders/${to_cancel% *}/cancel' $auth $json -d '{\"lines\":[{\"skuId\":${to_cancel#* },\"quantity\":1}]}'   (one unit; -d '{}' cancels the whole order)"
  fi
fi
echo "Indexer metrics: http://127.0.0.1:${INDEXER_METRICS_PORT:-9464}/metrics   Webhook metrics: http://127.0.0.1:${WEBHOOK_METRICS_PORT:-9465}/metrics"
echo "Ctrl-C stops the API, the indexer and the webhook dispatcher (in-flight deliveries finish first)."

[ "${DEMO_EXIT_AFTER_READY:-0}" = 1 ] && exit 0
wait
