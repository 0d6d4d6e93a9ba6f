#!/usr/bin/env bash
# Durable PATCH on PostgreSQL only (issue 18 item 6), with where the CPU goes: a shorter loop than
# postgres.sh for tuning. Prints req/s for the embedded store, 1 and 2 PostgreSQL nodes, and the
# CPU milliseconds per PATCH of each kind of process (PostgreSQL backends, other PostgreSQL
# processes, todo-server nodes, wrk), from /proc/PID/stat before and after each run. CPU time
# per PATCH swells when other work shares the cores: compare builds in one run (SERVER=).
#
#   ROWS=20000 RUNS=3 .ci/bench/postgres-patch.sh
#   PGCONF='commit_delay = 100' .ci/bench/postgres-patch.sh   # extra postgresql.conf lines
#   STATEMENTS=1 .ci/bench/postgres-patch.sh   # then pg_stat_statements: calls and ms per statement
#   SERVER=/tmp/old/todo-server .ci/bench/postgres-patch.sh   # another todo-server build, same run
#
# Same cluster as postgres.sh: initdb into /tmp, unix socket, fsync on, synchronous_commit on.
# The PostgreSQL table is filled by SQL (generate_series), the embedded one over HTTP.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rows=${ROWS:-20000}
runs=${RUNS:-3}
seconds=${SECONDS_PER_RUN:-10}
command -v wrk >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; }
[ -n "${SERVER:-}" ] || swift build -c release --product todo-server --package-path "$root" >&2
bin="$root/.build/release"
server=${SERVER:-$bin/todo-server}   # another build to compare with
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=${WORK:-/tmp/todo-pg-patch-bench}   # scratch folder (wiped)
pids=()
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1
  true
}
trap cleanup EXIT
log() { echo "== $*" >&2; }

[ -f "$work/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
rm -rf "$work"; mkdir -p "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work" "$work/sock"
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 --locale=C >"$work/initdb.log"
cat >>"$work/pg/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$work/sock'
port = $pgport
max_connections = 100
shared_buffers = 256MB
${PGCONF:-}
CONF
[ -n "${STATEMENTS:-}" ] && printf "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = all\ntrack_functions = all\n" >>"$work/pg/postgresql.conf"

as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w start >/dev/null
psql() { "$pgbin/psql" -X -q -h "$work/sock" -p "$pgport" -U postgres "$@"; }
psql -d postgres -c "CREATE DATABASE todo"
[ -n "${STATEMENTS:-}" ] && psql -d todo -c "CREATE EXTENSION pg_stat_statements"
postmaster=$(head -1 "$work/pg/postmaster.pid")
log "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), fsync $(psql -d todo -Atc 'show fsync'), synchronous_commit $(psql -d todo -Atc 'show synchronous_commit'), commit_delay $(psql -d todo -Atc 'show commit_delay')"

start() {  # name args... -> sets port, pid
  local name=$1; shift
  mkdir -p "$work/$name"
  "$server" --data "$work/$name" --port 0 --quiet --dynamic-tables "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pid=$!; pids+=("$pid")
  for _ in $(seq 1 200); do grep -q listening "$work/$name.out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/$name.out" | head -1)
  [ -n "$port" ] || { cat "$work/$name.err" >&2; exit 1; }
}
store="postgresql:///todo?host=$work/sock&port=$pgport&user=postgres"
start emb; emb_port=$port; emb_pid=$pid
start pg1 --store "$store"; pg1_port=$port; pg1_pid=$pid
start pg2 --store "$store"; pg2_port=$port; pg2_pid=$pid

python3 - "$emb_port" "$rows" <<'PY'
import http.client, sys, threading, json
port, n = int(sys.argv[1]), int(sys.argv[2])
def worker(k):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(k, n, 16):
        body = json.dumps({"id": "item%07d" % i, "text": "item %d" % i, "complete": i % 2 == 0, "priority": i % 5})
        c.request("POST", "/tables/todoitem", body, {"ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"})
        r = c.getresponse(); r.read(); assert r.status == 201, r.status
threads = [threading.Thread(target=worker, args=(k,)) for k in range(16)]
[t.start() for t in threads]; [t.join() for t in threads]
PY
curl -s -o /dev/null -H 'ZUMO-API-VERSION: 2.0.0' -H 'Content-Type: application/json' \
  -d '{"id":"item0000000","text":"item 0","complete":true,"priority":0}' "http://127.0.0.1:$pg1_port/tables/todoitem"
psql -d todo -c "
  INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
  SELECT 'todoitem', 'item' || lpad(i::text, 7, '0'), 'item' || lpad(i::text, 7, '0'), 1700000000000 + i, 1700000000000 + i,
         i + 10, false, jsonb_build_object('text', 'item ' || i, 'complete', i % 2 = 0, 'priority', i % 5)
  FROM generate_series(1, $rows - 1) AS i ON CONFLICT DO NOTHING" \
  -c "SELECT setval('todo_versions', GREATEST(last_value, $rows + 10)) FROM todo_versions" \
  -c "VACUUM ANALYZE todo_rows" >/dev/null
[ -n "${STATEMENTS:-}" ] && psql -d todo -c "SELECT pg_stat_statements_reset()" >/dev/null
psql -d todo -c "SELECT pg_stat_reset_shared('wal')" -c "SELECT pg_stat_reset()" >/dev/null

