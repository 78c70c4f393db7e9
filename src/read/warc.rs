//! WARC record framing.
//!
//! In: the decompressed [`Stream`] of one WARC file (1.0, 1.1 or the 0.18 dialect of
//! ClueWeb). Out: a [`WarcRecords`] iterator of [`Record`]s for `response` and `resource`
//! records and [`Skip`]s for everything passed over or broken.
//!
//! Each record is read by its `Content-Length`, then the parser checks that the next record
//! (or the end of the file) follows. When a length lies, the parser recovers: if the block it
//! read contains the start of the next record, those bytes are read again as a record;
//! otherwise it moves on to the next line that starts with `WARC/`.

use std::collections::VecDeque;

use super::source::{Fault, HeaderEnd, Stream};
use super::{Record, RecordKind, Skip, SkipReason};

/// Longest WARC header block accepted.
const MAX_HEADER_BYTES: usize = 256 * 1024;

/// A `Content-Length` above this is taken for garbage rather than a big record.
const ABSURD_CONTENT_LENGTH: u64 = 1 << 40;

/// How far past a block the parser looks for the next record's version line.
const ALIGNMENT_LOOKAHEAD: usize = 256;

/// The WARC field with which `indexer partition` marks a record it wrote from the part of a
/// record read before its file ended, so that the build of its bucket counts the page as the
/// build of the original file would ([`Record::truncated`]). Not `WARC-Truncated`, which a
/// crawler sets for its own reasons (a length limit) and which does not make a page partial
/// in our sense.
pub const PARTIAL_RECORD_FIELD: &str = "Indexer-Partial-Record";

/// The WARC headers the reader uses.
#[derive(Debug, Default)]
struct WarcHeaders {
    record_type: Option<String>,
    target_uri: Option<String>,
    content_type: Option<String>,
    content_length: Option<String>,
    date: Option<String>,
    /// [`PARTIAL_RECORD_FIELD`]: a record `indexer partition` wrote from the part of a record
    /// read before its file ended.
    partial: Option<String>,
}

impl WarcHeaders {
    /// Parses a header block (version line first). Folded lines continue the previous
    /// field; lines without a colon are ignored.
    fn parse(block: &[u8]) -> WarcHeaders {
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
}

/// `WARC-Target-URI` as stored, trimmed, without the `<>` of the WARC 1.1 draft syntax.
fn clean_target_uri(raw: &str) -> String {
    let trimmed = raw.trim();
    trimmed
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(trimmed)
        .trim()
        .to_string()
}

/// What to do with a record once its headers are read.
enum Disposition {
    Keep(RecordKind),
    PassOver,
}

/// The records of one WARC file.
pub(crate) struct WarcRecords {
    stream: Stream,
    /// Which input of its [`super::InputSet`] the file is ([`Record::source_input`]).
    input: u32,
    /// The file's name, for skip details.
    file_label: String,
    max_record_bytes: usize,
    /// Items produced and not yet handed out.
    pending: VecDeque<Result<Record, Skip>>,
    /// No record has been seen yet: a bad start means the file is not WARC.
    at_first_record: bool,
    /// The next record may start right here (set after a gzip fault).
    at_line_start: bool,
    finished: bool,
}

impl WarcRecords {
    /// The records of `stream`, the file `file_label` and input number `input`.
    pub(crate) fn new(
        stream: Stream,
        input: u32,
        file_label: String,
        max_record_bytes: usize,
    ) -> Self {
        WarcRecords {
            stream,
            input,
            file_label,
            max_record_bytes,
            pending: VecDeque::new(),
            at_first_record: true,
            at_line_start: true,
            finished: false,
        }
    }

    fn skip(&mut self, reason: SkipReason, url: Option<String>, offset: u64, message: &str) {
        let detail = format!("{}: offset {offset}: {message}", self.file_label);
        let skip = Skip::new(reason, url, detail).at(self.input, Some(offset));
        self.pending.push_back(Err(skip));
    }

    /// Records a gzip fault: before the first record the file is unreadable; later, the
    /// damaged stretch is reported and reading goes on at the next member.
    fn fault(&mut self, fault: Fault, url: Option<String>, offset: u64) {
        let Fault::Corrupt(message) = fault;
        if self.at_first_record && url.is_none() {
            self.skip(SkipReason::UnreadableFile, None, offset, &message);
            self.finished = true;
        } else {
            self.skip(SkipReason::BadCompression, url, offset, &message);
            self.at_line_start = true;
        }
    }

