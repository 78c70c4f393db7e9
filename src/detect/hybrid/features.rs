//! Features: one segmented page (its blocks with their [`BlockEvidence`]) and what the site's
//! pages say about each block ([`SiteEvidence`]) in, one fixed-length row of numbers per block
//! out — what the classifier reads. The layout (names and order) is versioned with the model:
//! a model trained on another layout is refused.
//!
//! [`BlockEvidence`]: crate::segment::BlockEvidence
//!
//! Page evidence: size, link density, punctuation, words that read as code, the elements
//! around the block, its tag and heading level, position and depth, overlap with the page's
//! title, class and id names (hashed into [`TOKEN_BUCKETS`] features, learned rather than
//! listed), a few of the same figures of the neighbouring blocks, because boilerplate and
//! content come in runs, and where the block stands to the page's main region (the element
//! whose own blocks hold the most words outside links).
//!
//! Page kind: the same figures for every block of a page — the share of its words that read
//! as code, that sit in table cells, list items or code elements, its link density, sentence
//! ends per word and headings, and the share of its words outside links that the main region
//! holds. A reference entry and an article's related-links box look alike as blocks; the pages
//! around them do not, and on a lone page nothing else tells them apart.
//!
//! Site evidence: `bloom`'s template-word ratio, the share of the site's pages that carry the
//! block's exact text, the share that carry its style, and how many pages the site has — so a
//! site seen once falls back to page evidence alone. The text's share of the page's URL
//! directory stands for the site's when it is larger (and the directory holds a few pages),
//! with the directory's page count beside it: a section of a site (one manual of a
//! documentation site) often has a template of its own, on every page of the section and on
//! few of the site's.

use rustc_hash::FxHashMap;

use crate::detect::title::{self, TitleOverlap};
use crate::segment::evidence::{MAX_ANCESTORS, TAG_CODES, context};
use crate::segment::{Block, SegmentedPage};

/// Buckets the class and id tokens are hashed into ([`BlockEvidence::token_bits`]).
///
/// [`BlockEvidence::token_bits`]: crate::segment::BlockEvidence::token_bits
pub const TOKEN_BUCKETS: usize = u64::BITS as usize;

/// Pages a URL directory must hold for its share to stand for the section's.
const MIN_SECTION_PAGES: u32 = 3;

/// Row index of `heading_level`.
pub const HEADING_LEVEL: usize = feature_index("heading_level");
/// Row index of `title_words_in_block`.
pub const TITLE_WORDS_IN_BLOCK: usize = feature_index("title_words_in_block");
/// Row index of `block_words_in_title`.
pub const BLOCK_WORDS_IN_TITLE: usize = feature_index("block_words_in_title");

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
    /// Pages of the page's URL directory that hold a block with exactly this text.
    pub directory_text_pages: u32,
    /// Pages of the page's URL directory learned.
    pub directory_pages: u32,
}

/// One feature: its name, as the model file stores it, and its value for a block (`b`, the
/// block's [`BlockContext`]).
type Feature = (&'static str, fn(&BlockContext<'_>) -> f32);

