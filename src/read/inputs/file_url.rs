//! The URLs of pages read from files.
//!
//! In: the base URL given for folder input, a folder or a file, and a file's path inside
//! its folder. Out: the base URL checked and ending in `/`, the `file://` URL of a folder
//! or a file, and a page's URL (the base joined with its path, percent-encoded).

use std::fs;
use std::path::Path;

use super::io_error;
use crate::read::ReadError;

/// A base URL checked and ending in `/`.
pub(super) fn normalise_base_url(base: &str) -> Result<String, ReadError> {
    url::Url::parse(base).map_err(|source| ReadError::BadBaseUrl {
        url: base.to_string(),
        source,
    })?;
    let mut base = base.to_string();
    if !base.ends_with('/') {
        base.push('/');
    }
    Ok(base)
}

/// `file://` URL of a folder, ending in `/`.
pub(super) fn folder_url(dir: &Path) -> Result<String, ReadError> {
    let canonical = fs::canonicalize(dir).map_err(|e| io_error(dir, e))?;
    url::Url::from_directory_path(&canonical)
        .map(String::from)
        .map_err(|()| ReadError::NoFileUrl { path: canonical })
}

/// `file://` URL of a file.
pub(super) fn file_url(file: &Path) -> Result<String, ReadError> {
    let canonical = fs::canonicalize(file).map_err(|e| io_error(file, e))?;
    url::Url::from_file_path(&canonical)
        .map(String::from)
        .map_err(|()| ReadError::NoFileUrl { path: canonical })
}

/// The URL of a page at `relative` under `base` (which ends in `/`).
pub(super) fn joined_url(base: &str, relative: &Path) -> String {
    format!("{base}{}", url_path(relative))
}

/// A relative path as a URL path: segments joined by `/`, each percent-encoded.
fn url_path(relative: &Path) -> String {
    relative
        .components()
        .map(|component| percent_encode_segment(&component.as_os_str().to_string_lossy()))
        .collect::<Vec<_>>()
        .join("/")
}

/// Percent-encodes the bytes of one path segment that may not appear in it literally.
fn percent_encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for &byte in segment.as_bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::write;
    use super::*;
    use crate::read::{InputSet, Record, RecordKind, page_from_record, site_of};

    #[test]
    fn bad_base_url_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = InputSet::open(&[dir.path().to_path_buf()], Some("not a url")).unwrap_err();
        assert!(matches!(error, ReadError::BadBaseUrl { .. }));
    }

    #[test]
    fn folder_is_walked_in_sorted_order_with_urls() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("b.html"), b"<html>b</html>");
        write(&root.join("a/z.htm"), b"<html>z</html>");
        write(&root.join("a/deeper/x y.HTML"), b"<html>x</html>");
        write(&root.join("a/notes.txt"), b"ignored");
        write(&root.join("c.css"), b"ignored");

        let inputs =
            InputSet::open(&[root.to_path_buf()], Some("https://Docs.Example.org/v1")).unwrap();
        assert_eq!(inputs.total_bytes(), 14 * 3);
        let records: Vec<Record> = inputs.records().map(Result::unwrap).collect();
        let urls: Vec<&str> = records.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://Docs.Example.org/v1/a/deeper/x%20y.HTML",
                "https://Docs.Example.org/v1/a/z.htm",
                "https://Docs.Example.org/v1/b.html",
            ]
        );
        assert!(
            records
                .iter()
                .all(|r| r.kind == RecordKind::File && r.source_offset == 0)
        );
        let page = page_from_record(records[2].clone(), 1 << 20).unwrap();
        assert_eq!(page.site, "docs.example.org");
        assert_eq!(page.html, "<html>b</html>");
    }

    #[test]
    fn folder_default_url_is_file_url_of_canonical_path() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("sub/page.html"), b"<p>hi");
        let inputs = InputSet::open(&[dir.path().to_path_buf()], None).unwrap();
        let record = inputs.records().next().unwrap().unwrap();
        let canonical = fs::canonicalize(dir.path()).unwrap();
        let expected = format!(
            "{}sub/page.html",
            url::Url::from_directory_path(&canonical).unwrap()
        );
        assert_eq!(record.url, expected);
        assert!(record.url.starts_with("file:///"));
        assert_eq!(site_of(&record.url), "local");
        // A folder file is HTML by its extension, even without tags.
        let page = page_from_record(record, 1 << 20).unwrap();
        assert_eq!(page.site, "local");
    }

    #[test]
    fn html_file_given_directly_is_a_page() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("one.html");
        write(&file, b"<html>1</html>");
        let inputs =
            InputSet::open(std::slice::from_ref(&file), Some("http://h.example/")).unwrap();
        let record = inputs.records().next().unwrap().unwrap();
        assert_eq!(record.url, "http://h.example/one.html");
    }
}
