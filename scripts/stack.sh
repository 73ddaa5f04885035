#!/usr/bin/env bash
# Local "real stack" (PostgreSQL + Elasticsearch 9) without Docker.
#
#   bash scripts/stack.sh up       start what is missing (a killed server or node too), print
#                                  DATABASE_URL / ELASTICSEARCH_URL
#   bash scripts/stack.sh down     stop what this checkout's .stack/ started
#   bash scripts/stack.sh status   report what runs, with the cluster's health (always exits 0)
#
# Everything lives in <repo>/.stack/ (git-ignored). Idempotent, needs no stdin (CI).
# Servers run as the unprivileged system user "mpstack" when invoked as root
# (postgres refuses root; ES must not run as root), else as the calling user.
#
# Knobs (env): DATABASE_URL / ELASTICSEARCH_URL: a URL naming this stack's own server(s) (as
#   `. .stack/env` exports them) starts them like no URL at all; a URL naming another server uses
#   it and starts nothing, and fails when it does not answer.
#   STACK_PG_PORT (54329), STACK_ES_PORT (9209), ES_VERSION (9.2.4, must be 9.x),
#   STACK_ES_NODES (1; e.g. 3: a cluster of that many master-eligible data nodes, node i on HTTP
#   port STACK_ES_PORT + 1000 * (i - 1) and transport port HTTP + 20000, outside the 9300-9399
#   range any other Elasticsearch on the machine takes), STACK_ES_HEAP (1g, 512m per node of a
#   cluster), STACK_ES_JAVA_HOME (JDK >= 21 to run ES), STACK_USER (mpstack),
#   STACK_ES_JAVA_OPTS (more JVM options for the server, e.g. the client compiler for a
#   throwaway stack), STACK_ES_CLI_JAVA_OPTS (JVM options for its launcher), STACK_ES_SETTINGS
#   (more lines for a single node's elasticsearch.yml, e.g. 'thread_pool.write.size: 1'; read
#   when the node starts).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STACK="$ROOT/.stack"
PG_PORT="${STACK_PG_PORT:-54329}"
ES_PORT="${STACK_ES_PORT:-9209}"
ES_VERSION="${ES_VERSION:-9.2.4}"
ES_NODES_SET="${STACK_ES_NODES:-}"
ES_NODES="${STACK_ES_NODES:-1}"
SVC_USER="${STACK_USER:-mpstack}"
PG_DB=marketplace

PG_DIR="$STACK/pg"
PGDATA="$PG_DIR/data"
PG_LOG="$PG_DIR/log"
PG_SOCK="$PG_DIR/run"
ES_DIR="$STACK/es"
ES_HOME="$ES_DIR/elasticsearch-$ES_VERSION"
ES_PIDFILE="$ES_DIR/es.pid"
ES_LOG="$ES_DIR/logs/mpstack.log" # <path.logs>/<cluster.name>.log
CL_DIR="$ES_DIR/cluster"             # a cluster's nodes: node-<i>/{config,data,logs,es.pid}

PG_URL_LOCAL="postgres://postgres@127.0.0.1:$PG_PORT/$PG_DB"

# A cluster's node i (1-based): HTTP and transport ports.
node_http_port() { echo $((ES_PORT + 1000 * ($1 - 1))); }
node_transport_port() { echo $(($(node_http_port "$1") + 20000)); }
# This stack's node URLs for a node count, comma-separated (what ELASTICSEARCH_URL takes).
es_local_urls() {
  local n="$1" i out=""
  for ((i = 1; i <= n; i++)); do out="${out:+$out,}http://127.0.0.1:$(node_http_port "$i")"; done
  echo "$out"
}
ES_URL_LOCAL="http://127.0.0.1:$ES_PORT" # the single node, or node-1 of a cluster

# "host:port" of each URL of a comma-separated list (localhost read as 127.0.0.1).
url_hostports() {
  local u default="$2"
  for u in ${1//,/ }; do
    u="${u#*://}"
    u="${u%%/*}"
    u="${u%%\?*}"
    u="${u##*@}"
    case "$u" in localhost | localhost:*) u="127.0.0.1${u#localhost}" ;; esac
    [[ "$u" == *:* ]] || u="$u:$default"
    echo "$u"
  done
}

# Every node of a URL list is one of this stack's nodes for a node count.
es_url_within() { # urls n
  local want hp
  want=" $(url_hostports "$(es_local_urls "$2")" 9200 | tr '\n' ' ')"
  for hp in $(url_hostports "$1" 9200); do [[ "$want" == *" $hp "* ]] || return 1; done
}

