//! Eval: inputs and labelled pages in; per detector, extraction quality, index size and
//! known-item retrieval out — beside the `none` baseline and an *oracle* index built from the
//! labelled main content alone.
//!
//! Labels are JSON lines (optionally gzip) with `url`, `site`, `title`, `content_text` and
//! `template_text`; lines with `"usable": false` are skipped.

mod chart;
mod code;
mod code_pages;
mod predictions;
mod quality;
mod report;
mod retrieval;
mod snippets;

pub use chart::chart_svg;
pub use code::{CodeScore, content_blocks, preformatted_blocks};
pub use predictions::{Predictions, load_predictions};
pub use quality::{Prf, Quality, bag, line_bag, score};
pub use retrieval::{
    QueryKind, QueryOutcome, RankFigures, Retrieval, reciprocal_rank, sample_phrase,
    title_without_site,
};
pub use snippets::{SnippetScore, score_snippets};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tantivy::{DocAddress, TantivyDocument};

use crate::detect::DetectorKind;
use crate::index::{
    IndexBuild, IndexError, IndexStats, IndexedPage, OpenIndex, stats, stored_text,
};
use crate::lifecycle::build_index;
use crate::report::BuildSummary;
use crate::run::{
    self, BuildError, BuildOptions, PagesPerSite, PrefixedProgress, Progress, Sampling,
};
use crate::search::SearchError;
use code_pages::{CodeReference, CodeSource, code_score};

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
    /// A predictions file written at some pages per site has none at a size asked for.
    #[error(
        "predictions {name} hold no kept text at {pages} pages per site (they were written at {written}): \
         give eval the pages per site of the run that wrote them"
    )]
    PredictionsNotSampledAt {
        /// The predictions' name.
        name: String,
        /// The size asked for.
        pages: PagesPerSite,
        /// The sizes they hold: "1,3,all".
        written: String,
    },
    /// A predictions file written at some pages per site holds no labelled page of a draw
    /// asked for.
    #[error(
        "predictions {name} hold no labelled page of draw {draw} of {pages} pages per site: \
         the run that wrote them did not draw it (train --cross-validate --held-out-draws N); \
         ask fewer draws (--draws)"
    )]
    PredictionsMissDraw {
        /// The predictions' name.
        name: String,
        /// The size.
        pages: PagesPerSite,
        /// The draw, counted from 1.
        draw: usize,
    },
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
        let reader: Box<dyn Read> = match crate::output::Compression::of_path(path) {
            crate::output::Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(file)),
            crate::output::Compression::Zstd => {
                Box::new(zstd::stream::read::Decoder::new(file).map_err(|e| fail(e.to_string()))?)
            }
            crate::output::Compression::None => Box::new(file),
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

/// The URL of every line of label or snippet files (JSON lines, gzip or zstd when named `.gz` or `.zst`).
pub fn load_urls(paths: &[PathBuf]) -> Result<Vec<String>, EvalError> {
    let mut urls = Vec::new();
    for_each_line(paths, |value| {
        if let Some(url) = value.get("url").and_then(|v| v.as_str()) {
            urls.push(url.to_string());
        }
    })?;
    Ok(urls)
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
    /// The pages per site its sites were sampled down to (only in a sampled evaluation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_per_site: Option<PagesPerSite>,
    /// The disjoint samples of that size scored together ([`EvalPlan::draws`]; only when
    /// more than one was asked): each was a run of its own, and the row's figures are of the
    /// pages of all of them (index sizes summed: a term of two draws counts in each one's
    /// unique terms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<usize>,
    /// Extraction quality of the index's stored body text.
    pub quality: Quality,
    /// The content's `<pre>` blocks of the labelled pages, and how many came out whole in
    /// the text and in Markdown.
    pub code: CodeScore,
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
    /// The seed of the sampled pages (only in a sampled evaluation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_seed: Option<u64>,
    /// Labelled pages that a predictions file written at sizes holds no kept text of at
    /// their size, left out of their draw's scoring for every index (a host whose pages were
    /// split over inputs read apart, so that its samples differ a little from the training
    /// run's).
    #[serde(skip_serializing_if = "is_zero")]
    pub labelled_pages_unpredicted: usize,
    /// One row per detector, then each predictions file, then the oracle (in a sampled
    /// evaluation, those rows for each pages per site in turn).
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

impl<'a> Truth<'a> {
    /// The URL of every labelled page, of either kind.
    fn urls(self) -> impl Iterator<Item = &'a str> {
        (self.labels.iter().map(|label| label.url.as_str()))
            .chain(self.snippets.iter().map(|label| label.url.as_str()))
    }
}