/// The features computed one by one, in row order; the context bits, tag codes and class
/// token buckets follow them ([`names`]).
const FEATURES: [Feature; 52] = [
    ("log_words", |b| log1p(b.shape.words)),
    ("log_text_bytes", |b| log1p(b.shape.text_bytes)),
    ("link_density", |b| b.shape.link_density()),
    ("sentence_ends_per_word", |b| {
        b.per_word(b.marks.sentence_ends)
    }),
    ("commas_per_word", |b| b.per_word(b.marks.commas)),
    ("ends_with_sentence_end", |b| {
        f32::from(b.text().ends_with(['.', '!', '?', '。', '！', '？', ':']))
    }),
    ("digit_share", |b| {
        b.marks.digits as f32 / b.marks.characters as f32
    }),
    ("uppercase_start", |b| {
        f32::from(b.text().chars().next().is_some_and(char::is_uppercase))
    }),
    ("heading_level", |b| {
        f32::from(b.block.evidence.heading_level)
    }),
    ("depth", |b| f32::from(b.block.evidence.depth)),
    ("position", |b| b.index as f32 / b.page.blocks as f32),
    ("position_from_end", |b| {
        (b.page.blocks - b.index) as f32 / b.page.blocks as f32
    }),
    ("log_index", |b| log1p(b.index)),
    ("log_page_blocks", |b| log1p(b.page.blocks)),
    ("share_of_page_words", |b| {
        b.shape.words as f32 / b.page.words as f32
    }),
    ("title_words_in_block", |b| b.title_in_block),
    ("block_words_in_title", |b| b.block_in_title),
    ("prev_log_words", |b| log1p(b.previous.words)),
    ("prev_link_density", |b| b.previous.link_density()),
    ("next_log_words", |b| log1p(b.next.words)),
    ("next_link_density", |b| b.next.link_density()),
    ("window_log_words", |b| log1p(b.window.words)),
    ("window_link_density", |b| b.window.link_density()),
    ("site_template_word_ratio", |b| b.site.template_word_ratio),
    ("site_text_page_share", |b| b.site_share(b.site.text_pages)),
    ("site_style_page_share", |b| {
        b.site_share(b.site.style_pages)
    }),
    ("site_log_pages", |b| log1p(b.site.site_pages as usize)),
    ("site_text_log_pages", |b| log1p(b.site.text_pages as usize)),
    ("site_section_text_page_share", |b| b.section_share()),
    ("site_directory_log_pages", |b| {
        log1p(b.site.directory_pages as usize)
    }),
    ("region1_log_words", |b| log1p(b.regions[0].words)),
    ("region1_link_density", |b| b.regions[0].link_density()),
    ("region2_log_words", |b| log1p(b.regions[1].words)),
    ("region2_link_density", |b| b.regions[1].link_density()),
    ("region3_log_words", |b| log1p(b.regions[2].words)),
    ("region3_link_density", |b| b.regions[2].link_density()),
    ("region2_share_of_page_words", |b| {
        b.regions[1].words as f32 / b.page.words as f32
    }),
    ("levels_to_main_block", |b| b.levels_to_main as f32),
    ("is_main_block", |b| {
        f32::from(b.page.main.block == Some(b.index))
    }),
    ("offset_from_main_region", |b| b.offset_from_main_region()),
    ("identifier_share", |b| b.marks.identifier_share()),
    ("page_identifier_share", |b| b.page.marks.identifier_share()),
    ("page_sentence_ends_per_word", |b| {
        b.page.marks.sentence_ends as f32 / b.page.words as f32
    }),
    ("page_link_density", |b| b.page.whole.link_density()),
    ("page_table_cell_word_share", |b| {
        b.page.context_share(context::TABLE_CELL)
    }),
    ("page_list_item_word_share", |b| {
        b.page.context_share(context::LIST_ITEM)
    }),
    ("page_code_word_share", |b| {
        b.page.context_share(context::CODE)
    }),
    ("page_log_headings", |b| log1p(b.page.headings)),
    ("main_region_share_of_unlinked_words", |b| {
        b.page.main.unlinked_words as f32 / b.page.whole.unlinked_words().max(1) as f32
    }),
    // The built-in one-pass model is trained without it (`recipe` in benches/lib.sh).
    ("unlinked_words_before_share", |b| {
        b.page.unlinked_before[b.index] as f32 / b.page.whole.unlinked_words().max(1) as f32
    }),
    // The built-in two-pass model is trained without these two (`recipe` in benches/lib.sh).
    ("levels_to_boilerplate_name", |b| {
        f32::from(b.block.evidence.levels_to_boilerplate_name)
    }),
    ("levels_to_content_name", |b| {
        f32::from(b.block.evidence.levels_to_content_name)
    }),
];

/// The row index of the feature named `name` (a build error when there is none).
pub const fn feature_index(name: &str) -> usize {
    let mut at = 0;
    while at < FEATURES.len() {
        if same_bytes(FEATURES[at].0.as_bytes(), name.as_bytes()) {
            return at;
        }
        at += 1;
    }
    panic!("no feature of that name");
}

/// `a == b`, which a `const fn` cannot write.
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

