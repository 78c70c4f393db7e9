#!/usr/bin/env bash
# Measures what the README reports, on the shared labelled corpus, in one run:
#   1. extraction quality (token P/R/F1 via shared/tools/score.py) for each detector;
#   2. index size: `indexer compare` of the `none` and `bloom` indexes;
#   3. build speed: whole-process wall time (median of RUNS, detectors alternated) and peak RSS.
#
# usage: benches/measure.sh [SHARED_DIR] [OUT_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=${2:-target/measure}
runs=${3:-5}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
detectors=(bloom none)

echo "# quality (token F1 against content_text)"
for corpus in docs news; do
  for d in "${detectors[@]}"; do
    "$bin" extract "$shared"/corpus/$corpus/*.warc.gz --detector "$d" > "$out/$corpus-$d.jsonl" 2> "$out/$corpus-$d.extract.log"
    echo "## $corpus $d"
    python3 "$shared/tools/score.py" "$shared"/corpus/$corpus/*.labels.jsonl.gz --pred "$out/$corpus-$d.jsonl" --sites | tee "$out/$corpus-$d.score"
    python3 "$shared/tools/score.py" "$shared"/corpus/$corpus/*.labels.jsonl.gz --pred "$out/$corpus-$d.jsonl" --json > "$out/$corpus-$d.score.json"
  done
done

echo
echo "# index size"
for corpus in docs news; do
  for d in "${detectors[@]}"; do
    "$bin" build "$shared"/corpus/$corpus/*.warc.gz --detector "$d" --index "$out/idx-$corpus-$d" > /dev/null
  done
  echo "## $corpus"
  "$bin" compare "$out/idx-$corpus-none" "$out/idx-$corpus-bloom"
done

echo
echo "# build speed on docs (whole process, $runs runs each, alternated)"
html_bytes=$("$bin" stats "$out/idx-docs-none" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["build"]["html_bytes"])')
for run in $(seq "$runs"); do
  for d in "${detectors[@]}"; do
    /usr/bin/time -f "$d %e %M" -o "$out/time-$d-$run" \
      "$bin" build "$shared"/corpus/docs/*.warc.gz --detector "$d" --index "$out/idx-speed-$d" > /dev/null
  done
done
cat "$out"/time-* | python3 benches/speed_table.py "$html_bytes"
