//! An element's attributes as the segmenter reads them: each name and value a slice of the
//! page's HTML where lol_html says where it lies, so that the many questions asked of one start
//! tag (its style, its evidence, whether it hides its text, its link) copy nothing.
//! lol_html's own `get_attribute` makes a lowercased copy of the name asked for and of the value
//! found, and walks the attributes again on every call. The same for the tag's name
//! ([`ElementAttributes::tag_name`]), which lol_html gives as a new string.

use std::borrow::Cow;

use lol_html::html_content::{Attribute, Element, SourceLocation};

/// The attributes of one start tag, in source order (duplicates kept, as written).
pub(super) struct ElementAttributes<'e, 'h> {
    list: &'e [Attribute<'e>],
    html: &'h str,
}

/// One attribute: its name as written (compare with [`is`](Self::is)) and its value, entities
/// not decoded (as lol_html gives them).
pub(super) struct ElementAttribute<'a> {
    name: Cow<'a, str>,
    /// Its value.
    pub value: Cow<'a, str>,
}

impl ElementAttribute<'_> {
    /// Whether the name is `lowercase` (HTML attribute names compare ASCII-case-insensitively).
    pub fn is(&self, lowercase: &str) -> bool {
        self.name.eq_ignore_ascii_case(lowercase)
    }

    /// The name's bytes, ASCII-lowercased, appended to `out`.
    pub fn push_lowercase_name(&self, out: &mut Vec<u8>) {
        out.extend(self.name.bytes().map(|byte| byte.to_ascii_lowercase()));
    }
}

impl<'e, 'h: 'e> ElementAttributes<'e, 'h> {
    /// The attributes of `element`, whose start tag lies in `html` (the text given to lol_html).
    pub fn of(element: &'e Element<'_, '_>, html: &'h str) -> Self {
        ElementAttributes {
            list: element.attributes(),
            html,
        }
    }

    /// The tag name of `element` (the element these are the attributes of), lowercased as
    /// `Element::tag_name` gives it: one of [`KNOWN_TAGS`] read in place, any other name (or
    /// one written in a way this reading does not follow) as lol_html's copy.
    pub fn tag_name(&self, element: &Element<'_, '_>) -> Cow<'static, str> {
        known_tag(element, self.html)
            .map(Cow::Borrowed)
            .unwrap_or_else(|| Cow::Owned(element.tag_name()))
    }

    /// Every attribute, in source order.
    pub fn iter(&self) -> impl Iterator<Item = ElementAttribute<'e>> + '_ {
        self.list.iter().map(|attribute| self.read(attribute))
    }

    /// The value of the first attribute named `lowercase`, as `Element::get_attribute` finds it.
    pub fn get(&self, lowercase: &str) -> Option<Cow<'e, str>> {
        self.list
            .iter()
            .find(|attribute| self.named(attribute, lowercase))
            .map(|attribute| self.read(attribute).value)
    }

    /// Whether there is an attribute named `lowercase`.
    pub fn has(&self, lowercase: &str) -> bool {
        self.list
            .iter()
            .any(|attribute| self.named(attribute, lowercase))
    }

    /// Whether `attribute` is named `lowercase`, its value not read.
    fn named(&self, attribute: &Attribute<'_>, lowercase: &str) -> bool {
        match self.in_source(attribute.name_source_location()) {
            Some(name) => name.eq_ignore_ascii_case(lowercase),
            None => attribute.name().eq_ignore_ascii_case(lowercase),
        }
    }

    /// The text of the page at `location`, where lol_html gives one.
    fn in_source(&self, location: Option<SourceLocation>) -> Option<&'h str> {
        location.and_then(|location| self.html.get(location.bytes()))
    }

    fn read(&self, attribute: &Attribute<'_>) -> ElementAttribute<'e> {
        match self.in_source(attribute.name_source_location()) {
            Some(name) => ElementAttribute {
                name: Cow::Borrowed(name),
                value: match self.in_source(attribute.value_source_location()) {
                    Some(value) => Cow::Borrowed(value),
                    None => Cow::Owned(attribute.value()),
                },
            },
            None => ElementAttribute {
                name: Cow::Owned(attribute.name()),
                value: Cow::Owned(attribute.value()),
            },
        }
    }
}

/// The name of [`KNOWN_TAGS`] that `element`'s start tag in `html` is written with, if any.
fn known_tag(element: &Element<'_, '_>, html: &str) -> Option<&'static str> {
    let start_tag = html.as_bytes().get(element.source_location().bytes())?;
    let after_bracket = start_tag.strip_prefix(b"<")?;
    let length = after_bracket
        .iter()
        .position(|byte| !byte.is_ascii_alphanumeric())
        .unwrap_or(after_bracket.len());
    // The name ends where HTML's tag-name state ends it; anything else is left to lol_html.
    if !matches!(
        after_bracket.get(length),
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
    ) {
        return None;
    }
    if length > LONGEST_KNOWN_TAG {
        return None;
    }
    let mut name = [0u8; 16];
    name[..length].copy_from_slice(&after_bracket[..length]);
    name.make_ascii_lowercase();
    let at = KNOWN_TAG_KEYS
        .binary_search(&u128::from_be_bytes(name))
        .ok()?;
    Some(KNOWN_TAGS[at])
}

