#!/usr/bin/env bash
# Several binaries on the same `indexer build`, whole processes, one run of each a round, the
# order rotated round by round (A B C, B C A, C A B, …): on this noisy 2-core machine,
# swapping the order of two binaries moved their CPU ratio by 9 % (docs/MEASUREMENTS.md), so
# a fixed order favours one of them. Prints each binary's median CPU time (user + system), wall
# time and peak RSS (/usr/bin/time), and for each pair the median and quartiles of the
# round-by-round CPU ratios (a round's binaries share its load), with the median wall ratio.
#
# usage: benches/binaries.sh ROUNDS OUT_DIR BIN... -- BUILD_ARGS...
#   e.g. benches/binaries.sh 12 /tmp/three /tmp/indexer-old /tmp/indexer-mid \
#          target/release/indexer -- ../shared/corpus/docs/*.warc.gz --detector hybrid
# COMMAND=extract times `extract ARGS` (output thrown away) instead of `build ARGS --index`.
# A binary given as "PATH ARG..." (quoted) runs with those arguments first: two runs of one
# binary, e.g. "target/release/indexer extract --markdown" beside "target/release/indexer extract".
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n 2,11p "$0" >&2; exit 2; }
rounds=$1 out=$2
shift 2
bins=()
while [[ $# -gt 0 && $1 != -- ]]; do bins+=("$1"); shift; done
[[ $# -gt 0 ]] || { echo "binaries.sh: no -- before the build arguments" >&2; exit 2; }
shift
mkdir -p "$out"
rm -f "$out"/time-*
count=${#bins[@]}
for round in $(seq "$rounds"); do
  for turn in $(seq 0 $((count - 1))); do
    i=$(((turn + round) % count))
    read -ra binary <<<"${bins[$i]}"
    if [[ ${COMMAND:-build} == extract ]]; then
      [[ ${#binary[@]} -gt 1 ]] || binary+=(extract)
      /usr/bin/time -f "%e %U %S %M" -o "$out/time-$i-$round" "${binary[@]}" "$@" > /dev/null 2>&1
    else
      /usr/bin/time -f "%e %U %S %M" -o "$out/time-$i-$round" \
        "${binary[@]}" build "$@" --index "$out/index-$i" > /dev/null 2>&1
    fi
  done
done
python3 - "$out" "$rounds" "${bins[@]}" <<'PY'
import statistics, sys
out, rounds, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cpu, wall, rss = {}, {}, {}
for i in range(len(bins)):
    for r in range(1, rounds + 1):
        e, u, s, m = open(f"{out}/time-{i}-{r}").read().split()[-4:]
        cpu.setdefault(i, []).append(float(u) + float(s))
        wall.setdefault(i, []).append(float(e))
        rss.setdefault(i, []).append(int(m) / 1024)
print(f"| binary | median CPU s ({rounds} rounds, range) | median wall s | median peak RSS MiB |")
print("|---|---:|---:|---:|")
for i, name in enumerate(bins):
    print(f"| {name} | {statistics.median(cpu[i]):.2f} ({min(cpu[i]):.2f}-{max(cpu[i]):.2f}) "
          f"| {statistics.median(wall[i]):.2f} | {statistics.median(rss[i]):.0f} |")
print()
print("| pair | CPU ratio, median of rounds (quartiles) | wall ratio, median |")
print("|---|---:|---:|")
for i in range(1, len(bins)):
    for j in range(i):
        ratios = sorted(cpu[i][r] / cpu[j][r] for r in range(rounds))
        quartiles = statistics.quantiles(ratios, n=4) if rounds > 1 else [ratios[0]] * 3
        walls = statistics.median(wall[i][r] / wall[j][r] for r in range(rounds))
        print(f"| {bins[i]} / {bins[j]} | {quartiles[1]:.3f} ({quartiles[0]:.3f}-{quartiles[2]:.3f}) "
              f"| {walls:.3f} |")
PY
