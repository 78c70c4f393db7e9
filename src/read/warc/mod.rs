//! WARC record framing.
//!
//! In: the decompressed [`Stream`] of one WARC file (1.0, 1.1 or the 0.18 dialect of
//! ClueWeb). Out: a [`WarcRecords`] iterator of [`Record`]s for `response`, `resource` and
//! plain-text `conversion` records (a WET file's), and [`Skip`]s for everything passed over
//! or broken.
//!
//! Each record is read by its `Content-Length`, then the parser checks that the next record
//! (or the end of the file) follows. When a length lies, the parser recovers: if the block it
//! read contains the start of the next record, those bytes are read again as a record;
//! otherwise it moves on to the next line that starts with `WARC/` (`resync`). The header
//! block of a record is parsed in `headers`.

mod date;
mod headers;
mod resync;

pub use date::FetchTime;
pub use headers::PARTIAL_RECORD_FIELD;

use super::pending::PendingItems;
use super::source::{Fault, HeaderEnd, Stream};
use super::{Record, RecordKind, Skip, SkipReason};
use headers::{WarcHeaders, clean_target_uri};
use resync::find_embedded_record;

/// Longest WARC header block accepted.
const MAX_HEADER_BYTES: usize = 256 * 1024;

/// What to do with a record once its headers are read.
enum Disposition {
    Keep(RecordKind),
    PassOver,
}

impl Disposition {
    /// A `response` record is kept as an HTTP response (as a bare document when its
    /// `Content-Type` says it is not HTTP), a `resource` record as a document, a `conversion`
    /// record of `text/plain` (or of no type: WET) as plain text; any other record is passed
    /// over.
    fn of(record_type: &str, content_type: Option<&str>) -> Disposition {
        match record_type {
            "response" => {
                let is_http = content_type.is_none_or(|ct| {
                    ct.to_ascii_lowercase().contains("application/http") || ct.trim().is_empty()
                });
                Disposition::Keep(if is_http {
                    RecordKind::Response
                } else {
                    RecordKind::Resource
                })
            }
            "resource" => Disposition::Keep(RecordKind::Resource),
            "conversion" => {
                let plain_text = content_type.is_none_or(|ct| {
                    let ct = ct.trim().to_ascii_lowercase();
                    ct.is_empty() || ct.starts_with("text/plain")
                });
                if plain_text {
                    Disposition::Keep(RecordKind::Text)
                } else {
                    Disposition::PassOver
                }
            }
            _ => Disposition::PassOver,
        }
    }
}

/// The records of one WARC file.
pub(crate) struct WarcRecords {
    stream: Stream,
    /// Which input of its [`super::InputSet`] the file is ([`Record::source_input`]).
    input: u32,
    max_record_bytes: usize,
    /// Items produced and not yet handed out.
    pending: PendingItems,
    /// No record has been seen yet: a bad start means the file is not WARC.
    at_first_record: bool,
    /// The next record may start right here (set after a gzip fault).
    at_line_start: bool,
    /// Damage met before the first record (where, and what): reported as a skip once a record
    /// is found, or as the reason the whole file is unreadable if none is.
    damage_before_first_record: Option<(u64, String)>,
    finished: bool,
    /// Blocks that end their gzip member are passed over, not read
    /// ([`Blocks::MayBeLeftOut`](crate::read::Blocks::MayBeLeftOut)).
    leave_out_blocks: bool,
}

impl WarcRecords {
    /// The records of `stream`, input number `input`.
    pub(crate) fn new(stream: Stream, input: u32, max_record_bytes: usize) -> Self {
        let junk = stream.leading_junk();
        let damage_before_first_record = (junk > 0).then(|| {
            let message = format!("{junk} bytes before the first gzip member are not gzip");
            (0, message)
        });
        WarcRecords {
            stream,
            input,
            max_record_bytes,
            pending: PendingItems::default(),
            at_first_record: true,
            at_line_start: true,
            damage_before_first_record,
            finished: false,
            leave_out_blocks: false,
        }
    }

    /// The same records, each whose block ends its gzip member with an empty block: see
    /// [`Blocks::MayBeLeftOut`](crate::read::Blocks::MayBeLeftOut).
    pub(crate) fn leaving_out_blocks(mut self) -> Self {
        self.stream.fills_in_small_steps();
        self.leave_out_blocks = true;
        self
    }

