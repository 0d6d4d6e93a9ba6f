#!/usr/bin/env bash
# Benchmark of todo-server on PostgreSQL (issue 18 item 6), side by side with the embedded store in
# one run on this machine, all on loopback. Prints figures and ratios; asserts nothing (machines are
# shared and noisy). Not part of CI.
#
#   .ci/bench/postgres.sh        # ROWS=100000 BIG=1000000 by default; installs wrk if missing
#   SERVER=/tmp/old/todo-server .ci/bench/postgres.sh   # another todo-server build (no build here then)
#
# A throwaway PostgreSQL cluster (initdb into /tmp, unix socket only) with its durable defaults
# (fsync on, synchronous_commit on: an answered write is on disk, as with the embedded store).
# Servers: embedded (--data), one PostgreSQL node, and two PostgreSQL nodes on the same database.
#   wrk     (2 threads, 32 connections, 10 s; for two nodes one wrk per node, 1 thread and 16
#           connections each, figures added): GET page of 50, GET one item, durable PATCH with
#           If-Match on random rows; req/s, p50, p99
#   pull    one incremental pull page holding the 10 rows changed last (the cursor query of
#           protocol §10.5; median of 100) on tables of 10,000 and of BIG rows. PostgreSQL's BIG
#           table is written by SQL (generate_series), the embedded one is not measured at BIG
#           (loading it over HTTP takes minutes): at ROWS instead.
#   clone   `todo clone` of ROWS rows from each backend: wall time and max RSS
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rows=${ROWS:-100000}
big=${BIG:-1000000}
command -v wrk >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; }
products="todo todo-server"; [ -n "${SERVER:-}" ] && products=todo
for product in $products; do swift build -c release --product "$product" --package-path "$root" >&2; done
bin="$root/.build/release"
server=${SERVER:-$bin/todo-server}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=/tmp/todo-pg-bench
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1
  true
}
trap cleanup EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
log() { echo "== $*" >&2; }

# ---- PostgreSQL ---------------------------------------------------------------------------------
[ -f "$work/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
rm -rf "$work"; mkdir -p "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work" "$work/sock"
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 --locale=C >"$work/initdb.log"
cat >>"$work/pg/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$work/sock'
port = $pgport
max_connections = 100
shared_buffers = 256MB
EOF
as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w start >/dev/null
psql() { "$pgbin/psql" -X -q -h "$work/sock" -p "$pgport" -U postgres "$@"; }
psql -d postgres -c "CREATE DATABASE todo" -c "CREATE DATABASE todobig"
log "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on $work/sock, fsync $(psql -d todo -Atc 'show fsync'), synchronous_commit $(psql -d todo -Atc 'show synchronous_commit')"

# ---- servers ------------------------------------------------------------------------------------
start() {  # name args... -> sets port, pid
  local name=$1; shift
  mkdir -p "$work/$name"
  "$server" --data "$work/$name" --port 0 --quiet --dynamic-tables "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pid=$!; pids+=("$pid")
  for _ in $(seq 1 200); do grep -q listening "$work/$name.out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/$name.out" | head -1)
  [ -n "$port" ] || { cat "$work/$name.err" >&2; exit 1; }
}
store() { echo "postgresql:///$1?host=$work/sock&port=$pgport&user=postgres"; }

load() {  # port table count: inserts `count` items with 32 concurrent clients; prints seconds
  python3 - "$@" <<'PY'
import http.client, sys, threading, json, time
port, table, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def worker(k):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(k, n, 32):
        body = json.dumps({"id": "item%07d" % i, "text": "item %d" % i, "complete": i % 2 == 0, "priority": i % 5})
        for attempt in range(20):
            c.request("POST", "/tables/" + table, body, {"ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"})
            r = c.getresponse(); data = r.read()
            if r.status != 503: break
            # Refused at the door (too many connections from this address while the last wrk's
            # close): the answer says Retry-After, so wait and come back on a new connection.
            c.close(); time.sleep(float(r.getheader("Retry-After") or 1)); c = http.client.HTTPConnection("127.0.0.1", port)
        assert r.status == 201, (r.status, data)
t = time.perf_counter()
threads = [threading.Thread(target=worker, args=(k,)) for k in range(32)]
[t_.start() for t_ in threads]; [t_.join() for t_ in threads]
print("%.1f" % (time.perf_counter() - t))
PY
}

# pull_ms port table: changes 10 rows, then the ms of the incremental pull page that holds
# exactly them (cursor just before the first), the median of 100 runs (a mean swings with the
# machine's other work); prints "ms rows".
pull_ms() {
  python3 - "$1" "$2" <<'PY'
import http.client, sys, time, json, urllib.parse
port, table = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port)
h = {"ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"}
def call(method, path, body=None):
    c.request(method, path, body, h); r = c.getresponse(); data = r.read()
    assert r.status < 300, (r.status, data); return json.loads(data) if data else None
