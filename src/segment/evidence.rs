//! Page evidence: what a page's own markup says about a block, gathered in the same streaming
//! pass that cuts the blocks (when [`super::SegmentOptions::evidence`] asks for it) — the
//! elements around the block (navigation, footer, main content, …), the text inside links,
//! the heading level, and the class and id names of the block's element and its parents.
//!
//! Element and attribute facts in, a [`BlockEvidence`] per block out. What the facts *mean*
//! (which class names go with boilerplate) is not decided here: the `hybrid` detector learns
//! it from labelled pages.

use super::attributes::ElementAttributes;
use super::style::stable_hash_bytes;

/// Elements (or ARIA roles and microdata) around a block, as bits of [`BlockEvidence::context`].
pub mod context {
    /// Inside `<nav>` or `role=navigation`.
    pub const NAV: u32 = 1 << 0;
    /// Inside `<header>` or `role=banner`.
    pub const HEADER: u32 = 1 << 1;
    /// Inside `<footer>` or `role=contentinfo`.
    pub const FOOTER: u32 = 1 << 2;
    /// Inside `<aside>` or `role=complementary`.
    pub const ASIDE: u32 = 1 << 3;
    /// Inside `<form>`, `role=search` or `role=form`.
    pub const FORM: u32 = 1 << 4;
    /// Inside `<menu>`, `role=menu` or `role=menubar`.
    pub const MENU: u32 = 1 << 5;
    /// Inside `<button>` or `role=button`.
    pub const BUTTON: u32 = 1 << 6;
    /// Inside `<main>` or `role=main`.
    pub const MAIN: u32 = 1 << 7;
    /// Inside `<article>` or `itemprop=articleBody`.
    pub const ARTICLE: u32 = 1 << 8;
    /// Inside a list item (`<li>`, `<dt>`, `<dd>`).
    pub const LIST_ITEM: u32 = 1 << 9;
    /// Inside a table cell.
    pub const TABLE_CELL: u32 = 1 << 10;
    /// Inside `<pre>` or `<code>`.
    pub const CODE: u32 = 1 << 11;
    /// Inside `<blockquote>`, `<figure>` or `<figcaption>`.
    pub const QUOTE_OR_FIGURE: u32 = 1 << 12;
    /// Inside `<address>` or an element with `rel=author` / `itemprop=author`.
    pub const ADDRESS: u32 = 1 << 13;
    /// Inside an element whose `hidden`-like ARIA state says it is collapsed or a dialog.
    pub const DIALOG: u32 = 1 << 14;
    /// How many bits the `hybrid` model reads as features (the bits below this).
    pub const COUNT: usize = 15;
    /// Inside a thread of reader comments: a container element whose class names comments
    /// (`comment-list`, `comments_area`, `readerComments`, …), a Disqus thread, or Comment
    /// microdata ([`names_reader_comments`]). Not one of the model's features: it feeds the
    /// rule that leaves comments out of the main content.
    ///
    /// [`names_reader_comments`]: crate::segment::evidence::names_reader_comments
    pub const COMMENTS: u32 = 1 << 15;
}

/// What a page's markup says about one block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockEvidence {
    /// Bytes of the block's text that lie inside `<a>` elements.
    pub link_bytes: u32,
    /// [`context`] bits of the block's element and every element around it.
    pub context: u32,
    /// 1–6 for a heading (`<h1>`–`<h6>`), 0 otherwise.
    pub heading_level: u8,
    /// Elements open around the block's element (its depth in the page).
    pub depth: u16,
    /// [`tag_code`] of the block's element.
    pub tag: u8,
    /// The class and id tokens of the block's element (level 0) and its two nearest ancestors
    /// with such tokens (levels 1 and 2), each hashed with its level, at most [`MAX_TOKENS`]:
    /// bit `hash % 64` set for each (see [`token_bits`]).
    pub token_bits: u64,
    /// The block's element and its nearest ancestors (at most [`MAX_ANCESTORS`] in all),
    /// nearest first, each named by its order of appearance in the page: blocks that share an
    /// ancestor lie in the same region of the page.
    pub ancestors: Ancestors,
    /// Levels up from the block's element (0: the element itself) to the nearest element whose
    /// class or id holds a word of [`BOILERPLATE_NAME_WORDS`], at most [`FAR_LEVELS`]
    /// ([`FAR_LEVELS`] when there is none).
    pub levels_to_boilerplate_name: u8,
    /// The same for [`CONTENT_NAME_WORDS`].
    pub levels_to_content_name: u8,
}

