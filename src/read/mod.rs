//! Read: WARC files or folders of HTML in, [`Record`]s and decoded [`Page`]s out.
//!
//! Reading happens in two steps so that the cheap, sequential part can run on one reader
//! thread and the CPU-heavy part on workers:
//!
//! 1. [`InputSet::records`] walks the inputs in order and yields one [`Record`] per
//!    `response`, `resource` or `conversion` (WET text) record of each WARC file (plain, gzip
//!    per record, or one gzip stream), one per record of each ARC file (told from WARC by its
//!    first bytes, `filedesc://`) and one per `.html`/`.htm` file of each folder. It only frames records: the
//!    block is copied out as stored, nothing is decoded. Every record it passes over or cannot
//!    read comes out as a [`Skip`] with a [`SkipReason`], so callers can count them — except,
//!    in a sampled read ([`InputOptions::sample`]), the records of URLs outside the sample.
//! 2. [`page_from_record`] turns a [`Record`] into a [`Page`]: it parses the HTTP message,
//!    undoes chunked transfer-encoding and gzip/deflate/brotli content-encoding, checks that
//!    the document is HTML and decodes its character set to a `String`.
//!
//! A run that reads its input twice (a two-pass read counts each site's records first) can
//! leave step 1's inflating to the workers too: the first read notes where each item lies
//! ([`RecordPlaces`]), and [`InputSet::placed_records`] then yields each record of a gzip
//! WARC file whose every item has gzip members of its own as a [`MemberRecord`], read where
//! it is prepared ([`PlacedItem::read`]): the same items, in the same order.
//!
//! Nothing here panics on bad input, and no allocation is sized by a header value beyond
//! the caps in [`ReadLimits`] and `max_page_bytes`.

mod arc;
mod charset;
mod framing;
mod http;
mod inputs;
mod page;
mod pending;
mod site;
mod sniff;
mod source;
mod warc;

pub use inputs::{
    Blocks, Cut, InputOptions, InputSet, MemberRecord, PLACE_BYTES, Parts, PlacedItem, ReadLimits,
    RecordItem, RecordLocation, RecordPlaces, UrlSample, Walk,
};
pub use page::page_from_record;
pub use site::{site_of, site_of_url};
pub use warc::{FetchTime, PARTIAL_RECORD_FIELD};

/// What inputs are read, for a run that read nothing.
pub const INPUTS_READ: &str = "inputs are read when they are WARC, WET or ARC files (plain or gzip), .html or .htm files, or folders holding them";

use std::fmt;
use std::path::PathBuf;

/// Where a record came from and what it holds, before any decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// `WARC-Target-URI`, trimmed, surrounding `<>` removed (invalid UTF-8 replaced by
    /// U+FFFD); may contain spaces. For folder input, the file's URL.
    pub url: String,
    /// What [`Record::block`] holds.
    pub kind: RecordKind,
    /// The WARC `Content-Type` of a [`RecordKind::Resource`] record; `None` otherwise.
    pub content_type: Option<String>,
    /// [`RecordKind::Response`]: the whole HTTP message (status line, headers, body) as
    /// stored. [`RecordKind::Resource`] and [`RecordKind::File`]: the document bytes.
    pub block: Vec<u8>,
    /// Byte offset of the record in its file. In a gzip file this is the offset of the gzip
    /// member holding the record's first byte (exact for one member per record). `0` for
    /// folder files.
    pub source_offset: u64,
    /// Bytes from [`Record::source_offset`] to where the next record starts (or the file's
    /// data ends): the record with its trailing newlines, or in a gzip file the members
    /// holding it — the range `curl -r` or a replay tool reads alone. A folder file's whole
    /// size. `None` for records that share a gzip member with others.
    pub source_length: Option<u64>,
    /// Which input (in the order given to [`InputSet::open`], folders expanded to their
    /// files) the record came from.
    pub source_input: u32,
    /// Whether the record is cut short — the file ended inside it, or its `Content-Length`
    /// stops a few bytes before where the record ends: [`Record::block`] holds the part that
    /// was read, kept because it may still hold a usable page (or `indexer partition` wrote it
    /// so, [`PARTIAL_RECORD_FIELD`]).
    pub truncated: bool,
    /// `WARC-Date` as stored (when the page was fetched), or an ARC record's date written
    /// so (`2020-08-08T17:27:41Z`); `None` for folder files.
    pub date: Option<String>,
    /// `WARC-Record-ID` as stored (`<urn:uuid:…>`); `None` for ARC records and folder files.
    pub record_id: Option<String>,
}

/// What kind of bytes a [`Record`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// A WARC `response` record: an HTTP response message.
    Response,
    /// A WARC `resource` record (or a `response` record whose block is not HTTP): a bare
    /// document.
    Resource,
    /// A file read from a folder.
    File,
    /// A WARC `conversion` record (a WET file's): text already extracted from a page, one
    /// paragraph a line. No markup is left, so no template can be told from content.
    Text,
}

