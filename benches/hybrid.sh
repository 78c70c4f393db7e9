#!/usr/bin/env bash
# `hybrid` on the shared corpora, in one run: a model trained on the labelled corpora (docs,
# news, articles; with LONE_SETS=1 the lone-page sets dragnet and cleaneval-dev too, as an
# experiment: not the built-in recipe, docs/MEASUREMENTS.md, lone pages), its training-set
# figures, and leave-one-site-out figures (each site held out in turn and decided by a model
# fitted on everything else; sites of fewer than 20 labelled pages in ten folds of sites) —
# the figures for sites never seen. With ABLATION=1 also page-only and
# site-only models, cross-validated the same way. With ONE_PASS=1 everything runs under
# --one-pass (features from the one-pass segment table, one-pass detectors beside it). With
# EVAL_ONLY=1 the models and held-out text already in OUT_DIR (from an earlier run of the
# same training code) are measured again, without training.
#
# In two passes a build decides a site of one page with the built-in one-pass model
# (`hybrid`'s lone-page rule), so the two-pass run also trains the one-pass model with its
# leave-one-site-out and takes those pages' held-out text from it (benches/lone_pages.py);
# LONE_PAGES=0 measures the two-pass model on every page instead (as
# --hybrid-lone-page-two-pass builds). The training-set rows use the built-in models when
# the trained ones are byte for byte the same (so the rule applies), and the trained file
# otherwise.
#
# Every figure is given at each size of PAGES_PER_SITE (default 1,3,10,30,all): training pools
# each site sampled down to each size (`train --pages-per-site`, and LONE_PAGE_DRAWS lone
# pages of each site as the built-in models are trained: `recipe` in benches/lib.sh),
# leave-one-site-out holds out a site's samples together and decides each at its size, and eval samples the sites the same
# way (same seed), so each row of the tables is one index at one number of pages per site.
# Each size is drawn DRAWS times (default 16): disjoint samples of each site, each a crawl of
# its own, the extra ones decided held out (`train --held-out-draws`, never trained on) and
# scored together by `eval --draws`, so that a row at 1 or 3 pages per site stands on more
# than one page or three of each site (DRAWS=1: the seed's sample alone).
# PAGES_PER_SITE= (empty) trains and measures whole sites only, without sampling. A host in
# two corpora (www.bbc.com: 10 news pages, 1 article) is sampled from both in training and
# from one in eval, so two of its news pages have no held-out text at their size (one in the
# first draw at K=10, one in a later draw at K=3): eval leaves them out of every row's
# scoring and counts them (`labelled_pages_unpredicted`: 2).
#
# Writes OUT_DIR/model-EVIDENCE.json, OUT_DIR/cv-EVIDENCE.jsonl (held-out kept text) and
# OUT_DIR/eval-CORPUS.md (`indexer eval`: hybrid with the trained model, bloom, none, the
# cross-validated rows and the oracle), and prints the tables.
#
# usage: benches/hybrid.sh [SHARED_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=${2:-target/hybrid}
mkdir -p "$out"
# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
corpus=$shared/corpus
inputs=("$corpus"/docs/*.warc.gz "$corpus"/news/*.warc.gz "$corpus"/articles/*.warc.gz)
labels=(--labels "$corpus/docs/*.labels.jsonl.gz" --labels "$corpus/news/*.labels.jsonl.gz"
  --snippets "$corpus/articles/*.snippets.jsonl.gz")
site_corpora=(docs news articles)
if [[ ${LONE_SETS:-0} == 1 ]]; then
  inputs+=("$corpus"/lone/*.warc.gz)
  labels+=(--labels "$corpus/lone/*.labels.jsonl.gz"
    --weigh "$corpus/lone/dragnet.labels.jsonl.gz=${DRAGNET_WEIGHT:-1}")
  site_corpora+=(lone)
fi

sample_flags=()
held_out_flags=()
sites=(--sites)
pages_per_site=${PAGES_PER_SITE-1,3,10,30,all}
recipe
if [[ -n $pages_per_site ]]; then
  sample_flags=(--pages-per-site "$pages_per_site" --draws "${DRAWS:-16}")
  held_out_flags=(--held-out-draws "${DRAWS:-16}")
  # A column per index and size would not fit a page.
  [[ $pages_per_site == *,* ]] && sites=()
fi

# What `train` is given for the pass (the recipe's flags), and what `eval` is given.
train_pass_flags=("${two_pass_flags[@]}")
pass_flags=()
detectors=hybrid,bloom
if [[ ${ONE_PASS:-0} == 1 ]]; then
  train_pass_flags=("${one_pass_flags[@]}")
  pass_flags=(--one-pass)
  detectors=hybrid,incremental,sandwich
fi

evidences=(both)
[[ ${ABLATION:-0} == 1 ]] && evidences=(both page site)
for evidence in "${evidences[@]}"; do
  if [[ ${EVAL_ONLY:-0} == 1 ]]; then
    [[ -f $out/model-$evidence.json && -f $out/cv-$evidence.jsonl ]] ||
      { echo "EVAL_ONLY=1: $out/model-$evidence.json or cv-$evidence.jsonl is missing" >&2; exit 1; }
    continue
  fi
  echo "== train --evidence $evidence (with leave-one-site-out)" >&2
  "$bin" train "${inputs[@]}" "${labels[@]}" --evidence "$evidence" "${train_pass_flags[@]}" \
    "${recipe_flags[@]}" "${held_out_flags[@]}" --out "$out/model-$evidence.json" \
    --cross-validate "$out/cv-$evidence.jsonl"
done

if [[ ${ONE_PASS:-0} != 1 && ${LONE_PAGES:-1} == 1 && ${EVAL_ONLY:-0} != 1 ]]; then
  echo "== train --one-pass (with leave-one-site-out), for the sites of one page" >&2
  "$bin" train "${inputs[@]}" "${labels[@]}" "${one_pass_flags[@]}" "${recipe_flags[@]}" "${held_out_flags[@]}" \
    --out "$out/model-both-one-pass.json" --cross-validate "$out/cv-both-one-pass.jsonl"
  site_files=()
  for name in "${site_corpora[@]}"; do
    site_files+=("$out/sites-$name.jsonl")
    "$bin" extract -q "$corpus"/$name/*.warc.gz --detector none |
      python3 -c 'import json, sys
for line in sys.stdin:
    page = json.loads(line)
    print(json.dumps({"url": page["url"], "site": page["site"]}))' > "$out/sites-$name.jsonl"
  done
  mv "$out/cv-both.jsonl" "$out/cv-both-two-pass-model.jsonl"
  python3 benches/lone_pages.py "$out/cv-both-two-pass-model.jsonl" "$out/cv-both-one-pass.jsonl" \
    "${site_files[@]}" > "$out/cv-both.jsonl"
fi

built_in=src/detect/hybrid/default-model.json
[[ ${ONE_PASS:-0} == 1 ]] && built_in=src/detect/hybrid/default-one-pass-model.json
model_flags=(--model "$out/model-both.json")
if cmp -s "$out/model-both.json" "$built_in"; then
  model_flags=()
else
  echo "note: $out/model-both.json is not $built_in; the training-set rows use the file" >&2
fi

predictions=()
for evidence in "${evidences[@]}"; do
  predictions+=(--predictions "hybrid-loso-$evidence=$out/cv-$evidence.jsonl")
done
for name in docs news; do
  echo "== eval $name" >&2
  "$bin" eval "$corpus"/$name/*.warc.gz --labels "$corpus/$name/*.labels.jsonl.gz" \
    --detector "$detectors" "${model_flags[@]}" "${predictions[@]}" "${sites[@]}" \
    "${pass_flags[@]}" "${sample_flags[@]}" --report "$out/eval-$name.md" > /dev/null
  cat "$out/eval-$name.md"
done
echo "== eval articles" >&2
"$bin" eval "$corpus"/articles/*.warc.gz --snippets "$corpus/articles/*.snippets.jsonl.gz" \
  --detector "$detectors" "${model_flags[@]}" "${predictions[@]}" "${pass_flags[@]}" \
  "${sample_flags[@]}" --report "$out/eval-articles.md" > /dev/null
cat "$out/eval-articles.md"
# The lone-page sets: every page alone on its site, so one size. Without LONE_SETS=1 no model
# saw them: the `hybrid` row is held out too.
# (Held-out text of whole sites only: a size list without `all` has none for an eval
# without sampling.)
lone_predictions=()
if [[ ${LONE_SETS:-0} == 1 && ( -z $pages_per_site || ,$pages_per_site, == *,all,* ) ]]; then
  lone_predictions=("${predictions[@]}")
fi
for name in dragnet cleaneval-dev; do
  echo "== eval $name" >&2
  "$bin" eval "$corpus/lone/$name.warc.gz" --labels "$corpus/lone/$name.labels.jsonl.gz" \
    --detector "$detectors" "${model_flags[@]}" "${pass_flags[@]}" "${lone_predictions[@]}" \
    --report "$out/eval-$name.md" --json > "$out/eval-$name.json"
  cat "$out/eval-$name.md"
done
