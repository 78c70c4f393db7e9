//! ARC record framing: the Internet Archive's format before WARC, which older Common Crawl
//! crawls and many web archives hold.
//!
//! In: the decompressed [`Stream`] of one ARC file (plain, or gzip with one member per record
//! as archives write them). Out: an [`ArcRecords`] iterator of [`Record`]s, read as a WARC
//! `response` is (the HTTP message as fetched; a block without an HTTP status line is a bare
//! document of the header line's type), and [`Skip`]s for everything passed over or broken.
//!
//! A file starts with a `filedesc://` record (the file's own description, passed over); each
//! record is a header line `URL IP-address Archive-date Content-type Length` (version 1; version
//! 2 puts five more fields before the length, which comes last either way), then `Length`
//! bytes, then a newline. A header line that cannot be read is skipped as broken, and reading
//! goes on at the next line that reads as a header line. ARC records have no record id.

use std::io::Read;

use super::pending::PendingItems;
use super::source::{Fault, HeaderEnd, Stream};
use super::{Record, RecordKind, Skip, SkipReason};

/// How every ARC file starts (its `filedesc://` record's URL).
const ARC_START: &[u8] = b"filedesc://";

/// Longest header line accepted.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// A length above this is taken for garbage rather than a big record.
const ABSURD_LENGTH: u64 = 1 << 40;

/// Whether `file` (a whole file or its first bytes; plain or gzip) starts as an ARC file does.
pub(crate) fn starts_like_arc(file: &[u8]) -> bool {
    let mut head = [0u8; ARC_START.len()];
    if file.starts_with(&[0x1f, 0x8b]) {
        let mut decoded = flate2::read::GzDecoder::new(file);
        decoded.read_exact(&mut head).is_ok() && head == ARC_START
    } else {
        file.starts_with(ARC_START)
    }
}

/// What an ARC header line says.
#[derive(Debug, PartialEq, Eq)]
struct HeaderLine {
    url: String,
    /// The archive date written as a WARC date (`2020-08-08T17:27:41Z`), when it is one.
    date: Option<String>,
    content_type: String,
    length: u64,
}

impl HeaderLine {
    /// Reads a header line (without or with its line end), or says why it cannot.
    fn parse(line: &[u8]) -> Result<HeaderLine, String> {
        let text = String::from_utf8_lossy(line.trim_ascii());
        let fields: Vec<&str> = text.split(' ').filter(|field| !field.is_empty()).collect();
        let shown: String = text.chars().take(120).collect();
        if fields.len() < 5 {
            return Err(format!(
                "an ARC header line has at least 5 fields (URL IP-address date type length), this one {}: {shown:?}",
                fields.len()
            ));
        }
        let last = fields[fields.len() - 1];
        let length = match last.parse::<u64>() {
            Ok(length) if length <= ABSURD_LENGTH => length,
            _ => {
                return Err(format!(
                    "ARC record length {last:?} is not a length: {shown:?}"
                ));
            }
        };
        Ok(HeaderLine {
            url: fields[0].to_string(),
            date: warc_date(fields[2]),
            content_type: fields[3].to_string(),
            length,
        })
    }
}

/// An ARC date (`YYYYMMDDhhmmss`, or a prefix of it down to the day) as a WARC date.
fn warc_date(arc: &str) -> Option<String> {
    if !(8..=14).contains(&arc.len()) || !arc.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let d = format!("{arc:0<14}");
    Some(format!(
        "{}-{}-{}T{}:{}:{}Z",
        &d[0..4],
        &d[4..6],
        &d[6..8],
        &d[8..10],
        &d[10..12],
        &d[12..14]
    ))
}

/// The records of one ARC file.
pub(crate) struct ArcRecords {
    stream: Stream,
    /// Which input of its [`super::InputSet`] the file is ([`Record::source_input`]).
    input: u32,
    max_record_bytes: usize,
    /// Items produced and not yet handed out.
    pending: PendingItems,
    finished: bool,
}

