#!/usr/bin/env python3
"""Whether two indexes answer the same queries with the same top 10.

Takes the queries of an `indexer eval --queries FILE` run (every distinct query text, both
kinds) and runs each with `indexer search --json -n 10` against index A and index B; prints
how many give the same ten URLs in the same order, the same ten in another order, the same first
page, the mean share of A's ten found in B's ten, and lists the first few that differ. Pages of
nearly equal score (a site's many alike pages) swap places at the smallest change of the
index's statistics, so the order is the strictest of these.

usage: benches/same_results.py QUERIES.jsonl A B   (INDEXER_BIN picks the binary)
"""
import json
import os
import subprocess
import sys


def top(binary, index, query):
    out = subprocess.run(
        [binary, "search", "--json", "-n", "10", "-q", index, "--", *query.split()],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return ("error", out.stderr.strip()[:80])
    hits = json.loads(out.stdout)
    hits = hits.get("results", hits.get("hits", [])) if isinstance(hits, dict) else hits
    return tuple(hit["url"] for hit in hits)


def main():
    queries_path, a, b = sys.argv[1:4]
    binary = os.environ.get("INDEXER_BIN", "target/release/indexer")
    queries = []
    seen = set()
    with open(queries_path, encoding="utf-8") as lines:
        for line in lines:
            query = json.loads(line)["query"]
            if query not in seen:
                seen.add(query)
                queries.append(query)
    same = same_set = same_first = 0
    overlap = 0.0
    differing = []
    for query in queries:
        first, second = top(binary, a, query), top(binary, b, query)
        same_first += first[:1] == second[:1]
        overlap += len(set(first) & set(second)) / max(len(first), len(second), 1)
        if first == second:
            same += 1
        elif sorted(first) == sorted(second):
            same_set += 1
        else:
            differing.append((query, first, second))
    total = len(queries)
    print(
        f"{total} queries: {same} same top 10 ({same / max(total, 1):.3f}), "
        f"{same_set} same pages in another order, {len(differing)} differ"
    )
    print(
        f"  the same first page: {same_first} ({same_first / max(total, 1):.3f}); "
        f"mean share of A's top 10 in B's: {overlap / max(total, 1):.4f}"
    )
    for query, first, second in differing[:5]:
        print(f"  {query!r}: {len(set(first) ^ set(second))} URLs differ")


if __name__ == "__main__":
    main()
