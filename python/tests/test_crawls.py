"""`read_warc` against `indexer extract` on real crawl files, and `Index.search` on an index
the binary built."""

import gc
import json
import subprocess

import pytest

import indexer
from conftest import REPO, crawl_files, run_extract


def pages_by_url(reader):
    pages = {}
    for page in reader:
        assert page.url not in pages
        pages[page.url] = page.to_dict()
    return pages


@pytest.mark.parametrize("path", crawl_files(), ids=lambda path: path.name)
def test_read_warc_gives_what_extract_writes(indexer_bin, path):
    expected = run_extract(indexer_bin, path)
    got = pages_by_url(indexer.read_warc(path))
    assert expected, f"no page in {path}"
    assert list(got) == list(expected)
    for url, page in expected.items():
        # Every field, the text byte for byte.
        assert got[url]["text"].encode() == page["text"].encode(), url
        assert got[url] == page, url


@pytest.mark.parametrize(
    "flags", [("--one-pass",), ("--detector", "bloom"), ("--keep-empty",), ("--markdown",)]
)
def test_read_warc_options_are_extracts(indexer_bin, flags):
    path = REPO / "data" / "scrapy28.warc.gz"
    expected = run_extract(indexer_bin, path, *flags)
    kwargs = {
        ("--one-pass",): {"one_pass": True},
        ("--detector", "bloom"): {"detector": "bloom"},
        ("--keep-empty",): {"keep_empty": True},
        ("--markdown",): {"markdown": True},
    }[flags]
    assert pages_by_url(indexer.read_warc(path, **kwargs)) == expected


def test_read_warc_flags_the_page_without_main_content():
    pages = pages_by_url(indexer.read_warc(REPO / "data" / "scrapy28.warc.gz"))
    assert pages["https://docs.scrapy.org/en/2.8/404.html"]["main_content"] is False
    with_content = [url for url, page in pages.items() if page["main_content"]]
    assert len(with_content) >= 0.9 * len(pages)


def test_read_warc_keeps_only_the_languages_asked_for(indexer_bin):
    path = REPO / "tests" / "data" / "fixtures" / "resiliparse-cc2020-slice.warc.gz"
    expected = run_extract(indexer_bin, path, "--lang", "de")
    reader = indexer.read_warc(path, lang=["de"])
    assert pages_by_url(reader) == expected
    assert reader.summary["written"] == len(expected)
    assert reader.summary["left_out_other_language"] > 0


def test_the_summary_counts_the_run():
    reader = indexer.read_warc(REPO / "data" / "rustbook.warc.gz")
    assert reader.summary is None
    pages = list(reader)
    summary = reader.summary
    assert summary["written"] == len(pages)
    assert summary["summary"]["detector"] == "hybrid"
    assert summary["summary"]["pages"] == len(pages) + summary["left_out_empty"]


def test_a_reader_dropped_early_stops_its_run():
    reader = indexer.read_warc(REPO / "data" / "python311.warc.gz")
    first = next(reader)
    assert first.text
    reader.close_reader()
    assert list(reader) == []
    del reader
    gc.collect()
    # Nothing left stuck: a new read gives every page.
    assert len(list(indexer.read_warc(REPO / "data" / "rustbook.warc.gz"))) > 10


def test_read_warc_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="input not found"):
        indexer.read_warc(tmp_path / "missing.warc.gz")
    path = REPO / "data" / "rustbook.warc.gz"
    with pytest.raises(ValueError, match="unknown detector `nope`"):
        indexer.read_warc(path, detector="nope")
    with pytest.raises(ValueError, match="bloom"):
        indexer.read_warc(path, detector="bloom", one_pass=True)
    with pytest.raises(ValueError, match="zz"):
        indexer.read_warc(path, lang=["zz"])
    # A file that is no crawl: no page, and the summary says why.
    junk = tmp_path / "junk.warc"
    junk.write_bytes(b"\x00\x01 not a crawl file at all \xff" * 20)
    reader = indexer.read_warc(junk)
    assert list(reader) == []
    assert reader.summary["summary"]["pages"] == 0
    assert reader.summary["summary"]["skipped"] == {"not_warc": 1}


