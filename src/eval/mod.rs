//! Eval: inputs and labelled pages in; per detector, extraction quality, index size and
//! known-item retrieval out — beside the `none` baseline and an *oracle* index built from the
//! labelled main content alone.
//!
//! Labels are JSON lines (optionally gzip) with `url`, `site`, `title`, `content_text` and
//! `template_text`; lines with `"usable": false` are skipped.

mod chart;
mod quality;
mod retrieval;
mod snippets;

pub use chart::write_chart;
pub use quality::{Prf, Quality, bag, score};
pub use retrieval::{
    QueryKind, QueryOutcome, RankFigures, Retrieval, reciprocal_rank, sample_phrase,
    title_without_site,
};
pub use snippets::{SnippetScore, score_snippets};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::{DocAddress, TantivyDocument};

use crate::detect::DetectorKind;
use crate::index::{
    IndexBuild, IndexError, IndexStats, IndexedPage, OpenIndex, stats, stored_text,
};
use crate::run::{BuildError, BuildOptions, BuildSummary, PrefixedProgress, Progress, build_index};
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

/// One page's snippet labels: passages of main content that must be kept, and passages of
/// boilerplate that must go (the format of `shared/tools/snippets.py`).
#[derive(Debug, Clone, PartialEq)]
pub struct SnippetLabel {
    /// The page URL, as in the crawl.
    pub url: String,
    /// The site it is scored under.
    pub site: String,
    /// Passages that must be kept.
    pub with: Vec<String>,
    /// Passages that must be dropped.
    pub without: Vec<String>,
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

/// Calls `each` with every JSON object of JSON-lines files (gzip when the name ends in `.gz`).
fn for_each_line(
    paths: &[PathBuf],
    mut each: impl FnMut(serde_json::Value),
) -> Result<(), EvalError> {
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
            each(value);
        }
    }
    Ok(())
}

/// Reads snippet labels (`url`, `site`, `with`, `without`) from JSON-lines files.
pub fn load_snippets(paths: &[PathBuf]) -> Result<Vec<SnippetLabel>, EvalError> {
    let mut labels = Vec::new();
    for_each_line(paths, |value| {
        let Some(url) = value.get("url").and_then(|v| v.as_str()) else {
            return;
        };
        let passages = |key: &str| -> Vec<String> {
            value
                .get(key)
                .and_then(|v| v.as_array())
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|item| item.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        labels.push(SnippetLabel {
            site: value
                .get("site")
                .and_then(|v| v.as_str())
                .map_or_else(|| crate::read::site_of(url), str::to_string),
            url: url.to_string(),
            with: passages("with"),
            without: passages("without"),
        });
    })?;
    Ok(labels)
}

/// Reads labels from JSON-lines files (gzip when the name ends in `.gz`).
pub fn load_labels(paths: &[PathBuf]) -> Result<Vec<Label>, EvalError> {
    let mut labels = Vec::new();
    for_each_line(paths, |value| {
        if value.get("usable") == Some(&serde_json::Value::Bool(false)) {
            return;
        }
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_string);
        let (Some(url), Some(content_text)) = (text("url"), text("content_text")) else {
            return;
        };
        let site = text("site").unwrap_or_else(|| crate::read::site_of(&url));
        labels.push(Label {
            site,
            title: text("title").unwrap_or_default(),
            template_text: text("template_text").unwrap_or_default(),
            url,
            content_text,
        });
    })?;
    Ok(labels)
}

/// The figures of one index: a detector's, the baseline's or the oracle's.
#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    /// `bloom`, `none`, … or `oracle`.
    pub name: String,
    /// Extraction quality of the index's stored body text.
    pub quality: Quality,
    /// Snippet scores, when snippet labels were given.
    pub snippets: Option<SnippetScore>,
    /// Index size.
    pub index: IndexStats,
    /// 1 − postings / postings of `none`.
    pub postings_reduction: f64,
    /// Share of the oracle's postings reduction this index reached.
    pub share_of_oracle_reduction: f64,
    /// Known-item retrieval.
    pub retrieval: Retrieval,
    /// Every known-item query and where its page ranked (left out of the JSON figures;
    /// `indexer eval --queries` writes them).
    #[serde(skip)]
    pub queries: Vec<QueryOutcome>,
    /// Build wall time, seconds (0 for the oracle).
    pub build_seconds: f64,
}