cat >"$work/patch.lua" <<LUA
counter = 0
request = function()
  counter = counter + 1
  local id = string.format("item%07d", (counter * 7919 + math.random(0, 1000)) % $rows)
  return wrk.format("PATCH", "/tables/todoitem/" .. id, {["ZUMO-API-VERSION"]="2.0.0", ["If-Match"]="*", ["Content-Type"]="application/json"}, '{"text":"patched ' .. counter .. '"}')
end
LUA

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }  # utime + stime
pg_ticks() {  # backends (client sessions) and the rest of the cluster, in clock ticks
  local backends=0 others=0 p
  for p in $(pgrep -P "$postmaster"); do
    if grep -q "postgres: postgres todo" "/proc/$p/cmdline" 2>/dev/null || tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "postgres todo"; then
      backends=$((backends + $(ticks "$p"))); else others=$((others + $(ticks "$p"))); fi
  done
  echo "$backends $((others + $(ticks "$postmaster")))"
}
hz=$(getconf CLK_TCK)
# latency_ms 50% file: that percentile of wrk's latency distribution, in ms (one per wrk: "a/b")
latency_ms() {
  awk -v q="$1" '$1 == q { v = $2; u = v; gsub(/[0-9.]/, "", u); sub(/[a-z]+$/, "", v)
    printf "%.2f", (u == "us" ? v / 1000 : u == "s" ? v * 1000 : u == "m" ? v * 60000 : v) }' "$2"
}
# run label url... : wrk on each url (32 connections split), prints one row
run() {
  local label=$1; shift
  local n=$# c=$((32 / $#)) i=0
  read -r b0 o0 < <(pg_ticks); local e0=$(ticks "$emb_pid") n0=$(( $(ticks "$pg1_pid") + $(ticks "$pg2_pid") ))
  local wrk_pids=() w0=0
  for url in "$@"; do
    wrk -t1 -c"$c" -d"${seconds}s" --latency -s "$work/patch.lua" "$url" >"$work/wrk-$i" & wrk_pids+=($!); i=$((i + 1))
  done
  sleep 1; local w_start=0; for p in "${wrk_pids[@]}"; do w_start=$((w_start + $(ticks "$p"))); done
  sleep $((seconds - 2)); local w_end=0; for p in "${wrk_pids[@]}"; do w_end=$((w_end + $(ticks "$p"))); done
  wait "${wrk_pids[@]}"
  read -r b1 o1 < <(pg_ticks); local e1=$(ticks "$emb_pid") n1=$(( $(ticks "$pg1_pid") + $(ticks "$pg2_pid") ))
  local total=0 non2xx=0 p50="" p99=""
  for j in $(seq 0 $((n - 1))); do
    total=$(echo "$total + $(awk '/Requests\/sec/ {print $2}' "$work/wrk-$j")" | bc)
    non2xx=$((non2xx + $(awk '/Non-2xx/ {print $NF}' "$work/wrk-$j" | grep . || echo 0)))
    p50="$p50${p50:+/}$(latency_ms 50% "$work/wrk-$j")"; p99="$p99${p99:+/}$(latency_ms 99% "$work/wrk-$j")"
  done
  local requests; requests=$(echo "$total * $seconds" | bc)
  per() { echo "scale=3; $1 * 1000 / $hz / $requests" | bc; }
  local node=$((n1 - n0)); [ "$label" = embedded ] && node=$((e1 - e0))
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$total" "$p50" "$p99" "$(per $((b1 - b0)))" "$(per $((o1 - o0)))" \
    "$(per "$node")" "$(echo "scale=3; ($w_end - $w_start) * 1000 / $hz / ($total * ($seconds - 2))" | bc)" "$non2xx" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "| PATCH, $rows rows | req/s | p50 ms | p99 ms | ms CPU/PATCH: PostgreSQL backends | other PostgreSQL | node(s) | wrk | non-2xx | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for _ in $(seq 1 "$runs"); do
  run embedded "http://127.0.0.1:$emb_port"
  run "PostgreSQL 1 node" "http://127.0.0.1:$pg1_port"
  run "PostgreSQL 2 nodes" "http://127.0.0.1:$pg1_port" "http://127.0.0.1:$pg2_port"
done
if [ -n "${STATEMENTS:-}" ]; then
  psql -d todo -c "SELECT calls, round(total_exec_time::numeric / calls, 4) AS ms, round(total_plan_time::numeric / calls, 4) AS plan_ms,
    toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements ORDER BY calls DESC LIMIT 20" \
    -c "SELECT funcname, calls, round(total_time::numeric / calls, 4) AS ms, round(self_time::numeric / calls, 4) AS self_ms FROM pg_stat_user_functions"
fi
# Group commit: how many commits each WAL flush (fdatasync) carried, over all runs above.
sleep 1  # the statistics reach the cumulative views within a second
psql -d todo -Atc "SELECT format('commits %s, WAL flushes %s: %s commits per flush', d.xact_commit, w.wal_sync,
  round(d.xact_commit::numeric / GREATEST(w.wal_sync, 1), 2)) FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = 'todo'"
