#!/usr/bin/env bash
# The cost and accuracy of `extract`'s language detection (`lang`) on the articles corpus:
# `extract` with and without it (`--no-lang`), alternated run by run so that a noisy machine
# slows both alike; prints each run, the medians of wall and CPU time and their ratios, then
# benches/lang_accuracy.py's agreement of `lang` with each page's own <html lang> attribute.
#
# usage: benches/lang.sh [SHARED_DIR] [RUNS] [OUT_DIR]     (INDEXER_BIN: a binary to measure)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
runs=${2:-3}
out=${3:-target/lang}
mkdir -p "$out"
source benches/lib.sh
bin=$(indexer_binary)
warc="$shared/corpus/articles/trafilatura-eval.warc.gz"
for run in $(seq "$runs"); do
  for mode in lang no-lang; do
    flags=(extract -q --keep-empty "$warc")
    [[ $mode == no-lang ]] && flags+=(--no-lang)
    /usr/bin/time -f "%e %U %S" -o "$out/time-$mode-$run" "$bin" "${flags[@]}" > "$out/pages-$mode.jsonl"
    echo "$mode run $run: $(cat "$out/time-$mode-$run") (wall, user, sys seconds)"
  done
done
python3 - "$out" "$runs" <<'PY'
import statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
def medians(mode):
    rows = [list(map(float, open(f"{out}/time-{mode}-{r}").read().split())) for r in range(1, runs + 1)]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] + r[2] for r in rows)
(wall_on, cpu_on), (wall_off, cpu_off) = medians("lang"), medians("no-lang")
print(f"median wall: with lang {wall_on:.2f} s, without {wall_off:.2f} s, ratio {wall_on / wall_off:.3f}")
print(f"median CPU:  with lang {cpu_on:.2f} s, without {cpu_off:.2f} s, ratio {cpu_on / cpu_off:.3f}")
PY
python3 benches/lang_accuracy.py "$warc" "$out/pages-lang.jsonl"
