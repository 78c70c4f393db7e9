//! The page's shape as segmentation meets it: which elements become layout marks (headings,
//! lists, tables, preformatted code and its language, links, images, line breaks), and the
//! exact text of preformatted elements. What flows in is one start tag or one text node; what
//! flows out is marks in the page's [`Layout`].

use super::*;

impl OpenElements {
    /// Records the layout mark of an element starting now, if its shape is one the layout
    /// keeps; says what the element's text inherits.
    pub(super) fn shape_element(
        &mut self,
        tag: &str,
        attributes: &ElementAttributes<'_, '_>,
    ) -> ShapedElement {
        let parent = self.stack.last();
        let mut shaped = ShapedElement {
            in_layout: false,
            preformatted: parent.is_some_and(|open| open.preformatted),
            preformatted_mark: parent.and_then(|open| open.preformatted_mark),
            language: parent
                .and_then(|open| open.language)
                .and_then(|(language, generations)| {
                    (generations > 0).then_some((language, generations - 1))
                }),
        };
        let names_language = matches!(tag, "div" | "pre" | "code" | "figure");
        let (mut class, mut data_lang, mut data_language) = (None, None, None);
        if names_language || matches!(tag, "span" | "td" | "th" | "a") {
            for attribute in attributes.iter() {
                let slot = if attribute.is("class") {
                    &mut class
                } else if names_language && attribute.is("data-lang") {
                    &mut data_lang
                } else if names_language && attribute.is("data-language") {
                    &mut data_language
                } else {
                    continue;
                };
                slot.get_or_insert(attribute.value);
            }
        }
        if let Some(class) = &class
            && layout::is_gutter_class(class)
        {
            shaped.in_layout = self.layout.open(Shape::Gutter).is_some();
            return shaped;
        }
        if names_language {
            let named = class
                .as_deref()
                .and_then(layout::language_in_class)
                .map(str::to_string)
                .or_else(|| {
                    data_lang.or(data_language).and_then(|value| {
                        layout::language_in_class(&format!("lang-{value}")).map(str::to_string)
                    })
                });
            if let Some(named) = named {
                shaped.language = Some((self.layout.store(&named), 2));
            }
        }
        if shaped.preformatted {
            if tag == "code"
                && let (Some(at), Some((language, _))) = (shaped.preformatted_mark, shaped.language)
            {
                self.layout.name_language(at, language);
            }
            return shaped;
        }
        let Some(shape) = shape_of(tag, attributes, &mut self.layout) else {
            return shaped;
        };
        let shape = match shape {
            Shape::Preformatted(_) => {
                Shape::Preformatted(shaped.language.map(|(language, _)| language))
            }
            shape => shape,
        };
        let mark = self.layout.open(shape);
        shaped.in_layout = mark.is_some();
        if let Shape::Preformatted(_) = shape {
            shaped.preformatted = true;
            shaped.preformatted_mark = mark;
            self.preformatted_fresh = true;
        }
        shaped
    }

    /// The layout of an element without content: a line break, or an image.
    pub(super) fn void_element_layout(
        &mut self,
        tag: &str,
        attributes: &ElementAttributes<'_, '_>,
    ) {
        let Some(parent) = self.stack.last() else {
            if tag == "br" || tag == "hr" {
                self.layout.push(Mark::Break);
            }
            return;
        };
        if parent.hidden {
            return;
        }
        let (preformatted, block) = (parent.preformatted, parent.block.or(self.root_block));
        match tag {
            "br" | "hr" if preformatted => {
                if let Some(block) = block {
                    let text = self.layout.store("\n");
                    self.layout.push(Mark::Literal {
                        block: block as u32,
                        text,
                    });
                }
            }
            "br" | "hr" => self.layout.push(Mark::Break),
            "img" => {
                let (Some(block), Some(source)) = (block, attributes.get("src")) else {
                    return;
                };
                if source.len() > MAX_LINK_BYTES {
                    return;
                }
                let alt = attributes.get("alt").unwrap_or_default();
                self.layout.push_image(
                    block as u32,
                    &htmlize::unescape(&*alt),
                    &htmlize::unescape(&*source),
                );
            }
            _ => {}
        }
    }

    /// Keeps the target of a link, when links are asked for (up to [`MAX_LINKS`] of them, each
    /// up to [`MAX_LINK_BYTES`]).
    pub(super) fn keep_link(&mut self, tag: &str, attributes: &ElementAttributes<'_, '_>) {
        if self.options.links
            && tag == "a"
            && self.links.len() < MAX_LINKS
            && let Some(href) = attributes.get("href")
            && href.len() <= MAX_LINK_BYTES
        {
            self.links.push(href.into_owned());
        }
    }

    /// An image's `alt` text as a text node of its own, when asked for and it reads as text
    /// ([`is_meaningful_alt`]) in a visible place.
    pub(super) fn image_alt_text(
        &mut self,
        tag: &str,
        element: &Element,
        attributes: &ElementAttributes<'_, '_>,
    ) {
        if self.options.image_alt
            && tag == "img"
            && !self.stack.last().is_some_and(|open| open.hidden)
            && let Some(alt) = attributes.get("alt")
            && is_meaningful_alt(&alt)
        {
            let at = element.source_location().bytes().start;
            self.separate_words();
            self.text_node(&alt, true, (at, at));
            self.separate_words();
        }
    }

