#!/usr/bin/env bash
# Benchmark of sync over https (issue 20 item 1): the path users take, todo-server behind nginx
# with TLS, side by side with plain http to the same server, in one run on this machine, all on
# loopback. Prints figures and ratios; asserts nothing (machines are shared and noisy). Not part
# of CI. Taskwarrior + taskd (always TLS) are measured by sync.sh next door.
#
#   .ci/bench/sync-https.sh   # needs swift, python3, openssl, nginx (installs nginx-light, time if
#                             # missing); a few minutes
#   RUNS=3                    # runs per step (median reported); KEEP=1 keeps /tmp/todo-sync-https-bench and the clones
#   CLONE_DIR=DIR             # where the clones go (default: /dev/shm/todo-sync-https-clones, a tmpfs; see below)
#   LEGS="http https"         # only these legs (default: all that can run here; ratios need http)
#   PROXY_CONNECTIONS=N       # push connections of the http-nginx and https legs (default: https's own)
#
# Six legs, each against its own fresh todo-server (release build) for the push:
#   http         todo -> todo-server
#   http-nginx   todo -> nginx -> todo-server, plain http through the same config (its TLS lines
#                dropped) and the https leg's push connections: the proxy's cost without TLS's
#   https        todo (TLS inside, the system's OpenSSL; `--ca-file` with the throwaway CA) -> nginx -> todo-server
#   https-stream todo (TLS inside) -> nginx's stream module (TLS only; the decrypted bytes passed on
#                as they are, so the server sees the pipelines, after a PROXY protocol header) ->
#                todo-server --proxy-protocol; the repo's deploy/nginx/todo-server-stream.conf;
#                where libnginx-mod-stream is installed
#   https-curl   todo -> todo-remote-https (libcurl, `--ca-file`; forced with TODO_REMOTE_HELPER_FOR_HTTPS=1) -> nginx -> ...
#   https-sys    todo -> todo-remote-https (URLSession, the CA in the system store) -> nginx -> todo-server;
#              the store is the system's file bind-mounted over in a private mount namespace
#              (`unshare -rm`), so the machine's store is never touched; left out where not allowed
# Steps: push of 10,000 pending inserts (sync_load.py writes them), clone of those 10,000, an
# incremental pull of 10 rows changed by raw PATCHes. Wall time, CPU (user+sys of todo and its
# helpers) and max RSS of each command, and the CPU todo-server and the nginx worker used meanwhile.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/.ci/bench"
runs=${RUNS:-3}
need=(); command -v python3 >/dev/null || need+=(python3); command -v openssl >/dev/null || need+=(openssl)
[ -x /usr/bin/time ] || need+=(time); [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for p in todo todo-server todo-remote-https; do swift build -c release --product "$p" --package-path "$root" >&2; done
todo="$root/.build/release/todo"; server="$root/.build/release/todo-server"; helper_bin="$root/.build/release/todo-remote-https"
load=(python3 "$here/sync_load.py")

work=/tmp/todo-sync-https-bench; rm -rf "$work"; mkdir -p "$work"
# Clones go to a tmpfs (CLONE_DIR, default /dev/shm/todo-sync-https-clones): on ext4 without a
# journal (this machine's /), creating a file scans the inodes of its block group deleted in the
# last minutes (recently_deleted). A clone made after a push removed 10,000 operation files, or
# after the previous run's folder was removed, cost 7-9 s of system CPU instead of 0.8 s, in
# whichever legs it happened to hit (perf: recently_deleted, find_get_block_common; libcrypto at
# 0.06%), so the clone ratios measured the file system, not the path. The legs differ only in
# the path, so they are compared on a file system without that noise; sync.sh measures a clone on
# disk. Pushes stay in $work (their folders in block groups of their own, as in sync.sh).
chattr +T "$work" 2>/dev/null || true
clones=${CLONE_DIR:-/dev/shm/todo-sync-https-clones}; rm -rf "$clones"; mkdir -p "$clones"
pids=(); server_pid=; nginx_worker=
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${KEEP:-}" ] || rm -rf "$work" "$clones"
}
trap cleanup EXIT
log() { echo "== $*" >&2; }
die() { echo "sync-https.sh: $*" >&2; exit 1; }
fails=()
check() { if [ "$2" = "$3" ]; then :; else echo "   CHECK FAILED: $1: expected $2, got $3" >&2; fails+=("$1"); fi; }
proc_cpu() { [ -n "$1" ] && awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat" 2>/dev/null || echo 0; }
measure() {  # name cmd...: sets wall, cpu, rss (children included: the helpers are todo's children),
             # and srv_cpu, ngx_cpu: CPU of the current todo-server and nginx worker meanwhile
  local name=$1 s e s_srv s_ngx; shift
  s_srv=$(proc_cpu "$server_pid"); s_ngx=$(proc_cpu "$nginx_worker")
  s=$(date +%s.%N)
  set +e; /usr/bin/time -f '%U %S %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"; rc=$?; set -e
  e=$(date +%s.%N)
  wall=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}')
  read -r cpu rss < <(tail -1 "$work/$name.time" | awk '{printf "%.2f %.1f\n", $1 + $2, $3/1024}')
  srv_cpu=$(awk -v a="$s_srv" -v b="$(proc_cpu "$server_pid")" 'BEGIN{printf "%.2f", b-a}')
  ngx_cpu=$(awk -v a="$s_ngx" -v b="$(proc_cpu "$nginx_worker")" 'BEGIN{printf "%.2f", b-a}')
  echo "   $name: ${wall} s, CPU ${cpu} s, max RSS ${rss} MB, exit $rc; todo-server CPU ${srv_cpu} s, nginx CPU ${ngx_cpu} s" >&2
  [ "$rc" = 0 ] || { fails+=("$name exited $rc"); tail -3 "$work/$name.err" | sed 's/^/   | /' >&2; }
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pending() { "$todo" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pending"]))'; }
items() { find "$1/.todo/tables/todoitem/items" -name '*.json' | wc -l; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_server() {  # data dir [more options] -> port
  "$server" --data "$1" --port 0 --quiet --dynamic-tables "${@:2}" >"$1.out" 2>"$1.err" &
  server_pid=$!; pids+=("$server_pid")
  for _ in $(seq 1 100); do grep -q listening "$1.out" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's|^listening on http://[^:]*:\([0-9]*\)$|\1|p' "$1.out"); [ -n "$port" ] || die "todo-server did not start"
}
start_nginx() {  # upstream port [plain|stream] -> nginx_port; the repo's config with this run's port,
                 # certificate, upstream; "plain": http, the config's ssl lines dropped; "stream":
                 # the repo's stream config (TLS only, then the PROXY protocol) instead
  local dir="$work/nginx-$1"; mkdir -p "$dir"; nginx_port=$(free_port)
  local config="$root/deploy/nginx/todo-server.conf" stream=""
  [ "${2:-}" = stream ] && { config="$root/deploy/nginx/todo-server-stream.conf"; stream="load_module $stream_module;"; }
  local tls=(-e "s|listen 443 ssl;|listen 127.0.0.1:$nginx_port ssl;|")
  [ "${2:-}" = plain ] && tls=(-e "s|listen 443 ssl;|listen 127.0.0.1:$nginx_port;|" -e '/^ *ssl_/d')
  sed -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$1;|" "${tls[@]}" \
      -e "s|/etc/ssl/todo-server/fullchain.pem|$work/cert.pem|" -e "s|/etc/ssl/todo-server/privkey.pem|$work/key.pem|" \
      "$config" >"$dir/site.conf"
  grep -q "listen 127.0.0.1:$nginx_port" "$dir/site.conf" || die "$config has no 'listen 443 ssl;' line"
  local http_site="$dir/site.conf" stream_site=""
  [ -z "$stream" ] || { stream_site="include $dir/site.conf;"; http_site=/dev/null; }
  { [ "$(id -u)" = 0 ] && echo "user root;"; echo "$stream"; echo "$stream_site"; cat <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 256; }
http { access_log off; client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/f; uwsgi_temp_path $dir/u; scgi_temp_path $dir/s; include $http_site; }
EOF
  } >"$dir/nginx.conf"
  "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' 2>"$dir/nginx.err" &
  local master=$!; pids+=("$master")
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null; then nginx_worker=$(pgrep -P "$master" | head -1); return; fi
    sleep 0.05
  done
  cat "$dir/nginx.err" "$dir/error.log" >&2; die "nginx did not start"
}

log "a throwaway CA and a certificate for 127.0.0.1 (openssl)"
( cd "$work" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca-key.pem -out ca.pem \
    -days 1 -subj '/CN=todo bench CA' -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
  && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out cert.csr -subj /CN=127.0.0.1 \
  && printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >cert.ext \
  && openssl x509 -req -in cert.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 1 -extfile cert.ext -out cert.pem ) >/dev/null 2>&1 \
  || die "openssl failed"
legs=(http http-nginx https https-curl)
stream_module=/usr/lib/nginx/modules/ngx_stream_module.so
if [ -f "$stream_module" ]; then legs+=(https-stream); else echo "   (https-stream left out: no $stream_module; apt-get install libnginx-mod-stream)" >&2; fi
system_ca=/etc/ssl/certs/ca-certificates.crt
if [ -f "$system_ca" ] && unshare -rm sh -c "mount --bind $system_ca $system_ca" 2>/dev/null; then
  cat "$system_ca" "$work/ca.pem" >"$work/system-plus-ca.pem"
  printf '#!/bin/sh\nexec unshare -rm sh -c '\''mount --bind "$0" %s && exec "$@"'\'' %s %s "$@"\n' \
    "$system_ca" "$work/system-plus-ca.pem" "$helper_bin" >"$work/helper-system-store"
  chmod +x "$work/helper-system-store"; legs+=(https-sys)
else
  echo "   (https-sys left out: no private mount namespaces here)" >&2
fi
if [ -n "${LEGS:-}" ]; then
  wanted=(); for leg in "${legs[@]}"; do [[ " $LEGS " == *" $leg "* ]] && wanted+=("$leg"); done; legs=("${wanted[@]}")
fi

# Connections of an https push (SyncRunner); the http-nginx leg opens as many. PROXY_CONNECTIONS=N
# sets both legs' (http-nginx, https) to N, to try another number.
https_connections=16
proxy_env=(); [ -n "${PROXY_CONNECTIONS:-}" ] && proxy_env=(TODO_PUSH_CONNECTIONS="$PROXY_CONNECTIONS")
# leg -> url, options for clone/init, environment
leg_setup() {  # leg upstream-port
  leg_env=(env); leg_opts=(); nginx_worker=
  case $1 in
    http) url="http://127.0.0.1:$2" ;;
    # As many push connections as an https push opens (SyncRunner), so that only TLS differs.
    http-nginx) start_nginx "$2" plain; url="http://127.0.0.1:$nginx_port"
      leg_env=(env TODO_PUSH_CONNECTIONS="$https_connections" "${proxy_env[@]}") ;;
    https) start_nginx "$2"; url="https://127.0.0.1:$nginx_port"; leg_opts=(--ca-file "$work/ca.pem")
      leg_env=(env "${proxy_env[@]}") ;;
    https-stream) start_nginx "$2" stream; url="https://127.0.0.1:$nginx_port"; leg_opts=(--ca-file "$work/ca.pem") ;;
    https-curl) start_nginx "$2"; url="https://127.0.0.1:$nginx_port"; leg_opts=(--ca-file "$work/ca.pem")
      leg_env=(env TODO_REMOTE_HELPER_FOR_HTTPS=1) ;;
    https-sys) start_nginx "$2"; url="https://127.0.0.1:$nginx_port"
      leg_env=(env TODO_REMOTE_HELPER_FOR_HTTPS=1 TODO_REMOTE_HELPER="$work/helper-system-store") ;;
  esac
}