/// A name of at most 16 bytes as a number, its bytes big-endian and zeros after them: names
/// compare as their numbers do.
const fn name_key(name: &str) -> u128 {
    let mut bytes = [0u8; 16];
    let mut at = 0;
    while at < name.len() {
        bytes[at] = name.as_bytes()[at];
        at += 1;
    }
    u128::from_be_bytes(bytes)
}

/// [`KNOWN_TAGS`] as [`name_key`]s, in the same order.
const KNOWN_TAG_KEYS: [u128; KNOWN_TAGS.len()] = {
    let mut keys = [0; KNOWN_TAGS.len()];
    let mut at = 0;
    while at < keys.len() {
        keys[at] = name_key(KNOWN_TAGS[at]);
        at += 1;
    }
    keys
};

/// HTML's elements (and a few obsolete ones still met in crawls), sorted, none longer than 16
/// bytes.
const KNOWN_TAGS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "nobr",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "xmp",
];

/// The longest name in [`KNOWN_TAGS`].
const LONGEST_KNOWN_TAG: usize = 10;

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use lol_html::{HtmlRewriter, Settings, element};

    use super::*;

    /// For every element of `html`: (name, value) of each attribute and the values of
    /// `asked`, read both through lol_html's own calls and through [`ElementAttributes`].
    fn both_ways(html: &str, asked: &[&str]) -> (Vec<String>, Vec<String>) {
        let theirs = RefCell::new(Vec::new());
        let ours = RefCell::new(Vec::new());
        let settings = Settings::new().append_element_content_handler(element!("*", |el| {
            let attributes = ElementAttributes::of(el, html);
            for attribute in el.attributes() {
                theirs
                    .borrow_mut()
                    .push(format!("{}={}", attribute.name(), attribute.value()));
            }
            for attribute in attributes.iter() {
                let mut name = Vec::new();
                attribute.push_lowercase_name(&mut name);
                let name = String::from_utf8(name).expect("ASCII-lowercased UTF-8");
                ours.borrow_mut()
                    .push(format!("{name}={}", attribute.value));
            }
            for name in asked {
                theirs.borrow_mut().push(format!(
                    "{name}? {:?} {}",
                    el.get_attribute(name),
                    el.has_attribute(name)
                ));
                ours.borrow_mut().push(format!(
                    "{name}? {:?} {}",
                    attributes.get(name).map(Cow::into_owned),
                    attributes.has(name)
                ));
            }
            Ok(())
        }));
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(html.as_bytes()).expect("parses");
        rewriter.end().expect("parses");
        (theirs.into_inner(), ours.into_inner())
    }

    #[test]
    fn known_tags_are_sorted_and_no_longer_than_the_longest() {
        assert!(KNOWN_TAGS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(KNOWN_TAG_KEYS.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(
            KNOWN_TAGS.iter().map(|tag| tag.len()).max(),
            Some(LONGEST_KNOWN_TAG)
        );
    }

    #[test]
    fn tag_names_are_lol_html_s_whether_read_in_place_or_not() {
        let html = "<HTML><Body><DIV class=a>x<p/>y<br>z<Custom-Element>w</Custom-Element>\
                    <svg><Path d=1/></svg><td\tx>v</td><FigCaption\n>u</figcaption>\
                    <h1>t<blockquotes>s<img/src=x></body>";
        let names = RefCell::new(Vec::new());
        let settings = Settings::new().append_element_content_handler(element!("*", |el| {
            let read = ElementAttributes::of(el, html).tag_name(el);
            names.borrow_mut().push((
                el.tag_name(),
                read.clone().into_owned(),
                matches!(read, Cow::Borrowed(_)),
            ));
            Ok(())
        }));
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(html.as_bytes()).expect("parses");
        rewriter.end().expect("parses");
        let names = names.into_inner();
        assert_eq!(names.len(), 13, "{names:?}");
        for (theirs, ours, _) in &names {
            assert_eq!(theirs, ours);
        }
        let in_place: Vec<&str> = names
            .iter()
            .filter(|(_, _, borrowed)| *borrowed)
            .map(|(name, _, _)| name.as_str())
            .collect();
        assert_eq!(
            in_place,
            [
                "html",
                "body",
                "div",
                "p",
                "br",
                "svg",
                "td",
                "figcaption",
                "h1",
                "img"
            ]
        );
    }

    #[test]
    fn reads_what_lol_html_reads_without_copying_names() {
        let html = "<html><body CLASS=\"a b\" Id=x hidden><div class='one' class=\"two\" \
                    style=\"display: none\" data-x=&amp;y>é<a HREF=\"/p?a=1&amp;b=2\" \
                    title=\"naïve\">t</a><img alt=\"\" src=x><input disabled></div></body></html>";
        let (theirs, ours) = both_ways(
            html,
            &[
                "class", "id", "hidden", "style", "href", "alt", "disabled", "none",
            ],
        );
        assert!(theirs.len() > 20, "{theirs:?}");
        assert_eq!(theirs, ours);
    }
}