impl ArcRecords {
    /// The records of `stream`, input number `input`.
    pub(crate) fn new(stream: Stream, input: u32, max_record_bytes: usize) -> Self {
        ArcRecords {
            stream,
            input,
            max_record_bytes,
            pending: PendingItems::default(),
            finished: false,
        }
    }

    fn skip(&mut self, reason: SkipReason, url: Option<String>, offset: u64, message: &str) {
        let skip = Skip::new(reason, url, message).at(self.input, Some(offset));
        self.pending.push_skip(skip);
    }

    /// Reports a stretch of gzip that does not decode; reading goes on at the next member.
    fn fault(&mut self, fault: Fault, url: Option<String>, offset: u64) {
        self.skip(SkipReason::BadCompression, url, offset, fault.message());
    }

    /// Reads one record, or passes over one stretch of damage, queueing what comes out.
    fn step(&mut self) {
        if let Err(fault) = self.stream.skip_whitespace() {
            let offset = self.stream.file_offset();
            return self.fault(fault, None, offset);
        }
        let offset = self.stream.file_offset();
        if !self.stream.available().is_empty() {
            // The next record starts here: the records before it end here.
            self.pending.close(offset);
        }
        let line_length = match self.stream.find_line_end(MAX_LINE_BYTES) {
            Ok(HeaderEnd::Found(length)) => length,
            Ok(HeaderEnd::TooLong) => {
                let message = format!("ARC header line longer than {MAX_LINE_BYTES} bytes");
                self.skip(SkipReason::BrokenRecordHeaders, None, offset, &message);
                return self.resync();
            }
            Ok(HeaderEnd::Eof) => {
                if !self.stream.available().is_empty() {
                    let message = "the file ends inside an ARC header line";
                    self.skip(SkipReason::TruncatedRecord, None, offset, message);
                } else if self.stream.truncated() {
                    let message = "the file ends inside a gzip member";
                    self.skip(SkipReason::TruncatedRecord, None, offset, message);
                }
                self.finished = true;
                return;
            }
            Err(fault) => return self.fault(fault, None, offset),
        };
        let line = self.stream.available()[..line_length].to_vec();
        self.stream.consume(line_length);
        match HeaderLine::parse(&line) {
            Ok(header) => self.read_block(header, offset),
            Err(message) => {
                self.skip(SkipReason::BrokenRecordHeaders, None, offset, &message);
                self.resync();
            }
        }
    }

    /// Reads (or skips) the block of a record whose header line is read.
    fn read_block(&mut self, header: HeaderLine, offset: u64) {
        let holds_page = !header.url.starts_with("filedesc:");
        if header.length > self.max_record_bytes as u64 {
            let message = format!(
                "ARC record of {} bytes is over the limit of {} bytes",
                header.length, self.max_record_bytes
            );
            return match self.stream.skip(header.length) {
                Ok(true) if holds_page => {
                    self.skip(SkipReason::TooLarge, Some(header.url), offset, &message)
                }
                Ok(true) => self.skip(SkipReason::NonPageRecord, None, offset, &message),
                Ok(false) => {
                    let message = "the file ends inside the record";
                    self.skip(
                        SkipReason::TruncatedRecord,
                        Some(header.url),
                        offset,
                        message,
                    );
                    self.finished = true;
                }
                Err(fault) => self.fault(fault, Some(header.url), offset),
            };
        }
        let capacity = usize::try_from(header.length).unwrap_or(0).min(1 << 20);
        let mut block = Vec::with_capacity(capacity);
        match self.stream.read_into(header.length, &mut block) {
            Ok(true) if holds_page => self.emit(header, block, false, offset),
            Ok(true) => {
                let message = "ARC file description (filedesc)";
                self.skip(SkipReason::NonPageRecord, None, offset, message);
            }
            Ok(false) => {
                if holds_page && !block.is_empty() {
                    // The part read may hold a usable page: the run keeps it if so, and counts
                    // it as truncated either way.
                    self.emit(header, block, true, offset);
                } else {
                    let message = format!(
                        "the file ends inside the record ({} of {} block bytes)",
                        block.len(),
                        header.length
                    );
                    let url = holds_page.then_some(header.url);
                    self.skip(SkipReason::TruncatedRecord, url, offset, &message);
                }
                self.finished = true;
            }
            Err(fault) => self.fault(fault, Some(header.url), offset),
        }
    }