/// Names of the features, in row order; the model file stores them and must match.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = FEATURES.iter().map(|(name, _)| name.to_string()).collect();
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
    FEATURES.len() + context::COUNT + TAG_CODES + TOKEN_BUCKETS
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

    fn add(&mut self, other: Shape) {
        self.words += other.words;
        self.text_bytes += other.text_bytes;
        self.link_bytes += other.link_bytes;
    }

    /// Words outside links, as a whole number.
    fn unlinked_words(self) -> usize {
        ((1.0 - self.link_density()) * self.words as f32) as usize
    }
}

fn log1p(value: usize) -> f32 {
    (value as f32).ln_1p()
}

/// Punctuation, digits and code-like words of a block's text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Marks {
    sentence_ends: usize,
    commas: usize,
    digits: usize,
    /// Characters, at least 1.
    characters: usize,
    /// Whitespace-separated tokens.
    tokens: usize,
    /// Tokens that read as code ([`is_identifier`]): `gtk_widget_new()`, `os.path`,
    /// `getValue`, `std::fs`.
    identifiers: usize,
}

impl Marks {
    fn of(text: &str) -> Marks {
        let mut marks = Marks::default();
        let bytes = text.as_bytes();
        // The token being read (tokens as `split_whitespace` cuts them): where it starts, and
        // whether it holds a byte that `is_identifier` needs.
        let mut token: Option<(usize, bool)> = None;
        let mut at = 0;
        while let Some(&byte) = bytes.get(at) {
            let (width, whitespace, marked) = if byte.is_ascii() {
                match byte {
                    b'.' | b'!' | b'?' => marks.sentence_ends += 1,
                    b',' => marks.commas += 1,
                    b'0'..=b'9' => marks.digits += 1,
                    _ => {}
                }
                // `char::is_whitespace` of an ASCII character.
                let whitespace = matches!(byte, b' ' | b'\t'..=b'\r');
                (1, whitespace, marks_identifier(byte))
            } else {
                let c = text[at..].chars().next().unwrap_or_default();
                match c {
                    '。' | '！' | '？' => marks.sentence_ends += 1,
                    '，' | '、' => marks.commas += 1,
                    _ => {}
                }
                (c.len_utf8(), c.is_whitespace(), false)
            };
            marks.characters += 1;
            match (whitespace, token) {
                (true, Some((start, marked))) => {
                    marks.end_token(marked && is_identifier(&text[start..at]));
                    token = None;
                }
                (false, None) => token = Some((at, marked)),
                (false, Some((start, false))) if marked => token = Some((start, true)),
                _ => {}
            }
            at += width;
        }
        if let Some((start, marked)) = token {
            marks.end_token(marked && is_identifier(&text[start..]));
        }
        marks.characters = marks.characters.max(1);
        marks
    }

    fn end_token(&mut self, identifier: bool) {
        self.tokens += 1;
        self.identifiers += usize::from(identifier);
    }

    fn add(&mut self, other: &Marks) {
        self.sentence_ends += other.sentence_ends;
        self.commas += other.commas;
        self.digits += other.digits;
        self.characters += other.characters;
        self.tokens += other.tokens;
        self.identifiers += other.identifiers;
    }

    fn identifier_share(&self) -> f32 {
        self.identifiers as f32 / self.tokens.max(1) as f32
    }
}

/// Whether a whitespace-separated token reads as a name from code rather than a word of prose:
/// joined by `_`, `::` or `->`, called (`()`), a dotted path (`os.path`: two letters or more
/// on each side of a dot, so not `e.g.`), or lower camel case (`getValue`, but not `iPhone`).
fn is_identifier(token: &str) -> bool {
    if !token.bytes().any(marks_identifier) {
        return false;
    }
    let token = token.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '"' | '\'' | '`'));
    let bytes = token.as_bytes();
    if bytes.len() < 3 {
        return false;
    }
    let joined = |pair: &[u8]| matches!(pair, [b':', b':'] | [b'-', b'>'] | [b'(', b')']);
    if bytes.windows(2).any(joined) {
        return true;
    }
    let letters_before = |at: usize| {
        bytes[..at]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphabetic())
            .count()
    };
    let letters_after = |at: usize| {
        bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count()
    };
    let lower_start = bytes.iter().take_while(|b| b.is_ascii_lowercase()).count();
    (1..bytes.len() - 1).any(|at| match bytes[at] {
        b'_' => bytes[at - 1].is_ascii_alphanumeric() && bytes[at + 1].is_ascii_alphanumeric(),
        b'.' => letters_before(at) >= 2 && letters_after(at) >= 2,
        b'A'..=b'Z' => lower_start >= 2 && at == lower_start,
        _ => false,
    })
}

