//! `indexer._indexer`, the extension module of the Python package: Python's arguments in, the
//! library's pages, hits and errors out as Python objects.
//!
//! | Python | library |
//! |---|---|
//! | `extract(html, url, *, detector)` | `run::decide_page` (the page's evidence alone) |
//! | `Cleaner(detector, one_pass).clean(html, url)` | `run::PageCleaner` (learns each site) |
//! | `read_warc(path, …)` ([`reader`]) | `run::extract` on a thread of its own |
//! | `Index(path).search(query, limit)` ([`search`]) | `index::OpenIndex`, `search::search` |
//!
//! Every page is an `output::ExtractedPage` (what `indexer extract` writes), made a [`Page`].
//! Errors: the library's message in `IndexerError`, or `ValueError` for an argument the
//! library refuses (a detector name, one pass of a two-pass detector, a language code),
//! `FileNotFoundError` for a path that does not exist. The GIL is released while Rust works.

mod reader;
mod search;

use std::sync::{Mutex, PoisonError};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use indexer::detect::DetectorKind;
use indexer::output::{ExtractedPage, TextForm};
use indexer::run::{BuildOptions, PageCleaner, PageError, PageInput, decide_page};

create_exception!(
    indexer,
    IndexerError,
    PyException,
    "A page, crawl file or index the library could not handle; the message is the library's."
);

/// One page's kept text and what its record said of it (the fields of `indexer extract`'s
/// JSON lines, in their order).
#[pyclass(module = "indexer", frozen, get_all)]
#[derive(Clone)]
pub struct Page {
    /// The record's URL.
    url: String,
    /// Its site (host).
    site: String,
    /// The first `<title>`, whitespace collapsed ("" for plain text).
    title: String,
    /// The source record's WARC-Record-ID, or None.
    record_id: Option<String>,
    /// When the page was fetched (RFC 3339 UTC), or None.
    date: Option<String>,
    /// The file the page's record is in, as given to the run; None for a page given alone.
    warc_filename: Option<String>,
    /// The record's byte offset in that file (of the gzip member holding it), or None.
    warc_record_offset: Option<u64>,
    /// The record's bytes from that offset (the gzip members holding it), or None.
    warc_record_length: Option<u64>,
    /// The character set the page was decoded from.
    charset: String,
    /// The kept text's language (ISO 639-3), or None.
    lang: Option<String>,
    /// The language detector's confidence in `lang`, 0–1, or None.
    language_score: Option<f64>,
    /// Blocks kept.
    blocks_kept: usize,
    /// Blocks dropped.
    blocks_dropped: usize,
    /// Whether the detector found main content (False: nothing kept, or anything kept by a fallback).
    main_content: bool,
    /// The kept blocks, one a line.
    text: String,
}

impl From<ExtractedPage> for Page {
    fn from(page: ExtractedPage) -> Page {
        Page {
            url: page.url,
            site: page.site,
            title: page.title,
            record_id: page.record_id,
            date: page.date,
            warc_filename: page.warc_filename.map(|name| name.to_string()),
            warc_record_offset: page.warc_record_offset,
            warc_record_length: page.warc_record_length,
            charset: page.charset.to_string(),
            lang: page.lang.map(str::to_string),
            language_score: page.language_score,
            blocks_kept: page.blocks_kept,
            blocks_dropped: page.blocks_dropped,
            main_content: page.main_content,
            text: page.text,
        }
    }
}

#[pymethods]
impl Page {
    /// The page as a dict, keys in the order of `indexer extract`'s JSON lines.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("url", &self.url)?;
        dict.set_item("site", &self.site)?;
        dict.set_item("title", &self.title)?;
        dict.set_item("record_id", &self.record_id)?;
        dict.set_item("date", &self.date)?;
        dict.set_item("warc_filename", &self.warc_filename)?;
        dict.set_item("warc_record_offset", self.warc_record_offset)?;
        dict.set_item("warc_record_length", self.warc_record_length)?;
        dict.set_item("charset", &self.charset)?;
        dict.set_item("lang", &self.lang)?;
        dict.set_item("language_score", self.language_score)?;
        dict.set_item("blocks_kept", self.blocks_kept)?;
        dict.set_item("blocks_dropped", self.blocks_dropped)?;
        dict.set_item("main_content", self.main_content)?;
        dict.set_item("text", &self.text)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "Page(url={:?}, title={:?}, lang={}, blocks_kept={}, blocks_dropped={}, text={} chars)",
            self.url,
            self.title,
            self.lang
                .as_deref()
                .map_or("None".to_string(), |lang| format!("{lang:?}")),
            self.blocks_kept,
            self.blocks_dropped,
            self.text.chars().count()
        )
    }
}

/// A page as Python hands it over: text (already decoded) or bytes (as fetched).
#[derive(FromPyObject)]
enum Html {
    Text(String),
    Bytes(Vec<u8>),
}

