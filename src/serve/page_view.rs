//! The page view: a stored page in, its blocks in order with the verdict on each out. The
//! page's record is read again from the input file the index recorded (only that file, at
//! the recorded offset) and segmented as the build segmented it; the decision record the
//! index stored gives each block its verdict. When the record cannot be read again, or no
//! longer segments into the blocks that were decided, the view says so and holds the kept
//! text alone.

use serde::Serialize;

/// Bytes of block text a page view holds, at most: the blocks past them are counted, not
/// shown. An 8 MiB page (the most a build reads of one) would otherwise make an answer of as
/// much text again as HTML or JSON, per request.
pub const MAX_SHOWN_TEXT_BYTES: usize = 1 << 20;

use super::catalog::{Catalog, FoundPage, shown_source};
use crate::detect::{DecisionRecord, Verdict};
use crate::read::{InputSet, RecordLocation};
use crate::report::counted;
use crate::run::segment_record;
use crate::segment::TextPiece;

/// Layout marks read, at most, to lay out the blocks of one page view (past them, a block is
/// shown as its collapsed text).
const MAX_LAYOUT_MARKS_READ: usize = 1 << 22;

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
    /// The blocks in order with their verdicts (empty when unavailable), as many as
    /// [`MAX_SHOWN_TEXT_BYTES`] of text hold.
    pub blocks: Vec<BlockView>,
    /// Blocks past those shown (0: every block is shown).
    pub blocks_not_shown: u64,
    /// The kept text as indexed, its first [`MAX_SHOWN_TEXT_BYTES`] at most.
    pub kept_text: String,
    /// Whether `kept_text` was cut short.
    pub kept_text_cut: bool,
}

/// Where a page's record lies.
#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    /// The input file, relative to the index directory (or its file name alone when the two
    /// share no directory): never the absolute path.
    pub path: String,
    /// The record's byte offset in it.
    pub offset: u64,
}

/// One block with its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct BlockView {
    /// The block's text.
    pub text: String,
    /// The block's text laid out: prose lines, and code listings with their lines and
    /// indentation (what the page view shows in `<pre>`).
    pub pieces: Vec<TextPiece>,
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
    pub fn of(catalog: &Catalog, page: FoundPage) -> PageView {
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
                path: shown_source(path, &served.root),
                offset: *offset,
            }),
            unavailable: None,
            blocks: Vec::new(),
            blocks_not_shown: 0,
            kept_text_cut: page.body.len() > MAX_SHOWN_TEXT_BYTES,
            kept_text: cut(&page.body, MAX_SHOWN_TEXT_BYTES).to_string(),
        };
        match blocks_of(catalog, &page) {
            Ok(mut blocks) => {
                let mut text = 0;
                let shown = blocks
                    .iter()
                    .take_while(|block| {
                        text += block.text.len();
                        text <= MAX_SHOWN_TEXT_BYTES
                    })
                    .count();
                view.blocks_not_shown = (blocks.len() - shown) as u64;
                blocks.truncate(shown);
                view.blocks = blocks;
            }
            Err(reason) => view.unavailable = Some(reason),
        }
        view
    }
}

