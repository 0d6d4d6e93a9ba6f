#!/usr/bin/env bash
# Connection-exhaustion benchmark of todo-server (issue 17 item 1), on loopback. Not part of CI;
# prints figures, asserts nothing.
#   .ci/bench/attack.sh                      # builds the release binary
#   TODO_SERVER_BIN=/path/to/todo-server .ci/bench/attack.sh    # another build (e.g. an older one)
#   IDLE=2000 SLOWLORIS=200 REQUESTS=400 .ci/bench/attack.sh    # the defaults
# Starts todo-server with an app key (from TODO_SERVER_APP_KEY), then attack.py: a normal client on
# 127.0.0.2 sends authenticated GETs on new connections, without and with an attacker on 127.0.0.1
# holding IDLE idle and SLOWLORIS slow-header connections; prints the client's p50/p99 and failures.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TODO_SERVER_BIN:-}
if [ -z "$bin" ]; then
  swift build -c release --product todo-server --package-path "$root" >&2
  bin="$root/.build/release/todo-server"
fi
ulimit -n 20000 2>/dev/null || true  # the attacker's sockets, and the server's
work=$(mktemp -d /tmp/todo-attack-bench.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
key=bench-$RANDOM$RANDOM
TODO_SERVER_APP_KEY=$key "$bin" --data "$work/data" --port 0 --quiet > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/out")
[ -n "$port" ] || { cat "$work/err" >&2; exit 1; }
python3 "$root/.ci/bench/attack.py" "$port" "$key" "${IDLE:-2000}" "${SLOWLORIS:-200}" "${REQUESTS:-400}"
echo "server: $(grep -E 'VmHWM|Threads' /proc/$pid/status | tr -s ' \t' ' ' | paste -sd, -)"
