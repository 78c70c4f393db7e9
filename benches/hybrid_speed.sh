#!/usr/bin/env bash
# Build speed and peak memory of `hybrid` against `bloom` and `none`, whole `indexer build`
# processes on the docs corpus, alternated run by run (none, bloom, hybrid, …, the order
# rotated each run) so that a noisy machine slows all alike; `hybrid` and `incremental` under
# --one-pass (`@1`) too. Prints each run's median wall time, MB/s of HTML, median peak RSS,
# and hybrid's ratios to bloom (and, in one pass, to incremental).
#
# usage: benches/hybrid_speed.sh [SHARED_DIR] [RUNS] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
runs=${2:-5}
out=${3:-target/hybrid-speed}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
warcs=("$shared"/corpus/docs/*.warc.gz)
# A run is named DETECTOR, or DETECTOR@1 for the same detector under --one-pass.
detectors=(none bloom hybrid incremental@1 hybrid@1)
rm -f "$out"/time-*
count=${#detectors[@]}
for run in $(seq "$runs"); do
  # The order rotates run by run: a fixed order favours one detector (benches/binaries.sh).
  for turn in $(seq 0 $((count - 1))); do
    detector=${detectors[$(((turn + run) % count))]}
    flags=(--detector "${detector%@1}")
    [[ $detector == *@1 ]] && flags+=(--one-pass)
    /usr/bin/time -f "%e %M" -o "$out/time-$detector-$run" \
      "$bin" build "${warcs[@]}" "${flags[@]}" --index "$out/index-$detector" --json \
      > "$out/build-$detector.json"
  done
done
python3 - "$out" "$runs" "${detectors[@]}" <<'EOF'
import json, statistics, sys
out, runs, detectors = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for d in detectors:
    times, rss = [], []
    for run in range(1, runs + 1):
        seconds, kib = open(f"{out}/time-{d}-{run}").read().split()[-2:]
        times.append(float(seconds))
        rss.append(int(kib) / 1024)
    html = json.load(open(f"{out}/build-{d}.json"))["html_bytes"] / 1e6
    rows[d] = (statistics.median(times), html / statistics.median(times), statistics.median(rss))
print(f"| detector | median s ({runs} runs) | MB/s of HTML | median peak RSS MiB |")
print("|---|---:|---:|---:|")
for d, (t, speed, rss) in rows.items():
    print(f"| {d} | {t:.2f} | {speed:.1f} | {rss:.0f} |")
print()
for a, b in [("hybrid", "bloom"), ("hybrid@1", "incremental@1")]:
    if a in rows and b in rows:
        x, y = rows[a], rows[b]
        print(f"{a} / {b}: speed {x[1] / y[1]:.2f}x, peak RSS {x[2] / y[2]:.2f}x")
EOF
