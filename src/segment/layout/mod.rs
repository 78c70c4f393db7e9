//! Layout: the page's shape beside its blocks. Segmentation records, in document order, the
//! elements that give text its lines and its Markdown (headings, paragraphs, lists, quotes,
//! preformatted code, table rows and cells, line breaks, inline code, emphasis, links,
//! images) as [`Mark`]s, and where each text node's words went (a span of its block's
//! collapsed text, or for preformatted text the exact characters). Detection never reads it.
//!
//! Rendering takes the marks and a keep/drop decision per block and writes the kept text as
//! lines ([`Layout::plain_text`]) or as CommonMark with GitHub tables ([`Layout::markdown`]).
//! A dropped block's text leaves nothing behind: an element none of whose text is kept is not
//! written at all.

mod literal;
mod markdown;
mod packed;
mod text;

pub use literal::with_line_feeds;
pub use markdown::MarkdownOptions;
pub use text::{BlockRun, TextPiece};

use std::borrow::Cow;

use super::Block;
use packed::PackedMarks;

/// The most structural marks (element starts and ends) one page records; past it, text is
/// still recorded and the elements that open after it are left flat.
pub const MAX_STRUCTURE_MARKS: usize = 1 << 21;

/// The widest table (in columns, after `colspan`) written as a Markdown table; a wider one is
/// written as its cells' lines.
pub const MAX_TABLE_COLUMNS: usize = 256;

/// The largest `colspan` followed.
pub const MAX_COLSPAN: u16 = 1000;

/// A range of [`Layout`]'s own string store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoredText {
    start: u32,
    end: u32,
}

impl StoredText {
    fn is_empty(self) -> bool {
        self.start >= self.end
    }
}

/// An element that shapes the text inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Any other block-level element (div, section, body, …): its text starts a line.
    Block,
    /// `<p>`.
    Paragraph,
    /// `<h1>`–`<h6>`, with its level.
    Heading(u8),
    /// `<ul>`, `<ol>`, `<menu>`, `<dir>`.
    List {
        ordered: bool,
        /// The `start` attribute, if any (held within `i32`: Markdown writes nine digits).
        start: Option<i32>,
        reversed: bool,
    },
    /// `<li>`, with its `value` attribute, if any.
    Item(Option<i32>),
    /// `<dt>`.
    Term,
    /// `<dd>`.
    Definition,
    /// `<blockquote>`.
    Quote,
    /// `<pre>` and the other elements whose whitespace is kept, with the code's language
    /// when the page names it.
    Preformatted(Option<StoredText>),
    /// `<table>`; `presentation` when its role says it is for layout only.
    Table { presentation: bool },
    /// `<caption>`.
    Caption,
    /// `<tr>`.
    Row,
    /// `<td>`, `<th>`.
    Cell { header: bool, colspan: u16 },
    /// `<code>`, `<kbd>`, `<samp>`, `<tt>` outside preformatted text.
    Code,
    /// `<em>`, `<i>`.
    Emphasis,
    /// `<strong>`, `<b>`.
    Strong,
    /// `<a href>`, with the target as written.
    Link(StoredText),
    /// A code listing's line-number column: never written.
    Gutter,
}

impl Shape {
    /// Whether the shape starts a line of its own (a block-level element).
    fn is_block_level(self) -> bool {
        !matches!(
            self,
            Shape::Code | Shape::Emphasis | Shape::Strong | Shape::Link(_) | Shape::Gutter
        )
    }
}

/// One event of a page's layout, in document order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// An element of this shape starts.
    Open(Shape),
    /// The element opened last and not yet closed ends.
    Close,
    /// Text of block `block`: bytes `start..end` of its collapsed text.
    Text { block: u32, start: u32, end: u32 },
    /// Preformatted text of block `block`, exactly as written (entities decoded).
    Literal { block: u32, text: StoredText },
    /// `<br>`.
    Break,
    /// `<img>` in block `block`: its `alt` text and `src` are [`Layout`]'s image `image`.
    Image { block: u32, image: u32 },
}

/// The layout of one page: its marks and the strings they refer to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    marks: Vec<Mark>,
    /// The marks while the page waits for its decision ([`Layout::pack`]); `marks` is then
    /// empty.
    packed: Option<PackedMarks>,
    strings: String,
    /// Each image's `alt` text and `src`.
    images: Vec<(StoredText, StoredText)>,
    structure_marks: usize,
}

