#!/usr/bin/env python3
"""What datatrove costs around `read_warc`: pages a second of a datatrove pipeline reading with
`indexer.datatrove.IndexerWarcReader` against a bare `for page in indexer.read_warc(FILE)`
loop over the same files.

usage: benches/datatrove_speed.py [--corpus ../shared/corpus/docs] [--rounds 5] [--writer]

Needs the package with datatrove installed in the Python that runs this
(python/requirements-dev.txt has the pins), e.g. target/python-venv/bin/python.

Three ways over every *.warc.gz of --corpus, each file one `read_warc` run (two passes, the
default) as the reader does:
- `bare`: the loop, touching each page's text;
- `pipeline`: datatrove's LocalPipelineExecutor (one task, in this process) running
  [IndexerWarcReader] — the executor, the reader's Documents and stats, no writer;
- `pipeline+writer` (with --writer): [IndexerWarcReader, JsonlWriter] to a temporary folder.

One warm-up run of each (not counted), then --rounds rounds, the order rotated each round
(this machine is noisy: 2 cores, often shared). Prints each run, the medians, pages a second
and the ratio of each pipeline's pages a second to the bare loop's: of the medians, and round
by round (the runs of a round are next to each other in time, so share its load).
"""

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import indexer
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.writers import JsonlWriter

from indexer.datatrove import IndexerWarcReader

REPO = Path(__file__).resolve().parents[1]


def bare(folder, files, scratch):
    pages = chars = 0
    for path in files:
        for page in indexer.read_warc(path):
            pages += 1
            chars += len(page.text)
    return pages


def pipeline(folder, files, scratch, writer=False):
    logs = Path(tempfile.mkdtemp(dir=scratch))
    steps = [IndexerWarcReader(str(folder), glob_pattern="*.warc.gz")]
    if writer:
        steps.append(JsonlWriter(str(logs / "out")))
    executor = LocalPipelineExecutor(steps, tasks=1, workers=1, logging_dir=str(logs / "logs"),
                                     skip_completed=False)
    # datatrove logs each task to stderr: not timed on a terminal.
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        executor.run()
    stats = json.loads((logs / "logs" / "stats.json").read_text())
    documents = stats[0]["stats"]["documents"]
    return int(documents["total"] if isinstance(documents, dict) else documents)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "docs")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--writer", action="store_true", help="also time a pipeline with JsonlWriter")
    args = parser.parse_args()
    files = sorted(args.corpus.glob("*.warc.gz"))
    if not files:
        raise SystemExit(f"no *.warc.gz in {args.corpus}")
    ways = {"bare": bare, "pipeline": pipeline}
    if args.writer:
        ways["pipeline+writer"] = lambda folder, files, scratch: pipeline(folder, files, scratch, True)
    size = sum(path.stat().st_size for path in files)
    print(f"{args.corpus}: {len(files)} files, {size / 1e6:.1f} MB compressed")
    times = {name: [] for name in ways}
    pages = {}
    with tempfile.TemporaryDirectory(prefix="datatrove-speed-") as scratch:
        for name, way in ways.items():  # warm-up: file cache, imports
            pages[name] = way(args.corpus, files, scratch)
        assert len(set(pages.values())) == 1, f"the ways read different pages: {pages}"
        order = list(ways)
        for round_ in range(args.rounds):
            for name in order[round_ % len(order):] + order[: round_ % len(order)]:
                started = time.perf_counter()
                way_pages = ways[name](args.corpus, files, scratch)
                times[name].append(time.perf_counter() - started)
                assert way_pages == pages[name]
    count = pages["bare"]
    print(f"{count} pages each run; {args.rounds} rounds, order rotated")
    medians = {name: statistics.median(runs) for name, runs in times.items()}
    for name, runs in times.items():
        print(f"  {name:16} median {medians[name]:.3f} s  {count / medians[name]:7.1f} pages/s  "
              f"({', '.join(f'{t:.3f}' for t in runs)})")
    for name in ways:
        if name != "bare":
            rounds = [bare_time / way_time for bare_time, way_time in zip(times["bare"], times[name])]
            print(f"  {name} / bare, pages/s: {medians['bare'] / medians[name]:.3f} of the medians; "
                  f"round by round {', '.join(f'{r:.3f}' for r in rounds)} "
                  f"(median {statistics.median(rounds):.3f})")


if __name__ == "__main__":
    main()
