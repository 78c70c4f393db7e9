//! dolma out: a [`DecidedPage`] in, a row of dolma's `documents` and the row-aligned row of its
//! `attributes/indexer` out. The document holds the page's whole visible text (every block
//! kept, laid out as `extract` lays out the kept text), so that a decision can be taken
//! again later without extracting again; the attributes hold spans of that text,
//! `[start, end, score]` in characters (as dolma's Python counts them):
//!
//! - [`PROBABILITY_ATTRIBUTE`]: one span per block, from its first character to its last, with
//!   the probability that it is template (1 − the model's content probability for `hybrid`;
//!   1 or 0, as decided, for a rule that has no probability);
//! - [`DROPPED_ATTRIBUTE`]: the text cut in runs, each of one block's text (with the spaces
//!   and line ends after it), scored 1 where the run is not in the kept text and 0 where it
//!   is. Keeping the runs scored 0 — dolma's mixer replacing the spans scored 1 with nothing
//!   — gives `extract`'s text exactly.
//!
//! The runs come from matching the kept text against the whole text, each block's characters
//! against the same block's and the separators between blocks against separators. Where the
//! kept text is laid out otherwise than the whole (a table whose kept cells no longer make a
//! data table: 6 of the 5,375 pages of the shared docs, articles and lone pages), the
//! document's text is the kept text with each dropped block's text put in on a line of its
//! own, and the page is counted ([`DolmaRow::laid_out_whole`]): the dropped spans still give
//! the kept text exactly.

use serde::Serialize;

use super::ExtractedPage;
use crate::detect::Verdict;
use crate::run::DecidedPage;
use crate::segment::{BlockRun, NO_BLOCK};

/// The attribute of each block's probability of being template.
pub const PROBABILITY_ATTRIBUTE: &str = "indexer__template__probability";
/// The attribute of the runs of the text not kept (1) and kept (0).
pub const DROPPED_ATTRIBUTE: &str = "indexer__template__dropped";

/// A span of a document's text, in characters, with its score.
pub type Span = (usize, usize, f64);

/// A page's whole text and the spans of its blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct SpannedText {
    /// Every block's text, laid out.
    pub text: String,
    /// Each block's span with its probability of being template ([`PROBABILITY_ATTRIBUTE`]).
    pub probability: Vec<Span>,
    /// The runs of the text, 1 where not kept ([`DROPPED_ATTRIBUTE`]).
    pub dropped: Vec<Span>,
    /// Whether the text is laid out as `extract` lays out a page with every block kept; if
    /// not, it is the kept text with each dropped block's text on a line of its own after the
    /// kept text before it (a page whose kept text is not its whole text with parts cut out).
    pub laid_out_whole: bool,
}

/// The block each byte of a text of `length` bytes was written from.
fn byte_blocks(length: usize, runs: &[BlockRun]) -> Vec<u32> {
    let mut blocks = vec![NO_BLOCK; length];
    for run in runs {
        blocks[run.start..run.end].fill(run.block);
    }
    blocks
}

/// Which bytes of `whole` the bytes of `kept` are, matched in order, each byte to one of the
/// same value written from the same block (a separator to a separator); `None` when `kept`
/// does not match so.
fn match_kept(
    whole: &[u8],
    whole_blocks: &[u32],
    kept: &[u8],
    kept_blocks: &[u32],
) -> Option<Vec<bool>> {
    let mut matched = vec![false; whole.len()];
    let mut at = 0;
    for (&byte, &block) in kept.iter().zip(kept_blocks) {
        while at < whole.len() && (whole[at] != byte || whole_blocks[at] != block) {
            at += 1;
        }
        if at == whole.len() {
            return None;
        }
        matched[at] = true;
        at += 1;
    }
    Some(matched)
}

/// The probability that a block decided so is template.
fn template_probability(verdict: &Verdict) -> f64 {
    if verdict.rule == crate::detect::hybrid::CONTENT_PROBABILITY && verdict.score.is_finite() {
        let content = f64::from(verdict.score).clamp(0.0, 1.0);
        return ((1.0 - content) * 1e4).round() / 1e4;
    }
    if verdict.keep { 0.0 } else { 1.0 }
}

