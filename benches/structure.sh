#!/usr/bin/env bash
# Kept text's shape against two binaries: for each corpus and detector, bag-of-words F1
# (score.py; snippets.py on the articles), line F1 (score_lines.py) and, on the docs, the
# content <pre> blocks kept whole (code_blocks.py, text and --markdown), old binary beside new.
#
#   benches/structure.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]
#
# DETECTORS (default "hybrid none bloom sandwich table-chunk incremental menu") and CORPORA
# (default "docs news articles") narrow the run. Needs warcio, selectolax and markdown-it-py
# for code_blocks.py (installed into target/peers-venv when missing).
set -euo pipefail
old=${1:?usage: structure.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]}
new=${2:?usage: structure.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [OUT_DIR]}
shared=${3:-../shared}
out=${4:-target/structure}
source benches/lib.sh
peers_venv warcio,selectolax,markdown_it warcio selectolax markdown-it-py
python=target/peers-venv/bin/python
tools=$shared/tools
mkdir -p "$out"
for corpus in ${CORPORA:-docs news articles}; do
  warcs=("$shared"/corpus/$corpus/*.warc.gz)
  for detector in ${DETECTORS:-hybrid none bloom sandwich table-chunk incremental menu}; do
    for side in old new; do
      binary=$old
      [[ $side == new ]] && binary=$new
      pred=$out/$corpus-$detector-$side.jsonl
      "$binary" extract "${warcs[@]}" --detector "$detector" --threads 2 -q >"$pred" 2>/dev/null
      if [[ $corpus == articles ]]; then
        words=$("$python" "$tools/snippets.py" "$shared"/corpus/articles/*.snippets.jsonl.gz --pred "$pred" | tail -1)
        lines="(no line labels)"
      else
        labels=("$shared"/corpus/$corpus/*.labels.jsonl.gz)
        words=$("$python" "$tools/score.py" "${labels[@]}" --pred "$pred" | tail -1 | cut -d'|' -f1)
        lines=$("$python" "$tools/score_lines.py" "${labels[@]}" --pred "$pred" | cut -d'|' -f1)
      fi
      echo "$corpus $detector $side | words: $words | $lines"
      if [[ $corpus == docs && $detector == hybrid ]]; then
        code=$("$python" "$tools/code_blocks.py" "${warcs[@]}" --labels "${labels[@]}" --pred "$pred")
        echo "$corpus $detector $side | text $code"
        if [[ $side == new ]]; then
          "$binary" extract "${warcs[@]}" --detector "$detector" --threads 2 -q --markdown >"$out/$corpus-$detector-markdown.jsonl" 2>/dev/null
          code=$("$python" "$tools/code_blocks.py" "${warcs[@]}" --labels "${labels[@]}" --pred "$out/$corpus-$detector-markdown.jsonl" --markdown)
          echo "$corpus $detector $side | markdown $code"
        fi
      fi
    done
  done
done
