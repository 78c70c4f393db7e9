//! The stack of open elements, kept by hand with HTML's implied-end rules, and the blocks it
//! fills with text.

use lol_html::html_content::Element;

use super::style::{BlockStyle, StyleAttributes, child_path};
use super::{PageLimit, SegmentLimits};

/// Elements that start a block of their own (layout elements, after Chen, Ye & Li; table
/// cells and rows do not).
pub fn is_layout_element(tag: &str) -> bool {
    matches!(
        tag,
        "body"
            | "table"
            | "div"
            | "section"
            | "article"
            | "aside"
            | "nav"
            | "header"
            | "footer"
            | "main"
            | "ul"
            | "ol"
            | "dl"
            | "menu"
            | "form"
            | "fieldset"
            | "p"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hgroup"
            | "pre"
            | "blockquote"
            | "center"
            | "figure"
            | "figcaption"
            | "details"
            | "address"
            | "dialog"
    )
}

/// Elements whose text is never visible.
fn hides_text(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "head"
            | "iframe"
            | "object"
            | "noembed"
            | "noframes"
            | "svg"
            | "math"
            | "select"
            | "datalist"
    )
}

/// Elements that flow inside a line: their boundaries do not separate words.
fn is_inline(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "big"
            | "cite"
            | "code"
            | "data"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "ins"
            | "del"
            | "kbd"
            | "label"
            | "mark"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strike"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "tt"
            | "u"
            | "var"
            | "nobr"
            | "wbr"
    )
}

/// Start tags that close an open `<p>` (HTML's "close a p element in button scope").
fn closes_paragraph(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "ul"
            | "li"
            | "dd"
            | "dt"
            | "listing"
            | "plaintext"
            | "xmp"
    )
}

/// Elements that bound the search for an implicitly closed element.
fn is_scope_boundary(tag: &str) -> bool {
    matches!(
        tag,
        "html"
            | "table"
            | "td"
            | "th"
            | "caption"
            | "button"
            | "template"
            | "object"
            | "applet"
            | "marquee"
    )
}

struct OpenElement {
    serial: u64,
    tag: String,
    /// Hash of the position path from the root to this element.
    path: u64,
    /// Element children seen so far (the next child's position index).
    children: u32,
    /// The block text inside this element goes to, if any.
    block: Option<usize>,
    /// Whether text inside is invisible.
    hidden: bool,
}

struct BlockUnderConstruction {
    style: BlockStyle,
    text: String,
    heading: bool,
}

/// The segmenter's state while lol_html streams a page.
pub(super) struct OpenElements {
    limits: SegmentLimits,
    stack: Vec<OpenElement>,
    root_children: u32,
    next_serial: u64,
    blocks: Vec<BlockUnderConstruction>,
    /// Block for text outside every layout element.
    root_block: Option<usize>,
    pending_text: String,
    title: Option<String>,
    in_title: bool,
    limited: Option<PageLimit>,
}

impl OpenElements {
    pub(super) fn new(limits: SegmentLimits) -> Self {
        OpenElements {
            limits,
            stack: Vec::new(),
            root_children: 0,
            next_serial: 0,
            blocks: Vec::new(),
            root_block: None,
            pending_text: String::new(),
            title: None,
            in_title: false,
            limited: None,
        }
    }

    /// A start tag. Returns the serial to pass to [`close`](Self::close) when the element's
    /// end tag is seen, or `None` when the element is not tracked (void, or too deep).
    pub(super) fn open(&mut self, element: &Element) -> Option<u64> {
        let tag = element.tag_name();
        self.close_implied_by(&tag);
        if !is_inline(&tag) {
            self.separate_words();
        }

        let (parent_path, child_index) = match self.stack.last_mut() {
            Some(parent) => {
                parent.children += 1;
                (parent.path, parent.children - 1)
            }
            None => {
                self.root_children += 1;
                (0, self.root_children - 1)
            }
        };
        if !element.can_have_content() {
            return None;
        }
        if self.stack.len() >= self.limits.max_depth {
            self.limited.get_or_insert(PageLimit::Depth);
            return None;
        }
        if tag == "title" && self.title.is_none() {
            self.in_title = true;
        }

        let path = child_path(parent_path, child_index);
        let inherited_hidden = self.stack.last().is_some_and(|parent| parent.hidden);
        let hidden = inherited_hidden
            || hides_text(&tag)
            || element.has_attribute("hidden")
            || element
                .get_attribute("style")
                .is_some_and(|style| declares_display_none(&style));
        let mut block = self.stack.last().and_then(|parent| parent.block);
        if is_layout_element(&tag) && !hidden {
            if self.blocks.len() < self.limits.max_blocks {
                let style = BlockStyle::of(path, &StyleAttributes::of(&tag, element));
                self.blocks.push(BlockUnderConstruction {
                    style,
                    text: String::new(),
                    heading: is_heading(&tag),
                });
                block = Some(self.blocks.len() - 1);
            } else {
                self.limited.get_or_insert(PageLimit::Blocks);
            }
        }
        let serial = self.next_serial;
        self.next_serial += 1;
        self.stack.push(OpenElement {
            serial,
            tag,
            path,
            children: 0,
            block,
            hidden,
        });
        Some(serial)
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
    pub(super) fn text(
        &mut self,
        chunk: &str,
        decode: bool,
        script_or_raw: bool,
        last_in_node: bool,
    ) {
        if script_or_raw {
            self.pending_text.clear();
            return;
        }
        self.pending_text.push_str(chunk);
        if !last_in_node {
            return;
        }
        let raw = std::mem::take(&mut self.pending_text);
        let text = if decode {
            htmlize::unescape(raw.as_str())
        } else {
            raw.as_str().into()
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
        if is_whitespace {
            if !text.is_empty() {
                self.separate_words();
            }
            return;
        }
        let block = self.current_block();
        append_collapsed(&mut self.blocks[block].text, &text);
    }

    /// The title, the blocks (style, text, whether a heading) in the order their elements
    /// started, and which limit was reached.
    pub(super) fn finish(mut self) -> (String, Vec<(BlockStyle, String, bool)>, Option<PageLimit>) {
        if !self.pending_text.is_empty() {
            self.text("", true, false, true);
        }
        let title = self.title.unwrap_or_default().trim().to_string();
        let blocks = self
            .blocks
            .into_iter()
            .map(|block| {
                let text = block.text.trim_end().to_string();
                (block.style, text, block.heading)
            })
            .collect();
        (title, blocks, self.limited)
    }

    fn current_block(&mut self) -> usize {
        if let Some(block) = self.stack.last().and_then(|open| open.block) {
            return block;
        }
        *self.root_block.get_or_insert_with(|| {
            self.blocks.push(BlockUnderConstruction {
                style: BlockStyle::of(0, &StyleAttributes::root()),
                text: String::new(),
                heading: false,
            });
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
            }
        }
    }

    fn pop_to(&mut self, at: usize) {
        while self.stack.len() > at {
            if let Some(open) = self.stack.pop() {
                if open.tag == "title" {
                    self.in_title = false;
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
            let tag = self.stack[at].tag.as_str();
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

/// Elements that may stand in `<head>`; any other start tag begins the body.
fn belongs_in_head(tag: &str) -> bool {
    matches!(
        tag,
        "head"
            | "html"
            | "title"
            | "meta"
            | "link"
            | "script"
            | "style"
            | "base"
            | "noscript"
            | "template"
            | "basefont"
            | "bgsound"
    )
}

fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn declares_display_none(style: &str) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// Appends `text` to `out`, collapsing runs of whitespace into one space.
fn append_collapsed(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
}
