//! Eval: inputs and labelled pages in; per detector, extraction quality, index size and
//! known-item retrieval out — beside the `none` baseline and an *oracle* index built from the
//! labelled main content alone.
//!
//! Labels are JSON lines (optionally gzip) with `url`, `site`, `title`, `content_text` and
//! `template_text`; lines with `"usable": false` are skipped.

mod chart;
mod quality;
mod retrieval;

pub use chart::write_chart;
pub use quality::{Prf, Quality, bag, score};
pub use retrieval::{RankFigures, Retrieval, reciprocal_rank, sample_phrase, title_without_site};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::{DocAddress, TantivyDocument};

use crate::build::{BuildError, BuildOptions, BuildSummary, Progress, build_index};
use crate::detect::DetectorKind;
use crate::index::{
    IndexBuild, IndexError, IndexStats, IndexedPage, OpenIndex, stats, stored_text,
};
use crate::search::SearchError;

/// One labelled page.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// The page URL, as in the crawl.
    pub url: String,
    /// The site it is scored under.
    pub site: String,
    /// The page title.
    pub title: String,
    /// The page's main content.
    pub content_text: String,
    /// The rest of its visible text.
    pub template_text: String,
}

/// Why an evaluation failed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A labels file could not be read.
    #[error("labels {path}: {message}")]
    Labels {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A build failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// An index could not be read.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A query failed.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A temporary directory or output file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Expands glob patterns (`DIR/*.labels.jsonl.gz`) into the files they match, sorted; a
/// pattern without wildcards is taken as a path.
pub fn expand_patterns(patterns: &[String]) -> Result<Vec<PathBuf>, EvalError> {
    let mut paths = Vec::new();
    for pattern in patterns {
        let matches = glob::glob(pattern).map_err(|error| EvalError::Labels {
            path: pattern.into(),
            message: error.to_string(),
        })?;
        let mut found: Vec<PathBuf> = matches.filter_map(Result::ok).collect();
        if found.is_empty() {
            return Err(EvalError::Labels {
                path: pattern.into(),
                message: "no file matches".into(),
            });
        }
        found.sort();
        paths.extend(found);
    }
    Ok(paths)
}

/// Reads labels from JSON-lines files (gzip when the name ends in `.gz`).
pub fn load_labels(paths: &[PathBuf]) -> Result<Vec<Label>, EvalError> {
    let mut labels = Vec::new();
    for path in paths {
        let fail = |message: String| EvalError::Labels {
            path: path.clone(),
            message,
        };
        let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        let reader: Box<dyn Read> = if path.extension().is_some_and(|ext| ext == "gz") {
            Box::new(flate2::read::MultiGzDecoder::new(file))
        } else {
            Box::new(file)
        };
        for (number, line) in BufReader::new(reader).lines().enumerate() {
            let line = line.map_err(|e| fail(e.to_string()))?;
            if line.trim().is_empty() {
                continue;
            }
            let value: serde_json::Value = serde_json::from_str(&line)
                .map_err(|e| fail(format!("line {}: {e}", number + 1)))?;
            if value.get("usable") == Some(&serde_json::Value::Bool(false)) {
                continue;
            }
            let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let (Some(url), Some(content_text)) = (text("url"), text("content_text")) else {
                continue;
            };
            let site = text("site").unwrap_or_else(|| crate::read::site_of(&url));
            labels.push(Label {
                site,
                title: text("title").unwrap_or_default(),
                template_text: text("template_text").unwrap_or_default(),
                url,
                content_text,
            });
        }
    }
    Ok(labels)
}

/// The figures of one index: a detector's, the baseline's or the oracle's.
#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    /// `bloom`, `none`, … or `oracle`.
    pub name: String,
    /// Extraction quality of the index's stored body text.
    pub quality: Quality,
    /// Index size.
    pub index: IndexStats,
    /// 1 − postings / postings of `none`.
    pub postings_reduction: f64,
    /// Share of the oracle's postings reduction this index reached.
    pub share_of_oracle_reduction: f64,
    /// Known-item retrieval.
    pub retrieval: Retrieval,
    /// Build wall time, seconds (0 for the oracle).
    pub build_seconds: f64,
}

/// Everything `indexer eval` measured.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Labelled pages.
    pub labelled_pages: usize,
    /// One row per detector, then the oracle.
    pub rows: Vec<EvalRow>,
}

