//! The kept layout as plain lines: a tree of kept elements in, text out. Block-level elements
//! start lines, a table row is one line with a tab between its cells, preformatted text keeps
//! its lines and spaces, whitespace elsewhere collapses to one space and never ends a line.

use super::literal::{code_lines, collect_literal};
use super::{NO_BLOCK, Node, Shape};

/// The text of `nodes`, without a line end after the last line.
pub(super) fn render(nodes: &[Node<'_>]) -> String {
    let mut lines = Lines::default();
    lines.nodes(nodes);
    let mut out = lines.out;
    out.truncate(out.trim_end_matches('\n').len());
    out
}

/// Bytes `start..end` of a rendered text, written from block `block`'s text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRun {
    /// The run's first byte.
    pub start: usize,
    /// The byte after its last.
    pub end: usize,
    /// The block, by its number in the page.
    pub block: u32,
}

/// [`render`], with the runs of the text each block wrote.
pub(super) fn render_by_block(nodes: &[Node<'_>]) -> (String, Vec<BlockRun>) {
    let mut lines = Lines {
        runs: Some(Vec::new()),
        ..Lines::default()
    };
    lines.nodes(nodes);
    let mut out = lines.out;
    out.truncate(out.trim_end_matches('\n').len());
    (out, lines.runs.unwrap_or_default())
}

/// The block of the first text under `nodes`.
fn first_block(nodes: &[Node<'_>]) -> u32 {
    nodes
        .iter()
        .find_map(|node| match node {
            Node::Text(_, block) | Node::Literal(_, block) if *block != NO_BLOCK => Some(*block),
            Node::Element(_, children) => Some(first_block(children)).filter(|&b| b != NO_BLOCK),
            _ => None,
        })
        .unwrap_or(NO_BLOCK)
}

/// A run of a block's laid-out text: prose lines, or one preformatted listing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextPiece {
    /// Whether the piece is preformatted code (its lines and indentation as written).
    pub code: bool,
    /// The piece's lines, without a line end after the last.
    pub text: String,
}

impl TextPiece {
    pub(crate) fn prose(text: String) -> TextPiece {
        TextPiece { code: false, text }
    }
}

/// The text of `nodes` as pieces: the prose between listings, and each listing.
pub(super) fn render_pieces(nodes: &[Node<'_>]) -> Vec<TextPiece> {
    let mut lines = Lines {
        pieces: Some(Vec::new()),
        ..Lines::default()
    };
    lines.nodes(nodes);
    lines.finish_prose();
    lines.pieces.unwrap_or_default()
}

#[derive(Default)]
struct Lines {
    out: String,
    /// When pieces are asked for: those finished so far (`out` holds the prose after them).
    pieces: Option<Vec<TextPiece>>,
    /// Where the line being written starts in `out`.
    line_start: usize,
    /// Whether whitespace came since the line's last character.
    space: bool,
    /// Inside a data table's cell: everything is one line, blocks and breaks a space.
    flat: u32,
    /// When asked for: the runs of `out` each block wrote, in order.
    runs: Option<Vec<BlockRun>>,
}

impl Lines {
    /// Notes that `out[start..]` was written from `block`'s text, when runs are asked for.
    fn written_from(&mut self, start: usize, block: u32) {
        let end = self.out.len();
        if let Some(runs) = &mut self.runs
            && block != NO_BLOCK
            && end > start
        {
            match runs.last_mut() {
                Some(last) if last.block == block && last.end == start => last.end = end,
                _ => runs.push(BlockRun { start, end, block }),
            }
        }
    }

    fn line_is_empty(&self) -> bool {
        self.out.len() == self.line_start
    }

    fn end_line(&mut self) {
        let trimmed = self.out.trim_end_matches('\t').len().max(self.line_start);
        self.out.truncate(trimmed);
        if !self.line_is_empty() {
            self.out.push('\n');
            self.line_start = self.out.len();
        }
        self.space = false;
    }

    fn nodes(&mut self, nodes: &[Node<'_>]) {
        for node in nodes {
            self.node(node);
        }
    }

    fn node(&mut self, node: &Node<'_>) {
        if self.flat > 0 {
            return self.flat_node(node);
        }
        match node {
            Node::Text(text, block) => self.text(text, *block),
            Node::Literal(text, block) => self.preformatted(text, *block),
            Node::Break => self.end_line(),
            Node::Image { .. } | Node::Element(Shape::Gutter, _) => {}
            Node::Element(Shape::Preformatted(_), children) => {
                let mut code = String::new();
                collect_literal(children, &mut code);
                self.preformatted(&code, first_block(children));
            }
            Node::Element(Shape::Cell { .. }, children) => {
                if !self.line_is_empty() {
                    self.out.push('\t');
                    self.space = false;
                }
                self.nodes(children);
            }
            // A data table (as Markdown writes one as a pipe table): each row one line, a
            // cell's paragraphs and breaks within it.
            Node::Element(Shape::Table { presentation }, children)
                if super::markdown::data_table(*presentation, children).is_some() =>
            {
                self.end_line();
                for child in children.iter() {
                    self.data_table_node(child);
                }
                self.end_line();
            }
            Node::Element(shape, children) if shape.is_block_level() => {
                self.end_line();
                self.nodes(children);
                self.end_line();
            }
            Node::Element(_, children) => self.nodes(children),
        }
    }

    /// A node of a data table outside its cells: rows and row groups start lines, a cell's
    /// content is written flat.
    fn data_table_node(&mut self, node: &Node<'_>) {
        match node {
            Node::Element(Shape::Cell { .. }, children) => {
                if !self.line_is_empty() {
                    self.out.push('\t');
                    self.space = false;
                }
                self.flat += 1;
                self.nodes(children);
                self.flat -= 1;
            }
            Node::Element(Shape::Row, children) => {
                self.end_line();
                for child in children {
                    self.data_table_node(child);
                }
                self.end_line();
            }
            Node::Element(Shape::Caption, _) => self.node(node),
            Node::Element(_, children) => {
                for child in children {
                    self.data_table_node(child);
                }
            }
            _ => self.node(node),
        }
    }

    /// A node inside a data table's cell: on the cell's line, whatever its shape.
    fn flat_node(&mut self, node: &Node<'_>) {
        match node {
            Node::Text(text, block) | Node::Literal(text, block) => self.text(text, *block),
            Node::Break => self.space = true,
            Node::Image { .. } | Node::Element(Shape::Gutter, _) => {}
            Node::Element(shape, children) => {
                let apart = shape.is_block_level();
                self.space |= apart;
                self.nodes(children);
                self.space |= apart;
            }
        }
    }

    /// Collapsed text: runs of whitespace become one space, written only between characters
    /// of one line.
    fn text(&mut self, text: &str, block: u32) {
        for (index, word) in text.split(char::is_whitespace).enumerate() {
            if index > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            if self.space && !self.line_is_empty() && !self.out.ends_with('\t') {
                self.out.push(' ');
            }
            self.space = false;
            let start = self.out.len();
            self.out.push_str(word);
            self.written_from(start, block);
        }
    }

    /// Preformatted text on lines of its own: every line and its indentation kept, blank
    /// lines before and after it and spaces at line ends left out.
    fn preformatted(&mut self, code: &str, block: u32) {
        self.end_line();
        if self.pieces.is_some() {
            self.finish_prose();
            let text = code_lines(code).join("\n");
            if let Some(pieces) = &mut self.pieces
                && !text.is_empty()
            {
                pieces.push(TextPiece { code: true, text });
            }
            return;
        }
        for line in code_lines(code) {
            let start = self.out.len();
            self.out.push_str(line);
            self.written_from(start, block);
            self.out.push('\n');
        }
        self.line_start = self.out.len();
    }
}

impl Lines {
    /// Ends the prose written since the last piece as a piece of its own.
    fn finish_prose(&mut self) {
        let Some(pieces) = &mut self.pieces else {
            return;
        };
        let text = self.out.trim_end_matches('\n');
        if !text.is_empty() {
            pieces.push(TextPiece::prose(text.to_string()));
        }
        self.out.clear();
        self.line_start = 0;
        self.space = false;
    }
}
