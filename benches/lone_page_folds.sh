#!/usr/bin/env bash
# Lone pages of sites a model never saw: every labelled page of docs and news as the only page
# of its site (benches/lone_corpus.py), decided by a one-pass model trained without its site.
#
# The sites are held out in folds — docs in 3 folds of 4 sites (in name order), news in 2
# folds of 2 sites (its 4 hosts, every year together). For each fold `indexer train --one-pass`
# fits a model on every other docs and news site and all of articles, with the built-in
# models' recipe (`recipe` in benches/lib.sh:
# LONE_PAGE_DRAWS=1 trains without lone-page draws; TRAIN_FLAGS adds flags);
# `indexer extract --one-pass --model` decides the fold's lone pages with it. One `indexer
# eval` per corpus then scores all held-out pages together against `none` (per site with
# --sites). A one-pass read decides a lone page as a two-pass build does (a site of one page
# is decided by the one-pass model), so this is the figure for both.
#
# usage: benches/lone_page_folds.sh SHARED_DIR OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$1
out=$2
corpus=$shared/corpus
source benches/lib.sh
bin=$(indexer_binary)
recipe
mkdir -p "$out/lone"
read -r -a train_flags <<< "${TRAIN_FLAGS:-}"

for corpus_name in docs news; do
  for warc in "$corpus/$corpus_name"/*.warc.gz; do
    name=$(basename "$warc" .warc.gz)
    lone=$out/lone/$name.warc.gz
    [[ -s $lone ]] || python3 benches/lone_corpus.py "$warc" \
      "$corpus/$corpus_name/$name.labels.jsonl.gz" "$lone" "$out/lone/$name.labels.jsonl.gz"
  done
done

# The folds, each a list of file names (without .warc.gz) held out together.
docs=($(cd "$corpus/docs" && ls *.warc.gz | sed 's/\.warc\.gz$//'))
folds=()
for start in 0 4 8; do folds+=("${docs[*]:start:4}"); done
news_hosts=($(cd "$corpus/news" && ls *.warc.gz | sed -E 's/-[0-9]{4}\.warc\.gz$//' | sort -u))
for start in 0 2; do
  fold=()
  for host in "${news_hosts[@]:start:2}"; do
    fold+=($(cd "$corpus/news" && ls "$host"-*.warc.gz | sed 's/\.warc\.gz$//'))
  done
  folds+=("${fold[*]}")
done

: > "$out/held-out.jsonl"
at=0
for fold in "${folds[@]}"; do
  at=$((at + 1))
  train=()
  held=()
  for corpus_name in docs news; do
    for warc in "$corpus/$corpus_name"/*.warc.gz; do
      name=$(basename "$warc" .warc.gz)
      if [[ " $fold " == *" $name "* ]]; then
        held+=("$out/lone/$name.warc.gz")
      else
        train+=("$warc")
      fi
    done
  done
  echo "fold $at: $fold" >&2
  "$bin" train -q "${train[@]}" "$corpus"/articles/*.warc.gz \
    --labels "$corpus/docs/*.labels.jsonl.gz" --labels "$corpus/news/*.labels.jsonl.gz" \
    --snippets "$corpus/articles/*.snippets.jsonl.gz" "${recipe_flags[@]}" \
    "${one_pass_flags[@]}" "${train_flags[@]}" --out "$out/model-$at.json" > /dev/null
  "$bin" extract -q "${held[@]}" --detector hybrid --one-pass --model "$out/model-$at.json" \
    >> "$out/held-out.jsonl"
done

for corpus_name in docs news; do
  warcs=()
  labels=()
  for warc in "$corpus/$corpus_name"/*.warc.gz; do
    name=$(basename "$warc" .warc.gz)
    warcs+=("$out/lone/$name.warc.gz")
    labels+=(--labels "$out/lone/$name.labels.jsonl.gz")
  done
  echo "== $corpus_name: every page alone, decided by a model that never saw its site"
  "$bin" eval -q "${warcs[@]}" "${labels[@]}" --detector none --sites \
    --predictions "hybrid-held-out=$out/held-out.jsonl" --report "$out/eval-$corpus_name.md"
done
