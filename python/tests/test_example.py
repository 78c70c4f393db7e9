"""The README's Python example (python/examples/warc_to_dolma.py) runs, and writes what
read_warc gives."""

import gzip
import json
import subprocess
import sys

import indexer
from conftest import FIXTURES, REPO


def test_the_dolma_example_writes_the_pages_it_reads(tmp_path):
    out = tmp_path / "docs.jsonl.gz"
    crawls = [REPO / "data" / "rustbook.warc.gz", FIXTURES / "dolma-sample-0000.warc.gz"]
    done = subprocess.run(
        [sys.executable, str(REPO / "python" / "examples" / "warc_to_dolma.py"), str(out),
         *map(str, crawls), "--lang", "en", "--min-words", "50"],
        check=True, capture_output=True, text=True,
    )
    with gzip.open(out, "rt", encoding="utf-8") as file:
        documents = [json.loads(line) for line in file]
    assert done.stdout.strip() == f"wrote {len(documents)} documents to {out}"
    expected = [page for page in indexer.read_warc(crawls, lang=["en"])
                if len(page.text.split()) >= 50]
    assert len(documents) == len(expected) > 20
    for document, page in zip(documents, expected):
        assert document["text"] == page.text
        assert document["id"] == page.record_id
        assert document["created"] == page.date
        assert document["metadata"]["url"] == page.url
        assert document["metadata"]["lang"] == "eng"
