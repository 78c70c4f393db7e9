//! Segment: a decoded HTML page in, a [`SegmentedPage`] out — the page's title and its
//! [`Block`]s, each with its [`BlockStyle`], its visible text and its words with offsets.
//!
//! A block is the text whose nearest enclosing *layout element* is the same element
//! ([`is_layout_element`]: table, div, section, p, headings, lists, …; not td or tr, following
//! Chen, Ye & Li). Text inside inline elements belongs to the enclosing block.
//!
//! Every page is streamed once through `lol_html`. lol_html reports start tags, text and the
//! end tags it sees, but no end tags for void elements, implicitly closed elements, or
//! elements still open at the end of input; [`OpenElements`](tree) keeps its own stack with
//! HTML's implied-end rules.

mod attributes;
pub mod evidence;
pub mod layout;
mod style;
mod tags;
mod tree;

pub use evidence::BlockEvidence;
pub use layout::{BlockRun, Layout, MarkdownOptions, NO_BLOCK, TextPiece};
pub use style::{BlockStyle, StyleAttributes, stable_hash_bytes};
pub use tags::{is_layout_element, is_table_element};

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, EndTag, TextChunk, TextType};
use lol_html::{HtmlRewriter, MemorySettings, Settings, doc_text, element};

use crate::analyze::for_each_word;
use crate::read::Page;
use attributes::ElementAttributes;

/// The identity of a word: a stable 64-bit hash of its analyzed (lower-cased) form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WordId(pub u64);

impl WordId {
    /// The id of an analyzed word.
    pub fn of(word: &str) -> WordId {
        WordId(style::stable_hash_bytes(word.as_bytes()))
    }
}

/// One occurrence of a word in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    /// The word.
    pub id: WordId,
    /// Its position among the words of the block, from 0.
    pub offset: u32,
}

/// A segment of a page: text under one layout element.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Where the block sits and what its element looks like.
    pub style: BlockStyle,
    /// Visible text, whitespace collapsed.
    pub text: String,
    /// Words of `text`, in order.
    pub words: Vec<Word>,
    /// Whether the block is a heading (h1–h6).
    pub heading: bool,
    /// The text nodes that make up `text`, in order.
    pub runs: Vec<TextRun>,
    /// Byte range of the block's text in the page's HTML, from the start of its first text
    /// node to the end of its last.
    pub source: (u32, u32),
    /// What the page's markup says about the block, when [`SegmentOptions::evidence`] asked
    /// for it (empty otherwise).
    pub evidence: BlockEvidence,
}

/// One text node's part of a block's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRun {
    /// Where the run ends in the block's text (bytes; it starts where the previous one ends).
    pub end: u32,
    /// Position path of the element the text node is in.
    pub path: u64,
}

/// Where blocks are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// At layout elements ([`is_layout_element`]), as Chen, Ye & Li.
    #[default]
    Layout,
    /// At both ends of table elements ([`is_table_element`]) and, `with_layout`, of layout
    /// elements: Ma et al.'s text chunks.
    Table {
        /// Cut at layout elements too.
        with_layout: bool,
    },
    /// Every text node is a block; `split_lines` cuts a text node at each line break of the
    /// HTML source, so that each block lies on one source line.
    TextNodes {
        /// Cut text nodes at source line breaks.
        split_lines: bool,
    },
}

/// What segmentation makes of a page, beyond its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SegmentOptions {
    /// Where blocks are cut.
    pub granularity: Granularity,
    /// Build the page's [`DomTree`].
    pub tree: bool,
    /// Collect the page's link targets (`<a href>`), as written.
    pub links: bool,
    /// Gather each block's [`BlockEvidence`].
    pub evidence: bool,
    /// Count an image's `alt` text as text where the image stands (names such as `img9`,
    /// `spacer` or `logo.gif` left out).
    #[serde(default)]
    pub image_alt: bool,
    /// Place a block's style by its index in each layer of the *block tree* (blocks inside
    /// blocks, as Chen, Ye & Li's Fig. 1), not by its index among all sibling elements: an
    /// inline, void or script sibling that comes and goes does not move it.
    #[serde(default)]
    pub block_tree_positions: bool,
}

