#!/usr/bin/env python3
"""Every page of a labelled crawl as the only page of its site: a lone-page test set.

Each record's `WARC-Target-URI` gets a host of its own (`lone<hash>.<host>`, the hash of the
whole URL), and the labels' URLs the same, so that `indexer` reads each page as a site of one
page, as a crawl holding one page of the site would give it — with the page's own HTML and
labels. `benches/lone_page_folds.sh` measures `hybrid` on these pages with models that never
saw their sites.

usage: benches/lone_corpus.py IN.warc.gz IN.labels.jsonl.gz OUT.warc.gz OUT.labels.jsonl.gz
"""
import gzip
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recrawl_split import records  # noqa: E402

URL = re.compile(r"^(https?://)([^/]+)(.*)$", re.S)
TARGET = re.compile(rb"^WARC-Target-URI:[ \t]*(\S+)[ \t]*\r?$", re.M | re.I)


def lone(url):
    """`url` on a host of its own."""
    match = URL.match(url)
    if not match:
        return url
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()[:12]
    scheme, host, rest = match.groups()
    return f"{scheme}lone{digest}.{host}{rest}"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    warc_in, labels_in, warc_out, labels_out = sys.argv[1:]
    with gzip.open(warc_out, "wb") as out:
        for record in records(warc_in):
            header_end = record.find(b"\r\n\r\n")
            header = record[:header_end]
            match = TARGET.search(header)
            if match:
                url = match.group(1).decode("utf-8", "replace")
                new = lone(url).encode("utf-8")
                header = header[: match.start(1)] + new + header[match.end(1) :]
                record = header + record[header_end:]
            out.write(record)
    with gzip.open(labels_in, "rt", encoding="utf-8") as lines, gzip.open(
        labels_out, "wt", encoding="utf-8"
    ) as out:
        for line in lines:
            label = json.loads(line)
            label["url"] = lone(label["url"])
            out.write(json.dumps(label, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