/// What [`BlockEvidence::levels_to_boilerplate_name`] and
/// [`BlockEvidence::levels_to_content_name`] say when no element around the block is so named,
/// and the most they say otherwise.
pub const FAR_LEVELS: u8 = 32;

/// Words in class names and ids that mark the regions around a page's main text: side columns
/// and their widgets, navigation, footers, sharing and related-story boxes, comment threads,
/// advertising. Matched anywhere in a value, ASCII case ignored (`sidebar-left`,
/// `relatedPosts`, `textwidget`), as readability's class weights are.
pub const BOILERPLATE_NAME_WORDS: &[&str] = &[
    "sidebar",
    "widget",
    "footer",
    "masthead",
    "breadcrumb",
    "menu",
    "navbar",
    "comment",
    "related",
    "share",
    "social",
    "sponsor",
    "promo",
    "advert",
    "banner",
    "cookie",
    "newsletter",
    "subscribe",
    "profile",
    "popular",
    "trending",
    "recommend",
    "outbrain",
    "taboola",
    "popup",
    "modal",
];

/// Words in class names and ids that mark the main text's region: the post, entry, article or
/// story and its body.
pub const CONTENT_NAME_WORDS: &[&str] = &[
    "article", "content", "entry", "post", "story", "body", "text", "main",
];

/// What a class or id value says of the region its element holds: boilerplate, content, both
/// or neither.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NameLeanings {
    /// It holds a word of [`BOILERPLATE_NAME_WORDS`].
    pub boilerplate: bool,
    /// It holds a word of [`CONTENT_NAME_WORDS`].
    pub content: bool,
}

/// What `value`, a class or id, says of the region its element holds.
pub fn name_leanings(value: &str) -> NameLeanings {
    static WORDS: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        // Class values are a few dozen bytes: a DFA, and no prefilter to start on each.
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .prefilter(false)
            .build(BOILERPLATE_NAME_WORDS.iter().chain(CONTENT_NAME_WORDS))
            .expect("a handful of short words")
    });
    let mut leanings = NameLeanings::default();
    for found in WORDS.find_iter(value) {
        if found.pattern().as_usize() < BOILERPLATE_NAME_WORDS.len() {
            leanings.boilerplate = true;
        } else {
            leanings.content = true;
        }
        if leanings.boilerplate && leanings.content {
            break;
        }
    }
    leanings
}

/// Token hashes as the bits of [`BlockEvidence::token_bits`]: bit `hash % 64` per hash.
pub fn token_bits(tokens: impl IntoIterator<Item = u32>) -> u64 {
    tokens
        .into_iter()
        .fold(0, |bits, token| bits | 1 << (token % u64::BITS))
}

/// Up to [`MAX_ANCESTORS`] element serials, nearest first, held inline (a page holds one per
/// block while it waits for its decision).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ancestors {
    serials: [u32; MAX_ANCESTORS],
    len: u8,
}

impl Ancestors {
    /// The first [`MAX_ANCESTORS`] of `nearest_first`.
    pub fn new(nearest_first: impl IntoIterator<Item = u32>) -> Self {
        let mut ancestors = Ancestors::default();
        for (slot, serial) in ancestors.serials.iter_mut().zip(nearest_first) {
            *slot = serial;
            ancestors.len += 1;
        }
        ancestors
    }
}

impl std::ops::Deref for Ancestors {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.serials[..usize::from(self.len)]
    }
}

/// Hashes of one element's class and id tokens, at most [`MAX_ELEMENT_TOKENS`], held inline:
/// every open element holds one, most of them empty.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ClassTokens {
    hashes: [u32; MAX_ELEMENT_TOKENS],
    len: u8,
}

impl ClassTokens {
    /// Adds `hash` unless it is held already or the tokens are full.
    fn push_new(&mut self, hash: u32) {
        if usize::from(self.len) < MAX_ELEMENT_TOKENS && !self.contains(&hash) {
            self.hashes[usize::from(self.len)] = hash;
            self.len += 1;
        }
    }

