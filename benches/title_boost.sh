#!/usr/bin/env bash
# Known-item retrieval against the search weights: `indexer eval` of the default detector and
# `none` on the docs and news corpora, for each (title boost, title phrase weight, title part
# weight) triple; prints title and phrase MRR@10 per triple. Used to choose
# search::TITLE_BOOST, search::TITLE_PHRASE_BOOST and search::TITLE_PART_BOOST.
#
# usage: benches/title_boost.sh [SHARED_DIR] [BOOST:PHRASE:PART ...]
#   default triples: 1:0:0 1:2:0 1:4:0 2:2:0 1:2:1 1:2:2 1:2:4
# With LOSO=FILE (held-out kept text, as `benches/hybrid.sh` writes it to
# target/hybrid/cv-both.jsonl) a hybrid-loso row is measured too.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
shift || true
pairs=("${@:-1:0:0 1:2:0 1:4:0 2:2:0 1:2:1 1:2:2 1:2:4}")
read -r -a pairs <<< "${pairs[*]}"
cargo build --release --quiet
loso=()
[[ -n ${LOSO:-} ]] && loso=(--predictions "hybrid-loso=$LOSO")
echo "| corpus | title boost | title phrase weight | title part weight | index | MRR@10 title | MRR@10 phrase | S@1 title |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
for corpus in docs news; do
  for pair in "${pairs[@]}"; do
    IFS=: read -r boost phrase part <<< "$pair"
    part=${part:-0}
    "target/release/indexer" eval "$shared"/corpus/$corpus/*.warc.gz \
      --labels "$shared/corpus/$corpus/*.labels.jsonl.gz" --detector hybrid,none ${loso[@]+"${loso[@]}"} \
      --title-boost "$boost" --title-phrase-boost "$phrase" --title-part-boost "$part" --json |
      python3 -c "
import json, sys
report = json.load(sys.stdin)
for row in report['rows']:
    r = row['retrieval']
    print(f\"| $corpus | $boost | $phrase | $part | {row['name']} | {r['title']['mrr_at_10']:.4f} | {r['phrase']['mrr_at_10']:.4f} | {r['title']['success_at_1']:.4f} |\")"
  done
done