declare -A result
for leg in "${legs[@]}"; do
  log "$leg: push of 10,000 ($runs runs, each to a fresh server), clone of 10,000 ($runs runs), pull of 10"
  walls=(); cpus=(); rsss=(); srvs=(); ngxs=()
  for r in $(seq 1 "$runs"); do
    # The stream leg's server reads the PROXY header nginx sends; sync_load.py then sends one too.
    if [ "$leg" = https-stream ]; then export SYNC_LOAD_PROXY_PROTOCOL=1; server_opts=(--proxy-protocol)
    else unset SYNC_LOAD_PROXY_PROTOCOL; server_opts=(); fi
    start_server "$work/srv-$leg-$r" "${server_opts[@]}"; leg_setup "$leg" "$port"; last_port=$port
    mkdir -p "$work/push-$leg-$r" && cd "$work/push-$leg-$r"
    "${leg_env[@]}" "$todo" init --remote "$url" "${leg_opts[@]}" >/dev/null
    "${load[@]}" replica "$work/push-$leg-$r/.todo" 10000
    sync; sleep 1
    measure "push-$leg-$r" "${leg_env[@]}" "$todo" push; walls+=("$wall"); cpus+=("$cpu"); rsss+=("$rss"); srvs+=("$srv_cpu"); ngxs+=("$ngx_cpu")
    check "$leg: pending after push $r" 0 "$(pending)"
    check "$leg: rows on the server after push $r" 10000 "$("${load[@]}" count "$port")"
  done
  result[$leg.push]="$(median "${walls[@]}") $(median "${cpus[@]}") $(median "${rsss[@]}") $(median "${srvs[@]}") $(median "${ngxs[@]}")"
  walls=(); cpus=(); rsss=(); srvs=(); ngxs=()
  for r in $(seq 1 "$runs"); do
    cd "$work"; measure "clone-$leg-$r" "${leg_env[@]}" "$todo" clone "$url" "$clones/clone-$leg-$r" "${leg_opts[@]}"
    walls+=("$wall"); cpus+=("$cpu"); rsss+=("$rss"); srvs+=("$srv_cpu"); ngxs+=("$ngx_cpu")
    check "$leg: items in clone $r" 10000 "$(items "$clones/clone-$leg-$r")"
  done
  result[$leg.clone]="$(median "${walls[@]}") $(median "${cpus[@]}") $(median "${rsss[@]}") $(median "${srvs[@]}") $(median "${ngxs[@]}")"
  walls=(); cpus=(); rsss=(); srvs=(); ngxs=()
  cd "$clones/clone-$leg-1"
  for r in $(seq 1 "$runs"); do
    "${load[@]}" patch "$last_port" 10000 "$r" || fails+=("patch $leg $r")
    measure "pull-$leg-$r" "${leg_env[@]}" "$todo" pull; walls+=("$wall"); cpus+=("$cpu"); rsss+=("$rss"); srvs+=("$srv_cpu"); ngxs+=("$ngx_cpu")
  done
  result[$leg.pull]="$(median "${walls[@]}") $(median "${cpus[@]}") $(median "${rsss[@]}") $(median "${srvs[@]}") $(median "${ngxs[@]}")"
