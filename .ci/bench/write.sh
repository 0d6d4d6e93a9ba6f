#!/usr/bin/env bash
# The interactive commands at scale (issue 21 item 3): add, edit, done, rm and show, each run RUNS
# times (15) on distinct items in a store of ITEMS items with nothing pending (1,000,000) and in
# one of PENDING pending inserts (100,000), printing the medians of wall and CPU time (user +
# system, from wait4: scale_load.py run). Asserts nothing (the machine is shared and noisy).
#
#   .ci/bench/write.sh                              # builds the release todo and measures it
#   BINS="/tmp/old/todo .build/release/todo" .ci/bench/write.sh   # before and after, alternated
#   WORK=/tmp/mine KEEP=1 .ci/bench/write.sh        # keep the stores for the next run (slow to write)
#
# With several binaries, each round runs every command once with each binary, in turn, on
# distinct items of the same stores, so a change of load hits all of them alike.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/.ci/bench"
items_n=${ITEMS:-1000000}; pending_n=${PENDING:-100000}; runs=${RUNS:-15}
work=${WORK:-/tmp/todo-write-bench}
if [ -z "${BINS:-}" ]; then
  swift build -c release --product todo --package-path "$root" >&2
  BINS="$root/.build/release/todo"
fi
read -r -a bins <<<"$BINS"
mkdir -p "$work"
id() { printf '00000000-0000-4000-8000-%012x' $(( $1 + 1 )); }  # item i, as scale_load.py names it

# A store, written once and kept while KEEP is set; `doctor` builds the indexes a pull leaves.
prepare() {
  local dir=$1 kind=$2 n=$3
  [ -e "$dir/ready" ] && [ -n "${KEEP:-}" ] && return
  rm -rf "$dir"; mkdir -p "$dir/store"
  echo "writing $kind store of $n" >&2
  (cd "$dir/store" && "${bins[0]}" init >/dev/null)
  case $kind in
    items) python3 "$here/scale_load.py" synced "$dir/store/.todo" "$n" ;;
    pending) python3 "$here/sync_load.py" replica "$dir/store/.todo" "$n" ;;
  esac
  (cd "$dir/store" && "${bins[0]}" doctor >/dev/null 2>&1 || true)
  echo 0 > "$dir/ready"
}

declare -A W C
# one KEY DIR CMD...: appends wall and CPU ms of one run to W[KEY] and C[KEY].
one() {
  local key=$1 dir=$2; shift 2
  (cd "$dir" && python3 "$here/scale_load.py" run "$work/time.out" "$@" >/dev/null 2>>"$work/errors.log") \
    || echo "  ($key failed: see $work/errors.log)" >&2
  local wall cpu kb; read -r wall cpu kb < "$work/time.out"
  W[$key]="${W[$key]:-} $(python3 -c "print('%.2f' % ($wall*1000))")"
  C[$key]="${C[$key]:-} $(python3 -c "print('%.2f' % ($cpu*1000))")"
}

median() { python3 -c "import statistics,sys; print('%.1f' % statistics.median(map(float, sys.argv[1:])))" $1; }

for store in items pending; do
  n=$([ $store = items ] && echo "$items_n" || echo "$pending_n")
  dir="$work/$store-$n"; prepare "$dir" $store "$n"
  # Items used so far by earlier runs on a kept store: each run takes fresh ones.
  next=$(cat "$dir/ready")
  (cd "$dir/store" && "${bins[0]}" show "$(id 0)" >/dev/null)  # warms the page cache
  for r in $(seq 1 "$runs"); do
    for b in "${!bins[@]}"; do
      bin=${bins[$b]}; base=$(( next + 5 * (r * ${#bins[@]} + b) ))
      one "edit $store $b" "$dir/store" "$bin" edit "$(id $base)" --text edited
      one "done $store $b" "$dir/store" "$bin" done "$(id $(( base + 1 )))"
      one "rm $store $b" "$dir/store" "$bin" rm "$(id $(( base + 2 )))"
      one "add $store $b" "$dir/store" "$bin" add "one more"
      one "show $store $b" "$dir/store" "$bin" show "$(id $(( base + 3 )))"
    done
  done
  echo $(( next + 5 * (runs + 1) * ${#bins[@]} + 5 )) > "$dir/ready"
done

echo "medians of $runs runs, ms (wall / cpu); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-8s' command store; for b in "${!bins[@]}"; do printf '  %-22s' "bin $b wall / cpu"; done; echo
for store in items pending; do
  for cmd in edit done rm add show; do
    printf '%-8s %-8s' "$cmd" "$store"
    for b in "${!bins[@]}"; do printf '  %-22s' "$(median "${W[$cmd $store $b]}") / $(median "${C[$cmd $store $b]}")"; done
    echo
  done
done
for b in "${!bins[@]}"; do echo "bin $b: ${bins[$b]}"; done
[ -n "${KEEP:-}" ] || rm -rf "$work/items-$items_n" "$work/pending-$pending_n"
