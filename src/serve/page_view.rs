//! The page view: a stored page in, its blocks in order with the verdict on each out. The
//! page's record is read again from the input file the index recorded (only that file, at
//! the recorded offset) and segmented as the build segmented it; the decision record the
//! index stored gives each block its verdict. When the record cannot be read again, or no
//! longer segments into the blocks that were decided, the view says so and holds the kept
//! text alone.

use serde::Serialize;

use super::catalog::{Catalog, StoredPage};
use crate::detect::{DecisionRecord, Verdict};
use crate::read::{InputSet, RecordLocation};
use crate::run::{counted, segment_record};

/// A page with the verdict on each of its blocks.
#[derive(Debug, Clone, Serialize)]
pub struct PageView {
    /// The index it is in (position in the catalog) and its name.
    pub index: usize,
    /// The index's name.
    pub index_name: String,
    /// The detector that decided.
    pub detector: String,
    /// URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Site.
    pub site: String,
    /// Blocks kept.
    pub kept_blocks: u64,
    /// Blocks dropped.
    pub dropped_blocks: u64,
    /// Bytes of text kept.
    pub kept_text_bytes: u64,
    /// Bytes of text dropped.
    pub dropped_text_bytes: u64,
    /// Where the record was read from.
    pub source: Option<SourceView>,
    /// Why the blocks could not be shown, when they cannot.
    pub unavailable: Option<String>,
    /// The blocks in order with their verdicts (empty when unavailable).
    pub blocks: Vec<BlockView>,
    /// The kept text as indexed.
    pub kept_text: String,
}

/// Where a page's record lies.
#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    /// The input file.
    pub path: String,
    /// The record's byte offset in it.
    pub offset: u64,
}

/// One block with its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct BlockView {
    /// The block's text.
    pub text: String,
    /// Whether it was kept.
    pub kept: bool,
    /// The rule that kept or dropped it, as `extract --explain` names it (`None` for a kept
    /// block of an index built before indexer recorded why blocks were kept).
    pub rule: Option<&'static str>,
    /// The figure the rule compared, when it compares one.
    pub score: Option<f32>,
    /// Its threshold, when the rule compares a figure.
    pub threshold: Option<f32>,
}

impl PageView {
    /// The view of `page` from `catalog`.
    pub fn of(catalog: &Catalog, page: StoredPage) -> PageView {
        let served = &catalog.indexes[page.index];
        let mut view = PageView {
            index: page.index,
            index_name: served.name.clone(),
            detector: served.summary.detector.clone(),
            url: page.url.clone(),
            title: page.title.clone(),
            site: page.site.clone(),
            kept_blocks: page.kept_blocks,
            dropped_blocks: page.dropped_blocks,
            kept_text_bytes: page.text_bytes.0,
            dropped_text_bytes: page.text_bytes.1,
            source: page.source.as_ref().map(|(path, offset)| SourceView {
                path: path.display().to_string(),
                offset: *offset,
            }),
            unavailable: None,
            blocks: Vec::new(),
            kept_text: page.body.clone(),
        };
        match blocks_of(catalog, &page) {
            Ok(blocks) => view.blocks = blocks,
            Err(reason) => view.unavailable = Some(reason),
        }
        view
    }
}

/// The page's blocks with their verdicts, or why they cannot be shown.
fn blocks_of(catalog: &Catalog, page: &StoredPage) -> Result<Vec<BlockView>, String> {
    let summary = &catalog.indexes[page.index].summary;
    let record = page
        .decisions
        .as_deref()
        .ok_or("the index keeps no decision record (built before indexer recorded them)")?;
    let record = DecisionRecord::from_bytes(record).map_err(|error| error.to_string())?;
    let (path, offset) = page
        .source
        .as_ref()
        .ok_or("the index does not say where the page came from (read from standard input)")?;
    if !path.is_file() {
        return Err(format!("the source {} is no longer there", path.display()));
    }
    let inputs = InputSet::open(std::slice::from_ref(path), None)
        .map_err(|error| format!("the source cannot be opened: {error}"))?;
    let location = RecordLocation {
        input: 0,
        offset: *offset,
    };
    let found = inputs
        .record_at(location, &page.url)
        .ok_or_else(|| format!("the record is no longer at byte {offset} of the source"))?;
    let options = summary.segment_options.unwrap_or_default();
    let limits = summary.segment_limits.unwrap_or_default();
    let segmented = segment_record(found, &limits, options).map_err(|skip| skip.to_string())?;
    let verdicts = record.verdicts();
    if verdicts.len() != segmented.blocks.len() {
        return Err(format!(
            "the source now segments into {} where the build decided {} (it changed since)",
            counted(segmented.blocks.len() as u64, "block"),
            counted(verdicts.len() as u64, "block")
        ));
    }
    Ok(segmented
        .blocks
        .into_iter()
        .zip(verdicts)
        .map(|(block, verdict)| block_view(block.text, verdict))
        .collect())
}

/// A block and its verdict; a verdict the record does not hold is a kept block's.
fn block_view(text: String, verdict: Option<Verdict>) -> BlockView {
    let figure = |value: f32| value.is_finite().then_some(value);
    match verdict {
        Some(verdict) => BlockView {
            text,
            kept: verdict.keep,
            rule: Some(verdict.rule.name()),
            score: figure(verdict.score),
            threshold: figure(verdict.threshold),
        },
        None => BlockView {
            text,
            kept: true,
            rule: None,
            score: None,
            threshold: None,
        },
    }
}
