//! The bytes of one memory-mapped WARC file as a single stream, whether the file is plain
//! or gzip (one member per record, one member for the whole file, or anything between).
//!
//! In: a [`memmap2::Mmap`]. Out: a [`Stream`], a buffered window over the decompressed
//! bytes with the few operations the WARC parser needs (peek, consume, copy out, skip,
//! push back, pass over the rest of a gzip member undecoded), plus a mapping from stream
//! positions to file offsets.
//!
//! Gzip members are decoded one at a time, so the offset of the member that holds a record
//! is known, and a member that fails to decode can be stepped over: decoding resumes at the
//! next gzip header in the file.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::Arc;

use flate2::bufread::GzDecoder;
use memmap2::Mmap;

/// The first bytes of every gzip member: magic number and the deflate method.
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// How much the [`Stream`] asks its source for at a time.
const CHUNK: usize = 256 * 1024;

/// How much a [`Stream`] that [`fills_in_small_steps`](Stream::fills_in_small_steps) asks
/// for at a time: a record's WARC headers, a few hundred bytes, and some of its block.
const SMALL_STEP: usize = 4 * 1024;

/// Bytes after a record's block and before the end of its gzip member (the blank line that
/// ends a record, `\r\n\r\n`) that [`Stream::pass_over_to_member_end`] takes as read.
const MAX_RECORD_TRAILER: u64 = 4;

/// Blocks in a row that [`Stream::pass_over_to_member_end`] could not pass over before it
/// stops trying: in a file whose members do not end with its records, trying costs more
/// than it saves.
const MAX_FAILED_PASSES: u32 = 8;

/// Bytes of a mapped file read between two releases of its pages.
const RELEASE_EVERY: usize = 32 << 20;

/// The granularity of page releases (a multiple of every common page size).
const PAGE: usize = 64 << 10;

/// Something wrong with the file itself, met while reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A stretch of a gzip file that is not gzip. The source has already moved on to the
    /// next gzip member (if any); the bytes in between are lost.
    Corrupt(String),
    /// The gzip member starting at file offset `member` does not decode, or its data fails
    /// its checksum. The source has moved on as for [`Fault::Corrupt`].
    BrokenMember {
        /// File offset of the member.
        member: u64,
        /// The member's data was all read and fails its CRC-32 or length check: every byte
        /// of it is in doubt, not only those after the damage.
        checksum: bool,
        /// What is wrong.
        message: String,
    },
}

impl Fault {
    /// What is wrong, in words.
    pub(crate) fn message(&self) -> &str {
        match self {
            Fault::Corrupt(message) | Fault::BrokenMember { message, .. } => message,
        }
    }
}

/// The bytes of a mapped file as a cursor, so that a gzip decoder can own its input.
struct MapCursor {
    map: Arc<Mmap>,
    pos: usize,
}

impl MapCursor {
    fn rest(&self) -> &[u8] {
        self.map.get(self.pos..).unwrap_or_default()
    }
}

impl Read for MapCursor {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.rest();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for MapCursor {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(self.rest())
    }

    fn consume(&mut self, amount: usize) {
        self.pos = self.pos.saturating_add(amount).min(self.map.len());
    }
}

/// Where the decompressed bytes come from.
enum Source {
    /// An uncompressed file: stream positions are file offsets.
    Plain(MapCursor),
    /// A gzip file, decoded member by member.
    Gzip(Box<GzipMembers>),
}

/// A gzip file decoded one member at a time.
struct GzipMembers {
    map: Arc<Mmap>,
    /// The member being decoded, if any.
    decoder: Option<GzDecoder<MapCursor>>,
    /// File offset of the member being decoded, or of the next one to start.
    member_offset: usize,
    /// File offset from which no member is started: the file's length, or the end of the
    /// members a stream was asked for ([`Stream::members_between`]).
    members_end: usize,
    /// `(stream position, file offset)` of each member start not yet forgotten, oldest
    /// first.
    member_starts: VecDeque<(u64, u64)>,
    /// Decompressed bytes produced so far.
    produced: u64,
    /// The file ended inside a member.
    truncated: bool,
    finished: bool,
}