/// A page's DOM reduced to what tree comparison needs: elements labelled by tag and
/// attributes, visible text nodes labelled by their text. Node 0 is the document; nodes are
/// in document order, so a parent always comes before its children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomTree {
    /// The nodes, in document order.
    pub nodes: Vec<DomNode>,
}

/// One node of a [`DomTree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomNode {
    /// Index of the parent node (the document is its own parent).
    pub parent: u32,
    /// Hash of the tag and attributes, or of a text node's text.
    pub label: u64,
    /// For a text node, the block holding its text.
    pub block: Option<u32>,
}

impl DomTree {
    /// A tree holding only the document node.
    pub fn new() -> Self {
        DomTree {
            nodes: vec![DomNode {
                parent: 0,
                label: 0,
                block: None,
            }],
        }
    }

    /// Appends a node under `parent`; returns its index.
    pub fn push(&mut self, parent: u32, label: u64, block: Option<u32>) -> u32 {
        self.nodes.push(DomNode {
            parent,
            label,
            block,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The children of every node, in order.
    pub fn children(&self) -> Vec<Vec<u32>> {
        let mut children = vec![Vec::new(); self.nodes.len()];
        for (index, node) in self.nodes.iter().enumerate().skip(1) {
            children[node.parent as usize].push(index as u32);
        }
        children
    }

    /// Approximate bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<DomNode>()
    }

    fn renumber_blocks(&mut self, renumbered: &[u32]) {
        for node in &mut self.nodes {
            if let Some(block) = node.block {
                node.block = renumbered
                    .get(block as usize)
                    .copied()
                    .filter(|&b| b != u32::MAX);
            }
        }
    }
}

/// A page cut into blocks.
#[derive(Debug, Clone)]
pub struct SegmentedPage {
    /// The page's URL.
    pub url: String,
    /// The page's site (host).
    pub site: String,
    /// Text of the first `<title>`, whitespace collapsed.
    pub title: String,
    /// Blocks with text, in the order their elements start.
    pub blocks: Vec<Block>,
    /// Bytes of HTML segmented (after any truncation).
    pub html_bytes: usize,
    /// Which page limit, if any, cut the page short.
    pub limited: Option<PageLimit>,
    /// The DOM tree, when [`SegmentOptions::tree`] asked for it.
    pub tree: Option<DomTree>,
    /// Link targets as written, when [`SegmentOptions::links`] asked for them.
    pub links: Vec<String>,
    /// The page's shape (headings, lists, code, tables, …) over its blocks' text, for
    /// writing the kept text as lines or Markdown.
    pub layout: Layout,
}

/// A per-page limit that was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageLimit {
    /// The HTML was longer than [`SegmentLimits::max_page_bytes`]; the rest was not read.
    Bytes,
    /// Elements nested deeper than [`SegmentLimits::max_depth`] were treated as inline.
    Depth,
    /// The page had more than [`SegmentLimits::max_blocks`] blocks; later layout elements were
    /// treated as inline.
    Blocks,
    /// The page had more than [`SegmentLimits::max_words`] words; the blocks after the one
    /// that reached the limit were left out.
    Words,
}

impl PageLimit {
    /// A snake_case name for summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            PageLimit::Bytes => "page_bytes",
            PageLimit::Depth => "nesting_depth",
            PageLimit::Blocks => "block_count",
            PageLimit::Words => "word_count",
        }
    }
}

/// The words of a block's text, with their offsets.
pub fn words_of(text: &str) -> Vec<Word> {
    thread_local! {
        /// The words being split, one buffer a thread: the list returned is allocated once,
        /// at its length.
        static WORDS: RefCell<Vec<Word>> = const { RefCell::new(Vec::new()) };
    }
    /// Words a thread's buffer keeps room for between blocks; a larger one is let go.
    const KEPT_WORDS: usize = 1 << 14;
    WORDS.with_borrow_mut(|words| {
        words.clear();
        for_each_word_of(text, |word| words.push(word));
        let split = words.to_vec();
        if words.capacity() > KEPT_WORDS {
            *words = Vec::new();
        }
        split
    })
}

