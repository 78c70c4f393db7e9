#!/usr/bin/env bash
# Build speed and peak memory of `hybrid` against `bloom` and `none`, whole `indexer build`
# processes on the docs corpus, alternated run by run (none, bloom, hybrid, none, …) so that a
# noisy machine slows all three alike. Prints each detector's median wall time, MB/s of HTML,
# median peak RSS, and hybrid's ratios to bloom.
#
# usage: benches/hybrid_speed.sh [SHARED_DIR] [RUNS] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
runs=${2:-5}
out=${3:-target/hybrid-speed}
mkdir -p "$out"
cargo build --release --quiet
bin=target/release/indexer
warcs=("$shared"/corpus/docs/*.warc.gz)
detectors=(none bloom hybrid)
rm -f "$out"/time-*
for run in $(seq "$runs"); do
  for detector in "${detectors[@]}"; do
    /usr/bin/time -f "%e %M" -o "$out/time-$detector-$run" \
      "$bin" build "${warcs[@]}" --detector "$detector" --index "$out/index-$detector" --json \
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
if "hybrid" in rows and "bloom" in rows:
    h, b = rows["hybrid"], rows["bloom"]
    print(f"\nhybrid / bloom: speed {h[1] / b[1]:.2f}x, peak RSS {h[2] / b[2]:.2f}x")
EOF
