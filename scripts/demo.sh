#!/usr/bin/env bash
# The main job, with no setup: builds `todo` and walks through a replica's life offline
# (add, edit, collapse, status, log, diff, doctor) in a temporary folder, printing every command.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --product todo --package-path "$root" >&2
todo="$root/.build/release/todo"
work=$(mktemp -d /tmp/todo-demo-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
run() { printf '\n$ todo %s\n' "$*"; "$todo" "$@" 2>&1 || printf '(exit %s)\n' "$?"; }
run init --remote http://127.0.0.1:8080
milk=$("$todo" add "Buy milk"); printf '\n$ todo add "Buy milk"\n%s\n' "$milk"
run add "Pay rent" --id rent --set priority=3
run edit "${milk:0:4}" --text "Buy oat milk"
run done rent
run list --all
run status
run log
run diff
run rm "${milk:0:4}"
run edit rent --set __secret=1
run status --short
run doctor
printf '\nThe replica is plain files:\n'
find .todo -type f | sort
