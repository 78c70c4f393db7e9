#!/usr/bin/env bash
# Creates (idempotently) the Python venv that runs contrib/spark/indexer_spark.py, and checks
# that a Java runtime is there for Spark.
#
# usage: contrib/spark/setup_venv.sh [VENV_DIR]     (default: target/spark-venv)
#
# Prints the venv's python path as its last line, so callers can do
#   python=$(contrib/spark/setup_venv.sh | tail -n1)
# spark-submit is then "$(dirname "$python")/spark-submit".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${1:-$root/target/spark-venv}
mkdir -p "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")
requirements=$here/requirements.txt

# Java first: pyspark is only a launcher around Spark's JVM.
if ! java -version >/dev/null 2>&1; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "== no java: installing openjdk-17-jre-headless" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  fi
fi
if ! java -version >/dev/null 2>&1; then
  echo "error: Spark needs a Java runtime (8, 11 or 17) on PATH, and 'java -version' failed." >&2
  echo "       On Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless" >&2
  exit 1
fi
echo "== $(java -version 2>&1 | head -n1)" >&2

# The venv, made once; the install is skipped when the requirements have not changed since.
if [[ ! -x $venv/bin/python ]]; then
  echo "== creating $venv" >&2
  python3 -m venv "$venv"
fi
stamp=$venv/.requirements.installed
if [[ ! -f $stamp ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "== pip install -r $requirements" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
else
  echo "== $venv is up to date" >&2
fi
"$venv/bin/python" -c 'import pyspark; print("== pyspark", pyspark.__version__)' >&2
echo "== run with: PYSPARK_PYTHON=$venv/bin/python $venv/bin/spark-submit ..." >&2
echo "$venv/bin/python"
