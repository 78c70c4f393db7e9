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
///
/// Read as bytes, which gives what reading characters would and costs a fraction of it: a
/// character starts at every byte that is not a UTF-8 continuation byte, and a control
/// character (Unicode's Cc: U+0000–U+001F, U+007F–U+009F) is one byte below 0x20 or 0x7F, or
/// the two bytes 0xC2 0x80–0x9F.
pub(super) fn binary_share(html: &str) -> Option<usize> {
    let (chars, controls) = sniffed_counts(html);
    (chars > 0 && controls * BINARY_ONE_IN >= chars).then(|| controls * 100 / chars)
}

/// The characters [`binary_share`] reads, and how many of them are control characters other
/// than tab, newline, carriage return and form feed.
fn sniffed_counts(html: &str) -> (usize, usize) {
    let bytes = &html.as_bytes()[..sniffed_bytes(html.as_bytes())];
    let Some(&first) = bytes.first() else {
        return (0, 0);
    };
    // Branch-free tests, counted in byte-wide lanes a chunk at a time, so that the loop runs
    // on vector registers.
    let starts_char = |byte: u8| u8::from(byte & 0xC0 != 0x80);
    let c0 = |byte: u8| {
        u8::from(byte < 0x20)
            & u8::from(byte != b'\t')
            & u8::from(byte != b'\n')
            & u8::from(byte != b'\r')
            & u8::from(byte != 0x0c)
            | u8::from(byte == 0x7F)
    };
    // U+0080–U+009F: the lead byte 0xC2, then a continuation byte 0x80–0x9F.
    let c1 = |lead: u8, next: u8| u8::from(lead == 0xC2) & u8::from(next & 0xE0 == 0x80);
    let (mut chars, mut controls) = (usize::from(starts_char(first)), usize::from(c0(first)));
    for (leads, nexts) in bytes.chunks(255).zip(bytes[1..].chunks(255)) {
        let (mut chunk_chars, mut chunk_controls) = (0u8, 0u8);
        for (&lead, &next) in leads.iter().zip(nexts) {
            chunk_chars += starts_char(next);
            chunk_controls += c0(next) | c1(lead, next);
        }
        chars += usize::from(chunk_chars);
        controls += usize::from(chunk_controls);
    }
    (chars, controls)
}

/// The length of the first [`BINARY_SNIFF_CHARS`] characters of `bytes` (UTF-8), in bytes.
fn sniffed_bytes(bytes: &[u8]) -> usize {
    if bytes.len() <= BINARY_SNIFF_CHARS {
        return bytes.len();
    }
    const CHUNK: usize = 4096;
    let mut chars = 0;
    let mut at = 0;
    while at < bytes.len() {
        let chunk = &bytes[at..(at + CHUNK).min(bytes.len())];
        let starts = chunk.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
        if chars + starts <= BINARY_SNIFF_CHARS {
            chars += starts;
            at += chunk.len();
            continue;
        }
        // The character after the last one sniffed starts in this chunk.
        let mut left = BINARY_SNIFF_CHARS - chars;
        for (offset, &byte) in chunk.iter().enumerate() {
            if byte & 0xC0 != 0x80 {
                if left == 0 {
                    return at + offset;
                }
                left -= 1;
            }
        }
        break;
    }
    bytes.len()
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

    /// What [`sniffed_counts`] gives, read character by character.
    fn counts_by_characters(html: &str) -> (usize, usize) {
        let (mut chars, mut controls) = (0usize, 0usize);
        for c in html.chars().take(BINARY_SNIFF_CHARS) {
            chars += 1;
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c') {
                controls += 1;
            }
        }
        (chars, controls)
    }

    #[test]
    fn bytes_read_as_characters_would_be() {
        // Controls of both ranges, the characters beside them (U+00A0 shares the lead byte
        // 0xC2 with the C1 controls) and characters of two to four bytes, around the point
        // where sniffing stops.
        let pieces = [
            "a", "\0", "\u{1}", "\t", "\x0c", "\u{7f}", "\u{80}", "\u{9f}", "\u{a0}", "é", "€",
            "😀", "\u{85}",
        ];
        for text in [
            "\0",
            "\u{1}x",
            "\u{85}",
            "\u{a0}\u{9f}",
            "é\u{7f}",
            "\t\n\r\x0c",
            "😀\u{80}",
        ] {
            assert_eq!(sniffed_counts(text), counts_by_characters(text), "{text:?}");
        }
        let mut state = 11u64;
        for length in [
            0,
            1,
            7,
            100,
            5_000,
            BINARY_SNIFF_CHARS - 3,
            BINARY_SNIFF_CHARS + 5,
            90_000,
        ] {
            for density in [2u64, 5, 40] {
                let mut text = String::new();
                for _ in 0..length {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let piece = if state.is_multiple_of(density) {
                        pieces[(state >> 8) as usize % pieces.len()]
                    } else {
                        "x"
                    };
                    text.push_str(piece);
                }
                assert_eq!(
                    sniffed_counts(&text),
                    counts_by_characters(&text),
                    "{length} {density}"
                );
                assert_eq!(
                    sniffed_bytes(text.as_bytes()),
                    text.char_indices()
                        .nth(BINARY_SNIFF_CHARS)
                        .map_or(text.len(), |(at, _)| at)
                );
            }
        }
    }
}