    fn is_full(&self) -> bool {
        usize::from(self.len) == MAX_ELEMENT_TOKENS
    }
}

impl std::ops::Deref for ClassTokens {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.hashes[..usize::from(self.len)]
    }
}

/// Class and id tokens read from one element, at most.
const MAX_ELEMENT_TOKENS: usize = 8;

// A block's element and its two nearest named ancestors never hold more than a block keeps.
const _: () = assert!(3 * MAX_ELEMENT_TOKENS <= MAX_TOKENS);

/// Elements kept in [`BlockEvidence::ancestors`], at most.
pub const MAX_ANCESTORS: usize = 8;

/// Class and id tokens kept per block, at most.
pub const MAX_TOKENS: usize = 24;

/// Tags a block's element is told apart by; every other tag is code 0.
const TAGS: &[&str] = &[
    "body",
    "div",
    "p",
    "ul",
    "ol",
    "dl",
    "table",
    "section",
    "article",
    "aside",
    "nav",
    "header",
    "footer",
    "main",
    "form",
    "pre",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figure",
    "figcaption",
    "address",
    "td",
    "th",
    "li",
];

/// The code of `tag` in [`TAGS`] (1-based), 0 for any other tag.
pub fn tag_code(tag: &str) -> u8 {
    TAGS.iter()
        .position(|known| *known == tag)
        .map_or(0, |at| at as u8 + 1)
}

/// How many tag codes there are (0 included).
pub const TAG_CODES: usize = TAGS.len() + 1;

/// The [`context`] bits an element adds for what is inside it, and the hashes of its class
/// and id tokens (lower-cased, cut at `-`, `_` and digits, so that `site-footer2` gives `site`
/// and `footer`; at most eight), and whether its class or id names boilerplate and content
/// ([`name_leanings`]) — from one walk over its attributes.
pub(super) fn context_and_tokens(
    tag: &str,
    attributes: &ElementAttributes<'_, '_>,
) -> (u32, ClassTokens, NameLeanings) {
    let mut bits = match tag {
        "nav" => context::NAV,
        "header" => context::HEADER,
        "footer" => context::FOOTER,
        "aside" => context::ASIDE,
        "form" => context::FORM,
        "menu" => context::MENU,
        "button" => context::BUTTON,
        "main" => context::MAIN,
        "article" => context::ARTICLE,
        "li" | "dt" | "dd" => context::LIST_ITEM,
        "td" | "th" => context::TABLE_CELL,
        "pre" | "code" => context::CODE,
        "blockquote" | "figure" | "figcaption" => context::QUOTE_OR_FIGURE,
        "address" => context::ADDRESS,
        "dialog" => context::DIALOG,
        _ => 0,
    };
    let mut tokens = ClassTokens::default();
    let mut leanings = NameLeanings::default();
    let container = COMMENT_CONTAINERS.contains(&tag);
    for attribute in attributes.iter() {
        let Some(name) = ["class", "id", "role", "itemprop", "itemtype", "rel"]
            .into_iter()
            .find(|name| attribute.is(name))
        else {
            continue;
        };
        let value = attribute.value;
        if container && names_reader_comments(name, &value) {
            bits |= context::COMMENTS;
        }
        match name {
            "class" | "id" => {
                add_tokens(&mut tokens, &value);
                let named = name_leanings(&value);
                leanings.boilerplate |= named.boilerplate;
                leanings.content |= named.content;
            }
            "role" => bits |= role_bits(&value),
            "itemprop" => {
                let property = value.to_ascii_lowercase();
                if property.contains("articlebody") || property.contains("text") {
                    bits |= context::ARTICLE;
                } else if property.contains("author") {
                    bits |= context::ADDRESS;
                }
            }
            "rel" if value.eq_ignore_ascii_case("author") => bits |= context::ADDRESS,
            _ => {}
        }
    }
    (bits, tokens, leanings)
}

/// Elements that hold a thread of comments or one comment (never `body`, `main` or an
/// inline element: a page's or an article's classes may say that it *has* comments).
const COMMENT_CONTAINERS: &[&str] = &[
    "div", "section", "article", "aside", "ol", "ul", "li", "dl", "footer", "iframe",
];

