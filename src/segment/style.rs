//! Block styles: where a block sits (its position path) and what its element looks like (its
//! attribute vector). Blocks of one site with equal styles form a block-style cluster.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::attributes::ElementAttributes;

/// A block's style: a hash of its position path (the index among its siblings at each layer
/// from the root, as in Chen, Ye & Li's figure 1) and its [`StyleAttributes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockStyle(pub u64);

/// The attributes that make up a block's look: its tag, class and id, and the
/// presentational attributes of older layouts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StyleAttributes {
    /// Values of [`Self::NAMES`], in order; an absent attribute is empty.
    pub values: Vec<String>,
}

impl StyleAttributes {
    /// The attributes compared, after the tag name.
    pub const NAMES: [&'static str; 8] = [
        "class", "id", "width", "height", "align", "bgcolor", "valign", "border",
    ];

    /// The attribute vector of the pseudo-block holding text outside every layout element.
    pub fn root() -> Self {
        StyleAttributes {
            values: vec!["#root".to_string()],
        }
    }
}

impl BlockStyle {
    /// The style of a block at position path `path` (see [`child_path`]) with `attributes`.
    pub fn of(path: u64, attributes: &StyleAttributes) -> BlockStyle {
        Self::of_values(path, attributes.values.iter().map(String::as_str))
    }

    /// The style of a block at `path` started by an element `tag` with `attributes`: what
    /// [`of`](Self::of) gives for the element's attribute vector (its tag, then the value of
    /// each of [`StyleAttributes::NAMES`], empty when absent), without copying the values.
    pub(super) fn of_element(path: u64, tag: &str, attributes: &ElementAttributes<'_, '_>) -> Self {
        let values = StyleAttributes::NAMES.map(|name| attributes.get(name).unwrap_or_default());
        Self::of_values(
            path,
            std::iter::once(tag).chain(values.iter().map(|value| &**value)),
        )
    }

    fn of_values<'a>(path: u64, values: impl Iterator<Item = &'a str>) -> BlockStyle {
        let mut hasher = FxHasher::default();
        hasher.write_u64(path);
        for value in values {
            hasher.write(value.as_bytes());
            hasher.write_u8(0xff);
        }
        BlockStyle(hasher.finish())
    }
}

/// The position path of the `index`-th element child of the element at `parent_path`.
pub(super) fn child_path(parent_path: u64, index: u32) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u64(parent_path);
    hasher.write_u32(index);
    hasher.finish()
}

/// A hash of bytes that is the same in every run and on every machine.
pub fn stable_hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_paths_differ_by_index_and_by_ancestry() {
        let a = child_path(child_path(0, 1), 0);
        let b = child_path(child_path(0, 1), 1);
        let c = child_path(child_path(0, 0), 0);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, child_path(child_path(0, 1), 0));
    }

    #[test]
    fn an_element_has_the_style_of_its_attribute_vector() {
        use std::cell::RefCell;

        use lol_html::{HtmlRewriter, Settings, element};

        let html = "<body><div CLASS=\"menu top\" width=3 id='m' class=second><p align=left>\
                    <table border bgcolor=\"#fff\"><td valign=top>";
        let styles = RefCell::new(Vec::new());
        let settings = Settings::new().append_element_content_handler(element!("*", |el| {
            let tag = el.tag_name();
            let mut values = vec![tag.clone()];
            for name in StyleAttributes::NAMES {
                values.push(el.get_attribute(name).unwrap_or_default());
            }
            let attributes = ElementAttributes::of(el, html);
            styles.borrow_mut().push((
                BlockStyle::of(9, &StyleAttributes { values }),
                BlockStyle::of_element(9, &tag, &attributes),
            ));
            Ok(())
        }));
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(html.as_bytes()).expect("parses");
        rewriter.end().expect("parses");
        let styles = styles.into_inner();
        assert_eq!(styles.len(), 5);
        for (vector, element) in &styles {
            assert_eq!(vector, element);
        }
        assert_ne!(styles[0].0, styles[1].0);
    }

    #[test]
    fn attribute_values_do_not_run_together() {
        let ab = StyleAttributes {
            values: vec!["div".into(), "ab".into(), "".into()],
        };
        let a_b = StyleAttributes {
            values: vec!["div".into(), "a".into(), "b".into()],
        };
        assert_ne!(BlockStyle::of(7, &ab), BlockStyle::of(7, &a_b));
    }
}
