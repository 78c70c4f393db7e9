#!/usr/bin/env python3
"""Splits WARC files into two: every Nth response record (by a hash of its URL) into SMALL,
the rest into LARGE, each record a gzip member of its own. For the `add` benchmarks
(benches/update_speed.sh, benches/kill_update.sh): build LARGE, then `add` SMALL.

usage: update_split.py N LARGE.warc.gz SMALL.warc.gz INPUT.warc.gz...
"""
import gzip
import hashlib
import sys


def records(path):
    data = gzip.open(path, "rb").read()
    at = 0
    while at < len(data):
        end = data.index(b"\r\n\r\n", at)
        header = data[at:end].decode("utf-8", "replace")
        length = 0
        url = ""
        kind = ""
        for line in header.split("\r\n"):
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "warc-target-uri":
                url = value.strip()
            elif name == "warc-type":
                kind = value.strip()
        stop = end + 4 + length
        yield kind, url, data[at:stop] + b"\r\n\r\n"
        at = stop
        while data[at : at + 2] == b"\r\n":
            at += 2


def main():
    every, large_path, small_path, inputs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    counts = [0, 0]
    with open(large_path, "wb") as large, open(small_path, "wb") as small:
        for path in inputs:
            for kind, url, record in records(path):
                picked = kind == "response" and int(hashlib.sha1(url.encode()).hexdigest(), 16) % every == 0
                (small if picked else large).write(gzip.compress(record, 6))
                counts[picked] += 1
    print(f"{counts[0]} records in {large_path}, {counts[1]} in {small_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