impl Layout {
    /// Whether nothing was recorded (a page put together by hand, not segmented).
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty() && self.packed.is_none()
    }

    /// The marks, in document order (read back from their packed form when packed).
    pub fn marks(&self) -> Cow<'_, [Mark]> {
        match &self.packed {
            Some(packed) => Cow::Owned(packed.unpack()),
            None => Cow::Borrowed(&self.marks),
        }
    }

    /// Packs the marks a few bytes each (a mark takes 16 bytes, an element's end one packed):
    /// for a page that waits for its decision. Rendering reads them back; what it writes is
    /// the same. `lines_only`: the page will only be written as lines, so its links' targets,
    /// which only Markdown writes, are let go too (Markdown written afterwards has its links'
    /// text alone). Recording more marks needs [`Self::unpack`] first.
    pub fn pack(&mut self, lines_only: bool) {
        if self.packed.is_some() || self.marks.is_empty() {
            return;
        }
        if lines_only {
            self.forget_link_targets();
        }
        self.packed = Some(PackedMarks::pack(&self.marks));
        self.marks = Vec::new();
    }

    /// Empties the links' targets and moves the strings still referred to (preformatted
    /// text, code languages, images) to a store of their own size.
    fn forget_link_targets(&mut self) {
        let old = std::mem::take(&mut self.strings);
        let mut strings = String::new();
        let mut keep = |stored: &mut StoredText| {
            let text = stored_in(&old, *stored);
            let start = strings.len() as u32;
            strings.push_str(text);
            *stored = StoredText {
                start,
                end: strings.len() as u32,
            };
        };
        for mark in &mut self.marks {
            match mark {
                Mark::Open(Shape::Link(target)) => *target = StoredText::default(),
                Mark::Open(Shape::Preformatted(Some(stored)))
                | Mark::Literal { text: stored, .. } => keep(stored),
                _ => {}
            }
        }
        for (alt, source) in &mut self.images {
            keep(alt);
            keep(source);
        }
        strings.shrink_to_fit();
        self.strings = strings;
    }

    /// Undoes [`Self::pack`].
    pub fn unpack(&mut self) {
        if let Some(packed) = self.packed.take() {
            self.marks = packed.unpack();
        }
    }

    /// Approximate bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.marks.capacity() * std::mem::size_of::<Mark>()
            + self.packed.as_ref().map_or(0, PackedMarks::heap_bytes)
            + self.strings.capacity()
            + self.images.capacity() * std::mem::size_of::<(StoredText, StoredText)>()
    }

    /// Gives back the room grown past what the page needed (a layout is kept with each page
    /// waiting for its decision).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.marks.shrink_to_fit();
        self.strings.shrink_to_fit();
        self.images.shrink_to_fit();
    }

    /// Stores `text`; returns where it lies.
    pub(crate) fn store(&mut self, text: &str) -> StoredText {
        let start = self.strings.len() as u32;
        self.strings.push_str(text);
        StoredText {
            start,
            end: self.strings.len() as u32,
        }
    }

    /// The text stored at `stored`.
    pub fn stored(&self, stored: StoredText) -> &str {
        stored_in(&self.strings, stored)
    }

    /// Records an element's start, unless the page has recorded [`MAX_STRUCTURE_MARKS`]
    /// already. Returns the mark's index when recorded: its end must then be recorded too.
    pub(crate) fn open(&mut self, shape: Shape) -> Option<usize> {
        if self.structure_marks >= MAX_STRUCTURE_MARKS {
            return None;
        }
        debug_assert!(self.packed.is_none(), "marks recorded after packing");
        self.structure_marks += 2;
        self.marks.push(Mark::Open(shape));
        Some(self.marks.len() - 1)
    }

    /// Records the end of the element opened last.
    pub(crate) fn close(&mut self) {
        self.marks.push(Mark::Close);
    }

    /// Sets the language of the preformatted element whose start is mark `at`, if it has none.
    pub(crate) fn name_language(&mut self, at: usize, language: StoredText) {
        self.unpack();
        if let Some(Mark::Open(Shape::Preformatted(named @ None))) = self.marks.get_mut(at) {
            *named = Some(language);
        }
    }

    /// Records an image of block `block`.
    pub(crate) fn push_image(&mut self, block: u32, alt: &str, source: &str) {
        if self.structure_marks >= MAX_STRUCTURE_MARKS {
            return;
        }
        let image = (self.store(alt), self.store(source));
        self.push(Mark::Image {
            block,
            image: self.images.len() as u32,
        });
        self.images.push(image);
    }

    /// Records a mark that opens and closes nothing.
    pub(crate) fn push(&mut self, mark: Mark) {
        if matches!(mark, Mark::Break | Mark::Image { .. }) {
            if self.structure_marks >= MAX_STRUCTURE_MARKS {
                return;
            }
            self.structure_marks += 1;
        }
        self.marks.push(mark);
    }

    /// Gives the blocks their final numbers (`u32::MAX`: the block was left out).
    pub(crate) fn renumber_blocks(&mut self, renumbered: &[u32], text_lengths: &[u32]) {
        self.unpack();
        for mark in &mut self.marks {
            let block = match mark {
                Mark::Text { block, .. }
                | Mark::Literal { block, .. }
                | Mark::Image { block, .. } => block,
                _ => continue,
            };
            *block = renumbered.get(*block as usize).copied().unwrap_or(u32::MAX);
            if let Mark::Text { block, start, end } = mark
                && let Some(&length) = text_lengths.get(*block as usize)
            {
                *end = (*end).min(length);
                *start = (*start).min(*end);
            }
        }
        self.marks.shrink_to_fit();
        self.strings.shrink_to_fit();
        self.images.shrink_to_fit();
    }

    /// The kept text as lines: each block-level element's text starts a line, a table row is
    /// a line with its cells separated by tabs, preformatted text keeps its every line and
    /// space, and whitespace elsewhere collapses as a browser collapses it.
    pub fn plain_text(&self, blocks: &[Block], keep: impl Fn(usize) -> bool) -> String {
        text::render(&self.tree(blocks, &keep, false))
    }

    /// [`Self::plain_text`] with the runs of it that each block's text makes (the spaces,
    /// tabs and line ends between them belong to no block).
    pub fn plain_text_by_block(
        &self,
        blocks: &[Block],
        keep: impl Fn(usize) -> bool,
    ) -> (String, Vec<BlockRun>) {
        text::render_by_block(&self.tree(blocks, &keep, false))
    }

    /// The kept text as CommonMark with GitHub tables.
    pub fn markdown(
        &self,
        blocks: &[Block],
        keep: impl Fn(usize) -> bool,
        options: &MarkdownOptions,
    ) -> String {
        markdown::render(self, &self.tree(blocks, &keep, options.images), options)
    }

    /// Each of the first `count` blocks' own text laid out alone, as prose and code pieces
    /// (what a page view shows of one block). A block's text is laid out from the marks
    /// between its first and its last; past `max_marks` marks read in all, the blocks left
    /// get their collapsed text as one prose piece.
    pub fn block_pieces(
        &self,
        blocks: &[Block],
        count: usize,
        max_marks: usize,
    ) -> Vec<Vec<TextPiece>> {
        let count = count.min(blocks.len());
        let marks = self.marks();
        let mut spans = vec![(usize::MAX, 0); count];
        for (at, mark) in marks.iter().enumerate() {
            let block = match *mark {
                Mark::Text { block, .. } | Mark::Literal { block, .. } => block as usize,
                _ => continue,
            };
            if let Some(span) = spans.get_mut(block) {
                span.0 = span.0.min(at);
                span.1 = at;
            }
        }
        // A block's span takes in the starts of elements just before its first text and the
        // ends just after its last: a listing whose text is all one block is one listing.
        for span in &mut spans {
            if span.0 > span.1 {
                continue;
            }
            while span.0 > 0 && matches!(marks[span.0 - 1], Mark::Open(_)) {
                span.0 -= 1;
            }
            while span.1 + 1 < marks.len() && matches!(marks[span.1 + 1], Mark::Close) {
                span.1 += 1;
            }
        }
        let mut budget = max_marks;
        spans
            .iter()
            .enumerate()
            .map(|(index, &(first, last))| {
                let read = last.saturating_sub(first) + 1;
                if first > last || read > budget {
                    return vec![TextPiece::prose(blocks[index].text.clone())];
                }
                budget -= read;
                let tree =
                    self.tree_of(&marks[first..=last], blocks, &|block| block == index, false);
                text::render_pieces(&tree)
            })
            .collect()
    }

    /// The kept part of the layout as a tree: elements with nothing kept inside left out.
    fn tree<'a>(
        &'a self,
        blocks: &'a [Block],
        keep: &dyn Fn(usize) -> bool,
        images: bool,
    ) -> Vec<Node<'a>> {
        self.tree_of(&self.marks(), blocks, keep, images)
    }

    /// The tree of `marks`, a run of this layout's marks (a close without its start is passed
    /// over, an element still open at the end ends there).
    fn tree_of<'a>(
        &'a self,
        marks: &[Mark],
        blocks: &'a [Block],
        keep: &dyn Fn(usize) -> bool,
        images: bool,
    ) -> Vec<Node<'a>> {
        let kept = |block: u32| (block as usize) < blocks.len() && keep(block as usize);
        // Each open element with its children so far and whether any of them has content.
        let mut stack: Vec<(Shape, Vec<Node<'a>>, bool)> = Vec::new();
        let mut top: Vec<Node<'a>> = Vec::new();
        let push = |stack: &mut Vec<(Shape, Vec<Node<'a>>, bool)>,
                    top: &mut Vec<Node<'a>>,
                    node: Node<'a>,
                    content: bool| match stack.last_mut() {
            Some((_, children, has_content)) => {
                *has_content |= content;
                children.push(node);
            }
            None => top.push(node),
        };
        // Text of another block than the text before it is set apart from it, as each block's
        // text always was (a text node is a block of its own at `Granularity::TextNodes`).
        let mut last_text_block = u32::MAX;
        for mark in marks {
            if let Mark::Text { block, .. } = *mark
                && block != last_text_block
                && kept(block)
            {
                if last_text_block != u32::MAX {
                    push(&mut stack, &mut top, Node::Text(" ", NO_BLOCK), false);
                }
                last_text_block = block;
            }
            let (node, content) = match *mark {
                Mark::Open(shape) => {
                    stack.push((shape, Vec::new(), false));
                    continue;
                }
                Mark::Close => {
                    let Some((shape, children, content)) = stack.pop() else {
                        continue;
                    };
                    // An empty cell stays, so that the cells after it keep their columns.
                    if !content && !matches!(shape, Shape::Cell { .. }) {
                        // An inline element holding only whitespace (`<i> </i>`) is not
                        // written, but its space and line breaks still part the words around.
                        if !shape.is_block_level() && shape != Shape::Gutter {
                            for node in blank_inline_remains(children) {
                                push(&mut stack, &mut top, node, false);
                            }
                        }
                        continue;
                    }
                    (
                        Node::Element(shape, children),
                        content && shape != Shape::Gutter,
                    )
                }
                Mark::Text { block, start, end } => {
                    if !kept(block) {
                        continue;
                    }
                    let text = &blocks[block as usize].text;
                    match text.get(start as usize..end as usize) {
                        Some(span) if !span.is_empty() => {
                            (Node::Text(span, block), !span.trim().is_empty())
                        }
                        // Whitespace the block's end trimmed: it still separates what is
                        // around it (an image after it, the next block's text).
                        Some(_) => (Node::Text(" ", block), false),
                        None => continue,
                    }
                }
                Mark::Literal { block, text } => {
                    if !kept(block) || text.is_empty() {
                        continue;
                    }
                    (Node::Literal(self.stored(text), block), true)
                }
                Mark::Break => (Node::Break, false),
                Mark::Image { block, image } => {
                    let Some(&(alt, source)) = self.images.get(image as usize) else {
                        continue;
                    };
                    if !images || !kept(block) || source.is_empty() {
                        continue;
                    }
                    let image = Node::Image {
                        alt: self.stored(alt),
                        source: self.stored(source),
                    };
                    (image, true)
                }
            };
            push(&mut stack, &mut top, node, content);
        }
        // Elements still open at the end of the page end there.
        while let Some((shape, children, content)) = stack.pop() {
            if !content {
                continue;
            }
            let node = Node::Element(shape, children);
            push(&mut stack, &mut top, node, shape != Shape::Gutter);
        }
        top
    }
}

