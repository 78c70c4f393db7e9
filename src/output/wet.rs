//! WET out: [`ExtractedPage`]s in, WARC/1.0 records out as Common Crawl writes its WET files —
//! one `warcinfo` record first, then one `conversion` record of `text/plain` per page with
//! `WARC-Target-URI`, `WARC-Date` (when the page was fetched), `WARC-Record-ID` (a UUID made
//! from the page's source, so a run again writes the same bytes), `WARC-Refers-To` (the source
//! record's id, when it has one) with `WARC-Refers-To-Target-URI` (WARC 1.1's field for the
//! URI of the record referred to), `WARC-Identified-Content-Language` (when detected) and the
//! `Content-Length` of the text in bytes. What CC's files do not carry has fields of its own:
//! the source page's character set, `Indexer-Source-Charset` (the text itself is UTF-8), and
//! where the source record lies, `Indexer-Source-Filename`, `-Offset` and `-Length` (the
//! JSON lines' `warc_filename`, `warc_record_offset` and `warc_record_length`). No
//! `WARC-Block-Digest`: the field is optional, and it would take a SHA-1 dependency.

use super::ExtractedPage;
use crate::segment::stable_hash_bytes;

/// A UUID-shaped identifier (version 8: custom, RFC 9562) from two seeds: the same seeds
/// always give the same identifier.
pub fn hashed_uuid(first: &str, second: &str) -> String {
    let high = stable_hash_bytes(first.as_bytes());
    let low = stable_hash_bytes(format!("{first}\n{second}").as_bytes());
    let high = (high & !0xf000) | 0x8000;
    let low = (low & !(0b11 << 62)) | (0b10 << 62);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        high >> 32,
        (high >> 16) & 0xffff,
        high & 0xffff,
        low >> 48,
        low & 0xffff_ffff_ffff
    )
}

/// A header value on one line.
fn one_line(value: &str) -> String {
    value.replace(['\r', '\n'], " ")
}

