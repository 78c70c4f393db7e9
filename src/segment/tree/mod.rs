//! The stack of open elements, kept by hand with HTML's implied-end rules, and the blocks it
//! fills with text.

use std::borrow::Cow;

use lol_html::html_content::Element;

mod shape;

use shape::ShapedElement;

use super::attributes::ElementAttributes;
use super::evidence::{self, Ancestors, BlockEvidence, ClassTokens};
use super::layout::{self, Layout, Mark, Shape, StoredText};
use super::style::{BlockStyle, StyleAttributes, child_path, stable_hash_bytes};
use super::tags::{
    belongs_in_head, closes_paragraph, heading_level, hides_text, is_heading, is_inline,
    is_layout_element, is_scope_boundary, is_table_element,
};
use super::{DomTree, Granularity, PageLimit, SegmentLimits, SegmentOptions, TextRun};

/// Most links kept from one page, and the longest link kept.
const MAX_LINKS: usize = 4096;
const MAX_LINK_BYTES: usize = 2048;

struct OpenElement {
    serial: u64,
    tag: Cow<'static, str>,
    /// Hash of the position path from the root to this element.
    path: u64,
    /// Element children seen so far (the next child's position index).
    children: u32,
    /// With [`SegmentOptions::block_tree_positions`]: the position path in the block tree,
    /// this element's own when it starts a block, else its nearest block-starting ancestor's.
    block_path: u64,
    /// Blocks started directly under this element in the block tree so far.
    block_children: u32,
    /// The block text inside this element goes to, if any.
    block: Option<usize>,
    /// Whether this element's text continues in a new block (a block boundary inside it
    /// has closed, and blocks are cut at both ends of boundary elements).
    reopen: bool,
    /// Whether the element started its own block.
    owns_block: bool,
    /// Whether text inside is invisible.
    hidden: bool,
    /// Its node in the DOM tree, when one is built.
    node: u32,
    /// Evidence only: [`evidence::context`] bits of this element and those around it.
    context: u32,
    /// Evidence only: whether text inside lies in a link.
    in_link: bool,
    /// Evidence only: hashes of this element's class and id tokens.
    tokens: ClassTokens,
    /// Evidence only: the stack places of the nearest elements (this one or those around
    /// it) whose class or id names boilerplate and content ([`evidence::name_leanings`]).
    named_at: NamedAt,
    /// Whether the element's start is in the layout (its end must be, too).
    in_layout: bool,
    /// Whether text inside keeps its whitespace (in `<pre>` or the like).
    preformatted: bool,
    /// The layout mark of the preformatted element this one is in, if any.
    preformatted_mark: Option<usize>,
    /// A code language named by this element's class or a near ancestor's, with the
    /// generations below that it still applies to.
    language: Option<(StoredText, u8)>,
}

/// Stack places of the nearest elements named for boilerplate and for content.
#[derive(Clone, Copy, Default)]
struct NamedAt {
    boilerplate: Option<usize>,
    content: Option<usize>,
}

impl NamedAt {
    /// Levels up from the element at stack place `at` to each named element.
    fn levels_from(self, at: usize) -> (u8, u8) {
        let levels = |named: Option<usize>| {
            named.map_or(evidence::FAR_LEVELS, |named| {
                (at - named).min(usize::from(evidence::FAR_LEVELS - 1)) as u8
            })
        };
        (levels(self.boilerplate), levels(self.content))
    }
}

struct BlockUnderConstruction {
    style: BlockStyle,
    text: String,
    heading: bool,
    runs: Vec<TextRun>,
    source: Option<(u32, u32)>,
    evidence: BlockEvidence,
}

impl BlockUnderConstruction {
    fn new(style: BlockStyle, heading: bool) -> Self {
        BlockUnderConstruction {
            style,
            text: String::new(),
            heading,
            runs: Vec::new(),
            source: None,
            evidence: BlockEvidence::default(),
        }
    }

    /// A new block continuing this one's element (same style and evidence, no text yet).
    fn continued(&self) -> Self {
        BlockUnderConstruction {
            evidence: BlockEvidence {
                link_bytes: 0,
                ..self.evidence
            },
            ..BlockUnderConstruction::new(self.style, self.heading)
        }
    }
}

/// A finished block before words are taken from it.
pub(super) struct RawBlock {
    pub(super) style: BlockStyle,
    pub(super) text: String,
    pub(super) heading: bool,
    pub(super) runs: Vec<TextRun>,
    pub(super) source: (u32, u32),
    pub(super) evidence: BlockEvidence,
}

