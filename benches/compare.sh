#!/usr/bin/env bash
# Whole-process speed, peak memory and extraction quality of `indexer` beside established
# extractors, in one run on the same WARCs.
#
#   indexer build  --detector bloom | none      (index building, the product's main job)
#   indexer extract --detector bloom | none     (text only)
#   trafilatura, resiliparse                     (shared/tools/peers.py, in a venv it creates)
#   rs-trafilatura, dom_smoothie                 (shared/tools/rspeers, built here)
#
# Wall times are medians of RUNS runs (peers: PEER_RUNS), each command alternated with the
# others; ratios are against `indexer extract --detector bloom`. Quality is token F1 from
# shared/tools/score.py on docs and news. Speed is judged from these ratios, never from a
# timed test.
#
# usage: benches/compare.sh [SHARED_DIR] [OUT_DIR] [RUNS] [PEER_RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${1:-../shared}" && pwd)
out=${2:-target/compare}
runs=${3:-5}
peer_runs=${4:-1}
mkdir -p "$out"

# INDEXER_BIN: a binary to measure instead of building this checkout's.
source benches/lib.sh
bin=$(indexer_binary)
peers_venv "warcio, trafilatura, resiliparse" warcio trafilatura lxml_html_clean resiliparse
venv=target/peers-venv
cargo build --release --quiet --manifest-path "$shared/tools/rspeers/Cargo.toml" --target-dir target/rspeers
rspeers=target/rspeers/release/rspeers

# name|command (OUT is replaced by the output file, WARCS by the corpus's WARC files)
tools=(
  "indexer build bloom|$bin build WARCS --detector bloom --index OUT.idx"
  "indexer build none|$bin build WARCS --detector none --index OUT.idx"
  "indexer extract bloom|$bin extract WARCS --detector bloom > OUT"
  "indexer extract none|$bin extract WARCS --detector none > OUT"
  "resiliparse|$venv/bin/python $shared/tools/peers.py resiliparse OUT WARCS"
  "trafilatura|$venv/bin/python $shared/tools/peers.py trafilatura OUT WARCS"
  "rs-trafilatura|$rspeers rs-trafilatura OUT WARCS"
  "dom_smoothie|$rspeers dom-smoothie OUT WARCS"
)

slug() { echo "$1" | tr ' ' '-'; }

for corpus in docs news; do
  warcs=$(ls "$shared"/corpus/$corpus/*.warc.gz | tr '\n' ' ')
  for entry in "${tools[@]}"; do
    name=${entry%%|*}
    command=${entry#*|}
    file="$out/$corpus-$(slug "$name")"
    command=${command//WARCS/$warcs}
    command=${command//OUT/$file.jsonl}
    n=1
    if [ "$corpus" = docs ]; then
      case "$name" in indexer*) n=$runs ;; *) n=$peer_runs ;; esac
    fi
    failed=0
    for run in $(seq "$n"); do
      if ! /usr/bin/time -f "%e %M" -o "$file.time.$run" bash -c "$command" > /dev/null 2> "$file.log"; then
        echo "$name failed on $corpus; see $file.log" >&2
        rm -f "$file".time.*
        failed=1
        break
      fi
    done
    if [[ $failed == 0 && "$name" != "indexer build"* ]]; then
      python3 "$shared/tools/score.py" "$shared"/corpus/$corpus/*.labels.jsonl.gz --pred "$file.jsonl" --json > "$file.score.json"
    fi
  done
done

html_bytes=$(zcat "$shared"/corpus/docs/*.warc.gz | wc -c)
python3 - "$out" "$html_bytes" "${tools[@]}" <<'PY'
import glob, json, os, statistics, sys
out, warc_bytes, tools = sys.argv[1], int(sys.argv[2]), [t.split("|")[0] for t in sys.argv[3:]]
slug = lambda name: name.replace(" ", "-")
rows = []
for name in tools:
    times = [tuple(map(float, open(f).read().split()[-2:])) for f in sorted(glob.glob(f"{out}/docs-{slug(name)}.time.*"))]
    if not times:
        print(f"{name}: failed, see {out}/docs-{slug(name)}.log", file=sys.stderr)
        continue
    seconds = statistics.median(t for t, _ in times)
    rss = max(k for _, k in times) / 1024
    f1 = {}
    for corpus in ("docs", "news"):
        path = f"{out}/{corpus}-{slug(name)}.score.json"
        f1[corpus] = json.load(open(path))["micro"][2] if os.path.exists(path) else None
    rows.append((name, seconds, len(times), rss, f1))
base = next(s for n, s, *_ in rows if n == "indexer extract bloom")
print(f"docs: {warc_bytes / 1e6:.0f} MB of uncompressed WARC; wall time is the whole process, median of the runs")
print(f"| tool | median s (runs) | MB/s of WARC | × `indexer extract bloom` time | peak RSS MB | F1 docs | F1 news |")
print("|---|---:|---:|---:|---:|---:|---:|")
fmt = lambda v: "-" if v is None else f"{v:.3f}"
for name, seconds, n, rss, f1 in rows:
    print(f"| {name} | {seconds:.2f} ({n}) | {warc_bytes / 1e6 / seconds:.1f} | {seconds / base:.2f} | {rss:.0f} | {fmt(f1['docs'])} | {fmt(f1['news'])} |")
PY
