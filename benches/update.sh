#!/usr/bin/env bash
# A living index against one build (issue 27's targets): the docs corpus built once, built as
# ten runs of a recurring crawl (`build` of the first run, then `add` of each next: every run
# holds a tenth of every site, in crawl order — benches/recrawl_split.py), and built as ten
# separate indexes (what one had before `add`). Prints, for each: pages, distinct URLs, the
# kept text's F1 against the labels (../shared/tools/score.py), the site models' share of the
# index; then whether the ten adds answer the eval queries with the same top 10 as the one
# build (benches/same_results.py), and whether re-adding the last run changes anything.
#
# usage: benches/update.sh SHARED OUT [BUILD_FLAGS...]    e.g. benches/update.sh ../shared /tmp/upd --one-pass
# CORPUS picks the corpus of SHARED (default docs). INDEXER_BIN picks the binary (default
# target/release/indexer); ADD_FLAGS are given to each
# `add` only (e.g. ADD_FLAGS="--redecide touched"). Needs QUERIES=FILE from
# `indexer eval … --queries FILE` for the top-10 comparison (skipped without it).
set -euo pipefail
shared=$1 out=$2
shift 2
flags=("$@")
read -r -a add_flags <<< "${ADD_FLAGS:-}"
bin=${INDEXER_BIN:-target/release/indexer}
corpus=$shared/corpus/${CORPUS:-docs}
labels=("$corpus"/*.labels.jsonl.gz)
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"

python3 "$here/recrawl_split.py" 10 "$out/runs" "$corpus"/*.warc.gz > "$out/split.txt"
runs=("$out"/runs/run-*.warc.gz)

figures() { # name index-or-export
  local name=$1 export=$2
  local pages urls f1
  pages=$(wc -l < "$export")
  urls=$(python3 -c 'import json,sys; print(len({json.loads(l)["url"] for l in open(sys.argv[1])}))' "$export")
  f1=$(python3 "$shared/tools/score.py" "${labels[@]}" --pred "$export" | sed -n 's/.*micro P=\([0-9.]*\) R=\([0-9.]*\) F1=\([0-9.]*\).*/P=\1 R=\2 F1=\3/p')
  printf '%-22s pages %5s  urls %5s  %s\n' "$name" "$pages" "$urls" "$f1"
}

"$bin" build "$corpus" --index "$out/one" -q "${flags[@]}" > /dev/null
"$bin" export --index "$out/one" -q > "$out/one.jsonl"
figures "one build" "$out/one.jsonl"

"$bin" build "${runs[0]}" --index "$out/adds" -q "${flags[@]}" > /dev/null
for run in "${runs[@]:1}"; do
  "$bin" add --index "$out/adds" "$run" -q "${flags[@]}" "${add_flags[@]}" > /dev/null
done
"$bin" export --index "$out/adds" -q > "$out/adds.jsonl"
figures "build + 9 adds" "$out/adds.jsonl"

: > "$out/separate.jsonl"
for run in "${runs[@]}"; do
  name=$(basename "$run" .warc.gz)
  "$bin" build "$run" --index "$out/separate-$name" -q "${flags[@]}" > /dev/null
  "$bin" export --index "$out/separate-$name" -q >> "$out/separate.jsonl"
done
figures "10 separate builds" "$out/separate.jsonl"

for index in one adds; do
  "$bin" stats --json "$out/$index" | python3 -c '
import json, sys
figures = json.load(sys.stdin)["index"]
models, sites, total = figures["site_model_bytes"], figures["site_models"], figures["total_bytes"]
print(f"{sys.argv[1]:<22} site models {models} bytes of {sites} sites, {100 * models / total:.1f}% of the index ({total} bytes)")' "$index"
done

before=$("$bin" export --index "$out/adds" -q | sort | md5sum)
"$bin" add --index "$out/adds" "${runs[9]}" -q "${flags[@]}" "${add_flags[@]}" > /dev/null
after=$("$bin" export --index "$out/adds" -q | sort | md5sum)
if [ "$before" = "$after" ]; then echo "re-adding the last run: no page changed"; else echo "re-adding the last run: pages changed"; fi

if [ -n "${QUERIES:-}" ]; then
  INDEXER_BIN=$bin python3 "$here/same_results.py" "$QUERIES" "$out/one" "$out/adds"
fi
