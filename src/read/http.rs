//! HTTP response messages as stored in WARC `response` records.
//!
//! In: a record block. Out: the status code, the headers the reader needs, and the body with
//! chunked transfer-encoding and gzip/deflate/brotli content-encoding undone.
//!
//! Crawlers store what servers sent, and servers send odd things: LF-only line endings,
//! folded headers, "chunked" bodies that are not chunked, `Content-Encoding: gzip` on bodies
//! that the crawler already decompressed. Each of these is tolerated rather than rejected.

use std::borrow::Cow;
use std::io::{self, Read};

/// A parsed HTTP response head and its body bytes.
#[derive(Debug)]
pub(crate) struct HttpResponse<'a> {
    /// The status code.
    pub status: u16,
    /// Header fields in order: lower-cased name, value (folded lines joined).
    headers: Vec<(String, String)>,
    /// The body as stored (transfer- and content-encoded).
    pub body: &'a [u8],
}

/// Why a block is not an HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotHttp(pub String);

impl<'a> HttpResponse<'a> {
    /// Parses the status line and headers of `block`; the body is everything after the
    /// first empty line (empty if there is none).
    pub(crate) fn parse(block: &'a [u8]) -> Result<HttpResponse<'a>, NotHttp> {
        // Some writers leave blank lines before the status line.
        let start = block
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(block.len());
        let mut rest = &block[start..];
        let status_line = take_line(&mut rest);
        let status = parse_status_line(status_line)?;

        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            if rest.is_empty() {
                break;
            }
            let line = take_line(&mut rest);
            if line.is_empty() {
                break;
            }
            if line[0] == b' ' || line[0] == b'\t' {
                if let Some((_, value)) = headers.last_mut() {
                    value.push(' ');
                    value.push_str(String::from_utf8_lossy(line).trim());
                }
                continue;
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                continue;
            };
            let name = String::from_utf8_lossy(line[..colon].trim_ascii()).to_ascii_lowercase();
            let value = String::from_utf8_lossy(&line[colon + 1..])
                .trim()
                .to_string();
            headers.push((name, value));
        }
        Ok(HttpResponse {
            status,
            headers,
            body: rest,
        })
    }

    /// Values of every header field named `name` (lower case), in order.
    pub(crate) fn header_values<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s str> {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// All values of a list-valued header field, comma-joined.
    pub(crate) fn joined(&self, name: &str) -> String {
        self.header_values(name).collect::<Vec<_>>().join(",")
    }
}

/// Takes one line off the front of `rest` (without its `\n` or `\r\n`).
fn take_line<'a>(rest: &mut &'a [u8]) -> &'a [u8] {
    let (line, after) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (*rest, &rest[rest.len()..]),
    };
    *rest = after;
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Parses `HTTP/1.1 200 OK` (reason optional) into the status code.
fn parse_status_line(line: &[u8]) -> Result<u16, NotHttp> {
    let shown = || String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
    if line.len() < 5 || !line[..5].eq_ignore_ascii_case(b"HTTP/") {
        return Err(NotHttp(format!(
            "no HTTP status line (found {:?})",
            shown()
        )));
    }
    let mut parts = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|p| !p.is_empty());
    let _version = parts.next();
    match parts.next() {
        Some(code) if code.len() == 3 && code.iter().all(u8::is_ascii_digit) => Ok(code
            .iter()
            .fold(0u16, |acc, &d| acc * 10 + u16::from(d - b'0'))),
        _ => Err(NotHttp(format!("no status code in {:?}", shown()))),
    }
}

/// Undoes chunked transfer-encoding.
///
/// Returns `None` if `body` does not start with a valid chunk: the caller then uses the body
/// as it is (servers send "chunked" bodies that are not). A later malformed chunk size keeps
/// the chunks decoded so far and takes the rest as it is; a last chunk cut short keeps what
/// is there.
pub(crate) fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    let mut first = true;
    loop {
        if rest.is_empty() {
            break;
        }
        let before_line = rest;
        let Some(newline) = rest.iter().position(|&b| b == b'\n') else {
            if first {
                return None;
            }
            out.extend_from_slice(before_line);
            break;
        };
        let size = parse_chunk_size(&rest[..newline]);
        rest = &rest[newline + 1..];
        let Some(size) = size else {
            if first {
                return None;
            }
            out.extend_from_slice(before_line);
            break;
        };
        first = false;
        if size == 0 {
            break;
        }
        let take = usize::try_from(size).unwrap_or(usize::MAX).min(rest.len());
        out.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
    }
    Some(out)
}

