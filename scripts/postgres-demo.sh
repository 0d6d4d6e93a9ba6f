#!/usr/bin/env bash
# The second job (issue 18): two `todo-server` nodes on one PostgreSQL. Starts a throwaway
# PostgreSQL (initdb into a temp folder, a unix socket only), two nodes on two ports, a replica
# against each, lives through a conflict across the nodes, stops and starts PostgreSQL under them
# (503, then back by themselves), and migrates an embedded server's data directory into a new
# database with `todo-server migrate`, its replica going on as before. Every command is printed;
# everything is removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$root" >&2
todo="$root/.build/release/todo"
server="$root/.build/release/todo-server"
pgbin=${TODO_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
work=$(mktemp -d /tmp/todo-pg-demo-XXXXXX)
pg=()  # initdb and the server refuse to run as root: then as the postgres user
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; pg=(runuser -u postgres --); fi
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  "${pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n$ %s\n' "$*"; }
pgctl() { say "pg_ctl $1"; "${pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -o "-k $work -c listen_addresses=''" -m fast -w "$1" >/dev/null; }

say "initdb -D $work/pg -U postgres -A trust"
"${pg[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres -A trust --no-instructions >/dev/null
pgctl start
say "createdb -h $work -U postgres todo"
"${pg[@]}" "$pgbin/createdb" -h "$work" -U postgres todo
store="postgresql:///todo?host=$work&user=postgres"

node() {  # name, then more options: starts a node, sets $url to where it listens
  local name=$1; shift
  say "todo-server --data $name-data ${*:+$* }--port ${port:-0} &"
  "$server" --data "$work/$name-data" "$@" --port "${port:-0}" > "$work/$name.out" 2> "$work/$name.log" &
  pids+=($!)
  for _ in $(seq 1 200); do grep -q listening "$work/$name.out" 2>/dev/null && break; sleep 0.05; done
  url=$(sed -n 's/^listening on //p' "$work/$name.out")
  echo "$name: listening on $url"
}
node node1 --store "$store"; url1=$url
node node2 --store "$store"; url2=$url

get() {  # url path: prints the request and the answer's status and body
  python3 - "$@" <<'PY'
import http.client, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c.request("GET", sys.argv[2], headers={"ZUMO-API-VERSION": "2.0.0"})
r = c.getresponse()
print("\n> GET %s%s\n< %d %s" % (sys.argv[1], sys.argv[2], r.status, r.read().decode()))
PY
}

mkdir -p "$work/A" "$work/B" "$work/C"
run() { printf '\n[%s] $ todo %s\n' "${PWD##*/}" "$*"; "$todo" "$@" 2>&1 || printf '(exit %s)\n' "$?"; }
printf '\n--- Two nodes, one database: replica A on node 1, replica B on node 2 ---\n'
cd "$work/A"
run init --remote "$url1"
run add "Pay rent" --id rent
run push
cd "$work/B"
run clone "$url2" .
run list
cd "$work/A"
run edit rent --text "Pay rent (A)"
run push
cd "$work/B"
run edit rent --text "Pay rent (B)"
run push
run resolve rent --use-client
run push
cd "$work/A"
run pull
run show rent

printf '\n--- PostgreSQL stops under the nodes, then starts again ---\n'
pgctl stop
get "$url1" /tables/todoitem/rent
cd "$work/A"
run edit rent --text "Pay rent (offline)"
run push
pgctl start
get "$url2" /tables/todoitem/rent
run push
cd "$work/B"
run pull
run show rent

printf '\n--- Migrating an embedded server to PostgreSQL ---\n'
node embedded
cd "$work/C"
run init --remote "$url"
run add "Water the plants" --id plants
run push
run pull
embedded_url=$url
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'
say "createdb -h $work -U postgres migrated"
"${pg[@]}" "$pgbin/createdb" -h "$work" -U postgres migrated
say "todo-server migrate --from embedded-data --to 'postgresql:///migrated?host=$work&user=postgres'"
"$server" migrate --from "$work/embedded-data" --to "postgresql:///migrated?host=$work&user=postgres"
port=${embedded_url##*:} node node3 --store "postgresql:///migrated?host=$work&user=postgres"
cd "$work/C"
run pull
run edit plants --text "Water the plants (after the move)"
run push
get "$url" /tables/todoitem/plants
