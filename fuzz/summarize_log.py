#!/usr/bin/env python3
"""Summarises a libFuzzer log (run with -print_final_stats=1): executions, seconds, crashes,
and when coverage last grew.

    python3 fuzz/summarize_log.py TARGET LOG [ARTIFACT_DIR]

Prints one Markdown table row: target | executions | seconds | exec/s | crashes |
edges (cov) at half the executions → at the end | executions at the last new edge, as a share
of the run | features (ft) at half → end. "crashes" counts the crash-, leak-, timeout- and
oom- files libFuzzer wrote to ARTIFACT_DIR (default fuzz/artifacts/TARGET) and the
"==ERROR"/"deadly signal" reports in the log.
"""

import os
import re
import sys

DONE = re.compile(r"^Done (\d+) runs in (\d+) second")
EVENT = re.compile(r"^#(\d+)\s+(NEW|REDUCE|pulse|INITED|DONE)\s+cov: (\d+) ft: (\d+)")


def main():
    target, log = sys.argv[1], sys.argv[2]
    artifacts = sys.argv[3] if len(sys.argv) > 3 else f"fuzz/artifacts/{target}"
    events, stats, errors, seconds = [], {}, 0, None
    for line in open(log, errors="replace"):
        m = EVENT.match(line)
        done = DONE.match(line)
        if done:
            seconds = int(done[2])
        if m:
            events.append((int(m[1]), m[2], int(m[3]), int(m[4])))
        elif line.startswith("stat::"):
            key, value = line[6:].split(":", 1)
            stats[key.strip()] = int(value)
        elif "==ERROR" in line or "deadly signal" in line:
            errors += 1
    inited = next((e for e in events if e[1] == "INITED"), events[0])
    runs = stats["number_of_executed_units"]
    if seconds is None:
        seconds = runs / max(stats["average_exec_per_sec"], 1)
    half = [e for e in events if e[0] <= runs / 2]
    at_half = half[-1] if half else inited
    end = events[-1]
    last_edge = inited[0]
    best = inited[2]
    for e in events:
        if e[2] > best:
            best, last_edge = e[2], e[0]
    found = [
        f
        for f in (os.listdir(artifacts) if os.path.isdir(artifacts) else [])
        if f.split("-")[0] in ("crash", "leak", "timeout", "oom", "slow")
    ]
    print(
        f"| {target} | {runs:,} | {seconds:,.0f} | {stats['average_exec_per_sec']} "
        f"| {len(found) + errors} | {at_half[2]:,} → {end[2]:,} "
        f"| #{last_edge:,} ({last_edge / runs:.0%}) | {at_half[3]:,} → {end[3]:,} "
        f"| {stats.get('peak_rss_mb', 0)} |"
    )


if __name__ == "__main__":
    main()
