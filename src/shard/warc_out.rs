//! WARC out: a [`Record`] in, one gzip member holding it as a WARC/1.0 record out — the
//! format [`crate::read`] reads back into the same record (URL, kind — a WET `conversion`
//! record stays one —, content type, block, date, its `WARC-Record-ID` when it had one, and whether it is the part of a record read before its file ended, which the field
//! [`PARTIAL_RECORD_FIELD`] says). A crawler's own `WARC-Truncated` is not carried over.

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::read::{PARTIAL_RECORD_FIELD, Record, RecordKind};

/// The date written for a record that has none (a page read from a folder): the Unix epoch,
/// so that the same input always gives the same bytes.
const NO_DATE: &str = "1970-01-01T00:00:00Z";

/// Appends `record` to `out` as one gzip member. `origin` names where the record was read
/// (input path and offset); its hash and the URL's make the `WARC-Record-ID`, so a map task
/// run again writes the same bytes.
pub fn append_record(out: &mut Vec<u8>, record: &Record, origin: &str) -> std::io::Result<()> {
    let (record_type, content_type) = match record.kind {
        RecordKind::Response => ("response", "application/http; msgtype=response"),
        RecordKind::Resource => (
            "resource",
            record.content_type.as_deref().unwrap_or("text/html"),
        ),
        RecordKind::File => ("resource", "text/html"),
        RecordKind::Text => (
            "conversion",
            record.content_type.as_deref().unwrap_or("text/plain"),
        ),
    };
    let id = match &record.record_id {
        Some(id) => one_line(id),
        None => format!("<urn:uuid:{}>", record_id(origin, &record.url)),
    };
    let mut head = format!(
        "WARC/1.0\r\nWARC-Type: {record_type}\r\nWARC-Record-ID: {id}\r\nWARC-Date: {}\r\nWARC-Target-URI: {}\r\nContent-Type: {}\r\n",
        one_line(record.date.as_deref().unwrap_or(NO_DATE)),
        one_line(&record.url),
        one_line(content_type),
    );
    if record.truncated {
        head.push_str(&format!("{PARTIAL_RECORD_FIELD}: end-of-file\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", record.block.len()));
    let mut member = GzEncoder::new(out, Compression::new(6));
    member.write_all(head.as_bytes())?;
    member.write_all(&record.block)?;
    member.write_all(b"\r\n\r\n")?;
    member.finish()?;
    Ok(())
}

/// A header value on one line (a value read from a folded header may hold none, but a URL
/// of a folder file might hold anything).
fn one_line(value: &str) -> String {
    value.replace(['\r', '\n'], " ")
}

/// A UUID-shaped identifier from the record's origin and URL.
fn record_id(origin: &str, url: &str) -> String {
    crate::output::hashed_uuid(origin, url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::records_in_bytes;

    fn record(kind: RecordKind, truncated: bool) -> Record {
        Record {
            url: "http://example.org/a b".into(),
            kind,
            content_type: (kind == RecordKind::Resource).then(|| "text/html; charset=utf-8".into()),
            block: match kind {
                RecordKind::Response => {
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>".to_vec()
                }
                _ => b"<p>hello</p>".to_vec(),
            },
            source_offset: 0,
            source_length: None,
            source_input: 0,
            truncated,
            date: Some("2024-05-01T10:00:00Z".into()),
            record_id: None,
        }
    }

    #[test]
    fn records_written_read_back_the_same() {
        let originals = [
            record(RecordKind::Response, false),
            record(RecordKind::Resource, false),
            record(RecordKind::Response, true),
            Record {
                kind: RecordKind::Text,
                content_type: Some("text/plain".into()),
                record_id: Some("<urn:uuid:00000000-0000-4000-8000-000000000001>".into()),
                block: b"One line of text\nand another".to_vec(),
                ..record(RecordKind::Resource, false)
            },
        ];
        let mut bytes = Vec::new();
        for (at, original) in originals.iter().enumerate() {
            append_record(&mut bytes, original, &format!("in.warc.gz:{at}")).unwrap();
        }
        let read: Vec<Record> = records_in_bytes(&bytes, 1 << 20)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read.len(), originals.len());
        for (back, original) in read.iter().zip(&originals) {
            assert_eq!(back.url, original.url);
            assert_eq!(back.kind, original.kind);
            assert_eq!(back.content_type, original.content_type);
            assert_eq!(back.block, original.block);
            assert_eq!(back.date, original.date);
            assert_eq!(back.truncated, original.truncated);
            if original.record_id.is_some() {
                assert_eq!(back.record_id, original.record_id);
            }
        }
    }

    #[test]
    fn the_same_record_gives_the_same_bytes_and_ids_differ_by_origin() {
        let one = record(RecordKind::Response, false);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        append_record(&mut a, &one, "x:1").unwrap();
        append_record(&mut b, &one, "x:1").unwrap();
        assert_eq!(a, b);
        assert_ne!(record_id("x:1", &one.url), record_id("x:2", &one.url));
        assert_eq!(record_id("x:1", &one.url).len(), 36);
    }
}
