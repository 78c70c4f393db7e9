//! Preformatted text as both writers take it: the literal text under a listing's nodes, and
//! its lines with the blank ones around it and the spaces at their ends left out.

use std::borrow::Cow;

use super::{Node, Shape};

/// The preformatted text under `nodes`, exactly as written (line-number columns left out).
pub(super) fn collect_literal(nodes: &[Node<'_>], code: &mut String) {
    for node in nodes {
        match node {
            Node::Literal(text, _) | Node::Text(text, _) => code.push_str(text),
            Node::Break => code.push('\n'),
            Node::Element(Shape::Gutter, _) | Node::Image { .. } => {}
            Node::Element(_, children) => collect_literal(children, code),
        }
    }
}

/// The lines of preformatted text: line ends normalized, trailing spaces off each line,
/// leading and trailing blank lines off.
pub(super) fn code_lines(code: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = code
        .split('\n')
        .map(|line| line.trim_end_matches(['\r', ' ', '\t', '\u{c}']))
        .collect();
    while lines.last().is_some_and(|line| line.trim().is_empty()) {
        lines.pop();
    }
    let first = lines
        .iter()
        .position(|line| !line.trim().is_empty())
        .unwrap_or(lines.len());
    lines.drain(..first);
    lines
}

/// `text` with every line ended by a line feed: a CR LF pair and a lone CR each end a line,
/// as HTML's input stream reads them.
pub fn with_line_feeds(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}
