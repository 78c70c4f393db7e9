#!/usr/bin/env python3
"""Writes a generated crawl split over several WARC files, each site's pages scattered over all
of them, as in a real crawl's segments: the input for the distributed build (indexer_spark.py).

usage: make_crawl.py COPIES FILES OUT_DIR INPUT.warc[.gz] [...]

COPIES copies of every record of the inputs are made; copy k (k >= 1) of http://host/p becomes
http://cK.host/p (copy 0 keeps the original host), and nothing else in the record changes, so
Content-Length and the digests stay valid. The copies are shuffled together with a generator
seeded by COPIES, and the shuffled sequence is cut into FILES contiguous slices of (almost)
equal length, written as OUT_DIR/part-00000.warc.gz, part-00001.warc.gz, ... one gzip member
per record. Every record is kept, the ones without a target URI (warcinfo) too.

benches/scale.py writes the same records in the same order into one file (it calls
shuffled_records), so a single-machine build of that file is the baseline of a distributed
build of the parts.
The output is byte-for-byte deterministic (gzip members carry no timestamp).
"""
import gzip
import os
import random
import re
import sys

TARGET_URI = re.compile(rb"(?im)^(WARC-Target-URI:[ \t]*<?https?://)")
CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d+)[ \t]*\r?$")


def read_records(path):
    """Yields (header, block) of every WARC record of a .warc or .warc.gz file, in order.

    header runs from the "WARC/" version line to the blank line that ends the headers
    (included); block is the Content-Length bytes after it. The two line breaks that close a
    record are not part of either."""
    with open(path, "rb") as source:
        data = source.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)  # reads every member of a multi-member file
    at = 0
    while True:
        start = data.find(b"WARC/", at)
        if start < 0:
            return
        end = data.find(b"\r\n\r\n", start)
        if end < 0:
            return
        header = data[start:end + 4]
        length = CONTENT_LENGTH.search(header)
        if length is None:  # not a record head: look for the next one
            at = end + 4
            continue
        block_end = end + 4 + int(length.group(1))
        yield header, data[end + 4:block_end]
        at = block_end


def copy_header(header, copy):
    """The header of copy number `copy`: its target host gets the prefix cK. (copy 0 as is)."""
    if copy == 0:
        return header
    return TARGET_URI.sub(lambda m: m.group(1) + b"c%d." % copy, header, count=1)


def shuffled_records(copies, inputs):
    """Every record of `inputs`, `copies` times (copy k under hosts cK.), in the seeded
    shuffled order, each as the bytes of one whole WARC record."""
    originals = [record for path in inputs for record in read_records(path)]
    order = [(copy, index) for copy in range(copies) for index in range(len(originals))]
    random.Random(copies).shuffle(order)
    for copy, index in order:
        header, block = originals[index]
        yield copy_header(header, copy) + block + b"\r\n\r\n"


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.split("\n\n")[1])
    copies, files, out_dir, inputs = int(argv[0]), int(argv[1]), argv[2], argv[3:]
    if copies < 1 or files < 1:
        sys.exit("COPIES and FILES must be at least 1")
    records = list(shuffled_records(copies, inputs))

    os.makedirs(out_dir, exist_ok=True)
    for part in range(files):
        first, last = part * len(records) // files, (part + 1) * len(records) // files
        path = os.path.join(out_dir, "part-%05d.warc.gz" % part)
        with open(path + ".tmp", "wb") as sink:
            for record in records[first:last]:
                sink.write(gzip.compress(record, compresslevel=1, mtime=0))
        os.replace(path + ".tmp", path)
    print(f"{out_dir}: {len(records)} records in {files} files, {copies} copies of "
          f"{len(records) // copies} records from {len(inputs)} inputs", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