/// A decoded HTML page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The record's URL.
    pub url: String,
    /// The page's site, as given by [`site_of`].
    pub site: String,
    /// The document, decoded to UTF-8.
    pub html: String,
    /// Bytes of HTML before character-set decoding (after content decoding).
    pub raw_bytes: usize,
    /// The record's `WARC-Record-ID`, when it has one ([`Record::record_id`]).
    pub record_id: Option<String>,
    /// When the page was fetched, as the record gives it ([`Record::date`]).
    pub date: Option<String>,
    /// The character set the document was decoded from, as `encoding_rs` names it
    /// (`UTF-8`, `windows-1252`, `Shift_JIS`, …).
    pub charset: &'static str,
    /// The page came from a [`RecordKind::Text`] record: [`Page::html`] was made from its
    /// lines, one `<p>` a line, and it has no template to remove.
    pub plain_text: bool,
}

/// Why a record was not turned into a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A record that never holds a page (request, metadata, warcinfo, revisit, conversion,
    /// continuation, ...): passed over on purpose.
    NonPageRecord,
    /// WARC headers that cannot be used: no version line, missing or unreadable
    /// `Content-Length`, a `Content-Length` that does not match where the record ends, ...
    BrokenRecordHeaders,
    /// The file ends inside this record.
    TruncatedRecord,
    /// A record block over `max_record_bytes`, or a decoded body over `max_page_bytes`.
    TooLarge,
    /// A stretch of a gzip file that could not be decompressed; reading went on at the next
    /// gzip member.
    BadCompression,
    /// A `response` block that is not an HTTP response (no status line).
    BadHttpMessage,
    /// An HTTP status outside 200–299.
    HttpStatus,
    /// A body whose `Content-Encoding` could not be undone.
    BadContentEncoding,
    /// A document that is not HTML.
    NotHtml,
    /// A whole file that could not be read: an I/O error, or gzip that does not decompress
    /// before any WARC record.
    UnreadableFile,
    /// A whole file, read, that is not WARC: its first bytes are not a WARC record's (the
    /// detail says what they are, and what kind of file that is when they say so).
    NotWarc,
    /// An HTML document the parser gave up on while segmenting it (met after reading, in
    /// [`crate::segment`]).
    HtmlParserFailed,
}

impl SkipReason {
    /// Every reason, in declaration order.
    pub const ALL: [SkipReason; 12] = [
        SkipReason::NonPageRecord,
        SkipReason::BrokenRecordHeaders,
        SkipReason::TruncatedRecord,
        SkipReason::TooLarge,
        SkipReason::BadCompression,
        SkipReason::BadHttpMessage,
        SkipReason::HttpStatus,
        SkipReason::BadContentEncoding,
        SkipReason::NotHtml,
        SkipReason::UnreadableFile,
        SkipReason::NotWarc,
        SkipReason::HtmlParserFailed,
    ];

    /// A stable snake_case name, e.g. `"truncated_record"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::NonPageRecord => "non_page_record",
            SkipReason::BrokenRecordHeaders => "broken_record_headers",
            SkipReason::TruncatedRecord => "truncated_record",
            SkipReason::TooLarge => "too_large",
            SkipReason::BadCompression => "bad_compression",
            SkipReason::BadHttpMessage => "bad_http_message",
            SkipReason::HttpStatus => "http_status",
            SkipReason::BadContentEncoding => "bad_content_encoding",
            SkipReason::NotHtml => "not_html",
            SkipReason::UnreadableFile => "unreadable_file",
            SkipReason::NotWarc => "not_warc",
            SkipReason::HtmlParserFailed => "html_parser",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A record (or a whole file) passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// Why it was passed over.
    pub reason: SkipReason,
    /// The record's URL, when it was known.
    pub url: Option<String>,
    /// What was wrong, in words (where is [`input`](Self::input) and
    /// [`offset`](Self::offset)).
    pub detail: String,
    /// The input it came from (in the order of [`InputSet::open`]).
    pub input: u32,
    /// Its byte offset in that input, when a record was found (not for a whole file).
    pub offset: Option<u64>,
    /// A record passed over on purpose that lies in gzip members of its own: none holds
    /// bytes of the item before it, and nothing but blank bytes follows its block in them,
    /// so that reading those members alone gives this skip again (set by the WARC reader;
    /// `false` for every other skip).
    pub(crate) readable_alone: bool,
}

impl Skip {
    pub(crate) fn new(reason: SkipReason, url: Option<String>, detail: impl Into<String>) -> Skip {
        Skip {
            reason,
            url,
            detail: detail.into(),
            input: 0,
            offset: None,
            readable_alone: false,
        }
    }

    /// The same skip, of a record that can be read alone ([`Skip::readable_alone`]).
    pub(crate) fn into_readable_alone(self) -> Skip {
        Skip {
            readable_alone: true,
            ..self
        }
    }

