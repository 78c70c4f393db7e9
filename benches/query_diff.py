#!/usr/bin/env python3
"""Which known-item queries two indexes answer differently.

Reads the JSON lines `indexer eval --queries FILE` writes and, for one kind of query (title by
default), lists every query whose page ranks differently in index A and index B, with the
reciprocal ranks gained and lost, and whether several pages share the query (then the pages
only trade places among themselves when the sum over the group is zero).

usage: benches/query_diff.py QUERIES.jsonl A B [--kind title|phrase]
e.g.   indexer eval ../shared/corpus/docs/*.warc.gz --labels '../shared/corpus/docs/*.labels.jsonl.gz' \
         --detector none --predictions held-out=target/hybrid/cv-both.jsonl --queries q.jsonl
       python3 benches/query_diff.py q.jsonl none held-out
"""

import argparse
import collections
import json
import signal


def reciprocal(outcome):
    return 1.0 / outcome["rank"] if outcome["rank"] else 0.0


def signed(value):
    """`value` to three places with its sign, a sum that is zero but for rounding as +0.000."""
    return f"{round(value, 9) + 0.0:+.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--kind", default="title", choices=["title", "phrase"])
    args = parser.parse_args()

    by_page = collections.defaultdict(dict)
    with open(args.queries, encoding="utf-8") as lines:
        for line in lines:
            outcome = json.loads(line)
            if outcome["kind"] == args.kind and outcome["index"] in (args.a, args.b):
                by_page[outcome["url"]][outcome["index"]] = outcome
    pages = {url: seen for url, seen in by_page.items() if len(seen) == 2}
    if not pages:
        raise SystemExit(f"no {args.kind} query of both {args.a!r} and {args.b!r} in {args.queries}")
    asked = collections.Counter(seen[args.a]["query"] for seen in pages.values())

    differ = []
    for url, seen in pages.items():
        delta = reciprocal(seen[args.b]) - reciprocal(seen[args.a])
        if delta != 0:
            differ.append((delta, seen[args.a]["query"], url, seen[args.a]["rank"], seen[args.b]["rank"]))
    differ.sort(key=lambda row: (row[0], row[1], row[2]))

    print(f"| change in 1/rank | query | pages asking it | rank in {args.a} | rank in {args.b} | page |")
    print("|---:|---|---:|---:|---:|---|")
    for delta, query, url, rank_a, rank_b in differ:
        print(f"| {delta:+.3f} | {query} | {asked[query]} | {rank_a or '-'} | {rank_b or '-'} | {url} |")

    lone = [row for row in differ if asked[row[1]] == 1]
    shared = [row for row in differ if asked[row[1]] > 1]
    total = len(pages)
    print()
    print(f"{args.kind} queries: {total}; ranked differently: {len(differ)} "
          f"({len(shared)} of them asked by several pages)")
    print(f"MRR@10 {args.a} {sum(reciprocal(s[args.a]) for s in pages.values()) / total:.4f}, "
          f"{args.b} {sum(reciprocal(s[args.b]) for s in pages.values()) / total:.4f}")
    print(f"sum of changes: shared queries {signed(sum(r[0] for r in shared))}, "
          f"queries of one page {signed(sum(r[0] for r in lone))}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()
