#!/usr/bin/env bash
# Retrains the model built into the binary (src/detect/hybrid/default-model.json) from the
# shared corpora — docs and news with their content labels, articles with its snippets — and
# says whether the result is byte for byte the committed file (training is seeded and
# single-threaded, so it should be unless the features, labels or code changed).
#
# usage: benches/train_default_model.sh [SHARED_DIR] [--write]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
corpus=$shared/corpus
cargo build --release --quiet
out=$(mktemp --suffix .json)
trap 'rm -f "$out"' EXIT
target/release/indexer train "$corpus"/docs/*.warc.gz "$corpus"/news/*.warc.gz \
  "$corpus"/articles/*.warc.gz \
  --labels "$corpus/docs/*.labels.jsonl.gz" --labels "$corpus/news/*.labels.jsonl.gz" \
  --snippets "$corpus/articles/*.snippets.jsonl.gz" --out "$out"
committed=src/detect/hybrid/default-model.json
if cmp -s "$out" "$committed"; then
  echo "same as $committed ($(sha256sum < "$out" | cut -c1-16))"
elif [[ ${2:-} == --write ]]; then
  cp "$out" "$committed"
  echo "wrote $committed ($(sha256sum < "$out" | cut -c1-16))"
else
  echo "differs from $committed (run with --write to replace it)"
  exit 1
fi