/// Parts of a class name that say the element holds reader comments, anywhere in the name.
const COMMENT_PARTS: &[&str] = &["comments", "commentlist", "commentslist"];

/// A part that says so only as the first of a name (`comment-body`): later in a name it is as
/// often a documentation comment (Javadoc's `deprecation-comment`).
const FIRST_COMMENT_PART: &str = "comment";

/// Parts of a name that make it a state of comments, not comments (`comments-open`,
/// `no-comments`, `has-comments`), or the authors' own running commentary of a match or an
/// event (`live-match-comments`), which is the page's content.
const NOT_COMMENT_PARTS: &[&str] = &[
    "open", "closed", "disabled", "enabled", "no", "has", "allow", "allowed", "off", "on", "live",
];

/// Second parts of an id that make `comments-…` the id of a container; an id is otherwise
/// not read, since documentation gives its sections ids made of their headings
/// (`<section id="comments">` on a page about a language's comments).
const COMMENT_ID_CONTAINERS: &[&str] = &[
    "area",
    "list",
    "container",
    "wrapper",
    "wrap",
    "section",
    "thread",
    "block",
    "box",
    "holder",
    "panel",
    "widget",
];

/// Whether the attribute `name="value"` of a container element says it holds reader
/// comments: a class name with a comment part (`comment-body`, `post_comments`,
/// `readerComments`, `commentlist`; `comment` only first) and no part naming a state; an id of a Disqus thread or of
/// a comment container (`comments-area`, `comment_list`); `itemtype` of schema.org's `Comment`
/// or `itemprop="comment"`.
pub fn names_reader_comments(name: &str, value: &str) -> bool {
    // Most class names and ids name no comments: told by a scan, before any is cut into parts.
    let may_name_comments = |value: &str| {
        let bytes = value.as_bytes();
        bytes
            .windows(FIRST_COMMENT_PART.len())
            .any(|window| window.eq_ignore_ascii_case(FIRST_COMMENT_PART.as_bytes()))
            || bytes
                .get(..3)
                .is_some_and(|head| head.eq_ignore_ascii_case(b"dsq"))
            || bytes
                .get(..6)
                .is_some_and(|head| head.eq_ignore_ascii_case(b"disqus"))
    };
    if matches!(name, "class" | "id") && !may_name_comments(value) {
        return false;
    }
    match name {
        "class" => value.split_ascii_whitespace().any(|class| {
            let parts = name_parts(class);
            (parts
                .first()
                .is_some_and(|first| first == FIRST_COMMENT_PART)
                || parts
                    .iter()
                    .any(|part| COMMENT_PARTS.contains(&part.as_str())))
                && !parts
                    .iter()
                    .any(|part| NOT_COMMENT_PARTS.contains(&part.as_str()))
        }),
        "id" => {
            let parts = name_parts(value);
            let first = parts.first().map_or("", String::as_str);
            matches!(first, "disqus" | "dsq")
                || ((first == FIRST_COMMENT_PART || COMMENT_PARTS.contains(&first))
                    && parts.len() >= 2
                    && COMMENT_ID_CONTAINERS.contains(&parts[1].as_str()))
        }
        "itemtype" => {
            let value = value.trim_end_matches('/');
            value.ends_with("/Comment") || value.ends_with("/UserComments")
        }
        "itemprop" => value
            .split_ascii_whitespace()
            .any(|property| property.eq_ignore_ascii_case("comment")),
        _ => false,
    }
}

