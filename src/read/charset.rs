//! Character sets: which encoding an HTML document is in, and decoding it to UTF-8.
//!
//! In: the document bytes, the `charset` of its HTTP (or WARC) `Content-Type` if any, and the
//! top-level domain of its host as a hint. Out: a `String`, and the encoding it was decoded
//! from.
//!
//! The encoding is the first of: the header's charset, a byte-order mark, a `<meta>` charset
//! in the first 4 KiB, chardetng's guess. A label `encoding_rs` does not know is ignored and
//! the next source asked. Malformed sequences decode to U+FFFD.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// How much of a document the `<meta>` prescan looks at.
const PRESCAN_BYTES: usize = 4096;

/// How much of a document chardetng is fed.
const DETECT_BYTES: usize = 256 * 1024;

/// Decodes an HTML document to UTF-8; also gives the encoding it was decoded from (a
/// byte-order mark wins over the encoding chosen, as decoding with BOM removal does).
pub(crate) fn decode_html(
    bytes: &[u8],
    header_charset: Option<&str>,
    tld: Option<&str>,
) -> (String, &'static Encoding) {
    let encoding = choose_encoding(bytes, header_charset, tld);
    let (text, _had_errors) = encoding.decode_with_bom_removal(bytes);
    let used = Encoding::for_bom(bytes).map_or(encoding, |(bom, _)| bom);
    (text.into_owned(), used)
}

/// Decodes a WET record's text from the encoding its record names (UTF-8 unless it says
/// otherwise), a leading U+FEFF kept as text: WET files carry no byte-order mark, and the
/// text `extract` writes into one may begin with that character (a page's invisible
/// zero-width no-break space), which must read back as written.
pub(crate) fn decode_plain_text(
    bytes: &[u8],
    record_charset: Option<&str>,
) -> (String, &'static Encoding) {
    let encoding = record_charset.and_then(labelled).unwrap_or(UTF_8);
    let (text, _had_errors) = encoding.decode_without_bom_handling(bytes);
    (text.into_owned(), encoding)
}

/// The encoding a charset label names (`utf-8`, ` Latin1 `), by the WHATWG Encoding
/// Standard's labels.
fn labelled(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// Picks the encoding of a document: header charset, BOM, `<meta>`, then detection.
pub(crate) fn choose_encoding(
    bytes: &[u8],
    header_charset: Option<&str>,
    tld: Option<&str>,
) -> &'static Encoding {
    if let Some(encoding) = header_charset.and_then(labelled) {
        return encoding;
    }
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    if let Some(encoding) = prescan_meta(&bytes[..bytes.len().min(PRESCAN_BYTES)]) {
        return encoding;
    }
    detect(bytes, tld)
}

/// The `charset` parameter of a `Content-Type` value, unquoted.
pub(crate) fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        (!value.is_empty()).then_some(value)
    })
}

/// Guesses the encoding of unlabelled bytes.
fn detect(bytes: &[u8], tld: Option<&str>) -> &'static Encoding {
    let sample = &bytes[..bytes.len().min(DETECT_BYTES)];
    // Valid UTF-8 is what chardetng would pick for non-ASCII text, and ASCII decodes the
    // same either way: skip the detector.
    let valid_utf8_prefix = match std::str::from_utf8(sample) {
        Ok(_) => true,
        // A multi-byte sequence cut by the sample's end is still UTF-8.
        Err(error) => error.error_len().is_none() && sample.len() < bytes.len(),
    };
    if valid_utf8_prefix {
        return UTF_8;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(sample, true);
    let tld = tld.filter(|tld| {
        !tld.is_empty()
            && tld
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    });
    detector.guess(tld.map(str::as_bytes), Utf8Detection::Allow)
}

/// Finds a `<meta charset>` or `<meta http-equiv="content-type" content="...charset=...">`
/// in `head`, skipping comments, as the HTML prescan does (simplified).
fn prescan_meta(head: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while let Some(offset) = head.get(pos..)?.iter().position(|&b| b == b'<') {
        let at = pos + offset;
        let rest = &head[at..];
        if rest.starts_with(b"<!--") {
            let end = find(&rest[4..], b"-->")?;
            pos = at + 4 + end + 3;
            continue;
        }
        let is_meta = rest.len() > 5
            && rest[1..5].eq_ignore_ascii_case(b"meta")
            && (rest[5].is_ascii_whitespace() || rest[5] == b'/');
        if !is_meta {
            pos = at + 1;
            continue;
        }
        let (attributes, consumed) = parse_attributes(&rest[5..]);
        pos = at + 5 + consumed;
        if let Some(encoding) = meta_encoding(&attributes) {
            return Some(encoding);
        }
    }
    None
}

