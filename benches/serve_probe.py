#!/usr/bin/env python3
"""Hostile clients against `indexer serve` on 127.0.0.1 (issue 30), bounded in time. Builds an
index of a generated crawl — one site of a few small pages and one page of 8 MiB — and the
committed sample, serves both, and runs four probes, printing requests, errors, p99 latency
and the server's peak RSS for each:

  slow      SLOW connections send half a request and wait; meanwhile a client asks for
            searches; how many slow ones the server still holds after 12 s, and how long
            SIGTERM takes to stop it with them open (started again afterwards)
  pageview  VIEWS concurrent views of the 8 MiB page (`/page` and `/api/page` in turn),
            twice; peak RSS (VmHWM) and RSS after
  load      CLIENTS keep-alive clients, REQUESTS each: searches, page views of the sample,
            JSON searches in turn (as benches/serve_load.py, on the sample)
  stop      SIGTERM with SLOW half-requests and one keep-alive connection open

usage: benches/serve_probe.py [--bin BINARY] [--slow 900] [--views 10] [--clients 8]
                              [--requests 100]
BINARY defaults to target/release/indexer (built first); give an older one to compare.
"""
import argparse
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("--bin")
parser.add_argument("--slow", type=int, default=900)
parser.add_argument("--views", type=int, default=10)
parser.add_argument("--clients", type=int, default=8)
parser.add_argument("--requests", type=int, default=100)
args = parser.parse_args()
binary = args.bin or os.path.join(root, "target", "release", "indexer")
if not args.bin:
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=root, check=True)

work = tempfile.mkdtemp(prefix="serve-probe-")
BIG_URL = "http://big.example/huge"


def record(url, html):
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


def big_page():
    """8 MiB of HTML: a menu and footer like the site's other pages, and 20,000 paragraphs."""
    parts = [b"<html><head><title>A huge page</title></head><body><nav>Home About Blog</nav>"]
    size = sum(map(len, parts))
    n = 0
    while size < (8 << 20) - 2000:
        p = f"<p>Paragraph {n} of the huge page: " + " ".join(
            f"word{(n * 7 + k) % 5000}" for k in range(40)
        ) + "</p>"
        parts.append(p.encode())
        size += len(parts[-1])
        n += 1
    parts.append(b"<footer>Copyright big.example</footer></body></html>")
    return b"".join(parts)[: 8 << 20]


crawl = os.path.join(work, "big.warc")
with open(crawl, "wb") as out:
    for n in range(5):
        html = (
            f"<html><head><title>Page {n}</title></head><body><nav>Home About Blog</nav>"
            f"<p>Small page {n} about huge things.</p><footer>Copyright big.example</footer>"
            "</body></html>"
        ).encode()
        out.write(record(f"http://big.example/{n}", html))
    out.write(record(BIG_URL, big_page()))
index = os.path.join(work, "index")
sample = sorted(
    os.path.join(root, "data", name) for name in os.listdir(os.path.join(root, "data"))
    if name.endswith(".warc.gz")
)
subprocess.run(
    [binary, "build", "-q", "--index", index, crawl, *sample],
    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)


