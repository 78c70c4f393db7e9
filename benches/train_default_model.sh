#!/usr/bin/env bash
# Retrains the models built into the binary from the shared corpora — docs and news with their
# content labels, articles with its snippets — and says whether each result is byte for byte
# the committed file (training is seeded and single-threaded, so it should be unless the
# features, labels or code changed). LONE_SETS=1 adds the lone-page sets (dragnet,
# cleaneval-dev), an experiment that is not the built-in recipe (docs/MEASUREMENTS.md):
#   src/detect/hybrid/default-model.json           (two-pass evidence: `indexer train`)
#   src/detect/hybrid/default-one-pass-model.json  (one-pass evidence: `indexer train --one-pass`)
#
# Each training site is also sampled down to 1, 3, 10 and 30 pages (`--pages-per-site`, seed 1),
# so that the models learn how far to trust site evidence by how much of it there is, and read
# alone 16 times, a different page each time (`--lone-page-draws 16`), so that they see lone
# pages of every kind the labelled sites hold; PAGES_PER_SITE, LONE_PAGE_DRAWS and ENSEMBLE
# change the recipe (`recipe` in benches/lib.sh).
#
# usage: benches/train_default_model.sh [SHARED_DIR] [--write]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
corpus=$shared/corpus
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
recipe
lone_inputs=()
[[ ${LONE_SETS:-0} == 1 ]] &&
  lone_inputs=("$corpus"/lone/*.warc.gz --labels "$corpus/lone/*.labels.jsonl.gz"
    --weigh "$corpus/lone/dragnet.labels.jsonl.gz=${DRAGNET_WEIGHT:-1}")
out=$(mktemp --suffix .json)
trap 'rm -f "$out"' EXIT
status=0
for variant in two-pass one-pass; do
  if [[ $variant == one-pass ]]; then
    flags=("${one_pass_flags[@]}")
    committed=src/detect/hybrid/default-one-pass-model.json
  else
    flags=("${two_pass_flags[@]}")
    committed=src/detect/hybrid/default-model.json
  fi
  "$bin" train "$corpus"/docs/*.warc.gz "$corpus"/news/*.warc.gz \
    "$corpus"/articles/*.warc.gz "${lone_inputs[@]}" \
    --labels "$corpus/docs/*.labels.jsonl.gz" --labels "$corpus/news/*.labels.jsonl.gz" \
    --snippets "$corpus/articles/*.snippets.jsonl.gz" --out "$out" "${flags[@]}" \
    "${recipe_flags[@]}" > /dev/null
  if cmp -s "$out" "$committed"; then
    echo "$variant: same as $committed ($(sha256sum < "$out" | cut -c1-16))"
  elif [[ ${2:-} == --write ]]; then
    cp "$out" "$committed"
    echo "$variant: wrote $committed ($(sha256sum < "$out" | cut -c1-16))"
  else
    echo "$variant: differs from $committed (run with --write to replace it)"
    status=1
  fi
done
exit $status