    /// Moves to the next `WARC/` line after a broken record.
    fn resync(&mut self) {
        let at_line_start = std::mem::replace(&mut self.at_line_start, false);
        match self.stream.seek_version_line(at_line_start) {
            Ok(true) => self.at_line_start = true,
            Ok(false) => {}
            Err(fault) => {
                let offset = self.stream.file_offset();
                self.fault(fault, None, offset);
            }
        }
    }

    /// Reads one record, or passes over one stretch of damage, queueing what comes out.
    fn step(&mut self) {
        if let Err(fault) = self.stream.skip_whitespace() {
            let offset = self.stream.file_offset();
            return self.fault(fault, None, offset);
        }
        let offset = self.stream.file_offset();
        let starts_with_version = match self.stream.ensure(5) {
            Ok(0) => {
                if self.stream.truncated() && self.at_first_record {
                    self.skip(
                        SkipReason::UnreadableFile,
                        None,
                        offset,
                        "gzip stream ends before any WARC record",
                    );
                } else if self.stream.truncated() {
                    self.skip(
                        SkipReason::TruncatedRecord,
                        None,
                        offset,
                        "the file ends inside a gzip member",
                    );
                }
                self.finished = true;
                return;
            }
            Ok(_) => self.stream.available().starts_with(b"WARC/"),
            Err(fault) => return self.fault(fault, None, offset),
        };
        if !starts_with_version {
            if self.at_first_record {
                let head = printable_prefix(self.stream.available());
                self.skip(
                    SkipReason::UnreadableFile,
                    None,
                    offset,
                    &format!("not a WARC file (starts with {head:?})"),
                );
                self.finished = true;
            } else {
                self.skip(
                    SkipReason::BrokenRecordHeaders,
                    None,
                    offset,
                    "no WARC version line where a record should start",
                );
                self.resync();
            }
            return;
        }
        self.at_first_record = false;
        self.at_line_start = false;

        let header_len = match self.stream.find_header_end(MAX_HEADER_BYTES) {
            Ok(HeaderEnd::Found(len)) => len,
            Ok(HeaderEnd::TooLong) => {
                self.skip(
                    SkipReason::BrokenRecordHeaders,
                    None,
                    offset,
                    &format!("WARC headers longer than {MAX_HEADER_BYTES} bytes"),
                );
                return self.resync();
            }
            Ok(HeaderEnd::Eof) => {
                let url = WarcHeaders::parse(self.stream.available())
                    .target_uri
                    .map(|uri| clean_target_uri(&uri));
                self.skip(
                    SkipReason::TruncatedRecord,
                    url,
                    offset,
                    "the file ends inside the WARC headers",
                );
                self.finished = true;
                return;
            }
            Err(fault) => return self.fault(fault, None, offset),
        };
        let headers = WarcHeaders::parse(&self.stream.available()[..header_len]);
        self.stream.consume(header_len);
        self.read_block(headers, offset);
    }