/// `decided`'s whole text and its spans.
pub fn spanned_text(decided: &DecidedPage) -> SpannedText {
    let (whole, whole_runs) = decided.page.text_by_block(|_| true);
    let keep = |block: usize| {
        decided
            .verdicts
            .get(block)
            .is_some_and(|verdict| verdict.keep)
    };
    let (kept, kept_runs) = decided.page.text_by_block(keep);
    let whole_blocks = byte_blocks(whole.len(), &whole_runs);
    let kept_blocks = byte_blocks(kept.len(), &kept_runs);
    let matched = match_kept(
        whole.as_bytes(),
        &whole_blocks,
        kept.as_bytes(),
        &kept_blocks,
    )
    .filter(|matched| runs_fall_on_characters(&whole, matched));
    let laid_out_whole = matched.is_some();
    let (whole, whole_runs, whole_blocks, matched) = match matched {
        Some(matched) => (whole, whole_runs, whole_blocks, matched),
        None => {
            let (whole, whole_runs, matched) = interleaved(decided, &kept, &kept_runs);
            let whole_blocks = byte_blocks(whole.len(), &whole_runs);
            (whole, whole_runs, whole_blocks, matched)
        }
    };
    let characters = CharacterOffsets::of(&whole);

    let mut probability = Vec::new();
    let mut first_run = 0;
    while first_run < whole_runs.len() {
        let block = whole_runs[first_run].block;
        let mut last_run = first_run;
        while last_run + 1 < whole_runs.len() && whole_runs[last_run + 1].block == block {
            last_run += 1;
        }
        if let Some(verdict) = decided.verdicts.get(block as usize) {
            probability.push((
                characters.at(whole_runs[first_run].start),
                characters.at(whole_runs[last_run].end),
                template_probability(verdict),
            ));
        }
        first_run = last_run + 1;
    }

    // Runs of one block (a separator belongs to the block written before it) and one match.
    let mut dropped = Vec::new();
    let mut owner = whole_blocks.iter().copied().find(|&b| b != NO_BLOCK);
    let mut start = 0;
    for at in 1..=whole.len() {
        let next_owner = match whole_blocks.get(at) {
            Some(&block) if block != NO_BLOCK => Some(block),
            _ => owner,
        };
        let ends = at == whole.len()
            || matched[at] != matched[start]
            || (next_owner != owner && whole_blocks[at] != NO_BLOCK);
        if ends {
            let score = if matched[start] { 0.0 } else { 1.0 };
            dropped.push((characters.at(start), characters.at(at), score));
            start = at;
        }
        owner = next_owner;
    }
    SpannedText {
        text: whole,
        probability,
        dropped,
        laid_out_whole,
    }
}

/// The kept text with each dropped block's text put in on a line of its own after the kept
/// text before it: what stands for the whole text when the kept text is not the whole text
/// with parts cut out (a table laid out otherwise once some of its cells are dropped). Its
/// runs, and which of its bytes are the kept text's.
fn interleaved(
    decided: &DecidedPage,
    kept: &str,
    kept_runs: &[BlockRun],
) -> (String, Vec<BlockRun>, Vec<bool>) {
    let mut out = Interleaving {
        kept,
        kept_runs,
        text: String::with_capacity(kept.len() * 2),
        runs: Vec::new(),
        matched: Vec::with_capacity(kept.len() * 2),
        copied: 0,
        next_kept: 0,
    };
    let blocks = decided.page.blocks.iter().zip(&decided.verdicts);
    for (index, (block, verdict)) in blocks.enumerate() {
        if verdict.keep || block.text.is_empty() {
            continue;
        }
        // After the last kept run of a block before this one.
        let before = kept_runs.partition_point(|run| (run.block as usize) < index);
        let after = before.checked_sub(1).map_or(0, |last| kept_runs[last].end);
        out.copy_kept(after);
        if !out.text.is_empty() {
            out.text.push('\n');
        }
        let start = out.text.len();
        out.text.push_str(&block.text);
        out.runs.push(BlockRun {
            start,
            end: out.text.len(),
            block: index as u32,
        });
        if start == 0 {
            out.text.push('\n');
        }
        out.matched.resize(out.text.len(), false);
    }
    out.copy_kept(kept.len());
    (out.text, out.runs, out.matched)
}

/// [`interleaved`]'s text as it is written.
struct Interleaving<'a> {
    kept: &'a str,
    kept_runs: &'a [BlockRun],
    text: String,
    runs: Vec<BlockRun>,
    matched: Vec<bool>,
    /// Bytes of the kept text copied so far.
    copied: usize,
    /// The first of `kept_runs` not copied yet.
    next_kept: usize,
}