    /// The same skip, located in input `input` at `offset`.
    pub fn at(self, input: u32, offset: Option<u64>) -> Skip {
        Skip {
            input,
            offset,
            ..self
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)?;
        if let Some(url) = &self.url {
            write!(f, " ({url})")?;
        }
        Ok(())
    }
}

/// Why the inputs of a run could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// An input path does not exist.
    #[error("input not found: {}", path.display())]
    NotFound {
        /// The missing path.
        path: PathBuf,
    },
    /// An input path exists but cannot be read (permission denied, I/O error, ...).
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Standard input (`-`) was named twice: it can be read once.
    #[error("standard input (-) is named more than once")]
    StandardInputTwice,
    /// An input is neither a regular file nor a folder.
    #[error("not a file or folder: {}", path.display())]
    NotFileOrFolder {
        /// The offending path.
        path: PathBuf,
    },
    /// The base URL given for folder input does not parse.
    #[error("invalid base URL {url:?}: {source}")]
    BadBaseUrl {
        /// The URL as given.
        url: String,
        /// Why it does not parse.
        #[source]
        source: url::ParseError,
    },
    /// A folder path that cannot be turned into a `file:` URL.
    #[error("cannot make a file: URL for {}", path.display())]
    NoFileUrl {
        /// The folder.
        path: PathBuf,
    },
}

/// The records of a WARC or ARC file (plain or gzip) held in memory, read by exactly the code that
/// [`InputSet::records`] runs over a file on disk. For fuzz targets and regression tests:
/// an empty buffer yields nothing, as an empty file does; skip details name `<memory>`.
///
/// The bytes go through an unnamed temporary file rather than an anonymous map: the reader
/// releases the pages it has read, and released pages of an anonymous map would read back
/// as zeros where a file's are read again from the file.
#[doc(hidden)]
pub fn records_in_bytes(bytes: &[u8], max_record_bytes: usize) -> Vec<Result<Record, Skip>> {
    records_in_bytes_with(bytes, max_record_bytes, Blocks::Read)
}

/// [`records_in_bytes`], their blocks read as `blocks` says.
#[doc(hidden)]
pub fn records_in_bytes_with(
    bytes: &[u8],
    max_record_bytes: usize,
    blocks: Blocks,
) -> Vec<Result<Record, Skip>> {
    if bytes.is_empty() {
        return Vec::new();
    }
    let map = tempfile::tempfile().and_then(|mut file| {
        std::io::Write::write_all(&mut file, bytes)?;
        // SAFETY: the file is unnamed and private to this call; nothing changes it while
        // it is mapped.
        unsafe { memmap2::Mmap::map(&file) }
    });
    match map {
        Ok(map) => framing::FileRecords::starting_at(map, 0, 0, max_record_bytes)
            .with_blocks(blocks)
            .collect(),
        Err(error) => vec![Err(Skip::new(
            SkipReason::UnreadableFile,
            None,
            error.to_string(),
        ))],
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use std::io::Write;
    use std::path::PathBuf;

    /// Path of a fixture file in `tests/data/fixtures/`.
    pub fn fixture(name: &str) -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fixtures")).join(name)
    }

    /// A WARC/1.0 record of type `record_type` for `uri` holding `block`.
    pub fn record(record_type: &str, uri: &str, block: &[u8]) -> Vec<u8> {
        let mut out = format!(
            "WARC/1.0\r\nWARC-Type: {record_type}\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        out.extend_from_slice(block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    /// `bytes` as one gzip member.
    pub fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_reason_names_are_unique_snake_case() {
        let mut names: Vec<&str> = SkipReason::ALL.iter().map(|r| r.as_str()).collect();
        for name in &names {
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SkipReason::ALL.len());
        assert_eq!(SkipReason::TruncatedRecord.as_str(), "truncated_record");
    }

    #[test]
    fn records_in_bytes_match_records_of_the_file() {
        for name in [
            "warcio-example.warc.gz",
            "warcio-example-trunc.warc",
            "resiliparse-clipped.warc.gz",
        ] {
            let path = test_support::fixture(name);
            let from_file: Vec<_> = InputSet::open(std::slice::from_ref(&path), None)
                .unwrap()
                .records()
                .map(|item| item.map(|record| record.block).map_err(|skip| skip.reason))
                .collect();
            let bytes = std::fs::read(&path).unwrap();
            let from_memory: Vec<_> =
                records_in_bytes(&bytes, ReadLimits::default().max_record_bytes)
                    .into_iter()
                    .map(|item| item.map(|record| record.block).map_err(|skip| skip.reason))
                    .collect();
            assert_eq!(from_memory, from_file, "{name}");
        }
        assert!(records_in_bytes(b"", 1 << 20).is_empty());
    }

    #[test]
    fn skip_reason_all_is_in_declaration_order() {
        let mut sorted = SkipReason::ALL;
        sorted.sort();
        assert_eq!(sorted, SkipReason::ALL);
    }
}
