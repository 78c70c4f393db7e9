"""`indexer.datatrove` in real datatrove pipelines (nothing mocked): IndexerWarcReader gives
what `indexer extract` gives, shards and limits as datatrove's readers do, IndexerExtractor
after datatrove's WarcReader gives what `indexer extract --one-pass` gives, bad input is
counted in the stats and the task completes, and the FineWeb-shaped example runs."""

import gzip
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

import indexer
from conftest import FIXTURES, REPO, page_of, run_extract
from indexer.datatrove import IndexerExtractor, IndexerWarcReader

DATA = REPO / "data"
# The committed crawls, in the order datatrove lists them (sorted): python311, rustbook, scrapy28.
CRAWLS = sorted(DATA.glob("*.warc.gz"))


def run_pipeline(steps, logs, tasks=1, workers=1):
    """Runs `steps` with datatrove's LocalPipelineExecutor; each task's completion mark and
    the merged stats, as {step name: {stat: total}}."""
    executor = LocalPipelineExecutor(
        steps, tasks=tasks, workers=workers, logging_dir=str(logs), skip_completed=False
    )
    executor.run()
    completed = sorted(path.name for path in (logs / "completions").iterdir())
    assert completed == [f"{rank:05d}" for rank in range(tasks)], "every task completes"
    merged = json.loads((logs / "stats.json").read_text())
    return {
        step["name"]: {
            stat: value["total"] if isinstance(value, dict) else value
            for stat, value in step["stats"].items()
        }
        for step in merged
    }


def step_stats(stats, name):
    (found,) = [values for step, values in stats.items() if step.endswith(name)]
    return found