impl Interleaving<'_> {
    /// Copies the kept text up to byte `to` (if not copied yet), with its runs.
    fn copy_kept(&mut self, to: usize) {
        let to = to.max(self.copied);
        let shift = self.text.len() - self.copied;
        self.text.push_str(&self.kept[self.copied..to]);
        self.matched.resize(self.text.len(), true);
        while let Some(run) = self
            .kept_runs
            .get(self.next_kept)
            .filter(|run| run.end <= to)
        {
            self.runs.push(BlockRun {
                start: run.start + shift,
                end: run.end + shift,
                block: run.block,
            });
            self.next_kept += 1;
        }
        self.copied = to;
    }
}

/// Whether every change between matched and unmatched bytes falls between two characters.
fn runs_fall_on_characters(text: &str, matched: &[bool]) -> bool {
    (1..matched.len())
        .filter(|&at| matched[at] != matched[at - 1])
        .all(|at| text.is_char_boundary(at))
}

/// Byte offsets of a text to character offsets.
struct CharacterOffsets {
    /// The byte offset of each character, and the text's length last.
    starts: Vec<usize>,
}

impl CharacterOffsets {
    fn of(text: &str) -> CharacterOffsets {
        let mut starts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
        starts.push(text.len());
        CharacterOffsets { starts }
    }

    /// The character at byte `offset` (the first character after it, inside a character).
    fn at(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start < offset)
    }
}

/// One page as dolma rows: the document and its attributes.
#[derive(Debug, Clone)]
pub struct DolmaRow {
    /// The `documents` row, as one JSON line (no line end).
    pub document: String,
    /// The `attributes/indexer` row, as one JSON line (no line end).
    pub attributes: String,
    /// Whether the text is laid out whole ([`SpannedText::laid_out_whole`]).
    pub laid_out_whole: bool,
}

/// The dolma rows of `decided`, whose kept text `extract` wrote as `page`, added at
/// `added` (RFC 3339) by a run of `detector`.
pub fn dolma_row(
    decided: &DecidedPage,
    page: &ExtractedPage,
    added: &str,
    detector: &str,
) -> serde_json::Result<DolmaRow> {
    #[derive(Serialize)]
    struct Metadata<'a> {
        url: &'a str,
        site: &'a str,
        title: &'a str,
        record_id: Option<&'a str>,
        warc_filename: Option<&'a str>,
        warc_record_offset: Option<u64>,
        warc_record_length: Option<u64>,
        charset: &'a str,
        lang: Option<&'a str>,
        language_score: Option<f64>,
        detector: &'a str,
        blocks_kept: usize,
        blocks_dropped: usize,
    }
    #[derive(Serialize)]
    struct Document<'a> {
        id: &'a str,
        text: &'a str,
        source: &'a str,
        added: &'a str,
        created: &'a str,
        metadata: Metadata<'a>,
    }
    #[derive(Serialize)]
    struct Attributes<'a> {
        id: &'a str,
        source: &'a str,
        attributes: serde_json::Value,
    }
    let spanned = spanned_text(decided);
    let id = page.record_id.as_deref().unwrap_or(&page.url);
    let document = Document {
        id,
        text: &spanned.text,
        source: SOURCE,
        added,
        created: page.date.as_deref().unwrap_or(added),
        metadata: Metadata {
            url: &page.url,
            site: &page.site,
            title: &page.title,
            record_id: page.record_id.as_deref(),
            warc_filename: page.warc_filename.as_deref(),
            warc_record_offset: page.warc_record_offset,
            warc_record_length: page.warc_record_length,
            charset: page.charset,
            lang: page.lang,
            language_score: page.language_score,
            detector,
            blocks_kept: page.blocks_kept,
            blocks_dropped: page.blocks_dropped,
        },
    };
    let attributes = Attributes {
        id,
        source: SOURCE,
        attributes: serde_json::json!({
            PROBABILITY_ATTRIBUTE: spanned.probability,
            DROPPED_ATTRIBUTE: spanned.dropped,
        }),
    };
    Ok(DolmaRow {
        document: serde_json::to_string(&document)?,
        attributes: serde_json::to_string(&attributes)?,
        laid_out_whole: spanned.laid_out_whole,
    })
}

/// The `source` of every row.
const SOURCE: &str = "indexer";

#[cfg(test)]
mod tests {
    use super::*;