impl GzipMembers {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Fault> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.finished {
                return Ok(0);
            }
            let Some(decoder) = &mut self.decoder else {
                self.start_member()?;
                continue;
            };
            match decoder.read(buf) {
                Ok(0) => {
                    let end = decoder.get_ref().pos;
                    self.decoder = None;
                    // A member always spans at least its header; never loop in place.
                    self.member_offset = end.max(self.member_offset + 1);
                }
                Ok(n) => {
                    self.produced += n as u64;
                    return Ok(n);
                }
                Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                    self.decoder = None;
                    self.truncated = true;
                    self.finished = true;
                    return Ok(0);
                }
                Err(error) => {
                    let broken_at = self.member_offset;
                    self.decoder = None;
                    match find_member(&self.map, broken_at + 1) {
                        Some(next) => self.member_offset = next,
                        None => self.finished = true,
                    }
                    // flate2 has no error type of its own; its checksum error says so.
                    let checksum = error.to_string().contains("checksum");
                    return Err(Fault::BrokenMember {
                        member: broken_at as u64,
                        checksum,
                        message: format!(
                            "gzip member at offset {broken_at} does not decode: {error}"
                        ),
                    });
                }
            }
        }
    }

    /// Starts decoding the member at `member_offset`, or finds out that there is none.
    fn start_member(&mut self) -> Result<(), Fault> {
        let rest = self.map.get(self.member_offset..).unwrap_or_default();
        if rest.is_empty() || self.member_offset >= self.members_end {
            self.finished = true;
            return Ok(());
        }
        if !rest.starts_with(&GZIP_MAGIC) {
            // Padding after the last member is harmless; anything else is damage.
            if rest.iter().all(|&b| b == 0 || b.is_ascii_whitespace()) {
                self.finished = true;
                return Ok(());
            }
            let at = self.member_offset;
            return match find_member(&self.map, at + 1) {
                Some(next) => {
                    self.member_offset = next;
                    Err(Fault::Corrupt(format!(
                        "{} bytes that are not gzip at offset {at}",
                        next - at
                    )))
                }
                None => {
                    self.finished = true;
                    Err(Fault::Corrupt(format!(
                        "{} trailing bytes that are not gzip at offset {at}",
                        rest.len()
                    )))
                }
            };
        }
        self.member_starts
            .push_back((self.produced, self.member_offset as u64));
        let cursor = MapCursor {
            map: Arc::clone(&self.map),
            pos: self.member_offset,
        };
        self.decoder = Some(GzDecoder::new(cursor));
        Ok(())
    }

    fn file_offset(&mut self, stream_pos: u64) -> u64 {
        // Forget members that start before the one holding `stream_pos`: callers ask about
        // ever later positions.
        while self
            .member_starts
            .get(1)
            .is_some_and(|&(start, _)| start <= stream_pos)
        {
            self.member_starts.pop_front();
        }
        self.member_starts
            .front()
            .map_or(self.member_offset as u64, |&(_, offset)| offset)
    }
}

/// Offset of the next plausible gzip member header at or after `from`.
fn find_member(map: &[u8], from: usize) -> Option<usize> {
    let rest = map.get(from..)?;
    memchr::memmem::find_iter(rest, &GZIP_MAGIC)
        .find(|&at| rest.get(at + 3).is_some_and(|flags| flags & 0xe0 == 0))
        .map(|at| from + at)
}

/// Whether a file starts like gzip.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC[..2])
}

/// How far into a file the reader looks for where its records start, past leading junk: a
/// WARC version line, or (in a file that starts as neither) a gzip member. Junk before the
/// first record is a partial write or a header some tool put there, a few hundred bytes; a
/// file with no record start in its first 64 KiB is not taken for WARC.
pub(crate) const LEADING_JUNK_LOOKAHEAD: usize = 64 * 1024;

/// Where the gzip members of the file `map` start: 0 for a file that starts as gzip; for a
/// file that starts with junk, the first gzip member within [`LEADING_JUNK_LOOKAHEAD`] bytes
/// that decodes, when no WARC version line comes before it; `None` for a plain file.
fn gzip_start(map: &[u8]) -> Option<usize> {
    if is_gzip(map) {
        return Some(0);
    }
    let head = &map[..map.len().min(LEADING_JUNK_LOOKAHEAD)];
    let text = head.trim_ascii_start();
    if text.starts_with(b"WARC/") {
        return None;
    }
    let member = find_member(head, 1)?;
    let version_line = head.windows(6).position(|w| w == b"\nWARC/");
    if version_line.is_some_and(|line| line < member) {
        return None;
    }
    let mut first = [0u8; 16];
    let decodes = GzDecoder::new(&map[member..])
        .read(&mut first)
        .is_ok_and(|n| n > 0);
    decodes.then_some(member)
}

/// How far past the offset it is given [`record_start_near`] looks for a record start.
const RECORD_START_LOOKAHEAD: usize = 4 << 20;

