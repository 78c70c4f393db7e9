"""Fixtures of the Python package's tests: the repository's crawl files and the `indexer`
binary the package is compared with.

The binary is `$INDEXER_BIN`, or the repository's `target/release/indexer` (which `cargo test
--release` builds); the tests fail, saying so, when neither exists — the comparisons with
`indexer extract` are the point of this suite.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "data" / "fixtures"


def crawl_files():
    """The crawl files read in the tests: the committed sample, and fixtures of every format
    (WARC from dolma and resiliparse, ARC, WET). Licences: data/README.md and
    tests/data/fixtures/README.md."""
    return [
        REPO / "data" / "rustbook.warc.gz",
        REPO / "data" / "scrapy28.warc.gz",
        FIXTURES / "dolma-sample-0000.warc.gz",
        FIXTURES / "resiliparse-cc2020-slice.warc.gz",
        FIXTURES / "resiliparse-clueweb-quirk.warc.gz",
        FIXTURES / "cc2020-slice.arc.gz",
        FIXTURES / "handmade.warc.wet.gz",
    ]


def page_of(site, topic):
    """A page of `site`: its own paragraph between the site's navigation and footer."""
    return (
        f"<html><head><title>{topic}</title></head><body>"
        f"<nav><a href='/'>Home of {site}</a> <a href='/about'>About the {site} team</a></nav>"
        f"<p>{topic}: a paragraph of this page alone, long enough to be read as text by any "
        "detector here.</p>"
        f"<footer>Copyright {site} all rights reserved, contact the webmaster of {site}</footer>"
        "</body></html>"
    )


@pytest.fixture(scope="session")
def indexer_bin():
    path = Path(os.environ.get("INDEXER_BIN", REPO / "target" / "release" / "indexer"))
    if not path.is_file():
        pytest.fail(
            f"the indexer binary is needed to compare with: set INDEXER_BIN or build {path}"
        )
    return path


def run_extract(indexer_bin, path, *flags):
    """`indexer extract`'s JSON lines of `path`, each parsed, by URL (the order kept)."""
    done = subprocess.run(
        [str(indexer_bin), "extract", str(path), *flags],
        check=True,
        capture_output=True,
    )
    pages = {}
    for line in done.stdout.splitlines():
        page = json.loads(line)
        assert page["url"] not in pages, f"{page['url']} twice in {path}"
        pages[page["url"]] = page
    return pages


@pytest.fixture(scope="session")
def sample_index(indexer_bin, tmp_path_factory):
    """An index of the committed rustbook sample, built by the binary."""
    index = tmp_path_factory.mktemp("index") / "rustbook"
    subprocess.run(
        [str(indexer_bin), "build", str(REPO / "data" / "rustbook.warc.gz"), "--index", str(index)],
        check=True,
        capture_output=True,
    )
    return index
