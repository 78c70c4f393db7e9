#!/usr/bin/env bash
# Index size and build speed of two builds of `indexer` (before and after a change of the
# search analyzer), on the docs corpus, on the mostly Chinese or Japanese pages of the
# articles set (benches/cjk_pages.py picks them) and on the Japanese shop of the test
# fixtures: `build` with `--detector none` and with the default detector, RUNS runs each,
# the two binaries alternated; whole-process wall time and peak RSS by `/usr/bin/time -v`,
# medians; then `stats` of each binary's last index (bytes on disk, unique terms, postings).
#
#   benches/cjk_search.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR] [RUNS]
#
# Run it while nothing else runs (`flock /tmp/cargo.lock bash benches/cjk_search.sh …` on a
# shared machine). Prints a Markdown table.
set -euo pipefail
old=${1:?usage: cjk_search.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR] [RUNS]}
new=${2:?usage: cjk_search.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR] [RUNS]}
shared=${3:-../shared}
out=${4:-target/cjk-search}
runs=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
python3 "$here/cjk_pages.py" "$old" "$out/articles-cjk.warc.gz" \
  "$shared/corpus/articles/trafilatura-eval.warc.gz"

declare -A inputs=(
  [docs]="$shared/corpus/docs/*.warc.gz"
  [articles-cjk]="$out/articles-cjk.warc.gz"
  [shop-ja]="$here/../tests/data/fixtures/resiliparse-clueweb-quirk.warc.gz"
)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| input | detector | binary | wall s (median of $runs) | peak RSS MiB | bytes on disk | unique terms | postings |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for set in docs articles-cjk shop-ja; do
  for detector in none default; do
    options=()
    [[ $detector == none ]] && options=(--detector none)
    for run in $(seq "$runs"); do
      for side in old new; do
        bin=$old
        [[ $side == new ]] && bin=$new
        index="$out/idx-$set-$detector-$side"
        rm -rf "$index"
        # shellcheck disable=SC2086
        /usr/bin/time -v "$bin" build ${inputs[$set]} "${options[@]}" --index "$index" --quiet \
          2> "$out/time-$set-$detector-$side-$run.txt" > /dev/null
      done
    done
    for side in old new; do
      bin=$old
      [[ $side == new ]] && bin=$new
      wall=$(for run in $(seq "$runs"); do
        awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
          for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$out/time-$set-$detector-$side-$run.txt"
      done | median)
      rss=$(for run in $(seq "$runs"); do
        awk -F': ' '/Maximum resident set size/ { printf "%.0f\n", $2 / 1024 }' "$out/time-$set-$detector-$side-$run.txt"
      done | median)
      stats=$("$bin" stats "$out/idx-$set-$detector-$side" --json | python3 -c '
import json, sys
index = json.load(sys.stdin)["index"]
print(index["total_bytes"], index["unique_terms"], index["postings"])')
      read -r bytes terms postings <<< "$stats"
      echo "| $set | $detector | $side | $wall | $rss | $bytes | $terms | $postings |"
    done
  done
done
