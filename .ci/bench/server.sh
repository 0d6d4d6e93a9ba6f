#!/usr/bin/env bash
# Benchmark of todo-server (issue 3), on loopback. Not part of CI; prints figures, asserts nothing.
#   .ci/bench/server.sh          # installs wrk if missing; ROWS=100000 by default
# Measures, with wrk (2 threads, 32 connections, 10 s each) on a table of ROWS items:
#   a page GET of 50 items, a single-item GET, and a durable PATCH with If-Match;
# the time of one incremental pull page (cursor query of protocol §10.5) at 1,000 and at ROWS items;
# and the server's peak memory (VmHWM).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rows=${ROWS:-100000}
command -v wrk >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; }
swift build -c release --product todo-server --package-path "$root" >&2
bin="$root/.build/release/todo-server"
work=/tmp/todo-server-bench; rm -rf "$work"; mkdir -p "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

start() {  # data dir -> sets port, pid
  "$bin" --data "$1" --port 0 --quiet > "$1.out" 2> "$1.err" &
  pid=$!; pids+=("$pid")
  for _ in $(seq 1 100); do grep -q listening "$1.out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$1.out")
}

load() {  # port count: inserts `count` items with 32 concurrent clients
  python3 - "$1" "$2" <<'PY'
import http.client, sys, threading, json
port, n = int(sys.argv[1]), int(sys.argv[2])
def worker(k):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(k, n, 32):
        body = json.dumps({"id": "item%06d" % i, "text": "item %d" % i, "complete": i % 2 == 0, "priority": i % 5})
        c.request("POST", "/tables/todoitem", body, {"ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        assert r.status == 201, r.status
threads = [threading.Thread(target=worker, args=(k,)) for k in range(32)]
[t.start() for t in threads]; [t.join() for t in threads]
PY
}

pull_ms() {  # port: mean ms of one incremental pull page from a cursor near the end (100 runs)
  python3 - "$1" <<'PY'
import http.client, sys, time, json, urllib.parse
port = int(sys.argv[1])
c = http.client.HTTPConnection("127.0.0.1", port)
h = {"ZUMO-API-VERSION": "2.0.0"}
c.request("GET", "/tables/todoitem?$orderby=updatedAt%20desc&$top=60", headers=h); rows = json.loads(c.getresponse().read())
last = rows[-1]
f = "(updatedAt gt datetimeoffset'%s') or ((updatedAt eq datetimeoffset'%s') and (id gt '%s'))" % (last["updatedAt"], last["updatedAt"], last["id"])
q = "/tables/todoitem?$filter=" + urllib.parse.quote(f, safe="") + "&$orderby=updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true"
for _ in range(10): c.request("GET", q, headers=h); c.getresponse().read()
t = time.perf_counter()
for _ in range(100):
    c.request("GET", q, headers=h); r = c.getresponse(); body = r.read()
print("%.3f %d" % ((time.perf_counter() - t) * 10, len(json.loads(body))))
PY
}

cat > "$work/patch.lua" <<'EOF2'
counter = 0
request = function()
  counter = counter + 1
  local id = string.format("item%06d", (counter * 7919) % ROWS)
  return wrk.format("PATCH", "/tables/todoitem/" .. id, {["ZUMO-API-VERSION"]="2.0.0", ["If-Match"]="*", ["Content-Type"]="application/json"}, '{"text":"patched ' .. counter .. '"}')
end
EOF2
sed -i "s/ROWS/$rows/" "$work/patch.lua"

wrk_line() {  # name url [lua]: prints req/s and p99
  local out
  if [ -n "${3:-}" ]; then out=$(wrk -t2 -c32 -d10s --latency -s "$3" "$2"); else out=$(wrk -t2 -c32 -d10s --latency -H "ZUMO-API-VERSION: 2.0.0" "$2"); fi
  local rps p99 errs
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  errs=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  printf '%-44s %12s req/s   p99 %8s   non-2xx %s\n' "$1" "$rps" "$p99" "${errs:-0}"
}

start "$work/small"; small_port=$port; small_pid=$pid
load "$small_port" 1000
start "$work/big"; big_port=$port; big_pid=$pid
t0=$(date +%s.%N); load "$big_port" "$rows"; t1=$(date +%s.%N)
printf 'loaded %d items with 32 clients in %.1f s (%.0f durable inserts/s)\n' "$rows" "$(echo "$t1 - $t0" | bc)" "$(echo "$rows / ($t1 - $t0)" | bc -l)"

wrk_line "GET first page of 50 ($rows items)" "http://127.0.0.1:$big_port/tables/todoitem"
wrk_line "GET page of 50 at \$skip=5000 ($rows items)" "http://127.0.0.1:$big_port/tables/todoitem?\$top=50&\$skip=5000"
wrk_line "GET one item ($rows items)" "http://127.0.0.1:$big_port/tables/todoitem/item004242"
wrk_line "PATCH with If-Match ($rows items)" "http://127.0.0.1:$big_port/" "$work/patch.lua"
read -r small_ms small_n < <(pull_ms "$small_port")
read -r big_ms big_n < <(pull_ms "$big_port")
printf '%-44s %8.3f ms (%d rows)\n' "incremental pull page, 1,000 items" "$small_ms" "$small_n" "incremental pull page, $rows items" "$big_ms" "$big_n"
printf '%-44s %8.2f\n' "ratio pull page big / small" "$(echo "$big_ms / $small_ms" | bc -l)"
printf '%-44s %8s kB\n' "peak memory (VmHWM), $rows items" "$(awk '/VmHWM/ {print $2}' /proc/$big_pid/status)"
du -sh "$work/big" | awk '{print "data directory size: " $1}'
