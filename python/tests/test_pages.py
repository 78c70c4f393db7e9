"""`extract` and `Cleaner`: single pages in, pages out; their errors."""

import pytest

import indexer
from conftest import page_of


TOPICS = ["Sea otters", "Badgers", "Herons", "Voles", "Beavers", "Moles", "Stoats", "Newts",
          "Toads", "Hares", "Swifts", "Martens"]


def test_extract_gives_the_page_and_its_fields():
    page = indexer.extract(page_of("a.example", "Sea otters"), "http://a.example/otters")
    assert isinstance(page, indexer.Page)
    assert page.url == "http://a.example/otters"
    assert page.site == "a.example"
    assert page.title == "Sea otters"
    assert page.charset == "UTF-8"
    assert page.lang == "eng"
    assert 0.0 < page.language_score <= 1.0
    assert page.record_id is None and page.date is None
    assert "Sea otters: a paragraph of this page alone" in page.text
    assert page.blocks_kept == len(page.text.split("\n"))
    assert page.blocks_kept + page.blocks_dropped >= 3
    assert list(page.to_dict()) == [
        "url", "site", "title", "record_id", "date", "warc_filename", "warc_record_offset",
        "warc_record_length", "charset", "lang",
        "language_score", "blocks_kept", "blocks_dropped", "main_content", "text",
    ]
    assert page.main_content is True


def test_extract_reads_bytes_in_their_own_charset():
    html = page_of("b.example", "Café crème brûlée").replace(
        "<head>", "<head><meta charset='windows-1252'>"
    )
    page = indexer.extract(html.encode("cp1252"), "http://b.example/")
    assert page.charset == "windows-1252"
    assert "Café crème brûlée: a paragraph" in page.text
    # The same page as text: the same words.
    assert indexer.extract(html, "http://b.example/").text == page.text


def test_every_detector_extracts_a_page():
    html = page_of("a.example", "Sea otters")
    for name in indexer.detectors():
        page = indexer.extract(html, "http://a.example/", detector=name)
        assert page.blocks_kept + page.blocks_dropped > 0, name


def test_markdown_keeps_the_pages_shape():
    html = (
        "<html><body><h2>Usage</h2><p>Run <code>it</code>:</p>"
        "<pre class='language-sh'>make\n  all</pre>"
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "</body></html>"
    )
    page = indexer.extract(html, "https://example.org/a", detector="none")
    assert page.text == "Usage\nRun it:\nmake\n  all\na\tb\n1\t2"
    markdown = indexer.extract(html, "https://example.org/a", detector="none", markdown=True)
    assert markdown.text == (
        "## Usage\n\nRun `it`:\n\n```sh\nmake\n  all\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |"
    )
    cleaner = indexer.Cleaner(detector="none", markdown=True)
    assert cleaner.clean(html, "https://example.org/a").text == markdown.text


def test_extract_errors():
    with pytest.raises(ValueError, match="unknown detector `nope`"):
        indexer.extract("<p>x</p>", "http://a.example/", detector="nope")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02"
    with pytest.raises(indexer.IndexerError, match="^not_html: "):
        indexer.extract(png, "http://a.example/x.png")
    with pytest.raises(TypeError):
        indexer.extract(12, "http://a.example/")


def test_the_cleaner_learns_each_site_as_it_goes():
    cleaner = indexer.Cleaner(detector="incremental")
    assert cleaner.detector == "incremental"
    pages = [cleaner.clean(page_of("a.example", topic), f"http://a.example/{n}")
             for n, topic in enumerate(TOPICS)]
    first, last = pages[0], pages[-1]
    # Nothing learned yet: the first page keeps the footer, as a page decided alone does.
    assert "Copyright a.example" in first.text
    assert "Copyright a.example" in indexer.extract(
        page_of("a.example", "Martens"), "http://a.example/11", detector="incremental").text
    # Once the site repeated it, the footer goes and the page's own text stays.
    assert "Copyright a.example" not in last.text
    assert "Martens: a paragraph" in last.text
    # Another site starts from nothing.
    other = cleaner.clean(page_of("c.example", "Owls"), "http://c.example/")
    assert "Copyright c.example" in other.text


def test_the_default_cleaner_is_hybrid_in_one_pass():
    cleaner = indexer.Cleaner()
    assert cleaner.detector == "hybrid"
    pages = [cleaner.clean(page_of("a.example", t), f"http://a.example/{n}")
             for n, t in enumerate(TOPICS)]
    assert all(f"{t}: a paragraph" in p.text for p, t in zip(pages, TOPICS))


def test_cleaner_errors():
    with pytest.raises(ValueError, match="unknown detector"):
        indexer.Cleaner(detector="bogus")
    with pytest.raises(ValueError, match="bloom"):
        indexer.Cleaner(detector="bloom", one_pass=True)
    cleaner = indexer.Cleaner(detector="bloom", one_pass=False)
    with pytest.raises(indexer.IndexerError, match="not_html"):
        cleaner.clean(b"\x00\x01\x02\x03binary\x00\x00\x00\x00\x00\x00", "http://a.example/")
    # The cleaner goes on after a refused page.
    assert "Sea otters" in cleaner.clean(page_of("a.example", "Sea otters"), "http://a.example/").text


def test_the_stubs_and_docstrings_cover_the_module():
    import ast
    from pathlib import Path

    stubs = Path(indexer.__file__).with_name("_indexer.pyi")
    assert Path(indexer.__file__).with_name("py.typed").exists()
    tree = ast.parse(stubs.read_text())
    declared = {node.name for node in tree.body
                if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    declared |= {node.target.id for node in tree.body
                 if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    assert declared - {"DetectorName"} == set(indexer.__all__)
    for name in ["extract", "read_warc", "detectors", "Cleaner", "Index", "Page", "Hit",
                 "PageReader", "IndexerError"]:
        assert getattr(indexer, name).__doc__, name
    assert indexer.Cleaner.clean.__doc__ and indexer.Index.search.__doc__