/// Parses a chunk-size line: hex digits, optional `;extensions`, optional whitespace.
fn parse_chunk_size(line: &[u8]) -> Option<u64> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line.split(|&b| b == b';').next()?.trim_ascii();
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let text = std::str::from_utf8(digits).ok()?;
    u64::from_str_radix(text, 16).ok()
}

/// Why a body could not be content-decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// The decoded body would be larger than the limit.
    TooLarge,
    /// The body does not decode.
    Bad(String),
}

/// Undoes the codings listed in a `Content-Encoding` value (applied in order, so undone in
/// reverse), keeping the result within `max_bytes`.
///
/// Unknown codings and `identity` leave the body as it is. A body labelled gzip that does not
/// start like gzip, or that fails to decode under any coding but looks like HTML, is taken as
/// already decoded (crawlers such as ClueWeb's stored decoded bodies with the original
/// header).
///
/// A body with nothing to undo comes back as it came, borrowed or owned.
pub(crate) fn decode_content<'a>(
    body: impl Into<Cow<'a, [u8]>>,
    content_encoding: &str,
    max_bytes: usize,
) -> Result<Cow<'a, [u8]>, DecodeError> {
    let mut body = body.into();
    for coding in content_encoding.rsplit(',') {
        let coding = coding.trim().to_ascii_lowercase();
        let decoded = match coding.as_str() {
            "gzip" | "x-gzip" => {
                if !body.starts_with(&[0x1f, 0x8b]) {
                    continue;
                }
                read_capped(flate2::read::MultiGzDecoder::new(&body[..]), max_bytes)
            }
            "deflate" | "x-deflate" => {
                if looks_like_zlib(&body) {
                    read_capped(flate2::read::ZlibDecoder::new(&body[..]), max_bytes).or_else(
                        |error| match error {
                            DecodeError::TooLarge => Err(error),
                            DecodeError::Bad(_) => {
                                read_capped(flate2::read::DeflateDecoder::new(&body[..]), max_bytes)
                            }
                        },
                    )
                } else {
                    read_capped(flate2::read::DeflateDecoder::new(&body[..]), max_bytes)
                }
            }
            "br" => read_capped(brotli::Decompressor::new(&body[..], 4096), max_bytes),
            _ => continue,
        };
        body = match decoded {
            Ok(decoded) => Cow::Owned(decoded),
            Err(DecodeError::Bad(_)) if super::sniff::sniffs_as_html(&body) => body,
            Err(error) => {
                return Err(match error {
                    DecodeError::Bad(message) => DecodeError::Bad(format!("{coding}: {message}")),
                    DecodeError::TooLarge => DecodeError::TooLarge,
                });
            }
        };
    }
    if body.len() > max_bytes {
        return Err(DecodeError::TooLarge);
    }
    Ok(body)
}

