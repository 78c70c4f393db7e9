#!/usr/bin/env bash
# Builds the Python package's wheel (maturin, release) into target/wheels, installs it in a
# venv made here, and runs python/tests against it — what .ci/run does after the cargo tests.
#
# usage: python/check.sh [VENV_DIR]     (default: target/python-venv)
#
# The dolma toolkit goes in a second venv: $INDEXER_DOLMA_VENV, by default target/dolma-venv.
#
# The tests compare with the indexer binary: $INDEXER_BIN, or target/release/indexer (which
# `cargo test --release` builds). Cargo builds in $CARGO_TARGET_DIR, by default the
# repository's target/ (python/ is a workspace of its own, which would otherwise build in
# python/target and compile the library a second time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Absolute: the build below runs from python/.
venv=$(realpath -m "${1:-$root/target/python-venv}")
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

# make_venv VENV REQUIREMENTS: the venv, made once; the install skipped when the requirements
# have not changed since.
make_venv() {
  local venv=$1 requirements=$2
  if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv"
  fi
  local stamp=$venv/.requirements.installed
  if [[ ! -f $stamp ]] || ! cmp -s "$requirements" "$stamp"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
  fi
}
make_venv "$venv" "$root/python/requirements-dev.txt"
# The real dolma toolkit, whose mixer python/tests/test_dolma_mixer.py runs as a command: a venv
# of its own, its pins conflicting with datatrove's (python/requirements-dolma.txt says how).
export INDEXER_DOLMA_VENV
INDEXER_DOLMA_VENV=$(realpath -m "${INDEXER_DOLMA_VENV:-$root/target/dolma-venv}")
make_venv "$INDEXER_DOLMA_VENV" "$root/python/requirements-dolma.txt"

wheels=$CARGO_TARGET_DIR/wheels
rm -f "$wheels"/indexer-*.whl
(cd "$root/python" && "$venv/bin/maturin" build --release --locked -o "$wheels")
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
  --no-deps "$wheels"/indexer-*.whl

export INDEXER_BIN=${INDEXER_BIN:-$CARGO_TARGET_DIR/release/indexer}
# From the repository's root, so that `import indexer` finds the installed wheel and not
# the python/indexer source folder.
cd "$root"
"$venv/bin/pytest" -q python/tests
