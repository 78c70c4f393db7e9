#!/usr/bin/env bash
# Known-item retrieval against the title boost: `indexer eval` of the default detector and
# `none` on the docs and news corpora at several `--title-boost` values; prints title and
# phrase MRR@10 per value. Used to choose search::TITLE_BOOST.
#
# usage: benches/title_boost.sh [SHARED_DIR] [BOOSTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
shift || true
boosts=("${@:-1 1.5 2 3 5}")
read -r -a boosts <<< "${boosts[*]}"
cargo build --release --quiet
echo "| corpus | title boost | index | MRR@10 title | MRR@10 phrase |"
echo "|---|---:|---|---:|---:|"
for corpus in docs news; do
  for boost in "${boosts[@]}"; do
    "target/release/indexer" eval "$shared"/corpus/$corpus/*.warc.gz \
      --labels "$shared/corpus/$corpus/*.labels.jsonl.gz" --detector hybrid,none \
      --title-boost "$boost" --json |
      python3 -c "
import json, sys
report = json.load(sys.stdin)
for row in report['rows']:
    r = row['retrieval']
    print(f\"| $corpus | $boost | {row['name']} | {r['title']['mrr_at_10']:.3f} | {r['phrase']['mrr_at_10']:.3f} |\")"
  done
done
