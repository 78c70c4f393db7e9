//! Features: one segmented page (its blocks with their [`BlockEvidence`]) and what the site's
//! pages say about each block ([`SiteEvidence`]) in, one fixed-length row of numbers per block
//! out — what the classifier reads. The layout (names and order) is versioned with the model:
//! a model trained on another layout is refused.
//!
//! Page evidence: size, link density, punctuation, the elements around the block, its tag and
//! heading level, position and depth, overlap with the page's title, class and id names
//! (hashed into [`TOKEN_BUCKETS`] features, learned rather than listed), a few of the same
//! figures of the neighbouring blocks, because boilerplate and content come in runs, and where
//! the block stands to the page's main region (the element whose own blocks hold the most
//! words outside links).
//!
//! Site evidence: `bloom`'s template-word ratio, the share of the site's pages that carry the
//! block's exact text, the share that carry its style, and how many pages the site has — so a
//! site seen once falls back to page evidence alone.

use rustc_hash::FxHashMap;

use crate::detect::title::{self, TitleOverlap};
use crate::segment::evidence::{MAX_ANCESTORS, TAG_CODES, context};
use crate::segment::{Block, SegmentedPage};

/// Buckets the class and id tokens are hashed into ([`BlockEvidence::token_bits`]).
///
/// [`BlockEvidence::token_bits`]: crate::segment::BlockEvidence::token_bits
pub const TOKEN_BUCKETS: usize = u64::BITS as usize;

/// Row index of `heading_level`.
pub const HEADING_LEVEL: usize = 8;
/// Row index of `title_words_in_block`.
pub const TITLE_WORDS_IN_BLOCK: usize = 15;
/// Row index of `block_words_in_title`.
pub const BLOCK_WORDS_IN_TITLE: usize = 16;

/// Whether a row is a heading made mostly of the page's own title words
/// ([`title::is_title_heading`]).
pub fn is_title_heading(row: &[f32]) -> bool {
    title::is_title_heading(
        row[HEADING_LEVEL] > 0.0,
        row[TITLE_WORDS_IN_BLOCK],
        row[BLOCK_WORDS_IN_TITLE],
    )
}

/// Figures of one block from the site's other pages.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SiteEvidence {
    /// `bloom`'s share of the block's words that are template words (0 with no model).
    pub template_word_ratio: f32,
    /// Pages of the site that hold a block with exactly this text.
    pub text_pages: u32,
    /// Pages of the site that hold a block of this style.
    pub style_pages: u32,
    /// Pages of the site learned.
    pub site_pages: u32,
}

/// Names of the features, in row order; the model file stores them and must match.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = [
        "log_words",
        "log_text_bytes",
        "link_density",
        "sentence_ends_per_word",
        "commas_per_word",
        "ends_with_sentence_end",
        "digit_share",
        "uppercase_start",
        "heading_level",
        "depth",
        "position",
        "position_from_end",
        "log_index",
        "log_page_blocks",
        "share_of_page_words",
        "title_words_in_block",
        "block_words_in_title",
        "prev_log_words",
        "prev_link_density",
        "next_log_words",
        "next_link_density",
        "window_log_words",
        "window_link_density",
        "site_template_word_ratio",
        "site_text_page_share",
        "site_style_page_share",
        "site_log_pages",
        "site_text_log_pages",
        "region1_log_words",
        "region1_link_density",
        "region2_log_words",
        "region2_link_density",
        "region3_log_words",
        "region3_link_density",
        "region2_share_of_page_words",
        "levels_to_main_block",
        "is_main_block",
        "offset_from_main_region",
    ]
    .iter()
    .map(|name| name.to_string())
    .collect();
    for bit in 0..context::COUNT {
        names.push(format!("context_{bit}"));
    }
    for code in 0..TAG_CODES {
        names.push(format!("tag_{code}"));
    }
    for bucket in 0..TOKEN_BUCKETS {
        names.push(format!("class_token_{bucket}"));
    }
    names
}

/// How many features a row has.
pub fn count() -> usize {
    38 + context::COUNT + TAG_CODES + TOKEN_BUCKETS
}

/// What is measured of one block alone.
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    words: usize,
    text_bytes: usize,
    link_bytes: usize,
}

impl Shape {
    fn of(block: &Block, words: usize) -> Self {
        Shape {
            words,
            text_bytes: block.text.len(),
            link_bytes: block.evidence.link_bytes as usize,
        }
    }

    fn link_density(self) -> f32 {
        if self.text_bytes == 0 {
            0.0
        } else {
            (self.link_bytes as f32 / self.text_bytes as f32).min(1.0)
        }
    }
}

