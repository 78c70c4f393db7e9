#!/usr/bin/env bash
# Checks that two builds of `indexer` make the same decisions: `extract` output of every
# detector (and of the chosen variants, `hybrid` in two passes and in one) on the shared docs,
# news and articles corpora, compared byte for byte by SHA-256. Use it around a change meant to leave behaviour alone (a refactoring): keep
# a binary of the old commit, build the new one, and run
#
#   benches/same_output.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]
#
# Prints one line per (corpus, detector): both digests, line counts and `same` or `DIFFERENT`;
# exits 1 when any output differs. Runs with --threads 2 unless a run names its threads.
# `menu` fills a cache of section pages while pages are decided in parallel, so its output
# can differ between two runs of the same binary (issue: seed methods); its --threads 1 run is
# the one that must match. KEEP_OLD=1 reuses the old
# binary's outputs from an earlier run in OUT_DIR; OLD_ONLY=1 writes the old binary's outputs
# and stops (run it before the change, then KEEP_OLD=1 after it). DECISIONS=1 compares the
# decisions alone (`--explain`'s blocks: kept, rule, score; benches/decisions_only.py), for a
# change to how the kept text is written that must leave every decision as it was.
set -euo pipefail
old=${1:?usage: same_output.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]}
new=${2:?usage: same_output.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]}
shared=${3:-../shared}
out=${4:-target/same-output}
mkdir -p "$out"
# name|options; the name is also the output file's stem.
runs=(
  "hybrid|--detector hybrid"
  "hybrid-one-pass|--detector hybrid --one-pass"
  "hybrid-markdown|--detector hybrid --markdown"
  "hybrid-markdown-links|--detector hybrid --markdown --links --images --no-lang"
  "bloom|--detector bloom"
  "bloom-paper-headings|--detector bloom --bloom-paper-headings"
  "sandwich|--detector sandwich"
  "sandwich-token|--detector sandwich --sandwich-unit token"
  "table-chunk|--detector table-chunk"
  "table-chunk-layout|--detector table-chunk --table-chunk-layout-tags"
  "incremental|--detector incremental"
  "menu|--detector menu"
  "menu-1-thread|--detector menu --threads 1"
  "none|--detector none"
  "bloom-rounds|--detector bloom --memory-budget 64"
)
differ=0
for corpus in docs news articles; do
  warcs=("$shared"/corpus/$corpus/*.warc.gz)
  for run in "${runs[@]}"; do
    IFS='|' read -r name options <<< "$run"
    sides=(old new)
    [[ ${OLD_ONLY:-0} == 1 ]] && sides=(old)
    for side in "${sides[@]}"; do
      # KEEP_OLD=1 reuses an earlier run's outputs of the old binary.
      if [[ $side == old && ${KEEP_OLD:-0} == 1 && -s $out/$corpus-$name.old.jsonl ]]; then
        continue
      fi
      bin=$old
      [[ $side == new ]] && bin=$new
      threads=(--threads 2)
      [[ $options == *--threads* ]] && threads=()
      if [[ ${DECISIONS:-0} == 1 ]]; then
        # shellcheck disable=SC2086
        "$bin" extract "${warcs[@]}" "${threads[@]}" $options --explain 2> "$out/$corpus-$name.$side.log" \
          | python3 benches/decisions_only.py > "$out/$corpus-$name.$side.jsonl"
      else
        # shellcheck disable=SC2086
        "$bin" extract "${warcs[@]}" "${threads[@]}" $options \
          > "$out/$corpus-$name.$side.jsonl" 2> "$out/$corpus-$name.$side.log"
      fi
    done
    if [[ ${OLD_ONLY:-0} == 1 ]]; then
      printf '%-8s %-22s old written\n' "$corpus" "$name"
      continue
    fi
    a=$(sha256sum < "$out/$corpus-$name.old.jsonl" | cut -c1-16)
    b=$(sha256sum < "$out/$corpus-$name.new.jsonl" | cut -c1-16)
    lines=$(wc -l < "$out/$corpus-$name.new.jsonl")
    verdict=same
    if [[ $a != "$b" ]]; then
      verdict=DIFFERENT
      differ=1
    fi
    printf '%-8s %-22s %s %s %6d lines  %s\n' "$corpus" "$name" "$a" "$b" "$lines" "$verdict"
  done
done
exit "$differ"
