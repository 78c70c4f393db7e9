#!/usr/bin/env python3
"""A FineWeb-shaped datatrove pipeline with this library's steps: crawl files in, the pages'
kept text (each site's template removed) in one language out, as datatrove JSON lines.

Two ways to read, chosen with --reader:

- ``datatrove`` (the default, FineWeb's shape): datatrove's own ``WarcReader`` gives each HTML
  record as a document, ``IndexerExtractor`` replaces its HTML with the kept text, learning each
  site in one pass as the task's documents go by;
- ``indexer``: ``IndexerWarcReader`` reads each file with ``indexer.read_warc`` — two passes
  over the file (every site learned, then its pages decided, as ``indexer extract``), WARC, ARC
  or WET, bad records counted in the stats rather than raised.

Then a language filter on the library's own language metadata (``language``, ISO 639-3, and
``language_score``), with datatrove's ``LambdaFilter``: datatrove's ``LanguageFilter`` downloads
a fastText model, this needs nothing. Then ``JsonlWriter`` (one ``${rank}.jsonl.gz`` per
task). FineWeb's other steps (URL filter, Gopher/C4/FineWeb quality filters, dedup) go after
the language filter as in datatrove's own FineWeb example.

usage: fineweb_pipeline.py INPUT_FOLDER OUTPUT_FOLDER [--tasks N] [--workers N]
           [--reader datatrove|indexer] [--lang eng] [--min-score 0.65]
           [--glob '*.warc.gz'] [--logs FOLDER]

Needs ``pip install "indexer[datatrove]"`` and what these datatrove steps import: ``warcio
faust-cchardet python-magic`` (WarcReader; python-magic needs the libmagic1 system library),
``orjson`` (JsonlWriter) and ``regex`` (datatrove's filters package).
"""

from __future__ import annotations

import argparse
from typing import Optional

from datatrove.data import Document
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.filters import LambdaFilter
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter

from indexer.datatrove import IndexerExtractor, IndexerWarcReader


class InLanguage:
    """Keeps documents whose ``language`` metadata is ``code`` with at least ``min_score``
    (a class rather than a lambda: the executor sends it to its worker processes)."""

    def __init__(self, code: str, min_score: float):
        self.code = code
        self.min_score = min_score

    def __call__(self, doc: Document) -> bool:
        return (
            doc.metadata.get("language") == self.code
            and (doc.metadata.get("language_score") or 0.0) >= self.min_score
        )


def pipeline(args: argparse.Namespace) -> list:
    """The pipeline's steps for these arguments."""
    if args.reader == "indexer":
        read = [IndexerWarcReader(args.input, glob_pattern=args.glob)]
    else:
        read = [WarcReader(args.input, glob_pattern=args.glob), IndexerExtractor()]
    return read + [
        LambdaFilter(InLanguage(args.lang, args.min_score)),
        JsonlWriter(args.output),
    ]


def written(stats) -> Optional[int]:
    """The documents the writer wrote, from the run's merged stats."""
    if stats is None:  # every task was already done (datatrove skips completed tasks)
        return None
    writer = stats.stats[-1]
    return int(writer.stats["total"].total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input", help="a folder of WARC (ARC, WET) files, local or fsspec URL")
    parser.add_argument("output", help="the folder of the JSON lines (${rank}.jsonl.gz)")
    parser.add_argument("--tasks", type=int, default=1, help="tasks: the files are split among them")
    parser.add_argument("--workers", type=int, default=-1, help="tasks run at once (all)")
    parser.add_argument("--reader", choices=["datatrove", "indexer"], default="datatrove")
    parser.add_argument("--lang", default="eng", help="ISO 639-3 code to keep (eng)")
    parser.add_argument("--min-score", type=float, default=0.65, help="least language_score")
    parser.add_argument("--glob", default="*.warc.gz", help="which files of INPUT (*.warc.gz)")
    parser.add_argument("--logs", default=None, help="datatrove's logs and stats (OUTPUT-logs)")
    args = parser.parse_args()
    logs = args.logs or f"{args.output.rstrip('/')}-logs"
    executor = LocalPipelineExecutor(
        pipeline=pipeline(args), tasks=args.tasks, workers=args.workers, logging_dir=logs
    )
    count = written(executor.run())
    if count is None:
        print(f"nothing to do: every task is done already (see {logs})")
    else:
        print(f"wrote {count} documents to {args.output} (stats in {logs}/stats.json)")


if __name__ == "__main__":
    main()
