//! The kept layout as CommonMark with GitHub tables: a tree of kept elements in, Markdown out.
//!
//! Headings are ATX headings; lists keep their nesting and numbering; quotes are `>` blocks;
//! preformatted text is a fenced code block (a fence longer than any run of backticks inside,
//! the language when the page names it); data tables are pipe tables, layout tables the blocks
//! they hold; inline code, emphasis and strong are marked; links and images only when asked.
//! Text that would read as Markdown syntax is escaped.

use std::collections::{HashMap, HashSet};

use url::Url;

use super::text::{code_lines, collect_literal};
use super::{Layout, MAX_COLSPAN, MAX_TABLE_COLUMNS, Node, Shape};

/// What Markdown writes beside the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Links as `[text](absolute URL)` (otherwise their text alone).
    pub links: bool,
    /// Images as `![alt](absolute URL)` (otherwise nothing).
    pub images: bool,
    /// The page's URL, which relative links and images are resolved against.
    pub base_url: String,
}

/// The Markdown of `nodes`, blocks separated by a blank line, without a line end after the
/// last line.
pub(super) fn render(layout: &Layout, nodes: &[Node<'_>], options: &MarkdownOptions) -> String {
    let writer = Writer {
        layout,
        options,
        base: Url::parse(&options.base_url).ok(),
        nesting: std::cell::Cell::new(0),
    };
    let blocks = writer.blocks(nodes);
    let mut out = String::new();
    for block in blocks {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&block.join("\n"));
    }
    out
}

/// One Markdown block, as lines.
type MarkdownBlock = Vec<String>;

/// Quotes and lists nested deeper than this are written as the blocks they hold: each level
/// prefixes every line below it, so deeper nesting would make output grow with the square of
/// the depth.
pub const MAX_MARKDOWN_NESTING: u32 = 16;

struct Writer<'o> {
    layout: &'o Layout,
    options: &'o MarkdownOptions,
    base: Option<Url>,
    /// Quotes and lists open around the block being written.
    nesting: std::cell::Cell<u32>,
}

/// Where inline text is written, which decides what must be escaped and what a line break is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// A paragraph: line breaks are hard breaks.
    Paragraph,
    /// A heading: one line, `#` escaped.
    Heading,
    /// A table cell: one line, `|` escaped.
    Cell,
}