/// One WARC record: `fields` (name, value) then the `Content-Length` of `block`, the block,
/// and the two line ends that close a record.
fn record(fields: &[(&str, String)], block: &[u8]) -> Vec<u8> {
    let mut out = b"WARC/1.0\r\n".to_vec();
    for (name, value) in fields {
        out.extend_from_slice(format!("{name}: {}\r\n", one_line(value)).as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// The `warcinfo` record that opens a WET file written at `date` (RFC 3339) under the name
/// `filename` (if any), by `software`.
pub fn warcinfo_record(date: &str, filename: Option<&str>, software: &str) -> Vec<u8> {
    let mut fields = vec![
        ("WARC-Type", "warcinfo".to_string()),
        ("WARC-Date", date.to_string()),
    ];
    if let Some(name) = filename {
        fields.push(("WARC-Filename", name.to_string()));
    }
    let id = hashed_uuid("warcinfo", &format!("{date}\n{}", filename.unwrap_or("")));
    fields.push(("WARC-Record-ID", format!("<urn:uuid:{id}>")));
    fields.push(("Content-Type", "application/warc-fields".to_string()));
    let block = format!(
        "Software-Info: {}\r\nExtracted-Date: {date}\r\nformat: WARC File Format 1.0\r\n\
         description: the kept text of each page, template removed (plain-text input kept whole)\r\n",
        one_line(software)
    );
    record(&fields, block.as_bytes())
}

/// The `conversion` record of `page`; `run_date` stands for the fetch date of a page whose
/// record has none readable (a folder file), as WARC requires a date.
pub fn conversion_record(page: &ExtractedPage, run_date: &str) -> Vec<u8> {
    let date = page
        .date
        .as_deref()
        .filter(|date| crate::read::FetchTime::parse(date).is_some())
        .unwrap_or(run_date);
    let source = page.record_id.as_deref().unwrap_or("");
    let id = hashed_uuid(&page.url, &format!("{source}\n{date}"));
    let mut fields = vec![
        ("WARC-Type", "conversion".to_string()),
        ("WARC-Target-URI", page.url.clone()),
        ("WARC-Date", date.to_string()),
        ("WARC-Record-ID", format!("<urn:uuid:{id}>")),
    ];
    if let Some(source) = &page.record_id {
        fields.push(("WARC-Refers-To", source.clone()));
        fields.push(("WARC-Refers-To-Target-URI", page.url.clone()));
    }
    if let Some(lang) = page.lang {
        fields.push(("WARC-Identified-Content-Language", lang.to_string()));
    }
    fields.push(("Indexer-Source-Charset", page.charset.to_string()));
    if let Some(filename) = &page.warc_filename {
        fields.push(("Indexer-Source-Filename", filename.to_string()));
    }
    if let Some(offset) = page.warc_record_offset {
        fields.push(("Indexer-Source-Offset", offset.to_string()));
    }
    if let Some(length) = page.warc_record_length {
        fields.push(("Indexer-Source-Length", length.to_string()));
    }
    if !page.main_content {
        fields.push(("Indexer-Main-Content", "false".to_string()));
    }
    fields.push(("Content-Type", "text/plain".to_string()));
    record(&fields, page.text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(record_id: Option<&str>, date: Option<&str>) -> ExtractedPage {
        ExtractedPage {
            url: "http://a.example/x".into(),
            site: "a.example".into(),
            title: String::new(),
            record_id: record_id.map(str::to_string),
            date: date.map(str::to_string),
            warc_filename: Some("crawl.warc.gz".into()),
            warc_record_offset: Some(784),
            warc_record_length: record_id.map(|_| 1203),
            charset: "windows-1252",
            lang: Some("fra"),
            language_score: Some(0.97),
            blocks_kept: 2,
            blocks_dropped: 0,
            main_content: true,
            text: "Première ligne\nseconde".into(),
        }
    }

    #[test]
    fn a_conversion_record_carries_the_source_and_counts_bytes() {
        let bytes = conversion_record(
            &page(Some("<urn:uuid:abc>"), Some("2020-08-08T17:27:41Z")),
            "2026-01-01T00:00:00Z",
        );
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.starts_with("WARC/1.0\r\nWARC-Type: conversion\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\nWARC-Date: 2020-08-08T17:27:41Z\r\n"));
        assert!(text.contains("\r\nWARC-Refers-To: <urn:uuid:abc>\r\n"));
        assert!(text.contains("\r\nWARC-Identified-Content-Language: fra\r\n"));
        assert!(text.contains("\r\nWARC-Refers-To-Target-URI: http://a.example/x\r\n"));
        assert!(text.contains("\r\nIndexer-Source-Charset: windows-1252\r\n"));
        assert!(text.contains("\r\nIndexer-Source-Filename: crawl.warc.gz\r\n"));
        assert!(text.contains("\r\nIndexer-Source-Offset: 784\r\n"));
        assert!(text.contains("\r\nIndexer-Source-Length: 1203\r\n"));
        let length = "Première ligne\nseconde".len();
        assert!(text.contains(&format!("\r\nContent-Length: {length}\r\n\r\nPremière")));
        assert!(text.ends_with("seconde\r\n\r\n"));
        assert!(!text.contains("Indexer-Main-Content"), "{text}");
        let mut flagged = page(None, None);
        flagged.main_content = false;
        let text = String::from_utf8(conversion_record(&flagged, "2026-01-01T00:00:00Z")).unwrap();
        assert!(
            text.contains("\r\nIndexer-Main-Content: false\r\n"),
            "{text}"
        );
    }

    #[test]
    fn a_page_without_a_readable_date_takes_the_run_s_and_no_refers_to() {
        let text = String::from_utf8(conversion_record(
            &page(None, Some("yesterday")),
            "2026-01-01T00:00:00Z",
        ))
        .unwrap();
        assert!(
            text.contains("\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"),
            "{text}"
        );
        assert!(!text.contains("WARC-Refers-To"));
        assert!(!text.contains("Indexer-Source-Length"), "{text}");
    }

    #[test]
    fn ids_are_stable_uuids_that_differ_by_source() {
        let a = hashed_uuid("x:1", "http://a/");
        assert_eq!(a, hashed_uuid("x:1", "http://a/"));
        assert_ne!(a, hashed_uuid("x:2", "http://a/"));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "8");
    }
}
