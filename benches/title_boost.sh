#!/usr/bin/env bash
# Known-item retrieval against the search weights: `indexer eval` of the default detector and
# `none` on the docs and news corpora, for each (title boost, title phrase weight) pair; prints
# title and phrase MRR@10 per pair. Used to choose search::TITLE_BOOST and
# search::TITLE_PHRASE_BOOST.
#
# usage: benches/title_boost.sh [SHARED_DIR] [BOOST:PHRASE ...]
#   default pairs: 1:0 1:1 1:2 1:4 2:2
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
shift || true
pairs=("${@:-1:0 1:1 1:2 1:4 2:2}")
read -r -a pairs <<< "${pairs[*]}"
cargo build --release --quiet
echo "| corpus | title boost | title phrase weight | index | MRR@10 title | MRR@10 phrase |"
echo "|---|---:|---:|---|---:|---:|"
for corpus in docs news; do
  for pair in "${pairs[@]}"; do
    boost=${pair%%:*}
    phrase=${pair##*:}
    "target/release/indexer" eval "$shared"/corpus/$corpus/*.warc.gz \
      --labels "$shared/corpus/$corpus/*.labels.jsonl.gz" --detector hybrid,none \
      --title-boost "$boost" --title-phrase-boost "$phrase" --json |
      python3 -c "
import json, sys
report = json.load(sys.stdin)
for row in report['rows']:
    r = row['retrieval']
    print(f\"| $corpus | $boost | $phrase | {row['name']} | {r['title']['mrr_at_10']:.3f} | {r['phrase']['mrr_at_10']:.3f} |\")"
  done
done