impl Writer<'_> {
    /// The blocks of `nodes`: runs of inline nodes become paragraphs.
    fn blocks(&self, nodes: &[Node<'_>]) -> Vec<MarkdownBlock> {
        let mut blocks = Vec::new();
        let mut inline: Vec<&Node<'_>> = Vec::new();
        for node in nodes {
            let block_level = match node {
                Node::Element(shape, _) => shape.is_block_level(),
                Node::Literal(_) => true,
                _ => false,
            };
            if block_level {
                self.paragraph(&inline, &mut blocks);
                inline.clear();
                self.block(node, &mut blocks);
            } else {
                inline.push(node);
            }
        }
        self.paragraph(&inline, &mut blocks);
        blocks
    }

    fn paragraph(&self, nodes: &[&Node<'_>], blocks: &mut Vec<MarkdownBlock>) {
        if nodes.is_empty() {
            return;
        }
        let mut inline = Inline::new(Context::Paragraph);
        for node in nodes {
            self.inline(node, &mut inline);
        }
        let text = inline.finish();
        let lines: Vec<String> = text
            .split('\n')
            .map(str::trim)
            .filter(|line| !line.is_empty() && *line != "\\")
            .map(escape_line_start)
            .collect();
        if let Some(last) = lines.last()
            && !last.is_empty()
        {
            let mut lines = lines;
            // A backslash ending the paragraph would be a literal one, not a break.
            if let Some(last) = lines.last_mut()
                && last.ends_with('\\')
                && !last.ends_with("\\\\")
            {
                last.pop();
                last.truncate(last.trim_end().len());
            }
            blocks.push(lines);
        }
    }

    fn block(&self, node: &Node<'_>, blocks: &mut Vec<MarkdownBlock>) {
        let (shape, children) = match node {
            Node::Element(shape, children) => (*shape, children.as_slice()),
            Node::Literal(text) => {
                blocks.extend(code_block(text, None));
                return;
            }
            _ => return,
        };
        let container = matches!(shape, Shape::Quote | Shape::List { .. } | Shape::Item(_));
        if container && self.nesting.get() >= MAX_MARKDOWN_NESTING {
            blocks.extend(self.blocks(children));
            return;
        }
        if container {
            self.nesting.set(self.nesting.get() + 1);
        }
        self.container_block(shape, node, children, blocks);
        if container {
            self.nesting.set(self.nesting.get() - 1);
        }
    }

    fn container_block(
        &self,
        shape: Shape,
        node: &Node<'_>,
        children: &[Node<'_>],
        blocks: &mut Vec<MarkdownBlock>,
    ) {
        match shape {
            Shape::Heading(level) => {
                let text = self.flat(children, Context::Heading);
                if !text.is_empty() {
                    let level = level.clamp(1, 6) as usize;
                    blocks.push(vec![format!("{} {text}", "#".repeat(level))]);
                }
            }
            Shape::List {
                ordered,
                start,
                reversed,
            } => {
                let numbering = ordered.then(|| {
                    let items = children
                        .iter()
                        .filter(|child| matches!(child, Node::Element(Shape::Item(_), _)))
                        .count() as i64;
                    let first = start.unwrap_or(if reversed { items } else { 1 });
                    (first, if reversed { -1 } else { 1 })
                });
                blocks.extend(self.list(children, numbering));
            }
            Shape::Item(_) => blocks.extend(self.list(std::slice::from_ref(node), None)),
            Shape::Quote => {
                let inner = self.blocks(children);
                if !inner.is_empty() {
                    let lines = join_blocks(inner)
                        .into_iter()
                        .map(|line| {
                            if line.is_empty() {
                                ">".to_string()
                            } else {
                                format!("> {line}")
                            }
                        })
                        .collect();
                    blocks.push(lines);
                }
            }
            Shape::Preformatted(_) => {
                let mut code = String::new();
                collect_literal(children, &mut code);
                let language = match shape {
                    Shape::Preformatted(Some(language)) => Some(self.layout.stored(language)),
                    _ => None,
                };
                blocks.extend(code_block(&code, language));
            }
            Shape::Table { presentation } => self.table(presentation, children, blocks),
            _ => blocks.extend(self.blocks(children)),
        }
    }

    /// A list's items, numbered from `numbering` (first number, step) when ordered.
    fn list(&self, children: &[Node<'_>], numbering: Option<(i64, i64)>) -> Vec<MarkdownBlock> {
        let mut lines = Vec::new();
        let mut number = numbering.map(|(first, _)| first);
        let is_item = |node: &Node<'_>| matches!(node, Node::Element(Shape::Item(_), _));
        let mut rest = children;
        while let Some(child) = rest.first() {
            // Content outside any item (stray text a browser shows in the list) is one item.
            let (value, content) = match child {
                Node::Element(Shape::Item(value), content) => {
                    rest = &rest[1..];
                    (*value, self.blocks(content))
                }
                _ => {
                    let stray = rest.iter().take_while(|node| !is_item(node)).count();
                    let (run, after) = rest.split_at(stray);
                    rest = after;
                    (None, self.blocks(run))
                }
            };
            if content.is_empty() {
                continue;
            }
            let marker = match (&mut number, numbering) {
                (Some(number), Some((_, step))) => {
                    if let Some(value) = value {
                        *number = value;
                    }
                    let marker = format!("{}.", (*number).clamp(0, 999_999_999));
                    *number = number.saturating_add(step);
                    marker
                }
                _ => "-".to_string(),
            };
            let indent = " ".repeat(marker.len() + 1);
            for (index, line) in join_item_blocks(content).into_iter().enumerate() {
                lines.push(if index == 0 {
                    format!("{marker} {line}")
                } else if line.is_empty() {
                    line
                } else {
                    format!("{indent}{line}")
                });
            }
        }
        if lines.is_empty() {
            Vec::new()
        } else {
            vec![lines]
        }
    }

    fn table(&self, presentation: bool, children: &[Node<'_>], blocks: &mut Vec<MarkdownBlock>) {
        let Some((parts, columns)) = data_table(presentation, children) else {
            blocks.extend(self.blocks(children));
            return;
        };
        for caption in &parts.captions {
            let text = self.flat(caption, Context::Paragraph);
            let lines: Vec<String> = (text.split('\n'))
                .filter(|line| !line.trim().is_empty())
                .map(escape_line_start)
                .collect();
            if !lines.is_empty() {
                blocks.push(lines);
            }
        }
        let mut lines = Vec::with_capacity(parts.rows.len() + 1);
        for (index, row) in parts.rows.iter().enumerate() {
            let mut cells = Vec::with_capacity(columns);
            for cell in row {
                cells.push(self.flat(cell.children, Context::Cell));
                for _ in 1..cell.colspan {
                    cells.push(String::new());
                }
            }
            cells.resize(columns, String::new());
            lines.push(format!("| {} |", cells.join(" | ")));
            if index == 0 {
                lines.push(format!("|{}", " --- |".repeat(columns)));
            }
        }
        blocks.push(lines);
    }

    /// `nodes` as one line of inline Markdown.
    fn flat(&self, nodes: &[Node<'_>], context: Context) -> String {
        let mut inline = Inline::new(context);
        for node in nodes {
            self.inline(node, &mut inline);
        }
        inline.finish()
    }

    fn inline(&self, node: &Node<'_>, out: &mut Inline) {
        match node {
            Node::Text(text) | Node::Literal(text) => out.text(text),
            Node::Break => out.line_break(),
            Node::Image { alt, source } => {
                if let Some(target) = self.absolute(source) {
                    let mut alt_text = Inline::new(out.context);
                    alt_text.text(alt);
                    out.markup(&format!("![{}]({target})", alt_text.finish()));
                }
            }
            Node::Element(shape, children) => match shape {
                Shape::Gutter => {}
                Shape::Code => {
                    let mut code = String::new();
                    collect_text(children, &mut code);
                    out.code(&code);
                }
                Shape::Emphasis | Shape::Strong => {
                    let delimiter = if *shape == Shape::Strong { "**" } else { "*" };
                    let mut inner = Inline::new(out.context);
                    inner.in_line = true;
                    for child in children {
                        self.inline(child, &mut inner);
                    }
                    out.wrapped(inner, delimiter, delimiter, true);
                }
                Shape::Link(target) => {
                    let target = self
                        .options
                        .links
                        .then(|| self.absolute(self.layout.stored(*target)))
                        .flatten();
                    let Some(target) = target else {
                        // Its text alone, written in line with the text around it.
                        let in_line = std::mem::replace(&mut out.in_line, true);
                        for child in children {
                            self.inline(child, out);
                        }
                        out.in_line = in_line;
                        return;
                    };
                    let mut inner = Inline::new(out.context);
                    inner.in_line = true;
                    for child in children {
                        self.inline(child, &mut inner);
                    }
                    out.wrapped(inner, "[", &format!("]({target})"), false);
                }
                _ => {
                    // A block inside inline content (a heading's div, a cell's paragraphs):
                    // its text, set apart by spaces or a line break.
                    out.block_boundary();
                    for child in children {
                        self.inline(child, out);
                    }
                    out.block_boundary();
                }
            },
        }
    }

    /// `target` resolved against the page's URL, written for a link destination; `None` for
    /// targets that lead nowhere (`javascript:`, empty, unparsable).
    fn absolute(&self, target: &str) -> Option<String> {
        let target = target.trim();
        if target.is_empty() {
            return None;
        }
        let url = match &self.base {
            Some(base) => base.join(target).ok()?,
            None => Url::parse(target).ok()?,
        };
        if matches!(url.scheme(), "javascript" | "data" | "vbscript") {
            return None;
        }
        Some(
            url.as_str()
                .replace('(', "%28")
                .replace(')', "%29")
                .replace(' ', "%20")
                .replace('|', "%7C"),
        )
    }
}

/// A fenced code block of `code`, or nothing when it holds no text.
fn code_block(code: &str, language: Option<&str>) -> Option<MarkdownBlock> {
    let lines = code_lines(code);
    if lines.is_empty() {
        return None;
    }
    let longest = longest_run(code, '`');
    let fence = "`".repeat((longest + 1).max(3));
    let mut block = Vec::with_capacity(lines.len() + 2);
    block.push(format!("{fence}{}", language.unwrap_or("")));
    block.extend(lines.iter().map(|line| line.to_string()));
    block.push(fence);
    Some(block)
}

/// The rows and cells of a table, and whether it reads as a layout table.
#[derive(Default)]
pub(super) struct TableParts<'t, 'a> {
    rows: Vec<Vec<Cell<'t, 'a>>>,
    captions: Vec<&'t [Node<'a>]>,
    /// Text or blocks outside every row.
    stray: bool,
    /// A cell holds a heading, a code block, a quote or a list: a layout table.
    holds_blocks: bool,
}

struct Cell<'t, 'a> {
    children: &'t [Node<'a>],
    colspan: u16,
}

impl<'t, 'a> TableParts<'t, 'a> {
    fn collect(&mut self, nodes: &'t [Node<'a>]) {
        for node in nodes {
            match node {
                Node::Element(Shape::Row, cells) => {
                    let mut row = Vec::new();
                    self.cells(cells, &mut row);
                    if !row.is_empty() {
                        self.rows.push(row);
                    }
                }
                Node::Element(Shape::Caption, children) => self.captions.push(children),
                Node::Element(Shape::Table { .. }, _) => self.stray = true,
                Node::Element(_, children) => self.collect(children),
                node if node.has_content() => self.stray = true,
                _ => {}
            }
        }
    }

    fn cells(&mut self, nodes: &'t [Node<'a>], row: &mut Vec<Cell<'t, 'a>>) {
        for node in nodes {
            match node {
                Node::Element(Shape::Cell { colspan, .. }, children) => {
                    self.holds_blocks |=
                        children.iter().any(holds_blocks) || breaks_and_blocks(children) > 1;
                    row.push(Cell {
                        children,
                        colspan: (*colspan).clamp(1, MAX_COLSPAN),
                    });
                }
                Node::Element(Shape::Row | Shape::Table { .. }, _) => self.stray = true,
                Node::Element(_, children) => self.cells(children, row),
                node if node.has_content() => self.stray = true,
                _ => {}
            }
        }
    }
}

/// A data table's rows and its columns (after `colspan`), or `None` for a layout table: one
/// for layout only (`role=presentation`), with content outside its rows, a cell holding a
/// heading, a listing, a quote or a list (a site index in columns), or fewer than two or more than [`MAX_TABLE_COLUMNS`]
/// columns.
pub(super) fn data_table<'t, 'a>(
    presentation: bool,
    children: &'t [Node<'a>],
) -> Option<(TableParts<'t, 'a>, usize)> {
    if presentation {
        return None;
    }
    let mut parts = TableParts::default();
    parts.collect(children);
    let columns = parts
        .rows
        .iter()
        .map(|row| row.iter().map(|cell| cell.colspan as usize).sum::<usize>())
        .max()
        .unwrap_or(0);
    let layout = parts.stray || parts.holds_blocks || !(2..=MAX_TABLE_COLUMNS).contains(&columns);
    (!layout).then_some((parts, columns))
}

