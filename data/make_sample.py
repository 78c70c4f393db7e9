#!/usr/bin/env python3
"""Rebuild the committed sample in data/ from the shared corpus (not needed to use it).

usage: make_sample.py CORPUS_DOCS_DIR OUT_DIR

Takes the first N response records of a few documentation sites, writes each as its own
gzip member (as crawlers do), and copies the matching label lines.
"""
import gzip, json, sys

SITES = {"python311": 30, "rustbook": 40, "scrapy28": 30}


def records(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        end = data.index(b"\r\n\r\n", at)
        head = data[at:end + 4]
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        block_end = end + 4 + length
        yield head, data[end + 4:block_end]
        at = block_end + 4  # the record's closing CRLF CRLF


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    for site, count in SITES.items():
        urls = []
        with open(f"{out}/{site}.warc.gz", "wb") as sink:
            for head, block in records(f"{corpus}/{site}.warc.gz"):
                is_response = b"WARC-Type: response" in head
                if is_response and len(urls) == count:
                    break
                if is_response:
                    for line in head.split(b"\r\n"):
                        if line.startswith(b"WARC-Target-URI:"):
                            urls.append(line.split(b":", 1)[1].strip().decode())
                sink.write(gzip.compress(head + block + b"\r\n\r\n", mtime=0))
        wanted = set(urls)
        with gzip.open(f"{corpus}/{site}.labels.jsonl.gz", "rt", encoding="utf-8") as f, \
                gzip.open(f"{out}/{site}.labels.jsonl.gz", "wt", encoding="utf-8") as g:
            for line in f:
                if json.loads(line)["url"] in wanted:
                    g.write(line)
        print(site, len(urls), "pages")


if __name__ == "__main__":
    main()
