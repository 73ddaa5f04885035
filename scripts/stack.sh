#!/usr/bin/env bash
# Local "real stack" (PostgreSQL + Elasticsearch 9) without Docker.
#
#   bash scripts/stack.sh up       start what is missing, print DATABASE_URL / ELASTICSEARCH_URL
#   bash scripts/stack.sh down     stop what this checkout's .stack/ started
#   bash scripts/stack.sh status   report what runs (always exits 0)
#
# Everything lives in <repo>/.stack/ (git-ignored). Idempotent, needs no stdin (CI).
# Servers run as the unprivileged system user "mpstack" when invoked as root
# (postgres refuses root; ES must not run as root), else as the calling user.
#
# Knobs (env): DATABASE_URL / ELASTICSEARCH_URL (use an existing server, start none),
#   STACK_PG_PORT (54329), STACK_ES_PORT (9209), ES_VERSION (9.2.4, must be 9.x),
#   STACK_ES_HEAP (1g), STACK_ES_JAVA_HOME (JDK >= 21 to run ES), STACK_USER (mpstack).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STACK="$ROOT/.stack"
PG_PORT="${STACK_PG_PORT:-54329}"
ES_PORT="${STACK_ES_PORT:-9209}"
ES_VERSION="${ES_VERSION:-9.2.4}"
ES_HEAP="${STACK_ES_HEAP:-1g}"
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

PG_URL_LOCAL="postgres://postgres@127.0.0.1:$PG_PORT/$PG_DB"
ES_URL_LOCAL="http://127.0.0.1:$ES_PORT"

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

pg_up() {
  if [ -n "${DATABASE_URL:-}" ]; then
    log "DATABASE_URL is set; not starting PostgreSQL ($DATABASE_URL)"
    PG_URL="$DATABASE_URL"
    return 0
  fi
  PG_URL="$PG_URL_LOCAL"
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
  local url="$ES_URL_LOCAL" v
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

es_write_conf() {
  # Only settings known to the integ-test zip's few modules; unknown settings (e.g. xpack.ml.*,
  # ingest.geoip.*) would make ES refuse to start.
  cat >"$ES_HOME/config/elasticsearch.yml" <<EOF
# written by scripts/stack.sh on every start; edit the script, not this file
cluster.name: mpstack
node.name: node-1
discovery.type: single-node
network.host: 127.0.0.1
http.port: $ES_PORT
path.data: $ES_DIR/data
path.logs: $ES_DIR/logs
xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
action.destructive_requires_name: false
EOF
  [ "$IS_ROOT" = 1 ] && chown "$SVC_USER:" "$ES_HOME/config/elasticsearch.yml"
  return 0
}

es_up() {
  if [ -n "${ELASTICSEARCH_URL:-}" ]; then
    log "ELASTICSEARCH_URL is set; not starting Elasticsearch ($ELASTICSEARCH_URL)"
    ES_URL="$ELASTICSEARCH_URL"
    return 0
  fi
  ES_URL="$ES_URL_LOCAL"
  [[ "$ES_VERSION" =~ ^9\.[0-9]+\.[0-9]+$ ]] || die "ES_VERSION must be 9.x.y (the @elastic/elasticsearch v9 client), got $ES_VERSION"

  local started=0
  if es_ours_running; then
    log "Elasticsearch already running (pid $(es_pid))"
  elif es_answers; then
    log "note: an Elasticsearch not started from $STACK already answers on $ES_URL_LOCAL; reusing it"
  else
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
    es_fetch
    es_write_conf
    rm -f "$ES_PIDFILE" # stale after a crash/reboot
    log "starting Elasticsearch $ES_VERSION on $ES_URL_LOCAL (JDK $jdk, heap $ES_HEAP)"
    # ES reads ES_JAVA_HOME (JAVA_HOME is ignored, unset to avoid its warning). -d daemonizes;
    # stdio goes to a file so callers capturing our stdout never wait on the daemon, and
    # the lock fd is closed so the daemon does not hold the lock.
    (cd "$ES_HOME" && as_svc env -u JAVA_HOME ES_JAVA_HOME="$jdk" \
      ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" \
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
  local v
  v="$(es_version)"
  [[ "$v" == 9.* ]] || log "WARNING: Elasticsearch on $ES_URL_LOCAL reports version '$v', not 9.x"
}

es_down() {
  if ! es_ours_running; then
    log "Elasticsearch: not running from $STACK"
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

es_status() {
  if es_ours_running; then
    echo "elasticsearch: running  pid $(es_pid)  version $(es_version)  $ES_URL_LOCAL"
  elif es_answers; then
    echo "elasticsearch: running  (not from this .stack)  version $(es_version)  $ES_URL_LOCAL"
  else
    echo "elasticsearch: stopped  (would be $ES_URL_LOCAL)"
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
  if [ -z "${DATABASE_URL:-}" ] || [ -z "${ELASTICSEARCH_URL:-}" ]; then
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
