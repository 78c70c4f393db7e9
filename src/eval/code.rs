//! The code score, as `shared/tools/code_blocks.py` counts it: a labelled page's HTML, its
//! content labels and an index's kept text (and Markdown) in; how many of the content's
//! `<pre>` blocks came out whole out.
//!
//! A `<pre>` is content when it has two non-empty lines or more and each of them (whitespace
//! collapsed) is a line of the labels' content. It is whole in the text when its lines
//! (trailing whitespace off, blank lines at either end off) are consecutive lines of the
//! text, indentation kept; whole in Markdown when a code block a CommonMark reader finds
//! there holds exactly those lines. The `<pre>` blocks are read from the page's HTML by a
//! parse of their own, never from the layout the Markdown was written from.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use lol_html::html_content::{Element, EndTag, TextChunk, TextType};
use lol_html::{HtmlRewriter, Settings, doc_text, element};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::segment::layout::with_line_feeds;

/// The content's `<pre>` blocks of some pages, and how many came out whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CodeScore {
    /// Content `<pre>` blocks on the labelled pages.
    pub blocks: u64,
    /// Those whose lines are consecutive lines of the kept text.
    pub whole_in_text: u64,
    /// Those a code block of the kept Markdown holds exactly (`None` when the index's
    /// Markdown could not be written: it keeps no decisions, as a predictions file's or the
    /// oracle's).
    pub whole_in_markdown: Option<u64>,
}

impl CodeScore {
    /// The scores of more pages added.
    pub fn add(&mut self, more: &CodeScore) {
        self.blocks += more.blocks;
        self.whole_in_text += more.whole_in_text;
        self.whole_in_markdown = match (self.whole_in_markdown, more.whole_in_markdown) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }

    /// One page's score: its content `blocks` against its kept `text` and, when written,
    /// its `markdown`.
    pub fn of_page(blocks: &[Vec<String>], text: &str, markdown: Option<&str>) -> CodeScore {
        let text_lines = normalized_lines(text);
        let code_blocks = markdown.map(markdown_code_blocks);
        let whole = |block: &Vec<String>| {
            !block.is_empty()
                && text_lines
                    .windows(block.len())
                    .any(|window| window == block.as_slice())
        };
        CodeScore {
            blocks: blocks.len() as u64,
            whole_in_text: blocks.iter().filter(|block| whole(block)).count() as u64,
            whole_in_markdown: code_blocks
                .map(|codes| blocks.iter().filter(|block| codes.contains(block)).count() as u64),
        }
    }

    /// Share of the blocks whole in the text (0 without blocks).
    pub fn text_share(&self) -> f64 {
        share(self.whole_in_text, self.blocks)
    }

