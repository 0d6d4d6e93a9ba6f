#!/usr/bin/env bash
# The main job, with no setup: builds `todo` and `todo-server`, starts a server on loopback (a free
# port, data in a temp folder), shows it answering both protocol generations, walks a replica
# through its life offline, then syncs two replicas through the server and lives through the
# tutorial's conflict (sync.md §12, 92). Every command is printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$root" >&2
todo="$root/.build/release/todo"
server="$root/.build/release/todo-server"
work=$(mktemp -d /tmp/todo-demo-XXXXXX)
"$server" --data "$work/server-data" --port 0 > "$work/server.out" 2> "$work/server.log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$work/server.out")
echo "todo-server: listening on $url"

http() {  # method path [body] [extra header]: prints the request and the server's answer
  python3 - "$url" "$@" <<'PY'
import http.client, sys, urllib.parse
url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
body = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
headers = {"Content-Type": "application/json"}
for h in sys.argv[5:]:
    k, v = h.split(": ", 1); headers[k] = v
u = urllib.parse.urlparse(url)
c = http.client.HTTPConnection(u.hostname, u.port)
c.request(method, path, body, headers)
r = c.getresponse()
print("\n> %s %s %s %s" % (method, path, " ".join("%s: %s" % kv for kv in headers.items() if kv[0] != "Content-Type"), body or ""))
print("< %d %s %s" % (r.status, r.getheader("ETag") or "", r.read().decode()))
PY
}
http POST /tables/todoitem '{"id":"D265929E","text":"Mobile Services is Cool!","complete":false}' "ZUMO-API-VERSION: 2.0.0"
http PATCH "/tables/todoitem/D265929E?__systemproperties=__version" '{"text":"I love Azure!"}'
http PATCH /tables/todoitem/D265929E '{"text":"stale"}' "ZUMO-API-VERSION: 2.0.0" 'If-Match: "AAAAAAAAAAE="'
http GET "/tables/todoitem?\$filter=substringof('Azure',text)" "" "ZUMO-API-VERSION: 2.0.0"
http GET "/tables/todoitem?\$filter=text%20eq" "" "ZUMO-API-VERSION: 2.0.0"

mkdir -p "$work/A" "$work/B"
cd "$work/A"
run() { printf '\n[%s] $ todo %s\n' "${PWD##*/}" "$*"; "$todo" "$@" 2>&1 || printf '(exit %s)\n' "$?"; }
run init --remote "$url"
milk=$("$todo" add "Buy milk"); printf '\n[A] $ todo add "Buy milk"\n%s\n' "$milk"
run add "Pay rent" --id rent --set priority=3
run edit "${milk:0:4}" --text "Buy oat milk"
run done rent
run list --all
run status
run log
run diff
run edit rent --set __secret=1
run status --short
run doctor
printf '\nThe replica is plain files:\n'
find .todo -type f | sort

printf '\n--- Two replicas, one server ---\n'
run push
cd "$work/B"
run clone "$url" .
run list --all
cd "$work/A"
run edit rent --text "Pay rent (A)"
run push
cd "$work/B"
run edit rent --text "Pay rent (B)"
run push
run status
run diff rent
printf '\n[B] $ cat .todo/conflicts/*\n'; cat .todo/conflicts/*
run resolve rent --use-client
run push
cd "$work/A"
run pull
run show rent
run log
printf '\nThe server logged:\n'
cat "$work/server.log"
