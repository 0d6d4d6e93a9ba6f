#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 60) and prints the executions per target.
#
#   Fuzz/run.sh [seconds]            fuzz, starting from the shipped corpus (Fixtures/Fuzz/<target>)
#   Fuzz/run.sh [seconds] --merge    then minimise the working corpus back into Fixtures/Fuzz/<target>
#
# The working corpus lives in Fuzz/.build/corpus/<target> and grows from run to run; the shipped
# corpus is only rewritten with --merge (libFuzzer -merge=1 -use_counters=0 keeps one input per new
# coverage edge: a few hundred inputs per target).
# A broken contract stops that target and leaves Fuzz/.build/artifacts/<target>-crash-<sha1>:
# copy it into Fixtures/Fuzz/<target>/ so the replay tests keep it, then fix the bug.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
merge=${2:-}
targets=(http filter records journal)
declare -A executable=([http]=FuzzHTTP [filter]=FuzzFilter [records]=FuzzRecords [journal]=FuzzJournal)

# Release speed; -enable-testing because the journal target reaches the internal Recovery.parseJournal.
swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing >/dev/null
bin=$(swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing --show-bin-path)

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
mkdir -p .build/artifacts
status=0
printf '%-8s %10s %8s %10s %8s\n' target executions seconds "exec/s" corpus
for target in "${targets[@]}"; do
  corpus=.build/corpus/$target
  shipped=../Fixtures/Fuzz/$target
  mkdir -p "$corpus"
  log=.build/artifacts/$target.log
  # The Swift backtracer would take the trap before libFuzzer could save the input.
  if ! SWIFT_BACKTRACE=enable=no TODO_FUZZ_DATA="$data/$target" "$bin/${executable[$target]}" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix=".build/artifacts/$target-" "$corpus" "$shipped" >"$log" 2>&1; then
    echo "$target: contract broken or fuzzer failed; see Fuzz/$log" >&2
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  printf '%-8s %10s %8s %10s %8s\n' "$target" "${runs:-?}" "${took:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)"
  if [ "$merge" = "--merge" ]; then
    minimised=$(mktemp -d)
    SWIFT_BACKTRACE=enable=no TODO_FUZZ_DATA="$data/$target" "$bin/${executable[$target]}" -merge=1 -use_counters=0 "$minimised" "$shipped" "$corpus" >/dev/null 2>&1
    # Keep the named inputs (seeds, crash reproducers); replace the anonymous ones, which libFuzzer
    # names by the SHA-1 of their content, so a copy of a named input is recognised and skipped.
    find "$shipped" -type f ! -name 'seed-*' ! -name 'crash-*' -delete
    named=$(find "$shipped" -type f -exec sha1sum {} + | cut -d' ' -f1)
    for file in "$minimised"/*; do
      name=$(basename "$file")
      grep -qx "$name" <<<"$named" || cp "$file" "$shipped/$name"
    done
    rm -rf "$minimised"
  fi
done
exit $status
