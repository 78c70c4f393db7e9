"""datatrove pipeline steps backed by this library (``pip install "indexer[datatrove]"``).

`datatrove <https://github.com/huggingface/datatrove>`_ runs pipelines of steps (readers,
extractors, filters, writers) over shards of files, one task per shard. This module gives it
two steps:

- :class:`IndexerWarcReader` — a reader (a subclass of datatrove's ``BaseDiskReader``): each
  WARC, ARC or WET file of its shard is read by :func:`indexer.read_warc`, as ``indexer
  extract`` reads it (by default in two passes: each site learned, then its pages decided),
  and every page with kept text becomes a datatrove ``Document``. Records that hold no page
  (and other bad input) are counted in the step's stats, never raised.
- :class:`IndexerExtractor` — an extractor, for pipelines that start with datatrove's own
  ``WarcReader`` (documents whose ``text`` is the page's HTML, the URL in
  ``metadata["url"]``): each page's text is replaced by its kept text, one pass, each site
  learned as the task's documents go by (:class:`indexer.Cleaner` with ``one_pass=True``).

Both set the metadata ``language`` (ISO 639-3, ``"eng"``) and ``language_score`` (0–1) of
the library's language detector, so a pipeline can filter languages with datatrove's
``LambdaFilter`` (``LanguageFilter`` needs a fastText model to download, and uses other
codes). python/examples/fineweb_pipeline.py is a whole pipeline.

datatrove is optional: ``import indexer`` does not import it, and importing this module
without it raises an ``ImportError`` saying what to install.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import tempfile
from typing import Any, Callable, Iterator, Optional

try:
    from datatrove.data import DocumentsPipeline
    from datatrove.io import DataFileLike, DataFolderLike
    from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox
    from datatrove.pipeline.readers.base import BaseDiskReader
    from datatrove.utils.logging import logger
    from datatrove.utils.typeshelper import StatHints
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "indexer.datatrove needs the datatrove package, which is optional: "
        'install it with `pip install "indexer[datatrove]"` '
        f"(importing it failed: {error})"
    ) from error

from . import Cleaner, IndexerError, read_warc

__all__ = ["IndexerExtractor", "IndexerWarcReader"]

#: What an :class:`IndexerError`'s message starts with: the reason, then ``": "``.
_REASON = re.compile(r"^([a-z][a-z0-9_]*):")


def _reason(error: BaseException) -> str:
    """The reason code an :class:`IndexerError` names (``not_html``, ``too_large``, …)."""
    found = _REASON.match(str(error))
    return found.group(1) if found else "other"


class IndexerWarcReader(BaseDiskReader):
    """Reads WARC, ARC and WET files (gzip-compressed or not) through :func:`indexer.read_warc`:
    one datatrove ``Document`` per page with kept text, each site's template removed.

    Each file of the task's shard is one ``read_warc`` run: by default two passes over the
    file (every site learned first, then its pages decided — what ``indexer extract`` does);
    ``one_pass=True`` decides each page as it arrives. A site is learned within one file: pages
    of a site spread over several files are learned file by file.

    Sharding (``rank``/``world_size``: files ``rank, rank + world_size, …`` of the sorted
    listing, or of ``paths_file``), ``limit``, ``skip``, ``file_progress``, ``doc_progress``,
    ``adapter``, ``default_metadata`` and the ``input_files``/``documents``/``doc_len`` stats
    are datatrove's own (``BaseDiskReader``'s): they behave as in its other readers.

    Each document has ``text`` (the kept text, or CommonMark with ``markdown=True``), ``id``
    (the record's ``WARC-Record-ID``, or the URL where there is none: ARC files) and the
    metadata ``url``, ``date`` (RFC 3339, or None), ``site``, ``language`` (ISO 639-3, or None),
    ``language_score``, ``warc_filename``, ``warc_record_offset``, ``warc_record_length`` (the
    record's bytes from that offset; None where records share one gzip member),
    ``blocks_kept``, ``blocks_dropped`` — plus datatrove's ``file_path``. The raw dict an
    ``adapter`` receives has these keys beside ``text`` and ``id``.

    Bad input never stops the task. After each file the run's summary is added to the stats:
    ``skipped_<reason>`` for the records left out (``skipped_not_html``,
    ``skipped_truncated_record``, ``skipped_not_warc`` for a file that is no crawl file, …),
    ``limited_<what>`` for pages cut at a per-page limit (``limited_page_bytes``: pages over
    8 MiB), ``truncated_pages`` for cut-short records whose part read was kept,
    ``left_out_empty`` (pages with no kept text) and ``left_out_other_language`` (with
    ``lang``), and ``records`` (all in units of ``input_file``). A file that ``limit`` stops
    early has no summary, so nothing of it is added. A file ``read_warc`` cannot read at all (it
    vanished, it is not a regular file, an I/O error) is logged and counted as
    ``file_errors``, and the task goes on with its next file.

    ``read_warc`` reads a local path. For a non-local ``data_folder`` (S3, the Hub, any
    fsspec filesystem) each file is first copied to a temporary file, read, then deleted;
    ``warc_filename`` is then the file's own URL (``s3://…``), as datatrove's ``file_path``,
    so the offsets point into the original.

    Args:
        data_folder: a path, a ``(path, storage options)`` or ``(path, filesystem)`` pair, or a
            ``DataFolder``.
        paths_file: a file listing the paths (relative to ``data_folder``) to read, one a line.
        limit: at most this many documents per task (-1: no limit).
        skip: leave out the first ``skip`` documents of each task.
        file_progress, doc_progress: progress bars.
        adapter: ``adapter(self, data, path, id_in_file) -> dict`` turning the raw dict into
            the Document's fields (datatrove's adapter).
        text_key, id_key: the raw dict's keys of the text and id (``"text"``, ``"id"``).
        default_metadata: added to every document's metadata.
        recursive, glob_pattern: how ``data_folder`` is listed (``glob_pattern="*.warc.gz"``).
        shuffle_files: shuffle the task's files.
        detector: :func:`indexer.detectors` names one (``"hybrid"``).
        markdown: the text as CommonMark (headings, lists, code blocks, tables).
        one_pass: decide each page as it arrives instead of learning the file first.
        lang: keep only pages in these languages (ISO 639-1 or 639-3 codes, each with at least
            a ``language_score`` if wanted: ``["en:0.65"]``); the others count as
            ``left_out_other_language``.
        add_file_path: datatrove's ``file_path`` metadata (True).
    """

    name = "🧹 indexer WARC"

    def __init__(
        self,
        data_folder: DataFolderLike,
        paths_file: Optional[DataFileLike] = None,
        limit: int = -1,
        skip: int = 0,
        file_progress: bool = False,
        doc_progress: bool = False,
        adapter: Optional[Callable] = None,
        text_key: str = "text",
        id_key: str = "id",
        default_metadata: Optional[dict] = None,
        recursive: bool = True,
        glob_pattern: Optional[str] = None,
        shuffle_files: bool = False,
        detector: str = "hybrid",
        markdown: bool = False,
        one_pass: bool = False,
        lang: Optional[list[str]] = None,
        add_file_path: bool = True,
    ):
        super().__init__(
            data_folder,
            paths_file=paths_file,
            limit=limit,
            skip=skip,
            file_progress=file_progress,
            doc_progress=doc_progress,
            adapter=adapter,
            text_key=text_key,
            id_key=id_key,
            default_metadata=default_metadata,
            recursive=recursive,
            glob_pattern=glob_pattern,
            shuffle_files=shuffle_files,
            add_file_path=add_file_path,
        )
        # Refuse bad options here, in the process that builds the pipeline, not in each task.
        Cleaner(detector, one_pass=one_pass, markdown=markdown)
        self.detector = detector
        self.markdown = markdown
        self.one_pass = one_pass
        self.lang = list(lang) if lang else None

    @contextlib.contextmanager
    def _local_path(self, filepath: str) -> Iterator[tuple[str, Optional[str]]]:
        """The file as a local path for ``read_warc``, and the name to record as its
        ``warc_filename`` when that is not the local path (a remote file's URL)."""
        if self.data_folder.is_local():
            yield self.data_folder.resolve_paths(filepath), None
            return
        with tempfile.TemporaryDirectory(prefix="indexer-datatrove-") as folder:
            # The file's own name: read_warc tells formats by their content, but a name
            # keeps its messages readable.
            local = os.path.join(folder, os.path.basename(filepath) or "input")
            with self.data_folder.open(filepath, "rb") as source, open(local, "wb") as copy:
                shutil.copyfileobj(source, copy, 1 << 20)
            yield local, self.data_folder.resolve_paths(filepath)

    def _file_failed(self, filepath: str, error: BaseException) -> None:
        self.stat_update("file_errors", unit="input_file")
        logger.warning(f"indexer could not read {filepath}, going on with the next file: {error}")

    def _count_summary(self, summary: dict[str, Any]) -> None:
        """Adds one ``read_warc`` run's records left out to the step's stats."""
        run = summary.get("summary", {})
        for reason, count in sorted(run.get("skipped", {}).items()):
            if count:
                self.stat_update(f"skipped_{reason}", value=count, unit="input_file")
        for what, count in sorted(run.get("limited", {}).items()):
            if count:
                self.stat_update(f"limited_{what}", value=count, unit="input_file")
        for label, count in [
            ("truncated_pages", run.get("truncated_pages", 0)),
            ("left_out_empty", summary.get("left_out_empty", 0)),
            ("left_out_other_language", summary.get("left_out_other_language", 0)),
            ("records", run.get("records", 0)),
        ]:
            if count:
                self.stat_update(label, value=count, unit="input_file")

    @staticmethod
    def _raw(page, warc_filename: Optional[str]) -> dict[str, Any]:
        """A page as the raw dict the adapter gets."""
        return {
            "text": page.text,
            "id": page.record_id or page.url,
            "url": page.url,
            "date": page.date,
            "site": page.site,
            "language": page.lang,
            "language_score": page.language_score,
            "warc_filename": warc_filename or page.warc_filename,
            "warc_record_offset": page.warc_record_offset,
            "warc_record_length": page.warc_record_length,
            "blocks_kept": page.blocks_kept,
            "blocks_dropped": page.blocks_dropped,
        }

    def _finish(self, pages) -> None:
        """Stops a run (also one a ``limit`` left early) and counts what it left out."""
        summary = pages.summary
        pages.close_reader()
        if summary:
            self._count_summary(summary)

    def read_file(self, filepath: str) -> DocumentsPipeline:
        """The documents of one file (``filepath`` relative to ``data_folder``)."""
        with contextlib.ExitStack() as stack:
            try:
                path, shown = stack.enter_context(self._local_path(filepath))
                pages = read_warc(
                    path,
                    detector=self.detector,
                    one_pass=self.one_pass,
                    lang=self.lang,
                    markdown=self.markdown,
                )
            except (IndexerError, OSError) as error:  # vanished since listed, or not copied
                self._file_failed(filepath, error)
                return
            stack.callback(self._finish, pages)
            for number in itertools.count():
                with self.track_time():
                    try:
                        page = next(pages)
                    except StopIteration:
                        break
                    except IndexerError as error:
                        self._file_failed(filepath, error)
                        break
                    document = self.get_document_from_dict(
                        self._raw(page, shown), filepath, number
                    )
                if document:
                    yield document


class IndexerExtractor(BaseExtractor):
    """Replaces each document's HTML with its kept text, each site's template removed as the
    task learns the site: one pass, in the task's order (:class:`indexer.Cleaner` with
    ``one_pass=True``, as ``indexer extract --one-pass``).

    For documents as datatrove's ``WarcReader`` gives them: ``text`` is the page's HTML,
    ``metadata["url"]`` its URL (documents without one are cleaned under the URL ``""``: all
    of them count as one site). Sets ``text`` and the metadata ``language`` (ISO 639-3, or
    None), ``language_score``, ``blocks_kept`` and ``blocks_dropped``.

    Why a ``BaseExtractor`` with its own ``run``: datatrove's extractors hand ``extract`` the
    text alone, and a template detector needs the URL (to know the site). The sandbox
    datatrove runs extraction in (``ExtractorSandbox``: a child process, each document sent
    to it and its result awaited at most ``timeout`` seconds, the process replaced after a
    timeout or a crash) passes tuples through, so ``run`` is BaseExtractor's loop sending
    ``(html, url)``: the same sandbox, the same stats names, the same logging.

    Where the learning lives: the :class:`indexer.Cleaner` is made in the sandbox process (at
    its warm-up, which datatrove also waits ``timeout`` for) and learns there: one per task,
    learning across the task's files in their order. When a document times out or the process
    dies, datatrove starts a new process and **what was learned is lost**: the sites start
    over from nothing, as a new task would. The pages after it are still extracted, from
    less evidence (their text can keep more template than ``indexer extract --one-pass``
    keeps). ``timeout=None`` runs the cleaner in the task's own process instead: no timeout,
    nothing lost, and no protection from a page that hangs.

    Stats, as datatrove's extractors count them: ``total``; ``extracted``; ``forwarded``
    (documents with kept text); ``dropped`` (extracted to no text: also counted as
    ``empty``); ``timeout``; ``broken_process``; ``clean_error`` (an unexpected error). And
    ``no_page`` with ``no_page_<reason>`` for documents the library refuses as holding no page
    (``no_page_not_html`` for binary data, ``no_page_too_large`` over 64 MiB): dropped, not
    raised, and the sandbox keeps what it learned. Pages over 8 MiB are cut there and the rest
    extracted, as ``indexer extract`` does.

    Args:
        detector: one of :func:`indexer.detectors` that decides in one pass (``"hybrid"``).
        markdown: the text as CommonMark.
        timeout: seconds per document (datatrove's ``BaseExtractor`` default, 1); None to run
            in the task's process, without a sandbox.
    """

    name = "🧹 indexer"

    def __init__(self, detector: str = "hybrid", markdown: bool = False, timeout: Optional[float] = 1):
        super().__init__(timeout=timeout)
        # Refuse an unknown detector, or one that needs two passes, when the pipeline is built.
        Cleaner(detector, one_pass=True, markdown=markdown)
        self.detector = detector
        self.markdown = markdown
        self._cleaner: Optional[Cleaner] = None

    def __getstate__(self) -> dict[str, Any]:
        # A Cleaner is the state of one process: copies of the step (the executor's deepcopy,
        # pickling to a worker) start without one and make their own.
        state = self.__dict__.copy()
        state["_cleaner"] = None
        return state

    def _here(self) -> Cleaner:
        """This process's cleaner, made on first use."""
        if self._cleaner is None:
            self._cleaner = Cleaner(self.detector, one_pass=True, markdown=self.markdown)
        return self._cleaner

    def extract(self, text: str, url: str = "") -> str:
        """The kept text of one page, decided by this process's cleaner (which then learns
        it); no sandbox. Raises :class:`indexer.IndexerError` for bytes that hold no page."""
        return self._here().clean(text, url).text

    def _clean(self, html: Optional[str], url: Optional[str]):
        """Runs where the cleaner lives (the sandbox process). The warm-up call (``html`` None)
        makes the cleaner. Returns the page's fields as a tuple, or an exception (the sandbox
        raises a returned exception in the task's process; one raised here would end the
        sandbox process and what it learned)."""
        if html is None:
            self._here()
            return None
        try:
            page = self._here().clean(html, url or "")
        except IndexerError as error:
            return error
        except Exception as error:  # noqa: BLE001 - handed back to be counted as clean_error
            return RuntimeError(f"{type(error).__name__}: {error}")
        return (page.text, page.lang, page.language_score, page.blocks_kept, page.blocks_dropped)

    @contextlib.contextmanager
    def _runner(self) -> Iterator[Callable[[str, str], tuple]]:
        """``clean(html, url)`` in the sandbox, or in this process when there is no timeout."""
        if self.timeout is None:

            def here(html: str, url: str) -> tuple:
                result = self._clean(html, url)
                if isinstance(result, Exception):
                    raise result
                return result

            yield here
            return
        with ExtractorSandbox(timeout=self.timeout, warmup_text=(None, None)) as sandbox:
            yield lambda html, url: sandbox.process_document((html, url), self._clean)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        """Each document's HTML replaced by its kept text; those with none are dropped."""
        with self._runner() as clean:
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    try:
                        text, lang, score, kept, dropped = clean(doc.text, doc.metadata.get("url"))
                    except TimeoutError:
                        self.stat_update("timeout")
                        logger.warning(
                            f"⏰ indexer timed out on {doc.metadata.get('url')} "
                            f"(over {self.timeout} s): document dropped; a new sandbox starts "
                            "from nothing learned"
                        )
                        continue
                    except EOFError:
                        self.stat_update("broken_process")
                        logger.warning(
                            "the sandbox process died: document dropped; a new one starts "
                            "from nothing learned"
                        )
                        continue
                    except IndexerError as error:
                        self.stat_update("no_page", f"no_page_{_reason(error)}")
                        continue
                    except Exception as error:  # noqa: BLE001 - counted, as datatrove does
                        self.stat_update("clean_error")
                        if not self._warned_error:
                            self._warned_error = True
                            logger.warning(
                                f'❌ Error "{error}" while cleaning a document: dropped. '
                                "Reported once."
                            )
                        continue
                self.stat_update("extracted")
                doc.text = text
                doc.metadata["language"] = lang
                doc.metadata["language_score"] = score
                doc.metadata["blocks_kept"] = kept
                doc.metadata["blocks_dropped"] = dropped
                if text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped, "empty")