/// The line breaks and block-level elements under `nodes`, counted up to 2: a cell with one
/// paragraph is a cell, a cell with two, or broken into lines, is a page's layout.
fn breaks_and_blocks(nodes: &[Node<'_>]) -> usize {
    let mut count = 0;
    for node in nodes {
        count += match node {
            Node::Break => 1,
            Node::Element(Shape::Table { .. }, _) => 0,
            Node::Element(shape, children) => {
                usize::from(shape.is_block_level()) + breaks_and_blocks(children)
            }
            _ => 0,
        };
        if count > 1 {
            break;
        }
    }
    count
}

/// Whether a cell's node is a block a pipe table cannot hold.
fn holds_blocks(node: &Node<'_>) -> bool {
    match node {
        Node::Element(
            Shape::Heading(_) | Shape::Preformatted(_) | Shape::Quote | Shape::List { .. },
            _,
        ) => true,
        // A data table inside a cell is flattened to its text; a layout table inside it
        // makes its table one for layout too.
        Node::Element(Shape::Table { presentation }, children) => {
            data_table(*presentation, children).is_none()
        }
        Node::Literal(_) => true,
        Node::Element(_, children) => children.iter().any(holds_blocks),
        _ => false,
    }
}

/// Blocks joined with a blank line between them.
fn join_blocks(blocks: Vec<MarkdownBlock>) -> Vec<String> {
    let mut lines = Vec::new();
    for block in blocks {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(block);
    }
    lines
}

/// A list item's blocks: a paragraph and the list after it stay together (a tight item),
/// other blocks are set apart by a blank line.
fn join_item_blocks(blocks: Vec<MarkdownBlock>) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for block in blocks {
        let is_list = block.first().is_some_and(|line| starts_list_item(line));
        if !lines.is_empty() && !is_list {
            lines.push(String::new());
        }
        lines.extend(block);
    }
    lines
}

