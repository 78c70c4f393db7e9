# What the bench scripts share; sourced (from the checkout's root), not run.

# The indexer binary to measure: $INDEXER_BIN when set, else this checkout's, built in release.
indexer_binary() {
  if [[ -n ${INDEXER_BIN:-} ]]; then
    echo "$INDEXER_BIN"
  else
    cargo build --release --quiet
    echo "${CARGO_TARGET_DIR:-target}/release/indexer"
  fi
}

# The Python peers' venv, target/peers-venv: made, with PACKAGES installed, unless its python
# already imports MODULES (a comma-separated list).
#   usage: peers_venv MODULES PACKAGE...
peers_venv() {
  local modules=$1 venv=target/peers-venv
  shift
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import $modules" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "$@"
  fi
}
