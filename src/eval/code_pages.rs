//! The code score of an index: its labelled pages read again from their records, their
//! content `<pre>` blocks found in their own HTML, their Markdown written from the decisions
//! the index recorded; or, for an index that records none (a predictions file's, the
//! oracle's), its text alone against the blocks found for an index before it.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use tantivy::{DocAddress, TantivyDocument};

use super::Label;
use super::code::{CodeScore, content_blocks};
use crate::detect::DecisionRecord;
use crate::index::{OpenIndex, stored_record, stored_text};
use crate::read::{InputSet, RecordLocation};
use crate::report::BuildSummary;
use crate::run::page_of_record;
use crate::search::SearchError;
use crate::segment::{MarkdownOptions, segment_with};

/// Each labelled page's content `<pre>` blocks, read once for all the indexes of an
/// evaluation, and the inputs they were read from.
#[derive(Default)]
pub(super) struct CodeReference {
    blocks: HashMap<String, Vec<Vec<String>>>,
    inputs: HashMap<PathBuf, Option<InputSet>>,
}

/// How an index's code score is found.
pub(super) enum CodeSource<'r> {
    /// From its recorded decisions: the Markdown is written again (an index a build made).
    Decided {
        summary: &'r BuildSummary,
        reference: &'r mut CodeReference,
    },
    /// From its text alone (an index of predicted or labelled text).
    TextOnly(&'r CodeReference),
}

/// One stored page of an index, with where its record lies and its decision record.
struct StoredRecord {
    url: String,
    body: String,
    source: Option<(PathBuf, u64)>,
    decisions: Option<Vec<u8>>,
}

/// The code score of the index `open` on the `labels` pages, its text `kept` by URL.
pub(super) fn code_score(
    open: &OpenIndex,
    labels: &[Label],
    kept: &HashMap<String, String>,
    source: CodeSource<'_>,
) -> Result<CodeScore, SearchError> {
    match source {
        CodeSource::TextOnly(reference) => {
            let mut score = CodeScore::default();
            for label in labels {
                if let Some(blocks) = reference.blocks.get(&label.url) {
                    let text = kept.get(&label.url).map_or("", String::as_str);
                    score.add(&CodeScore::of_page(blocks, text, None));
                }
            }
            Ok(score)
        }
        CodeSource::Decided { summary, reference } => {
            let by_url: HashMap<&str, &Label> = (labels.iter())
                .map(|label| (label.url.as_str(), label))
                .collect();
            let mut score = CodeScore {
                whole_in_markdown: Some(0),
                ..CodeScore::default()
            };
            for stored in stored_records(open, &by_url.keys().copied().collect())? {
                let label = by_url[stored.url.as_str()];
                score.add(&decided_page(&stored, label, summary, reference));
            }
            Ok(score)
        }
    }
}

/// One page's code score: its record read again, its blocks found (or taken from an index
/// read before), its Markdown written from its decisions. A page whose record cannot be
/// read again counts no blocks.
fn decided_page(
    stored: &StoredRecord,
    label: &Label,
    summary: &BuildSummary,
    reference: &mut CodeReference,
) -> CodeScore {
    let nothing = CodeScore {
        whole_in_markdown: Some(0),
        ..CodeScore::default()
    };
    if reference.blocks.get(&stored.url).is_some_and(Vec::is_empty) {
        return nothing;
    }
    let (Some((path, offset)), Some(decisions)) = (&stored.source, &stored.decisions) else {
        return nothing;
    };
    let inputs = reference
        .inputs
        .entry(path.clone())
        .or_insert_with(|| InputSet::open(std::slice::from_ref(path), None).ok());
    let location = RecordLocation {
        input: 0,
        offset: *offset,
    };
    let Some(record) = inputs
        .as_ref()
        .and_then(|inputs| inputs.record_at(location, &stored.url))
    else {
        return nothing;
    };
    let limits = summary.segment_limits.unwrap_or_default();
    let Ok(page) = page_of_record(record, &limits) else {
        return nothing;
    };
    let blocks = (reference.blocks)
        .entry(stored.url.clone())
        .or_insert_with(|| content_blocks(&page.html, &label.content_text));
    if blocks.is_empty() {
        return nothing;
    }
    let options = summary.segment_options.unwrap_or_default();
    let (Ok(segmented), Ok(record)) = (
        segment_with(&page, &limits, options),
        DecisionRecord::from_bytes(decisions),
    ) else {
        return CodeScore::of_page(blocks, &stored.body, Some(""));
    };
    let verdicts = record.verdicts();
    let keep = |block: usize| {
        verdicts
            .get(block)
            .is_none_or(|verdict| verdict.is_none_or(|verdict| verdict.keep))
    };
    let markdown_options = MarkdownOptions {
        base_url: stored.url.clone(),
        ..MarkdownOptions::default()
    };
    let markdown = (segmented.layout).markdown(&segmented.blocks, keep, &markdown_options);
    CodeScore::of_page(blocks, &stored.body, Some(&markdown))
}

/// The stored pages of `open` whose URL is one of `urls`.
fn stored_records(
    open: &OpenIndex,
    urls: &HashSet<&str>,
) -> Result<Vec<StoredRecord>, SearchError> {
    let reader = open.index.reader()?;
    let searcher = reader.searcher();
    let fields = open.fields;
    let mut stored = Vec::new();
    for (ordinal, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in segment.doc_ids_alive() {
            let document: TantivyDocument = searcher.doc(DocAddress::new(ordinal as u32, doc))?;
            let url = stored_text(&document, fields.url);
            if !urls.contains(url.as_str()) {
                continue;
            }
            let (source, decisions) = stored_record(&document, &fields);
            stored.push(StoredRecord {
                body: stored_text(&document, fields.body),
                url,
                source,
                decisions,
            });
        }
    }
    Ok(stored)
}
