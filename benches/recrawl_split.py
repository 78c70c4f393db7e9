#!/usr/bin/env python3
"""Cut a crawl into N runs of a recurring crawl: run i holds the i-th tenth (for N = 10) of
every input file's records, in the file's own (crawl) order — so each run brings new pages
of every site, as a monthly recrawl does.

usage: benches/recrawl_split.py N OUT_DIR INPUT.warc.gz...
writes OUT_DIR/run-00.warc.gz ... run-(N-1).warc.gz (a gzip member per record, as WARC
files are written) and prints the records of each run.
"""
import gzip
import os
import sys


def records(path):
    """The records of a WARC file, each as its bytes (header block and content)."""
    with gzip.open(path, "rb") as stream:
        data = stream.read()
    at = 0
    while at < len(data):
        start = data.find(b"WARC/", at)
        if start < 0:
            return
        header_end = data.find(b"\r\n\r\n", start)
        if header_end < 0:
            return
        length = 0
        for line in data[start:header_end].split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        end = header_end + 4 + length
        yield data[start:end] + b"\r\n\r\n"
        at = end + 4


def main():
    runs, out_dir, inputs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    outs = [open(os.path.join(out_dir, f"run-{i:02}.warc.gz"), "wb") for i in range(runs)]
    counts = [0] * runs
    for path in inputs:
        items = list(records(path))
        for at, record in enumerate(items):
            run = at * runs // len(items)
            # One gzip member per record.
            outs[run].write(gzip.compress(record))
            counts[run] += 1
    for out in outs:
        out.close()
    print(" ".join(str(count) for count in counts))


if __name__ == "__main__":
    main()