/// Everything `indexer eval` measured.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Labelled pages (content labels).
    pub labelled_pages: usize,
    /// Pages with snippet labels.
    pub snippet_pages: usize,
    /// Labelled pages (of either kind) whose URL is not in the input: scored as keeping
    /// nothing, so a large number means the wrong labels or inputs were given.
    pub labelled_pages_missing: usize,
    /// One row per detector, then each predictions file, then the oracle.
    pub rows: Vec<EvalRow>,
}

/// What `evaluate` measures against.
#[derive(Debug, Clone, Copy)]
pub struct Truth<'a> {
    /// Pages labelled with their main content.
    pub labels: &'a [Label],
    /// Pages labelled with snippets.
    pub snippets: &'a [SnippetLabel],
}

/// How the known-item queries are asked.
#[derive(Debug, Clone, Copy)]
pub struct QuerySettings {
    /// Seed of the sampled phrase queries.
    pub seed: u64,
    /// How much title matches count against body matches.
    pub weights: crate::search::Weights,
}

/// Kept text by URL, as `indexer extract` or `indexer train --cross-validate` write it,
/// measured as an index of its own.
#[derive(Debug, Clone)]
pub struct Predictions {
    /// The row's name.
    pub name: String,
    /// Kept text by URL.
    pub texts: HashMap<String, String>,
}

/// Reads a predictions file (JSON lines with `url` and `text`).
pub fn load_predictions(name: &str, path: &Path) -> Result<Predictions, EvalError> {
    let mut texts = HashMap::new();
    for_each_line(&[path.to_path_buf()], |value| {
        if let (Some(url), Some(text)) = (
            value.get("url").and_then(|v| v.as_str()),
            value.get("text").and_then(|v| v.as_str()),
        ) {
            texts.insert(url.to_string(), text.to_string());
        }
    })?;
    Ok(Predictions {
        name: name.to_string(),
        texts,
    })
}

/// Builds an index per detector (and `none`), one per predictions file, and the oracle (from
/// the content labels) in a temporary directory, and measures each.
pub fn evaluate(
    inputs: &[PathBuf],
    truth: Truth<'_>,
    detectors: &[DetectorKind],
    predictions: &[Predictions],
    options: &BuildOptions,
    queries: QuerySettings,
    progress: &dyn Progress,
) -> Result<EvalReport, EvalError> {
    let labels = truth.labels;
    let workdir = tempfile::Builder::new().prefix("indexer-eval-").tempdir()?;
    let mut kinds: Vec<DetectorKind> = detectors.to_vec();
    kinds.retain(|&kind| kind != DetectorKind::None);
    kinds.push(DetectorKind::None);
    let mut rows = Vec::new();
    for kind in kinds {
        let path = workdir.path().join(kind.name());
        let run = BuildOptions {
            detector: kind,
            ..options.clone()
        };
        let phase = PrefixedProgress {
            inner: progress,
            prefix: format!("eval, the {} index: ", kind.name()),
        };
        let summary = build_index(inputs, &path, &run, &phase)?;
        rows.push(measure(
            kind.name(),
            &path,
            truth,
            queries,
            summary.seconds,
        )?);
    }
    let none = OpenIndex::open(&workdir.path().join(DetectorKind::None.name()))?;
    let documents = stored_documents(&none)?;
    let urls: std::collections::HashSet<&str> = documents
        .iter()
        .map(|document| document.url.as_str())
        .collect();
    let missing = labels
        .iter()
        .map(|label| label.url.as_str())
        .chain(truth.snippets.iter().map(|label| label.url.as_str()))
        .filter(|url| !urls.contains(url))
        .count();
    for (at, predicted) in predictions.iter().enumerate() {
        let path = workdir.path().join(format!("predictions-{at}"));
        build_from_predictions(&path, &documents, predicted)?;
        rows.push(measure(&predicted.name, &path, truth, queries, 0.0)?);
    }
    if !labels.is_empty() {
        let oracle = workdir.path().join("oracle");
        build_oracle(&oracle, labels)?;
        rows.push(measure("oracle", &oracle, truth, queries, 0.0)?);
    }

    let postings = |name: &str| {
        rows.iter()
            .find(|row| row.name == name)
            .map_or(0, |row| row.index.postings)
    };
    let (baseline, oracle) = (postings("none"), postings("oracle"));
    for row in &mut rows {
        (row.postings_reduction, row.share_of_oracle_reduction) =
            postings_reduction(row.index.postings, baseline, oracle);
    }
    Ok(EvalReport {
        labelled_pages: labels.len(),
        snippet_pages: truth.snippets.len(),
        labelled_pages_missing: missing,
        rows,
    })
}