/// A record start at or after file offset `from` of the file `map`, found by looking at the
/// bytes there rather than by reading every record up to them: in a gzip file, a gzip member
/// whose first bytes decode to a WARC version line; in a plain file, a WARC version line
/// after a blank line. `None` when there is none within [`RECORD_START_LOOKAHEAD`] bytes.
///
/// What it finds is a guess: a member may hold the tail of an earlier record, and a page may
/// quote a version line. A reader that starts there must check that it meets the records a
/// read from the file's start meets.
pub(crate) fn record_start_near(map: &[u8], from: usize) -> Option<u64> {
    let end = map.len().min(from.saturating_add(RECORD_START_LOOKAHEAD));
    let window = map.get(..end)?;
    if gzip_start(map).is_none() {
        let marker = b"\r\n\r\nWARC/1.";
        let at = window
            .get(from..)?
            .windows(marker.len())
            .position(|w| w == marker)?;
        return Some((from + at + 4) as u64);
    }
    let mut look_from = from;
    while let Some(member) = find_member(window, look_from) {
        let mut first = [0u8; 5];
        if GzDecoder::new(&map[member..])
            .read_exact(&mut first)
            .is_ok()
            && &first == b"WARC/"
        {
            return Some(member as u64);
        }
        look_from = member + 1;
    }
    None
}

/// A buffered window over the decompressed bytes of one file.
pub(crate) struct Stream {
    source: Source,
    buf: Vec<u8>,
    /// `buf[start..end]` holds the bytes not yet consumed.
    start: usize,
    end: usize,
    /// Stream position of `buf[start]`.
    pos: u64,
    eof: bool,
    /// File offset below which the map's pages have been released.
    released: usize,
    /// [`Stream::leading_junk`].
    leading_junk: u64,
    /// Each fill asks for [`SMALL_STEP`] bytes rather than [`CHUNK`].
    small_steps: bool,
    /// Blocks in a row not passed over by [`Stream::pass_over_to_member_end`].
    failed_passes: u32,
}

impl Stream {
    /// A stream over `map`, decompressing it if it starts like gzip.
    #[cfg(test)]
    pub(crate) fn new(map: Mmap) -> Stream {
        Stream::starting_at(map, 0)
    }

    /// A stream over `map` from file offset `offset` (in a gzip file, the start of a member).
    pub(crate) fn starting_at(map: Mmap, offset: u64) -> Stream {
        let end = map.len();
        Stream::over(Arc::new(map), offset, end, Vec::new())
    }

    /// A stream over the gzip members of `map` from file offset `offset` to file offset
    /// `end`, both member starts (or `end` the file's end), in a map that other streams may
    /// read too: a record read alone, without decoding the member after it. It decodes into
    /// `buffer` (whatever it holds), which [`into_buffer`](Self::into_buffer) gives back, so
    /// that one thread reading many records sizes and clears its buffer once.
    pub(crate) fn members_between(
        map: Arc<Mmap>,
        offset: u64,
        end: u64,
        buffer: Vec<u8>,
    ) -> Stream {
        let end = usize::try_from(end).unwrap_or(usize::MAX).min(map.len());
        Stream::over(map, offset, end, buffer)
    }