fn log1p(value: usize) -> f32 {
    (value as f32).ln_1p()
}

/// One row per block of `page`, in block order, [`count`] features each, one after the other
/// in a single vector (`chunks_exact(count())` gives the rows). `site` gives each block's site evidence;
/// `overlap` is [`TitleOverlap::of`] the page, and `own` says which of its title words are
/// the page's own rather than the site's (its name, its tagline).
pub fn rows(
    page: &SegmentedPage,
    site: &[SiteEvidence],
    overlap: &TitleOverlap,
    own: &[bool],
) -> Vec<f32> {
    let title_shares = overlap.shares(own);
    let block_words = |at: usize| overlap.block_words.get(at).copied().unwrap_or(0) as usize;
    let shapes: Vec<Shape> = page
        .blocks
        .iter()
        .enumerate()
        .map(|(at, block)| Shape::of(block, block_words(at)))
        .collect();
    let page_words: usize = shapes.iter().map(|shape| shape.words).sum::<usize>().max(1);
    let blocks = page.blocks.len();
    // Regions: every element that is an ancestor of some block, with the text inside it.
    let mut regions: FxHashMap<u32, Shape> = FxHashMap::default();
    for (block, shape) in page.blocks.iter().zip(&shapes) {
        for &element in block.evidence.ancestors.iter() {
            let region = regions.entry(element).or_default();
            region.words += shape.words;
            region.text_bytes += shape.text_bytes;
            region.link_bytes += shape.link_bytes;
        }
    }
    let region = |block: &Block, level: usize| {
        block
            .evidence
            .ancestors
            .get(level)
            .and_then(|element| regions.get(element).copied())
            .unwrap_or_default()
    };
    // The main region: the element whose own blocks hold the most words outside links (an
    // article's paragraphs share one parent; a comment thread's are spread over one per
    // entry); the main block: its block with the most such words.
    let unlinked_words =
        |shape: &Shape| ((1.0 - shape.link_density()) * shape.words as f32) as usize;
    let parent_of = |block: &Block| block.evidence.ancestors.get(1).copied().unwrap_or(u32::MAX);
    let mut parent_words: FxHashMap<u32, usize> = FxHashMap::default();
    for (block, shape) in page.blocks.iter().zip(&shapes) {
        *parent_words.entry(parent_of(block)).or_default() += unlinked_words(shape);
    }
    let main_region = page
        .blocks
        .iter()
        .map(parent_of)
        .enumerate()
        .max_by_key(|&(at, parent)| (parent_words[&parent], std::cmp::Reverse(at)))
        .map(|(_, parent)| parent);
    let in_main_region = |at: &usize| Some(parent_of(&page.blocks[*at])) == main_region;
    let main = (0..blocks)
        .filter(in_main_region)
        .max_by_key(|&at| (unlinked_words(&shapes[at]), std::cmp::Reverse(at)));
    let main_span = (
        (0..blocks).find(in_main_region).unwrap_or(0),
        (0..blocks).rfind(in_main_region).unwrap_or(0),
    );
    let main_ancestors: &[u32] = main.map_or(&[], |at| &page.blocks[at].evidence.ancestors);
    let width = count();
    let mut rows = vec![0.0f32; blocks * width];
    for (index, block) in page.blocks.iter().enumerate() {
        let row = &mut rows[index * width..(index + 1) * width];
        let shape = shapes[index];
        let (title_in_block, block_in_title) = title_shares[index];
        let text = block.text.as_str();
        let (mut sentence_ends, mut commas, mut digits, mut characters) = (0, 0, 0, 0usize);
        for c in text.chars() {
            characters += 1;
            match c {
                '.' | '!' | '?' | '。' | '！' | '？' => sentence_ends += 1,
                ',' | '，' | '、' => commas += 1,
                '0'..='9' => digits += 1,
                _ => {}
            }
        }
        let characters = characters.max(1);
        let per_word = |count: usize| count as f32 / shape.words.max(1) as f32;
        let neighbour = |at: Option<usize>| at.and_then(|at| shapes.get(at).copied());
        let previous = neighbour(index.checked_sub(1)).unwrap_or_default();
        let next = neighbour(Some(index + 1)).unwrap_or_default();
        let window =
            (index.saturating_sub(2)..(index + 3).min(blocks)).fold(Shape::default(), |sum, at| {
                Shape {
                    words: sum.words + shapes[at].words,
                    text_bytes: sum.text_bytes + shapes[at].text_bytes,
                    link_bytes: sum.link_bytes + shapes[at].link_bytes,
                }
            });
        let evidence = site.get(index).copied().unwrap_or_default();
        let levels_to_main = block
            .evidence
            .ancestors
            .iter()
            .position(|element| main_ancestors.contains(element))
            .unwrap_or(MAX_ANCESTORS);
        let (region1, region2, region3) = (region(block, 1), region(block, 2), region(block, 3));
        let site_pages = evidence.site_pages.max(1) as f32;
        let values = [
            log1p(shape.words),
            log1p(shape.text_bytes),
            shape.link_density(),
            per_word(sentence_ends),
            per_word(commas),
            f32::from(text.ends_with(['.', '!', '?', '。', '！', '？', ':'])),
            digits as f32 / characters as f32,
            f32::from(text.chars().next().is_some_and(char::is_uppercase)),
            f32::from(block.evidence.heading_level),
            f32::from(block.evidence.depth),
            index as f32 / blocks as f32,
            (blocks - index) as f32 / blocks as f32,
            log1p(index),
            log1p(blocks),
            shape.words as f32 / page_words as f32,
            title_in_block,
            block_in_title,
            log1p(previous.words),
            previous.link_density(),
            log1p(next.words),
            next.link_density(),
            log1p(window.words),
            window.link_density(),
            evidence.template_word_ratio,
            evidence.text_pages as f32 / site_pages,
            evidence.style_pages as f32 / site_pages,
            log1p(evidence.site_pages as usize),
            log1p(evidence.text_pages as usize),
            log1p(region1.words),
            region1.link_density(),
            log1p(region2.words),
            region2.link_density(),
            log1p(region3.words),
            region3.link_density(),
            region2.words as f32 / page_words as f32,
            levels_to_main as f32,
            f32::from(main == Some(index)),
            if index < main_span.0 {
                (index as f32 - main_span.0 as f32) / blocks as f32
            } else {
                index.saturating_sub(main_span.1) as f32 / blocks as f32
            },
        ];
        row[..values.len()].copy_from_slice(&values);
        let mut at = values.len();
        for bit in 0..context::COUNT {
            row[at + bit] = f32::from(block.evidence.context & (1 << bit) != 0);
        }
        at += context::COUNT;
        row[at + usize::from(block.evidence.tag).min(TAG_CODES - 1)] = 1.0;
        at += TAG_CODES;
        for bucket in 0..TOKEN_BUCKETS {
            if block.evidence.token_bits & (1 << bucket) != 0 {
                row[at + bucket] = 1.0;
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{SegmentOptions, WordId};

    #[test]
    fn names_match_the_row_length() {
        assert_eq!(names().len(), count());
        assert_eq!(names()[HEADING_LEVEL], "heading_level");
        assert_eq!(names()[TITLE_WORDS_IN_BLOCK], "title_words_in_block");
        assert_eq!(names()[BLOCK_WORDS_IN_TITLE], "block_words_in_title");
        let page = crate::detect::test_page(
            "http://a.example/x",
            "<title>Guide to caching</title><nav class=site-nav><a href=/>Home</a></nav>\
             <main><h1>Caching</h1><p>Caching keeps results. It saves time, and work.</p></main>",
            SegmentOptions {
                evidence: true,
                ..SegmentOptions::default()
            },
        );
        let overlap = TitleOverlap::of(&page);
        let to = WordId::of("to").0;
        let own: Vec<bool> = overlap.title.iter().map(|&(word, _)| word != to).collect();
        assert_eq!(own, [true, false, true]);
        let flat = rows(&page, &[], &overlap, &own);
        let rows: Vec<&[f32]> = flat.chunks_exact(count()).collect();
        assert_eq!(rows.len(), page.blocks.len());
        let name = |wanted: &str| names().iter().position(|n| n == wanted).unwrap();
        let nav = &rows[0];
        assert_eq!(nav[name("link_density")], 1.0);
        assert_eq!(
            nav[name(&format!("context_{}", context::NAV.trailing_zeros()))],
            1.0
        );
        let heading = &rows[1];
        assert_eq!(heading[name("heading_level")], 1.0);
        assert_eq!(heading[name("block_words_in_title")], 1.0);
        assert!(is_title_heading(heading));
        assert!(!is_title_heading(nav));
        let paragraph = &rows[2];
        assert!(paragraph[name("sentence_ends_per_word")] > 0.2);
        assert_eq!(paragraph[name("link_density")], 0.0);
        assert_eq!(paragraph[name("is_main_block")], 1.0);
        // The heading shares the paragraph's parent (<main>): one level up.
        assert_eq!(heading[name("levels_to_main_block")], 1.0);
        assert!(nav[name("levels_to_main_block")] > 1.0);
    }
}