/// The text at `stored` in a layout's string store `strings` (empty when out of range).
fn stored_in(strings: &str, stored: StoredText) -> &str {
    strings
        .get(stored.start as usize..stored.end as usize)
        .unwrap_or("")
}

/// What an inline element without content leaves in its parent: one space for any run of
/// its whitespace, and its line breaks.
fn blank_inline_remains(children: Vec<Node<'_>>) -> Vec<Node<'_>> {
    let mut remains: Vec<Node<'_>> = Vec::new();
    for child in children {
        match child {
            Node::Text(_, block) if !matches!(remains.last(), Some(Node::Text(..))) => {
                remains.push(Node::Text(" ", block));
            }
            Node::Break => remains.push(Node::Break),
            _ => {}
        }
    }
    remains
}

/// The block of the space a layout's tree puts between two blocks' texts: none.
pub const NO_BLOCK: u32 = u32::MAX;

/// The kept layout of a page, as a tree.
#[derive(Debug)]
enum Node<'a> {
    Element(Shape, Vec<Node<'a>>),
    /// Collapsed text (it may start or end with one space), and the block it is of
    /// ([`NO_BLOCK`] for the space the tree puts between blocks).
    Text(&'a str, u32),
    /// Preformatted text, and the block it is of.
    Literal(&'a str, u32),
    Break,
    Image {
        alt: &'a str,
        source: &'a str,
    },
}

impl Node<'_> {
    /// Whether the node holds text (or an image) to write.
    fn has_content(&self) -> bool {
        match self {
            Node::Element(Shape::Gutter, _) | Node::Break => false,
            Node::Element(_, children) => children.iter().any(Node::has_content),
            Node::Text(text, _) => !text.trim().is_empty(),
            Node::Literal(text, _) => !text.is_empty(),
            Node::Image { .. } => true,
        }
    }
}

/// The language a code element's `class` (or `data-lang`) names: `language-rust`,
/// `lang-js`, `highlight-python3` (Sphinx), `highlight-source-rust` (GitHub), `brush: js;`
/// (SyntaxHighlighter), `sourceCode python` (Pandoc).
pub fn language_in_class(class: &str) -> Option<&str> {
    const NOT_LANGUAGES: [&str; 8] = [
        "default",
        "none",
        "text",
        "plain",
        "plaintext",
        "nohighlight",
        "notranslate",
        "source",
    ];
    let mut tokens = class.split_ascii_whitespace().peekable();
    let mut found = None;
    while let Some(token) = tokens.next() {
        let named = if let Some(rest) = strip_prefix_ignore_case(token, "language-")
            .or_else(|| strip_prefix_ignore_case(token, "lang-"))
        {
            Some(rest)
        } else if let Some(rest) = strip_prefix_ignore_case(token, "highlight-") {
            Some(strip_prefix_ignore_case(rest, "source-").unwrap_or(rest))
        } else if token.eq_ignore_ascii_case("brush:") || token.eq_ignore_ascii_case("sourcecode") {
            tokens.peek().copied()
        } else {
            strip_prefix_ignore_case(token, "brush:")
        };
        let Some(named) = named else { continue };
        let named = named.trim_end_matches(';');
        let valid = !named.is_empty()
            && named.len() <= 32
            && named
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+#._-".contains(&b))
            && !NOT_LANGUAGES
                .iter()
                .any(|not| named.eq_ignore_ascii_case(not));
        if valid {
            found = Some(named);
            break;
        }
    }
    found
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
        .filter(|rest| !rest.is_empty())
}

/// Whether an element's `class` marks it as a code listing's line-number column (Sphinx and
/// Pygments `linenos`, Doxygen `lineno`, Prism `line-numbers-rows`, Chroma `lnt`, GitHub
/// `blob-num`, highlight.js `hljs-ln-numbers`, CodeMirror and Ace `gutter`).
pub fn is_gutter_class(class: &str) -> bool {
    const GUTTERS: [&str; 12] = [
        "linenos",
        "linenodiv",
        "lineno",
        "line-numbers-rows",
        "lnt",
        "blob-num",
        "hljs-ln-numbers",
        "gutter",
        "ace_gutter",
        "codemirror-gutters",
        "line-number",
        "linenumber",
    ];
    class.split_ascii_whitespace().any(|token| {
        GUTTERS
            .iter()
            .any(|gutter| token.eq_ignore_ascii_case(gutter))
    })
}

#[cfg(test)]
mod tests;