def start():
    server = subprocess.Popen(
        [binary, "serve", index, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    address = server.stdout.readline().strip().removeprefix("listening on http://")
    host, port = address.rsplit(":", 1)
    return server, host, int(port)


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def mb(kb):
    return f"{kb / 1024:.0f} MB"


def get(host, port, path, timeout=60):
    """(status or None, seconds)."""
    started = time.perf_counter()
    try:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status, time.perf_counter() - started
    except Exception:
        return None, time.perf_counter() - started


def p99(latencies):
    latencies = sorted(latencies)
    return latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000 if latencies else 0


def halfway(host, port):
    s = socket.create_connection((host, port))
    s.sendall(b"GET /?q=hu")
    return s


def stopped_in(server):
    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
        return f"{(time.monotonic() - started) * 1000:.0f} ms"
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return "over 30 s (killed)"


def open_connections(pid):
    """Established TCP connections the server holds (its sockets other than the listener)."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                count += 1
        except OSError:
            pass
    return max(0, count - 1)


print(f"binary: {binary}")

# slow
server, host, port = start()
slow = []
for _ in range(args.slow):
    try:
        slow.append(halfway(host, port))
    except OSError:
        break
codes, latencies = {}, []
deadline = time.monotonic() + 12
while time.monotonic() < deadline:
    code, took = get(host, port, "/api/search?q=ownership", timeout=5)
    codes[code] = codes.get(code, 0) + 1
    latencies.append(took)
    time.sleep(0.05)
held = open_connections(server.pid)
requests = sum(codes.values())
errors = requests - codes.get(200, 0)
print(
    f"slow: {len(slow)} half-requests; {requests} searches meanwhile, {errors} errors "
    f"({', '.join(f'{k}: {v}' for k, v in sorted(codes.items(), key=str))}), p99 {p99(latencies):.1f} ms; "
    f"connections held after 12 s: {held}; peak RSS {mb(status_kb(server.pid, 'VmHWM'))}; "
    f"SIGTERM stopped it in {stopped_in(server)}"
)
for s in slow:
    s.close()

# pageview
server, host, port = start()
quoted = urllib.parse.quote(BIG_URL, safe="")
before = status_kb(server.pid, "VmRSS")
for round_ in (1, 2):
    results = []
    lock = threading.Lock()

    def view(n):
        path = ("/page?url=" if n % 2 == 0 else "/api/page?url=") + quoted
        result = get(host, port, path, timeout=120)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=view, args=(n,)) for n in range(args.views)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    codes = {}
    for code, _ in results:
        codes[code] = codes.get(code, 0) + 1
    errors = len(results) - codes.get(200, 0)
    print(
        f"pageview round {round_}: {args.views} concurrent views of an 8 MiB page: "
        f"{len(results)} requests, {errors} errors ({', '.join(f'{k}: {v}' for k, v in sorted(codes.items(), key=str))}), "
        f"p99 {p99([t for _, t in results]):.0f} ms, all in {elapsed:.1f} s; "
        f"RSS before {mb(before)}, peak {mb(status_kb(server.pid, 'VmHWM'))}, "
        f"after {mb(status_kb(server.pid, 'VmRSS'))}"
    )
stopped_in(server)

# load
server, host, port = start()
paths = []
conn = http.client.HTTPConnection(host, port)
conn.request("GET", "/api/search?q=the&limit=100")
import json
hits = json.loads(conn.getresponse().read())["hits"]
conn.close()
urls = sorted({h["url"] for h in hits if h["url"] != BIG_URL})
words = sorted({w.lower() for h in hits for w in h["title"].split() if w.isalpha() and len(w) > 3})
import random
rng = random.Random(7)
for i in range(args.clients * args.requests):
    kind = i % 3
    if kind == 0:
        paths.append("/?q=" + urllib.parse.quote_plus(" ".join(rng.sample(words, 2))))
    elif kind == 1:
        paths.append("/page?url=" + urllib.parse.quote(rng.choice(urls), safe=""))
    else:
        paths.append("/api/search?q=" + urllib.parse.quote_plus(rng.choice(words)))
latencies, errors = [], [0]
lock = threading.Lock()


def client(share):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    mine = []
    for path in share:
        started = time.perf_counter()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            good = response.status == 200
        except Exception:
            good = False
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=30)
        mine.append(time.perf_counter() - started)
        if not good:
            with lock:
                errors[0] += 1
    with lock:
        latencies.extend(mine)


threads = [threading.Thread(target=client, args=(paths[c :: args.clients],)) for c in range(args.clients)]
started = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.perf_counter() - started
print(
    f"load: {args.clients} clients x {args.requests} requests: {len(latencies)} requests, "
    f"{errors[0]} errors, {len(latencies) / elapsed:.0f} requests/s, "
    f"p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {p99(latencies):.1f} ms; "
    f"peak RSS {mb(status_kb(server.pid, 'VmHWM'))}"
)
stopped_in(server)

# stop
server, host, port = start()
slow = [halfway(host, port) for _ in range(min(args.slow, 300))]
keep = socket.create_connection((host, port))
keep.sendall(b"GET /api/stats HTTP/1.1\r\nHost: localhost\r\n\r\n")
keep.recv(1 << 16)
time.sleep(0.3)
print(f"stop: SIGTERM with {len(slow)} half-requests and a keep-alive connection open: stopped in {stopped_in(server)}")
for s in slow:
    s.close()
keep.close()
