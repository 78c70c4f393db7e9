#!/bin/sh
# Add 1 % new pages to the docs index against rebuilding it all, whole process, median of
# RUNS runs each (issue 27's target: the add at least 20x faster).
#
# usage: benches/update_speed.sh INDEXER [RUNS]   (the docs corpus of SHARED, by default the
# shared folder beside the repository)
# ADD_FLAGS are given to the add (e.g. ADD_FLAGS="--redecide touched").
set -eu
bin=$1
runs=${2:-3}
here=$(dirname "$0")
shared=${SHARED:-$here/../../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/update_split.py" 100 "$work/docs99.warc.gz" "$work/docs1.warc.gz" \
  "$shared"/corpus/docs/*.warc.gz
"$bin" -q build --index "$work/base" "$work/docs99.warc.gz" >/dev/null

seconds() { # the wall time of the command, seconds
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/build.times"
: >"$work/add.times"
i=0
while [ "$i" -lt "$runs" ]; do
  rm -rf "$work/rebuilt" "$work/added"
  seconds "$bin" -q build --index "$work/rebuilt" "$work/docs99.warc.gz" "$work/docs1.warc.gz" >>"$work/build.times"
  cp -a "$work/base" "$work/added"
  # shellcheck disable=SC2086 # ADD_FLAGS are words
  seconds "$bin" -q add --index "$work/added" "$work/docs1.warc.gz" ${ADD_FLAGS:-} >>"$work/add.times"
  i=$((i + 1))
done
build=$(median <"$work/build.times")
add=$(median <"$work/add.times")
docs_rebuilt=$("$bin" stats "$work/rebuilt" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["index"]["documents"])')
docs_added=$("$bin" stats "$work/added" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["index"]["documents"])')
echo "rebuild all: median ${build}s ($(tr '\n' ' ' <"$work/build.times")), $docs_rebuilt documents"
echo "add 1 %:     median ${add}s ($(tr '\n' ' ' <"$work/add.times")), $docs_added documents"
echo "ratio: $(echo "scale=1; $build / $add" | bc)x"
