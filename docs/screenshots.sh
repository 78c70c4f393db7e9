#!/usr/bin/env bash
# Screenshots of `indexer serve` over the sample in data/, taken by headless Chromium:
#   docs/serve-search.png  the search page for "ownership rules"
#   docs/serve-page.png    the page view of one page, dropped blocks dimmed with their rule
#   docs/serve-index.png   the index view with the per-site chart
# usage: docs/screenshots.sh   (needs chromium: apt-get install chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
browser=${CHROMIUM:-chromium}
cargo build --release --quiet
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
target/release/indexer build -q --index "$work/index" data/*.warc.gz > /dev/null
target/release/indexer serve "$work/index" --listen 127.0.0.1:0 > "$work/address" 2> /dev/null &
server=$!
for _ in $(seq 50); do [[ -s $work/address ]] && break; sleep 0.1; done
base=$(sed 's/listening on //' "$work/address")
shoot() { # shoot FILE PATH WIDTH HEIGHT
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --hide-scrollbars --user-data-dir="$work/profile" --window-size="$3,$4" \
    --screenshot="$1" "$base$2" 2> /dev/null
  echo "wrote $1"
}
page=$(python3 -c 'import urllib.parse; print(urllib.parse.quote("https://doc.rust-lang.org/1.63.0/book/ch04-01-what-is-ownership.html", safe=""))')
shoot docs/serve-search.png "/?q=ownership+rules" 900 1100
shoot docs/serve-page.png "/page?url=$page" 900 1400
shoot docs/serve-index.png "/stats" 900 1100