last = call("GET", "/tables/%s?$orderby=updatedAt%%20desc&$top=1" % table)[0]
for i in range(10):
    call("PATCH", "/tables/%s/item%07d" % (table, i * 7 + 1), json.dumps({"text": "changed %d" % i}))
f = "(updatedAt gt datetimeoffset'%s') or ((updatedAt eq datetimeoffset'%s') and (id gt '%s'))" % (last["updatedAt"], last["updatedAt"], last["id"])
q = "/tables/%s?$filter=%s&$orderby=updatedAt%%20asc,id%%20asc&$top=50&__includeDeleted=true" % (table, urllib.parse.quote(f, safe=""))
for _ in range(10): call("GET", q)
times = []
for _ in range(100):
    t = time.perf_counter(); page = call("GET", q); times.append(time.perf_counter() - t)
print("%.3f %d" % (sorted(times)[50] * 1000, len(page)))
PY
}

cat >"$work/patch.lua" <<EOF
counter = 0
request = function()
  counter = counter + 1
  local id = string.format("item%07d", (counter * 7919 + math.random(0, 1000)) % $rows)
  return wrk.format("PATCH", "/tables/todoitem/" .. id, {["ZUMO-API-VERSION"]="2.0.0", ["If-Match"]="*", ["Content-Type"]="application/json"}, '{"text":"patched ' .. counter .. '"}')
end
EOF

# wrk_run out threads connections url [lua]
wrk_run() {
  local out=$1 t=$2 c=$3 url=$4
  if [ -n "${5:-}" ]; then wrk -t"$t" -c"$c" -d10s --latency -s "$5" "$url" >"$out"
  else wrk -t"$t" -c"$c" -d10s --latency -H "ZUMO-API-VERSION: 2.0.0" "$url" >"$out"; fi
}
ms() { awk -v k="$2" '$1==k {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; printf "%.2f", v}' "$1"; }
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
non2xx() { awk '/Non-2xx/ {print $NF}' "$1" | grep . || echo 0; }

# measure label path [lua]: one row of the table per backend: embedded, pg 1 node, pg 2 nodes
declare -a table_rows
measure() {
  local label=$1 path=$2 lua=${3:-}
  wrk_run "$work/w-emb" 2 32 "http://127.0.0.1:$emb_port$path" $lua
  wrk_run "$work/w-pg1" 2 32 "http://127.0.0.1:$pg1_port$path" $lua
  wrk_run "$work/w-pg2a" 1 16 "http://127.0.0.1:$pg1_port$path" $lua & local a=$!
  wrk_run "$work/w-pg2b" 1 16 "http://127.0.0.1:$pg2_port$path" $lua; wait "$a"
  local two; two=$(echo "$(rps "$work/w-pg2a") + $(rps "$work/w-pg2b")" | bc)
  local p50b p99b
  p50b=$(printf '%s\n%s\n' "$(ms "$work/w-pg2a" 50%)" "$(ms "$work/w-pg2b" 50%)" | sort -g | tail -1)
  p99b=$(printf '%s\n%s\n' "$(ms "$work/w-pg2a" 99%)" "$(ms "$work/w-pg2b" 99%)" | sort -g | tail -1)
  table_rows+=("$(printf '| %s | %s (%s / %s ms) | %s (%s / %s ms) | %s (%s / %s ms) | %.2f |' "$label" \
    "$(rps "$work/w-emb")" "$(ms "$work/w-emb" 50%)" "$(ms "$work/w-emb" 99%)" \
    "$(rps "$work/w-pg1")" "$(ms "$work/w-pg1" 50%)" "$(ms "$work/w-pg1" 99%)" \
    "$two" "$p50b" "$p99b" "$(echo "$two / $(rps "$work/w-emb")" | bc -l)")")
  local errors; errors=$(( $(non2xx "$work/w-emb") + $(non2xx "$work/w-pg1") + $(non2xx "$work/w-pg2a") + $(non2xx "$work/w-pg2b") ))
  [ "$errors" = 0 ] || log "$label: $errors answers were not 2xx"
}

start emb; emb_port=$port; emb_pid=$pid
start pg1 --store "$(store todo)"; pg1_port=$port; pg1_pid=$pid
start pg2 --store "$(store todo)"; pg2_port=$port; pg2_pid=$pid
log "loading $rows rows over HTTP (32 clients) into each backend"
emb_load=$(load "$emb_port" todoitem "$rows")
pg_load=$(load "$pg1_port" todoitem "$rows")
psql -d todo -c "VACUUM ANALYZE todo_rows"   # planner statistics, as autovacuum would soon give them
printf 'load %d rows, 32 clients: embedded %s s (%.0f inserts/s), PostgreSQL %s s (%.0f inserts/s)\n' "$rows" \
  "$emb_load" "$(echo "$rows / $emb_load" | bc -l)" "$pg_load" "$(echo "$rows / $pg_load" | bc -l)"

