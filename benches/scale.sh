#!/usr/bin/env bash
# Build cost against crawl size: the docs corpus scaled 1×, 2×, 4×, 8× (benches/scale.py:
# copies under distinct hosts, pages shuffled across sites), each built once with `bloom`
# under each memory budget (REPEATS times, default 1: the median wall time and peak RSS are
# printed). Prints wall time, HTML MB/s, peak RSS, rounds, peak detector state and the
# largest single site's state per step.
#
# usage: [REPEATS=3] benches/scale.sh [SHARED_DIR] [OUT_DIR] [FACTORS] [BUDGETS_MIB]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=${2:-target/scale}
factors=${3:-"1 2 4 8"}
budgets=${4:-"2048 512"}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
for n in $factors; do
  [ -f "$out/docs-x$n.warc.gz" ] || python3 benches/scale.py "$n" "$out/docs-x$n.warc.gz" "$shared"/corpus/docs/*.warc.gz
done
echo "| budget MiB | size | sites | pages | HTML MB | wall s | MB/s | peak RSS MB | rounds | peak state MB | largest site MB | s per 1× |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for budget in $budgets; do
  for n in $factors; do
    : > "$out/time"
    for _ in $(seq "${REPEATS:-1}"); do
      /usr/bin/time -a -f "%e %M" -o "$out/time" "$bin" build "$out/docs-x$n.warc.gz" --index "$out/idx" \
        --memory-budget "$budget" --json > "$out/summary.json"
    done
    python3 - "$budget" "$n" "$out/time" "$out/summary.json" <<'PY'
import json, statistics, sys
budget, n, time_path, summary_path = sys.argv[1:]
runs = [line.split() for line in open(time_path) if line.strip()]
wall = statistics.median(float(w) for w, _ in runs)
rss = statistics.median(int(r) for _, r in runs)
s = json.load(open(summary_path))
mb = s["html_bytes"] / 1e6
site = s["counters"].get("peak_site_state_bytes", 0) / 1e6
print(f"| {budget} | {n}× | {s['counters'].get('sites', '-')} | {s['pages']} | {mb:.0f} | {wall:.1f} "
      f"| {mb / wall:.1f} | {rss / 1024:.0f} | {s['rounds']} | {s['peak_state_bytes'] / 1e6:.0f} "
      f"| {site:.1f} | {wall / int(n):.2f} |")
PY
  done
done
