//! An element's attributes as the segmenter reads them: each name and value a slice of the
//! page's HTML where lol_html says where it lies, so that the many questions asked of one start
//! tag (its style, its evidence, whether it hides its text, its link) copy nothing.
//! lol_html's own `get_attribute` makes a lowercased copy of the name asked for and of the value
//! found, and walks the attributes again on every call.

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