/// What the segmenter found on a page, besides the words.
pub(super) struct Finished {
    pub(super) title: String,
    pub(super) blocks: Vec<RawBlock>,
    pub(super) limited: Option<PageLimit>,
    pub(super) tree: Option<DomTree>,
    pub(super) links: Vec<String>,
    pub(super) layout: Layout,
}

/// The segmenter's state while lol_html streams a page.
pub(super) struct OpenElements {
    limits: SegmentLimits,
    options: SegmentOptions,
    stack: Vec<OpenElement>,
    root_children: u32,
    root_block_children: u32,
    next_serial: u64,
    blocks: Vec<BlockUnderConstruction>,
    /// Block for text outside every layout element.
    root_block: Option<usize>,
    pending_text: String,
    /// Whether the pending text's character references apply.
    pending_decode: bool,
    /// Source bytes of the pending text node.
    pending_source: Option<(usize, usize)>,
    root_reopen: bool,
    tree: Option<DomTree>,
    links: Vec<String>,
    title: Option<String>,
    in_title: bool,
    limited: Option<PageLimit>,
    layout: Layout,
    /// No preformatted text has come since the last preformatted element started (its first
    /// line break, which HTML leaves out, is still to be dropped).
    preformatted_fresh: bool,
    /// The block the last visible text went into.
    last_text_block: Option<usize>,
}

impl OpenElements {
    pub(super) fn new(limits: SegmentLimits, options: SegmentOptions) -> Self {
        OpenElements {
            limits,
            options,
            stack: Vec::new(),
            root_children: 0,
            root_block_children: 0,
            next_serial: 0,
            blocks: Vec::new(),
            root_block: None,
            pending_text: String::new(),
            pending_decode: true,
            pending_source: None,
            root_reopen: false,
            tree: options.tree.then(DomTree::new),
            links: Vec::new(),
            title: None,
            in_title: false,
            limited: None,
            layout: Layout::default(),
            preformatted_fresh: false,
            last_text_block: None,
        }
    }

    /// A start tag. Returns the serial to pass to [`close`](Self::close) when the element's
    /// end tag is seen, or `None` when the element is not tracked (void, or too deep).
    pub(super) fn open(
        &mut self,
        element: &Element,
        attributes: &ElementAttributes<'_, '_>,
    ) -> Option<u64> {
        let tag = attributes.tag_name(element);
        self.close_implied_by(&tag);
        if !is_inline(&tag) {
            self.separate_words();
        }

        let path = next_child_path(
            self.stack
                .last_mut()
                .map(|parent| (parent.path, &mut parent.children)),
            &mut self.root_children,
        );
        self.keep_link(&tag, attributes);
        if self.stack.len() >= self.limits.max_depth {
            self.limited.get_or_insert(PageLimit::Depth);
            return None;
        }
        let node = self.add_element_node(&tag, attributes);
        self.image_alt_text(&tag, element, attributes);
        if !element.can_have_content() {
            self.void_element_layout(&tag, attributes);
            return None;
        }
        if tag == "title" && self.title.is_none() {
            self.in_title = true;
        }

        let (context, in_link, tokens, named_at) = if self.options.evidence {
            let parent = self.stack.last();
            let (own, tokens, leanings) = evidence::context_and_tokens(&tag, attributes);
            let inherited = parent.map_or(NamedAt::default(), |open| open.named_at);
            let here = self.stack.len();
            (
                parent.map_or(0, |open| open.context) | own,
                parent.is_some_and(|open| open.in_link) || tag == "a",
                tokens,
                NamedAt {
                    boilerplate: leanings
                        .boilerplate
                        .then_some(here)
                        .or(inherited.boilerplate),
                    content: leanings.content.then_some(here).or(inherited.content),
                },
            )
        } else {
            (0, false, ClassTokens::default(), NamedAt::default())
        };
        let hidden = self.stack.last().is_some_and(|parent| parent.hidden)
            || element_hides_text(&tag, attributes);
        self.reopen_parent_block();
        let mut block = self.stack.last().and_then(|parent| parent.block);
        let mut owns_block = false;
        let mut block_path = self.stack.last().map_or(0, |parent| parent.block_path);
        if self.starts_block(&tag) && !hidden {
            if self.options.block_tree_positions {
                block_path = self.next_block_tree_path();
            }
            if self.blocks.len() < self.limits.max_blocks {
                let position = if self.options.block_tree_positions {
                    block_path
                } else {
                    path
                };
                let style = BlockStyle::of_element(position, &tag, attributes);
                let mut fresh = BlockUnderConstruction::new(style, is_heading(&tag));
                if self.options.evidence {
                    fresh.evidence = self.block_evidence(&tag, context, &tokens, named_at);
                }
                self.blocks.push(fresh);
                block = Some(self.blocks.len() - 1);
                owns_block = true;
            } else {
                self.limited.get_or_insert(PageLimit::Blocks);
            }
        }
        let shaped = if hidden {
            ShapedElement::default()
        } else {
            self.shape_element(&tag, attributes)
        };
        let serial = self.next_serial;
        self.next_serial += 1;
        self.stack.push(OpenElement {
            serial,
            tag,
            path,
            children: 0,
            block_path,
            block_children: 0,
            block,
            reopen: false,
            owns_block,
            hidden,
            node,
            context,
            in_link,
            tokens,
            named_at,
            in_layout: shaped.in_layout,
            preformatted: shaped.preformatted,
            preformatted_mark: shaped.preformatted_mark,
            language: shaped.language,
        });
        Some(serial)
    }

