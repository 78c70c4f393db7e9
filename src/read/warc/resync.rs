//! Finding where the next record starts when a record's framing cannot be trusted.
//!
//! In: the reader's [`Stream`](super::Stream) just past a block, or a block read by a
//! `Content-Length` that may lie. Out: how many stray bytes stand before the next record
//! ([`WarcRecords::junk_before_next_record`]), where a record starts inside a block
//! ([`find_embedded_record`]), or the stream moved to the next `WARC/` line
//! ([`WarcRecords::resync`]).

use super::super::source::LEADING_JUNK_LOOKAHEAD;
use super::{Fault, WarcRecords, not_warc};
use crate::read::SkipReason;

/// How far past a block the parser looks for the next record's version line.
const ALIGNMENT_LOOKAHEAD: usize = 256;

impl WarcRecords {
    /// Moves to the next `WARC/` line after a broken record.
    pub(super) fn resync(&mut self) {
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

    /// How many bytes stand between the current position and the next record: `Some(0)`
    /// if only blank lines (or the end of the file) follow, `Some(n)` if a `WARC/` line
    /// starts `n` bytes ahead within [`ALIGNMENT_LOOKAHEAD`], `None` if no record start is
    /// in view. Consumes nothing. A gzip fault met while looking is returned: the bytes it
    /// cost are gone, and must be reported.
    pub(super) fn junk_before_next_record(&mut self) -> Result<Option<usize>, Fault> {
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

impl WarcRecords {
    /// Before the first record, at bytes that are not a WARC version line: moves to the
    /// first record within [`LEADING_JUNK_LOOKAHEAD`] bytes, reporting the junk before it
    /// as one skip, or, when there is none, ends the file as not WARC.
    pub(super) fn find_first_record(&mut self, offset: u64) {
        let available = match self.stream.ensure(LEADING_JUNK_LOOKAHEAD) {
            Ok(available) => available,
            Err(fault) => return self.fault(fault, None, offset),
        };
        let window = &self.stream.available()[..available.min(LEADING_JUNK_LOOKAHEAD)];
        match find_version_line(window) {
            Some(junk) => {
                let message = format!("{junk} bytes before the first WARC record are not WARC");
                self.skip(SkipReason::BrokenRecordHeaders, None, offset, &message);
                self.stream.consume(junk);
                self.at_line_start = true;
            }
            None => {
                let message = not_warc(window);
                self.no_record_in_file(&message);
            }
        }
    }
}

/// Where the first WARC version line in `bytes` starts: `WARC/`, a version (digits, a dot,
/// digits) and the end of the line, after a line end or not (junk before a file's first
/// record need not end in one).
fn find_version_line(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = bytes.get(from..)?.windows(5).position(|w| w == b"WARC/") {
        let at = from + found;
        let rest = &bytes[at + 5..];
        let major = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let rest = &rest[major..];
        let minor = rest
            .strip_prefix(b".")
            .map(|rest| rest.iter().take_while(|b| b.is_ascii_digit()).count());
        if let (true, Some(minor)) = (major > 0, minor.filter(|&minor| minor > 0)) {
            let end = &rest[1 + minor..];
            if end.starts_with(b"\r\n") || end.starts_with(b"\n") {
                return Some(at);
            }
        }
        from = at + 1;
    }
    None
}

/// Start of the first line inside `block` (past its first byte) that looks like a WARC
/// version line (`WARC/` and a digit).
pub(super) fn find_embedded_record(block: &[u8]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        HTTP_OK, reasons, record, records_of_bytes, records_of_fixture, urls,
    };
    use crate::read::SkipReason;

    #[test]
    fn warcio_trunc_keeps_the_record_its_length_cuts_short() {
        // The response's Content-Length is 973, two bytes short of its block: the gzip body
        // loses the end of its trailer and two bytes of junk precede the next record.
        let items = records_of_fixture("warcio-example-trunc.warc");
        assert_eq!(urls(&items), ["http://example.com/"]);
        assert_eq!(reasons(&items), [SkipReason::NonPageRecord; 3]);
        assert_eq!(items[2].as_ref().unwrap().block.len(), 973);
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
    fn garbage_between_records_is_skipped() {
        let mut data = record("resource", "http://a.example/", b"one");
        data.extend_from_slice(b"some junk line\n");
        data.extend_from_slice(&record("resource", "http://b.example/", b"two"));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://a.example/", "http://b.example/"]);
        assert!(reasons(&items).is_empty());
    }

    #[test]
    fn a_version_line_is_found_after_junk_with_or_without_a_line_end() {
        use super::find_version_line;
        assert_eq!(find_version_line(b"\x01\x02WARC/1.0\r\nWARC-Type"), Some(2));
        assert_eq!(find_version_line(b"junk\nWARC/0.18\n"), Some(5));
        assert_eq!(find_version_line(b"the WARC/1.0 format, WARC/ 1.0\n"), None);
        assert_eq!(find_version_line(b"WARC/1."), None);
    }

    #[test]
    fn junk_before_the_first_record_is_one_skip() {
        let mut data = vec![0x13, 0x37, 0x00, 0xff];
        data.extend_from_slice(&record("resource", "http://a.example/", b"one"));
        data.extend_from_slice(&record("resource", "http://b.example/", b"two"));
        let items = records_of_bytes(&data);
        assert_eq!(urls(&items), ["http://a.example/", "http://b.example/"]);
        assert_eq!(reasons(&items), [SkipReason::BrokenRecordHeaders]);
    }
}