    /// The buffer the stream decoded into.
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// A stream over `map` from file offset `offset`, decoding into `buf`; in a gzip file, no
    /// member is started at or past `members_end`.
    fn over(map: Arc<Mmap>, offset: u64, members_end: usize, buf: Vec<u8>) -> Stream {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX).min(map.len());
        let mut pos = 0;
        let gzip_start = gzip_start(&map);
        let leading_junk = match gzip_start {
            Some(start) if offset == 0 => start as u64,
            _ => 0,
        };
        let source = if let Some(start) = gzip_start {
            Source::Gzip(Box::new(GzipMembers {
                map,
                decoder: None,
                member_offset: offset.max(start),
                members_end,
                member_starts: VecDeque::new(),
                produced: 0,
                truncated: false,
                finished: false,
            }))
        } else {
            pos = offset as u64;
            Source::Plain(MapCursor { map, pos: offset })
        };
        Stream {
            source,
            buf,
            start: 0,
            end: 0,
            pos,
            eof: false,
            released: offset / PAGE * PAGE,
            leading_junk,
            small_steps: false,
            failed_passes: 0,
        }
    }

    /// Makes each fill decode [`SMALL_STEP`] bytes rather than [`CHUNK`], so that a reader
    /// that wants a record's headers and [passes over](Self::pass_over_to_member_end) its
    /// block does not decode the block first.
    pub(crate) fn fills_in_small_steps(&mut self) {
        self.small_steps = true;
    }

    /// Bytes of junk before the first gzip member of a gzip file that does not start as
    /// gzip (0 for every other file, and for a stream started past the file's start).
    pub(crate) fn leading_junk(&self) -> u64 {
        self.leading_junk
    }

    /// Stream position of the next unconsumed byte.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// The stream position where the gzip member holding the current position starts
    /// (`None` in a plain file).
    pub(crate) fn member_start_position(&mut self) -> Option<u64> {
        match &mut self.source {
            Source::Plain(_) => None,
            Source::Gzip(members) => {
                members.file_offset(self.pos);
                members.member_starts.front().map(|&(start, _)| start)
            }
        }
    }

    /// File offset of the byte at the current position: the byte itself in a plain file,
    /// the start of the gzip member holding it in a gzip file.
    pub(crate) fn file_offset(&mut self) -> u64 {
        match &mut self.source {
            Source::Plain(_) => self.pos,
            Source::Gzip(members) => members.file_offset(self.pos),
        }
    }

    /// The file offset where the file's data ends: its length for a plain file; for a gzip
    /// file, the end of the last member decoded (padding after it left out), or the file's
    /// length when it ends inside a member. Meaningful once the stream is read to its end.
    pub(crate) fn data_end(&self) -> u64 {
        match &self.source {
            Source::Plain(cursor) => cursor.map.len() as u64,
            Source::Gzip(members) if members.truncated => members.map.len() as u64,
            Source::Gzip(members) => (members.member_offset as u64).min(members.map.len() as u64),
        }
    }

    /// Whether the file ended inside a gzip member.
    pub(crate) fn truncated(&self) -> bool {
        match &self.source {
            Source::Plain(_) => false,
            Source::Gzip(members) => members.truncated,
        }
    }

    /// The bytes buffered and not yet consumed.
    pub(crate) fn available(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Marks the first `n` available bytes as read.
    pub(crate) fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.pos += n as u64;
    }

    /// Reads more bytes into the buffer, keeping the unconsumed ones. Returns how many
    /// arrived; `0` at the end of the stream.
    ///
    /// On [`Fault::Corrupt`] the unconsumed bytes are dropped: what follows them is not
    /// their continuation.
    fn fill(&mut self) -> Result<usize, Fault> {
        if self.eof {
            return Ok(0);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let step = if self.small_steps { SMALL_STEP } else { CHUNK };
        if self.buf.len() < self.end + step {
            self.buf.resize(self.end + step, 0);
        }
        let stop = if self.small_steps {
            self.end + step
        } else {
            self.buf.len()
        };
        let target = &mut self.buf[self.end..stop];
        let result = match &mut self.source {
            Source::Plain(cursor) => cursor.read(target).map_err(|e| {
                // Reading from a slice cannot fail; keep the type honest anyway.
                Fault::Corrupt(e.to_string())
            }),
            Source::Gzip(members) => members.read(target),
        };
        self.release_read_pages();
        match result {
            Ok(0) => {
                self.eof = true;
                Ok(0)
            }
            Ok(n) => {
                self.end += n;
                Ok(n)
            }
            Err(fault) => {
                let dropped = self.end - self.start;
                self.consume(dropped);
                Err(fault)
            }
        }
    }

    /// Tells the kernel that the mapped pages already read are not needed any more, every
    /// [`RELEASE_EVERY`] bytes: a mapped file's pages count in the process's resident memory
    /// until then, and a WARC file can be larger than any memory budget.
    fn release_read_pages(&mut self) {
        let (map, read_to) = match &self.source {
            Source::Plain(cursor) => (&cursor.map, cursor.pos),
            Source::Gzip(members) => (
                &members.map,
                members
                    .decoder
                    .as_ref()
                    .map_or(members.member_offset, |decoder| decoder.get_ref().pos),
            ),
        };
        let up_to = read_to / PAGE * PAGE;
        if up_to < self.released + RELEASE_EVERY {
            return;
        }
        // SAFETY: the map is a read-only mapping of a file. Dropping its pages loses nothing:
        // a later read of them (gzip member search, say) faults them in from the file again.
        let _ = unsafe {
            map.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                self.released,
                up_to - self.released,
            )
        };
        self.released = up_to;
    }

    /// Makes at least `n` bytes available unless the stream ends first; returns how many
    /// are available.
    pub(crate) fn ensure(&mut self, n: usize) -> Result<usize, Fault> {
        while self.end - self.start < n {
            if self.fill()? == 0 {
                break;
            }
        }
        Ok(self.end - self.start)
    }

    /// Finds the end of a header block starting at the current position: the first empty
    /// line (`\n\n` or `\n\r\n`). Returns the block's length including that empty line;
    /// [`HeaderEnd::TooLong`] past `max` bytes, [`HeaderEnd::Eof`] if the stream ends first.
    pub(crate) fn find_header_end(&mut self, max: usize) -> Result<HeaderEnd, Fault> {
        let mut searched = 0;
        loop {
            let window = self.available();
            let limit = window.len().min(max);
            // Each `\n` is checked once it has its two following bytes in view.
            while searched + 2 < limit || (searched < limit && limit == window.len() && self.eof) {
                if window[searched] == b'\n' {
                    match window.get(searched + 1) {
                        Some(b'\n') => return Ok(HeaderEnd::Found(searched + 2)),
                        Some(b'\r') if window.get(searched + 2) == Some(&b'\n') => {
                            return Ok(HeaderEnd::Found(searched + 3));
                        }
                        _ => {}
                    }
                }
                searched += 1;
            }
            if window.len() >= max {
                return Ok(HeaderEnd::TooLong);
            }
            if self.fill()? == 0 {
                return Ok(HeaderEnd::Eof);
            }
        }
    }

    /// Finds the end of the line starting at the current position (an ARC record's header
    /// line): its length including the `\n`; [`HeaderEnd::TooLong`] past `max` bytes,
    /// [`HeaderEnd::Eof`] if the stream ends first.
    pub(crate) fn find_line_end(&mut self, max: usize) -> Result<HeaderEnd, Fault> {
        let mut searched = 0;
        loop {
            let window = self.available();
            let limit = window.len().min(max);
            if let Some(newline) = window[searched..limit].iter().position(|&b| b == b'\n') {
                return Ok(HeaderEnd::Found(searched + newline + 1));
            }
            searched = limit;
            if window.len() >= max {
                return Ok(HeaderEnd::TooLong);
            }
            if self.fill()? == 0 {
                return Ok(HeaderEnd::Eof);
            }
        }
    }

    /// Consumes ASCII whitespace (the blank lines between records).
    pub(crate) fn skip_whitespace(&mut self) -> Result<(), Fault> {
        loop {
            if self.ensure(1)? == 0 {
                return Ok(());
            }
            let blank = self
                .available()
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            let all = blank == self.available().len();
            self.consume(blank);
            if !all {
                return Ok(());
            }
        }
    }

    /// Copies the next `n` bytes into `out` (appending). Returns `false` if the stream
    /// ends first, with the bytes read so far in `out`.
    pub(crate) fn read_into(&mut self, n: u64, out: &mut Vec<u8>) -> Result<bool, Fault> {
        self.advance(n, |bytes| out.extend_from_slice(bytes))
    }

    /// Discards the next `n` bytes. Returns `false` if the stream ends first.
    pub(crate) fn skip(&mut self, n: u64) -> Result<bool, Fault> {
        self.advance(n, |_| {})
    }

    /// Moves past the next `n` bytes without decoding them, when they end the gzip member
    /// being decoded: when a gzip header past what the decoder has read follows a trailer
    /// whose size puts the member's end at most [`MAX_RECORD_TRAILER`] bytes past them, and
    /// that next member decodes to a WARC record (or the file's members end there). Returns
    /// `false`, having moved nothing, when no such end is found: a plain file, `n` already
    /// decoded, a record spread over several members.
    ///
    /// The bytes between the `n` and the member's end are given as blank (a record's
    /// trailing blank line), not as they are, and nothing passed over is checked: not the
    /// member's checksum, nor whether the block holds a record that a wrong `Content-Length`
    /// runs over (a full read looks for one when the bytes after the block are not blank).
    /// For a reader that wants the records' headers only, such as a count of each site's
    /// records.
    ///
    /// After [`MAX_FAILED_PASSES`] blocks in a row that it could not pass over (a plain file,
    /// a gzip file of one member), it stops trying, and the stream fills in large steps again.
    pub(crate) fn pass_over_to_member_end(&mut self, n: u64) -> bool {
        if self.failed_passes >= MAX_FAILED_PASSES {
            return false;
        }
        if n <= (self.end - self.start) as u64 {
            // Already decoded: nothing to pass over, and nothing said about the file.
            return false;
        }
        let passed = self.jump_to_member_end(n);
        if passed {
            self.failed_passes = 0;
        } else {
            self.failed_passes += 1;
            if self.failed_passes == MAX_FAILED_PASSES {
                self.small_steps = false;
            }
        }
        passed
    }

    /// One try of [`pass_over_to_member_end`](Self::pass_over_to_member_end) over `n` bytes
    /// more than are decoded: finds where the member ends, and moves there.
    fn jump_to_member_end(&mut self, n: u64) -> bool {
        let Source::Gzip(members) = &mut self.source else {
            return false;
        };
        let (Some(decoder), Some(&(member_start, _))) =
            (&members.decoder, members.member_starts.back())
        else {
            return false;
        };
        let Some(target) = self.pos.checked_add(n) else {
            return false;
        };
        let read_to = decoder.get_ref().pos;
        let to_decode = target - members.produced;
        // Deflate stores what it cannot compress in blocks of at most 65,535 bytes, each
        // with a 5-byte header: what is left of the member is at most about that much.
        let bound = to_decode.saturating_add(to_decode / 8192 + 1024);
        let bound = usize::try_from(bound).unwrap_or(usize::MAX);
        let map: &[u8] = &members.map;
        let data_end = members.members_end.min(map.len());
        let search_end = read_to.saturating_add(bound).min(data_end);
        // Where the member ends if it ends at `at`, by the size in the 4 bytes before.
        let ends_at = |at: usize| {
            let size = map.get(at.checked_sub(4)?..at)?;
            let size = u32::from_le_bytes(size.try_into().ok()?);
            Some(member_start + u64::from(size))
        };
        let ends_block = |at: usize| {
            at >= read_to
                && ends_at(at)
                    .is_some_and(|end| end >= target && end - target <= MAX_RECORD_TRAILER)
        };
        // A gzip member that decodes to a record: what a reading of the block would meet
        // after it (one that ran on past its length is searched for where a record starts).
        let starts_record = |at: usize| {
            let mut version = [0u8; 5];
            let decoded = GzDecoder::new(&map[at..]).read_exact(&mut version);
            decoded.is_ok() && &version == b"WARC/"
        };
        // The compressed bytes may hold gzip headers of their own (a gzip body stored as it
        // came): each candidate is tried.
        let searched = &map[..(search_end + 4).min(map.len())];
        let candidates = std::iter::successors(find_member(searched, read_to), |&at| {
            find_member(searched, at + 1)
        });
        let next = candidates
            .take_while(|&at| at <= search_end)
            .find(|&at| ends_block(at) && starts_record(at))
            .or_else(|| (search_end == data_end && ends_block(data_end)).then_some(data_end));
        let Some((next, Some(member_end))) = next.map(|at| (at, ends_at(at))) else {
            return false;
        };
        members.decoder = None;
        members.member_offset = next;
        members.produced = member_end;
        let trailer = (member_end - target) as usize;
        self.start = 0;
        self.end = trailer;
        if self.buf.len() < trailer {
            self.buf.resize(trailer, 0);
        }
        self.buf[..trailer].copy_from_slice(&b"\r\n\r\n"[4 - trailer..]);
        self.pos = target;
        true
    }

    /// Consumes the next `n` bytes, handing each stretch of them to `on_bytes` before it is
    /// consumed. Returns `false` if the stream ends first.
    fn advance(&mut self, n: u64, mut on_bytes: impl FnMut(&[u8])) -> Result<bool, Fault> {
        let mut remaining = n;
        while remaining > 0 {
            if self.ensure(1)? == 0 {
                return Ok(false);
            }
            let take = usize::try_from(remaining)
                .unwrap_or(usize::MAX)
                .min(self.end - self.start);
            on_bytes(&self.buf[self.start..self.start + take]);
            self.consume(take);
            remaining -= take as u64;
        }
        Ok(true)
    }

    /// Puts back bytes just consumed, so that they are read again. `bytes` must be the
    /// bytes immediately before the current position.
    pub(crate) fn unread(&mut self, bytes: &[u8]) {
        let mut buf = Vec::with_capacity(bytes.len() + (self.end - self.start) + CHUNK);
        buf.extend_from_slice(bytes);
        buf.extend_from_slice(self.available());
        self.end = buf.len();
        self.start = 0;
        self.buf = buf;
        self.pos = self.pos.saturating_sub(bytes.len() as u64);
    }

    /// Moves to the start of the next line that begins with `WARC/`, consuming the rest of
    /// the current line first unless `at_line_start`. Returns `false` at the end of the
    /// stream.
    pub(crate) fn seek_version_line(&mut self, mut at_line_start: bool) -> Result<bool, Fault> {
        loop {
            let available = self.ensure(5)?;
            if available == 0 {
                return Ok(false);
            }
            if at_line_start && self.available().starts_with(b"WARC/") {
                return Ok(true);
            }
            if at_line_start && available < 5 && self.eof {
                self.consume(available);
                return Ok(false);
            }
            match self.available().iter().position(|&b| b == b'\n') {
                Some(newline) => {
                    self.consume(newline + 1);
                    at_line_start = true;
                }
                None => {
                    self.consume(available);
                    at_line_start = false;
                }
            }
        }
    }
}

