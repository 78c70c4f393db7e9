//! The WARC header block of one record.
//!
//! In: the bytes of a header block, version line first. Out: the [`WarcHeaders`] fields the
//! reader uses, the record's URL as [`clean_target_uri`] gives it and its `Content-Length`
//! as [`WarcHeaders::content_length`] reads it.

/// A `Content-Length` above this is taken for garbage rather than a big record.
const ABSURD_CONTENT_LENGTH: u64 = 1 << 40;

/// The WARC field with which `indexer partition` marks a record it wrote from the part of a
/// record read before its file ended, so that the build of its bucket counts the page as the
/// build of the original file would ([`Record::truncated`](crate::read::Record::truncated)).
/// Not `WARC-Truncated`, which a crawler sets for its own reasons (a length limit) and which
/// does not make a page partial in our sense.
pub const PARTIAL_RECORD_FIELD: &str = "Indexer-Partial-Record";

/// The WARC headers the reader uses.
#[derive(Debug, Default)]
pub(super) struct WarcHeaders {
    pub(super) record_type: Option<String>,
    pub(super) target_uri: Option<String>,
    pub(super) content_type: Option<String>,
    pub(super) content_length: Option<String>,
    pub(super) date: Option<String>,
    /// `WARC-Record-ID`, as stored (`<urn:uuid:…>`).
    pub(super) record_id: Option<String>,
    /// [`PARTIAL_RECORD_FIELD`]: a record `indexer partition` wrote from the part of a record
    /// read before its file ended.
    pub(super) partial: Option<String>,
}

impl WarcHeaders {
    /// Parses a header block (version line first). Folded lines continue the previous
    /// field; lines without a colon are ignored.
    pub(super) fn parse(block: &[u8]) -> WarcHeaders {
        let mut headers = WarcHeaders::default();
        let mut last: Option<&mut Option<String>> = None;
        for line in block.split(|&b| b == b'\n').skip(1) {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                break;
            }
            if line.starts_with(b" ") || line.starts_with(b"\t") {
                if let Some(Some(value)) = last.as_deref_mut() {
                    value.push(' ');
                    value.push_str(String::from_utf8_lossy(line).trim());
                }
                continue;
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                last = None;
                continue;
            };
            let (name, value) = (&line[..colon], &line[colon + 1..]);
            let value = String::from_utf8_lossy(value).trim().to_string();
            let name = name.trim_ascii();
            let field = if name.eq_ignore_ascii_case(b"WARC-Type") {
                &mut headers.record_type
            } else if name.eq_ignore_ascii_case(b"WARC-Target-URI") {
                &mut headers.target_uri
            } else if name.eq_ignore_ascii_case(b"Content-Type") {
                &mut headers.content_type
            } else if name.eq_ignore_ascii_case(b"Content-Length") {
                &mut headers.content_length
            } else if name.eq_ignore_ascii_case(b"WARC-Date") {
                &mut headers.date
            } else if name.eq_ignore_ascii_case(b"WARC-Record-ID") {
                &mut headers.record_id
            } else if name.eq_ignore_ascii_case(PARTIAL_RECORD_FIELD.as_bytes()) {
                &mut headers.partial
            } else {
                last = None;
                continue;
            };
            // The first occurrence of a field wins.
            if field.is_none() {
                *field = Some(value);
                last = Some(field);
            } else {
                last = None;
            }
        }
        headers
    }

    /// The block length `Content-Length` gives, or why it cannot be used (missing, not a
    /// number, absurdly large), for a skip detail.
    pub(super) fn content_length(&self) -> Result<u64, String> {
        let Some(raw_length) = self.content_length.as_deref() else {
            return Err("no Content-Length".to_string());
        };
        match raw_length.trim().parse::<u64>() {
            Ok(length) if length <= ABSURD_CONTENT_LENGTH => Ok(length),
            _ => Err(format!("unusable Content-Length {raw_length:?}")),
        }
    }
}

/// `WARC-Target-URI` as stored, trimmed, without the `<>` of the WARC 1.1 draft syntax.
pub(super) fn clean_target_uri(raw: &str) -> String {
    let trimmed = raw.trim();
    trimmed
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(trimmed)
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        HTTP_OK, reasons, record, records_of_bytes, records_of_fixture, urls,
    };
    use crate::read::{RecordKind, SkipReason};

    #[test]
    fn space_in_target_uri_is_kept() {
        let items = records_of_fixture("warcio-example-space-in-target-uri.warc.gz");
        assert_eq!(urls(&items), ["file:///example with spaces.png"]);
        let Some(Ok(resource)) = items.iter().find(|i| i.is_ok()) else {
            unreachable!()
        };
        assert_eq!(resource.kind, RecordKind::Resource);
        assert_eq!(resource.content_type.as_deref(), Some("image/png"));
    }

    #[test]
    fn lf_only_and_folded_headers_and_angle_brackets() {
        let data = b"WARC/1.1\nWARC-Type: resource\nWARC-Target-URI:\n  <http://a.example/x>\nContent-Type: text/html\nContent-Length: 5\n\nhello\n\n";
        let items = records_of_bytes(data);
        assert_eq!(urls(&items), ["http://a.example/x"]);
        let Ok(resource) = &items[0] else {
            unreachable!()
        };
        assert_eq!(resource.block, b"hello");
        assert_eq!(resource.content_type.as_deref(), Some("text/html"));
    }

    #[test]
    fn unusable_content_length_resynchronises() {
        for bad_length in ["twelve", "-5", "99999999999999999999999", "1099511627777"] {
            let bad = String::from_utf8(record("response", "http://bad.example/", HTTP_OK))
                .unwrap()
                .replace(
                    &format!("Content-Length: {}", HTTP_OK.len()),
                    &format!("Content-Length: {bad_length}"),
                )
                .into_bytes();
            let mut data = bad;
            data.extend_from_slice(&record("response", "http://good.example/", HTTP_OK));
            let items = records_of_bytes(&data);
            assert_eq!(urls(&items), ["http://good.example/"], "{bad_length}");
            assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
        }
    }

    #[test]
    fn invalid_utf8_in_target_uri_is_replaced() {
        let mut data = b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x.example/\xff\xfe\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n".to_vec();
        data.extend_from_slice(&record("resource", "http://y.example/", b"ok"));
        let items = records_of_bytes(&data);
        assert_eq!(
            urls(&items),
            ["http://x.example/\u{fffd}\u{fffd}", "http://y.example/"]
        );
    }
}