/// Whether `byte` is one that each test of [`is_identifier`] needs; most words of prose hold
/// none.
fn marks_identifier(byte: u8) -> bool {
    matches!(byte, b':' | b'-' | b'(' | b'_' | b'.' | b'A'..=b'Z')
}

/// The page's main region: the element whose own blocks hold the most words outside links
/// (an article's paragraphs share one parent; a comment thread's are spread over one per
/// entry); its main block: its block with the most such words.
struct MainRegion<'a> {
    /// The main block.
    block: Option<usize>,
    /// The first and the last block of the main region (0 and 0 without one).
    span: (usize, usize),
    /// The main block's ancestors, nearest first.
    ancestors: &'a [u32],
    /// Words outside links in the main region's own blocks.
    unlinked_words: usize,
}

impl<'a> MainRegion<'a> {
    fn of(page: &'a SegmentedPage, shapes: &[Shape]) -> MainRegion<'a> {
        let blocks = page.blocks.len();
        let parent_of =
            |block: &Block| block.evidence.ancestors.get(1).copied().unwrap_or(u32::MAX);
        let mut parent_words: FxHashMap<u32, usize> = FxHashMap::default();
        for (block, shape) in page.blocks.iter().zip(shapes) {
            *parent_words.entry(parent_of(block)).or_default() += shape.unlinked_words();
        }
        let region = page
            .blocks
            .iter()
            .map(parent_of)
            .enumerate()
            .max_by_key(|&(at, parent)| (parent_words[&parent], std::cmp::Reverse(at)))
            .map(|(_, parent)| parent);
        let in_region = |at: &usize| Some(parent_of(&page.blocks[*at])) == region;
        let block = (0..blocks)
            .filter(in_region)
            .max_by_key(|&at| (shapes[at].unlinked_words(), std::cmp::Reverse(at)));
        MainRegion {
            block,
            span: (
                (0..blocks).find(in_region).unwrap_or(0),
                (0..blocks).rfind(in_region).unwrap_or(0),
            ),
            ancestors: block.map_or(&[], |at| &page.blocks[at].evidence.ancestors),
            unlinked_words: region.map_or(0, |parent| parent_words[&parent]),
        }
    }
}

/// What is measured of the whole page, once, for the rows of all its blocks.
struct PageFigures<'a> {
    /// Each block's shape, in block order.
    shapes: Vec<Shape>,
    /// Each block's marks, in block order.
    block_marks: Vec<Marks>,
    /// Blocks of the page.
    blocks: usize,
    /// Words of the page, at least 1.
    words: usize,
    /// The page's blocks together.
    whole: Shape,
    /// The marks of the page's blocks together.
    marks: Marks,
    /// Headings on the page.
    headings: usize,
    /// Words of the page inside each [`context`] bit's elements.
    context_words: [usize; context::COUNT],
    /// Every element that is an ancestor of some block, with the text inside it.
    regions: FxHashMap<u32, Shape>,
    main: MainRegion<'a>,
    /// Each block's (title words in block, block words in title) shares.
    title_shares: Vec<(f32, f32)>,
    /// Words outside links in the blocks before each block.
    unlinked_before: Vec<usize>,
}