    /// Preformatted text, as written, into the layout (the first line break after the
    /// element's start left out, as HTML does).
    pub(super) fn preformatted_text(&mut self, block: usize, text: &str) {
        let mut text = text;
        if std::mem::take(&mut self.preformatted_fresh) {
            text = text
                .strip_prefix("\r\n")
                .or_else(|| text.strip_prefix('\n'))
                .unwrap_or(text);
        }
        if text.is_empty() {
            return;
        }
        // A carriage return ends a line, as HTML's input stream makes it (a `&#13;` too: a
        // line of code it starts must not fall out of a list item's indentation).
        let text = self.layout.store(&layout::with_line_feeds(text));
        self.layout.push(Mark::Literal {
            block: block as u32,
            text,
        });
    }
}

/// What an element starting now hands to its text and its children in the layout.
#[derive(Default)]
pub(super) struct ShapedElement {
    pub(super) in_layout: bool,
    pub(super) preformatted: bool,
    pub(super) preformatted_mark: Option<usize>,
    pub(super) language: Option<(StoredText, u8)>,
}

/// The layout shape of an element of `tag` outside preformatted text, if it has one.
pub(super) fn shape_of(
    tag: &str,
    attributes: &ElementAttributes<'_, '_>,
    layout: &mut Layout,
) -> Option<Shape> {
    let number = |name: &str| {
        attributes
            .get(name)
            .and_then(|value| value.trim().parse::<i64>().ok())
    };
    let shape = match tag {
        "p" => Shape::Paragraph,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Shape::Heading(heading_level(tag)),
        "ul" | "menu" | "dir" => Shape::List {
            ordered: false,
            start: None,
            reversed: false,
        },
        "ol" => Shape::List {
            ordered: true,
            start: number("start").map(within_i32),
            reversed: attributes.has("reversed"),
        },
        "li" => Shape::Item(number("value").map(within_i32)),
        "dt" => Shape::Term,
        "dd" => Shape::Definition,
        "blockquote" => Shape::Quote,
        "pre" | "xmp" | "listing" | "plaintext" => Shape::Preformatted(None),
        "table" => Shape::Table {
            presentation: attributes.get("role").is_some_and(|role| {
                role.eq_ignore_ascii_case("presentation") || role.eq_ignore_ascii_case("none")
            }),
        },
        "caption" => Shape::Caption,
        "tr" => Shape::Row,
        "td" | "th" => Shape::Cell {
            header: tag == "th",
            colspan: number("colspan").map_or(1, |span| {
                span.clamp(1, i64::from(layout::MAX_COLSPAN)) as u16
            }),
        },
        "code" | "kbd" | "samp" | "tt" => {
            if attributes
                .get("style")
                .is_some_and(|style| styles_preformatted(&style, tag == "code"))
            {
                Shape::Preformatted(None)
            } else {
                Shape::Code
            }
        }
        "em" | "i" => Shape::Emphasis,
        "strong" | "b" => Shape::Strong,
        "a" => {
            let href = attributes.get("href")?;
            if href.len() > MAX_LINK_BYTES {
                return None;
            }
            Shape::Link(layout.store(&htmlize::unescape(&*href)))
        }
        // Only a `div` that keeps its whitespace is a listing: a `<span>` styled so (`pre` or
        // `pre-wrap`) stays inline, as a browser shows it, for pasted word-processor text wraps
        // every run of prose in one.
        "div"
            if attributes
                .get("style")
                .is_some_and(|style| styles_preformatted(&style, false)) =>
        {
            Shape::Preformatted(None)
        }
        "summary" | "legend" | "option" | "optgroup" | "search" | "address" => Shape::Block,
        _ if is_layout_element(tag) => Shape::Block,
        _ => return None,
    };
    Some(shape)
}

pub(super) fn within_i32(number: i64) -> i32 {
    number.clamp(i32::MIN.into(), i32::MAX.into()) as i32
}

/// Whether an inline style keeps whitespace (`white-space: pre` or `pre-wrap`), or, for
/// `<code>`, makes it a block of its own (`display: block`).
pub(super) fn styles_preformatted(style: &str, code: bool) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    compact.contains("white-space:pre;")
        || compact.ends_with("white-space:pre")
        || compact.contains("white-space:pre-wrap")
        || (code && compact.contains("display:block"))
}

/// Whether an image's `alt` text reads as text: not empty, and not a file or placeholder
/// name — one word holding a digit, a dot or an underscore (`img9`, `logo.gif`, `nav_left`),
/// or one of the words sites put on spacer and decoration images.
pub(super) fn is_meaningful_alt(alt: &str) -> bool {
    const PLACEHOLDERS: [&str; 12] = [
        "spacer",
        "image",
        "img",
        "pixel",
        "blank",
        "clear",
        "dot",
        "shim",
        "transparent",
        "bullet",
        "arrow",
        "icon",
    ];
    let alt = alt.trim();
    if alt.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
        return false;
    }
    if alt.contains(char::is_whitespace) {
        return true;
    }
    let lower = alt.to_lowercase();
    !(lower.contains(|c: char| c.is_ascii_digit() || c == '.' || c == '_')
        || PLACEHOLDERS.contains(&lower.as_str()))
}