    /// The block-tree position path of a block starting now: the next index among the blocks
    /// directly under the nearest open element that started a block (or under the root).
    fn next_block_tree_path(&mut self) -> u64 {
        let parent = self.stack.iter_mut().rev().find(|open| open.owns_block);
        next_child_path(
            parent.map(|parent| (parent.block_path, &mut parent.block_children)),
            &mut self.root_block_children,
        )
    }

    /// The evidence of a block starting at an element `tag` with `context`, `tokens` and
    /// `named_at`, under the elements open now.
    fn block_evidence(
        &self,
        tag: &str,
        context: u32,
        tokens: &[u32],
        named_at: NamedAt,
    ) -> BlockEvidence {
        // Its own tokens and those of its two nearest ancestors that have any, each tagged
        // with its level: at most `MAX_TOKENS` in all.
        let mut token_bits = evidence::token_bits(tokens.iter().copied());
        let named_ancestors = self
            .stack
            .iter()
            .rev()
            .filter(|open| !open.tokens.is_empty());
        for (open, level) in named_ancestors.zip(1..=2) {
            let tagged = open
                .tokens
                .iter()
                .map(|&token| evidence::token_at_level(token, level));
            token_bits |= evidence::token_bits(tagged);
        }
        // The block's own element (the next serial) first, then the elements open around it.
        let own = std::iter::once(self.next_serial as u32);
        let ancestors =
            Ancestors::new(own.chain(self.stack.iter().rev().map(|open| open.serial as u32)));
        let (levels_to_boilerplate_name, levels_to_content_name) =
            named_at.levels_from(self.stack.len());
        BlockEvidence {
            link_bytes: 0,
            context,
            heading_level: heading_level(tag),
            depth: self.stack.len().min(u16::MAX as usize) as u16,
            tag: evidence::tag_code(tag),
            token_bits,
            ancestors,
            levels_to_boilerplate_name,
            levels_to_content_name,
        }
    }

    /// Whether an element of `tag` starts a block at this granularity.
    fn starts_block(&self, tag: &str) -> bool {
        match self.options.granularity {
            Granularity::Layout | Granularity::TextNodes { .. } => is_layout_element(tag),
            Granularity::Table { with_layout } => {
                tag == "body" || is_table_element(tag) || (with_layout && is_layout_element(tag))
            }
        }
    }

    /// Adds an element to the DOM tree, if one is built; returns its node.
    fn add_element_node(&mut self, tag: &str, attributes: &ElementAttributes<'_, '_>) -> u32 {
        let parent = self.stack.last().map_or(0, |open| open.node);
        match &mut self.tree {
            Some(tree) => tree.push(parent, element_label(tag, attributes), None),
            None => 0,
        }
    }

    /// When a block boundary inside the current element has closed, its later text starts a
    /// new block of the same style (blocks cut at both ends of boundary elements).
    fn reopen_parent_block(&mut self) {
        let (reopen, block) = match self.stack.last() {
            Some(open) => (open.reopen, open.block),
            None => (self.root_reopen, self.root_block),
        };
        if !reopen {
            return;
        }
        let Some(block) = block else { return };
        let renewed = self.continue_block(block);
        match self.stack.last_mut() {
            Some(open) => {
                open.block = Some(renewed);
                open.reopen = false;
            }
            None => {
                self.root_block = Some(renewed);
                self.root_reopen = false;
            }
        }
    }

