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

# The built-in models' training recipe, beyond inputs and labels: each site sampled down to
# PAGES_PER_SITE pages (default 1,3,10,30,all) and, when 1 is among the sizes, read alone
# LONE_PAGE_DRAWS times (default 16; a different page each time). PAGES_PER_SITE= (empty)
# trains on whole sites only. ENSEMBLE=N (default 3, the built-in models) averages N
# ensembles of trees (`train --ensemble N`). Sets the array `recipe_flags`;
# `one_pass_flags`, what the one-pass model is trained with besides (`--one-pass`, and without
# the feature `unlinked_words_before_share`, which lowers its held-out figures while it raises
# the two-pass model's: docs/MEASUREMENTS.md); and `two_pass_flags`, what the two-pass model
# is trained with (without the two class-and-id name features, which only the one-pass model,
# the one that decides lone pages, was measured with).
recipe() {
  one_pass_flags=(--one-pass --without-feature unlinked_words_before_share)
  two_pass_flags=(--without-feature levels_to_boilerplate_name
    --without-feature levels_to_content_name)
  local pages_per_site=${PAGES_PER_SITE-1,3,10,30,all}
  recipe_flags=()
  if [[ -n $pages_per_site ]]; then
    recipe_flags=(--pages-per-site "$pages_per_site")
    [[ ,$pages_per_site, == *,1,* ]] && recipe_flags+=(--lone-page-draws "${LONE_PAGE_DRAWS:-16}")
  fi
  [[ ${ENSEMBLE:-3} != 1 ]] && recipe_flags+=(--ensemble "${ENSEMBLE:-3}")
  return 0
}
