#!/usr/bin/env python3
"""Writes the pages of a crawl whose text is mostly Chinese or Japanese into a WARC file of
their own, to measure the search analyzer on them (docs/MEASUREMENTS.md, "Chinese and
Japanese in search").

usage: cjk_pages.py INDEXER OUT.warc.gz INPUT.warc.gz [...]

A page is kept when, in the text `INDEXER extract --detector none` gives for it (title and
body), Han, Hiragana and Katakana characters are more than half of the letters. Records are
written one gzip member each, in input order; the script prints how many pages it kept.
"""
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contrib", "spark"))
from make_crawl import read_records  # noqa: E402

TARGET_URI = re.compile(rb"(?im)^WARC-Target-URI:[ \t]*<?([^\s>]+)")


def is_cjk(c):
    code = ord(c)
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # CJK extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0xFF66 <= code <= 0xFF9F  # half-width Katakana
        or 0x20000 <= code <= 0x2FA1F  # extensions B-F
    )


def mostly_cjk(text):
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(map(is_cjk, letters)) * 2 > len(letters)


def main():
    indexer, out, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    extracted = subprocess.run(
        [indexer, "extract", "--detector", "none", "--quiet", *inputs],
        check=True, capture_output=True, text=True,
    ).stdout
    wanted = set()
    for line in extracted.splitlines():
        page = json.loads(line)
        if mostly_cjk(page.get("title", "") + "\n" + page.get("text", "")):
            wanted.add(page["url"])
    kept = 0
    with open(out, "wb") as sink:
        for path in inputs:
            for header, block in read_records(path):
                uri = TARGET_URI.search(header)
                if uri is None or uri.group(1).decode("utf-8", "replace") not in wanted:
                    continue
                sink.write(gzip.compress(header + block + b"\r\n\r\n", compresslevel=6, mtime=0))
                kept += 1
    print(f"{out}: {kept} records of {len(wanted)} mostly Chinese or Japanese pages", file=sys.stderr)


if __name__ == "__main__":
    main()