    /// Share of the blocks whole in Markdown, when it was written.
    pub fn markdown_share(&self) -> Option<f64> {
        (self.whole_in_markdown).map(|whole| share(whole, self.blocks))
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Lines as the score compares them: line ends of any kind, trailing whitespace off.
fn normalized_lines(text: &str) -> Vec<String> {
    with_line_feeds(text)
        .split('\n')
        .map(|line| line.trim_end().to_string())
        .collect()
}

/// `lines` without blank lines at either end.
fn trimmed(mut lines: Vec<String>) -> Vec<String> {
    let end = lines.iter().rposition(|line| !line.trim().is_empty());
    lines.truncate(end.map_or(0, |end| end + 1));
    let start = lines
        .iter()
        .take_while(|line| line.trim().is_empty())
        .count();
    lines.drain(..start);
    lines
}

/// Whitespace collapsed to single spaces, none at either end.
fn collapsed(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The content's `<pre>` blocks of `html`, as lines: those with two non-empty lines or more,
/// each of them a line of `content` (whitespace collapsed).
pub fn content_blocks(html: &str, content: &str) -> Vec<Vec<String>> {
    let gold: HashSet<String> = content.split('\n').map(collapsed).collect();
    preformatted_blocks(html)
        .into_iter()
        .filter(|lines| {
            let filled: Vec<String> = (lines.iter())
                .filter(|line| !line.trim().is_empty())
                .map(|line| collapsed(line))
                .collect();
            filled.len() >= 2 && filled.iter().all(|line| gold.contains(line))
        })
        .collect()
}

/// Each `<pre>` of `html` that holds no other `<pre>`, as trimmed lines of its text
/// (entities decoded). A `<pre>` left open ends with the document.
pub fn preformatted_blocks(html: &str) -> Vec<Vec<String>> {
    /// The `<pre>` elements open, each with its text and whether it holds another.
    #[derive(Default)]
    struct State {
        open: Vec<(String, bool)>,
        done: Vec<String>,
    }
    let state = Rc::new(RefCell::new(State::default()));
    let (on_element, on_text) = (Rc::clone(&state), Rc::clone(&state));
    let settings = Settings::new()
        .append_element_content_handler(element!("pre", move |element: &mut Element| {
            {
                let mut state = on_element.borrow_mut();
                if let Some(outer) = state.open.last_mut() {
                    outer.1 = true;
                }
                state.open.push((String::new(), false));
            }
            let on_end = Rc::clone(&on_element);
            let closes = element.on_end_tag(Box::new(move |_: &mut EndTag| {
                let mut state = on_end.borrow_mut();
                if let Some((text, holds_pre)) = state.open.pop()
                    && !holds_pre
                {
                    state.done.push(text);
                }
                Ok(())
            }));
            if closes.is_err() {
                on_element.borrow_mut().open.pop();
            }
            Ok(())
        }))
        .append_document_content_handler(doc_text!(move |chunk: &mut TextChunk| {
            if matches!(chunk.text_type(), TextType::Data | TextType::RCData) {
                for (text, _) in &mut on_text.borrow_mut().open {
                    text.push_str(chunk.as_str());
                }
            }
            Ok(())
        }));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // A page lol_html refuses part of keeps the blocks read before it.
    let _ = rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end());
    let state = std::mem::take(&mut *state.borrow_mut());
    let left_open = (state.open.into_iter()).filter_map(|(text, holds)| (!holds).then_some(text));
    (state.done.into_iter())
        .chain(left_open)
        .map(|raw| trimmed(normalized_lines(&htmlize::unescape(raw.as_str()))))
        .collect()
}

/// The content of each code block (fenced or indented) a CommonMark reader finds in
/// `markdown`, as trimmed lines.
fn markdown_code_blocks(markdown: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut code: Option<String> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::Text(text) => {
                if let Some(code) = &mut code {
                    code.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                blocks.extend(code.take().map(|code| trimmed(normalized_lines(&code))));
            }
            _ => {}
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_blocks_are_read_from_the_html_with_entities_decoded() {
        let html = "<p>x</p><pre>\n  fn main() {\r\n    a &lt; b;  \n  }\n\n</pre>\
                    <pre><pre>inner\nlines</pre></pre><pre>open\nat the end";
        let blocks = preformatted_blocks(html);
        assert_eq!(
            blocks,
            [
                vec!["  fn main() {", "    a < b;", "  }"],
                vec!["inner", "lines"],
                vec!["open", "at the end"],
            ]
        );
    }

    #[test]
    fn content_blocks_have_two_lines_all_in_the_labels() {
        let html = "<pre>a  b\nc</pre><pre>one line</pre><pre>a b\nmenu</pre>";
        let content = "a b\nc\none line";
        assert_eq!(content_blocks(html, content), [vec!["a  b", "c"]]);
    }

    #[test]
    fn whole_in_text_and_in_markdown_by_hand() {
        let blocks = vec![
            vec!["  x = 1".to_string(), "  y = 2".to_string()],
            vec!["a".to_string(), "b".to_string()],
        ];
        // The first block's lines follow each other in the text; the second's are apart.
        let text = "intro\n  x = 1  \n  y = 2\na\nz\nb";
        let markdown = "intro\n\n```\n  x = 1\n  y = 2\n```\n\n    a\n    b\n";
        let score = CodeScore::of_page(&blocks, text, Some(markdown));
        assert_eq!(
            score,
            CodeScore {
                blocks: 2,
                whole_in_text: 1,
                whole_in_markdown: Some(2),
            }
        );
        // Indentation lost is not whole.
        let flat = CodeScore::of_page(&blocks[..1], "x = 1\ny = 2", Some("x = 1\ny = 2"));
        assert_eq!((flat.whole_in_text, flat.whole_in_markdown), (0, Some(0)));
        let mut total = score;
        total.add(&CodeScore::of_page(&blocks, text, None));
        assert_eq!((total.blocks, total.whole_in_markdown), (4, None));
        assert!((total.text_share() - 0.5).abs() < 1e-9);
    }
}