    /// A new block continuing `block` (same style and evidence, no text yet), or `block` itself
    /// once the page has as many blocks as the limit allows.
    fn continue_block(&mut self, block: usize) -> usize {
        if self.blocks.len() < self.limits.max_blocks {
            let fresh = self.blocks[block].continued();
            self.blocks.push(fresh);
            self.blocks.len() - 1
        } else {
            self.limited.get_or_insert(PageLimit::Blocks);
            block
        }
    }

    /// An end tag of the element opened with `serial`: it and everything opened after it
    /// close. Does nothing if it was already closed implicitly.
    pub(super) fn close(&mut self, serial: u64) {
        if let Some(at) = self.stack.iter().rposition(|open| open.serial == serial) {
            self.pop_to(at);
        }
    }

    /// A chunk of a text node. `decode` says whether character references apply.
    /// `script_or_raw` marks script and raw-text content (style, noscript, …), which is never
    /// visible, even inside elements too deep to be tracked.
    /// `source` is the chunk's byte range in the page's HTML.
    pub(super) fn text(
        &mut self,
        chunk: &str,
        decode: bool,
        script_or_raw: bool,
        last_in_node: bool,
        source: std::ops::Range<usize>,
    ) {
        // `<xmp>`'s content is raw text that is shown, as written.
        let shown_raw = script_or_raw && self.stack.last().is_some_and(|open| open.tag == "xmp");
        if script_or_raw && !shown_raw {
            self.pending_text.clear();
            self.pending_source = None;
            return;
        }
        self.pending_text.push_str(chunk);
        self.pending_decode = decode;
        let span = self
            .pending_source
            .get_or_insert((source.start, source.end));
        span.1 = span.1.max(source.end);
        if !last_in_node {
            return;
        }
        // The node's text is read out of the buffer, which is then kept for the next node.
        let mut raw = std::mem::take(&mut self.pending_text);
        let span = self.pending_source.take().unwrap_or_default();
        if let Granularity::TextNodes { split_lines: true } = self.options.granularity
            && !self.in_title
        {
            let mut start = 0;
            for line in raw.split_inclusive('\n') {
                let at = span.0 + start;
                start += line.len();
                self.text_node(line, decode, (at, at + line.len()));
            }
        } else {
            self.text_node(&raw, decode, span);
        }
        raw.clear();
        self.pending_text = raw;
    }

    /// A whole text node (or, cutting at lines, one line of it).
    fn text_node(&mut self, raw: &str, decode: bool, span: (usize, usize)) {
        let text = if decode {
            htmlize::unescape(raw)
        } else {
            raw.into()
        };
        if self.in_title {
            let title = self.title.get_or_insert_with(String::new);
            append_collapsed(title, &text);
            return;
        }
        let is_whitespace = text.chars().all(char::is_whitespace);
        if !is_whitespace && self.stack.last().is_some_and(|open| open.tag == "head") {
            // Text cannot be in the head: the body has begun without a <body> tag.
            self.close_head();
        }
        if self.stack.last().is_some_and(|open| open.hidden) {
            return;
        }
        let preformatted = self.stack.last().is_some_and(|open| open.preformatted);
        let text_nodes = matches!(self.options.granularity, Granularity::TextNodes { .. });
        if is_whitespace {
            if preformatted {
                // Between text nodes each their own block, white space goes with the text
                // before it: kept when that is.
                let block = match self.last_text_block {
                    Some(block) if text_nodes => block,
                    _ => self.current_block(),
                };
                self.preformatted_text(block, &text);
            }
            if !text.is_empty() {
                self.separate_words();
            }
            return;
        }
        let parent_path = self.stack.last().map_or(0, |open| open.path);
        let block = if text_nodes {
            let style_of = self.current_block();
            self.continue_block(style_of)
        } else {
            self.current_block()
        };
        self.last_text_block = Some(block);
        if preformatted {
            self.preformatted_text(block, &text);
        }
        let in_link = self.stack.last().is_some_and(|open| open.in_link);
        let target = &mut self.blocks[block];
        let before = target.text.len();
        append_collapsed(&mut target.text, &text);
        if in_link {
            target.evidence.link_bytes += (target.text.len() - before) as u32;
        }
        target.runs.push(TextRun {
            end: target.text.len() as u32,
            path: parent_path,
        });
        if !preformatted {
            self.layout.push(Mark::Text {
                block: block as u32,
                start: before as u32,
                end: target.text.len() as u32,
            });
        }
        let span = (span.0 as u32, span.1 as u32);
        target.source = Some(match target.source {
            Some((start, end)) => (start.min(span.0), end.max(span.1)),
            None => span,
        });
        if let Some(tree) = &mut self.tree {
            let parent = self.stack.last().map_or(0, |open| open.node);
            let label = stable_hash_bytes(text.trim().as_bytes());
            tree.push(parent, label, Some(block as u32));
        }
    }

