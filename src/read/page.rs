//! From a [`Record`] to a [`Page`]: HTTP, content decoding, the HTML check, the charset; and
//! for a WET `conversion` record, its plain text made into one paragraph a line.
//!
//! This is the CPU-heavy half of reading and runs on worker threads.

use std::borrow::Cow;

use super::charset::{charset_param, decode_html, decode_plain_text};
use super::http::{DecodeError, HttpResponse, dechunk, decode_content};
use super::sniff::{binary_share, is_html};
use super::{Page, Record, RecordKind, Skip, SkipReason, site_of};

/// Decodes one record into a page: HTTP status line and headers (Response), chunked
/// transfer-encoding, gzip/deflate/brotli content-encoding, HTML check, character set.
///
/// A decoded body over `max_page_bytes` is skipped as [`SkipReason::TooLarge`].
pub fn page_from_record(record: Record, max_page_bytes: usize) -> Result<Page, Skip> {
    let Record {
        url,
        kind,
        content_type,
        block,
        source_offset,
        source_input,
        date,
        record_id,
        ..
    } = record;
    let fail = |reason: SkipReason, url: &str, message: String| {
        Skip::new(reason, Some(url.to_string()), message).at(source_input, Some(source_offset))
    };

    let (body, content_type) = match kind {
        RecordKind::Response => {
            let response = HttpResponse::parse(&block)
                .map_err(|e| fail(SkipReason::BadHttpMessage, &url, e.0))?;
            if !(200..300).contains(&response.status) {
                let message = format!("HTTP status {}", response.status);
                return Err(fail(SkipReason::HttpStatus, &url, message));
            }
            // Of several Content-Type fields, the last one counts.
            let content_type = response
                .header_values("content-type")
                .last()
                .map(str::to_string);
            let transfer_encoding = response.joined("transfer-encoding").to_ascii_lowercase();
            // The body is copied only when a coding must be undone: decoding its characters
            // copies it into the page's text anyway.
            let body = if transfer_encoding.contains("chunked") {
                dechunk(response.body).map_or(Cow::Borrowed(response.body), Cow::Owned)
            } else {
                Cow::Borrowed(response.body)
            };
            let content_encoding = response.joined("content-encoding");
            let body = decode_content(body, &content_encoding, max_page_bytes).map_err(
                |error| match error {
                    DecodeError::TooLarge => fail(
                        SkipReason::TooLarge,
                        &url,
                        format!("decoded body over {max_page_bytes} bytes"),
                    ),
                    DecodeError::Bad(message) => {
                        fail(SkipReason::BadContentEncoding, &url, message)
                    }
                },
            )?;
            (body, content_type)
        }
        RecordKind::Resource | RecordKind::File | RecordKind::Text => {
            if block.len() > max_page_bytes {
                let message = format!("{} bytes, over {max_page_bytes}", block.len());
                return Err(fail(SkipReason::TooLarge, &url, message));
            }
            (Cow::Borrowed(&block[..]), content_type)
        }
    };

    // Folder files are HTML by their extension, WET records text by their record type; the
    // rest must say they are HTML or look like it.
    let plain_text = kind == RecordKind::Text;
    if kind != RecordKind::File && !plain_text && !is_html(content_type.as_deref(), &body) {
        let message = match &content_type {
            Some(ct) => format!("Content-Type {ct:?}"),
            None => "no Content-Type and does not look like HTML".to_string(),
        };
        return Err(fail(SkipReason::NotHtml, &url, message));
    }

    let site = site_of(&url);
    let tld = site.rsplit('.').next().filter(|_| site.contains('.'));
    let header_charset = content_type.as_deref().and_then(charset_param);
    let (mut html, charset) = match plain_text {
        true => decode_plain_text(&body, header_charset),
        false => decode_html(&body, header_charset, tld),
    };
    if let Some(share) = binary_share(&html) {
        let message =
            format!("binary data: {share}% of its first characters are control characters");
        return Err(fail(SkipReason::NotHtml, &url, message));
    }
    if html.contains('\0') {
        // As an HTML tokenizer and a CommonMark reader both do: a NUL is never text.
        html = html.replace('\0', "\u{fffd}");
    }
    if plain_text {
        html = paragraphs_of_lines(&html);
    }
    Ok(Page {
        url,
        site,
        html,
        raw_bytes: body.len(),
        record_id,
        date,
        charset: charset.name(),
        plain_text,
    })
}

