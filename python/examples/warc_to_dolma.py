#!/usr/bin/env python3
"""A dolma-style stage over crawl files: WARC/ARC/WET in, documents in dolma's JSON-lines
shape out (`id`, `text`, `source`, `added`, `created`, `metadata`), gzip-compressed — a chain
of generators, as dolma's and datatrove's readers, filters and writers are.

usage: warc_to_dolma.py OUT.jsonl.gz CRAWL [CRAWL ...] [--lang en,de] [--min-words 50]
"""

from __future__ import annotations

import argparse
import gzip
import json
from datetime import datetime, timezone
from typing import Iterable, Iterator

import indexer


def read(paths: list[str], languages: list[str] | None) -> Iterator[indexer.Page]:
    """The reader: every page with kept text, each site's template removed (two passes)."""
    yield from indexer.read_warc(paths, lang=languages)


def long_enough(pages: Iterable[indexer.Page], min_words: int) -> Iterator[indexer.Page]:
    """A filter, as a pipeline would add its own (quality, dedup, …)."""
    for page in pages:
        if len(page.text.split()) >= min_words:
            yield page


def to_documents(pages: Iterable[indexer.Page], source: str) -> Iterator[dict]:
    """Pages as dolma documents."""
    added = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for page in pages:
        yield {
            "id": page.record_id or page.url,
            "text": page.text,
            "source": source,
            "added": added,
            "created": page.date,
            "metadata": {
                "url": page.url,
                "site": page.site,
                "title": page.title,
                "lang": page.lang,
                "charset": page.charset,
                "blocks_kept": page.blocks_kept,
                "blocks_dropped": page.blocks_dropped,
            },
        }


def write(documents: Iterable[dict], out: str) -> int:
    """The writer: one JSON object a line, gzip-compressed."""
    written = 0
    with gzip.open(out, "wt", encoding="utf-8") as file:
        for document in documents:
            file.write(json.dumps(document, ensure_ascii=False) + "\n")
            written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("crawls", nargs="+")
    parser.add_argument("--lang", type=lambda codes: codes.split(","), default=None)
    parser.add_argument("--min-words", type=int, default=50)
    args = parser.parse_args()
    pages = long_enough(read(args.crawls, args.lang), args.min_words)
    written = write(to_documents(pages, source="indexer"), args.out)
    print(f"wrote {written} documents to {args.out}")


if __name__ == "__main__":
    main()
