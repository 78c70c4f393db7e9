//! `read_warc`: a crawl file's path in, its pages out as a Python iterator — decided by
//! `run::extract` exactly as `indexer extract` decides them (the same options, the same
//! `output::ExtractedPage` and `output::OutputPlan`), on a thread of its own that hands each
//! page through a bounded channel. `__next__` waits for the next page with the GIL released.
//!
//! Dropping the iterator before its end sets the run's stop flag and closes the channel: the
//! run ends at its next record.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use indexer::output::{ExtractedPage, Format, OutputCounts, OutputPlan};
use indexer::run::{self, BuildError, BuildOptions, NoProgress};

use crate::{IndexerError, Page, options_for, panic_message, text_form};

/// Pages waiting in the channel at most: enough to keep the run's workers busy while
/// Python handles a page, little memory.
const CHANNEL_PAGES: usize = 256;

/// What the run thread sends.
enum Message {
    /// Boxed: a page's fields are larger than the other messages.
    Page(Box<ExtractedPage>),
    /// The run ended: its summary and the pages written and left out, as JSON.
    Done(String),
    /// The run failed: the library's message.
    Failed(String),
}

/// The pages of a crawl file, in input order.
#[pyclass(module = "indexer")]
pub struct PageReader {
    receiver: Mutex<Option<Receiver<Message>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
    summary: Mutex<Option<String>>,
}

/// Runs `run::extract` over `inputs`, sending each page `plan` keeps, then the summary.
fn run_extract(
    inputs: Vec<PathBuf>,
    options: BuildOptions,
    plan: OutputPlan,
    sender: SyncSender<Message>,
) {
    let mut counts = OutputCounts::default();
    let result = run::extract(
        &inputs,
        &options,
        plan.rendered_ahead(),
        &NoProgress,
        &mut |decided| {
            let Some(page) = plan.extracted(&decided, &mut counts) else {
                return Ok(());
            };
            sender.send(Message::Page(Box::new(page))).map_err(|_| {
                BuildError::Output(std::io::Error::other("the Python iterator was closed"))
            })
        },
    );
    let message = match result {
        Ok(summary) => Message::Done(
            serde_json::json!({
                "summary": summary,
                "written": counts.written,
                "left_out_empty": counts.empty,
                "left_out_other_language": counts.other_language,
                "written_without_main_content": counts.written_without_main_content,
            })
            .to_string(),
        ),
        Err(error) => Message::Failed(error.to_string()),
    };
    // The receiver is gone when Python dropped the iterator: nobody to tell.
    let _ = sender.send(message);
}

impl PageReader {
    /// Why the run thread ended without a last message (it panicked).
    fn thread_failure(&self) -> String {
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match worker.map(JoinHandle::join) {
            Some(Err(panic)) => format!(
                "the reading thread failed (a bug, please report it): {}",
                panic_message(panic.as_ref())
            ),
            _ => "the reading thread ended without finishing".to_string(),
        }
    }

    fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

#[pymethods]
impl PageReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Page>> {
        let message = py.allow_threads(|| {
            let receiver = self.receiver.lock().unwrap_or_else(PoisonError::into_inner);
            receiver.as_ref().map(|receiver| receiver.recv().ok())
        });
        match message {
            None => Ok(None),
            Some(Some(Message::Page(page))) => Ok(Some((*page).into())),
            Some(Some(Message::Done(summary))) => {
                *self.summary.lock().unwrap_or_else(PoisonError::into_inner) = Some(summary);
                self.close();
                Ok(None)
            }
            Some(Some(Message::Failed(message))) => {
                self.close();
                Err(IndexerError::new_err(message))
            }
            Some(None) => {
                let message = py.allow_threads(|| self.thread_failure());
                self.close();
                Err(IndexerError::new_err(message))
            }
        }
    }

    /// After the last page: the run's summary (as `indexer build` records it in
    /// build.json) with the pages written and left out; None before.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let summary = self
            .summary
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match summary {
            None => Ok(None),
            Some(json) => Ok(Some(py.import("json")?.call_method1("loads", (json,))?)),
        }
    }

    /// Stops the run; no more pages come.
    fn close_reader(&self) {
        self.close();
    }
}

impl Drop for PageReader {
    fn drop(&mut self) {
        self.close();
    }
}

/// One path, or several read as one run (as `indexer extract a.warc.gz b.warc.gz`).
#[derive(FromPyObject)]
pub enum Paths {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

/// Reads the pages of a WARC, ARC or WET file (or a folder of them, or a list of them read
/// as one run), decided as `indexer extract` decides them.
#[pyfunction]
#[pyo3(signature = (path, *, detector = "hybrid", one_pass = false, keep_empty = false, lang = None, markdown = false))]
pub fn read_warc(
    path: Paths,
    detector: &str,
    one_pass: bool,
    keep_empty: bool,
    lang: Option<Vec<String>>,
    markdown: bool,
) -> PyResult<PageReader> {
    let options = options_for(detector, one_pass)?;
    let paths = match path {
        Paths::One(path) => vec![path],
        Paths::Many(paths) => paths,
    };
    if paths.is_empty() {
        return Err(PyValueError::new_err("read_warc: no path given"));
    }
    if let Some(missing) = paths.iter().find(|path| !path.exists()) {
        return Err(PyFileNotFoundError::new_err((
            2,
            format!("input not found: {}", missing.display()),
            missing.display().to_string(),
        )));
    }
    let languages = lang.unwrap_or_default();
    let plan = OutputPlan::new(Format::Jsonl, keep_empty, true, &languages)
        .map_err(|error| PyValueError::new_err(error.to_string()))?
        .with_text(text_form(markdown));
    let stop = Arc::new(AtomicBool::new(false));
    let options = BuildOptions {
        stop: Some(Arc::clone(&stop)),
        ..options
    };
    let (sender, receiver) = sync_channel(CHANNEL_PAGES);
    let worker = std::thread::Builder::new()
        .name("indexer-read-warc".into())
        .spawn(move || run_extract(paths, options, plan, sender))
        .map_err(|error| IndexerError::new_err(format!("starting the reading thread: {error}")))?;
    Ok(PageReader {
        receiver: Mutex::new(Some(receiver)),
        worker: Mutex::new(Some(worker)),
        stop,
        summary: Mutex::new(None),
    })
}
