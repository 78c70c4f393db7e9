#!/usr/bin/env bash
# Issue 29's CPU target, whole processes, alternated run by run on the docs corpus and on the
# articles set: `indexer build --detector hybrid` (two passes and --one-pass) and
# `--detector none` beside resiliparse's main-content extraction (shared/tools/peers.py, one
# core). Prints each command's median wall time, CPU time (user + system) and peak RSS from
# /usr/bin/time, its CPU time over resiliparse's, and its wall time over its own CPU time.
#
# usage: benches/cpu_target.sh [SHARED_DIR] [RUNS] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${1:-../shared}" && pwd)
runs=${2:-3}
out=${3:-target/cpu-target}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
peers_venv "warcio, resiliparse" warcio resiliparse
venv=target/peers-venv

# name|command (OUT: a file or folder of this run's own; WARCS: the corpus's files)
commands=(
  "hybrid|$bin build WARCS --detector hybrid --index OUT"
  "hybrid --one-pass|$bin build WARCS --detector hybrid --one-pass --index OUT"
  "none|$bin build WARCS --detector none --index OUT"
  "resiliparse|$venv/bin/python $shared/tools/peers.py resiliparse OUT WARCS"
)
slug() { echo "$1" | tr ' ' '_'; }

rm -f "$out"/time-*
for corpus in docs articles; do
  warcs=$(ls "$shared"/corpus/$corpus/*.warc.gz | tr '\n' ' ')
  for run in $(seq "$runs"); do
    for entry in "${commands[@]}"; do
      name=${entry%%|*}
      command=${entry#*|}
      target="$out/output-$(slug "$name")"
      rm -rf "$target"
      command=${command//WARCS/$warcs}
      command=${command//OUT/$target}
      /usr/bin/time -f "%e %U %S %M" -o "$out/time-$corpus-$(slug "$name")-$run" \
        bash -c "$command" > /dev/null 2> "$out/log"
    done
  done
done

python3 - "$out" "$runs" "${commands[@]}" <<'PY'
import statistics, sys
out, runs, names = sys.argv[1], int(sys.argv[2]), [c.split("|")[0] for c in sys.argv[3:]]
for corpus in ("docs", "articles"):
    rows = {}
    for name in names:
        wall, cpu, rss = [], [], []
        for run in range(1, runs + 1):
            e, u, s, m = open(f"{out}/time-{corpus}-{name.replace(' ', '_')}-{run}").read().split()[-4:]
            wall.append(float(e)); cpu.append(float(u) + float(s)); rss.append(int(m) / 1024)
        rows[name] = tuple(statistics.median(v) for v in (wall, cpu, rss))
    peer = rows["resiliparse"][1]
    print(f"\n{corpus}, medians of {runs} alternated runs\n")
    print("| command | wall s | CPU s | peak RSS MiB | CPU / resiliparse's | wall / CPU |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (wall, cpu, rss) in rows.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {cpu / peer:.2f} | {wall / cpu:.2f} |")
PY
