#!/usr/bin/env python3
"""Writes a scaled crawl: N copies of every site of the given WARC files, each copy under a
host of its own, with the pages of all copies shuffled together as in a real crawl segment.

usage: scale.py N OUT.warc.gz INPUT.warc.gz [...]

Each record keeps its bytes; only WARC-Target-URI changes (copy k of http://host/p becomes
http://cK.host/p; copy 1 keeps the original host). Records are written one gzip member each.
The shuffle is seeded, so the same N gives the same file.
"""
import gzip, random, re, sys


def records(path):
    data = gzip.open(path, "rb").read()
    at = 0
    while True:
        start = data.find(b"WARC/", at)
        if start < 0:
            return
        end = data.find(b"\r\n\r\n", start)
        if end < 0:
            return
        header = data[start:end + 4]
        length = re.search(rb"(?im)^content-length:\s*(\d+)", header)
        if not length:
            at = end + 4
            continue
        body_end = end + 4 + int(length.group(1))
        yield header, data[end + 4:body_end]
        at = body_end


def main():
    copies, out, inputs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    originals = [record for path in inputs for record in records(path)]
    order = [(copy, index) for copy in range(copies) for index in range(len(originals))]
    random.Random(copies).shuffle(order)
    uri = re.compile(rb"(?im)^(WARC-Target-URI:\s*<?https?://)")
    with open(out, "wb") as sink:
        for copy, index in order:
            header, block = originals[index]
            if copy > 0:
                header = uri.sub(lambda m: m.group(1) + b"c%d." % copy, header, count=1)
            sink.write(gzip.compress(header + block + b"\r\n\r\n", compresslevel=1))
    print(f"{out}: {len(order)} records, {copies} copies of {len(inputs)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
