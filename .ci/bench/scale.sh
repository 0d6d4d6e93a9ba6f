#!/usr/bin/env bash
# Scaling benchmark (issue 21): every command of the replica on stores of growing size, with the
# wall time, the CPU time (user + system), the peak memory and the growth factor per tenfold. Asserts nothing (machines are
# shared and noisy); the complexity guards that run in CI count calls instead (ComplexityGuardTests).
#
#   .ci/bench/scale.sh                 # SIZES="1000 10000 100000" by default; needs swift, python3
#   SIZES="1000 10000" .ci/bench/scale.sh
#
# Two stores per size N, written as files (scale_load.py, sync_load.py: the bytes todo writes):
#   items   N items as a pull leaves them, nothing pending; a server holds the same N rows (with
#           other versions: the replica's first `pull` reads and rewrites them all)
#   pending N pending inserts (N items, N operation files)
# Each command runs once per store, in an order that leaves the next one's input intact (reading
# commands first, `doctor` before the listings since it builds the index of ids a clone leaves; `status` twice: the first fills .todo/cache, the second uses it; `show` of the
# pending store before and after the local changes: the index of pending operations, .todo/cache/
# pending, is rebuilt by `doctor` and kept by add, edit, done and rm).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/.ci/bench"
sizes=${SIZES:-1000 10000 100000}
for product in todo todo-server; do swift build -c release --product "$product" --package-path "$root" >&2; done
bin="$root/.build/release"
work=/tmp/todo-scale-bench; rm -rf "$work"; mkdir -p "$work"
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; true' EXIT
first="00000000-0000-4000-8000-000000000001"   # item 0
second="00000000-0000-4000-8000-000000000002"  # item 1
third="00000000-0000-4000-8000-000000000003"   # item 2

declare -A T C M
# measure KEY DIR CMD...: one run; wall and CPU seconds and max RSS in MB (scale_load.py run: to
# the microsecond, where GNU time gives hundredths); output and errors to a log.
measure() {
  local key=$1 dir=$2; shift 2
  if ! (cd "$dir" && python3 "$here/scale_load.py" run "$work/time.out" "$@" >>"$work/commands.log" 2>&1); then
    echo "  ($key failed: see $work/commands.log)" >&2
  fi
  local wall cpu kb; read -r wall cpu kb < "$work/time.out"
  T[$key]=$wall; C[$key]=$cpu; M[$key]=$(( kb / 1024 ))
}

start_server() {
  rm -rf "$work/server"; mkdir -p "$work/server"
  "$bin/todo-server" --data "$work/server" --port 0 --quiet --dynamic-tables >"$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$work/server.out" | head -1)
}
stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=; }