impl Html {
    fn source(&self) -> PageInput<'_> {
        match self {
            Html::Text(text) => PageInput::Html(text),
            Html::Bytes(bytes) => PageInput::Bytes(bytes),
        }
    }
}

/// The run options of `detector` (a registry name), one pass or not; a `ValueError` for an
/// unknown name or one pass of a detector that needs two.
pub(crate) fn options_for(detector: &str, one_pass: bool) -> PyResult<BuildOptions> {
    let kind: DetectorKind = detector
        .parse()
        .map_err(|error: indexer::detect::UnknownName| PyValueError::new_err(error.to_string()))?;
    let options = BuildOptions {
        detector: kind,
        one_pass,
        ..BuildOptions::default()
    };
    options
        .check()
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok(options)
}

/// Runs `work`, a panic inside it (a bug: nothing reachable from input should panic) made an
/// `IndexerError` rather than a `PanicException` crossing into Python.
pub(crate) fn without_panics<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        Err(IndexerError::new_err(format!(
            "the library failed on this input (a bug, please report it): {}",
            panic_message(panic.as_ref())
        )))
    })
}

/// The text form of a `markdown=` argument: Markdown, or lines.
pub(crate) fn text_form(markdown: bool) -> TextForm {
    match markdown {
        true => TextForm::Markdown {
            links: false,
            images: false,
        },
        false => TextForm::Lines,
    }
}

/// A panic's message, when it has one.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn page_error(error: PageError) -> PyErr {
    match error {
        PageError::NeedsOnePass(error) => PyValueError::new_err(error.to_string()),
        no_page @ PageError::NoPage(_) => IndexerError::new_err(no_page.to_string()),
    }
}

/// Extracts one page's text with that page's evidence alone, as `indexer extract` would
/// over a crawl holding only this page.
#[pyfunction]
#[pyo3(signature = (html, url, *, detector = "hybrid", markdown = false))]
fn extract(
    py: Python<'_>,
    html: Html,
    url: &str,
    detector: &str,
    markdown: bool,
) -> PyResult<Page> {
    let options = options_for(detector, false)?;
    let url = url.to_string();
    py.allow_threads(|| {
        without_panics(|| {
            let decided = decide_page(html.source(), &url, &options).map_err(page_error)?;
            Ok(ExtractedPage::of(&decided, true, text_form(markdown)))
        })
    })
    .map(Page::from)
}

/// Pages one at a time through one detector that learns each site as it goes.
#[pyclass(module = "indexer")]
struct Cleaner {
    cleaner: Mutex<PageCleaner>,
    text: TextForm,
}

#[pymethods]
impl Cleaner {
    #[new]
    #[pyo3(signature = (detector = "hybrid", one_pass = true, markdown = false))]
    fn new(detector: &str, one_pass: bool, markdown: bool) -> PyResult<Cleaner> {
        let options = options_for(detector, one_pass)?;
        let cleaner =
            PageCleaner::new(&options).map_err(|error| PyValueError::new_err(error.to_string()))?;
        Ok(Cleaner {
            cleaner: Mutex::new(cleaner),
            text: text_form(markdown),
        })
    }

    /// Decides the next page from what its site's earlier pages taught, then learns it.
    fn clean(&self, py: Python<'_>, html: Html, url: &str) -> PyResult<Page> {
        let url = url.to_string();
        py.allow_threads(|| {
            without_panics(|| {
                let mut cleaner = self.cleaner.lock().unwrap_or_else(PoisonError::into_inner);
                let decided = cleaner.clean(html.source(), &url).map_err(page_error)?;
                Ok(ExtractedPage::of(&decided, true, self.text))
            })
        })
        .map(Page::from)
    }

    /// The detector's name.
    #[getter]
    fn detector(&self) -> &'static str {
        self.cleaner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .detector()
    }

    fn __repr__(&self) -> String {
        format!("Cleaner(detector={:?})", self.detector())
    }
}

/// The names `detector=` takes, in the registry's order.
#[pyfunction]
fn detectors() -> Vec<&'static str> {
    DetectorKind::ALL.iter().map(|kind| kind.name()).collect()
}

#[pymodule]
fn _indexer(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("IndexerError", py.get_type::<IndexerError>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("library_version", indexer::VERSION)?;
    module.add_class::<Page>()?;
    module.add_class::<Cleaner>()?;
    module.add_class::<reader::PageReader>()?;
    module.add_class::<search::Index>()?;
    module.add_class::<search::Hit>()?;
    module.add_function(wrap_pyfunction!(extract, module)?)?;
    module.add_function(wrap_pyfunction!(detectors, module)?)?;
    module.add_function(wrap_pyfunction!(reader::read_warc, module)?)?;
    Ok(())
}