def test_index_search_gives_the_binarys_hits(indexer_bin, sample_index):
    hits = indexer.Index(sample_index).search("ownership rules", limit=5)
    assert 0 < len(hits) <= 5
    done = subprocess.run(
        [str(indexer_bin), "search", str(sample_index), "ownership rules", "--limit", "5", "--json"],
        check=True, capture_output=True,
    )
    expected = json.loads(done.stdout)["hits"]
    assert [(h.url, h.title, h.site, h.snippet) for h in hits] == [
        (e["url"], e["title"], e["site"], e["snippet"]) for e in expected
    ]
    assert [h.score for h in hits] == pytest.approx([e["score"] for e in expected])
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(h.site == "doc.rust-lang.org" for h in hits)
    assert indexer.Index(sample_index).search("ownership", limit=2, offset=1)[0].rank == 2


def test_index_errors(tmp_path, sample_index):
    with pytest.raises(FileNotFoundError, match="no index"):
        indexer.Index(tmp_path / "missing")
    with pytest.raises(indexer.IndexerError):
        indexer.Index(tmp_path)
    with pytest.raises(ValueError, match="invalid query"):
        indexer.Index(sample_index).search("own*ship")


def test_read_warc_reads_several_files_as_one_run(indexer_bin, tmp_path):
    paths = [REPO / "data" / "rustbook.warc.gz", REPO / "data" / "scrapy28.warc.gz"]
    done = subprocess.run([str(indexer_bin), "extract", *map(str, paths)],
                          check=True, capture_output=True)
    expected = [json.loads(line) for line in done.stdout.splitlines()]
    assert [page.to_dict() for page in indexer.read_warc(paths)] == expected
    with pytest.raises(FileNotFoundError):
        indexer.read_warc([paths[0], tmp_path / "missing.arc"])
    with pytest.raises(ValueError, match="no path"):
        indexer.read_warc([])


def responses(path):
    """(URL, HTML bytes) of each response record of a WARC file of the committed sample
    (gzip members of uncompressed, unchunked HTTP/1.1 responses, as data/make_sample.py
    writes them)."""
    import gzip

    data = gzip.open(path).read()
    position = 0
    while position < len(data):
        end = data.index(b"\r\n\r\n", position)
        lines = data[position:end].decode().split("\r\n")[1:]
        fields = dict(line.split(": ", 1) for line in lines)
        length = int(fields["Content-Length"])
        block = data[end + 4:end + 4 + length]
        position = end + 4 + length + 4
        if fields.get("WARC-Type") == "response":
            yield fields["WARC-Target-URI"], block.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize("name", ["rustbook", "scrapy28", "python311"])
@pytest.mark.parametrize("detector", ["hybrid", "incremental"])
def test_the_cleaner_decides_a_stream_as_a_one_pass_read_does(name, detector):
    path = REPO / "data" / f"{name}.warc.gz"
    cleaner = indexer.Cleaner(detector=detector)
    cleaned = {url: cleaner.clean(html, url).text for url, html in responses(path)}
    read = {
        page.url: page.text
        for page in indexer.read_warc(path, detector=detector, one_pass=True, keep_empty=True)
    }
    assert len(cleaned) >= 30
    assert cleaned == read
    if detector == "incremental":
        # The cleaner carries what it learned of the site from page to page: `incremental`'s
        # only evidence is what the stream repeated, so alone (a site's first page) pages are
        # decided otherwise. (`hybrid`'s page evidence can decide a page of these sites the
        # same alone as in the stream.)
        alone = {
            url: indexer.extract(html, url, detector=detector).text
            for url, html in responses(path)
        }
        assert sum(alone[url] != cleaned[url] for url in cleaned) > 0