def written(folder):
    """The documents JsonlWriter wrote to `folder`, task by task."""
    documents = []
    for path in sorted(Path(folder).glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as file:
            documents += [json.loads(line) for line in file]
    return documents


def by_url(documents):
    found = {document["metadata"]["url"]: document for document in documents}
    assert len(found) == len(documents), "each page once"
    return found


def reader(**options):
    return IndexerWarcReader(str(DATA), glob_pattern="*.warc.gz", **options)


def page_html(site, topic):
    """conftest's page of `site`, as bytes (a WARC record's body)."""
    return page_of(site, topic).encode()


# A 50 MB page of one-letter paragraphs: the cleaner cuts it at 8 MiB, as `indexer extract`
# does, and needs over a second for the rest here.
BIG_PAGE = b"<html><body>" + b"<p>x</p>" * 6_250_000 + b"</body></html>"


def write_warc(path, records):
    """A .warc.gz of response records written with warcio: (url, body, content type, extra
    WARC headers). Returns each record's (start, end) offsets in the file."""
    spans = []
    with open(path, "wb") as file:
        writer = WARCWriter(file, gzip=True)
        for url, body, content_type, warc_headers in records:
            http = StatusAndHeaders(
                "200 OK",
                [("Content-Type", content_type), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=http,
                warc_headers_dict=warc_headers,
            )
            start = file.tell()
            writer.write_record(record)
            spans.append((start, file.tell()))
    return spans


def test_importing_indexer_leaves_datatrove_out_and_its_absence_says_what_to_install():
    code = (
        "import sys\n"
        "import indexer\n"
        "assert 'datatrove' not in sys.modules, 'import indexer imported datatrove'\n"
        "sys.modules['datatrove'] = None  # as if it were not installed\n"
        "try:\n"
        "    import indexer.datatrove\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True, cwd=REPO)
    assert 'pip install "indexer[datatrove]"' in done.stdout


def test_the_reader_gives_every_page_indexer_extract_gives(tmp_path, indexer_bin):
    out = tmp_path / "out"
    # Two tasks run in datatrove's worker pool: the step goes through its pickling.
    stats = run_pipeline([reader(), JsonlWriter(str(out))], tmp_path / "logs", tasks=2, workers=2)
    documents = by_url(written(out))
    expected = {}
    for crawl in CRAWLS:
        expected.update(run_extract(indexer_bin, crawl))
    assert len(expected) == 100
    assert set(documents) == set(expected)
    for url, page in expected.items():
        document = documents[url]
        assert document["text"] == page["text"], url
        assert document["id"] == page["record_id"] is not None
        metadata = document["metadata"]
        assert metadata["language"] == page["lang"]
        for key in ["url", "date", "site", "language_score", "warc_filename",
                    "warc_record_offset", "warc_record_length", "blocks_kept",
                    "blocks_dropped"]:
            assert metadata[key] == page[key], (url, key)
        assert metadata["file_path"] == page["warc_filename"]
    counts = step_stats(stats, "indexer WARC")
    assert counts["input_files"] == 3
    assert counts["documents"] == 100
    # The warcinfo record of each file, counted rather than read as a page.
    assert counts["skipped_non_page_record"] == 3
    assert counts["records"] == 103


def test_the_readers_options_reach_read_warc():
    markdown = next(iter(reader(markdown=True, limit=1)()))
    page = next(iter(indexer.read_warc(CRAWLS[0], markdown=True)))
    assert markdown.text == page.text and markdown.metadata["url"] == page.url
    english = [doc.metadata["language"] for doc in reader(lang=["en:0.9"])()]
    assert english and set(english) == {"eng"}
    with pytest.raises(ValueError, match="unknown detector"):
        IndexerWarcReader(str(DATA), detector="nope")


def test_shards_partition_the_files():
    every = [doc.metadata["url"] for doc in reader()()]
    assert len(every) == 100
    for world_size in (2, 3, 4):
        seen = []
        for rank in range(world_size):
            documents = list(reader()(rank=rank, world_size=world_size))
            files = sorted({Path(doc.metadata["warc_filename"]).name for doc in documents})
            assert files == [crawl.name for crawl in CRAWLS[rank::world_size]]
            seen += [doc.metadata["url"] for doc in documents]
        assert sorted(seen) == sorted(every)


def test_limit_and_skip_count_documents_per_task():
    def urls(rank=0, world_size=1, **options):
        return [doc.metadata["url"] for doc in reader(**options)(rank=rank, world_size=world_size)]

    every = urls()
    assert urls(limit=5) == every[:5]
    assert urls(skip=95) == every[95:]
    # Across a file's end (python311 has 30 pages).
    assert urls(skip=25, limit=20) == every[25:45]
    # Per task: task 1 of 2 reads rustbook alone.
    rustbook = urls(rank=1, world_size=2)
    assert len(rustbook) == 40
    assert urls(rank=1, world_size=2, skip=3, limit=4) == rustbook[3:7]


def test_a_remote_folder_is_read_from_a_temporary_copy():
    import fsspec

    memory = fsspec.filesystem("memory")
    memory.pipe("/crawls/rustbook.warc.gz", (DATA / "rustbook.warc.gz").read_bytes())
    before = set(os.listdir(tempfile.gettempdir()))
    try:
        documents = list(IndexerWarcReader("memory://crawls")())
    finally:
        memory.rm("/crawls", recursive=True)
    local = list(IndexerWarcReader(str(DATA), glob_pattern="rustbook.warc.gz")())
    assert [doc.text for doc in documents] == [doc.text for doc in local]
    # The file's own URL (fsspec's spelling, as datatrove's file_path), not the copy's path.
    assert {doc.metadata["warc_filename"] for doc in documents} == {
        "memory:///crawls/rustbook.warc.gz"}
    assert all(doc.metadata["file_path"] == doc.metadata["warc_filename"] for doc in documents)
    assert [doc.metadata["warc_record_offset"] for doc in documents] == [
        doc.metadata["warc_record_offset"] for doc in local]
    # The copy is gone.
    assert not {name for name in set(os.listdir(tempfile.gettempdir())) - before
                if name.startswith("indexer-datatrove-")}


def test_the_extractor_after_warc_reader_gives_what_indexer_extract_one_pass_gives(
        tmp_path, indexer_bin):
    out = tmp_path / "out"
    # Three tasks, one file each: each task's cleaner learns one file in its order, as one
    # `indexer extract --one-pass` run of that file does.
    stats = run_pipeline(
        [WarcReader(str(DATA), glob_pattern="*.warc.gz"), IndexerExtractor(), JsonlWriter(str(out))],
        tmp_path / "logs", tasks=3,
    )
    documents = by_url(written(out))
    expected = {}
    for crawl in CRAWLS:
        expected.update(run_extract(indexer_bin, crawl, "--one-pass"))
    assert len(expected) == 100
    assert set(documents) == set(expected)
    for url, page in expected.items():
        document = documents[url]
        assert document["text"] == page["text"], url
        assert document["id"] == page["record_id"]
        metadata = document["metadata"]
        assert metadata["language"] == page["lang"]
        for key in ["language_score", "blocks_kept", "blocks_dropped"]:
            assert metadata[key] == page[key], (url, key)
    counts = step_stats(stats, "indexer")
    assert counts["total"] == counts["extracted"] == counts["forwarded"] == 100
    assert not {"timeout", "broken_process", "clean_error", "no_page", "dropped"} & set(counts)

    # In the task's own process (no sandbox, no timeout): the same text.
    in_process = IndexerExtractor(timeout=None)(WarcReader(str(DATA), glob_pattern="rustbook.warc.gz")())
    for document in in_process:
        assert document.text == documents[document.metadata["url"]]["text"]


def test_the_extractors_options():
    with pytest.raises(ValueError, match="bloom"):
        IndexerExtractor(detector="bloom")  # needs two passes
    with pytest.raises(ValueError, match="unknown detector"):
        IndexerExtractor(detector="nope")
    extractor = IndexerExtractor(markdown=True)
    html = page_of("a.example", "Sea otters")
    assert extractor.extract(html, "http://a.example/") == indexer.Cleaner(markdown=True).clean(
        html, "http://a.example/").text
    # The cleaner is this process's state: a copy (datatrove pickles and deep-copies steps)
    # starts without one.
    assert pickle.loads(pickle.dumps(extractor))._cleaner is None


def bad_folder(tmp_path):
    """A folder of bad input for IndexerWarcReader."""
    folder = tmp_path / "bad"
    folder.mkdir()
    write_warc(folder / "mixed.warc.gz", [
        ("http://a.example/otters", page_html("a.example", "Sea otters"), "text/html", None),
        ("http://a.example/x.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), "image/png",
         None),
        ("http://a.example/big", BIG_PAGE, "text/html", None),
        ("http://a.example/badgers", page_html("a.example", "Badgers"), "text/html", None),
    ])
    # A gzip member cut in two: the second record's.
    spans = write_warc(folder / "truncated.warc.gz", [
        ("http://b.example/herons", page_html("b.example", "Herons"), "text/html", None),
        ("http://b.example/voles", page_html("b.example", "Voles"), "text/html", None),
    ])
    (start, end), = spans[1:]
    path = folder / "truncated.warc.gz"
    path.write_bytes(path.read_bytes()[: (start + end) // 2])
    (folder / "notes.txt").write_text("not a crawl file\n")
    # Neither a file nor a folder: read_warc cannot read it at all (IndexerError).
    os.mkfifo(folder / "pipe.warc")
    # Real broken files: cut inside its only gzip member; an ARC with a garbled header, cut.
    shutil.copy(FIXTURES / "resiliparse-clipped.warc.gz", folder)
    shutil.copy(FIXTURES / "cc2020-slice-damaged.arc.gz", folder)
    return folder


def test_the_reader_counts_bad_input_and_the_task_completes(tmp_path):
    folder = bad_folder(tmp_path)
    out = tmp_path / "out"
    stats = run_pipeline([IndexerWarcReader(str(folder)), JsonlWriter(str(out))], tmp_path / "logs")
    counts = step_stats(stats, "indexer WARC")
    assert counts["input_files"] == 6
    assert counts["file_errors"] == 1  # pipe.warc
    assert counts["skipped_not_warc"] == 1  # notes.txt
    assert counts["skipped_not_html"] == 1  # the PNG
    assert counts["skipped_truncated_record"] == 1  # the cut gzip member
    assert counts["limited_page_bytes"] == 1  # the 50 MB page, cut at 8 MiB
    # The ARC's garbled header line; its record that is no page (the filedesc).
    assert counts["skipped_broken_record_headers"] == 1
    assert counts["skipped_non_page_record"] == 1
    # Cut-short records whose part read was kept: resiliparse-clipped's, the ARC's last.
    assert counts["truncated_pages"] == 2
    urls = {document["metadata"]["url"] for document in written(out)}
    assert {"http://a.example/otters", "http://a.example/big", "http://a.example/badgers",
            "http://b.example/herons"} <= urls
    assert counts["documents"] == len(urls) == 4 + 1 + 3


def test_the_extractor_counts_bad_input_and_the_task_completes(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    write_warc(folder / "pages.warc.gz", [
        ("http://a.example/otters", page_html("a.example", "Sea otters"), "text/html", None),
        # Binary bytes that say they are HTML: WarcReader passes them on, the library refuses.
        ("http://a.example/blob", bytes(300), "text/html",
         {"WARC-Identified-Payload-Type": "text/html"}),
        ("http://a.example/big", BIG_PAGE, "text/html", None),
        ("http://a.example/badgers", page_html("a.example", "Badgers"), "text/html", None),
    ])

    def run(extractor, name):
        out = tmp_path / f"{name}-out"
        stats = run_pipeline([WarcReader(str(folder)), extractor, JsonlWriter(str(out))],
                             tmp_path / f"{name}-logs")
        return step_stats(stats, "indexer"), {doc["metadata"]["url"] for doc in written(out)}

    # In the sandbox: the big page takes the cleaner over a second, more than the timeout;
    # the sandbox is replaced (what it learned is lost) and the next page is still extracted.
    counts, urls = run(IndexerExtractor(timeout=0.5), "sandbox")
    assert counts["total"] == 4
    assert counts["no_page"] == counts["no_page_not_html"] == 1
    assert counts["timeout"] == 1
    assert counts["extracted"] == counts["forwarded"] == 2
    assert urls == {"http://a.example/otters", "http://a.example/badgers"}

    # Without a sandbox nothing times out: the big page is cut at 8 MiB and extracted.
    counts, urls = run(IndexerExtractor(timeout=None), "in-process")
    assert counts["total"] == 4
    assert counts["no_page_not_html"] == 1
    assert "timeout" not in counts
    assert counts["forwarded"] == 3
    assert "http://a.example/big" in urls


def test_datatroves_warc_reader_loses_a_file_cut_inside_a_gzip_member(tmp_path):
    """Why the extractor's bad-input test has no cut gzip member: datatrove's own WarcReader
    (warcio behind fsspec's gzip) does not read one — it yields nothing of such a file, or
    stops the task with EOFError — where IndexerWarcReader keeps what was read."""
    folder = tmp_path / "cut"
    folder.mkdir()
    shutil.copy(FIXTURES / "resiliparse-clipped.warc.gz", folder)
    with pytest.raises(EOFError):
        list(WarcReader(str(folder))())
    assert len(list(IndexerWarcReader(str(folder))())) == 1


def test_the_fineweb_example_writes_the_expected_documents(tmp_path, indexer_bin):
    script = REPO / "python" / "examples" / "fineweb_pipeline.py"

    def run(reader_name, tasks):
        out = tmp_path / reader_name
        done = subprocess.run(
            [sys.executable, str(script), str(DATA), str(out), "--tasks", str(tasks),
             "--reader", reader_name],
            check=True, capture_output=True, text=True, cwd=tmp_path,
        )
        documents = by_url(written(out))
        assert done.stdout.strip() == (
            f"wrote {len(documents)} documents to {out} (stats in {out}-logs/stats.json)")
        return documents

    def english(page):
        return page["lang"] == "eng" and page["language_score"] >= 0.65

    # datatrove's WarcReader, then IndexerExtractor: one task a file, one pass.
    documents = run("datatrove", 3)
    expected = {}
    for crawl in CRAWLS:
        expected.update({url: page for url, page in
                         run_extract(indexer_bin, crawl, "--one-pass").items() if english(page)})
    assert 50 < len(expected) < 100
    assert set(documents) == set(expected)
    assert all(documents[url]["text"] == page["text"] for url, page in expected.items())

    # IndexerWarcReader: two passes over each file.
    documents = run("indexer", 2)
    expected = {}
    for crawl in CRAWLS:
        expected.update({url: page for url, page in run_extract(indexer_bin, crawl).items()
                         if english(page)})
    assert set(documents) == set(expected)
    assert all(documents[url]["text"] == page["text"] for url, page in expected.items())