    /// Reads (or skips) the block of a record whose headers are parsed.
    fn read_block(&mut self, headers: WarcHeaders, offset: u64) {
        let url = headers.target_uri.as_deref().map(clean_target_uri);
        let record_type = headers
            .record_type
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();

        let Some(raw_length) = headers.content_length.as_deref() else {
            self.skip(
                SkipReason::BrokenRecordHeaders,
                url,
                offset,
                "no Content-Length",
            );
            return self.resync();
        };
        let length = match raw_length.trim().parse::<u64>() {
            Ok(length) if length <= ABSURD_CONTENT_LENGTH => length,
            _ => {
                let message = format!("unusable Content-Length {raw_length:?}");
                self.skip(SkipReason::BrokenRecordHeaders, url, offset, &message);
                return self.resync();
            }
        };

        let disposition = match record_type.as_str() {
            "response" => {
                let is_http = headers.content_type.as_deref().is_none_or(|ct| {
                    ct.to_ascii_lowercase().contains("application/http") || ct.trim().is_empty()
                });
                Disposition::Keep(if is_http {
                    RecordKind::Response
                } else {
                    RecordKind::Resource
                })
            }
            "resource" => Disposition::Keep(RecordKind::Resource),
            _ => Disposition::PassOver,
        };

        if length > self.max_record_bytes as u64 {
            let message = format!(
                "{record_type} record of {length} bytes is over the limit of {} bytes",
                self.max_record_bytes
            );
            let reason = match disposition {
                Disposition::Keep(_) => SkipReason::TooLarge,
                Disposition::PassOver => SkipReason::NonPageRecord,
            };
            match self.stream.skip(length) {
                Ok(true) => {
                    self.skip(reason, url, offset, &message);
                    match self.junk_before_next_record() {
                        Ok(Some(junk)) => self.stream.consume(junk),
                        Ok(None) => self.resync(),
                        Err(fault) => {
                            let at = self.stream.file_offset();
                            self.fault(fault, None, at);
                        }
                    }
                }
                Ok(false) => {
                    let message = "the file ends inside the record";
                    self.skip(SkipReason::TruncatedRecord, url, offset, message);
                    self.finished = true;
                }
                Err(fault) => self.fault(fault, url, offset),
            }
            return;
        }

        let head = RecordHead {
            disposition,
            url,
            record_type,
            content_type: headers.content_type,
            date: headers.date,
            partial: headers.partial.is_some(),
            offset,
        };
        // Grow with the data rather than trusting the header for the allocation.
        let mut block = Vec::with_capacity(usize::try_from(length).unwrap_or(0).min(1 << 20));
        let complete = match self.stream.read_into(length, &mut block) {
            Ok(complete) => complete,
            Err(fault) => return self.fault(fault, head.url, offset),
        };
        let junk = if complete {
            match self.junk_before_next_record() {
                Ok(junk) => junk,
                Err(fault) => {
                    // The record is whole; what follows it is damaged. Keep the record and
                    // report the damage (the bytes lost with it may have held records).
                    self.emit(head, block, false);
                    let at = self.stream.file_offset();
                    return self.fault(fault, None, at);
                }
            }
        } else {
            None
        };
        if junk == Some(0) {
            return self.emit(head, block, false);
        }
        let embedded = find_embedded_record(&block);
        if let (Some(junk), None) = (junk, embedded) {
            // A few stray bytes, then the next record: the length was a little short (or
            // the writer left junk). Keep the record as its length frames it.
            self.emit(head, block, false);
            self.stream.consume(junk);
            return;
        }
        // The block does not end where a record ends: the Content-Length lies, or the file
        // is cut short.
        if let Some(next) = embedded {
            self.stream.unread(&block[next..]);
            self.at_line_start = true;
            let message = format!(
                "Content-Length {length} runs past the start of the next record (which starts {} bytes into the block)",
                next
            );
            self.skip(SkipReason::BrokenRecordHeaders, head.url, offset, &message);
        } else if !complete {
            let holds_page = matches!(head.disposition, Disposition::Keep(_))
                && !block.is_empty()
                && head.url.as_deref().is_some_and(|url| !url.is_empty());
            if holds_page {
                // The part read may hold a usable page: the build keeps it if so, and counts
                // it as truncated either way.
                self.emit(head, block, true);
            } else {
                let message = format!(
                    "the file ends inside the record ({} of {length} block bytes)",
                    block.len()
                );
                self.skip(SkipReason::TruncatedRecord, head.url, offset, &message);
            }
            self.finished = true;
        } else {
            let message = format!("Content-Length {length} ends the block before the record ends");
            self.skip(SkipReason::BrokenRecordHeaders, head.url, offset, &message);
            self.resync();
        }
    }

    /// Queues the outcome of a record: its block as framed, or (`truncated`) the part of it
    /// read before the file ended.
    fn emit(&mut self, head: RecordHead, block: Vec<u8>, truncated: bool) {
        let RecordHead {
            disposition,
            url,
            record_type,
            content_type,
            date,
            partial,
            offset,
        } = head;
        match disposition {
            Disposition::PassOver => {
                let name = if record_type.is_empty() {
                    "untyped"
                } else {
                    &record_type
                };
                let message = format!("{name} record");
                self.skip(SkipReason::NonPageRecord, url, offset, &message);
            }
            Disposition::Keep(kind) => match url {
                Some(url) if !url.is_empty() => {
                    let content_type = match kind {
                        RecordKind::Response => None,
                        RecordKind::Resource | RecordKind::File => content_type,
                    };
                    self.pending.push_back(Ok(Record {
                        url,
                        kind,
                        content_type,
                        block,
                        source_offset: offset,
                        source_input: self.input,
                        truncated: truncated || partial,
                        date,
                    }));
                }
                _ => {
                    let message = format!("{record_type} record without WARC-Target-URI");
                    self.skip(SkipReason::BrokenRecordHeaders, None, offset, &message);
                }
            },
        }
    }