/// Calls `each` with every word of a block's text in order, as [`words_of`] lists them.
pub fn for_each_word_of(text: &str, mut each: impl FnMut(Word)) {
    let mut offset = 0usize;
    for_each_word(text, |word, _, _| {
        each(Word {
            id: WordId::of(word),
            offset: offset as u32,
        });
        offset += 1;
    });
}

impl SegmentedPage {
    /// The text of the blocks `keep` holds for, as lines ([`Layout::plain_text`]; a page
    /// without a layout: the blocks one a line), and the runs of it each block wrote.
    pub fn text_by_block(&self, keep: impl Fn(usize) -> bool) -> (String, Vec<BlockRun>) {
        if !self.layout.is_empty() {
            return self.layout.plain_text_by_block(&self.blocks, keep);
        }
        let mut text = String::new();
        let mut runs = Vec::new();
        for (index, block) in self.blocks.iter().enumerate().filter(|(i, _)| keep(*i)) {
            if !text.is_empty() {
                text.push('\n');
            }
            let start = text.len();
            text.push_str(&block.text);
            if text.len() > start {
                runs.push(BlockRun {
                    start,
                    end: text.len(),
                    block: index as u32,
                });
            }
        }
        (text, runs)
    }

    /// Drops the blocks' word lists and runs, keeping their text, and packs the layout's
    /// marks ([`Layout::pack`], `lines_only` as it says): a page waiting for its decision then
    /// holds little more than its text.
    pub fn shrink_for_waiting(&mut self, lines_only: bool) {
        for block in &mut self.blocks {
            block.words = Vec::new();
            block.runs = Vec::new();
            block.text.shrink_to_fit();
        }
        self.blocks.shrink_to_fit();
        self.layout.pack(lines_only);
    }

    /// Approximate bytes held by the page.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.url.capacity()
            + self.site.capacity()
            + self.title.capacity()
            + self
                .blocks
                .iter()
                .map(|block| {
                    std::mem::size_of::<Block>()
                        + block.text.capacity()
                        + block.words.capacity() * std::mem::size_of::<Word>()
                        + block.runs.capacity() * std::mem::size_of::<TextRun>()
                })
                .sum::<usize>()
            + self.tree.as_ref().map_or(0, DomTree::heap_bytes)
            + self.layout.heap_bytes()
            + self.links.iter().map(String::capacity).sum::<usize>()
    }
}

/// The part of `html` segmentation reads: all of it, or its first
/// [`SegmentLimits::max_page_bytes`] cut back to a character boundary.
pub fn html_read<'a>(html: &'a str, limits: &SegmentLimits) -> &'a str {
    if html.len() <= limits.max_page_bytes {
        return html;
    }
    let mut cut = limits.max_page_bytes;
    while !html.is_char_boundary(cut) {
        cut -= 1;
    }
    &html[..cut]
}

/// Per-page limits, so that one hostile page cannot stall a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentLimits {
    /// HTML bytes read from one page; the rest is cut off.
    pub max_page_bytes: usize,
    /// Open elements tracked at once; deeper elements count as inline.
    pub max_depth: usize,
    /// Blocks per page; further layout elements count as inline.
    pub max_blocks: usize,
    /// Words per page; blocks after the one that reaches it are left out.
    #[serde(default = "default_max_words")]
    pub max_words: usize,
}

fn default_max_words() -> usize {
    SegmentLimits::default().max_words
}

impl Default for SegmentLimits {
    fn default() -> Self {
        SegmentLimits {
            max_page_bytes: 8 << 20,
            max_depth: 256,
            max_blocks: 20_000,
            max_words: 1_000_000,
        }
    }
}

/// Why a page could not be segmented.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    /// The HTML parser gave up on the page.
    #[error("HTML parser failed: {0}")]
    Parser(String),
}

