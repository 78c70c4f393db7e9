#!/usr/bin/env python3
"""Joins the outputs of benches/detectors.sh for one corpus into a markdown table.

usage: detector_table.py OUT_DIR CORPUS
"""
import glob, json, os, statistics, sys

out, corpus = sys.argv[1], sys.argv[2]
rows = {}
for path in sorted(glob.glob(os.path.join(out, f"eval-{corpus}*.json"))):
    stem = os.path.basename(path)[len(f"eval-{corpus}"):-len(".json")].lstrip("-")
    for row in json.load(open(path))["rows"]:
        name = stem if stem and row["name"] not in ("none", "oracle") else row["name"]
        rows.setdefault(name, row)

print(f"| detector | micro F1 | macro F1 | content recall | postings reduction vs none "
      f"| build MB/s | peak RSS MB | passes |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
order = ["bloom", "sandwich", "sandwich-token", "table-chunk", "table-chunk-layout",
         "incremental", "menu", "none", "oracle"]
for name in order:
    row = rows.get(name)
    if row is None:
        continue
    q = row["quality"]
    times = [open(p).read().split() for p in glob.glob(os.path.join(out, f"time-{corpus}-{name}-[0-9]*"))]
    speed = rss = passes = "-"
    if times:
        build = json.load(open(os.path.join(out, f"build-{corpus}-{name}.json")))
        wall = statistics.median(float(t[0]) for t in times)
        speed = f"{build['html_bytes'] / 1e6 / wall:.1f}"
        rss = f"{statistics.median(int(t[1]) for t in times) / 1024:.0f}"
        passes = str(build["passes"])
    print(f"| {name} | {q['micro']['f1']:.3f} | {q['macro_average']['f1']:.3f} | {q['micro']['recall']:.3f} "
          f"| {100 * row['postings_reduction']:.1f}% | {speed} | {rss} | {passes} |")
