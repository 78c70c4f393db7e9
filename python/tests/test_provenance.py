"""Provenance: every page read_warc gives points at its record. warcio (an independent WARC
reader) reads the `warc_record_length` bytes at `warc_record_offset` of `warc_filename` alone
and finds that one record, with the page's URL and record id.

The crawl files: the committed samples in data/ and every fixture in tests/data/fixtures
(WARC, ARC, WET; gzip-compressed or not; broken ones). shared/fixtures/ (beside the repository)
holds byte-identical copies of eleven of them; a file there that is not identical to one here
is checked too.
"""

import gzip
import io

import pytest
from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

import indexer
from conftest import FIXTURES, REPO

SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"

# A response record split over gzip members in a way warcio itself cannot read, even in the
# whole file: its second member starts at the HTTP body, where warcio looks for a new record
# (and the record's closing CRLFs open the next record's member).
WRONG_CHUNKS = "warcio-example-wrong-chunks.warc.gz"
# The whole file is one gzip member: its record shares the member (with the file's others), so
# read_warc gives no length for it.
ONE_MEMBER = "warcio-example-bad-non-chunked.warc.gz"


def crawl_files():
    files = sorted(REPO.glob("data/*.warc.gz"))
    files += sorted(path for path in FIXTURES.iterdir()
                    if path.name.endswith((".warc", ".warc.gz", ".arc.gz", ".wet.gz")))
    ours = {path.read_bytes() for path in files}
    if SHARED_FIXTURES.is_dir():
        files += sorted(path for path in SHARED_FIXTURES.glob("*.warc*")
                        if path.read_bytes() not in ours)
    return files


def records_in(data):
    """(URL, record id) of each record warcio reads in `data` (ARC records as WARC)."""
    return [
        (record.rec_headers.get_header("WARC-Target-URI"),
         record.rec_headers.get_header("WARC-Record-ID"))
        for record in ArchiveIterator(io.BytesIO(data), arc2warc=True)
    ]


def test_warcio_reads_back_each_pages_record_alone():
    files = crawl_files()
    assert len(files) >= 3 + 14
    checked = 0
    without_length = []
    for path in files:
        data = path.read_bytes()
        for page in indexer.read_warc(path):
            assert page.warc_filename == str(path)
            start = page.warc_record_offset
            if page.warc_record_length is None:
                without_length.append((path.name, page.url))
                # The offset is still that of the gzip member holding the record (warcio refuses
                # a member of several records: decompressed, it reads them).
                assert (page.url, page.record_id) in records_in(gzip.decompress(data[start:]))
                continue
            block = data[start:start + page.warc_record_length]
            if path.name == WRONG_CHUNKS:
                # warcio cannot read this record (nor the whole file); its bytes, gzip members
                # decompressed, are the record.
                with pytest.raises(ArchiveLoadFailed):
                    records_in(block)
                with pytest.raises(ArchiveLoadFailed):
                    records_in(data)
                record = gzip.decompress(block)
                assert record.startswith(b"WARC/1.0\r\n")
                assert f"\r\nWARC-Target-URI: {page.url}\r\n".encode() in record
                assert f"\r\nWARC-Record-ID: {page.record_id}\r\n".encode() in record
            else:
                found = records_in(block)
                assert len(found) == 1, (path.name, page.url, found)
                url, record_id = found[0]
                assert url == page.url, path.name
                # ARC records have no id: warcio makes one up, read_warc gives None.
                if not path.name.endswith(".arc.gz"):
                    assert record_id == page.record_id, (path.name, page.url)
            checked += 1
    # The pages of data/ (100) and of the fixtures (97 today).
    assert checked >= 190
    assert without_length == [(ONE_MEMBER, "http://example.com/")]