    /// How many bytes stand between the current position and the next record: `Some(0)`
    /// if only blank lines (or the end of the file) follow, `Some(n)` if a `WARC/` line
    /// starts `n` bytes ahead within [`ALIGNMENT_LOOKAHEAD`], `None` if no record start is
    /// in view. Consumes nothing. A gzip fault met while looking is returned: the bytes it
    /// cost are gone, and must be reported.
    fn junk_before_next_record(&mut self) -> Result<Option<usize>, Fault> {
        let available = self.stream.ensure(ALIGNMENT_LOOKAHEAD)?;
        let window = &self.stream.available()[..available.min(ALIGNMENT_LOOKAHEAD)];
        let blank = window
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let rest = &window[blank..];
        // Only blank bytes in view: the end of the file, or a long run of padding.
        if rest.is_empty()
            || rest.starts_with(b"WARC/")
            || (b"WARC/".starts_with(rest) && available < 5)
        {
            return Ok(Some(0));
        }
        Ok(window
            .windows(6)
            .position(|w| w.starts_with(b"\nWARC/"))
            .map(|newline| newline + 1))
    }
}

/// What a record's headers said: what to do with it, its URL, type and content type, and
/// where it starts.
struct RecordHead {
    disposition: Disposition,
    url: Option<String>,
    record_type: String,
    content_type: Option<String>,
    date: Option<String>,
    /// The record was written from a partial one ([`PARTIAL_RECORD_FIELD`]).
    partial: bool,
    offset: u64,
}

impl Iterator for WarcRecords {
    type Item = Result<Record, Skip>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if self.finished {
                return None;
            }
            self.step();
        }
    }
}

/// Start of the first line inside `block` (past its first byte) that looks like a WARC
/// version line (`WARC/` and a digit).
fn find_embedded_record(block: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = block.get(from..)?.iter().position(|&b| b == b'\n') {
        let line_start = from + i + 1;
        let line = block.get(line_start..)?;
        if line.starts_with(b"WARC/") && line.get(5).is_some_and(u8::is_ascii_digit) {
            return Some(line_start);
        }
        from = line_start;
    }
    None
}

