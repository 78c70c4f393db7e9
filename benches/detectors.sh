#!/usr/bin/env bash
# Compares every detector on the shared labelled corpus, in one run:
#   quality and index size from `indexer eval` (token P/R/F1 with score.py's definition,
#   postings against `none`), and build speed and peak memory of whole `indexer build`
#   processes (median of RUNS, detectors alternated; /usr/bin/time). Writes one markdown
#   table per corpus to OUT_DIR/detectors-CORPUS.md and prints them.
#
# usage: benches/detectors.sh [SHARED_DIR] [OUT_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=${2:-target/detectors}
runs=${3:-3}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
detectors=(bloom sandwich table-chunk incremental menu none)
# Variants measured beside the defaults: name, detector, options.
variants=("sandwich-token|sandwich|--sandwich-unit token" "table-chunk-layout|table-chunk|--table-chunk-layout-tags")

for corpus in docs news; do
  warcs=("$shared"/corpus/$corpus/*.warc.gz)
  labels="$shared/corpus/$corpus/*.labels.jsonl.gz"
  "$bin" eval "${warcs[@]}" --labels "$labels" --json \
    --detector bloom,sandwich,table-chunk,incremental,menu > "$out/eval-$corpus.json"
  for variant in "${variants[@]}"; do
    IFS='|' read -r name detector options <<< "$variant"
    # shellcheck disable=SC2086
    "$bin" eval "${warcs[@]}" --labels "$labels" --json --detector "$detector" $options \
      > "$out/eval-$corpus-$name.json"
  done
  rm -f "$out"/time-$corpus-*
  for run in $(seq "$runs"); do
    for d in "${detectors[@]}"; do
      /usr/bin/time -f "%e %M" -o "$out/time-$corpus-$d-$run" \
        "$bin" build "${warcs[@]}" --detector "$d" --index "$out/idx-$corpus-$d" --json \
        > "$out/build-$corpus-$d.json"
    done
    for variant in "${variants[@]}"; do
      IFS='|' read -r name detector options <<< "$variant"
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e %M" -o "$out/time-$corpus-$name-$run" \
        "$bin" build "${warcs[@]}" --detector "$detector" $options --index "$out/idx-$corpus-$name" --json \
        > "$out/build-$corpus-$name.json"
    done
  done
  python3 benches/detector_table.py "$out" "$corpus" | tee "$out/detectors-$corpus.md"
done