/// Plain text as an HTML body of one `<p>` per non-blank line, so that each line is a block;
/// a line holding tabs (a table row, as our own text writes one) is a row of a presentation
/// table, one block still, whose cells come out tab-separated again.
fn paragraphs_of_lines(text: &str) -> String {
    let mut html = String::with_capacity(text.len() + text.len() / 8 + 32);
    html.push_str("<html><body>\n");
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let row = line.contains('\t');
        html.push_str(if row {
            "<table role=\"presentation\"><tr><td>"
        } else {
            "<p>"
        });
        for c in line.chars() {
            match c {
                '&' => html.push_str("&amp;"),
                '<' => html.push_str("&lt;"),
                '>' => html.push_str("&gt;"),
                '\t' => html.push_str("</td><td>"),
                _ => html.push(c),
            }
        }
        html.push_str(if row {
            "</td></tr></table>\n"
        } else {
            "</p>\n"
        });
    }
    html.push_str("</body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::InputSet;
    use crate::read::test_support::fixture;

    const MAX: usize = 8 << 20;

    fn response(block: &[u8]) -> Record {
        Record {
            url: "http://www.example.jp/page".to_string(),
            kind: RecordKind::Response,
            content_type: None,
            block: block.to_vec(),
            source_offset: 0,
            source_length: None,
            source_input: 0,
            truncated: false,
            date: None,
            record_id: None,
        }
    }

    /// Why the response `block` is not a page.
    fn skip_reason_of(block: &[u8]) -> SkipReason {
        page_from_record(response(block), MAX).unwrap_err().reason
    }

    fn pages_of(name: &str) -> Vec<Result<Page, Skip>> {
        let inputs = InputSet::open(&[fixture(name)], None).unwrap();
        inputs
            .records()
            .filter_map(Result::ok)
            .map(|record| page_from_record(record, MAX))
            .collect()
    }

    /// The one item [`pages_of`] gives for `name`.
    fn only_item_of(name: &str) -> Result<Page, Skip> {
        let mut pages = pages_of(name);
        assert_eq!(pages.len(), 1);
        pages.remove(0)
    }

    #[test]
    fn a_nul_in_the_page_becomes_the_replacement_character() {
        let record = response(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>A page of words with a\0b in it.</p>",
        );
        let page = page_from_record(record, MAX).unwrap();
        assert_eq!(page.html, "<p>A page of words with a\u{fffd}b in it.</p>");
    }

    #[test]
    fn warcio_example_page_is_gunzipped() {
        let page = only_item_of("warcio-example.warc.gz").unwrap();
        assert_eq!(page.site, "example.com");
        assert!(
            page.html.contains("<title>Example Domain</title>"),
            "{}",
            page.html
        );
        assert_eq!(page.raw_bytes, page.html.len());
    }

    #[test]
    fn chunked_iana_page_decodes_to_html() {
        let page = only_item_of("warcio-example-iana.org-chunked.warc").unwrap();
        assert_eq!(page.url, "http://www.iana.org/");
        assert!(
            page.html.starts_with("<!doctype html>"),
            "{:?}",
            &page.html[..40]
        );
        assert!(page.html.trim_end().ends_with("</html>"));
        // No chunk-size lines left in the text.
        assert!(!page.html.contains("\r\n001c37\r\n"));
        assert!(!page.html.contains("\r\n0\r\n"));
    }

    #[test]
    fn record_over_several_gzip_members_decodes() {
        let page = only_item_of("warcio-example-wrong-chunks.warc.gz").unwrap();
        assert!(page.html.contains("<title>Example Domain</title>"));
        assert!(page.html.trim_end().ends_with("</html>"));
    }

    #[test]
    fn gzip_body_missing_its_trailer_still_decodes() {
        let page = only_item_of("warcio-example-trunc.warc").unwrap();
        assert!(page.html.contains("<title>Example Domain</title>"));
    }

    #[test]
    fn png_resource_with_space_in_uri_is_not_html() {
        let skip = only_item_of("warcio-example-space-in-target-uri.warc.gz").unwrap_err();
        assert_eq!(skip.reason, SkipReason::NotHtml);
        assert_eq!(skip.url.as_deref(), Some("file:///example with spaces.png"));
    }

    #[test]
    fn clueweb_euc_jp_pages_decode_to_japanese() {
        let pages = pages_of("resiliparse-clueweb-quirk.warc.gz");
        assert_eq!(pages.len(), 29);
        let pages: Vec<&Page> = pages.iter().map(|p| p.as_ref().unwrap()).collect();
        // The bodies are stored decoded despite `Content-Encoding: gzip`.
        assert!(pages[0].html.starts_with("<html>"));
        assert!(
            pages[0].html.contains(
                "<title>ブラウニー ブリーフケース【ヘッドポーター HEADPORTER 吉田かばん】"
            ),
            "{}",
            &pages[0].html[..300]
        );
        for page in &pages {
            assert_eq!(page.site, "www.uraharajuku.st");
            assert!(page.html.contains("ヘッドポーター"), "{}", page.url);
            assert!(!page.html.contains('\u{fffd}') || page.html.matches('\u{fffd}').count() < 5);
        }
    }

    #[test]
    fn cc2020_slice_pages_all_decode() {
        let pages = pages_of("resiliparse-cc2020-slice.warc.gz");
        assert_eq!(pages.len(), 16);
        let pages: Vec<&Page> = pages.iter().map(|p| p.as_ref().unwrap()).collect();
        let sites: std::collections::BTreeSet<&str> =
            pages.iter().map(|p| p.site.as_str()).collect();
        assert_eq!(sites.len(), 15);
        let russian = pages.iter().find(|p| p.site == "01spb.ru").unwrap();
        // windows-1251 from the header: Cyrillic text, no replacement characters.
        assert!(russian.html.chars().any(|c| ('а'..='я').contains(&c)));
        assert!(!russian.html.contains('\u{fffd}'));
    }

    #[test]
    fn non_2xx_is_skipped() {
        assert_eq!(
            skip_reason_of(b"HTTP/1.1 404 Not Found\r\n\r\n<html>"),
            SkipReason::HttpStatus
        );
        assert_eq!(
            skip_reason_of(b"HTTP/1.1 301 Moved\r\nLocation: /\r\n\r\n"),
            SkipReason::HttpStatus
        );
    }

    #[test]
    fn bad_http_is_skipped() {
        assert_eq!(
            skip_reason_of(b"<html>no head</html>"),
            SkipReason::BadHttpMessage
        );
    }

    #[test]
    fn not_html_is_skipped_and_generic_types_are_sniffed() {
        assert_eq!(
            skip_reason_of(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n<html>"),
            SkipReason::NotHtml
        );
        assert_eq!(
            skip_reason_of(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nplain words"),
            SkipReason::NotHtml
        );
        for block in [
            &b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n  <!DOCTYPE  HTML><p>x"[..],
            b"HTTP/1.1 200 OK\r\n\r\n\xef\xbb\xbf<?xml version='1.0'?><!-- c --><HTML lang=en>",
            b"HTTP/1.1 200 OK\r\nContent-Type: application/xhtml+xml\r\n\r\n<?xml?><x/>",
        ] {
            assert!(page_from_record(response(block), MAX).is_ok(), "{block:?}");
        }
    }

    #[test]
    fn bad_content_encoding_is_skipped() {
        assert_eq!(
            skip_reason_of(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Type: text/html\r\n\r\n\x00\xffnot brotli"),
            SkipReason::BadContentEncoding
        );
    }

    #[test]
    fn a_text_record_is_a_paragraph_a_line_escaped() {
        let record = Record {
            kind: RecordKind::Text,
            content_type: Some("text/plain".into()),
            record_id: Some("<urn:uuid:1>".into()),
            date: Some("2019-03-04T10:20:30Z".into()),
            ..response(b"First line & more\r\n\n  <b>not markup</b>\nlast")
        };
        let page = page_from_record(record, MAX).unwrap();
        assert!(page.plain_text);
        assert_eq!(page.charset, "UTF-8");
        assert_eq!(page.record_id.as_deref(), Some("<urn:uuid:1>"));
        assert_eq!(page.date.as_deref(), Some("2019-03-04T10:20:30Z"));
        assert_eq!(
            page.html,
            "<html><body>\n<p>First line &amp; more</p>\n<p>&lt;b&gt;not markup&lt;/b&gt;</p>\n<p>last</p>\n</body></html>\n"
        );
    }

    #[test]
    fn oversized_bodies_are_skipped() {
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
        block.extend(std::iter::repeat_n(b'a', 2000));
        let skip = page_from_record(response(&block), 1000).unwrap_err();
        assert_eq!(skip.reason, SkipReason::TooLarge);
    }

    #[test]
    fn charset_order_across_the_record() {
        // Header charset beats meta.
        let page = page_from_record(
            response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n<meta charset=utf-8><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"),
            MAX,
        )
        .unwrap();
        assert!(page.html.contains("Привет"), "{}", page.html);
        assert_eq!(page.charset, "windows-1251");
        // Meta is used when the header has no charset.
        let page = page_from_record(
            response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<meta charset=windows-1251><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"),
            MAX,
        )
        .unwrap();
        assert!(page.html.contains("Привет"), "{}", page.html);
        // BOM beats meta, and is removed.
        let page = page_from_record(
            response("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n\u{feff}<meta charset=windows-1251><p>Привет</p>".as_bytes()),
            MAX,
        )
        .unwrap();
        assert!(page.html.starts_with("<meta"));
        assert!(page.html.contains("Привет"));
    }

    #[test]
    fn resource_charset_comes_from_warc_content_type() {
        let record = Record {
            url: "http://a.example/".into(),
            kind: RecordKind::Resource,
            content_type: Some("text/html; charset=windows-1251".into()),
            block: b"<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>".to_vec(),
            source_offset: 0,
            source_length: None,
            source_input: 0,
            truncated: false,
            date: None,
            record_id: None,
        };
        assert!(
            page_from_record(record, MAX)
                .unwrap()
                .html
                .contains("Привет")
        );
    }

    /// Runs the whole read path over `bytes` written as a file; must not panic or hang.
    fn read_everything(dir: &std::path::Path, bytes: &[u8]) -> usize {
        let path = dir.join("damaged.warc");
        std::fs::write(&path, bytes).unwrap();
        let inputs = InputSet::open(&[path], None).unwrap();
        let mut items = 0;
        for item in inputs.records() {
            items += 1;
            if let Ok(record) = item {
                let _ = page_from_record(record, MAX);
            }
        }
        items
    }

    #[test]
    fn cut_and_damaged_files_never_panic() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "warcio-example.warc.gz",
            "warcio-example-iana.org-chunked.warc",
            "warcio-example-bad-non-chunked.warc.gz",
        ] {
            let original = std::fs::read(fixture(name)).unwrap();
            for cut in (0..original.len()).step_by(89) {
                read_everything(dir.path(), &original[..cut]);
            }
            // Flip bytes at pseudo-random places (a fixed linear congruential sequence).
            let mut state: u64 = 0x2545_f491_4f6c_dd1d;
            for _ in 0..40 {
                let mut damaged = original.clone();
                for _ in 0..3 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let at = (state >> 33) as usize % damaged.len();
                    damaged[at] ^= (state >> 8) as u8 | 1;
                }
                assert!(read_everything(dir.path(), &damaged) > 0);
            }
        }
    }
}
