//! The kept layout as CommonMark with GitHub tables: a tree of kept elements in, Markdown out.
//!
//! Headings are ATX headings; lists keep their nesting and numbering; quotes are `>` blocks;
//! preformatted text is a fenced code block (a fence longer than any run of backticks inside,
//! the language when the page names it); data tables are pipe tables, layout tables the blocks
//! they hold; inline code, emphasis and strong are marked; links and images only when asked.
//! Text that would read as Markdown syntax is escaped.

use url::Url;

mod inline;

use super::literal::{code_lines, collect_literal};
use super::{Layout, MAX_COLSPAN, MAX_TABLE_COLUMNS, Node, Shape};
use inline::Inline;

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
                Node::Literal(..) => true,
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
            Node::Literal(text, _) => {
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
                    let first = start.map_or(if reversed { items } else { 1 }, i64::from);
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
                    (value.map(i64::from), self.blocks(content))
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
            Node::Text(text, _) | Node::Literal(text, _) => out.text(text),
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
        Node::Literal(..) => true,
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
            Node::Text(text, _) | Node::Literal(text, _) => {
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