/// How the known-item queries are asked.
#[derive(Debug, Clone, Copy)]
pub struct QuerySettings {
    /// Seed of the sampled phrase queries.
    pub seed: u64,
    /// How much title matches count against body matches.
    pub weights: crate::search::Weights,
}

/// What an evaluation measures and how, resolved once from what the caller asked.
#[derive(Debug, Clone)]
pub struct EvalPlan<'a> {
    /// The detectors measured; `none` is always measured as the baseline.
    pub detectors: &'a [DetectorKind],
    /// Kept text from files, each measured as an index of its own.
    pub predictions: &'a [Predictions],
    /// How the inputs are read and the detectors run.
    pub options: &'a BuildOptions,
    /// How the known-item queries are asked.
    pub queries: QuerySettings,
    /// Each site sampled down to a few pages, each size a run of its own (`None`: the
    /// whole input, once).
    pub sampling: Option<Sampling>,
    /// With `sampling`, how many disjoint samples of each size are drawn
    /// ([`SiteCensus::draw`](crate::run::SiteCensus::draw)), each a run of its own, and
    /// scored together: a size's figures then stand on several times the pages of one
    /// sample (1: the seed's sample alone; a draw that no site has the pages for ends it).
    pub draws: usize,
}

/// Builds an index per detector (and `none`), one per predictions file, and the oracle (from
/// the content labels) in a temporary directory, and measures each — once, or, sampled, once
/// for each pages per site and draw on only the sampled pages (labels of other pages left
/// out), a size's draws scored together.
pub fn evaluate(
    inputs: &[PathBuf],
    truth: Truth<'_>,
    plan: &EvalPlan<'_>,
    progress: &dyn Progress,
) -> Result<EvalReport, EvalError> {
    let mut report = EvalReport {
        labelled_pages: truth.labels.len(),
        snippet_pages: truth.snippets.len(),
        labelled_pages_missing: 0,
        sample_seed: None,
        labelled_pages_unpredicted: 0,
        rows: Vec::new(),
    };
    let sizes: Vec<Option<PagesPerSite>> = match &plan.sampling {
        Some(sampling) => sampling.pages_per_site.iter().copied().map(Some).collect(),
        None => vec![None],
    };
    for predicted in plan.predictions {
        for &pages in &sizes {
            predicted.check_written_at(pages)?;
        }
    }
    let Some(sampling) = &plan.sampling else {
        let (measured, missing) =
            measure_indexes(inputs, truth, plan, plan.options, None, progress)?;
        report.rows = rows_of(measured, truth, None);
        report.labelled_pages_missing = missing;
        return Ok(report);
    };
    let census = run::census(inputs, plan.options, progress)?;
    report.labelled_pages_missing = truth.urls().filter(|url| !census.contains(url)).count();
    report.sample_seed = Some(sampling.seed);
    for &pages in &sampling.pages_per_site {
        let (mut labels, mut snippets) = (Vec::new(), Vec::new());
        let mut pooled: Vec<Measured> = Vec::new();
        let mut draws = 0;
        for draw in 0..plan.draws.max(1) {
            let sample = census.draw(pages, draw, sampling.seed);
            if draw > 0 && sample.is_empty() {
                break;
            }
            let mut drawn_labels: Vec<Label> = (truth.labels.iter())
                .filter(|label| sample.contains(&label.url))
                .cloned()
                .collect();
            let mut drawn_snippets: Vec<SnippetLabel> = (truth.snippets.iter())
                .filter(|label| sample.contains(&label.url))
                .cloned()
                .collect();
            let at = Drawn { pages, draw };
            report.labelled_pages_unpredicted +=
                keep_predicted(plan.predictions, at, &mut drawn_labels, &mut drawn_snippets)?;
            let mut options = plan.options.clone();
            options.input.sample = Some(Arc::new(sample));
            let drawn = Truth {
                labels: &drawn_labels,
                snippets: &drawn_snippets,
            };
            let (measured, _) = measure_indexes(inputs, drawn, plan, &options, Some(at), progress)?;
            pool(&mut pooled, measured);
            labels.extend(drawn_labels);
            snippets.extend(drawn_snippets);
            draws += 1;
        }
        let pooled_truth = Truth {
            labels: &labels,
            snippets: &snippets,
        };
        let mut rows = rows_of(pooled, pooled_truth, Some(pages));
        for row in &mut rows {
            row.draws = (plan.draws > 1).then_some(draws);
        }
        report.rows.extend(rows);
    }
    Ok(report)
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A sample of a sampled evaluation: draw `draw` (from 0) of `pages` pages per site.
#[derive(Debug, Clone, Copy)]
struct Drawn {
    pages: PagesPerSite,
    draw: usize,
}

/// What one index held and answered, before it is scored: its pages' kept text, its
/// known-item queries, its size.
struct Measured {
    name: String,
    kept: HashMap<String, String>,
    code: CodeScore,
    queries: Vec<QueryOutcome>,
    index: IndexStats,
    build_seconds: f64,
}

/// Adds each of `measured` to the index of the same name in `pooled` (disjoint pages: their
/// kept text and queries together, their sizes summed), or after them.
fn pool(pooled: &mut Vec<Measured>, measured: Vec<Measured>) {
    for more in measured {
        match pooled.iter_mut().find(|index| index.name == more.name) {
            Some(index) => {
                index.kept.extend(more.kept);
                index.code.add(&more.code);
                index.queries.extend(more.queries);
                index.index.add(&more.index);
                index.build_seconds += more.build_seconds;
            }
            None => pooled.push(more),
        }
    }
}

/// The rows of the `measured` indexes, scored against `truth` (sampled down to `sampled`
/// pages per site, or whole), each with its postings reduction against `none`'s and the
/// oracle's.
fn rows_of(
    measured: Vec<Measured>,
    truth: Truth<'_>,
    sampled: Option<PagesPerSite>,
) -> Vec<EvalRow> {
    let mut rows: Vec<EvalRow> = measured
        .into_iter()
        .map(|index| EvalRow {
            quality: score(truth.labels, &index.kept),
            code: index.code,
            snippets: (!truth.snippets.is_empty())
                .then(|| score_snippets(truth.snippets, &index.kept)),
            retrieval: Retrieval::of(&index.queries),
            name: index.name,
            pages_per_site: sampled,
            draws: None,
            index: index.index,
            postings_reduction: 0.0,
            share_of_oracle_reduction: 0.0,
            queries: index.queries,
            build_seconds: index.build_seconds,
        })
        .collect();
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
    rows
}

/// Every index of one evaluation of `inputs` read as `options` say (a sample of `drawn`, or
/// the whole input), measured, and the labelled pages missing from its `none` index.
fn measure_indexes(
    inputs: &[PathBuf],
    truth: Truth<'_>,
    plan: &EvalPlan<'_>,
    options: &BuildOptions,
    drawn: Option<Drawn>,
    progress: &dyn Progress,
) -> Result<(Vec<Measured>, usize), EvalError> {
    let (labels, queries) = (truth.labels, plan.queries);
    let workdir = tempfile::Builder::new().prefix("indexer-eval-").tempdir()?;
    let mut kinds: Vec<DetectorKind> = plan.detectors.to_vec();
    kinds.retain(|&kind| kind != DetectorKind::None);
    kinds.push(DetectorKind::None);
    let sample_prefix = match drawn {
        None => String::new(),
        Some(Drawn { pages, draw: 0 }) => format!("{pages} pages per site, "),
        Some(Drawn { pages, draw }) => format!("{pages} pages per site, draw {}, ", draw + 1),
    };
    let sampled = drawn.map(|drawn| drawn.pages);
    let mut rows = Vec::new();
    let mut reference = CodeReference::default();
    for kind in kinds {
        let path = workdir.path().join(kind.name());
        let run = BuildOptions {
            detector: kind,
            ..options.clone()
        };
        let phase = PrefixedProgress {
            inner: progress,
            prefix: format!("eval, {sample_prefix}the {} index: ", kind.name()),
        };
        let summary = build_index(inputs, &path, &run, &phase)?;
        let code = CodeSource::Decided {
            summary: &summary,
            reference: &mut reference,
        };
        rows.push(measure(
            kind.name(),
            &path,
            truth,
            queries,
            code,
            summary.seconds,
        )?);
    }
    let none = OpenIndex::open(&workdir.path().join(DetectorKind::None.name()))?;
    let documents = stored_documents(&none)?;
    let urls: std::collections::HashSet<&str> = documents
        .iter()
        .map(|document| document.url.as_str())
        .collect();
    let missing = truth.urls().filter(|url| !urls.contains(url)).count();
    for (at, predicted) in plan.predictions.iter().enumerate() {
        let path = workdir.path().join(format!("predictions-{at}"));
        build_from_predictions(&path, &documents, predicted, sampled)?;
        let code = CodeSource::TextOnly(&reference);
        rows.push(measure(&predicted.name, &path, truth, queries, code, 0.0)?);
    }
    if !labels.is_empty() {
        let oracle = workdir.path().join("oracle");
        build_oracle(&oracle, labels)?;
        let code = CodeSource::TextOnly(&reference);
        rows.push(measure("oracle", &oracle, truth, queries, code, 0.0)?);
    }
    Ok((rows, missing))
}

/// Leaves out of a draw its labelled pages that a predictions file written at sizes (a
/// sampled training run's) holds no kept text of at the draw's size, so that no page is
/// scored as `none` kept it in the predictions' row; how many were left out. Refuses
/// predictions that hold no labelled page of the draw at all: a training run that drew
/// fewer samples.
fn keep_predicted(
    predictions: &[Predictions],
    drawn: Drawn,
    labels: &mut Vec<Label>,
    snippets: &mut Vec<SnippetLabel>,
) -> Result<usize, EvalError> {
    let sampled: Vec<&Predictions> = (predictions.iter())
        .filter(|predicted| !predicted.sampled.is_empty())
        .collect();
    let held_by =
        |predicted: &Predictions, url: &str| predicted.text_at(url, Some(drawn.pages)).is_some();
    let given = labels.len() + snippets.len();
    let urls = || {
        (labels.iter().map(|label| label.url.as_str()))
            .chain(snippets.iter().map(|label| label.url.as_str()))
    };
    let unheld = sampled
        .iter()
        .find(|predicted| given > 0 && !urls().any(|url| held_by(predicted, url)));
    if let Some(predicted) = unheld {
        return Err(EvalError::PredictionsMissDraw {
            name: predicted.name.clone(),
            pages: drawn.pages,
            draw: drawn.draw + 1,
        });
    }
    let held = |url: &str| sampled.iter().all(|predicted| held_by(predicted, url));
    labels.retain(|label| held(&label.url));
    snippets.retain(|label| held(&label.url));
    Ok(given - labels.len() - snippets.len())
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
/// its predicted text (at `sampled` pages per site) where the predictions have it.
fn build_from_predictions(
    path: &Path,
    documents: &[StoredDocument],
    predictions: &Predictions,
    sampled: Option<PagesPerSite>,
) -> Result<(), EvalError> {
    let predicted = |document: &StoredDocument| predictions.text_at(&document.url, sampled);
    let replaced = documents
        .iter()
        .filter(|document| predicted(document).is_some())
        .count() as u64;
    let pages = documents.iter().map(|document| {
        let body = predicted(document).unwrap_or(&document.body);
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

/// The index at `path`: its kept text, its code score, its answers to `truth`'s known-item
/// queries, its size.
fn measure(
    name: &str,
    path: &Path,
    truth: Truth<'_>,
    queries: QuerySettings,
    code: CodeSource<'_>,
    seconds: f64,
) -> Result<Measured, EvalError> {
    let open = OpenIndex::open(path)?;
    let kept = stored_bodies(&open)?;
    Ok(Measured {
        name: name.to_string(),
        code: code_score(&open, truth.labels, &kept, code)?,
        kept,
        queries: retrieval::ask(&open, truth.labels, queries.seed, queries.weights)?,
        index: stats(&open)?,
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

#[cfg(test)]
mod tests;
