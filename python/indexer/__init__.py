"""Web pages and crawl files to clean text, each site's template removed; search an index.

The Python face of the ``indexer`` Rust library (see the repository's README, "Python"):

- :func:`extract` — one page's text, with that page's evidence alone;
- :class:`Cleaner` — pages one at a time, learning each site as it goes;
- :func:`read_warc` — the pages of a WARC, ARC or WET file, as ``indexer extract`` gives them;
- :class:`Index` — search an index ``indexer build`` made;
- ``indexer.datatrove`` (optional, ``pip install "indexer[datatrove]"``, imported only when
  asked for) — datatrove pipeline steps: ``IndexerWarcReader`` (a reader over
  :func:`read_warc`) and ``IndexerExtractor`` (HTML documents to kept text, one pass).

Every page is a :class:`Page`; errors are :class:`IndexerError` (with the library's message),
``ValueError`` for arguments the library refuses and ``FileNotFoundError`` for missing paths.
"""

from ._indexer import (
    Cleaner,
    Hit,
    Index,
    IndexerError,
    Page,
    PageReader,
    __version__,
    detectors,
    extract,
    library_version,
    read_warc,
)

__all__ = [
    "Cleaner",
    "Hit",
    "Index",
    "IndexerError",
    "Page",
    "PageReader",
    "__version__",
    "detectors",
    "extract",
    "library_version",
    "read_warc",
]
