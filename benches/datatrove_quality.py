#!/usr/bin/env python3
"""Snippet F1 of datatrove's WarcReader → IndexerExtractor against `indexer extract --one-pass`
on the same files: what datatrove's reading (its record selection and charset decoding) and the
extractor's sandbox change in the text.

usage: benches/datatrove_quality.py [--bin target/release/indexer]
           [--corpus ../shared/corpus/articles] [--out target/datatrove-quality]

Writes OUT/datatrove.jsonl (the pipeline's documents, metadata expanded: `url`, `text`, …) and
OUT/one-pass.jsonl (`indexer extract --one-pass` of every *.warc.gz of --corpus, read as one
run), scores both with shared/tools/snippets.py against the corpus's *.snippets.jsonl.gz, and
prints both F1s, their difference and the pages found in one output and not the other; then
both F1s again on the pages both outputs have (what the extractor does, datatrove's record
selection aside), and the F1 of IndexerWarcReader(one_pass=True) (OUT/indexer-reader.jsonl).

The pipeline runs one task (one sandbox, one cleaner learning the files in order, as one
`extract --one-pass` run does). Needs the package with datatrove (python/requirements-dev.txt).
"""

import argparse
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter

from indexer.datatrove import IndexerExtractor, IndexerWarcReader

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def score(snippets, pred):
    done = subprocess.run(
        [sys.executable, str(SHARED / "tools" / "snippets.py"), *map(str, snippets),
         "--pred", str(pred), "--json"],
        check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout)


def pages(path):
    with open(path, encoding="utf-8") as file:
        return {page["url"]: page for page in map(json.loads, file)}


def run_pipeline(steps, out, name):
    """Runs steps + JsonlWriter (metadata expanded: `url` on top) in one task; OUT/NAME.jsonl."""
    LocalPipelineExecutor(
        steps + [JsonlWriter(str(out / name), expand_metadata=True)],
        tasks=1, workers=1, logging_dir=str(out / f"{name}-logs"), skip_completed=False,
    ).run()
    lines = out / f"{name}.jsonl"
    with open(lines, "wb") as file:
        for part in sorted((out / name).glob("*.jsonl.gz")):
            file.write(gzip.decompress(part.read_bytes()))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "indexer")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "articles")
    parser.add_argument("--out", type=Path, default=REPO / "target" / "datatrove-quality")
    args = parser.parse_args()
    crawls = sorted(args.corpus.glob("*.warc.gz"))
    snippets = sorted(args.corpus.glob("*.snippets.jsonl.gz"))
    if not crawls or not snippets:
        raise SystemExit(f"no *.warc.gz or *.snippets.jsonl.gz in {args.corpus}")
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)

    one_pass = args.out / "one-pass.jsonl"
    with open(one_pass, "wb") as file:
        subprocess.run([str(args.bin), "extract", "--one-pass", *map(str, crawls)], check=True,
                       stdout=file)

    datatrove = run_pipeline(
        [WarcReader(str(args.corpus), glob_pattern="*.warc.gz"), IndexerExtractor()],
        args.out, "datatrove",
    )
    reader = run_pipeline(
        [IndexerWarcReader(str(args.corpus), glob_pattern="*.warc.gz", one_pass=True)],
        args.out, "indexer-reader",
    )

    ours, theirs = score(snippets, one_pass), score(snippets, datatrove)
    print(f"indexer extract --one-pass:              F1 {ours['f1']:.4f}  "
          f"P {ours['precision']:.4f} R {ours['recall']:.4f}  pages missing {ours['missing']}")
    print(f"datatrove WarcReader → IndexerExtractor: F1 {theirs['f1']:.4f}  "
          f"P {theirs['precision']:.4f} R {theirs['recall']:.4f}  pages missing {theirs['missing']}")
    print(f"difference (datatrove − extract): {theirs['f1'] - ours['f1']:+.4f}")
    expected, got = pages(one_pass), pages(datatrove)
    print(f"pages only in extract's output: {len(set(expected) - set(got))}; only in the "
          f"pipeline's: {len(set(got) - set(expected))}")
    common = set(expected) & set(got)
    same = sum(expected[url]["text"] == got[url]["text"] for url in common)
    labels = args.out / "common.snippets.jsonl"
    with open(labels, "w", encoding="utf-8") as file:
        for path in snippets:
            with gzip.open(path, "rt", encoding="utf-8") as lines:
                file.writelines(line for line in lines if json.loads(line)["url"] in common)
    ours, theirs = score([labels], one_pass), score([labels], datatrove)
    print(f"on the {len(common)} pages both give ({same} with the same text): extract "
          f"F1 {ours['f1']:.4f}, pipeline F1 {theirs['f1']:.4f}, "
          f"difference {theirs['f1'] - ours['f1']:+.4f}")
    extractor = json.loads((args.out / "datatrove-logs" / "stats.json").read_text())[1]["stats"]
    print(f"extractor stats: {json.dumps(extractor)}")
    print(f"IndexerWarcReader(one_pass=True): F1 {score(snippets, reader)['f1']:.4f}")

if __name__ == "__main__":
    main()
