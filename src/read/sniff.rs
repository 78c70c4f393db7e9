//! Sniffing: a document's bytes (and its declared MIME type) in, whether it is HTML out — the
//! check shared by HTTP decoding ([`super::http`]) and page making ([`super::page`]); and a
//! decoded document in, whether it is binary data rather than text ([`binary_share`]).

/// MIME types that say nothing about the content: the body is sniffed instead.
const GENERIC_TYPES: &[&str] = &[
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
    "unknown/unknown",
    "application/x-unknown-content-type",
    "text/plain",
    "*/*",
];

/// How far into a document the HTML sniffer looks.
const SNIFF_BYTES: usize = 1024;

/// Whether a document is HTML: its MIME type says so, or the type is absent or generic and
/// the first bytes look like HTML.
pub(super) fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    let essence = content_type
        .and_then(|ct| ct.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence.contains("html") {
        return true;
    }
    GENERIC_TYPES.contains(&essence.as_str()) && sniffs_as_html(body)
}

/// Whether `bytes`, past a byte-order mark, whitespace, comments and an XML declaration,
/// start with `<!doctype html`, `<html`, `<head` or `<body` (any case).
pub(super) fn sniffs_as_html(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(head)
        && encoding != encoding_rs::UTF_8
    {
        // UTF-16: look at the text, not the bytes.
        let (text, _) = encoding.decode_with_bom_removal(head);
        return sniff_ascii(text.as_bytes());
    }
    sniff_ascii(head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head))
}

fn sniff_ascii(mut rest: &[u8]) -> bool {
    loop {
        rest = rest.trim_ascii_start();
        let skip_past = if rest.starts_with(b"<!--") {
            b"-->".as_slice()
        } else if rest.starts_with(b"<?") {
            b"?>".as_slice()
        } else {
            break;
        };
        match rest.windows(skip_past.len()).position(|w| w == skip_past) {
            Some(end) => rest = &rest[end + skip_past.len()..],
            None => return false,
        }
    }
    let starts_with = |prefix: &[u8]| {
        rest.len() >= prefix.len() && rest[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    if starts_with(b"<!doctype") {
        let after = rest[9..].trim_ascii_start();
        return after.len() >= 4 && after[..4].eq_ignore_ascii_case(b"html");
    }
    [b"<html".as_slice(), b"<head", b"<body"].iter().any(|tag| {
        starts_with(tag)
            && rest
                .get(tag.len())
                .is_none_or(|&b| !b.is_ascii_alphanumeric())
    })
}

/// How many characters at the start of a decoded document [`binary_share`] looks at.
const BINARY_SNIFF_CHARS: usize = 64 * 1024;

/// A document is binary data when at least one character in this many is a control
/// character. HTML holds almost none (text and markup use tab, newline, carriage return and
/// form feed, which do not count); random bytes, in any character set, decode to one control
/// character in ten or more.
const BINARY_ONE_IN: usize = 20;

/// When the start of `html` is binary data sent as a document (mostly control characters):
/// the share of control characters, in percent. `None` for text.
pub(super) fn binary_share(html: &str) -> Option<usize> {
    let (mut chars, mut controls) = (0usize, 0usize);
    for c in html.chars().take(BINARY_SNIFF_CHARS) {
        chars += 1;
        if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c') {
            controls += 1;
        }
    }
    (chars > 0 && controls * BINARY_ONE_IN >= chars).then(|| controls * 100 / chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffer_needs_a_real_tag() {
        assert!(sniffs_as_html(b"\n\t<html>"));
        assert!(sniffs_as_html(b"<BODY>"));
        assert!(sniffs_as_html(b"<head"));
        assert!(!sniffs_as_html(b"<header>"));
        assert!(!sniffs_as_html(b"<!doctype svg>"));
        assert!(!sniffs_as_html(b"<!-- unterminated"));
        assert!(!sniffs_as_html(b""));
        let mut utf16le = vec![0xff, 0xfe];
        for unit in "<html>".encode_utf16() {
            utf16le.extend_from_slice(&unit.to_le_bytes());
        }
        assert!(sniffs_as_html(&utf16le));
    }

    #[test]
    fn control_characters_make_binary_and_whitespace_does_not() {
        let junk: String = (0..10_000u32)
            .map(|i| char::from_u32(i % 32).unwrap())
            .collect();
        assert!(binary_share(&junk).is_some_and(|share| share > 80));
        let page = "<html>\n\t<p>text\r\n\x0c</p></html>".repeat(100);
        assert_eq!(binary_share(&page), None);
        assert_eq!(binary_share(""), None);
        // A stray NUL in a page is not binary.
        assert_eq!(binary_share(&format!("{page}\0")), None);
    }
}
