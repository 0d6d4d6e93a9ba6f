#!/usr/bin/env bash
# Regenerates Fixtures/Stores/ with the built `todo` (swift build first). Fixed clock and ids, so
# the output is the same every time. Tests copy these stores into temp folders; nothing writes here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
T=${TODO_BIN:-$here/../.build/debug/todo}
F=$here/Stores
rm -rf "$F"; mkdir -p "$F"
export TODO_TEST_NOW=1714554000000
mk() { mkdir -p "$F/$1"; (cd "$F/$1" && TODO_TEST_ID_SEED=1 "$T" init --remote http://127.0.0.1:8080 >/dev/null); }
item() { cat > "$F/$1/.todo/tables/todoitem/items/$2.json"; }

# synced: two items as pulled from a server, one query token, nothing pending.
mk synced
item synced d265929e-b17b-42d1-8fab-d0adf26486fa <<'EOF'
{
  "complete": false,
  "id": "D265929E-B17B-42D1-8FAB-D0ADF26486FA",
  "ms_createdAt": "2024-05-01T09:00:00.000Z",
  "ms_updatedAt": "2024-05-01T09:00:00.000Z",
  "ms_version": "AAAAAAAAAAE=",
  "text": "Mobile Services is Cool!"
}
EOF
item synced d2a1c3f0-0000-4000-8000-000000000002 <<'EOF'
{
  "complete": true,
  "id": "d2a1c3f0-0000-4000-8000-000000000002",
  "ms_createdAt": "2024-05-01T09:00:01.000Z",
  "ms_updatedAt": "2024-05-01T09:00:05.000Z",
  "ms_version": "AAAAAAAAAAM=",
  "note": "call Bob",
  "text": "Pay rent"
}
EOF
cat > "$F/synced/.todo/tables/todoitem/table.json" <<'EOF'
{
  "cursorMode": "cursor",
  "format": 1,
  "name": "todoitem",
  "queries": {
    "default": {
      "filter": null,
      "lastPullAt": "2024-05-01T09:00:10.000Z",
      "token": {
        "id": "d2a1c3f0-0000-4000-8000-000000000002",
        "updatedAt": "2024-05-01T09:00:05.000Z"
      }
    }
  }
}
EOF

# conflict: the tutorial's conflict as the second device sees it after a 412 (sync.md §7.2).
cp -R "$F/synced" "$F/conflict"
(cd "$F/conflict" && TODO_TEST_ID_SEED=2 "$T" edit D265929E --text "I love Azure!" >/dev/null)
cat > "$F/conflict/.todo/conflicts/todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json" <<'EOF'
{
  "base": {
    "complete": false,
    "id": "D265929E-B17B-42D1-8FAB-D0ADF26486FA",
    "ms_createdAt": "2024-05-01T09:00:00.000Z",
    "ms_updatedAt": "2024-05-01T09:00:00.000Z",
    "ms_version": "AAAAAAAAAAE=",
    "text": "Mobile Services is Cool!"
  },
  "client": {
    "complete": false,
    "id": "D265929E-B17B-42D1-8FAB-D0ADF26486FA",
    "ms_createdAt": "2024-05-01T09:00:00.000Z",
    "ms_updatedAt": "2024-05-01T09:00:00.000Z",
    "ms_version": "AAAAAAAAAAE=",
    "text": "I love Azure!"
  },
  "detectedAt": "2024-05-02T08:15:30.120Z",
  "detectedBy": "push",
  "fields": [
    "text"
  ],
  "format": 1,
  "id": "D265929E-B17B-42D1-8FAB-D0ADF26486FA",
  "message": null,
  "operation": {
    "kind": "update",
    "sequence": 1
  },
  "reason": "conflict",
  "resolved": null,
  "server": {
    "complete": false,
    "id": "D265929E-B17B-42D1-8FAB-D0ADF26486FA",
    "ms_createdAt": "2024-05-01T09:00:00.000Z",
    "ms_deleted": false,
    "ms_updatedAt": "2024-05-02T08:12:00.000Z",
    "ms_version": "AAAAAAAAAAI=",
    "text": "I love Mobile Services!"
  },
  "status": 412,
  "table": "todoitem"
}
EOF

# unknown-format: written by a newer todo.
mk unknown-format
printf '{\n  "format": 2\n}\n' > "$F/unknown-format/.todo/format.json"

# corrupt-operation: an operation whose kind is not insert, update or delete.
mk corrupt-operation
(cd "$F/corrupt-operation" && TODO_TEST_ID_SEED=3 "$T" add "Buy milk" >/dev/null)
for f in "$F"/corrupt-operation/.todo/operations/*; do sed -i 's/"kind": "insert"/"kind": "upsert"/' "$f"; done

# torn-journal: a command killed after its commit point (journal written, no target yet), with a
# torn temp file of the journal of an even later attempt.
mk torn-journal
cat > "$F/torn-journal/.todo/journal.json" <<'EOF'
{
  "format": 1,
  "generation": 1,
  "writes": [
    {
      "content": {
        "attempted": false,
        "base": null,
        "format": 1,
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "item": {
          "complete": false,
          "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
          "text": "Buy milk"
        },
        "kind": "insert",
        "queuedAt": "2024-05-01T09:00:00.000Z",
        "sequence": 1,
        "table": "todoitem"
      },
      "path": "operations/0000000001.insert.todoitem.0f8fad5b-d9cb-469f-a165-70867728950e.json"
    },
    {
      "content": {
        "format": 1,
        "generation": 1,
        "nextReceipt": 1,
        "nextSequence": 2
      },
      "path": "state.json"
    },
    {
      "content": {
        "complete": false,
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "text": "Buy milk"
      },
      "path": "tables/todoitem/items/0f8fad5b-d9cb-469f-a165-70867728950e.json"
    }
  ]
}
EOF
printf '{"format": 1, "gen' > "$F/torn-journal/.todo/.journal.json.tmp"

# stale-lock: the lock file names a process that is gone; flock means it blocks nobody.
mk stale-lock
echo "999999 todo push" > "$F/stale-lock/.todo/lock"

# Empty lock files are runtime artefacts, not fixture content.
find "$F" -name lock -size 0 -delete