    /// The buffer its stream decoded into ([`Stream::into_buffer`]).
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.stream.into_buffer()
    }

    /// Queues the skip of a record passed over on purpose; `alone`: reading its gzip members
    /// alone gives it again ([`Skip::readable_alone`]).
    fn skip_passed_over(
        &mut self,
        reason: SkipReason,
        url: Option<String>,
        offset: u64,
        message: &str,
        alone: bool,
    ) {
        let skip = Skip::new(reason, url, message).at(self.input, Some(offset));
        self.pending.push_skip(if alone {
            skip.into_readable_alone()
        } else {
            skip
        });
    }

    fn skip(&mut self, reason: SkipReason, url: Option<String>, offset: u64, message: &str) {
        let skip = Skip::new(reason, url, message).at(self.input, Some(offset));
        self.pending.push_skip(skip);
    }

    /// Skips the whole file (nothing in it could be read as a record), and stops reading it.
    fn skip_file(&mut self, reason: SkipReason, message: &str) {
        let skip = Skip::new(reason, None, message).at(self.input, None);
        self.pending.push_skip(skip);
        self.finished = true;
    }

    /// Records a gzip fault: the damaged stretch is reported and reading goes on at the next
    /// member. Before the first record, the report waits: it is the reason the file is
    /// unreadable if no record follows.
    fn fault(&mut self, fault: Fault, url: Option<String>, offset: u64) {
        let message = fault.message();
        if self.at_first_record && url.is_none() {
            self.damage_before_first_record
                .get_or_insert_with(|| (offset, message.to_string()));
        } else {
            self.skip(SkipReason::BadCompression, url, offset, message);
        }
        self.at_line_start = true;
    }

    /// Ends a file in which no record was found: unreadable when it was damaged, otherwise
    /// not WARC (`message` says what it starts with).
    fn no_record_in_file(&mut self, message: &str) {
        match self.damage_before_first_record.take() {
            Some((_, damage)) => self.skip_file(SkipReason::UnreadableFile, &damage),
            None => self.skip_file(SkipReason::NotWarc, message),
        }
    }

    /// Reads one record, or passes over one stretch of damage, queueing what comes out.
    fn step(&mut self) {
        // Where the item before ended: a record whose gzip member starts before it shares
        // that member with the item.
        let item_before_ends = self.stream.position();
        if let Err(fault) = self.stream.skip_whitespace() {
            let offset = self.stream.file_offset();
            return self.fault(fault, None, offset);
        }
        let offset = self.stream.file_offset();
        let own_members = self
            .stream
            .member_start_position()
            .is_none_or(|start| start >= item_before_ends);
        if !self.stream.available().is_empty() {
            // The next record starts here: the records before it end here.
            if own_members {
                self.pending.close(offset);
            } else {
                self.pending.close_sharing();
            }
        }
        let starts_with_version = match self.stream.ensure(5) {
            Ok(0) => {
                if self.stream.truncated() && self.at_first_record {
                    self.skip_file(
                        SkipReason::UnreadableFile,
                        "gzip stream ends before any WARC record",
                    );
                } else if let Some((_, damage)) = self.damage_before_first_record.take() {
                    self.skip_file(SkipReason::UnreadableFile, &damage);
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
                self.find_first_record(offset);
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
        if let Some((at, damage)) = self.damage_before_first_record.take() {
            self.skip(SkipReason::BadCompression, None, at, &damage);
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
        self.read_block(headers, offset, own_members);
    }

    /// Reads (or skips) the block of a record whose headers are parsed.
    fn read_block(&mut self, headers: WarcHeaders, offset: u64, own_members: bool) {
        let length = headers.content_length();
        let head = RecordHead::of(headers, offset, own_members);
        let length = match length {
            Ok(length) => length,
            Err(message) => {
                self.skip(SkipReason::BrokenRecordHeaders, head.url, offset, &message);
                return self.resync();
            }
        };
        if length > self.max_record_bytes as u64 {
            self.pass_over_block(head, length);
        } else {
            self.read_framed_block(head, length);
        }
    }

    /// Skips, unread, the `length` bytes of a block over `max_record_bytes`: too large for a
    /// record that may hold a page, passed over for any other.
    fn pass_over_block(&mut self, head: RecordHead, length: u64) {
        let RecordHead {
            disposition,
            url,
            record_type,
            offset,
            own_members,
            ..
        } = head;
        let message = format!(
            "{record_type} record of {length} bytes is over the limit of {} bytes",
            self.max_record_bytes
        );
        let reason = match disposition {
            Disposition::Keep(_) => SkipReason::TooLarge,
            Disposition::PassOver => SkipReason::NonPageRecord,
        };
        let passed = self.leave_out_blocks && self.stream.pass_over_to_member_end(length);
        let skipped = if passed {
            Ok(true)
        } else {
            self.stream.skip(length)
        };
        match skipped {
            Ok(true) => {
                let junk = self.junk_before_next_record();
                let alone = own_members && matches!(junk, Ok(Some(0)));
                self.skip_passed_over(reason, url, offset, &message, alone);
                match junk {
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
    }

    /// Reads the `length` bytes of a block and checks that the next record (or the end of
    /// the file) follows them.
    fn read_framed_block(&mut self, head: RecordHead, length: u64) {
        let offset = head.offset;
        // Grow with the data rather than trusting the header for the allocation.
        let mut block = Vec::with_capacity(usize::try_from(length).unwrap_or(0).min(1 << 20));
        let passed = self.leave_out_blocks && self.stream.pass_over_to_member_end(length);
        let complete = if passed {
            true
        } else {
            match self.stream.read_into(length, &mut block) {
                Ok(complete) => complete,
                Err(fault) => return self.fault(fault, head.url, offset),
            }
        };
        let junk = if complete {
            // The gzip member holding the block's end (the file offset of a plain file's
            // next byte, which no fault names).
            let member = self.stream.file_offset();
            match self.junk_before_next_record() {
                Ok(junk) => junk,
                Err(Fault::BrokenMember {
                    member: broken,
                    checksum: true,
                    message,
                }) if broken == member => {
                    // The member that holds the record fails its checksum: the block is not
                    // known good, and the record is skipped.
                    let message = format!("the record's {message}");
                    self.skip(SkipReason::BadCompression, head.url, offset, &message);
                    self.at_line_start = true;
                    return;
                }
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
            // the writer left junk). Keep the record as its length frames it, as cut short:
            // the build keeps it when the part framed is a page with text, and skips it as
            // truncated otherwise.
            self.emit(head, block, true);
            self.stream.consume(junk);
            return;
        }
        self.recover_from_misframed_block(head, block, length, complete, embedded);
    }

    /// Deals with a block that does not end where a record ends: the `Content-Length`
    /// lies, or the file is cut short. `complete`: all `length` bytes were read;
    /// `embedded`: where a record starts inside the block.
    fn recover_from_misframed_block(
        &mut self,
        head: RecordHead,
        block: Vec<u8>,
        length: u64,
        complete: bool,
        embedded: Option<usize>,
    ) {
        let offset = head.offset;
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
            record_id,
            partial,
            offset,
            own_members,
        } = head;
        match disposition {
            Disposition::PassOver => {
                let name = if record_type.is_empty() {
                    "untyped"
                } else {
                    &record_type
                };
                let message = format!("{name} record");
                let alone = own_members && !truncated;
                self.skip_passed_over(SkipReason::NonPageRecord, url, offset, &message, alone);
            }
            Disposition::Keep(kind) => match url {
                Some(url) if !url.is_empty() => {
                    let content_type = match kind {
                        RecordKind::Response => None,
                        RecordKind::Resource | RecordKind::File | RecordKind::Text => content_type,
                    };
                    self.pending.push_record(
                        Record {
                            url,
                            kind,
                            content_type,
                            block,
                            source_offset: offset,
                            source_length: None,
                            source_input: self.input,
                            truncated: truncated || partial,
                            date,
                            record_id,
                        },
                        own_members,
                    );
                }
                _ => {
                    let message = format!("{record_type} record without WARC-Target-URI");
                    self.skip(SkipReason::BrokenRecordHeaders, None, offset, &message);
                }
            },
        }
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
    record_id: Option<String>,
    /// The record was written from a partial one ([`PARTIAL_RECORD_FIELD`]).
    partial: bool,
    offset: u64,
    /// It starts in a gzip member of its own (or a plain file): no bytes of the item before
    /// it share its first member.
    own_members: bool,
}

impl RecordHead {
    /// What the headers of the record at `offset` say.
    fn of(headers: WarcHeaders, offset: u64, own_members: bool) -> RecordHead {
        let record_type = headers
            .record_type
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();
        RecordHead {
            disposition: Disposition::of(&record_type, headers.content_type.as_deref()),
            url: headers.target_uri.as_deref().map(clean_target_uri),
            record_type,
            content_type: headers.content_type,
            date: headers.date,
            record_id: headers.record_id,
            partial: headers.partial.is_some(),
            offset,
            own_members,
        }
    }
}

impl Iterator for WarcRecords {
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

/// Why a file that starts with `bytes` is not WARC: what it starts with, and what kind of
/// file that is when its first bytes say so.
fn not_warc(bytes: &[u8]) -> String {
    const KINDS: [(&[u8], &str); 5] = [
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
    ];
    let head = &bytes[..bytes.len().min(16)];
    let lower = head.to_ascii_lowercase();
    let kind = KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|&(_, kind)| kind)
        .or_else(|| {
            (lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html"))
                .then_some("an HTML page (a file named .html or .htm is read as one page)")
        });
    let shown = head.escape_ascii();
    match kind {
        Some(kind) => format!("not a WARC file, starts with \"{shown}\": {kind}"),
        None => format!("not a WARC file, starts with \"{shown}\""),
    }
}

/// What the tests of the reader and of its parts share: reading bytes or a fixture, and
/// writing a record.
#[cfg(test)]
mod test_support {
    use super::*;
    use crate::read::test_support::fixture;
    use std::io::Write;

    /// The items of a WARC file holding `bytes`, named `test.warc`.
    pub(super) fn records_of_bytes(bytes: &[u8]) -> Vec<Result<Record, Skip>> {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        // SAFETY: the temporary file is private to this test and not modified while mapped.
        let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
        WarcRecords::new(Stream::new(map), 0, 1 << 20).collect()
    }

    pub(super) fn records_of_fixture(name: &str) -> Vec<Result<Record, Skip>> {
        records_of_bytes(&std::fs::read(fixture(name)).unwrap())
    }

    pub(super) fn reasons(items: &[Result<Record, Skip>]) -> Vec<SkipReason> {
        items
            .iter()
            .filter_map(|item| item.as_ref().err().map(|skip| skip.reason))
            .collect()
    }

    pub(super) fn urls(items: &[Result<Record, Skip>]) -> Vec<&str> {
        items
            .iter()
            .filter_map(|item| item.as_ref().ok().map(|r| r.url.as_str()))
            .collect()
    }

    pub(super) use crate::read::test_support::record;

    pub(super) const HTTP_OK: &[u8] =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>";
}

#[cfg(test)]
mod tests {
    use super::test_support::{
        HTTP_OK, reasons, record, records_of_bytes, records_of_fixture, urls,
    };
    use super::*;
    use crate::read::test_support::fixture;
    use std::io::Write;

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
    fn record_split_over_gzip_members_is_read_whole() {
        let items = records_of_fixture("warcio-example-wrong-chunks.warc.gz");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord]);
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
    fn text_and_binary_garbage_are_not_warc_and_say_what_they_start_with() {
        for (garbage, detail) in [
            (
                &b"Just some text,\nnot a WARC file at all.\n"[..],
                r#"not a WARC file, starts with "Just some text,\n""#,
            ),
            (
                &[0x00, 0xff, 0x13, 0x37, 0x80, 0x7f, 0xfe, 0x01, 0x02][..],
                r#"not a WARC file, starts with "\x00\xff\x137\x80\x7f\xfe\x01\x02""#,
            ),
            (
                &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01"[..],
                r#"not a WARC file, starts with "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR": a PNG image"#,
            ),
        ] {
            let items = records_of_bytes(garbage);
            assert_eq!(reasons(&items), [SkipReason::NotWarc], "{garbage:?}");
            let Err(skip) = &items[0] else { unreachable!() };
            assert_eq!(skip.detail, detail);
        }
    }

    #[test]
    fn a_damaged_gzip_file_is_unreadable() {
        let items = records_of_bytes(&[
            0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x12,
        ]);
        assert_eq!(reasons(&items), [SkipReason::UnreadableFile]);
    }

    #[test]
    fn gzip_of_html_is_not_warc_and_says_it_is_a_page() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"<html>not a warc</html>").unwrap();
        let items = records_of_bytes(&encoder.finish().unwrap());
        assert_eq!(reasons(&items), [SkipReason::NotWarc]);
        let Err(skip) = &items[0] else { unreachable!() };
        assert!(
            skip.detail
                .ends_with("an HTML page (a file named .html or .htm is read as one page)")
        );
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
    fn over_cap_record_is_skipped_without_reading() {
        let big = vec![b'x'; 2 << 20];
        let mut data = record("response", "http://big.example/", &big);
        data.extend_from_slice(&record("response", "http://small.example/", HTTP_OK));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://small.example/"]);
        assert_eq!(reasons(&items), [SkipReason::TooLarge]);
    }

    #[test]
    fn missing_target_uri_is_broken() {
        let data = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";
        let items = records_of_bytes(data);
        assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
    }

    #[test]
    fn plain_text_conversion_records_are_text_and_other_conversions_passed_over() {
        let typed = |content_type: &str| {
            let block = b"some text";
            let mut out = format!(
                "WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: http://a/\r\n\
                 WARC-Record-ID: <urn:uuid:7>\r\nContent-Type: {content_type}\r\n\
                 Content-Length: {}\r\n\r\n",
                block.len()
            )
            .into_bytes();
            out.extend_from_slice(block);
            out.extend_from_slice(b"\r\n\r\n");
            out
        };
        let data = [
            typed("text/plain"),
            typed("application/pdf"),
            record("conversion", "http://b/", b"untyped text"),
        ]
        .concat();
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://a/", "http://b/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord]);
        let text = items[0].as_ref().unwrap();
        assert_eq!(text.kind, RecordKind::Text);
        assert_eq!(text.record_id.as_deref(), Some("<urn:uuid:7>"));
    }
}