    /// Queues a record: an HTTP response when its block starts with a status line, a bare
    /// document of the header line's type otherwise.
    fn emit(&mut self, header: HeaderLine, block: Vec<u8>, truncated: bool, offset: u64) {
        let (kind, content_type) = if block.starts_with(b"HTTP/") {
            (RecordKind::Response, None)
        } else {
            (RecordKind::Resource, Some(header.content_type))
        };
        self.pending.push_record(
            Record {
                url: header.url,
                kind,
                content_type,
                block,
                source_offset: offset,
                source_length: None,
                source_input: self.input,
                truncated,
                date: header.date,
                record_id: None,
            },
            true,
        );
    }

    /// Moves to the next line that reads as an ARC header line with a date, past a header
    /// line that could not be read and the block it framed.
    fn resync(&mut self) {
        loop {
            let offset = self.stream.file_offset();
            match self.stream.find_line_end(MAX_LINE_BYTES) {
                Ok(HeaderEnd::Found(length)) => {
                    let line = &self.stream.available()[..length];
                    if HeaderLine::parse(line).is_ok_and(|header| header.date.is_some()) {
                        return;
                    }
                    self.stream.consume(length);
                }
                Ok(HeaderEnd::TooLong) => {
                    let length = self.stream.available().len();
                    self.stream.consume(length);
                }
                Ok(HeaderEnd::Eof) => {
                    let length = self.stream.available().len();
                    self.stream.consume(length);
                    return;
                }
                Err(fault) => return self.fault(fault, None, offset),
            }
        }
    }
}

impl Iterator for ArcRecords {
    type Item = Result<Record, Skip>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.finished {
                self.pending.close(self.stream.data_end());
            }
            if let Some(item) = self.pending.pop() {
                return Some(item);
            }
            if self.finished {
                return None;
            }
            self.step();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::InputSet;
    use crate::read::test_support::fixture;

    fn items_of(name: &str) -> Vec<Result<Record, Skip>> {
        let inputs = InputSet::open(&[fixture(name)], None).unwrap();
        inputs.records().collect()
    }

    #[test]
    fn header_lines_of_both_versions_are_read() {
        let v1 = HeaderLine::parse(b"http://a.example/ 1.2.3.4 20200808172741 text/html 812\n");
        assert_eq!(
            v1,
            Ok(HeaderLine {
                url: "http://a.example/".into(),
                date: Some("2020-08-08T17:27:41Z".into()),
                content_type: "text/html".into(),
                length: 812,
            })
        );
        let v2 = HeaderLine::parse(
            b"http://a.example/ 1.2.3.4 20200808172741 text/html 200 ab12 - 0 x.arc.gz 99",
        )
        .unwrap();
        assert_eq!(v2.length, 99);
        assert!(HeaderLine::parse(b"http://a.example/ 1.2.3.4 20200808").is_err());
        assert!(HeaderLine::parse(b"http://a 1.2.3.4 2020 text/html lots").is_err());
        assert_eq!(warc_date("19961022"), Some("1996-10-22T00:00:00Z".into()));
        assert_eq!(warc_date("2020-08"), None);
    }

    #[test]
    fn arc_files_are_recognised_plain_and_gzipped() {
        let gzipped = std::fs::read(fixture("cc2020-slice.arc.gz")).unwrap();
        assert!(starts_like_arc(&gzipped));
        assert!(starts_like_arc(
            b"filedesc://x.arc 0.0.0.0 2020 text/plain 0\n"
        ));
        assert!(!starts_like_arc(b"WARC/1.0\r\n"));
        let warc = std::fs::read(fixture("warcio-example.warc.gz")).unwrap();
        assert!(!starts_like_arc(&warc));
    }

