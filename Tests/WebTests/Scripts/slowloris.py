#!/usr/bin/python3
"""Half-open requests against patchbay-web: HEADS connections that send a request head a few
bytes at a time and never finish it, and BODIES that send a whole head announcing a body, then
trickle the body. Prints "open H B" once all are connected, then "closed KIND N" each time the
server has closed N of a kind, and "done" when all are closed or after LIFETIME seconds."""
import socket
import sys
import time

port, heads, bodies, lifetime = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
kinds = {"head": [], "body": []}
for kind, count in (("head", heads), ("body", bodies)):
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        if kind == "head":
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        else:
            s.sendall(b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      b"Content-Length: 4000\r\n\r\n")
        s.setblocking(False)
        kinds[kind].append(s)
print("open", heads, bodies, flush=True)
closed = {"head": set(), "body": set()}
reported = {"head": -1, "body": -1}
start = time.monotonic()
while time.monotonic() - start < lifetime:
    for kind, sockets in kinds.items():
        for index, s in enumerate(sockets):
            if index in closed[kind]:
                continue
            try:
                data = s.recv(4096)
                if data == b"":
                    closed[kind].add(index)
                    continue
            except BlockingIOError:
                pass
            except OSError:
                closed[kind].add(index)
                continue
            try:
                s.send(b"X-Slow: 1\r\n" if kind == "head" else b"a")
            except BlockingIOError:
                pass
            except OSError:
                closed[kind].add(index)
        if len(closed[kind]) != reported[kind]:
            reported[kind] = len(closed[kind])
            print("closed", kind, reported[kind], flush=True)
    if len(closed["head"]) == heads and len(closed["body"]) == bodies:
        break
    time.sleep(2)
print("done", flush=True)