/// An index's postings reduction, 1 − `postings` / `baseline` (0 when the baseline has no
/// postings), and its share of the oracle's, (`baseline` − `postings`) / (`baseline` −
/// `oracle`) (0 when the oracle has no fewer postings than the baseline).
fn postings_reduction(postings: u64, baseline: u64, oracle: u64) -> (f64, f64) {
    let (baseline, best) = (baseline as f64, oracle as f64);
    let saved = baseline - postings as f64;
    let reduction = if baseline > 0.0 {
        saved / baseline
    } else {
        0.0
    };
    let share = if baseline > best {
        saved / (baseline - best)
    } else {
        0.0
    };
    (reduction, share)
}

/// One stored document of an index.
struct StoredDocument {
    url: String,
    site: String,
    title: String,
    body: String,
}

fn stored_documents(open: &OpenIndex) -> Result<Vec<StoredDocument>, EvalError> {
    let reader = open.index.reader().map_err(SearchError::from)?;
    let searcher = reader.searcher();
    let mut documents = Vec::new();
    for (ordinal, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            let document: TantivyDocument = searcher
                .doc(DocAddress::new(ordinal as u32, doc))
                .map_err(SearchError::from)?;
            documents.push(StoredDocument {
                url: stored_text(&document, open.fields.url),
                site: stored_text(&document, open.fields.site),
                title: stored_text(&document, open.fields.title),
                body: stored_text(&document, open.fields.body),
            });
        }
    }
    documents.sort_by(|a, b| a.url.cmp(&b.url));
    Ok(documents)
}

/// An index of the input's pages (as `none` stored them) with each page's text replaced by
/// its predicted text where the predictions have it.
fn build_from_predictions(
    path: &Path,
    documents: &[StoredDocument],
    predictions: &Predictions,
) -> Result<(), EvalError> {
    let replaced = documents
        .iter()
        .filter(|document| predictions.texts.contains_key(&document.url))
        .count() as u64;
    let pages = documents.iter().map(|document| {
        let body = predictions
            .texts
            .get(&document.url)
            .map_or(document.body.as_str(), String::as_str);
        IndexedPage::text(&document.url, &document.site, &document.title, body)
    });
    let summary = BuildSummary {
        detector: predictions.name.clone(),
        pages: documents.len() as u64,
        counters: [("pages_predicted".to_string(), replaced)].into(),
        ..BuildSummary::default()
    };
    write_index(path, pages, &summary)
}

/// An index of the labelled main content alone.
fn build_oracle(path: &Path, labels: &[Label]) -> Result<(), EvalError> {
    let pages = labels
        .iter()
        .map(|label| IndexedPage::text(&label.url, &label.site, &label.title, &label.content_text));
    let summary = BuildSummary {
        detector: "oracle".into(),
        pages: labels.len() as u64,
        ..BuildSummary::default()
    };
    write_index(path, pages, &summary)
}

/// Writes `pages` as a new index at `path` with `summary` beside it.
fn write_index<'a>(
    path: &Path,
    pages: impl Iterator<Item = IndexedPage<'a>>,
    summary: &BuildSummary,
) -> Result<(), EvalError> {
    let mut writer = IndexBuild::begin(path, 1, IndexBuild::heap_bytes(1, 1 << 30))?;
    for page in pages {
        writer.add(&page)?;
    }
    writer.commit(summary)?;
    Ok(())
}

fn measure(
    name: &str,
    path: &Path,
    truth: Truth<'_>,
    queries: QuerySettings,
    seconds: f64,
) -> Result<EvalRow, EvalError> {
    let open = OpenIndex::open(path)?;
    let kept = stored_bodies(&open)?;
    let (retrieval, outcomes) =
        retrieval::evaluate(&open, truth.labels, queries.seed, queries.weights)?;
    Ok(EvalRow {
        name: name.to_string(),
        quality: score(truth.labels, &kept),
        snippets: (!truth.snippets.is_empty()).then(|| score_snippets(truth.snippets, &kept)),
        index: stats(&open)?,
        postings_reduction: 0.0,
        share_of_oracle_reduction: 0.0,
        retrieval,
        queries: outcomes,
        build_seconds: seconds,
    })
}

/// The stored body of every document, by URL.
fn stored_bodies(open: &OpenIndex) -> Result<HashMap<String, String>, EvalError> {
    Ok(stored_documents(open)?
        .into_iter()
        .map(|document| (document.url, document.body))
        .collect())
}