    /// The text left when the spans scored 1 are cut out of `text` (character spans).
    fn without_dropped(text: &str, dropped: &[Span]) -> String {
        let characters: Vec<char> = text.chars().collect();
        let mut out = String::new();
        for &(start, end, score) in dropped {
            if score < 0.5 {
                out.extend(&characters[start.min(characters.len())..end.min(characters.len())]);
            }
        }
        out
    }

    #[test]
    fn kept_bytes_match_their_own_block_and_separators_match_separators() {
        let whole = b"ab cd";
        let whole_blocks = [0, 0, NO_BLOCK, 1, 1];
        // "ab" kept alone: the space after it is not kept.
        let matched = match_kept(whole, &whole_blocks, b"ab", &[0, 0]).unwrap();
        assert_eq!(matched, [true, true, false, false, false]);
        // "b" of block 1 is not in the whole text: no match.
        assert!(match_kept(whole, &whole_blocks, b"b", &[1]).is_none());
    }

    #[test]
    fn character_offsets_count_characters() {
        let offsets = CharacterOffsets::of("é a");
        assert_eq!(offsets.at(0), 0);
        assert_eq!(offsets.at(2), 1);
        assert_eq!(offsets.at(4), 3);
    }

    /// `html` segmented as one page, every block kept but those `dropped`.
    fn page_dropping(html: &str, dropped: &[usize]) -> DecidedPage {
        let options = crate::run::BuildOptions {
            detector: crate::detect::DetectorKind::None,
            ..Default::default()
        };
        let input = crate::run::PageInput::Html(html);
        let mut decided = crate::run::decide_page(input, "http://a.example/", &options).unwrap();
        for &block in dropped {
            decided.verdicts[block] = Verdict::dropped(crate::detect::Rule::KEEPS_EVERYTHING);
        }
        decided
    }

    /// The whole text's characters in the runs not dropped.
    fn kept_runs(spanned: &SpannedText) -> String {
        without_dropped(&spanned.text, &spanned.dropped)
    }

    #[test]
    fn the_kept_runs_of_the_whole_text_are_the_kept_text() {
        let html = "<h1>Otters</h1><nav><a href=/>Home</a> <a href=/b>Blog</a></nav>\
                    <p>Sea otters hold hands.</p><ul><li>One</li><li>Two</li></ul>\
                    <pre>fn main() {\n    hold();\n}</pre><footer>© 2026 Otters</footer>";
        let all = page_dropping(html, &[]);
        let blocks = all.page.blocks.len();
        assert!(blocks >= 5, "{:?}", all.page.blocks);
        for dropped in [vec![], vec![1], vec![0, blocks - 1], (0..blocks).collect()] {
            let decided = page_dropping(html, &dropped);
            let spanned = spanned_text(&decided);
            assert!(spanned.laid_out_whole);
            assert_eq!(spanned.text, all.kept_text(), "the whole text");
            assert_eq!(
                kept_runs(&spanned),
                decided.kept_text(),
                "dropping {dropped:?}"
            );
            assert_eq!(spanned.probability.len(), blocks);
        }
    }

    #[test]
    fn a_table_laid_out_otherwise_once_cells_go_gives_the_kept_text_with_the_rest_put_in() {
        // A cell of two paragraphs makes a layout table (each block a line); with one of them
        // dropped, the table is a data table (a row a line, its cells tab-separated).
        let html = "<table><tr><td><p>alpha one</p><p>alpha two</p></td><td>beta</td></tr>\
                    <tr><td>gamma</td><td>delta</td></tr></table>";
        let all = page_dropping(html, &[]);
        let second = (all.page.blocks.iter())
            .position(|block| block.text.contains("alpha two"))
            .unwrap();
        let decided = page_dropping(html, &[second]);
        let spanned = spanned_text(&decided);
        assert_ne!(
            decided.kept_text().lines().count(),
            all.kept_text().lines().count()
        );
        assert!(!spanned.laid_out_whole, "{:?}", spanned.text);
        assert_eq!(kept_runs(&spanned), decided.kept_text());
        assert!(spanned.text.contains(&all.page.blocks[second].text));
        let words = |text: &str| {
            let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            words.sort();
            words
        };
        assert_eq!(words(&spanned.text), words(&all.kept_text()));
    }

    #[test]
    fn cutting_the_dropped_spans_keeps_the_rest() {
        let spans = [(0, 2, 0.0), (2, 5, 1.0), (5, 7, 0.0)];
        assert_eq!(without_dropped("éa--xyz", &spans), "éayz");
    }
}
