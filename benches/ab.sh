#!/usr/bin/env bash
# Two binaries on the same `indexer build`, whole processes, alternated run by run so that a
# noisy machine slows both alike, the order swapped every run (A B, B A, …): on this machine,
# swapping the order of two binaries moved their CPU ratio by 9 % (docs/MEASUREMENTS.md).
# Prints each binary's median wall time, CPU time (user + system) and peak RSS (from
# /usr/bin/time), and B's ratios to A. For three binaries or more, and the median of the
# run-by-run ratios: benches/binaries.sh.
#
# usage: benches/ab.sh BIN_A BIN_B RUNS OUT_DIR BUILD_ARGS...
#   e.g. benches/ab.sh /tmp/indexer-before target/release/indexer 5 /tmp/ab \
#          ../shared/corpus/docs/*.warc.gz --detector hybrid
set -euo pipefail
[[ $# -ge 5 ]] || { sed -n 2,8p "$0" >&2; exit 2; }
bin_a=$1 bin_b=$2 runs=$3 out=$4
shift 4
mkdir -p "$out"
rm -f "$out"/time-*
for run in $(seq "$runs"); do
  order=(a b)
  (( run % 2 == 0 )) && order=(b a)
  for side in "${order[@]}"; do
    bin=$bin_a
    [[ $side == b ]] && bin=$bin_b
    /usr/bin/time -f "%e %U %S %M" -o "$out/time-$side-$run" \
      "$bin" build "$@" --index "$out/index-$side" > /dev/null 2>&1
  done
done
python3 - "$out" "$runs" "$bin_a" "$bin_b" <<'EOF'
import statistics, sys
out, runs, names = sys.argv[1], int(sys.argv[2]), {"a": sys.argv[3], "b": sys.argv[4]}
medians = {}
for side in "ab":
    wall, cpu, rss = [], [], []
    for run in range(1, runs + 1):
        e, u, s, m = open(f"{out}/time-{side}-{run}").read().split()[-4:]
        wall.append(float(e)); cpu.append(float(u) + float(s)); rss.append(int(m) / 1024)
    medians[side] = tuple(statistics.median(v) for v in (wall, cpu, rss))
print(f"| binary | median wall s ({runs} runs) | median CPU s | median peak RSS MiB |")
print("|---|---:|---:|---:|")
for side in "ab":
    wall, cpu, rss = medians[side]
    print(f"| {side}: {names[side]} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
a, b = medians["a"], medians["b"]
print(f"\nB / A: wall {b[0] / a[0]:.2f}x, CPU {b[1] / a[1]:.2f}x, peak RSS {b[2] / a[2]:.2f}x")
EOF