impl EvalReport {
    /// Every index's known-item queries as JSON lines: `index`, then the fields of
    /// [`QueryOutcome`].
    pub fn write_queries(&self, mut out: impl std::io::Write) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Line<'a> {
            index: &'a str,
            #[serde(flatten)]
            outcome: &'a QueryOutcome,
        }
        for row in &self.rows {
            for outcome in &row.queries {
                serde_json::to_writer(
                    &mut out,
                    &Line {
                        index: &row.name,
                        outcome,
                    },
                )?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    }

    /// The report as a markdown table (and per-site F1 with `sites`).
    pub fn to_markdown(&self, sites: bool) -> String {
        let mut out = String::new();
        out.push_str(&format!("Labelled pages: {}\n", self.labelled_pages));
        if self.snippet_pages > 0 {
            out.push_str(&format!("Snippet-labelled pages: {}\n", self.snippet_pages));
        }
        if self.labelled_pages_missing > 0 {
            out.push_str(&format!(
                "Labelled pages not in the input (scored as empty): {}\n",
                self.labelled_pages_missing
            ));
        }
        out.push('\n');
        if self.snippet_pages > 0 {
            out.push_str(
                "| index | snippet P | snippet R | snippet F1 | postings | reduction vs none |\n",
            );
            out.push_str("|---|---:|---:|---:|---:|---:|\n");
            for row in &self.rows {
                if let Some(snippets) = &row.snippets {
                    out.push_str(&format!(
                        "| {} | {:.3} | {:.3} | {:.3} | {} | {:.1}% |\n",
                        row.name,
                        snippets.precision,
                        snippets.recall,
                        snippets.f1,
                        row.index.postings,
                        100.0 * row.postings_reduction
                    ));
                }
            }
            out.push('\n');
            if self.labelled_pages == 0 {
                return out;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_reduction_against_none_and_share_of_the_oracle_s() {
        // none has 1000 postings, the oracle 400: the oracle saves 600.
        // 700 postings: saves 300 → 300/1000 = 0.3 of none's, 300/600 = 0.5 of the oracle's.
        assert_eq!(postings_reduction(700, 1000, 400), (0.3, 0.5));
        assert_eq!(postings_reduction(1000, 1000, 400), (0.0, 0.0));
        assert_eq!(postings_reduction(400, 1000, 400), (0.6, 1.0));
        // More than none: saves −100 → −100/1000 = −0.1, −100/600 = −1/6.
        assert_eq!(postings_reduction(1100, 1000, 400), (-0.1, -1.0 / 6.0));
    }

    #[test]
    fn postings_reduction_without_a_baseline_or_an_oracle() {
        // No postings in none: nothing to reduce, 0 and 0 (not NaN).
        assert_eq!(postings_reduction(0, 0, 0), (0.0, 0.0));
        // No oracle row (no content labels) counts as 0 postings: the share is the
        // reduction itself, 300/1000.
        assert_eq!(postings_reduction(700, 1000, 0), (0.3, 0.3));
        // An oracle no smaller than none saves nothing to share in: 0.
        assert_eq!(postings_reduction(700, 1000, 1000), (0.3, 0.0));
        assert_eq!(postings_reduction(700, 1000, 1200), (0.3, 0.0));
    }

    fn row(name: &str, postings: u64, reduction: f64, share: f64) -> EvalRow {
        EvalRow {
            name: name.into(),
            quality: Quality::default(),
            snippets: None,
            index: IndexStats {
                postings,
                ..IndexStats::default()
            },
            postings_reduction: reduction,
            share_of_oracle_reduction: share,
            retrieval: Retrieval::default(),
            queries: Vec::new(),
            build_seconds: 0.0,
        }
    }

    #[test]
    fn the_markdown_table_shows_reductions_as_percentages_and_absent_sites_as_zero() {
        let mut bloom = row("bloom", 700, 0.3, 0.5);
        bloom.quality.sites.insert(
            "s1".into(),
            Prf {
                precision: 1.0,
                recall: 1.0 / 3.0,
                f1: 0.5,
            },
        );
        let report = EvalReport {
            labelled_pages: 2,
            snippet_pages: 0,
            labelled_pages_missing: 0,
            rows: vec![bloom, row("none", 1000, 0.0, 0.0)],
        };
        let table = report.to_markdown(true);
        // 0.3 → 30.0%, share 0.50.
        assert!(table.contains("| 700 | 30.0% | 0.50 |"), "{table}");
        assert!(table.contains("| 1000 | 0.0% | 0.00 |"), "{table}");
        // none has no figures for s1: 0.
        assert!(table.contains("| s1 | 0.500 | 0.000 |"), "{table}");
    }
}