    /// The title, the non-empty blocks in the order they started, the DOM tree and links if
    /// asked for, and which limit was reached.
    pub(super) fn finish(mut self) -> Finished {
        if !self.pending_text.is_empty() {
            let end = self.pending_source.map_or(0, |span| span.1);
            self.text("", self.pending_decode, false, true, end..end);
        }
        let title = self.title.unwrap_or_default().trim().to_string();
        let mut renumbered = vec![u32::MAX; self.blocks.len()];
        let mut text_lengths = Vec::with_capacity(self.blocks.len());
        let mut blocks = Vec::with_capacity(self.blocks.len());
        for (index, block) in self.blocks.into_iter().enumerate() {
            let mut text = block.text;
            text.truncate(text.trim_end().len());
            if text.is_empty() {
                continue;
            }
            // The room the text grew into is handed back where it lies (glibc's realloc to a
            // smaller size does not copy), where a trimmed copy allocated and copied it all.
            text.shrink_to_fit();
            let mut runs = block.runs;
            for run in &mut runs {
                run.end = run.end.min(text.len() as u32);
            }
            renumbered[index] = blocks.len() as u32;
            text_lengths.push(text.len() as u32);
            blocks.push(RawBlock {
                style: block.style,
                text,
                heading: block.heading,
                runs,
                source: block.source.unwrap_or_default(),
                evidence: block.evidence,
            });
        }
        let tree = self.tree.map(|mut tree| {
            tree.renumber_blocks(&renumbered);
            tree
        });
        let mut layout = self.layout;
        layout.renumber_blocks(&renumbered, &text_lengths);
        Finished {
            title,
            blocks,
            limited: self.limited,
            tree,
            links: self.links,
            layout,
        }
    }

    fn current_block(&mut self) -> usize {
        self.reopen_parent_block();
        if let Some(block) = self.stack.last().and_then(|open| open.block) {
            return block;
        }
        *self.root_block.get_or_insert_with(|| {
            self.blocks.push(BlockUnderConstruction::new(
                BlockStyle::of(0, &StyleAttributes::root()),
                false,
            ));
            self.blocks.len() - 1
        })
    }

    /// Ends the current word: a block-level boundary inside the current block.
    fn separate_words(&mut self) {
        // The block the next text would go to (see `current_block`), if it exists yet.
        let block = self
            .stack
            .last()
            .and_then(|open| open.block)
            .or(self.root_block);
        if let Some(block) = block {
            let text = &mut self.blocks[block].text;
            if !text.is_empty() && !text.ends_with(' ') {
                text.push(' ');
                if !self.stack.last().is_some_and(|open| open.preformatted) {
                    let end = text.len() as u32;
                    self.layout.push(Mark::Text {
                        block: block as u32,
                        start: end - 1,
                        end,
                    });
                }
            }
        }
    }

    fn pop_to(&mut self, at: usize) {
        while self.stack.len() > at {
            if let Some(open) = self.stack.pop() {
                if open.tag == "title" {
                    self.in_title = false;
                }
                if open.in_layout {
                    self.layout.close();
                }
                if self.options.granularity != Granularity::Layout {
                    match self.stack.last_mut() {
                        // A closed block: what follows in the parent is a new block.
                        Some(parent) if open.owns_block => parent.reopen = true,
                        None if open.owns_block => self.root_reopen = true,
                        // An element sharing its parent's block hands back where that block
                        // now continues, so text after it keeps its order.
                        Some(parent) => {
                            parent.reopen |= open.reopen;
                            if open.block.is_some() {
                                parent.block = open.block;
                            }
                        }
                        None => {
                            self.root_reopen |= open.reopen;
                            if open.block.is_some() {
                                self.root_block = open.block;
                            }
                        }
                    }
                }
                if !is_inline(&open.tag) {
                    self.separate_words();
                }
            }
        }
    }

