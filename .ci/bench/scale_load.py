#!/usr/bin/env python3
"""Helper of .ci/bench/scale.sh (standard library only).

  scale_load.py synced DOTTODO N    write N items as a pull leaves them (system properties and
                                    ms_written, no operation) into an empty replica (`todo init`)
  scale_load.py run OUT CMD...      run CMD; write "<wall s> <cpu s> <peak KB>" to OUT (cpu: user +
                                    system time of CMD and the children it waited for, from wait4,
                                    to the microsecond; GNU time prints it in hundredths)
Pending inserts are written by sync_load.py's `replica` mode; ids are the same in both:
str(uuid.UUID(int=i + 1, version=4)). Both number the items as todo does (item i gets i + 1:
tables/todoitem/numbers, README "Item numbers"), so the first command does not number them all.
"""
import base64
import json
import os
import sys
import time
import uuid


def write_numbers(dottodo, keys):
    """Item numbers as todo writes them: keys[k] gets number k + 1 (256 numbers a file)."""
    folder = os.path.join(dottodo, "tables", "todoitem", "numbers")
    os.makedirs(folder, exist_ok=True)
    for start in range(0, len(keys) + 1, 256):
        bucket = {str(n): keys[n - 1] for n in range(max(1, start), min(start + 256, len(keys) + 1))}
        if bucket:
            with open(os.path.join(folder, "%06d" % (start // 256)), "w") as f:
                f.write(json.dumps({"numbers": bucket}, indent=2, sort_keys=True) + "\n")
    with open(os.path.join(folder, "next"), "w") as f:
        f.write(json.dumps({"next": len(keys) + 1}, indent=2) + "\n")


def synced(dottodo, n):
    items = os.path.join(dottodo, "tables", "todoitem", "items")
    os.makedirs(items, exist_ok=True)
    if os.listdir(items):
        sys.exit("synced: %s is not an empty replica" % dottodo)
    for i in range(n):
        id = str(uuid.UUID(int=i + 1, version=4))
        fields = {"complete": False, "text": "item %d" % i}
        written = base64.b64encode(json.dumps(fields, separators=(",", ":"), sort_keys=True).encode()).decode()
        version = base64.b64encode((i + 1).to_bytes(8, "big")).decode()
        with open(os.path.join(items, id + ".json"), "w") as f:
            f.write('{\n  "complete": false,\n  "id": "%s",\n  "ms_createdAt": "2024-05-01T09:00:00.000Z",\n'
                    '  "ms_updatedAt": "2024-05-01T09:00:00.000Z",\n  "ms_version": "%s",\n'
                    '  "ms_written": "%s",\n  "text": "item %d"\n}\n' % (id, version, written, i))
    write_numbers(dottodo, [str(uuid.UUID(int=i + 1, version=4)) for i in range(n)])


def run(out, command):
    """Runs command with this process's stdin, stdout and stderr; returns its exit status."""
    start = time.perf_counter()
    pid = os.posix_spawnp(command[0], command, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open(out, "w") as f:
        f.write("%.4f %.4f %d\n" % (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "synced":
        synced(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit(__doc__)
