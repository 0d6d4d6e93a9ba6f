#!/usr/bin/env bash
# Benchmark of the local path (issue 2): `todo add` and `todo status` in stores of 1,000 and
# 10,000 items with 1,000 pending operations, side by side in one run with Taskwarrior's
# `task add` and with `git status` on a repository of as many JSON files. Prints figures and
# ratios; asserts nothing (machines are shared and noisy). Not part of CI.
#
#   .ci/bench/local.sh            # needs: swift, apt-get (installs taskwarrior, hyperfine, git)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
need=(); for b in task hyperfine git python3; do command -v "$b" >/dev/null || need+=("$b"); done
if [ ${#need[@]} -gt 0 ]; then
  pkgs=(); for b in "${need[@]}"; do case $b in task) pkgs+=(taskwarrior);; *) pkgs+=("$b");; esac; done
  apt-get update -qq >/dev/null && apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
swift build -c release --product todo --package-path "$root" >&2
todo="$root/.build/release/todo"
work=/tmp/todo-bench; rm -rf "$work"; mkdir -p "$work"
runs=${RUNS:-40}

# A store with N items of which the last 1,000 are pending inserts; the others look pulled
# from a server (system properties, no operation). Synced items are written directly.
make_store() {
  local dir=$1 n=$2 synced=$(( $2 - 1000 ))
  mkdir -p "$dir"; (cd "$dir" && "$todo" init --remote http://127.0.0.1:8080 >/dev/null)
  python3 - "$dir/.todo/tables/todoitem/items" "$synced" <<'PY'
import sys, os, uuid
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    id = str(uuid.UUID(int=i + 1, version=4))
    with open(os.path.join(d, id + ".json"), "w") as f:
        f.write('{\n  "complete": false,\n  "id": "%s",\n  "ms_createdAt": "2024-05-01T09:00:00.000Z",\n'
                '  "ms_updatedAt": "2024-05-01T09:00:00.000Z",\n  "ms_version": "AAAAAAAAAAE=",\n'
                '  "text": "synced item %d"\n}\n' % (id, i))
PY
  (cd "$dir" && for i in $(seq 1 1000); do "$todo" add "pending item $i" >/dev/null; done)
}

# A Taskwarrior database with N pending tasks (imported in one go), in its own TASKRC.
make_task() {
  local dir=$1 n=$2
  mkdir -p "$dir/data"
  printf 'data.location=%s/data\nconfirmation=no\nverbose=nothing\nhooks=off\nnews.version=2.6.0\n' "$dir" > "$dir/taskrc"
  python3 -c "
import json,uuid
print(json.dumps([{'uuid':str(uuid.uuid4()),'description':'task %d'%i,'status':'pending','entry':'20240501T090000Z'} for i in range($n)]))" > "$dir/tasks.json"
  TASKRC="$dir/taskrc" task import "$dir/tasks.json" >/dev/null 2>&1
}

# A git repository of N committed JSON files.
make_git() {
  local dir=$1 n=$2
  mkdir -p "$dir"; (cd "$dir" && git init -q && python3 -c "
import os
for i in range($n):
    open('item%05d.json'%i,'w').write('{\n  \"text\": \"item %d\"\n}\n'%i)" && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
}

mean() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['mean']*1000)" "$1"; }
bench() {  # name, command...
  local name=$1; shift
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/$name.json" "$@" >/dev/null 2>&1
  mean "$work/$name.json"
}

printf '%-34s %10s\n' "step" "mean ms"
for n in 1000 10000; do
  make_store "$work/todo-$n" "$n"; make_task "$work/task-$n" "$n"; make_git "$work/git-$n" "$n"
  sync; sleep 2  # let the setup's writes reach the disk, or the first fsyncs measure them
  cd "$work/todo-$n"
  t_add=$(bench "todo-add-$n" "$todo add 'one more'")
  t_status=$(bench "todo-status-$n" "$todo status")
  cd "$work/task-$n"
  w_add=$(TASKRC="$work/task-$n/taskrc" bench "task-add-$n" "env TASKRC=$work/task-$n/taskrc task add 'one more'")
  cd "$work/git-$n"
  g_status=$(bench "git-status-$n" "git status")
  printf '%-34s %10.2f\n' "todo add ($n items)" "$t_add" "task add ($n tasks)" "$w_add" \
    "todo status ($n items, 1000 pending)" "$t_status" "git status ($n files)" "$g_status"
  python3 -c "print('%-34s %10.2f' % ('ratio todo add / task add', $t_add / $w_add)); print('%-34s %10.2f' % ('ratio todo status / git status', $t_status / $g_status))"
  eval "add_$n=$t_add"
done
python3 -c "print('%-34s %10.2f' % ('todo add 10k / todo add 1k', $add_10000 / $add_1000))"