/// Whether `bytes` start with a valid zlib header (deflate method, checksum ok).
fn looks_like_zlib(bytes: &[u8]) -> bool {
    match bytes {
        [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// Reads a decoder to the end, refusing more than `max_bytes`. A stream that stops early (a
/// missing gzip trailer, a cut body) keeps what it decoded.
fn read_capped(reader: impl Read, max_bytes: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let result = reader.take(limit).read_to_end(&mut out);
    if out.len() > max_bytes {
        return Err(DecodeError::TooLarge);
    }
    match result {
        Ok(_) => Ok(out),
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof && !out.is_empty() => Ok(out),
        Err(error) => Err(DecodeError::Bad(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn parses_status_headers_and_body() {
        let block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html;\r\n charset=utf-8\r\nX: y\r\n\r\nbody";
        let response = HttpResponse::parse(block).unwrap();
        assert_eq!(response.status, 404);
        assert_eq!(
            response.header_values("content-type").collect::<Vec<_>>(),
            ["text/html; charset=utf-8"]
        );
        assert_eq!(response.body, b"body");
    }

    #[test]
    fn tolerates_lf_only_and_missing_reason() {
        let response = HttpResponse::parse(b"\r\nHTTP/1.0 200\nA: b\n\n<html>").unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.joined("a"), "b");
        assert_eq!(response.body, b"<html>");
    }

    #[test]
    fn rejects_blocks_without_status_line() {
        assert!(HttpResponse::parse(b"<html>not http</html>").is_err());
        assert!(HttpResponse::parse(b"HTTP/1.1 abc OK\r\n\r\n").is_err());
        assert!(HttpResponse::parse(b"").is_err());
        assert!(HttpResponse::parse(b"HTTP").is_err());
    }

    #[test]
    fn dechunks_valid_chunks() {
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n").unwrap(),
            b"Wikipedia"
        );
        assert_eq!(dechunk(b"3\nabc\n0\n").unwrap(), b"abc");
    }

    #[test]
    fn dechunk_falls_back_on_bad_chunks() {
        assert_eq!(dechunk(b"<html>not chunked</html>"), None);
        assert_eq!(dechunk(b"<html>\nmore\n"), None);
        // A bad size later keeps the decoded part and the rest as it is.
        assert_eq!(
            dechunk(b"3\r\nabc\r\nzz\r\ntail").unwrap(),
            b"abczz\r\ntail"
        );
        // A last chunk cut short keeps what is there.
        assert_eq!(dechunk(b"a\r\nabc").unwrap(), b"abc");
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn decodes_gzip_deflate_and_brotli() {
        let text = b"<html><body>hello hello hello</body></html>".to_vec();
        assert_eq!(decode_content(gzip(&text), "gzip", 1000).unwrap(), text);
        assert_eq!(decode_content(gzip(&text), "X-Gzip", 1000).unwrap(), text);

        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&text).unwrap();
        assert_eq!(
            decode_content(z.finish().unwrap(), "deflate", 1000).unwrap(),
            text
        );
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(&text).unwrap();
        assert_eq!(
            decode_content(raw.finish().unwrap(), "deflate", 1000).unwrap(),
            text
        );

        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
            w.write_all(&text).unwrap();
        }
        assert_eq!(decode_content(br, "br", 1000).unwrap(), text);

        // Layered codings are undone in reverse order.
        assert_eq!(
            decode_content(gzip(&gzip(&text)), "gzip, gzip", 1000).unwrap(),
            text
        );
    }

    #[test]
    fn decoded_size_is_capped() {
        let big = vec![b'a'; 10_000];
        assert_eq!(
            decode_content(gzip(&big), "gzip", 9_999),
            Err(DecodeError::TooLarge)
        );
        assert_eq!(decode_content(gzip(&big), "gzip", 10_000).unwrap(), big);
        assert_eq!(
            decode_content(big.clone(), "identity", 100),
            Err(DecodeError::TooLarge)
        );
    }

    #[test]
    fn bad_encoding_is_an_error_unless_body_is_plain_html() {
        // A gzip header, then a deflate block of the reserved type 3.
        let bad = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff".to_vec();
        assert!(matches!(
            decode_content(bad, "gzip", 1000),
            Err(DecodeError::Bad(_))
        ));
        assert!(matches!(
            decode_content(b"\x00\x01garbage".to_vec(), "br", 1000),
            Err(DecodeError::Bad(_))
        ));
        // Labelled but not encoded: taken as is.
        let plain = b"<!DOCTYPE html><p>already decoded".to_vec();
        assert_eq!(decode_content(plain.clone(), "gzip", 1000).unwrap(), plain);
        assert_eq!(decode_content(plain.clone(), "br", 1000).unwrap(), plain);
        assert_eq!(
            decode_content(plain.clone(), "deflate", 1000).unwrap(),
            plain
        );
        assert_eq!(decode_content(plain.clone(), "utf-8", 1000).unwrap(), plain);
    }

    #[test]
    fn gzip_without_trailer_keeps_its_data() {
        let text = b"<html>the whole page is here</html>".to_vec();
        let full = gzip(&text);
        let cut = full[..full.len() - 4].to_vec();
        assert_eq!(decode_content(cut, "gzip", 1000).unwrap(), text);
    }
}