/// A class or id cut into lower-cased parts at `-`, `_`, digits and lower-to-upper case
/// changes (`readerComments2-list` gives `reader`, `comments`, `list`).
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphabetic() {
            previous_lower = false;
            if !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !part.is_empty() {
            parts.push(std::mem::take(&mut part));
        }
        previous_lower = c.is_ascii_lowercase();
        part.push(c.to_ascii_lowercase());
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

fn role_bits(role: &str) -> u32 {
    match role.trim().to_ascii_lowercase().as_str() {
        "navigation" => context::NAV,
        "banner" => context::HEADER,
        "contentinfo" => context::FOOTER,
        "complementary" => context::ASIDE,
        "search" | "form" => context::FORM,
        "menu" | "menubar" => context::MENU,
        "button" => context::BUTTON,
        "main" => context::MAIN,
        "article" => context::ARTICLE,
        "dialog" | "alertdialog" => context::DIALOG,
        _ => 0,
    }
}

fn add_tokens(tokens: &mut ClassTokens, value: &str) {
    for word in value
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| word.len() >= 2 && word.len() <= 24)
    {
        if tokens.is_full() {
            return;
        }
        let mut lowercase = [0u8; 24];
        let lowercase = &mut lowercase[..word.len()];
        lowercase.copy_from_slice(word.as_bytes());
        lowercase.make_ascii_lowercase();
        tokens.push_new(stable_hash_bytes(lowercase) as u32);
    }
}

/// A token hash tagged with how far up from the block's element it was found.
pub fn token_at_level(token: u32, level: u32) -> u32 {
    token.rotate_left(level * 11) ^ level.wrapping_mul(0x9e37_79b9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_tokens_are_lowercased_parts_each_once_and_at_most_eight() {
        let mut tokens = ClassTokens::default();
        add_tokens(
            &mut tokens,
            "site-footer2 Footer x nav_Menu one two three four five six",
        );
        let hash = |word: &str| stable_hash_bytes(word.as_bytes()) as u32;
        let expected = [
            "site", "footer", "nav", "menu", "one", "two", "three", "four",
        ]
        .map(hash);
        assert_eq!(&*tokens, expected.as_slice());
        assert!(tokens.is_full());
        let mut few = ClassTokens::default();
        add_tokens(&mut few, "a b-C");
        assert!(few.is_empty(), "parts of one letter are not tokens");
    }

    #[test]
    fn class_and_id_words_lean_to_boilerplate_or_content_anywhere_in_a_value() {
        for (value, leanings) in [
            ("sidebar-left", (true, false)),
            ("SideBar", (true, false)),
            ("relatedStories", (true, false)),
            ("entry-content", (false, true)),
            ("post-body", (false, true)),
            ("storycontent", (false, true)),
            ("articleBody", (false, true)),
            // Both: a widget of recent posts, a text widget.
            ("widget recent-posts", (true, true)),
            ("widget Text", (true, true)),
            ("textwidget", (true, true)),
            ("clearfix", (false, false)),
            ("", (false, false)),
        ] {
            let found = name_leanings(value);
            assert_eq!((found.boilerplate, found.content), leanings, "{value}");
        }
    }

    #[test]
    fn class_names_ids_and_microdata_of_reader_comments_are_told_apart_from_states_and_anchors() {
        for (name, value) in [
            ("class", "comment"),
            ("class", "comment-body"),
            ("class", "comments_follow followable_block"),
            ("class", "row comments-row"),
            ("class", "pg-comments pg-rail-tall__comments"),
            ("class", "article-sidebar-panel article-comments-panel"),
            ("class", "commentlist"),
            ("class", "readerComments"),
            ("id", "disqus_thread"),
            ("id", "comments-area"),
            ("id", "comment_list"),
            ("itemtype", "https://schema.org/Comment"),
            ("itemprop", "comment"),
        ] {
            assert!(names_reader_comments(name, value), "{name}={value}");
        }
        for (name, value) in [
            ("class", "commentary"),
            ("class", "deprecation-comment"),
            ("class", "post comments-open"),
            ("class", "no-comments"),
            ("class", "has_comments"),
            ("class", "live-match-comments"),
            ("class", "section"),
            ("id", "comments"),
            ("id", "comments-in-templates"),
            ("id", "readerComments"),
            ("itemtype", "https://schema.org/Article"),
            ("href", "#comments"),
        ] {
            assert!(!names_reader_comments(name, value), "{name}={value}");
        }
        assert_eq!(
            name_parts("readerComments2-list_x"),
            ["reader", "comments", "list", "x"]
        );
    }

    #[test]
    fn tags_have_codes_and_others_share_zero() {
        assert_eq!(tag_code("body"), 1);
        assert_ne!(tag_code("nav"), 0);
        assert_eq!(tag_code("marquee"), 0);
        assert_eq!(TAG_CODES, TAGS.len() + 1);
    }
}