fn starts_list_item(line: &str) -> bool {
    if line.starts_with("- ") {
        return true;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(". ")
}

/// The text under `nodes`, whitespace collapsed (inline code's content).
fn collect_text(nodes: &[Node<'_>], out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) | Node::Literal(text) => {
                for (index, word) in text.split(char::is_whitespace).enumerate() {
                    if index > 0 && !out.ends_with(' ') {
                        out.push(' ');
                    }
                    out.push_str(word);
                }
            }
            Node::Break => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            Node::Element(Shape::Gutter, _) | Node::Image { .. } => {}
            Node::Element(_, children) => collect_text(children, out),
        }
    }
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for x in text.chars() {
        if x == c {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Inline Markdown being written: whitespace collapsed, text escaped.
struct Inline {
    out: String,
    context: Context,
    /// Whitespace came since the last character written.
    space: bool,
    /// Whitespace came before the first character (an emphasis' inner text moves it out).
    leading_space: bool,
    /// Writing inside emphasis or a link: a line break is a space.
    in_line: bool,
    /// The delimiters of the emphasis written, checked once the line is whole
    /// ([`resolve_emphasis`]).
    emphasis: Vec<Delimiters>,
    /// The last code span, when it is the last thing written: where it starts, and its code.
    /// A code span right after it joins it, as two runs of backticks side by side would read
    /// as one.
    code_span: Option<(usize, String)>,
}

/// Where an emphasis' delimiters are in the output: start and length of each.
#[derive(Debug, Clone, Copy)]
struct Delimiters {
    open: (usize, usize),
    close: (usize, usize),
}

impl Inline {
    fn new(context: Context) -> Self {
        Inline {
            out: String::new(),
            context,
            space: false,
            leading_space: false,
            in_line: false,
            emphasis: Vec::new(),
            code_span: None,
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Writes the space owed before the next character, if any.
    fn space_before(&mut self) {
        if self.space {
            if self.out.is_empty() {
                self.leading_space = true;
            } else if !self.at_line_start() {
                self.out.push(' ');
            }
            self.code_span = None;
        }
        self.space = false;
    }

    fn text(&mut self, text: &str) {
        for (index, word) in text.split(char::is_whitespace).enumerate() {
            if index > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            self.space_before();
            self.code_span = None;
            escape_into(word, self.context, &mut self.out);
        }
    }

    /// Markup written as it is (an image).
    fn markup(&mut self, markup: &str) {
        self.space_before();
        self.code_span = None;
        self.out.push_str(markup);
    }

    fn code(&mut self, code: &str) {
        // White space at the ends of the code element separates it from the words around
        // it (the text after it may hold no space of its own: it collapsed into this one).
        let trimmed = code.trim();
        if trimmed.len() < code.len() && code.starts_with(char::is_whitespace) {
            self.space = true;
        }
        let ends_with_space = trimmed.len() < code.len() && code.ends_with(char::is_whitespace);
        let code = trimmed;
        if code.is_empty() {
            return;
        }
        self.space_before();
        let code = match self.code_span.take() {
            Some((start, before)) => {
                self.out.truncate(start);
                before + code
            }
            None => code.to_string(),
        };
        let start = self.out.len();
        let ticks = "`".repeat(longest_run(&code, '`') + 1);
        let pad = if code.starts_with('`') || code.ends_with('`') {
            " "
        } else {
            ""
        };
        let written = if self.context == Context::Cell {
            code.replace('|', "\\|")
        } else {
            code.clone()
        };
        self.out
            .push_str(&format!("{ticks}{pad}{written}{pad}{ticks}"));
        self.code_span = Some((start, code));
        self.space = ends_with_space;
    }

    /// `inner` between `open` and `close`, its outer whitespace moved outside them; nothing
    /// when it holds no text. `emphasis` delimiters are checked when the line is whole.
    fn wrapped(&mut self, inner: Inline, open: &str, close: &str, emphasis: bool) {
        let (leading, trailing) = (inner.leading_space, inner.space);
        let text = inner.out;
        if leading {
            self.space = true;
        }
        if text.trim().is_empty() {
            self.space |= trailing;
            return;
        }
        self.space_before();
        self.code_span = None;
        if open == "[" && self.out.ends_with('!') && !self.out.ends_with("\\!") {
            // `![` would open an image.
            self.out.pop();
            self.out.push_str("\\!");
        }
        let open_at = self.out.len();
        self.out.push_str(open);
        let text_at = self.out.len();
        self.out.push_str(&text);
        let close_at = self.out.len();
        self.out.push_str(close);
        self.emphasis
            .extend(inner.emphasis.into_iter().map(|inside| Delimiters {
                open: (inside.open.0 + text_at, inside.open.1),
                close: (inside.close.0 + text_at, inside.close.1),
            }));
        if emphasis {
            self.emphasis.push(Delimiters {
                open: (open_at, open.len()),
                close: (close_at, close.len()),
            });
        }
        self.space = trailing;
    }

    fn line_break(&mut self) {
        self.code_span = None;
        if self.context == Context::Paragraph && !self.in_line {
            if !self.at_line_start() {
                self.out.push_str("\\\n");
            }
            self.space = false;
        } else {
            self.space = true;
        }
    }

    fn block_boundary(&mut self) {
        self.code_span = None;
        if self.context == Context::Paragraph && !self.in_line {
            if !self.at_line_start() {
                self.out.push('\n');
            }
            self.space = false;
        } else {
            self.space = true;
        }
    }

    fn finish(self) -> String {
        let mut out = resolve_emphasis(self.out, self.emphasis);
        out.truncate(out.trim_end().len());
        out
    }
}

/// Passes of [`resolve_emphasis`] before every delimiter left is taken out.
const EMPHASIS_PASSES: usize = 8;

/// `out` without the emphasis delimiters CommonMark would not read as opening and closing
/// their emphasis, where the text around them decides it: an opening delimiter must not
/// follow a closing one, nor come before punctuation unless whitespace or punctuation comes
/// before it; a closing delimiter after punctuation must come before whitespace or
/// punctuation. Taking a pair out changes its neighbours', so the check repeats.
fn resolve_emphasis(mut out: String, mut emphasis: Vec<Delimiters>) -> String {
    for pass in 0.. {
        if emphasis.is_empty() {
            break;
        }
        // Delimiters side by side make one run, and CommonMark reads a run as a whole: the
        // characters around the run decide, and a run holding a closing delimiter cannot
        // open anything after it.
        let mut delimiters: Vec<(usize, usize, bool)> = (emphasis.iter())
            .flat_map(|pair| {
                [
                    (pair.open.0, pair.open.1, true),
                    (pair.close.0, pair.close.1, false),
                ]
            })
            .collect();
        delimiters.sort_unstable();
        let mut runs: HashMap<usize, (usize, usize, bool)> = HashMap::new();
        let mut index = 0;
        while index < delimiters.len() {
            let run_start = delimiters[index].0;
            let mut end = index;
            while end + 1 < delimiters.len()
                && delimiters[end].0 + delimiters[end].1 == delimiters[end + 1].0
            {
                end += 1;
            }
            let run_end = delimiters[end].0 + delimiters[end].1;
            let mut closed = false;
            for &(at, _, opens) in &delimiters[index..=end] {
                runs.insert(at, (run_start, run_end, closed));
                closed |= !opens;
            }
            index = end + 1;
        }
        // Emphasis inside other emphasis: an opening delimiter there that could also close
        // would close the outer one instead.
        let mut by_open: Vec<(usize, usize)> = (emphasis.iter())
            .map(|pair| (pair.open.0, pair.close.0))
            .collect();
        by_open.sort_unstable();
        let mut enclosing: Vec<usize> = Vec::new();
        let mut enclosed: HashSet<usize> = HashSet::new();
        for (open, close) in by_open {
            while enclosing.last().is_some_and(|&end| end <= open) {
                enclosing.pop();
            }
            if !enclosing.is_empty() {
                enclosed.insert(open);
            }
            enclosing.push(close);
        }
        let before = |at: usize| out[..at].chars().next_back().unwrap_or(' ');
        let after = |at: usize| out[at..].chars().next().unwrap_or(' ');
        let valid = |pair: &Delimiters| {
            let (open_start, open_end, after_a_close) = runs[&pair.open.0];
            let (close_start, close_end, _) = runs[&pair.close.0];
            let (ahead, first) = (before(open_start), after(open_end));
            let (last, next) = (before(close_start), after(close_end));
            let opens = !first.is_whitespace()
                && !after_a_close
                && (!maybe_punctuation(first)
                    || ahead.is_whitespace()
                    || ahead.is_ascii_punctuation());
            let closes = !last.is_whitespace()
                && (!maybe_punctuation(last)
                    || next.is_whitespace()
                    || next.is_ascii_punctuation());
            let could_close = !ahead.is_whitespace()
                && (!ahead.is_ascii_punctuation()
                    || first.is_whitespace()
                    || maybe_punctuation(first));
            opens && closes && !(could_close && enclosed.contains(&pair.open.0))
        };
        let (kept, dropped): (Vec<Delimiters>, Vec<Delimiters>) = if pass < EMPHASIS_PASSES {
            emphasis.iter().partition(|pair| valid(pair))
        } else {
            (Vec::new(), emphasis.clone())
        };
        if dropped.is_empty() {
            break;
        }
        let mut cuts: Vec<(usize, usize)> = (dropped.iter())
            .flat_map(|pair| [pair.open, pair.close])
            .filter(|&(_, length)| length > 0)
            .collect();
        cuts.sort_unstable();
        let cut_before: Vec<usize> = std::iter::once(0)
            .chain(cuts.iter().scan(0, |sum, &(_, length)| {
                *sum += length;
                Some(*sum)
            }))
            .collect();
        let shift = |at: usize| at - cut_before[cuts.partition_point(|&(cut, _)| cut < at)];
        emphasis = kept
            .into_iter()
            .map(|pair| Delimiters {
                open: (shift(pair.open.0), pair.open.1),
                close: (shift(pair.close.0), pair.close.1),
            })
            .collect();
        let mut resolved = String::with_capacity(out.len());
        let mut from = 0;
        for (at, length) in cuts {
            resolved.push_str(&out[from..at]);
            from = at + length;
        }
        resolved.push_str(&out[from..]);
        out = resolved;
    }
    out
}

/// Punctuation as CommonMark's flanking rules may count it: anything but letters, digits
/// and whitespace (Unicode symbols count in newer versions of the specification).
fn maybe_punctuation(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// Appends `word` (no whitespace in it) with what Markdown would read as syntax escaped.
fn escape_into(word: &str, context: Context, out: &mut String) {
    const SPECIAL: &[char] = &['\\', '`', '*', '[', ']', '<', '~', '_', '&', '#', '|'];
    if !word.contains(SPECIAL) {
        out.push_str(word);
        return;
    }
    let mut before = None;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        let after = chars.peek().copied();
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '~' => true,
            '_' => {
                !(before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric))
            }
            // Before what could make an entity, here or in the next text written.
            '&' => after.is_none_or(|next| next.is_ascii_alphanumeric() || next == '#'),
            '#' => context == Context::Heading,
            '|' => context == Context::Cell,
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
        before = Some(c);
    }
}

/// A paragraph line with a first character that would start a block escaped: a heading,
/// quote, list item, setext underline or thematic break.
fn escape_line_start(line: &str) -> String {
    let first = line.chars().next();
    if matches!(first, Some('#' | '>' | '+' | '-' | '=' | '|' | ':')) {
        return format!("\\{line}");
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && matches!(line.as_bytes().get(digits), Some(b'.' | b')')) {
        return format!("{}\\{}", &line[..digits], &line[digits..]);
    }
    line.to_string()
}