    #[test]
    fn gzipped_arc_gives_its_four_responses_with_dates() {
        let items = items_of("cc2020-slice.arc.gz");
        let skips: Vec<SkipReason> = items
            .iter()
            .filter_map(|item| item.as_ref().err().map(|skip| skip.reason))
            .collect();
        assert_eq!(skips, [SkipReason::NonPageRecord]);
        let records: Vec<&Record> = items.iter().filter_map(|item| item.as_ref().ok()).collect();
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].url, "http://037426.cn/");
        assert_eq!(records[0].kind, RecordKind::Response);
        assert_eq!(records[0].date.as_deref(), Some("2020-08-08T18:34:24Z"));
        assert!(records[0].block.starts_with(b"HTTP/1.1 200"));
        assert!(records.iter().all(|record| !record.truncated));
        assert!(
            records
                .windows(2)
                .all(|w| w[0].source_offset < w[1].source_offset)
        );
    }

    #[test]
    fn a_garbled_header_and_a_cut_end_are_counted_not_fatal() {
        let items = items_of("cc2020-slice-damaged.arc.gz");
        let urls: Vec<&str> = (items.iter().filter_map(|item| item.as_ref().ok()))
            .map(|record| record.url.as_str())
            .collect();
        assert_eq!(
            urls[..2],
            [
                "http://037426.cn/",
                "http://0900-hovenier.nl/gelderland/oosterbeek/"
            ]
        );
        let broken = (items.iter().filter_map(|item| item.as_ref().err()))
            .find(|skip| skip.reason == SkipReason::BrokenRecordHeaders)
            .expect("the garbled line is reported");
        assert!(broken.detail.contains("5 fields"), "{}", broken.detail);
        let last = items.last().unwrap();
        let cut = match last {
            Ok(record) => record.truncated,
            Err(skip) => skip.reason == SkipReason::TruncatedRecord,
        };
        assert!(cut, "{last:?}");
    }

    #[test]
    fn garbage_after_a_file_description_ends_in_counted_skips() {
        // Deterministic pseudo-random bytes (xorshift), cut into lines and fields that
        // sometimes look like an ARC header line with a lying length.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..200 {
            let mut bytes = b"filedesc://x.arc 0.0.0.0 20200101000000 text/plain 0\n".to_vec();
            for _ in 0..(next() % 40) {
                match next() % 4 {
                    0 => bytes.extend_from_slice(
                        format!(
                            "http://a/{case} 1.2.3.4 20200101000000 text/html {}\n",
                            next() % 300
                        )
                        .as_bytes(),
                    ),
                    1 => bytes.extend_from_slice(b"HTTP/1.1 200 OK\r\n\r\n<p>text</p>\n"),
                    2 => bytes.push(b'\n'),
                    _ => bytes.extend((0..next() % 64).map(|_| next() as u8)),
                }
            }
            let items = crate::read::records_in_bytes(&bytes, 1 << 20);
            assert!(items.len() <= bytes.len() + 1, "case {case}");
        }
    }

    #[test]
    fn a_plain_arc_reads_as_the_gzipped_one() {
        let gzipped = std::fs::read(fixture("cc2020-slice.arc.gz")).unwrap();
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&gzipped[..])
            .read_to_end(&mut plain)
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain.arc");
        std::fs::write(&path, &plain).unwrap();
        let inputs = InputSet::open(&[path], None).unwrap();
        let blocks: Vec<Vec<u8>> = inputs
            .records()
            .filter_map(Result::ok)
            .map(|r| r.block)
            .collect();
        let expected: Vec<Vec<u8>> = items_of("cc2020-slice.arc.gz")
            .into_iter()
            .filter_map(Result::ok)
            .map(|r| r.block)
            .collect();
        assert_eq!(blocks.len(), 4);
        assert_eq!(blocks, expected);
    }
}
