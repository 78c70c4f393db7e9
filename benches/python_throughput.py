#!/usr/bin/env python3
"""The Python package's `read_warc` against `indexer extract`: the same text, and the speed.

usage: benches/python_throughput.py [--bin BINARY] [--runs 3] [--shared ../shared]
                                    [--timing docs] [--compare docs news articles]

Needs the package installed (python/check.sh, or `pip install ./python`) in the Python that
runs this, and the binary (default target/release/indexer).

1. Throughput, on the corpora of --timing (every *.warc.gz of shared/corpus/NAME, read as one
   run): the wall time of `indexer extract FILES > /dev/null` and of iterating
   `read_warc(FILES)` and touching every page's text, median of --runs runs each, alternated;
   the ratio Python / binary (the target: at most 1.10).
2. Equality, on the corpora of --compare: every page `extract` writes, compared by URL with
   what `read_warc` gives — every field, the text byte for byte; the counts printed.

Exits non-zero when a page differs.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import indexer

REPO = Path(__file__).resolve().parents[1]


def corpus_files(shared, name):
    files = sorted((shared / "corpus" / name).glob("*.warc.gz"))
    if not files:
        sys.exit(f"no *.warc.gz in {shared / 'corpus' / name}")
    return files


def time_binary(binary, files):
    started = time.perf_counter()
    subprocess.run([str(binary), "extract", *map(str, files)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def time_python(files):
    started = time.perf_counter()
    pages = chars = 0
    for page in indexer.read_warc(files):
        pages += 1
        chars += len(page.text)
    return time.perf_counter() - started, pages, chars


def throughput(binary, files, runs, name):
    binary_times, python_times = [], []
    for _ in range(runs):
        binary_times.append(time_binary(binary, files))
        seconds, pages, _ = time_python(files)
        python_times.append(seconds)
    size = sum(path.stat().st_size for path in files)
    binary_median = statistics.median(binary_times)
    python_median = statistics.median(python_times)
    print(f"{name}: {len(files)} files, {size / 1e6:.1f} MB compressed, {pages} pages")
    print(f"  indexer extract: median {binary_median:.3f} s of {runs} "
          f"({', '.join(f'{t:.3f}' for t in binary_times)})")
    print(f"  read_warc:       median {python_median:.3f} s of {runs} "
          f"({', '.join(f'{t:.3f}' for t in python_times)})")
    print(f"  ratio read_warc / extract: {python_median / binary_median:.3f}")
    return python_median / binary_median


def compare(binary, files, name):
    done = subprocess.run([str(binary), "extract", *map(str, files)], check=True,
                          capture_output=True)
    expected = {}
    for line in done.stdout.splitlines():
        page = json.loads(line)
        expected[page["url"]] = page
    got = {page.url: page.to_dict() for page in indexer.read_warc(files)}
    same_text = sum(1 for url, page in expected.items()
                    if url in got and got[url]["text"].encode() == page["text"].encode())
    same_page = sum(1 for url, page in expected.items() if got.get(url) == page)
    only_binary = len(expected.keys() - got.keys())
    only_python = len(got.keys() - expected.keys())
    print(f"{name}: extract wrote {len(expected)} pages, read_warc gave {len(got)}; "
          f"text equal byte for byte: {same_text}; every field equal: {same_page}; "
          f"only in extract: {only_binary}; only in read_warc: {only_python}")
    return same_page == len(expected) == len(got)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "indexer")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--timing", nargs="*", default=["docs"])
    parser.add_argument("--compare", nargs="*", default=["docs", "news", "articles"])
    args = parser.parse_args()
    print(f"{indexer.library_version}; binary {args.bin}")
    for name in args.timing:
        throughput(args.bin, corpus_files(args.shared, name), args.runs, name)
    all_equal = True
    for name in args.compare:
        all_equal &= compare(args.bin, corpus_files(args.shared, name), name)
    sys.exit(0 if all_equal else 1)


if __name__ == "__main__":
    main()
