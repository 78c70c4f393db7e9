#!/usr/bin/env bash
# Fuzzes each target for SECONDS (one core each, one after another unless PARALLEL=2), then
# prints a Markdown row per target (fuzz/summarize_log.py). Logs go to fuzz/logs/.
#
# usage: fuzz/run_all.sh [SECONDS] [TARGET...]     (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1200}
shift || true
targets=("${@:-warc_records http_page segment}")
read -r -a targets <<< "${targets[*]}"
declare -A max_len=([warc_records]=16384 [http_page]=8192 [segment]=8192)
[ -d fuzz/corpus/warc_records ] || python3 fuzz/make_seeds.py
RUSTC_BOOTSTRAP=1 CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo +stable fuzz build -O -a
bin=fuzz/target/x86_64-unknown-linux-gnu/release
mkdir -p fuzz/logs
run() {
  local t=$1
  mkdir -p "fuzz/artifacts/$t" "fuzz/corpus/$t"
  "$bin/$t" -artifact_prefix="fuzz/artifacts/$t/" -max_total_time="$seconds" \
    -max_len="${max_len[$t]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    "fuzz/corpus/$t" "tests/data/fuzz/$t" > "fuzz/logs/$t.log" 2>&1 || true
}
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "${PARALLEL:-1}" ]; then wait -n; running=$((running - 1)); fi
done
wait
echo "| target | executions | seconds | exec/s | crashes | edges at half → end | last new edge at | features at half → end | peak RSS MB |"
echo "|---|---:|---:|---:|---:|---|---|---|---:|"
for t in "${targets[@]}"; do python3 fuzz/summarize_log.py "$t" "fuzz/logs/$t.log"; done
