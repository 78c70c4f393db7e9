//! `Index(path).search(query, limit)`: an index `indexer build` made, opened once (its live
//! generation), and queries in — `search::search`'s hits out as [`Hit`]s, best first, with
//! the GIL released while tantivy searches.

use std::path::PathBuf;

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use indexer::index::OpenIndex;
use indexer::search::{self, SearchError};

use crate::{IndexerError, without_panics};

/// One search result.
#[pyclass(module = "indexer", frozen, get_all)]
pub struct Hit {
    /// 1-based rank (counting the hits an offset skipped).
    rank: usize,
    /// The page's URL.
    url: String,
    /// Its title.
    title: String,
    /// Its site.
    site: String,
    /// The file its record is in (absolute), or None.
    warc_filename: Option<String>,
    /// The record's byte offset in that file, or None.
    warc_record_offset: Option<u64>,
    /// The record's bytes from that offset, or None.
    warc_record_length: Option<u64>,
    /// BM25 with the title bonuses.
    score: f32,
    /// A passage of the page's kept text around the query's words.
    snippet: String,
    /// Where the snippet matches the query: (start, end) character offsets.
    highlights: Vec<(usize, usize)>,
}

#[pymethods]
impl Hit {
    fn __repr__(&self) -> String {
        format!(
            "Hit(rank={}, url={:?}, title={:?}, score={:.3})",
            self.rank, self.url, self.title, self.score
        )
    }
}

/// An index built by `indexer build`, open for searching.
#[pyclass(module = "indexer", frozen)]
pub struct Index {
    open: OpenIndex,
    path: PathBuf,
}

#[pymethods]
impl Index {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Index> {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err((
                2,
                format!("no index at {}", path.display()),
                path.display().to_string(),
            )));
        }
        let open = py
            .allow_threads(|| OpenIndex::open(&path))
            .map_err(|error| IndexerError::new_err(error.to_string()))?;
        Ok(Index { open, path })
    }

    /// The best `limit` pages for `query` (the query language of `indexer search`: words,
    /// "phrases", site:, url:, wildcards), after skipping `offset`.
    #[pyo3(signature = (query, limit = 10, offset = 0))]
    fn search(
        &self,
        py: Python<'_>,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> PyResult<Vec<Hit>> {
        let query = query.to_string();
        let results = py.allow_threads(|| {
            without_panics(|| {
                search::search(&self.open, &query, limit, offset).map_err(|error| match error {
                    SearchError::Query(_) | SearchError::Syntax(_) => {
                        PyValueError::new_err(error.to_string())
                    }
                    other => IndexerError::new_err(other.to_string()),
                })
            })
        })?;
        Ok(results
            .hits
            .into_iter()
            .map(|hit| Hit {
                rank: hit.rank,
                url: hit.url,
                title: hit.title,
                site: hit.site,
                warc_filename: hit.provenance.warc_filename,
                warc_record_offset: hit.provenance.warc_record_offset,
                warc_record_length: hit.provenance.warc_record_length,
                score: hit.score,
                snippet: hit.snippet,
                highlights: hit.highlights,
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.path.display().to_string())
    }
}
