#!/bin/sh
# The docs corpus as one build, and as a build of its first tenth (in crawl order) then nine
# `add`s of a tenth each: documents, postings and tokens of each index, and the top-10 URLs
# of a few queries that agree (issue 27's first target, the index half: without the sites'
# stored template models, each add judges a site's new pages by those pages alone).
#
# usage: benches/update_tenths.sh INDEXER [DETECTOR_FLAGS...]
set -eu
bin=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$(dirname "$0")" "$work" /work/shared/corpus/docs/*.warc.gz <<'PY'
import gzip, sys
sys.path.insert(0, sys.argv[1])
from update_split import records
work, inputs = sys.argv[2], sys.argv[3:]
every = [r for path in inputs for r in records(path)]
for part in range(10):
    with open(f"{work}/part{part}.warc.gz", "wb") as out:
        for kind, url, record in every[part * len(every) // 10:(part + 1) * len(every) // 10]:
            out.write(gzip.compress(record, 6))
PY
"$bin" -q build --index "$work/one" "$@" /work/shared/corpus/docs/*.warc.gz >/dev/null
"$bin" -q build --index "$work/tenths" "$@" "$work/part0.warc.gz" >/dev/null
for part in 1 2 3 4 5 6 7 8 9; do
  "$bin" -q add --index "$work/tenths" "$@" "$work/part$part.warc.gz" >/dev/null
done
figures() { "$bin" stats "$1" --json | python3 -c 'import json,sys; i=json.load(sys.stdin)["index"]; print(i["documents"], "documents,", i["postings"], "postings,", i["tokens"], "tokens")'; }
echo "one build:      $(figures "$work/one")"
echo "build + 9 adds: $(figures "$work/tenths")"
same=0
total=0
for query in ownership exception configuration "virtual host" iterator template module install thread "regular expression"; do
  a=$("$bin" search "$work/one" "$query" --json | python3 -c 'import json,sys; print(" ".join(h["url"] for h in json.load(sys.stdin)["hits"]))')
  b=$("$bin" search "$work/tenths" "$query" --json | python3 -c 'import json,sys; print(" ".join(h["url"] for h in json.load(sys.stdin)["hits"]))')
  total=$((total + 1))
  if [ "$a" = "$b" ]; then same=$((same + 1)); fi
done
echo "top-10 URLs equal, in order: $same of $total queries"