for n in $sizes; do
  echo "size $n: writing stores and loading the server" >&2
  start_server
  python3 "$here/sync_load.py" load "$port" "$n" >&2
  url="http://127.0.0.1:$port"
  items="$work/items-$n"; pending="$work/pending-$n"
  mkdir -p "$items" "$pending"
  (cd "$items" && "$bin/todo" init --remote "$url" >/dev/null)
  python3 "$here/scale_load.py" synced "$items/.todo" "$n"
  (cd "$pending" && "$bin/todo" init --remote "$url" >/dev/null)
  python3 "$here/sync_load.py" replica "$pending/.todo" "$n"
  sync; sleep 1
  # Nothing pending, N items.
  measure "status1 items $n" "$items" "$bin/todo" status
  measure "status items $n" "$items" "$bin/todo" status
  measure "doctor items $n" "$items" "$bin/todo" doctor
  measure "first items $n" "$items" sh -c "'$bin/todo' list --all | head -1"
  measure "list items $n" "$items" "$bin/todo" list --all
  measure "listjson items $n" "$items" "$bin/todo" list --all --json
  measure "export items $n" "$items" "$bin/todo" export --json-lines
  measure "show items $n" "$items" "$bin/todo" show "$first"
  measure "diff items $n" "$items" "$bin/todo" diff
  measure "log items $n" "$items" "$bin/todo" log
  measure "pull items $n" "$items" "$bin/todo" pull
  measure "add items $n" "$items" "$bin/todo" add "one more"
  measure "edit items $n" "$items" "$bin/todo" edit "$first" --text "edited"
  measure "done items $n" "$items" "$bin/todo" done "$second"
  measure "rm items $n" "$items" "$bin/todo" rm "$third"
  measure "clone items $n" "$work" "$bin/todo" clone "$url" "clone-$n"
  # N pending inserts.
  measure "status1 pending $n" "$pending" "$bin/todo" status
  measure "status pending $n" "$pending" "$bin/todo" status
  measure "show1 pending $n" "$pending" "$bin/todo" show "$first"
  measure "doctor pending $n" "$pending" "$bin/todo" doctor
  measure "first pending $n" "$pending" sh -c "'$bin/todo' list --all | head -1"
  measure "list pending $n" "$pending" "$bin/todo" list --all
  measure "listjson pending $n" "$pending" "$bin/todo" list --all --json
  measure "export pending $n" "$pending" "$bin/todo" export --json-lines
  measure "diff pending $n" "$pending" "$bin/todo" diff
  measure "log pending $n" "$pending" "$bin/todo" log
  measure "add pending $n" "$pending" "$bin/todo" add "one more"
  measure "edit pending $n" "$pending" "$bin/todo" edit "$first" --text "edited"
  measure "done pending $n" "$pending" "$bin/todo" done "$second"
  measure "rm pending $n" "$pending" "$bin/todo" rm "$third"
  measure "show pending $n" "$pending" "$bin/todo" show "$second"
  stop_server; start_server  # a fresh server: every insert is new
  (cd "$pending" && "$bin/todo" remote set "http://127.0.0.1:$port" >/dev/null)
  measure "push pending $n" "$pending" "$bin/todo" push
  stop_server
  rm -rf "$items" "$pending" "$work/clone-$n" "$work/server"
done

printf '\n%-22s' "command"
for n in $sizes; do printf '%22s' "$n"; done; printf '%14s\n' "x per 10x"
printf '%-22s' "(wall s, cpu s, MB)"
for n in $sizes; do printf '%22s' "wall    cpu   MB"; done; printf '%14s\n' "(wall)"
for store in items pending; do
  for cmd in status1 status doctor first list listjson export show1 show diff log add edit done rm pull clone push; do
    [ -n "${T[$cmd $store ${sizes%% *}]:-}" ] || continue
    printf '%-22s' "$cmd ($store)"
    prev=
    growth=
    for n in $sizes; do
      printf '%9.3f %6.3f %5s' "${T[$cmd $store $n]}" "${C[$cmd $store $n]}" "${M[$cmd $store $n]}"
      if [ -n "$prev" ]; then growth="$growth $(python3 -c "a,b=$prev,${T[$cmd $store $n]}; print('%.1f' % (b/a) if a > 0 else '-')" 2>/dev/null || echo -)"; fi
      prev=${T[$cmd $store $n]}
    done
    printf '%14s\n' "${growth# }"
  done
done
echo "(wall: elapsed; cpu: user + system time of the command, what it costs whatever else the machine"
echo " runs; the interactive commands add, edit, show, rm, done are bound to 10 ms of cpu at 1,000,000"
echo " items and 100,000 pending operations, issue 21 item 3; their wall time adds the fsyncs of a commit)"
echo "(listjson: list --all --json; export: export --json-lines; first: list --all | head -1, the time to the first line)"
echo "(doctor runs before the listings: it builds the index of ids that a clone or pull leaves, as the"
echo " written stores have none; with it, list and export print in number order as they read)"
echo "(status1: the first status, which fills .todo/cache/item-stamps; status: the next one)"
echo "(show1: a show before any local change, which lists the operations folder; show: one after them,"
echo " which uses the index of pending operations that doctor rebuilt and add, edit, done, rm kept)"
