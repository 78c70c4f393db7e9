"""Type stubs of the extension module ``indexer._indexer`` (re-exported by ``indexer``)."""

import os
from typing import Any, Iterator, Literal, Optional, Sequence, Union

__version__: str
"""The package's version (``0.1.0``)."""
library_version: str
"""The Rust library's version and commit, as ``indexer --version`` prints it."""

DetectorName = Literal[
    "hybrid", "bloom", "sandwich", "table-chunk", "incremental", "menu", "none"
]

class IndexerError(Exception):
    """A page, crawl file or index the library could not handle; the message is the library's."""

class Page:
    """One page's kept text and what its record said of it (``indexer extract``'s fields)."""

    url: str
    """The record's URL."""
    site: str
    """Its site (host)."""
    title: str
    """The first ``<title>``, whitespace collapsed ("" for plain text)."""
    record_id: Optional[str]
    """The source record's ``WARC-Record-ID`` (``<urn:uuid:…>``); None for ARC records and single pages."""
    date: Optional[str]
    """When the page was fetched, RFC 3339 UTC; None when unknown."""
    warc_filename: Optional[str]
    """The file the page's record is in, as given to ``read_warc`` (a folder's file by its path); None for a page given alone."""
    warc_record_offset: Optional[int]
    """The record's byte offset in that file (in a ``.warc.gz``, of the gzip member holding it); None for a page given alone."""
    warc_record_length: Optional[int]
    """The record's bytes from that offset (the gzip members holding it): ``curl -r`` or warcio read it back alone. None for a page given alone and for records sharing a gzip member with others."""
    charset: str
    """The character set the page was decoded from (``UTF-8``, ``windows-1252``, …)."""
    lang: Optional[str]
    """The kept text's language as an ISO 639-3 code (``eng``, ``deu``); None when not detected."""
    language_score: Optional[float]
    """The language detector's confidence in ``lang``, 0–1 (four decimals); None when not detected."""
    blocks_kept: int
    """Blocks kept."""
    blocks_dropped: int
    """Blocks dropped as the site's template."""
    main_content: bool
    """Whether the detector found main content on the page: False when it kept nothing, or
    kept anything by a fallback (``hybrid``'s ``page_own_text``: a login wall, a bare list of
    links), the text then holding what the fallback kept."""
    text: str
    """The kept text: lines (block-level elements start a line, table cells are separated by
    tabs, code keeps its lines and indentation), or CommonMark when ``markdown=True``."""
    def to_dict(self) -> dict[str, Any]:
        """The page as a dict, keys in the order of ``indexer extract``'s JSON lines."""

def extract(
    html: Union[str, bytes],
    url: str,
    *,
    detector: Union[DetectorName, str] = "hybrid",
    markdown: bool = False,
) -> Page:
    """Extracts one page's text with that page's evidence alone.

    ``markdown=True`` writes ``text`` as CommonMark with GitHub tables (as ``indexer extract
    --markdown``).

    ``html`` is text (read as HTML) or bytes as fetched (which must look like HTML; the
    character set is sniffed). Raises ``ValueError`` for an unknown detector and
    :class:`IndexerError` for bytes that hold no page (binary data, not HTML, too large).
    """

class Cleaner:
    """Pages one at a time through one detector that learns each site as it goes.

    With ``one_pass=True`` (the default, for streams) each page is decided from what its
    site's earlier pages taught, then learned — as ``indexer extract --one-pass`` decides a
    crawl. With ``one_pass=False`` a two-pass detector learns each page first, then decides
    it against everything learned so far. Raises ``ValueError`` for an unknown detector or
    one pass of a detector that needs two.
    """

    def __init__(
        self,
        detector: Union[DetectorName, str] = "hybrid",
        one_pass: bool = True,
        markdown: bool = False,
    ) -> None: ...
    @property
    def detector(self) -> str:
        """The detector's name."""
    def clean(self, html: Union[str, bytes], url: str) -> Page:
        """Decides the next page, then learns it. Raises :class:`IndexerError` for bytes that hold no page."""

class PageReader(Iterator[Page]):
    """The pages of a crawl file in input order, decided on a thread of the library's."""

    def __iter__(self) -> "PageReader": ...
    def __next__(self) -> Page: ...
    @property
    def summary(self) -> Optional[dict[str, Any]]:
        """After the last page: the run's summary and the pages written and left out; None before."""
    def close_reader(self) -> None:
        """Stops the run; no more pages come."""

def read_warc(
    path: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    *,
    detector: Union[DetectorName, str] = "hybrid",
    one_pass: bool = False,
    keep_empty: bool = False,
    lang: Optional[list[str]] = None,
    markdown: bool = False,
) -> PageReader:
    """Reads the pages of a WARC, ARC or WET file (a folder of them, or a list of paths read as one
    run) as ``indexer extract`` does.

    Two passes by default (each site learned, then its pages decided); ``one_pass=True`` decides
    each page as it arrives. Pages with no kept text are left out unless ``keep_empty``;
    ``lang`` keeps only pages in those languages (ISO 639-1 or 639-3 codes, each with a least
    ``language_score`` if wanted: ``["en:0.65"]``); ``markdown=True``
    writes each page's text as CommonMark (as ``indexer extract --markdown``). WET records are
    plain text: every line is kept, no template removal. Raises ``FileNotFoundError`` for a
    missing path, ``ValueError`` for bad arguments; a file that cannot be read raises
    :class:`IndexerError` while iterating.
    """

class Hit:
    """One search result."""

    rank: int
    url: str
    title: str
    site: str
    warc_filename: Optional[str]
    """The file the page's record is in (absolute), as the index stored it."""
    warc_record_offset: Optional[int]
    warc_record_length: Optional[int]
    """The record's offset and bytes in that file (``curl -r`` or warcio read it back alone)."""
    score: float
    snippet: str
    highlights: list[tuple[int, int]]
    """Where the snippet matches the query: (start, end) character offsets."""

class Index:
    """An index built by ``indexer build``, open for searching. Raises ``FileNotFoundError`` when
    the path does not exist and :class:`IndexerError` when it holds no index."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    def search(self, query: str, limit: int = 10, offset: int = 0) -> list[Hit]:
        """The best ``limit`` pages for ``query`` (``indexer search``'s query language).

        Raises ``ValueError`` for a query that does not parse."""

def detectors() -> list[str]:
    """The names ``detector=`` takes."""
