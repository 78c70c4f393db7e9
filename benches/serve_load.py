#!/usr/bin/env python3
"""Load on `indexer serve`: N concurrent clients, each sending a fixed number of requests
(searches, page views, JSON searches, in turn) over keep-alive connections to a server on
loopback over the docs corpus; prints p50/p99 latency, requests/s and errors. Bounded: it
stops after CLIENTS x REQUESTS requests and stops the server.

usage: benches/serve_load.py [SHARED_DIR] [CLIENTS] [REQUESTS_PER_CLIENT]
"""
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared")
clients = int(sys.argv[2]) if len(sys.argv) > 2 else 16
per_client = int(sys.argv[3]) if len(sys.argv) > 3 else 200
# INDEXER_BIN: another binary (an older build, to compare in one run), not built here.
binary = os.environ.get("INDEXER_BIN") or os.path.join(root, "target", "release", "indexer")
if not os.environ.get("INDEXER_BIN"):
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=root, check=True)
work = tempfile.mkdtemp()
index = os.path.join(work, "index")
docs = sorted(
    os.path.join(shared, "corpus", "docs", name)
    for name in os.listdir(os.path.join(shared, "corpus", "docs"))
    if name.endswith(".warc.gz")
)
subprocess.run([binary, "build", "-q", "--index", index, *docs], check=True, stdout=subprocess.DEVNULL)
server = subprocess.Popen(
    [binary, "serve", index, "--listen", "127.0.0.1:0"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
)
address = server.stdout.readline().strip().removeprefix("listening on http://")
host, port = address.rsplit(":", 1)

# Queries: words of page titles; page views: URLs those searches return. All pages matching
# 'the' are read, page by page, so that the workload does not depend on how ties are ranked.
conn = http.client.HTTPConnection(host, int(port))
hits, offset = [], 0
while True:
    conn.request("GET", f"/api/search?q=the&limit=100&offset={offset}")
    found = json.loads(conn.getresponse().read())
    hits += found["hits"]
    offset += 100
    if offset >= found["total"]:
        break
urls = sorted({hit["url"] for hit in hits})
words = sorted({w.lower() for hit in hits for w in hit["title"].split() if w.isalpha() and len(w) > 3})
conn.close()
rng = random.Random(7)
paths = []
for i in range(clients * per_client):
    kind = i % 3
    if kind == 0:
        q = " ".join(rng.sample(words, 2))
        paths.append("/?q=" + urllib.parse.quote_plus(q))
    elif kind == 1:
        paths.append("/page?url=" + urllib.parse.quote(rng.choice(urls), safe=""))
    else:
        paths.append("/api/search?q=" + urllib.parse.quote_plus(rng.choice(words)))

latencies, errors, lock = [], [0], threading.Lock()

def client(share):
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    mine = []
    for path in share:
        start = time.perf_counter()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            ok = response.status == 200
        except Exception:
            ok = False
            conn.close()
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
        mine.append(time.perf_counter() - start)
        if not ok:
            with lock:
                errors[0] += 1
    with lock:
        latencies.extend(mine)

threads = [threading.Thread(target=client, args=(paths[c::clients],)) for c in range(clients)]
started = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.perf_counter() - started
server.terminate()
server.wait()
latencies.sort()
p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
print(f"{clients} clients x {per_client} requests over {len(docs)} docs sites ({found['total']} pages matched 'the'):")
print(f"requests {len(latencies)}, errors {errors[0]}, {len(latencies) / elapsed:.0f} requests/s, "
      f"p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms")
sys.exit(1 if errors[0] else 0)
