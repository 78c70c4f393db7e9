#!/usr/bin/env python3
"""Summarise `/usr/bin/time -f "DETECTOR SECONDS MAXRSS_KB"` lines from stdin: median wall time
per detector, the runs, MB/s of HTML, the ratio to `none`, and peak RSS.

usage: cat time-* | speed_table.py HTML_BYTES
"""
import statistics
import sys


def main():
    html = int(sys.argv[1])
    rows = {}
    for line in sys.stdin:
        detector, seconds, kb = line.split()
        rows.setdefault(detector, []).append((float(seconds), int(kb)))
    median = {d: statistics.median(s for s, _ in r) for d, r in rows.items()}
    base = median.get("none")
    print(f"{'detector':<8} {'median s':>9} {'runs (s)':>32} {'MB/s':>7} {'vs none':>8} {'peak RSS MB':>12}")
    for detector, runs in sorted(rows.items()):
        times = " ".join(f"{s:.2f}" for s, _ in sorted(runs))
        ratio = f"{median[detector] / base:.2f}" if base else "-"
        peak = max(kb for _, kb in runs) / 1024
        print(f"{detector:<8} {median[detector]:>9.2f} {times:>32} {html / 1e6 / median[detector]:>7.1f} {ratio:>8} {peak:>12.0f}")


if __name__ == "__main__":
    main()