/// Cuts a page into blocks at layout elements.
pub fn segment(page: &Page, limits: &SegmentLimits) -> Result<SegmentedPage, SegmentError> {
    segment_with(page, limits, SegmentOptions::default())
}

/// Cuts a page into blocks as `options` say.
pub fn segment_with(
    page: &Page,
    limits: &SegmentLimits,
    options: SegmentOptions,
) -> Result<SegmentedPage, SegmentError> {
    let html = html_read(&page.html, limits);
    let mut limited = (html.len() < page.html.len()).then_some(PageLimit::Bytes);

    let state = Rc::new(RefCell::new(tree::OpenElements::new(*limits, options)));
    {
        let on_element = Rc::clone(&state);
        let on_text = Rc::clone(&state);
        let settings = Settings::new()
            .append_element_content_handler(element!("*", move |element: &mut Element| {
                let attributes = ElementAttributes::of(element, html);
                let serial = on_element.borrow_mut().open(element, &attributes);
                if let Some(serial) = serial {
                    let on_end = Rc::clone(&on_element);
                    element.on_end_tag(Box::new(move |_: &mut EndTag| {
                        on_end.borrow_mut().close(serial);
                        Ok(())
                    }))?;
                }
                Ok(())
            }))
            .append_document_content_handler(doc_text!(move |chunk: &mut TextChunk| {
                let decode = matches!(chunk.text_type(), TextType::Data | TextType::RCData);
                let script_or_raw =
                    matches!(chunk.text_type(), TextType::ScriptData | TextType::RawText);
                on_text.borrow_mut().text(
                    chunk.as_str(),
                    decode,
                    script_or_raw,
                    chunk.last_in_text_node(),
                    chunk.source_location().bytes(),
                );
                Ok(())
            }))
            .with_memory_settings(MemorySettings::new());
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter
            .write(html.as_bytes())
            .and_then(|()| rewriter.end())
            .map_err(|error| SegmentError::Parser(error.to_string()))?;
    }
    let state = Rc::try_unwrap(state)
        .map_err(|_| SegmentError::Parser("parser kept a handler alive".into()))?
        .into_inner();
    let finished = state.finish();
    limited = limited.or(finished.limited);

    let mut words = 0usize;
    let mut blocks = Vec::with_capacity(finished.blocks.len());
    for block in finished.blocks {
        if words >= limits.max_words {
            limited = limited.or(Some(PageLimit::Words));
            break;
        }
        let block_words = words_of(&block.text);
        words += block_words.len();
        blocks.push(Block {
            style: block.style,
            words: block_words,
            text: block.text,
            heading: block.heading,
            runs: block.runs,
            source: block.source,
            evidence: block.evidence,
        });
    }

    let mut layout = finished.layout;
    layout.shrink_to_fit();
    Ok(SegmentedPage {
        url: page.url.clone(),
        site: page.site.clone(),
        title: finished.title,
        blocks,
        html_bytes: html.len(),
        limited,
        tree: finished.tree,
        links: finished.links,
        layout,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn page(html: &str) -> Page {
        Page {
            url: "http://example.org/a.html".into(),
            site: "example.org".into(),
            html: html.into(),
            raw_bytes: html.len(),
            record_id: None,
            date: None,
            charset: "UTF-8",
            plain_text: false,
        }
    }

    fn texts(html: &str) -> Vec<String> {
        segment(&page(html), &SegmentLimits::default())
            .unwrap()
            .blocks
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    #[test]
    fn soft_hyphens_and_ruby_annotations_leave_the_words_whole() {
        assert_eq!(
            texts(
                "<p>Mit&shy;tel\u{00AD}al&shy;ter und <ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>ども</p>"
            ),
            ["Mittelalter und 子ども"]
        );
    }

    #[test]
    fn block_tree_positions_ignore_siblings_that_start_no_block() {
        let styles = |html: &str, block_tree_positions: bool| -> Vec<BlockStyle> {
            let options = SegmentOptions {
                block_tree_positions,
                ..SegmentOptions::default()
            };
            segment_with(&page(html), &SegmentLimits::default(), options)
                .unwrap()
                .blocks
                .iter()
                .map(|block| block.style)
                .collect()
        };
        // A script and an inline element before the menu on one page only.
        let plain = "<body><div class=menu>Home</div><div class=main><p>Text</p></div></body>";
        let extra = "<body><script>x()</script><span>Ad</span><div class=menu>Home</div>\
            <div class=main><p>Text</p></div></body>";
        let (a, b) = (styles(plain, true), styles(extra, true));
        // Blocks with text: the menu and the paragraph (and, on the other page, the ad).
        assert_eq!(a.len(), 2);
        assert_eq!(
            a[0],
            b[b.len() - 2],
            "the menu keeps its place in the block tree"
        );
        assert_eq!(a[1], b[b.len() - 1], "and so does the paragraph under main");
        let (a, b) = (styles(plain, false), styles(extra, false));
        assert_ne!(a[0], b[b.len() - 2], "among all elements the menu moved");
    }

    #[test]
    fn image_alt_text_counts_when_asked_and_placeholder_names_do_not() {
        let html = "<body><p>Before <img alt='A red bicycle' src=b.jpg> after \
            <img alt=img9><img alt=spacer><img alt='logo.gif'><img alt=Bicycles></p></body>";
        let options = SegmentOptions {
            image_alt: true,
            ..SegmentOptions::default()
        };
        let blocks = segment_with(&page(html), &SegmentLimits::default(), options)
            .unwrap()
            .blocks;
        assert_eq!(blocks[0].text, "Before A red bicycle after Bicycles");
        assert_eq!(texts(html), ["Before after"]);
    }

    #[test]
    fn blocks_are_cut_at_layout_elements_not_at_cells_or_inline_elements() {
        let html = "<html><head><title> My  Page </title><style>p{}</style></head><body>\
            <div id=nav><ul><li><a href=/>Home</a><li>About</ul></div>\
            <table><tr><td>cell one</td><td>cell <b>two</b></td></tr></table>\
            <p>First &amp; second paragraph<p>Third</body></html>";
        let segmented = segment(&page(html), &SegmentLimits::default()).unwrap();
        assert_eq!(segmented.title, "My Page");
        let texts: Vec<_> = segmented.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Home About",
                "cell one cell two",
                "First & second paragraph",
                "Third"
            ]
        );
    }

    #[test]
    fn script_style_noscript_template_and_hidden_text_is_not_text() {
        let html = "<body><p>seen<script>var hidden = 1;</script><style>.x{}</style>\
            <noscript>enable js</noscript><template>tpl</template>\
            <span hidden>gone</span><span style='display: none'>gone too</span> also seen</p></body>";
        assert_eq!(texts(html), ["seen also seen"]);
    }

    #[test]
    fn implied_paragraph_end_separates_blocks() {
        // <div> closes the open <p>: "after" belongs to the body, not to the paragraph.
        let segmented = segment(
            &page("<body><p>inside<div>div text</div>after</body>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        let paragraph = &segmented
            .blocks
            .iter()
            .find(|b| b.text == "inside")
            .unwrap();
        let body = segmented.blocks.iter().find(|b| b.text == "after").unwrap();
        assert_ne!(paragraph.style, body.style);
        assert_eq!(segmented.blocks.len(), 3);
    }

    #[test]
    fn same_structure_gives_same_styles_and_different_position_gives_different_styles() {
        let a = segment(
            &page("<body><div class=nav>x</div><p>a</p></body>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        let b = segment(
            &page("<body><div class=nav>y y</div><p>b</p></body>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        let c = segment(
            &page("<body><p>z</p><div class=nav>x</div></body>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        let d = segment(
            &page("<body><div class=other>x</div></body>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        assert_eq!(a.blocks[0].style, b.blocks[0].style);
        assert_ne!(a.blocks[0].style, c.blocks[1].style);
        assert_ne!(a.blocks[0].style, d.blocks[0].style);
    }

    #[test]
    fn words_carry_offsets_within_their_block() {
        let segmented = segment(
            &page("<p>to be or not to be</p>"),
            &SegmentLimits::default(),
        )
        .unwrap();
        let block = &segmented.blocks[0];
        let offsets: Vec<u32> = block.words.iter().map(|w| w.offset).collect();
        assert_eq!(offsets, [0, 1, 2, 3, 4, 5]);
        assert_eq!(block.words[0].id, block.words[4].id);
        assert_eq!(block.words[0].id, WordId::of("to"));
    }

    #[test]
    fn entities_split_across_chunks_and_numeric_references_decode() {
        assert_eq!(
            texts("<p>caf&eacute; &#x4E2D;&#25991; &lt;tag&gt;</p>"),
            ["café 中文 <tag>"]
        );
    }

    #[test]
    fn a_page_without_body_tag_or_head_end_still_has_a_body() {
        let html = "<html><head><title>T</title><meta name=x content=y>\
            <div id=story><p>the story text</p></div>";
        assert_eq!(texts(html), ["the story text"]);
        assert_eq!(
            texts("<html><head><title>T</title>loose text"),
            ["loose text"]
        );
        // Outside every layout element, element boundaries still separate words.
        assert_eq!(texts("Home<br>About<li>a<li>b"), ["Home About a b"]);
    }

    #[test]
    fn elements_deeper_than_the_limit_leak_no_script_or_title() {
        let limits = SegmentLimits {
            max_depth: 3,
            ..SegmentLimits::default()
        };
        let html = "<div><div><div><span><title>x</title><script>var a;</script><style>p{}</style>\
            shown</span></div></div></div><p>after</p>";
        let segmented = segment(&page(html), &limits).unwrap();
        assert_eq!(segmented.title, "");
        let texts: Vec<_> = segmented.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["x shown", "after"]);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let depth = 100_000;
        let html = format!(
            "<body>{}deep text{}</body>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        let segmented = segment(&page(&html), &SegmentLimits::default()).unwrap();
        assert_eq!(segmented.limited, Some(PageLimit::Depth));
        assert_eq!(segmented.blocks.len(), 1);
        assert_eq!(segmented.blocks[0].text, "deep text");
    }

    #[test]
    fn text_after_a_nested_table_follows_it_in_order() {
        let options = SegmentOptions {
            granularity: Granularity::Table { with_layout: false },
            ..SegmentOptions::default()
        };
        let html = "<table><tr><td>A <span>B <table><tr><td>X</td></tr></table> C</span> D</td></tr></table>";
        let segmented = segment_with(&page(html), &SegmentLimits::default(), options).unwrap();
        let texts: Vec<_> = segmented.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["A B", "X", "C D"]);
    }

    #[test]
    fn pages_over_the_word_limit_lose_their_later_blocks() {
        let limits = SegmentLimits {
            max_words: 5,
            ..SegmentLimits::default()
        };
        let segmented = segment(
            &page("<p>one two three</p><p>four five six</p><p>seven</p>"),
            &limits,
        )
        .unwrap();
        assert_eq!(segmented.limited, Some(PageLimit::Words));
        let texts: Vec<_> = segmented.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["one two three", "four five six"]);
    }

    #[test]
    fn oversized_pages_are_cut_and_flagged() {
        let limits = SegmentLimits {
            max_page_bytes: 20,
            ..SegmentLimits::default()
        };
        let segmented = segment(&page("<p>ééééééééééééééééééééééé</p>"), &limits).unwrap();
        assert_eq!(segmented.limited, Some(PageLimit::Bytes));
        assert!(segmented.html_bytes <= 20);
    }

    #[test]
    fn unclosed_and_misnested_markup_does_not_lose_text() {
        // <li> closes the open <p>, so "two" belongs to the div, which started first.
        assert_eq!(
            texts("<div><p>one<li>two<div>three"),
            ["two", "one", "three"]
        );
        // Stray end tags are ignored, as browsers do.
        assert_eq!(texts("<p>a</div></span>b</p></p>c"), ["ab", "c"]);
    }
}