/// Outcome of [`Stream::find_header_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderEnd {
    /// The header block is this many bytes long, terminating empty line included.
    Found(usize),
    /// No empty line within the limit.
    TooLong,
    /// The stream ended before an empty line.
    Eof,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::test_support::gzip;
    use std::io::Write;

    fn map_of(bytes: &[u8]) -> Mmap {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        // SAFETY: the temporary file is private to this test and not modified while mapped.
        unsafe { Mmap::map(&file).unwrap() }
    }

    fn read_all(stream: &mut Stream) -> Vec<u8> {
        let mut out = Vec::new();
        stream.read_into(u64::MAX, &mut out).unwrap();
        out
    }

    #[test]
    fn plain_stream_reads_everything() {
        let mut stream = Stream::new(map_of(b"hello world"));
        assert_eq!(read_all(&mut stream), b"hello world");
    }

    #[test]
    fn gzip_members_are_concatenated_and_located() {
        let first = gzip(b"first member\n");
        let second = gzip(b"second\n");
        let mut file = first.clone();
        file.extend_from_slice(&second);
        let mut stream = Stream::new(map_of(&file));
        assert_eq!(stream.ensure(1).unwrap(), 13);
        assert_eq!(stream.file_offset(), 0);
        stream.consume(13);
        stream.ensure(1).unwrap();
        assert_eq!(stream.file_offset(), first.len() as u64);
        assert_eq!(read_all(&mut stream), b"second\n");
        assert!(!stream.truncated());
    }

    #[test]
    fn a_stream_between_members_decodes_those_members_only() {
        let members = [gzip(b"first\n"), gzip(b"second\n"), gzip(b"third\n")];
        let file = members.concat();
        let map = Arc::new(map_of(&file));
        let (second, third) = (
            members[0].len() as u64,
            (members[0].len() + members[1].len()) as u64,
        );
        let mut stream = Stream::members_between(Arc::clone(&map), second, third, Vec::new());
        assert_eq!(read_all(&mut stream), b"second\n");
        assert_eq!(stream.data_end(), third);
        // A buffer that held other bytes is decoded into as an empty one.
        let mut stream =
            Stream::members_between(map, second, file.len() as u64, stream.into_buffer());
        assert_eq!(read_all(&mut stream), b"second\nthird\n");
        assert_eq!(stream.data_end(), file.len() as u64);
    }

    #[test]
    fn a_block_that_ends_its_member_is_passed_over_where_the_trailer_says() {
        let block: Vec<u8> = (0..30_000u32)
            .flat_map(|i| format!("{i} ").into_bytes())
            .collect();
        let first = gzip(&[b"head\n".as_slice(), &block, b"\r\n\r\n"].concat());
        let file = [first.clone(), gzip(b"WARC/next\n")].concat();
        let map = Arc::new(map_of(&file));
        let stream = || {
            let mut stream = Stream::members_between(Arc::clone(&map), 0, u64::MAX, Vec::new());
            stream.fills_in_small_steps();
            stream.ensure(5).unwrap();
            stream.consume(5);
            stream
        };
        let n = block.len() as u64;

        let mut passing = stream();
        assert!(passing.available().len() < block.len());
        assert!(passing.pass_over_to_member_end(n));
        assert_eq!(passing.position(), 5 + n);
        assert_eq!(passing.available(), b"\r\n\r\n");
        passing.consume(4);
        passing.ensure(1).unwrap();
        assert_eq!(passing.file_offset(), first.len() as u64);
        assert_eq!(read_all(&mut passing), b"WARC/next\n");

        // Its trailing blank line passed over too: nothing is left of the member.
        let mut whole = stream();
        assert!(whole.pass_over_to_member_end(n + 4));
        assert_eq!(whole.available(), b"");
        assert_eq!(read_all(&mut whole), b"WARC/next\n");

        // Bytes that stop short of the member's end, or run past it, are not passed over.
        for n in [n - 1, n - 10, n + 5] {
            let mut reading = stream();
            assert!(!reading.pass_over_to_member_end(n));
            assert_eq!(reading.position(), 5);
            let mut rest = Vec::new();
            reading
                .read_into(n.min(block.len() as u64), &mut rest)
                .unwrap();
            assert_eq!(rest[..], block[..rest.len()]);
        }

        // Nor a length past any file's.
        assert!(!stream().pass_over_to_member_end(u64::MAX));

        // The last member of a file, or of a stream's members, ends where they end.
        for (bytes, end) in [
            (first.clone(), u64::MAX),
            (file.clone(), first.len() as u64),
        ] {
            let map = Arc::new(map_of(&bytes));
            let mut last = Stream::members_between(map, 0, end, Vec::new());
            last.fills_in_small_steps();
            last.ensure(5).unwrap();
            last.consume(5);
            assert!(last.pass_over_to_member_end(n));
            last.consume(4);
            assert_eq!(read_all(&mut last), b"");
            assert_eq!(last.data_end(), first.len() as u64);
        }

        // A gzip body stored as it came, whose own gzip headers come first, is passed over.
        let mut state = 1u64;
        let noise: Vec<u8> = (0..100_000)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 56) as u8
            })
            .collect();
        let gzip_at = |level: u32, bytes: &[u8]| {
            let level = flate2::Compression::new(level);
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
            encoder.write_all(bytes).unwrap();
            encoder.finish().unwrap()
        };
        let stored: Vec<u8> = [gzip_at(0, &noise), gzip(b"inner")].concat();
        // Deflate stores what it cannot compress as it is.
        let outer = gzip_at(6, &[b"head\n".as_slice(), &stored, b"\r\n\r\n"].concat());
        assert!(
            find_member(&outer, 1).is_some(),
            "the body's gzip headers are stored"
        );
        let map = Arc::new(map_of(&[outer.clone(), gzip(b"WARC/next\n")].concat()));
        let mut nested = Stream::members_between(map, 0, u64::MAX, Vec::new());
        nested.fills_in_small_steps();
        nested.ensure(5).unwrap();
        nested.consume(5);
        assert!(nested.pass_over_to_member_end(stored.len() as u64));
        nested.consume(4);
        nested.ensure(1).unwrap();
        assert_eq!(nested.file_offset(), outer.len() as u64);

        // Nor are a plain file's bytes.
        let mut plain = Stream::new(map_of(&block));
        plain.fills_in_small_steps();
        assert!(!plain.pass_over_to_member_end(block.len() as u64));
        // Which, after a few such tries, fills in large steps again.
        for _ in 1..MAX_FAILED_PASSES {
            assert!(plain.small_steps);
            assert!(!plain.pass_over_to_member_end(block.len() as u64));
        }
        assert!(!plain.small_steps);
    }

    #[test]
    fn truncated_gzip_keeps_what_was_decoded() {
        let data: Vec<u8> = (0..50_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let full = gzip(&data);
        let mut stream = Stream::new(map_of(&full[..full.len() / 2]));
        let out = read_all(&mut stream);
        assert!(!out.is_empty() && out.len() < data.len());
        assert_eq!(out[..], data[..out.len()]);
        assert!(stream.truncated());
    }

    #[test]
    fn corrupt_member_is_reported_and_stepped_over() {
        let mut file = gzip(b"good one\n");
        let mut bad = gzip(b"this member gets damaged in the middle of its data\n");
        let middle = bad.len() / 2;
        bad[middle..middle + 4].copy_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        file.extend_from_slice(&bad);
        file.extend_from_slice(&gzip(b"after\n"));
        let mut stream = Stream::new(map_of(&file));
        let mut out = Vec::new();
        let mut faults = 0;
        loop {
            match stream.read_into(u64::MAX, &mut out) {
                Ok(_) => break,
                Err(_) => faults += 1,
            }
        }
        assert_eq!(faults, 1);
        assert!(out.starts_with(b"good one\n"));
        assert!(out.ends_with(b"after\n"));
    }

    #[test]
    fn header_end_accepts_lf_and_crlf() {
        let mut stream = Stream::new(map_of(b"A: b\r\nC: d\r\n\r\nbody"));
        assert_eq!(stream.find_header_end(1000).unwrap(), HeaderEnd::Found(14));
        let mut stream = Stream::new(map_of(b"A: b\nC: d\n\nbody"));
        assert_eq!(stream.find_header_end(1000).unwrap(), HeaderEnd::Found(11));
        let mut stream = Stream::new(map_of(b"A: b\nC: d\n"));
        assert_eq!(stream.find_header_end(1000).unwrap(), HeaderEnd::Eof);
        let mut stream = Stream::new(map_of(b"A: b\nC: d\nE: f\n\n"));
        assert_eq!(stream.find_header_end(8).unwrap(), HeaderEnd::TooLong);
    }

    #[test]
    fn seek_version_line_finds_line_starts_only() {
        let mut stream = Stream::new(map_of(b"xx WARC/1.0\nyy\nWARC/1.0\r\n"));
        assert!(stream.seek_version_line(false).unwrap());
        assert_eq!(stream.position(), 15);
        let mut stream = Stream::new(map_of(b"nothing here\nWARC"));
        assert!(!stream.seek_version_line(false).unwrap());
    }

    #[test]
    fn line_end_is_found_across_fills_and_bounded() {
        let mut stream = Stream::new(map_of(b"first line\nsecond"));
        assert_eq!(stream.find_line_end(100), Ok(HeaderEnd::Found(11)));
        stream.consume(11);
        assert_eq!(stream.find_line_end(100), Ok(HeaderEnd::Eof));
        let long = vec![b'x'; CHUNK * 2];
        let mut stream = Stream::new(map_of(&long));
        assert_eq!(stream.find_line_end(CHUNK + 10), Ok(HeaderEnd::TooLong));
    }

    #[test]
    fn unread_replays_bytes() {
        let mut stream = Stream::new(map_of(b"abcdef"));
        let mut out = Vec::new();
        assert!(stream.read_into(4, &mut out).unwrap());
        stream.unread(&out[2..]);
        assert_eq!(stream.position(), 2);
        assert_eq!(read_all(&mut stream), b"cdef");
    }
}
