#!/usr/bin/env python3
"""Writes a scaled crawl: N copies of every site of the given WARC files, each copy under a
host of its own, with the pages of all copies shuffled together as in a real crawl segment.

usage: scale.py N OUT.warc.gz INPUT.warc.gz [...]

Each record keeps its bytes; only WARC-Target-URI changes (copy k >= 1 of http://host/p
becomes http://cK.host/p; copy 0 keeps the original host). Records are written one gzip member each.
The shuffle is seeded, so the same N gives the same file. The records and their order are
contrib/spark/make_crawl.py's (the same crawl cut into several files).
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contrib", "spark"))
from make_crawl import shuffled_records  # noqa: E402


def main():
    copies, out, inputs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    count = 0
    with open(out, "wb") as sink:
        for record in shuffled_records(copies, inputs):
            sink.write(gzip.compress(record, compresslevel=1, mtime=0))
            count += 1
    print(f"{out}: {count} records, {copies} copies of {len(inputs)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