impl<'a> PageFigures<'a> {
    fn of(page: &'a SegmentedPage, overlap: &TitleOverlap, own: &[bool]) -> PageFigures<'a> {
        let block_words = |at: usize| overlap.block_words.get(at).copied().unwrap_or(0) as usize;
        let shapes: Vec<Shape> = page
            .blocks
            .iter()
            .enumerate()
            .map(|(at, block)| Shape::of(block, block_words(at)))
            .collect();
        let block_marks: Vec<Marks> = page.blocks.iter().map(|b| Marks::of(&b.text)).collect();
        let mut regions: FxHashMap<u32, Shape> = FxHashMap::default();
        let mut whole = Shape::default();
        let mut marks = Marks::default();
        let mut context_words = [0; context::COUNT];
        let mut headings = 0;
        let mut unlinked_before = Vec::with_capacity(shapes.len());
        let mut unlinked_so_far = 0;
        for ((block, shape), block_marks) in page.blocks.iter().zip(&shapes).zip(&block_marks) {
            unlinked_before.push(unlinked_so_far);
            unlinked_so_far += shape.unlinked_words();
            for &element in block.evidence.ancestors.iter() {
                regions.entry(element).or_default().add(*shape);
            }
            whole.add(*shape);
            marks.add(block_marks);
            headings += usize::from(block.evidence.heading_level > 0);
            for (bit, words) in context_words.iter_mut().enumerate() {
                if block.evidence.context & (1 << bit) != 0 {
                    *words += shape.words;
                }
            }
        }
        PageFigures {
            unlinked_before,
            words: whole.words.max(1),
            blocks: page.blocks.len(),
            main: MainRegion::of(page, &shapes),
            whole,
            marks,
            headings,
            context_words,
            regions,
            shapes,
            block_marks,
            title_shares: overlap.shares(own),
        }
    }

    /// The share of the page's words inside elements of the [`context`] bit `bit`.
    fn context_share(&self, bit: u32) -> f32 {
        self.context_words[bit.trailing_zeros() as usize] as f32 / self.words as f32
    }

    /// The text inside `block`'s ancestor `level` levels up (nothing when there is none).
    fn region(&self, block: &Block, level: usize) -> Shape {
        block
            .evidence
            .ancestors
            .get(level)
            .and_then(|element| self.regions.get(element).copied())
            .unwrap_or_default()
    }
}

/// What the features of one block are computed from.
struct BlockContext<'a> {
    page: &'a PageFigures<'a>,
    block: &'a Block,
    /// The block's index on the page.
    index: usize,
    shape: Shape,
    marks: Marks,
    title_in_block: f32,
    block_in_title: f32,
    previous: Shape,
    next: Shape,
    /// The block and the two blocks on each side of it.
    window: Shape,
    site: SiteEvidence,
    /// The text inside the block's ancestors one, two and three levels up.
    regions: [Shape; 3],
    /// Levels up from the block to the nearest ancestor it shares with the main block.
    levels_to_main: usize,
}

