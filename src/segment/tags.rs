//! HTML's tag tables: a tag name in, what HTML (and the papers the detectors follow) say of
//! its element out — whether it starts a block, hides its text, flows inline, closes an open
//! `<p>`, bounds a scope, belongs in `<head>`, or is a heading of which level.

/// Table elements: Ma et al.'s chunk boundaries.
pub fn is_table_element(tag: &str) -> bool {
    matches!(
        tag,
        "table" | "caption" | "thead" | "tbody" | "tfoot" | "tr" | "td" | "th"
    )
}

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

/// Elements whose text is never visible, or is a reading aid over the text rather than part of
/// it (ruby annotations: `<ruby>漢<rt>かん</rt></ruby>` reads 漢).
pub(super) fn hides_text(tag: &str) -> bool {
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
            | "rt"
            | "rp"
    )
}

/// Elements that flow inside a line: their boundaries do not separate words.
pub(super) fn is_inline(tag: &str) -> bool {
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
            | "rb"
            | "rp"
            | "rt"
            | "ruby"
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
pub(super) fn closes_paragraph(tag: &str) -> bool {
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
pub(super) fn is_scope_boundary(tag: &str) -> bool {
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

/// Elements that may stand in `<head>`; any other start tag begins the body.
pub(super) fn belongs_in_head(tag: &str) -> bool {
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

/// Whether `tag` is a heading, `h1`–`h6`.
pub(super) fn is_heading(tag: &str) -> bool {
    heading_level(tag) > 0
}

/// 1–6 for `h1`–`h6`, 0 otherwise.
pub(super) fn heading_level(tag: &str) -> u8 {
    match tag {
        "h1" => 1,
        "h2" => 2,
        "h3" => 3,
        "h4" => 4,
        "h5" => 5,
        "h6" => 6,
        _ => 0,
    }
}