log "wrk: embedded, PostgreSQL 1 node, PostgreSQL 2 nodes"
measure "GET page of 50 ($rows rows)" "/tables/todoitem?\$top=50"
measure "GET one item" "/tables/todoitem/item0004242"
measure "PATCH with If-Match, durable" "/" "$work/patch.lua"
echo
echo "| request | embedded: req/s (p50 / p99) | PostgreSQL, 1 node | PostgreSQL, 2 nodes | 2 nodes / embedded |"
echo "|---|---|---|---|---|"
printf '%s\n' "${table_rows[@]}"

log "incremental pulls of 10 changes"
small=10000
load "$pg1_port" small "$small" >/dev/null
load "$emb_port" small "$small" >/dev/null
psql -d todo -c "VACUUM ANALYZE todo_rows"
# The BIG table by SQL: the rows a load over HTTP would leave, written in one statement.
start pgbig --store "$(store todobig)"; big_port=$port
load "$big_port" todoitem 1 >/dev/null   # creates the table and its columns
psql -d todobig -c "
  INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
  SELECT 'todoitem', 'item' || lpad(i::text, 7, '0'), 'item' || lpad(i::text, 7, '0'), 1700000000000 + i, 1700000000000 + i,
         i + 10, false, jsonb_build_object('text', 'item ' || i, 'complete', i % 2 = 0, 'priority', i % 5)
  FROM generate_series(1, $big - 1) AS i ON CONFLICT DO NOTHING" \
  -c "UPDATE todo_tables SET last_version = GREATEST(last_version, $big + 10),
        last_updated_at = GREATEST(last_updated_at, 1700000000000 + $big) WHERE key = 'todoitem'" \
  -c "SELECT setval('todo_versions', GREATEST(last_value, $big + 10)) FROM todo_versions" \
  -c "VACUUM ANALYZE todo_rows" >/dev/null
read -r pg_small_ms pg_small_n < <(pull_ms "$pg1_port" small)
read -r pg_big_ms pg_big_n < <(pull_ms "$big_port" todoitem)
read -r emb_small_ms emb_small_n < <(pull_ms "$emb_port" small)
read -r emb_rows_ms emb_rows_n < <(pull_ms "$emb_port" todoitem)
echo
echo "| pull page of the 10 rows changed last | rows returned | ms |"
echo "|---|---|---|"
printf '| PostgreSQL, %d rows | %d | %s |\n| PostgreSQL, %d rows | %d | %s |\n' "$small" "$pg_small_n" "$pg_small_ms" "$big" "$pg_big_n" "$pg_big_ms"
printf '| embedded, %d rows | %d | %s |\n| embedded, %d rows | %d | %s |\n' "$small" "$emb_small_n" "$emb_small_ms" "$rows" "$emb_rows_n" "$emb_rows_ms"
printf 'ratio PostgreSQL %d / %d rows: %.2f\n' "$big" "$small" "$(echo "$pg_big_ms / $pg_small_ms" | bc -l)"

log "clone of $rows rows"
clone() {  # name port: prints "seconds MB items"
  local dir="$work/clone-$1"; mkdir -p "$dir"
  local t0 t1; t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/clone-$1.time" "$bin/todo" clone "http://127.0.0.1:$2" "$dir" >"$work/clone-$1.out" 2>&1
  t1=$(date +%s.%N)
  printf '%.2f %d %d\n' "$(echo "$t1 - $t0" | bc)" "$(( $(tail -1 "$work/clone-$1.time") / 1024 ))" "$(ls "$dir/.todo/tables/todoitem/items" | wc -l)"
}
read -r emb_clone emb_clone_mb emb_clone_n < <(clone emb "$emb_port")
read -r pg_clone pg_clone_mb pg_clone_n < <(clone pg "$pg1_port")
echo
echo "| clone of $rows rows | s | max RSS MB | items |"
echo "|---|---|---|---|"
printf '| embedded | %s | %s | %s |\n| PostgreSQL | %s | %s | %s |\n' "$emb_clone" "$emb_clone_mb" "$emb_clone_n" "$pg_clone" "$pg_clone_mb" "$pg_clone_n"
printf 'ratio clone PostgreSQL / embedded: %.2f\n' "$(echo "$pg_clone / $emb_clone" | bc -l)"
printf 'server peak memory (VmHWM): embedded %s kB, PostgreSQL node %s kB\n' \
  "$(awk '/VmHWM/ {print $2}' "/proc/$emb_pid/status")" "$(awk '/VmHWM/ {print $2}' "/proc/$pg1_pid/status")"
