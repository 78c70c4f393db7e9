#!/usr/bin/env python3
"""How long `indexer serve` takes to stop: the time from SIGTERM (or SIGINT, as Ctrl-C sends)
to the process's exit, over several runs, median, least and most. Each run starts the server
on a free loopback port and waits 0.3 s before the signal, with one of these clients:

  none       no connection
  request    one request answered, its connection closed
  keepalive  one request answered, its connection kept open (as a browser does)
  idle       a connection opened and left silent (as a browser's preconnect)
  halfway    a connection that sent half a request and waits (held the server for ever
             before issue 28, then for the 3 s grace of requests in progress; since issue 30
             a connection with no request in progress is closed at once)

usage: benches/serve_stop.py BINARY INDEX [RUNS] [TERM|INT] [CLIENT]
"""
import signal
import socket
import statistics
import subprocess
import sys
import time

binary, index = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
sent = signal.SIGINT if len(sys.argv) > 4 and sys.argv[4] == "INT" else signal.SIGTERM
client = sys.argv[5] if len(sys.argv) > 5 else "none"
times = []
for _ in range(runs):
    server = subprocess.Popen(
        [binary, "serve", index, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    address = server.stdout.readline().split()[-1].removeprefix("http://")
    host, port = address.rsplit(":", 1)
    held = None
    if client != "none":
        held = socket.create_connection((host, int(port)))
        if client in ("request", "keepalive"):
            close = "Connection: close\r\n" if client == "request" else ""
            held.sendall(f"GET /api/stats HTTP/1.1\r\nHost: localhost\r\n{close}\r\n".encode())
            held.recv(1 << 20)
        elif client == "halfway":
            held.sendall(b"GET /?q=owner")
    time.sleep(0.3)
    start = time.monotonic()
    server.send_signal(sent)
    try:
        server.wait(timeout=60)
        times.append(time.monotonic() - start)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        times.append(float("inf"))
    if held:
        held.close()
def shown(seconds):
    return "over 60 s" if seconds == float("inf") else f"{seconds * 1000:.0f} ms"


print(
    f"{sent.name} {client}: median {shown(statistics.median(times))}, "
    f"least {shown(min(times))}, most {shown(max(times))} over {runs} runs "
    f"({', '.join(shown(t) for t in times)})"
)