/// The encoding a `<meta>` tag's attributes declare, with the prescan's corrections.
fn meta_encoding(attributes: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |name: &str| {
        attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let label = if let Some(charset) = get("charset") {
        charset
    } else if get("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("content-type")) {
        charset_in_content(get("content")?)?
    } else {
        return None;
    };
    let encoding = labelled(label)?;
    Some(if encoding == UTF_16BE || encoding == UTF_16LE {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    })
}

/// The charset named in a `content` attribute such as `text/html; charset=euc-jp`.
fn charset_in_content(content: &str) -> Option<&str> {
    let lower = content.to_ascii_lowercase();
    let start = lower.find("charset")? + "charset".len();
    let after = content.get(start..)?.trim_start();
    let value = after.strip_prefix('=')?.trim_start();
    let value = match value.chars().next()? {
        quote @ ('"' | '\'') => value[1..].split(quote).next()?,
        _ => value
            .split(|c: char| c == ';' || c.is_ascii_whitespace())
            .next()?,
    };
    (!value.is_empty()).then_some(value)
}

/// Parses a tag's attributes up to its `>`. Returns lower-cased names with their values and
/// the number of bytes read.
fn parse_attributes(bytes: &[u8]) -> (Vec<(String, String)>, usize) {
    let mut attributes = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' {
            return (attributes, (i + 1).min(bytes.len()));
        }
        let name_start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'=' | b'>' | b'/')
        {
            i += 1;
        }
        let name = String::from_utf8_lossy(&bytes[name_start..i]).to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let start = i + 1;
                    let end = bytes[start..]
                        .iter()
                        .position(|&b| b == quote)
                        .map_or(bytes.len(), |p| start + p);
                    value = String::from_utf8_lossy(&bytes[start..end]).into_owned();
                    i = (end + 1).min(bytes.len());
                }
                _ => {
                    let start = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                        i += 1;
                    }
                    value = String::from_utf8_lossy(&bytes[start..i]).into_owned();
                }
            }
        }
        if !name.is_empty() && !attributes.iter().any(|(n, _)| *n == name) {
            attributes.push((name, value));
        }
    }
}

/// Position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_JP, SHIFT_JIS, WINDOWS_1251};

    #[test]
    fn plain_text_keeps_a_leading_zero_width_no_break_space() {
        let text = "\u{feff}\n亚洲 café".as_bytes();
        assert_eq!(
            decode_plain_text(text, None),
            ("\u{feff}\n亚洲 café".into(), UTF_8)
        );
        let latin = b"caf\xe9";
        assert_eq!(
            decode_plain_text(latin, Some("windows-1252")),
            ("café".into(), WINDOWS_1252)
        );
        assert_eq!(decode_html(text, None, None).0, "\n亚洲 café");
    }

    #[test]
    fn header_charset_beats_meta() {
        let page = b"<meta charset=\"shift_jis\"><p>caf\xe9</p>";
        assert_eq!(
            choose_encoding(page, Some("windows-1252"), None),
            WINDOWS_1252
        );
        assert_eq!(
            decode_html(page, Some("latin1"), None),
            (
                "<meta charset=\"shift_jis\"><p>caf\u{e9}</p>".to_string(),
                WINDOWS_1252
            )
        );
    }

    #[test]
    fn bom_beats_meta() {
        let page = b"\xef\xbb\xbf<meta charset=\"windows-1251\"><p>\xc3\xa9</p>";
        assert_eq!(choose_encoding(page, None, None), UTF_8);
        assert_eq!(
            decode_html(page, None, None),
            (
                "<meta charset=\"windows-1251\"><p>\u{e9}</p>".to_string(),
                UTF_8
            )
        );
    }

    #[test]
    fn header_charset_beats_bom() {
        let page = b"\xef\xbb\xbfabc";
        assert_eq!(
            choose_encoding(page, Some("windows-1252"), None),
            WINDOWS_1252
        );
    }

    #[test]
    fn meta_is_used_when_header_lacks_charset() {
        let page = b"<html><head><META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=EUC-JP'></head>";
        assert_eq!(choose_encoding(page, None, None), EUC_JP);
        let page = b"<!-- <meta charset=koi8-r> --><meta charset=windows-1251>";
        assert_eq!(choose_encoding(page, None, None), WINDOWS_1251);
        let page =
            b"<meta http-equiv=\"content-type\" content=\"text/html;charset=\\\"Shift_JIS\\\"\">";
        // Backslash-quoted junk is not a label: nothing found, detection decides.
        assert_ne!(choose_encoding(page, None, None), SHIFT_JIS);
    }

    #[test]
    fn unknown_header_label_falls_through() {
        let page = b"<meta charset=\"windows-1251\">";
        assert_eq!(
            choose_encoding(page, Some("no-such-charset"), None),
            WINDOWS_1251
        );
    }

    #[test]
    fn meta_utf16_means_utf8() {
        assert_eq!(choose_encoding(b"<meta charset=utf-16>", None, None), UTF_8);
    }

    #[test]
    fn meta_past_prescan_window_is_ignored() {
        let mut page = vec![b' '; PRESCAN_BYTES];
        page.extend_from_slice(b"<meta charset=windows-1251>\xc0\xc1");
        assert_ne!(choose_encoding(&page, None, None), WINDOWS_1251);
    }

    #[test]
    fn detection_handles_unlabelled_text() {
        let utf8 = "<p>Grüße aus Köln</p>".as_bytes();
        assert_eq!(choose_encoding(utf8, None, None), UTF_8);
        let (euc, _, _) =
            EUC_JP.encode("<p>日本語のテキストです。吉田かばんのブリーフケース。</p>");
        assert_eq!(choose_encoding(&euc, None, Some("jp")), EUC_JP);
        // A TLD chardetng would reject is not passed on.
        let _ = choose_encoding(&euc, None, Some("J.P"));
    }

    #[test]
    fn malformed_bytes_become_replacement_characters() {
        assert_eq!(decode_html(b"a\xffb", Some("utf-8"), None).0, "a\u{fffd}b");
    }

    #[test]
    fn charset_param_is_unquoted() {
        assert_eq!(charset_param("text/html; charset=\"UTF-8\""), Some("UTF-8"));
        assert_eq!(charset_param("text/html;CHARSET=euc-jp "), Some("euc-jp"));
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset="), None);
    }

    #[test]
    fn odd_meta_tags_do_not_panic() {
        for page in [
            &b"<meta"[..],
            b"<meta ",
            b"<meta charset",
            b"<meta charset=\"",
            b"<meta content='charset=",
            b"<!--",
            b"<meta http-equiv=content-type content=\"charset='\">",
        ] {
            let _ = choose_encoding(page, None, None);
        }
    }
}