/// Builds an index per detector (and `none`, and the oracle) in a temporary directory and
/// measures each.
pub fn evaluate(
    inputs: &[PathBuf],
    labels: &[Label],
    detectors: &[DetectorKind],
    options: &BuildOptions,
    seed: u64,
    progress: &dyn Progress,
) -> Result<EvalReport, EvalError> {
    let workdir = tempfile::Builder::new().prefix("indexer-eval-").tempdir()?;
    let mut kinds: Vec<DetectorKind> = detectors.to_vec();
    if !kinds.contains(&DetectorKind::None) {
        kinds.push(DetectorKind::None);
    }
    let mut rows = Vec::new();
    for kind in kinds {
        let path = workdir.path().join(kind.name());
        let run = BuildOptions {
            detector: kind,
            ..options.clone()
        };
        let summary = build_index(inputs, &path, &run, progress)?;
        rows.push(measure(kind.name(), &path, labels, seed, summary.seconds)?);
    }
    let oracle = workdir.path().join("oracle");
    build_oracle(&oracle, labels)?;
    rows.push(measure("oracle", &oracle, labels, seed, 0.0)?);

    let postings = |name: &str| {
        rows.iter()
            .find(|row| row.name == name)
            .map_or(0, |row| row.index.postings)
    };
    let (baseline, best) = (postings("none") as f64, postings("oracle") as f64);
    for row in &mut rows {
        let saved = baseline - row.index.postings as f64;
        row.postings_reduction = if baseline > 0.0 {
            saved / baseline
        } else {
            0.0
        };
        row.share_of_oracle_reduction = if baseline > best {
            saved / (baseline - best)
        } else {
            0.0
        };
    }
    Ok(EvalReport {
        labelled_pages: labels.len(),
        rows,
    })
}

fn build_oracle(path: &Path, labels: &[Label]) -> Result<(), EvalError> {
    let mut writer = IndexBuild::begin(path, 1, IndexBuild::heap_bytes(1, 1 << 30))?;
    for label in labels {
        writer.add(&IndexedPage {
            url: &label.url,
            site: &label.site,
            title: &label.title,
            body: &label.content_text,
            kept_blocks: 0,
            dropped_blocks: 0,
        })?;
    }
    let summary = BuildSummary {
        detector: "oracle".into(),
        pages: labels.len() as u64,
        ..BuildSummary::default()
    };
    writer.commit(&summary)?;
    Ok(())
}

fn measure(
    name: &str,
    path: &Path,
    labels: &[Label],
    seed: u64,
    seconds: f64,
) -> Result<EvalRow, EvalError> {
    let open = OpenIndex::open(path)?;
    let kept = stored_bodies(&open)?;
    Ok(EvalRow {
        name: name.to_string(),
        quality: score(labels, &kept),
        index: stats(&open)?,
        postings_reduction: 0.0,
        share_of_oracle_reduction: 0.0,
        retrieval: retrieval::evaluate(&open, labels, seed)?,
        build_seconds: seconds,
    })
}

/// The stored body of every document, by URL.
fn stored_bodies(open: &OpenIndex) -> Result<HashMap<String, String>, EvalError> {
    let reader = open.index.reader().map_err(SearchError::from)?;
    let searcher = reader.searcher();
    let mut bodies = HashMap::new();
    for (ordinal, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            let document: TantivyDocument = searcher
                .doc(DocAddress::new(ordinal as u32, doc))
                .map_err(SearchError::from)?;
            bodies.insert(
                stored_text(&document, open.fields.url),
                stored_text(&document, open.fields.body),
            );
        }
    }
    Ok(bodies)
}

impl EvalReport {
    /// The report as a markdown table (and per-site F1 with `sites`).
    pub fn to_markdown(&self, sites: bool) -> String {
        let mut out = String::new();
        out.push_str(&format!("Labelled pages: {}\n\n", self.labelled_pages));
        out.push_str("| index | micro P | micro R | micro F1 | macro F1 | template kept | postings | reduction vs none | share of oracle reduction | bytes | MRR@10 title | MRR@10 phrase | S@1 title | S@1 phrase |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for row in &self.rows {
            let q = &row.quality;
            let r = &row.retrieval;
            out.push_str(&format!(
                "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {:.1}% | {:.2} | {} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                row.name,
                q.micro.precision,
                q.micro.recall,
                q.micro.f1,
                q.macro_average.f1,
                q.template_kept,
                row.index.postings,
                100.0 * row.postings_reduction,
                row.share_of_oracle_reduction,
                row.index.total_bytes,
                r.title.mrr_at_10,
                r.phrase.mrr_at_10,
                r.title.success_at_1,
                r.phrase.success_at_1,
            ));
        }
        if sites {
            out.push_str("\n| site |");
            for row in &self.rows {
                out.push_str(&format!(" {} F1 |", row.name));
            }
            out.push_str("\n|---|");
            out.push_str(&"---:|".repeat(self.rows.len()));
            out.push('\n');
            if let Some(first) = self.rows.first() {
                for site in first.quality.sites.keys() {
                    out.push_str(&format!("| {site} |"));
                    for row in &self.rows {
                        let f1 = row.quality.sites.get(site).map_or(0.0, |prf| prf.f1);
                        out.push_str(&format!(" {f1:.3} |"));
                    }
                    out.push('\n');
                }
            }
        }
        out
    }
}