impl<'a> BlockContext<'a> {
    fn of(
        page: &'a PageFigures<'a>,
        block: &'a Block,
        index: usize,
        site: &[SiteEvidence],
    ) -> BlockContext<'a> {
        let neighbour = |at: Option<usize>| at.and_then(|at| page.shapes.get(at).copied());
        let mut window = Shape::default();
        for shape in &page.shapes[index.saturating_sub(2)..(index + 3).min(page.blocks)] {
            window.add(*shape);
        }
        let (title_in_block, block_in_title) = page.title_shares[index];
        BlockContext {
            page,
            block,
            index,
            shape: page.shapes[index],
            marks: page.block_marks[index],
            title_in_block,
            block_in_title,
            previous: neighbour(index.checked_sub(1)).unwrap_or_default(),
            next: neighbour(Some(index + 1)).unwrap_or_default(),
            window,
            site: site.get(index).copied().unwrap_or_default(),
            regions: [1, 2, 3].map(|level| page.region(block, level)),
            levels_to_main: block
                .evidence
                .ancestors
                .iter()
                .position(|element| page.main.ancestors.contains(element))
                .unwrap_or(MAX_ANCESTORS),
        }
    }

    fn text(&self) -> &str {
        &self.block.text
    }

    fn per_word(&self, count: usize) -> f32 {
        count as f32 / self.shape.words.max(1) as f32
    }

    /// `pages` as a share of the site's pages.
    fn site_share(&self, pages: u32) -> f32 {
        pages as f32 / self.site.site_pages.max(1) as f32
    }

    /// The share of the pages of the block's section that carry its exact text: of the
    /// site's, or of its URL directory's when that is larger and the directory holds at
    /// least [`MIN_SECTION_PAGES`] pages.
    fn section_share(&self) -> f32 {
        let site = self.site_share(self.site.text_pages);
        if self.site.directory_pages < MIN_SECTION_PAGES {
            return site;
        }
        let directory = self.site.directory_text_pages as f32 / self.site.directory_pages as f32;
        site.max(directory)
    }

    /// Blocks from the main region to the block (negative before it, 0 inside it), as a
    /// share of the page's blocks.
    fn offset_from_main_region(&self) -> f32 {
        let (first, last) = self.page.main.span;
        let blocks = self.page.blocks as f32;
        if self.index < first {
            (self.index as f32 - first as f32) / blocks
        } else {
            self.index.saturating_sub(last) as f32 / blocks
        }
    }

    /// Writes the block's row.
    fn fill(&self, row: &mut [f32]) {
        for (value, (_, feature)) in row.iter_mut().zip(&FEATURES) {
            *value = feature(self);
        }
        let evidence = &self.block.evidence;
        let mut at = FEATURES.len();
        for bit in 0..context::COUNT {
            row[at + bit] = f32::from(evidence.context & (1 << bit) != 0);
        }
        at += context::COUNT;
        row[at + usize::from(evidence.tag).min(TAG_CODES - 1)] = 1.0;
        at += TAG_CODES;
        for bucket in 0..TOKEN_BUCKETS {
            if evidence.token_bits & (1 << bucket) != 0 {
                row[at + bucket] = 1.0;
            }
        }
    }
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
    let figures = PageFigures::of(page, overlap, own);
    let mut rows = vec![0.0f32; page.blocks.len() * count()];
    for ((index, block), row) in page
        .blocks
        .iter()
        .enumerate()
        .zip(rows.chunks_exact_mut(count()))
    {
        BlockContext::of(&figures, block, index, site).fill(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{SegmentOptions, WordId};

    #[test]
    fn names_from_code_are_told_from_words_of_prose() {
        for code in [
            "gtk_hseparator_new()",
            "os.path.join",
            "getValue",
            "std::fs",
            "self->next",
            "`append()`,",
            "len()",
        ] {
            assert!(is_identifier(code), "{code}");
        }
        for prose in [
            "Creates",
            "GtkHSeparator.",
            "U.S.",
            "e.g.",
            "well-known",
            "iPhone",
            "McDonald",
            "2.5",
            "a_",
        ] {
            assert!(!is_identifier(prose), "{prose}");
        }
    }

    /// What [`Marks::of`] counts, read character by character.
    fn marks_by_characters(text: &str) -> Marks {
        let mut marks = Marks::default();
        for c in text.chars() {
            marks.characters += 1;
            match c {
                '.' | '!' | '?' | '。' | '！' | '？' => marks.sentence_ends += 1,
                ',' | '，' | '、' => marks.commas += 1,
                '0'..='9' => marks.digits += 1,
                _ => {}
            }
        }
        marks.characters = marks.characters.max(1);
        marks.tokens = text.split_whitespace().count();
        marks.identifiers = text.split_whitespace().filter(|t| is_identifier(t)).count();
        marks
    }

    #[test]
    fn marks_read_by_bytes_are_those_read_by_characters() {
        let alphabet = [
            "a", "b", "Z", "_", ".", "(", ")", ":", "-", ">", " ", "\t", "\n", "\u{b}", "\u{a0}",
            "\u{85}", "\u{2028}", "\u{3000}", "\u{1c}", "。", "，", "、", "！", "？", "é", "1",
            "9", ",", "!", "?", "`", "gtk", "getValue", "os", "€",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let length = next() % 24;
            let text: String = (0..length)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            assert_eq!(Marks::of(&text), marks_by_characters(&text), "{text:?}");
        }
    }

    #[test]
    fn marks_cut_tokens_as_split_whitespace_does() {
        for text in [
            "",
            " ",
            "one",
            "  a\u{3000}b\tc  gtk_new() ",
            "é os.path\nx ",
        ] {
            let marks = Marks::of(text);
            assert_eq!(marks.tokens, text.split_whitespace().count(), "{text:?}");
            let identifiers = text.split_whitespace().filter(|t| is_identifier(t)).count();
            assert_eq!(marks.identifiers, identifiers, "{text:?}");
        }
        assert_eq!(Marks::of("use gtk_new() now").identifiers, 1);
    }

    /// A page of `html` segmented with evidence, and its rows (every title word its own),
    /// flat.
    fn page_and_rows(html: &str) -> (SegmentedPage, Vec<f32>) {
        let page = crate::detect::test_page(
            "http://a.example/x",
            html,
            SegmentOptions {
                evidence: true,
                ..SegmentOptions::default()
            },
        );
        let overlap = TitleOverlap::of(&page);
        let own = vec![true; overlap.title.len()];
        let flat = rows(&page, &[], &overlap, &own);
        (page, flat)
    }

    #[test]
    fn page_figures_see_code_lists_and_the_main_region() {
        let (_, flat) = page_and_rows(
            "<title>Widgets</title><div class=menu><div class=item><a href=/a>One</a></div>\
             <div class=item><a href=/b>Two</a></div><div class=item><a href=/c>Three</a></div>\
             </div><main><div class=text>Use gtk_widget_new() to make one widget here.</div>\
             <div class=text>It returns a new widget for you.</div></main>",
        );
        let rows: Vec<&[f32]> = flat.chunks_exact(count()).collect();
        assert_eq!(rows.len(), 5);
        let name = |wanted: &str| names().iter().position(|n| n == wanted).unwrap();
        let (item, paragraph) = (rows[0], rows[3]);
        assert_eq!(paragraph[name("identifier_share")], 1.0 / 7.0);
        assert_eq!(rows[4][name("identifier_share")], 0.0);
        // One code word among the page's 17 tokens.
        assert_eq!(item[name("page_identifier_share")], 1.0 / 17.0);
        assert_eq!(item[name("page_table_cell_word_share")], 0.0);
        assert_eq!(
            item[name("page_link_density")],
            paragraph[name("page_link_density")]
        );
        assert_eq!(item[name("main_region_share_of_unlinked_words")], 1.0);
        // The menu's words are all in links: the first paragraph has no prose before it, the
        // second has the first's.
        let before = name("unlinked_words_before_share");
        assert!(rows[..4].iter().all(|row| row[before] == 0.0));
        let words = |row: &[f32]| row[name("log_words")].exp_m1();
        let expected = words(rows[3]) / (words(rows[3]) + words(rows[4]));
        assert!(
            (rows[4][before] - expected).abs() < 1e-4,
            "{}",
            rows[4][before]
        );
    }

    #[test]
    fn levels_to_named_elements_count_up_from_the_blocks_element() {
        let (page, flat) = page_and_rows(
            "<div id=page><div class=entry-content><p>The post's text, a sentence.</p>\
             <div class=share-box><p>Share this</p></div></div>\
             <div id=sidebar><div class=box><p>About me: a line.</p></div></div>\
             <p class=plain>Outside both.</p></div>",
        );
        let rows: Vec<&[f32]> = flat.chunks_exact(count()).collect();
        let name = |wanted: &str| names().iter().position(|n| n == wanted).unwrap();
        let levels = |at: usize| {
            (
                rows[at][name("levels_to_boilerplate_name")],
                rows[at][name("levels_to_content_name")],
            )
        };
        let far = f32::from(crate::segment::evidence::FAR_LEVELS);
        let texts: Vec<&str> = page
            .blocks
            .iter()
            .map(|block| block.text.as_str())
            .collect();
        assert_eq!(
            texts,
            [
                "The post's text, a sentence.",
                "Share this",
                "About me: a line.",
                "Outside both."
            ]
        );
        assert_eq!(levels(0), (far, 1.0));
        assert_eq!(levels(1), (1.0, 2.0));
        assert_eq!(levels(2), (2.0, far));
        assert_eq!(levels(3), (far, far));
    }

    #[test]
    fn feature_names_are_distinct() {
        let names = names();
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
    }

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
