#!/usr/bin/env bash
# One machine against Spark, on the same generated crawl: the docs corpus COPIES times under
# hosts of their own, shuffled and cut into FILES WARC files (contrib/spark/make_crawl.py), so
# every host is scattered over every file. Alternates, REPEATS times (default 3), in one run:
#   single  indexer build of all the files (--threads 2)
#   loop    the same stages as processes, one after another: partition per file, build per
#           bucket (--threads 2), combine
#   spark   spark-submit --master local[2] contrib/spark/indexer_spark.py (2 task slots,
#           --threads 1 per task)
# and prints the wall times (median and each run), Spark's stage times, and the byte figures
# a sizing needs: input, map output (the shuffle), index per page.
#
# usage: [REPEATS=3] benches/shards.sh [SHARED_DIR] [OUT_DIR] [COPIES] [FILES] [BUCKETS]
# needs: target/spark-venv (contrib/spark/setup_venv.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
out=${2:-target/shards-bench}
copies=${3:-2}
files=${4:-8}
buckets=${5:-8}
repeats=${REPEATS:-3}
venv=$PWD/target/spark-venv
# INDEXER_BIN: a binary to measure instead of building this checkout's.
if [[ -n ${INDEXER_BIN:-} ]]; then
  bin=$INDEXER_BIN
else
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/release/indexer
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
crawl=$out/crawl-x$copies-f$files
[ -d "$crawl" ] || python3 contrib/spark/make_crawl.py "$copies" "$files" "$crawl" "$shared"/corpus/docs/*.warc.gz >&2
parts=("$crawl"/part-*.warc.gz)

now() { date +%s%N; }
single() {
  rm -rf "$out/single"
  "$bin" build -q --threads 2 "${parts[@]}" --index "$out/single" --json > "$out/single.json"
}
loop() {
  rm -rf "$out/loop"
  mkdir -p "$out/loop/map"
  local i=0
  for part in "${parts[@]}"; do
    "$bin" partition -q "$part" --buckets "$buckets" --out "$out/loop/map/map-$(printf %05d $i)" > /dev/null
    i=$((i + 1))
  done
  local shards=() manifests=()
  for k in $(seq 0 $((buckets - 1))); do
    local inputs=("$out"/loop/map/map-*/bucket-"$k".warc.gz)
    [ -e "${inputs[0]}" ] || continue
    "$bin" build -q --threads 2 "${inputs[@]}" --index "$out/loop/shards/bucket-$k" > /dev/null
    shards+=("$out/loop/shards/bucket-$k")
  done
  for m in "$out"/loop/map/*/manifest.json; do manifests+=(--manifest "$m"); done
  "$bin" combine -q "${shards[@]}" --index "$out/loop/combined" "${manifests[@]}" > /dev/null
}
spark() {
  rm -rf "$out/spark"
  PYSPARK_PYTHON=$venv/bin/python SPARK_LOCAL_IP=127.0.0.1 "$venv/bin/spark-submit" \
    --master 'local[2]' --files "$bin" contrib/spark/indexer_spark.py --buckets "$buckets" \
    --threads 1 --work "$out/spark/work" --index "$out/spark/combined" "${parts[@]}" \
    > "$out/spark-report.json" 2> "$out/spark.log"
}

declare -A times
for run in $(seq "$repeats"); do
  for job in single loop spark; do
    started=$(now)
    $job
    times[$job]="${times[$job]:-} $(( $(now) - started ))"
  done
done

python3 - "$out" "$crawl" "$buckets" "${times[single]}" "${times[loop]}" "${times[spark]}" <<'PY'
import glob, json, os, statistics, sys
out, crawl, buckets = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = {name: [int(t) / 1e9 for t in sys.argv[4 + i].split()] for i, name in enumerate(["single", "loop", "spark"])}
single = json.load(open(f"{out}/single.json"))
report = json.load(open(f"{out}/spark-report.json"))
size = lambda pattern: sum(os.path.getsize(p) for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
input_bytes = size(f"{crawl}/part-*.warc.gz")
map_bytes = size(f"{out}/spark/work/map/*/bucket-*.warc.gz")
def index_bytes(root):
    gen = open(f"{root}/CURRENT").read().strip()
    return size(f"{root}/{gen}/*")
single_index, combined_index = index_bytes(f"{out}/single"), index_bytes(f"{out}/spark/combined")
shard_bytes = size(f"{out}/spark/work/shards/**/*")
median = {name: statistics.median(times) for name, times in runs.items()}
print(f"crawl: {single['pages']} pages of {single['records']} records, {len(glob.glob(crawl + '/part-*'))} files, "
      f"{input_bytes / 1e6:.1f} MB gzip, {single['html_bytes'] / 1e6:.1f} MB of HTML; {buckets} buckets")
print()
print("| job | median wall s | runs | × single |")
print("|---|---:|---|---:|")
for name in ["single", "loop", "spark"]:
    print(f"| {name} | {median[name]:.2f} | {', '.join(f'{t:.2f}' for t in runs[name])} | {median[name] / median['single']:.2f} |")
print()
print(f"spark stages (last run): {report['seconds']}, {report['map_tasks']} map tasks, {report['reduce_tasks']} reduce tasks")
print(f"map output (the shuffle): {map_bytes / 1e6:.1f} MB = {map_bytes / input_bytes:.2f} × the input")
print(f"index: single {single_index / 1e6:.1f} MB, combined {combined_index / 1e6:.1f} MB (shards {shard_bytes / 1e6:.1f} MB, linked, not copied, when on one disk); "
      f"{single_index / single['pages'] / 1e3:.1f} kB per page, {single_index / input_bytes:.2f} × the gzip input")
PY
