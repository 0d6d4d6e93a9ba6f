#!/usr/bin/env python3
"""Helpers of .ci/bench/sync.sh (standard library only). Item i (0-based) has the id
str(uuid.UUID(int=i + 1, version=4)), on the server and in replicas alike.

  sync_load.py replica DOTTODO N      write N pending inserts into an empty replica (`todo init`)
  sync_load.py load PORT N [CLIENTS]  POST N rows to the server, CLIENTS keep-alive connections (32)
  sync_load.py patch PORT N ROUND     PATCH 10 rows spread over a table of N rows (If-Match: *)
  sync_load.py count PORT             rows in the server's todoitem table ($inlinecount)

With SYNC_LOAD_PROXY_PROTOCOL=1 every connection opens with a PROXY protocol header, for a
todo-server started with --proxy-protocol.
"""
import http.client
import json
import os
import sys
import threading
import uuid

HEADERS = {"ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"}


class ProxiedConnection(http.client.HTTPConnection):
    """A connection that opens with a PROXY protocol v1 header naming 127.0.0.1."""

    def connect(self):
        super().connect()
        self.sock.sendall(b"PROXY TCP4 127.0.0.1 127.0.0.1 0 %d\r\n" % self.port)


def connection(port):
    proxied = os.environ.get("SYNC_LOAD_PROXY_PROTOCOL") == "1"
    return (ProxiedConnection if proxied else http.client.HTTPConnection)("127.0.0.1", port)


def item_id(i):
    return str(uuid.UUID(int=i + 1, version=4))


def replica(dottodo, n):
    """Pending inserts as `todo add` writes them (README "The .todo format", sync.md §2.2): one item
    file (id and user fields) and one operation file per item, then state.json's nextSequence
    above the last sequence. Bytes match the canonical writer (sorted keys, two-space indents)."""
    ops = os.path.join(dottodo, "operations")
    items = os.path.join(dottodo, "tables", "todoitem", "items")
    if os.listdir(ops) or os.listdir(items):
        sys.exit("replica: %s is not an empty replica" % dottodo)
    for i in range(n):
        id, seq = item_id(i), i + 1
        with open(os.path.join(items, id + ".json"), "w") as f:
            f.write('{\n  "complete": false,\n  "id": "%s",\n  "text": "item %d"\n}\n' % (id, i))
        with open(os.path.join(ops, "%010d.insert.todoitem.%s.json" % (seq, id)), "w") as f:
            f.write('{\n  "attempted": false,\n  "base": null,\n  "format": 1,\n  "id": "%s",\n'
                    '  "item": {\n    "complete": false,\n    "id": "%s",\n    "text": "item %d"\n  },\n'
                    '  "kind": "insert",\n  "queuedAt": "2024-05-01T09:00:00.000Z",\n  "sequence": %d,\n'
                    '  "table": "todoitem"\n}\n' % (id, id, i, seq))
    from scale_load import write_numbers
    write_numbers(dottodo, [item_id(i) for i in range(n)])
    path = os.path.join(dottodo, "state.json")
    with open(path) as f:
        state = json.load(f)
    state["nextSequence"] = n + 1
    with open(path, "w") as f:
        f.write(json.dumps(state, indent=2, sort_keys=True) + "\n")


def load(port, n, clients):
    errors = []

    def worker(k):
        try:
            c = connection(port)
            for i in range(k, n, clients):
                body = json.dumps({"id": item_id(i), "text": "item %d" % i, "complete": False})
                c.request("POST", "/tables/todoitem", body, HEADERS)
                r = c.getresponse()
                r.read()
                if r.status != 201:
                    raise RuntimeError("POST item %d: HTTP %d" % (i, r.status))
        except Exception as e:  # reported after the join
            errors.append(str(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        sys.exit("load: %d client(s) failed, first: %s" % (len(errors), errors[0]))


def patch(port, n, rnd):
    c = connection(port)
    stride = n // 10
    for k in range(10):
        i = (k * stride + rnd * 7919) % n
        c.request("PATCH", "/tables/todoitem/" + item_id(i),
                  json.dumps({"text": "patched in round %d" % rnd}), dict(HEADERS, **{"If-Match": "*"}))
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            sys.exit("patch item %d: HTTP %d %s" % (i, r.status, body[:200]))


def count(port):
    c = connection(port)
    c.request("GET", "/tables/todoitem?$top=0&$inlinecount=allpages", headers=HEADERS)
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("count: HTTP %d %s" % (r.status, body[:200]))
    print(json.loads(body)["count"])


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "replica":
        replica(args[0], int(args[1]))
    elif cmd == "load":
        load(int(args[0]), int(args[1]), int(args[2]) if len(args) > 2 else 32)
    elif cmd == "patch":
        patch(int(args[0]), int(args[1]), int(args[2]))
    elif cmd == "count":
        count(int(args[0]))
    else:
        sys.exit(__doc__)