    /// Closes what HTML closes implicitly before a start tag of `tag`.
    fn close_implied_by(&mut self, tag: &str) {
        if !belongs_in_head(tag) {
            self.close_head();
        }
        if closes_paragraph(tag) {
            self.close_nearest(&["p"], is_scope_boundary);
        }
        match tag {
            "li" => self.close_nearest(&["li"], |t| {
                matches!(t, "ul" | "ol" | "menu") || is_scope_boundary(t)
            }),
            "dt" | "dd" => self.close_nearest(&["dt", "dd"], |t| t == "dl" || is_scope_boundary(t)),
            "tr" => self.close_nearest(&["tr"], |t| {
                matches!(t, "table" | "tbody" | "thead" | "tfoot")
            }),
            "td" | "th" => self.close_nearest(&["td", "th"], |t| matches!(t, "tr" | "table")),
            "tbody" | "thead" | "tfoot" => {
                self.close_nearest(&["tbody", "thead", "tfoot"], |t| t == "table")
            }
            "option" => self.close_nearest(&["option"], |t| t == "select"),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if self.stack.last().is_some_and(|open| is_heading(&open.tag)) =>
            {
                self.pop_to(self.stack.len() - 1);
            }
            _ => {}
        }
    }

    /// Closes an open `<head>` (it can only sit right under the root or `<html>`).
    fn close_head(&mut self) {
        if let Some(at) = self
            .stack
            .iter()
            .take(2)
            .position(|open| open.tag == "head")
        {
            self.pop_to(at);
        }
    }

    fn close_nearest(&mut self, targets: &[&str], boundary: impl Fn(&str) -> bool) {
        for at in (0..self.stack.len()).rev() {
            let tag: &str = &self.stack[at].tag;
            if targets.contains(&tag) {
                self.pop_to(at);
                return;
            }
            if boundary(tag) {
                return;
            }
        }
    }
}

/// The position path of the next element child of a parent, given as its position path and
/// its count of children so far (which this counts up), or of the root (`root_children`).
fn next_child_path(parent: Option<(u64, &mut u32)>, root_children: &mut u32) -> u64 {
    let (parent_path, children) = parent.unwrap_or((0, root_children));
    *children += 1;
    child_path(parent_path, *children - 1)
}

/// A DOM node's label for Alarte et al.'s node equality: its tag and its attributes (names
/// and values, in order), links' targets excepted.
fn element_label(tag: &str, attributes: &ElementAttributes<'_, '_>) -> u64 {
    let mut bytes = Vec::with_capacity(64);
    bytes.extend_from_slice(tag.as_bytes());
    for attribute in attributes.iter() {
        if attribute.is("href") {
            continue;
        }
        bytes.push(0xff);
        attribute.push_lowercase_name(&mut bytes);
        bytes.push(b'=');
        bytes.extend_from_slice(attribute.value.as_bytes());
    }
    stable_hash_bytes(&bytes)
}

/// Whether an element hides its text by its tag ([`hides_text`]), a `hidden` attribute or an
/// inline style that hides it.
fn element_hides_text(tag: &str, attributes: &ElementAttributes<'_, '_>) -> bool {
    hides_text(tag)
        || attributes.has("hidden")
        || attributes
            .get("style")
            .is_some_and(|style| declares_display_none(&style))
}

fn declares_display_none(style: &str) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// U+00AD, a hyphen shown only where a line breaks.
const SOFT_HYPHEN: char = '\u{00AD}';

/// Appends `text` to `out`, collapsing runs of whitespace into one space and leaving out soft
/// hyphens (shown only where a line breaks, so a word written `Mit&shy;tel&shy;al&shy;ter`
/// is one word).
fn append_collapsed(out: &mut String, text: &str) {
    out.reserve(text.len());
    let mut rest = text;
    loop {
        // Characters up to the next whitespace or soft hyphen go over as they are.
        let bytes = rest.as_bytes();
        let mut end = 0;
        let separator = loop {
            match bytes.get(end) {
                None => break None,
                Some(&byte) if byte.is_ascii() => {
                    // `char::is_whitespace` holds the vertical tab too; ASCII's does not.
                    if byte.is_ascii_whitespace() || byte == 0x0B {
                        break Some(char::from(byte));
                    }
                    end += 1;
                }
                Some(_) => {
                    let c = rest[end..].chars().next().unwrap_or_default();
                    if c.is_whitespace() || c == SOFT_HYPHEN {
                        break Some(c);
                    }
                    end += c.len_utf8();
                }
            }
        };
        out.push_str(&rest[..end]);
        let Some(separator) = separator else {
            return;
        };
        if separator != SOFT_HYPHEN && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        rest = &rest[end + separator.len_utf8()..];
    }
}

#[cfg(test)]
mod tests;