# Some node of a URL list answers cluster health.
es_url_answers() {
  local u
  for u in ${1//,/ }; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "${u%/}/_cluster/health" || true)" = 200 ] && return 0
  done
  return 1
}

# The node count: STACK_ES_NODES, else the count whose layout ELASTICSEARCH_URL names exactly (so
# `. .stack/env && npm run stack:up` brings back the cluster the env file was written for), else 1.
resolve_es_nodes() {
  if [ -z "$ES_NODES_SET" ] && [ -n "${ELASTICSEARCH_URL:-}" ]; then
    local k n
    n="$(url_hostports "$ELASTICSEARCH_URL" 9200 | wc -l)"
    for ((k = 1; k <= 9; k++)); do
      if [ "$k" = "$n" ] && es_url_within "$ELASTICSEARCH_URL" "$k"; then ES_NODES="$k"; fi
    done
  fi
  [[ "$ES_NODES" =~ ^[1-9]$ ]] || die "STACK_ES_NODES must be 1 to 9, got '$ES_NODES'"
  if [ "$ES_NODES" -gt 1 ]; then ES_HEAP="${STACK_ES_HEAP:-512m}"; else ES_HEAP="${STACK_ES_HEAP:-1g}"; fi
  ES_URLS_LOCAL="$(es_local_urls "$ES_NODES")"
}

# A TCP connection to host port opens within 3 s.
tcp_answers() { timeout 3 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1

# stdout is reserved for the final two URL lines; everything else goes to stderr.
log() { echo "[stack] $*" >&2; }
die() {
  echo "[stack] ERROR: $*" >&2
  exit 1
}

# Run a command as the service user (root -> mpstack; otherwise as ourselves).
as_svc() {
  if [ "$IS_ROOT" = 1 ]; then runuser -u "$SVC_USER" -- "$@"; else "$@"; fi
}
svc_user_exists() { [ "$IS_ROOT" = 0 ] || id -u "$SVC_USER" >/dev/null 2>&1; }

APT_UPDATED=0
apt_install() {
  [ "$IS_ROOT" = 1 ] || {
    log "cannot apt-get install $* (not root)"
    return 1
  }
  export DEBIAN_FRONTEND=noninteractive
  if [ "$APT_UPDATED" = 0 ]; then
    apt-get update -qq >&2 || return 1
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  apt-get install -y -qq --no-install-recommends "$@" </dev/null >&2
}

tail_log() { # file [lines]
  if [ -f "$1" ]; then
    echo "----- last lines of $1 -----" >&2
    tail -n "${2:-40}" "$1" >&2
  fi
}

# ---------------------------------------------------------------- setup ---

ensure_user() {
  [ "$IS_ROOT" = 1 ] || return 0
  id -u "$SVC_USER" >/dev/null 2>&1 && return 0
  log "creating system user $SVC_USER (servers must not run as root)"
  useradd --system --create-home --home-dir "/var/lib/$SVC_USER" \
    --shell /usr/sbin/nologin "$SVC_USER"
}

# The repo may sit under root-owned dirs without o+x (e.g. a mktemp -d clone);
# mpstack needs to traverse every parent of .stack/.
ensure_traversal() {
  [ "$IS_ROOT" = 1 ] || return 0
  local d="$STACK" dirs=()
  while [ "$d" != / ]; do
    d="$(dirname "$d")"
    dirs=("$d" "${dirs[@]}")
  done
  for d in "${dirs[@]}"; do
    if ! as_svc test -x "$d"; then
      log "note: chmod o+x $d so that $SVC_USER can reach $STACK"
      chmod o+x "$d"
    fi
  done
}

ensure_dirs() {
  mkdir -p "$STACK/dist" "$PG_DIR" "$ES_DIR"
  chmod 755 "$STACK"
  if [ "$IS_ROOT" = 1 ]; then
    local d
    for d in "$PG_DIR" "$ES_DIR"; do
      # -R only when needed (e.g. the dirs were created by an earlier non-root run)
      [ "$(stat -c %U "$d")" = "$SVC_USER" ] || chown -R "$SVC_USER:" "$d"
    done
  fi
}

# ----------------------------------------------------------- PostgreSQL ---

# Binaries matching an existing data dir, else the newest installed major.
pg_bindir() {
  if [ -s "$PGDATA/PG_VERSION" ]; then
    local v
    v="$(cat "$PGDATA/PG_VERSION")"
    if [ -x "/usr/lib/postgresql/$v/bin/postgres" ]; then
      echo "/usr/lib/postgresql/$v/bin"
      return 0
    fi
  fi
  local found=(/usr/lib/postgresql/*/bin/postgres)
  [ -e "${found[0]}" ] || return 0
  printf '%s\n' "${found[@]%/postgres}" | sort -V | tail -n 1
}

pg_pid() { head -n 1 "$PGDATA/postmaster.pid" 2>/dev/null || true; }

# Running from *this* .stack: pidfile present and pg_ctl agrees.
pg_ours_running() {
  local bin="$1"
  [ -n "$bin" ] && [ -f "$PGDATA/postmaster.pid" ] && svc_user_exists &&
    as_svc "$bin/pg_ctl" status -D "$PGDATA" >/dev/null 2>&1
}

pg_answers() {
  local isready="$1/pg_isready"
  [ -x "$isready" ] || isready="$(command -v pg_isready || true)"
  [ -n "$isready" ] && "$isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 2
}

pg_init() {
  local bin="$1"
  [ -s "$PGDATA/PG_VERSION" ] && return 0
  rm -rf "$PGDATA" # leftovers of an interrupted initdb
  log "initdb $PGDATA ($bin)"
  local args=(-D "$PGDATA" --auth=trust -U postgres --encoding=UTF8)
  if ! as_svc "$bin/initdb" "${args[@]}" --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1; then
    log "initdb with locale C.UTF-8 failed; retrying with locale C"
    rm -rf "$PGDATA"
    as_svc "$bin/initdb" "${args[@]}" --locale=C >>"$PG_DIR/initdb.log" 2>&1 || {
      tail_log "$PG_DIR/initdb.log"
      die "initdb failed"
    }
  fi
  # Our settings live in a separate file, rewritten before every start.
  echo "include_if_exists = 'mpstack.conf'" >>"$PGDATA/postgresql.conf"
}

pg_write_conf() {
  local sock="$PG_SOCK"
  # Unix socket paths are limited to ~107 bytes; deep checkouts fall back to /tmp.
  if [ $((${#sock} + 20)) -gt 100 ]; then
    sock="/tmp/mpstack-pg-$(printf '%s' "$PGDATA" | md5sum | cut -c1-10)"
    log "note: $PG_SOCK is too long for a unix socket; using $sock"
  fi
  mkdir -p "$sock"
  [ "$IS_ROOT" = 1 ] && chown "$SVC_USER:" "$sock"
  cat >"$PGDATA/mpstack.conf" <<EOF
# written by scripts/stack.sh on every start; edit the script, not this file
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$sock'
max_connections = 200
EOF
  [ "$IS_ROOT" = 1 ] && chown "$SVC_USER:" "$PGDATA/mpstack.conf"
  return 0
}

pg_ensure_db() {
  local bin="$1" psql out
  psql="$bin/psql"
  [ -x "$psql" ] || psql="$(command -v psql || true)"
  [ -n "$psql" ] || die "psql not found"
  local cmd=("$psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -tA)
  if ! out="$(PGCONNECT_TIMEOUT=5 "${cmd[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'" 2>&1)"; then
    log "WARNING: cannot query 127.0.0.1:$PG_PORT as postgres: $out"
    return 0
  fi
  if [ "$out" != 1 ]; then
    log "creating database $PG_DB"
    PGCONNECT_TIMEOUT=5 "${cmd[@]}" -c "CREATE DATABASE $PG_DB" >&2
  fi
}

# DATABASE_URL names this stack's server (host 127.0.0.1 or localhost, port STACK_PG_PORT).
pg_url_is_ours() { [ "$(url_hostports "$1" 5432)" = "127.0.0.1:$PG_PORT" ]; }

pg_up() {
  PG_URL="$PG_URL_LOCAL"
  if [ -n "${DATABASE_URL:-}" ]; then
    local hp
    hp="$(url_hostports "$DATABASE_URL" 5432)"
    if pg_url_is_ours "$DATABASE_URL"; then
      log "DATABASE_URL names this stack's PostgreSQL ($hp): starting it if it is not running"
      PG_URL="$DATABASE_URL"
    elif tcp_answers "${hp%:*}" "${hp##*:}"; then
      log "DATABASE_URL is set; not starting PostgreSQL ($DATABASE_URL)"
      PG_URL="$DATABASE_URL"
      return 0
    else
      die "DATABASE_URL names $hp, which does not answer, and it is not this stack's PostgreSQL (127.0.0.1:$PG_PORT, STACK_PG_PORT): start that server, or unset DATABASE_URL so that stack:up starts this stack's own"
    fi
  fi
  local bin
  bin="$(pg_bindir)"
  if [ -z "$bin" ]; then
    log "no PostgreSQL under /usr/lib/postgresql; installing it (the Debian cluster on 5432 it may start is left alone)"
    apt_install postgresql || die "could not install PostgreSQL"
    bin="$(pg_bindir)"
    [ -n "$bin" ] || die "PostgreSQL installed but no /usr/lib/postgresql/*/bin/postgres found"
  fi
  if [ -s "$PGDATA/PG_VERSION" ] && [ "$bin" != "/usr/lib/postgresql/$(cat "$PGDATA/PG_VERSION")/bin" ]; then
    die "$PGDATA was created by PostgreSQL $(cat "$PGDATA/PG_VERSION") whose binaries are gone; remove $PG_DIR to start fresh"
  fi

  if pg_ours_running "$bin"; then
    log "PostgreSQL already running (pid $(pg_pid))"
  elif pg_answers "$bin"; then
    log "note: a PostgreSQL not started from $STACK already answers on 127.0.0.1:$PG_PORT; reusing it"
  else
    pg_init "$bin"
    pg_write_conf
    log "starting PostgreSQL $(cat "$PGDATA/PG_VERSION") on 127.0.0.1:$PG_PORT"
    # 9>&-: the daemon must not inherit (and keep) our lock fd
    as_svc "$bin/pg_ctl" -D "$PGDATA" -l "$PG_LOG" -w -t 60 start </dev/null >&2 9>&- || {
      tail_log "$PG_LOG"
      die "PostgreSQL did not start"
    }
  fi

  local deadline=$((SECONDS + 60))
  until pg_answers "$bin"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail_log "$PG_LOG"
      die "PostgreSQL on 127.0.0.1:$PG_PORT is not ready"
    fi
    sleep 1
  done
  pg_ensure_db "$bin"
}

pg_down() {
  local bin
  bin="$(pg_bindir)"
  if pg_ours_running "$bin"; then
    log "stopping PostgreSQL (pid $(pg_pid))"
    as_svc "$bin/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop </dev/null >&2
  else
    log "PostgreSQL: not running from $STACK"
  fi
}

pg_status() {
  local bin
  bin="$(pg_bindir)"
  if pg_ours_running "$bin"; then
    echo "postgres:      running  pid $(pg_pid)  PostgreSQL $(cat "$PGDATA/PG_VERSION")  $PG_URL_LOCAL"
  elif pg_answers "$bin"; then
    echo "postgres:      running  (not from this .stack)  $PG_URL_LOCAL"
  else
    echo "postgres:      stopped  (would be $PG_URL_LOCAL)"
  fi
  if [ -n "${DATABASE_URL:-}" ]; then echo "               note: DATABASE_URL is set in this env: $DATABASE_URL"; fi
}

# -------------------------------------------------------- Elasticsearch ---

java_major() { # JDK home -> major version ("25", "17", "8")
  local v=""
  [ -f "$1/release" ] && v="$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$1/release")"
  [ -n "$v" ] || v="$("$1/bin/java" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)"
  v="${v#1.}"
  echo "${v%%[.+-]*}"
}

# The integ-test zip bundles no JDK; ES 9 needs >= 21. Take the newest in /usr/lib/jvm.
pick_jdk() {
  if [ -n "${STACK_ES_JAVA_HOME:-}" ]; then
    echo "$STACK_ES_JAVA_HOME"
    return 0
  fi
  local d v best="" bestv=0
  for d in /usr/lib/jvm/*/; do
    d="${d%/}"
    [ -L "$d" ] && continue # Debian's java-1.x symlinks duplicate real dirs
    [ -x "$d/bin/java" ] || continue
    v="$(java_major "$d")"
    [[ "$v" =~ ^[0-9]+$ ]] || continue
    if [ "$v" -ge 21 ] && [ "$v" -gt "$bestv" ]; then
      best="$d"
      bestv="$v"
    fi
  done
  echo "$best"
}

es_pid() { cat "$ES_PIDFILE" 2>/dev/null || true; }

# Running from *this* .stack: live pid from our pidfile whose command line mentions our dir.
es_ours_running() {
  local pid
  pid="$(es_pid)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$ES_DIR/"
}

es_answers() {
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$ES_URL_LOCAL/_cluster/health" || true)"
  [ "$code" = 200 ]
}

es_healthy() {
  local body
  body="$(curl -s --max-time 5 "$ES_URL_LOCAL/_cluster/health?wait_for_status=yellow&timeout=1s" || true)"
  [[ "$body" =~ \"status\":\"(green|yellow)\" ]] && [[ "$body" =~ \"timed_out\":false ]]
}

# The integ-test zip lacks the rest-root module, so GET / may 405; fall back to _nodes.
es_version() {
  local url="${1:-$ES_URL_LOCAL}" v
  v="$(curl -s --max-time 3 "$url/" | grep -o '"number" *: *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/' || true)"
  [ -n "$v" ] || v="$(curl -s --max-time 3 "$url/_nodes/_local?filter_path=nodes.*.version" |
    grep -o '"version":"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/' || true)"
  echo "$v"
}

es_fetch() {
  [ -x "$ES_HOME/bin/elasticsearch" ] && return 0
  local zip="$STACK/dist/elasticsearch-$ES_VERSION.zip"
  if [ ! -s "$zip" ]; then
    command -v mvn >/dev/null || apt_install maven || die "mvn not found and could not be installed"
    log "fetching Elasticsearch $ES_VERSION (integ-test zip) from Maven Central (cached in ~/.m2)"
    mvn -q -B -Dstyle.color=never dependency:copy \
      "-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
      "-DoutputDirectory=$STACK/dist" </dev/null >"$STACK/dist/mvn.log" 2>&1 || {
      tail_log "$STACK/dist/mvn.log"
      die "could not fetch Elasticsearch $ES_VERSION via Maven"
    }
  fi
  command -v unzip >/dev/null || apt_install unzip || die "unzip not found and could not be installed"
  log "unpacking $zip"
  local tmp="$ES_DIR/.unpack.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  unzip -q "$zip" -d "$tmp"
  mv "$tmp/elasticsearch-$ES_VERSION" "$ES_HOME" # atomic: a half-unpacked home never looks ready
  rmdir "$tmp"
  [ "$IS_ROOT" = 1 ] && chown -R "$SVC_USER:" "$ES_HOME"
  return 0
}

# The settings every node of this stack shares: a data dir, a log dir (args), loopback. Only
# settings known to the integ-test zip's few modules; unknown settings (e.g. xpack.ml.*,
# ingest.geoip.*) would make ES refuse to start.
es_common_conf() {
  cat <<EOF
# written by scripts/stack.sh on every start; edit the script, not this file
cluster.name: mpstack
network.host: 127.0.0.1
path.data: $1
path.logs: $2
xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
action.destructive_requires_name: false
EOF
}

es_write_conf() {
  {
    es_common_conf "$ES_DIR/data" "$ES_DIR/logs"
    echo "node.name: node-1"
    echo "discovery.type: single-node"
    echo "http.port: $ES_PORT"
    if [ -n "${STACK_ES_SETTINGS:-}" ]; then printf '%s\n' "$STACK_ES_SETTINGS"; fi
  } >"$ES_HOME/config/elasticsearch.yml"
  [ "$IS_ROOT" = 1 ] && chown "$SVC_USER:" "$ES_HOME/config/elasticsearch.yml"
  return 0
}

es_jdk() {
  local jdk
  jdk="$(pick_jdk)"
  if [ -z "$jdk" ]; then
    log "no JDK >= 21 in /usr/lib/jvm; trying apt"
    apt_install openjdk-21-jdk-headless || apt_install openjdk-25-jdk-headless || true
    jdk="$(pick_jdk)"
  fi
  if [ -z "$jdk" ] || [ ! -x "$jdk/bin/java" ]; then
    die "Elasticsearch 9 needs a JDK >= 21: install one under /usr/lib/jvm (e.g. Temurin 21/25) or set STACK_ES_JAVA_HOME"
  fi
  echo "$jdk"
}

es_up() {
  ES_URL="$ES_URLS_LOCAL"
  if [ -n "${ELASTICSEARCH_URL:-}" ]; then
    if es_url_within "$ELASTICSEARCH_URL" "$ES_NODES"; then
      log "ELASTICSEARCH_URL names this stack's Elasticsearch ($ELASTICSEARCH_URL): starting whatever of it is not running"
    elif es_url_answers "$ELASTICSEARCH_URL"; then
      log "ELASTICSEARCH_URL is set; not starting Elasticsearch ($ELASTICSEARCH_URL)"
      ES_URL="$ELASTICSEARCH_URL"
      return 0
    else
      die "ELASTICSEARCH_URL=$ELASTICSEARCH_URL does not answer, and it is not this stack's Elasticsearch ($ES_URLS_LOCAL with STACK_ES_PORT=$ES_PORT, STACK_ES_NODES=$ES_NODES): start that server, or unset ELASTICSEARCH_URL so that stack:up starts this stack's own"
    fi
  fi
  [[ "$ES_VERSION" =~ ^9\.[0-9]+\.[0-9]+$ ]] || die "ES_VERSION must be 9.x.y (the @elastic/elasticsearch v9 client), got $ES_VERSION"
  if [ "$ES_NODES" -gt 1 ]; then es_cluster_up; else es_single_up; fi
  local v
  v="$(es_version "${ES_URL%%,*}")"
  [[ "$v" == 9.* ]] || log "WARNING: Elasticsearch on $ES_URL reports version '$v', not 9.x"
}

es_single_up() {
  if cluster_any_running; then
    log "stopping this .stack's Elasticsearch cluster (STACK_ES_NODES is 1)"
    cluster_down
  fi
  local started=0
  if es_ours_running; then
    log "Elasticsearch already running (pid $(es_pid))"
  elif es_answers; then
    log "note: an Elasticsearch not started from $STACK already answers on $ES_URL_LOCAL; reusing it"
  else
    local jdk
    jdk="$(es_jdk)"
    es_fetch
    es_write_conf
    rm -f "$ES_PIDFILE" # stale after a crash/reboot
    log "starting Elasticsearch $ES_VERSION on $ES_URL_LOCAL (JDK $jdk, heap $ES_HEAP)"
    # ES reads ES_JAVA_HOME (JAVA_HOME is ignored, unset to avoid its warning). -d daemonizes;
    # stdio goes to a file so callers capturing our stdout never wait on the daemon, and
    # the lock fd is closed so the daemon does not hold the lock.
    (cd "$ES_HOME" && as_svc env -u JAVA_HOME ES_JAVA_HOME="$jdk" \
      ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP ${STACK_ES_JAVA_OPTS:-}" CLI_JAVA_OPTS="${STACK_ES_CLI_JAVA_OPTS:-${CLI_JAVA_OPTS:-}}" \
      bin/elasticsearch -d -p "$ES_PIDFILE") </dev/null >"$ES_DIR/startup.log" 2>&1 9>&- || {
      tail_log "$ES_DIR/startup.log"
      tail_log "$ES_LOG"
      die "Elasticsearch did not start"
    }
    started=1
  fi

  local deadline=$((SECONDS + 120))
  until es_healthy; do
    if [ "$started" = 1 ] && ! es_ours_running; then
      tail_log "$ES_LOG"
      die "Elasticsearch exited during startup"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail_log "$ES_LOG"
      die "Elasticsearch on $ES_URL_LOCAL not healthy (yellow) after 120 s"
    fi
    sleep 1
  done
}

es_single_down() {
  if ! es_ours_running; then
    rm -f "$ES_PIDFILE"
    return 0
  fi
  local pid i
  pid="$(es_pid)"
  log "stopping Elasticsearch (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "Elasticsearch did not stop in 60 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 1
  fi
  rm -f "$ES_PIDFILE"
}

# ---------------------------------------------- Elasticsearch: a cluster ---
# STACK_ES_NODES > 1: that many master-eligible data nodes, each with its own config (ES_PATH_CONF),
# data, logs and pid file under .stack/es/cluster/node-<i>, sharing the unpacked home.

node_dir() { echo "$CL_DIR/node-$1"; }
node_pid() { cat "$(node_dir "$1")/es.pid" 2>/dev/null || true; }
node_url() { echo "http://127.0.0.1:$(node_http_port "$1")"; }

# Running from *this* .stack: a live pid from the node's pidfile, started with the node's config
# (ES_PATH_CONF; the server's command line names only the shared home).
node_running() {
  local pid
  pid="$(node_pid "$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF -- "ES_PATH_CONF=$(node_dir "$1")/config"
}

# The node numbers this .stack has a directory for, whatever STACK_ES_NODES says now.
cluster_known_nodes() {
  local d
  for d in "$CL_DIR"/node-*/; do
    [ -d "$d" ] && basename "$d" | sed 's/^node-//'
  done | sort -n
}

cluster_any_running() {
  local i
  for i in $(cluster_known_nodes); do node_running "$i" && return 0; done
  return 1
}

# Any HTTP answer at all (000: nothing listens).
http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$1" || true; }

# Cluster health (with a query string) from the first of this cluster's nodes that answers 200.
cluster_health() {
  local i body
  for ((i = 1; i <= ES_NODES; i++)); do
    body="$(curl -s -f --max-time 8 "$(node_url "$i")/_cluster/health?$1" || true)"
    [ -n "$body" ] && echo "$body" && return 0
  done
  return 1
}

node_write_conf() { # i n
  local d seeds="" masters="" k
  d="$(node_dir "$1")"
  mkdir -p "$d/config" "$d/data" "$d/logs"
  [ -f "$d/config/jvm.options" ] || cp -r "$ES_HOME/config/." "$d/config/"
  for ((k = 1; k <= $2; k++)); do
    seeds="${seeds:+$seeds, }\"127.0.0.1:$(node_transport_port "$k")\""
    masters="${masters:+$masters, }\"node-$k\""
  done
  {
    es_common_conf "$d/data" "$d/logs"
    echo "node.name: node-$1"
    echo "http.port: $(node_http_port "$1")"
    echo "transport.port: $(node_transport_port "$1")"
    echo "discovery.seed_hosts: [$seeds]"
  } >"$d/config/elasticsearch.yml"
  # Only to bootstrap a new cluster: once it has formed, a restarted node rejoins it from its data.
  [ -f "$CL_DIR/formed" ] || echo "cluster.initial_master_nodes: [$masters]" >>"$d/config/elasticsearch.yml"
  [ "$IS_ROOT" = 1 ] && chown -R "$SVC_USER:" "$d"
  return 0
}

node_launch() { # i jdk
  local d
  d="$(node_dir "$1")"
  rm -f "$d/es.pid"
  (cd "$ES_HOME" && as_svc env -u JAVA_HOME ES_JAVA_HOME="$2" ES_PATH_CONF="$d/config" \
    ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP ${STACK_ES_JAVA_OPTS:-}" CLI_JAVA_OPTS="${STACK_ES_CLI_JAVA_OPTS:-${CLI_JAVA_OPTS:-}}" \
    bin/elasticsearch -d -p "$d/es.pid") </dev/null >"$d/startup.log" 2>&1 9>&-
}

es_cluster_up() {
  local n="$ES_NODES" i
  if es_ours_running; then
    log "stopping this .stack's single-node Elasticsearch (STACK_ES_NODES is $n)"
    es_single_down
  fi
  if [ -f "$CL_DIR/nodes" ] && [ "$(cat "$CL_DIR/nodes")" != "$n" ]; then
    die "$CL_DIR holds a cluster of $(cat "$CL_DIR/nodes") nodes, not $n: stop it (stack:down) and remove $CL_DIR to start a new one"
  fi
  local jdk
  jdk="$(es_jdk)"
  es_fetch
  mkdir -p "$CL_DIR"
  echo "$n" >"$CL_DIR/nodes"
  [ "$IS_ROOT" = 1 ] && chown "$SVC_USER:" "$CL_DIR"
  local launching=() started=() rc=0 p
  for ((i = 1; i <= n; i++)); do
    if node_running "$i"; then
      log "node-$i already running (pid $(node_pid "$i"), $(node_url "$i"))"
      continue
    fi
    [ "$(http_code "$(node_url "$i")/")" = 000 ] ||
      die "port $(node_http_port "$i") of node-$i answers, but not from $STACK: free it or choose another STACK_ES_PORT"
    node_write_conf "$i" "$n"
    log "starting node-$i of $n on $(node_url "$i") (transport 127.0.0.1:$(node_transport_port "$i"), heap $ES_HEAP)"
    # Side by side: a node of a new cluster waits for the others before a master is elected.
    node_launch "$i" "$jdk" &
    launching+=($!)
    started+=("$i")
  done
  for p in "${launching[@]}"; do wait "$p" || rc=1; done
  if [ "$rc" != 0 ]; then
    for i in "${started[@]}"; do
      tail_log "$(node_dir "$i")/startup.log" 10
      tail_log "$(node_dir "$i")/logs/mpstack.log" 20
    done
    die "an Elasticsearch node did not start"
  fi

  local deadline=$((SECONDS + 180)) body=""
  until body="$(cluster_health "wait_for_nodes=$n&wait_for_status=yellow&timeout=1s")" &&
    [[ "$body" =~ \"timed_out\":false ]]; do
    for i in "${started[@]}"; do
      if ! node_running "$i"; then
        tail_log "$(node_dir "$i")/logs/mpstack.log"
        die "node-$i exited during startup"
      fi
    done
    if [ "$SECONDS" -ge "$deadline" ]; then
      for i in "${started[@]}"; do tail_log "$(node_dir "$i")/logs/mpstack.log" 20; done
      die "the $n-node cluster did not form (every node joined, yellow) within 180 s"
    fi
    sleep 1
  done
  touch "$CL_DIR/formed"
  # Replicas of existing indices may still be recovering onto a restarted node: wait a while for green.
  body="$(cluster_health "wait_for_status=green&timeout=60s" || true)"
  if [[ "$body" =~ \"status\":\"green\" ]]; then
    log "cluster green: $n nodes"
  else
    log "WARNING: the cluster is not green after 60 s:"
    cluster_report "$ES_URLS_LOCAL" >&2
  fi
}

cluster_down() {
  local i pid pids=()
  for i in $(cluster_known_nodes); do
    if node_running "$i"; then
      pid="$(node_pid "$i")"
      log "stopping node-$i (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  local deadline=$((SECONDS + 60))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "node pid $pid did not stop in 60 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# Health, nodes and unassigned shard copies, as the first answering node of `urls` sees them.
cluster_report() { # urls
  local u health="" shards status total unassigned
  for u in ${1//,/ }; do
    health="$(curl -s -f --max-time 5 "$u/_cat/health?h=status,node.total,unassign" || true)"
    [ -n "$health" ] && break
  done
  if [ -z "$health" ]; then
    echo "  cluster:     no node answers"
    return 0
  fi
  read -r status total unassigned <<<"$health"
  echo "  cluster:     $status, $total node(s), $unassigned unassigned shard cop(y/ies)"
  curl -s --max-time 5 "$u/_cat/nodes?h=name,http_address,node.role,master,heap.percent&s=name" |
    awk '{ printf "  node:        %-8s %-22s roles %-8s %-6s heap %s%%\n", $1, $2, $3, ($4 == "*" ? "master" : ""), $5 }'
  shards="$(curl -s --max-time 5 "$u/_cat/shards?h=index,shard,prirep,state,unassigned.reason" | awk '$4 == "UNASSIGNED"' || true)"
  if [ -n "$shards" ]; then
    echo "$shards" | head -n 20 | awk '{ printf "  unassigned:  %s [%s] %s (%s)\n", $1, $2, ($3 == "p" ? "primary" : "replica"), $5 }'
  fi
  return 0
}

es_down() {
  if ! es_ours_running && ! cluster_any_running; then log "Elasticsearch: not running from $STACK"; fi
  es_single_down
  cluster_down
}

es_status() {
  local i any=0
  for i in $(cluster_known_nodes); do
    any=1
    if node_running "$i"; then
      echo "elasticsearch: node-$i  running  pid $(node_pid "$i")  $(node_url "$i")"
    else
      echo "elasticsearch: node-$i  stopped  (would be $(node_url "$i"))"
    fi
  done
  [ "$any" = 0 ] || cluster_report "$(es_local_urls "$(cat "$CL_DIR/nodes" 2>/dev/null || echo "$ES_NODES")")"
  if es_ours_running; then
    echo "elasticsearch: running  pid $(es_pid)  version $(es_version)  $ES_URL_LOCAL"
    cluster_report "$ES_URL_LOCAL"
  elif [ "$any" = 0 ] && es_answers; then
    echo "elasticsearch: running  (not from this .stack)  version $(es_version)  $ES_URL_LOCAL"
    cluster_report "$ES_URL_LOCAL"
  elif [ "$any" = 0 ]; then
    echo "elasticsearch: stopped  (would be $ES_URLS_LOCAL)"
  fi
  if [ -n "${ELASTICSEARCH_URL:-}" ]; then echo "               note: ELASTICSEARCH_URL is set in this env: $ELASTICSEARCH_URL"; fi
}

# ----------------------------------------------------------------- main ---

lock() {
  # Serialise concurrent up/down (parallel test jobs, two terminals).
  exec 9>"$STACK/.lock"
  flock -w 600 9 || die "timed out waiting for $STACK/.lock"
}

cmd_up() {
  mkdir -p "$STACK"
  lock
  PG_URL=""
  ES_URL=""
  if [ -z "${DATABASE_URL:-}" ] || pg_url_is_ours "$DATABASE_URL" ||
    [ -z "${ELASTICSEARCH_URL:-}" ] || es_url_within "$ELASTICSEARCH_URL" "$ES_NODES"; then
    ensure_user
    ensure_dirs
    ensure_traversal
    cd "$STACK" # a cwd the service user can read (initdb/pg_ctl complain otherwise)
  fi
  pg_up
  es_up
  {
    echo "# written by scripts/stack.sh up; source it: . .stack/env"
    printf 'export DATABASE_URL=%q\n' "$PG_URL"
    printf 'export ELASTICSEARCH_URL=%q\n' "$ES_URL"
  } >"$STACK/env"
  log "ready (also written to $STACK/env)"
  echo "DATABASE_URL=$PG_URL"
  echo "ELASTICSEARCH_URL=$ES_URL"
}

# The Elasticsearch distribution alone (unpacked under .stack/es), for tests that start throwaway
# nodes when the stack itself comes from ELASTICSEARCH_URL / DATABASE_URL.
cmd_fetch_es() {
  mkdir -p "$STACK"
  lock
  ensure_user
  ensure_dirs
  ensure_traversal
  es_fetch
}

cmd_down() {
  if [ ! -d "$STACK" ]; then
    log "nothing to stop ($STACK does not exist)"
    return 0
  fi
  lock
  cd "$STACK"
  es_down
  pg_down
}

cmd_status() {
  if [ -d "$STACK" ]; then cd "$STACK"; fi
  pg_status
  es_status
  return 0
}

resolve_es_nodes
case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status || true ;;
fetch-es) cmd_fetch_es ;;
*)
  echo "usage: bash scripts/stack.sh up|down|status|fetch-es" >&2
  exit 2
  ;;
esac