done

echo
echo "sync over https: todo $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), nginx $("$nginx" -v 2>&1 | sed 's|.*/||');" \
  "$(nproc) CPU(s); load avg $(cut -d' ' -f1-3 /proc/loadavg) at end; medians of $runs runs"
echo "(wall s, CPU s = user+sys of todo and its helpers, max RSS MB of the largest process; ratio = leg / http wall;"
echo " server s, nginx s = CPU of todo-server and of the nginx worker during the step)"
printf '%-22s %-12s %9s %9s %9s %9s %9s %7s\n' step leg "wall s" "CPU s" "RSS MB" "server s" "nginx s" ratio
for step in push clone pull; do
  read -r base _ <<<"${result[http.$step]}"
  case $step in push) label="push 10,000";; clone) label="clone 10,000";; pull) label="pull of 10 changes";; esac
  for leg in "${legs[@]}"; do
    read -r w c m sc nc <<<"${result[$leg.$step]}"
    printf '%-22s %-12s %9s %9s %9s %9s %9s %7s\n' "$label" "$leg" "$w" "$c" "$m" "$sc" "$nc" "$(awk -v a="$w" -v b="$base" 'BEGIN{printf "%.2f", a/b}')"
  done
done
echo "issue 20's targets: https push within 1.5x of http, clone within 1.2x"
[ ${#fails[@]} -eq 0 ] || { echo "FAILED CHECKS:"; printf '  %s\n' "${fails[@]}"; }