/// The first bytes of a file, for a message.
fn printable_prefix(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(16)];
    String::from_utf8_lossy(head).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::test_support::fixture;
    use std::io::Write;

    fn records_of_bytes(bytes: &[u8]) -> Vec<Result<Record, Skip>> {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        // SAFETY: the temporary file is private to this test and not modified while mapped.
        let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
        WarcRecords::new(Stream::new(map), 0, "test.warc".into(), 1 << 20).collect()
    }

    fn records_of_fixture(name: &str) -> Vec<Result<Record, Skip>> {
        records_of_bytes(&std::fs::read(fixture(name)).unwrap())
    }

    fn reasons(items: &[Result<Record, Skip>]) -> Vec<SkipReason> {
        items
            .iter()
            .filter_map(|item| item.as_ref().err().map(|skip| skip.reason))
            .collect()
    }

    fn urls(items: &[Result<Record, Skip>]) -> Vec<&str> {
        items
            .iter()
            .filter_map(|item| item.as_ref().ok().map(|r| r.url.as_str()))
            .collect()
    }

    fn record(record_type: &str, uri: &str, block: &[u8]) -> Vec<u8> {
        let mut out = format!(
            "WARC/1.0\r\nWARC-Type: {record_type}\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        out.extend_from_slice(block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    const HTTP_OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>";

    #[test]
    fn warcio_example_yields_one_response_and_passes_over_the_rest() {
        let items = records_of_fixture("warcio-example.warc.gz");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord; 5]);
        let Ok(response) = &items[2] else {
            panic!("third item should be the response: {:?}", items[2]);
        };
        assert_eq!(response.kind, RecordKind::Response);
        assert_eq!(response.source_offset, 784);
        assert_eq!(response.block.len(), 975);
        assert!(response.block.starts_with(b"HTTP/1.1 200 OK\r\n"));
    }

    #[test]
    fn cc2020_slice_has_sixteen_responses() {
        let items = records_of_fixture("resiliparse-cc2020-slice.warc.gz");
        assert_eq!(urls(&items).len(), 16);
        // 1 warcinfo + 17 requests + 16 metadata records.
        assert_eq!(reasons(&items), vec![SkipReason::NonPageRecord; 34]);
        assert_eq!(urls(&items)[0], "http://003338.cn/l41/481397.html");
    }

    #[test]
    fn clipped_file_gives_the_part_of_its_last_record_that_was_read() {
        let items = records_of_fixture("resiliparse-clipped.warc.gz");
        assert_eq!(reasons(&items), []);
        let [Ok(record)] = &items[..] else {
            panic!("one record: {items:?}")
        };
        assert!(record.truncated);
        assert!(record.block.starts_with(b"HTTP/1.1 200"));
        assert_eq!(
            record.url,
            "http://www.houstonpress.com/music/a-humble-chance-the-rapper-leads-a-spiritual-awakening-at-revention-8866723"
        );
    }

    #[test]
    fn truncated_gzip_keeps_records_before_the_break() {
        let full = std::fs::read(fixture("warcio-example.warc.gz")).unwrap();
        // Cut inside the fourth member (the request after the response).
        let items = records_of_bytes(&full[..2300]);
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(
            reasons(&items),
            [
                SkipReason::NonPageRecord,
                SkipReason::NonPageRecord,
                SkipReason::TruncatedRecord
            ]
        );
    }

    #[test]
    fn warcio_trunc_keeps_the_record_its_length_cuts_short() {
        // The response's Content-Length is 973, two bytes short of its block: the gzip body
        // loses the end of its trailer and two bytes of junk precede the next record.
        let items = records_of_fixture("warcio-example-trunc.warc");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord; 3]);
        assert_eq!(items[2].as_ref().unwrap().block.len(), 973);
    }

    #[test]
    fn record_split_over_gzip_members_is_read_whole() {
        let items = records_of_fixture("warcio-example-wrong-chunks.warc.gz");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord]);
    }

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
    fn whole_file_in_one_gzip_member_is_read() {
        // This warcio file is one gzip member holding six records.
        let items = records_of_fixture("warcio-example-bad-non-chunked.warc.gz");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord; 5]);
        let response = items[2].as_ref().unwrap();
        assert_eq!(response.source_offset, 0);
        assert_eq!(response.block.len(), 975);
        let revisit = items[4].as_ref().unwrap_err();
        assert!(
            revisit.detail.contains("revisit record"),
            "{}",
            revisit.detail
        );
    }

    #[test]
    fn clueweb_dialect_is_read() {
        let items = records_of_fixture("resiliparse-clueweb-quirk.warc.gz");
        assert_eq!(urls(&items).len(), 29);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord]);
    }

    #[test]
    fn empty_and_blank_files_yield_nothing() {
        assert!(records_of_bytes(b"").is_empty());
        assert!(records_of_bytes(b"\r\n\r\n  \n").is_empty());
    }

    #[test]
    fn text_and_binary_garbage_are_unreadable_files() {
        for garbage in [
            &b"Just some text,\nnot a WARC file at all.\n"[..],
            &[0x00, 0xff, 0x13, 0x37, 0x80, 0x7f, 0xfe, 0x01, 0x02][..],
            &[
                0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x12,
            ][..],
        ] {
            let items = records_of_bytes(garbage);
            assert_eq!(reasons(&items), [SkipReason::UnreadableFile], "{garbage:?}");
            let Err(skip) = &items[0] else { unreachable!() };
            assert!(skip.detail.starts_with("test.warc: "), "{}", skip.detail);
        }
    }

    #[test]
    fn gzip_of_text_is_unreadable() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"<html>not a warc</html>").unwrap();
        let items = records_of_bytes(&encoder.finish().unwrap());
        assert_eq!(reasons(&items), [SkipReason::UnreadableFile]);
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

    fn with_content_length(data: Vec<u8>, honest: usize, claimed: &str) -> Vec<u8> {
        String::from_utf8(data)
            .unwrap()
            .replace(
                &format!("Content-Length: {honest}\r\n"),
                &format!("Content-Length: {claimed}\r\n"),
            )
            .into_bytes()
    }

    #[test]
    fn content_length_a_little_short_keeps_the_record() {
        let short = record("response", "http://short.example/", HTTP_OK);
        let short = with_content_length(short, HTTP_OK.len(), &(HTTP_OK.len() - 10).to_string());
        let mut data = record("response", "http://first.example/", HTTP_OK);
        data.extend_from_slice(&short);
        data.extend_from_slice(&record("response", "http://after.example/", HTTP_OK));
        let items = records_of_bytes(&data);
        assert_eq!(
            urls(&items),
            [
                "http://first.example/",
                "http://short.example/",
                "http://after.example/"
            ]
        );
        assert!(reasons(&items).is_empty());
        assert_eq!(
            items[1].as_ref().unwrap().block,
            &HTTP_OK[..HTTP_OK.len() - 10]
        );
    }

    #[test]
    fn content_length_far_too_short_is_resynchronised() {
        let body = [HTTP_OK, &[b'x'; 1000][..]].concat();
        let short = record("response", "http://short.example/", &body);
        let short = with_content_length(short, body.len(), "100");
        let mut data = short;
        data.extend_from_slice(&record("response", "http://after.example/", HTTP_OK));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://after.example/"]);
        assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
        assert_eq!(
            items[0].as_ref().unwrap_err().url.as_deref(),
            Some("http://short.example/")
        );
    }

    #[test]
    fn content_length_too_long_gives_back_the_next_record() {
        let mut bad = record("response", "http://long.example/", HTTP_OK);
        let claimed = format!("Content-Length: {}", HTTP_OK.len() + 60);
        let honest = format!("Content-Length: {}", HTTP_OK.len());
        bad = String::from_utf8(bad)
            .unwrap()
            .replace(&honest, &claimed)
            .into_bytes();
        let mut data = bad;
        data.extend_from_slice(&record("response", "http://next.example/", HTTP_OK));
        data.extend_from_slice(&record("response", "http://last.example/", HTTP_OK));
        let items = records_of_bytes(&data);
        assert_eq!(
            urls(&items),
            ["http://next.example/", "http://last.example/"]
        );
        assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
    }

    #[test]
    fn content_length_past_the_end_is_truncation() {
        let data = String::from_utf8(record("resource", "http://x.example/", b"abc"))
            .unwrap()
            .replace("Content-Length: 3", "Content-Length: 3000")
            .into_bytes();
        let items = records_of_bytes(&data);
        let [Ok(kept)] = &items[..] else {
            panic!("one record: {items:?}")
        };
        assert!(kept.truncated);
        assert_eq!(
            kept.block, b"abc\r\n\r\n",
            "the block as read, with the record end"
        );
        // A record the file ends in that holds no page is still a skip.
        let data = String::from_utf8(record("request", "http://x.example/", b"abc"))
            .unwrap()
            .replace("Content-Length: 3", "Content-Length: 3000")
            .into_bytes();
        assert_eq!(
            reasons(&records_of_bytes(&data)),
            [SkipReason::TruncatedRecord]
        );
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
    fn over_cap_record_is_skipped_without_reading() {
        let big = vec![b'x'; 2 << 20];
        let mut data = record("response", "http://big.example/", &big);
        data.extend_from_slice(&record("response", "http://small.example/", HTTP_OK));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://small.example/"]);
        assert_eq!(reasons(&items), [SkipReason::TooLarge]);
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

    #[test]
    fn garbage_between_records_is_skipped() {
        let mut data = record("resource", "http://a.example/", b"one");
        data.extend_from_slice(b"some junk line\n");
        data.extend_from_slice(&record("resource", "http://b.example/", b"two"));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://a.example/", "http://b.example/"]);
        assert!(reasons(&items).is_empty());
    }

    #[test]
    fn missing_target_uri_is_broken() {
        let data = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";
        let items = records_of_bytes(data);
        assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
    }
}