/// The first `bytes` of `text` at most, cut at a character boundary.
fn cut(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The page's blocks with their verdicts, or why they cannot be shown.
fn blocks_of(catalog: &Catalog, page: &FoundPage) -> Result<Vec<BlockView>, String> {
    let served = &catalog.indexes[page.index];
    let summary = &served.summary;
    let record = page
        .decisions
        .as_deref()
        .ok_or("the index keeps no decision record (built before indexer recorded them)")?;
    let record = DecisionRecord::from_bytes(record).map_err(|error| error.to_string())?;
    let (path, offset) = page
        .source
        .as_ref()
        .ok_or("the index does not say where the page came from (read from standard input)")?;
    let shown = shown_source(path, &served.root);
    if !path.is_file() {
        return Err(format!("the source {shown} is no longer there"));
    }
    let inputs = InputSet::open(std::slice::from_ref(path), None).map_err(|error| {
        let error = error
            .to_string()
            .replace(&path.display().to_string(), &shown);
        format!("the source cannot be opened: {error}")
    })?;
    let location = RecordLocation {
        input: 0,
        offset: *offset,
    };
    let found = inputs
        .record_at(location, &page.url)
        .ok_or_else(|| format!("the record is no longer at byte {offset} of the source"))?;
    // The blocks are cut where the build cut them; the tree, links and evidence the build
    // gathered besides are not needed to show them.
    let options = crate::segment::SegmentOptions {
        tree: false,
        links: false,
        evidence: false,
        ..summary.segment_options.unwrap_or_default()
    };
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
    let mut text = 0;
    let shown = segmented
        .blocks
        .iter()
        .take_while(|block| {
            text += block.text.len();
            text <= MAX_SHOWN_TEXT_BYTES
        })
        .count();
    let mut pieces = segmented
        .layout
        .block_pieces(&segmented.blocks, shown, MAX_LAYOUT_MARKS_READ)
        .into_iter();
    Ok(segmented
        .blocks
        .into_iter()
        .zip(verdicts)
        .map(|(block, verdict)| {
            let pieces = pieces.next().unwrap_or_default();
            block_view(block.text, pieces, verdict)
        })
        .collect())
}

/// A block and its verdict; a verdict the record does not hold is a kept block's.
fn block_view(text: String, pieces: Vec<TextPiece>, verdict: Option<Verdict>) -> BlockView {
    let figure = |value: f32| value.is_finite().then_some(value);
    match verdict {
        Some(verdict) => BlockView {
            text,
            pieces,
            kept: verdict.keep,
            rule: Some(verdict.rule.name()),
            score: figure(verdict.score),
            threshold: figure(verdict.threshold),
        },
        None => BlockView {
            text,
            pieces,
            kept: true,
            rule: None,
            score: None,
            threshold: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{DetectorKind, Rule};
    use crate::run::test_support::{FOOTER, MENU, content, html_response, page_html, page_url};
    use crate::serve::test_support::built_index;

    /// A catalog of one index of six pages of a.example without their footer, decided by
    /// `bloom` (which drops the menu of every page), and the first page's stored fields.
    fn first_page(dir: &std::path::Path) -> (Catalog, FoundPage) {
        let footer = format!("<footer>{FOOTER}</footer>");
        let records: Vec<Vec<u8>> = (0..6)
            .map(|n| {
                let html = page_html(&format!("Chapter {n} of a.example"), &content(n));
                html_response(&page_url("a.example", n), &html.replace(&footer, ""))
            })
            .collect();
        let (index, _) = built_index(dir, "index", &records, DetectorKind::Bloom);
        let catalog = Catalog::open(&[index]).unwrap();
        let page = catalog
            .page(&page_url("a.example", 0), None)
            .unwrap()
            .unwrap();
        (catalog, page)
    }

    #[test]
    fn the_view_pairs_each_block_with_its_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let (catalog, page) = first_page(dir.path());
        let view = PageView::of(&catalog, page);
        assert_eq!(view.unavailable, None);
        let blocks: Vec<(&str, bool, Option<&str>)> = view
            .blocks
            .iter()
            .map(|block| (block.text.as_str(), block.kept, block.rule))
            .collect();
        let content = content(0);
        assert_eq!(
            blocks,
            [
                (MENU, false, Some("template_word_ratio")),
                (
                    "Chapter 0 of a.example",
                    true,
                    Some("heading_of_kept_block")
                ),
                (content.as_str(), true, Some("template_word_ratio")),
            ]
        );
        for block in &view.blocks {
            if block.kept {
                // A version 2 record keeps no score for a kept block.
                assert_eq!(block.score, None);
            } else {
                assert_eq!(block.threshold, Some(0.8));
                assert!(block.score.is_some_and(|score| score >= 0.8), "{block:?}");
            }
        }
        let kept: Vec<&str> = view
            .blocks
            .iter()
            .filter(|b| b.kept)
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(kept.join("\n"), view.kept_text);
        assert_eq!((view.kept_blocks, view.dropped_blocks), (2, 1));
        assert_eq!(view.detector, "bloom");
        assert_eq!(view.site, "a.example");
        assert_eq!(view.source.as_ref().map(|source| source.offset), Some(0));
    }

    #[test]
    fn a_view_says_why_it_cannot_show_the_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let (catalog, page) = first_page(dir.path());
        let (path, _) = page.source.clone().unwrap();
        let two_verdicts = DecisionRecord::of(&[Verdict::kept(Rule::KEEPS_EVERYTHING); 2]);
        let later_record = std::fs::read(&path).unwrap().len() as u64 / 2;
        let cases: [(FoundPage, &str); 6] = [
            (
                FoundPage {
                    decisions: None,
                    ..page.clone()
                },
                "the index keeps no decision record",
            ),
            (
                FoundPage {
                    decisions: Some(vec![9, 9]),
                    ..page.clone()
                },
                "not a decision record: unknown version",
            ),
            (
                FoundPage {
                    source: None,
                    ..page.clone()
                },
                "the index does not say where the page came from",
            ),
            (
                FoundPage {
                    source: Some((dir.path().join("gone.warc"), 0)),
                    ..page.clone()
                },
                "gone.warc is no longer there",
            ),
            (
                FoundPage {
                    source: Some((path.clone(), later_record)),
                    ..page.clone()
                },
                &format!("the record is no longer at byte {later_record} of the source"),
            ),
            (
                FoundPage {
                    decisions: Some(two_verdicts.to_bytes()),
                    ..page.clone()
                },
                "the source now segments into 3 blocks where the build decided 2 blocks",
            ),
        ];
        for (stored, reason) in cases {
            let view = PageView::of(&catalog, stored);
            let unavailable = view.unavailable.as_deref().unwrap_or_default();
            assert!(
                unavailable.contains(reason),
                "{unavailable:?}, not {reason:?}"
            );
            assert!(view.blocks.is_empty());
            assert_eq!(view.kept_text, page.body, "the kept text as indexed, still");
        }
    }

    #[test]
    fn a_block_shows_the_figures_its_verdict_has() {
        let dropped = block_view(
            "menu".into(),
            Vec::new(),
            Some(Verdict::scored(
                false,
                crate::detect::bloom::TEMPLATE_WORD_RATIO,
                0.9,
                0.8,
            )),
        );
        assert_eq!(
            (dropped.kept, dropped.rule),
            (false, Some("template_word_ratio"))
        );
        assert_eq!((dropped.score, dropped.threshold), (Some(0.9), Some(0.8)));
        let kept = block_view(
            "text".into(),
            Vec::new(),
            Some(Verdict::kept(crate::detect::sandwich::NO_PEER)),
        );
        assert_eq!((kept.kept, kept.rule), (true, Some("no_peer")));
        assert_eq!((kept.score, kept.threshold), (None, None));
        let infinite = block_view(
            String::new(),
            Vec::new(),
            Some(Verdict::scored(
                false,
                crate::detect::sandwich::NO_PEER,
                f32::INFINITY,
                1.0,
            )),
        );
        assert_eq!((infinite.score, infinite.threshold), (None, Some(1.0)));
    }
}
