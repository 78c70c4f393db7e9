//! Walking a folder for the files to read.
//!
//! In: a folder, how to walk it ([`Walk`]) and the base URL for its pages. Out: its inputs
//! in a deterministic order: `.html`/`.htm` files, each with its URL, and WARC files,
//! recognised by their content.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

use super::file_url::{folder_url, joined_url};
use super::{Input, io_error};
use crate::read::ReadError;
use crate::read::arc::starts_like_arc;

/// How folders are walked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walk {
    /// Enter hidden folders and read hidden files (names starting with `.`), skipped by
    /// default.
    pub hidden: bool,
    /// Follow symbolic links (to files and folders, each folder entered once); by default a
    /// link is skipped.
    pub follow_links: bool,
}

/// The inputs under `dir`, in walking order: its HTML files, each with the URL `base_url`
/// (default: the folder's `file://` URL) joined with its path in the folder, and its WARC
/// files.
pub(super) fn folder_inputs(
    dir: &Path,
    base_url: Option<&str>,
    walk: Walk,
) -> Result<Vec<Input>, ReadError> {
    let base = match base_url {
        Some(base) => base.to_string(),
        None => folder_url(dir)?,
    };
    let mut files = Vec::new();
    let mut entered = Vec::new();
    walk_folder(dir, walk, &mut entered, &mut files)?;
    let inputs = files
        .into_iter()
        .map(|(file, kind)| {
            let bytes = fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            match kind {
                FoundFile::Html => {
                    let url = joined_url(&base, file.strip_prefix(dir).unwrap_or(&file));
                    Input::Html {
                        path: file,
                        url,
                        bytes,
                    }
                }
                FoundFile::Warc => Input::Warc { path: file, bytes },
            }
        })
        .collect();
    Ok(inputs)
}

/// Whether a path ends in `.html` or `.htm` (any case).
pub(super) fn has_html_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
}

/// What a file found in a folder is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FoundFile {
    Html,
    Warc,
}

/// Collects the HTML and WARC files under `dir`, depth first, entries sorted by name; hidden
/// entries and symbolic links only as `walk` says (`entered`: the folders entered so far, by
/// canonical path, so that a followed link never loops). Other files are passed over.
fn walk_folder(
    dir: &Path,
    walk: Walk,
    entered: &mut Vec<PathBuf>,
    out: &mut Vec<(PathBuf, FoundFile)>,
) -> Result<(), ReadError> {
    if let Ok(canonical) = fs::canonicalize(dir) {
        if entered.contains(&canonical) {
            return Ok(());
        }
        entered.push(canonical);
    }
    let mut entries = fs::read_dir(dir)
        .map_err(|e| io_error(dir, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| io_error(dir, e))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        if !walk.hidden && entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let mut file_type = entry.file_type().map_err(|e| io_error(&path, e))?;
        if file_type.is_symlink() {
            if !walk.follow_links {
                continue;
            }
            match fs::metadata(&path) {
                Ok(target) => file_type = target.file_type(),
                Err(_) => continue,
            }
        }
        if file_type.is_dir() {
            walk_folder(&path, walk, entered, out)?;
        } else if !file_type.is_file() {
            continue;
        } else if has_html_extension(&path) {
            out.push((path, FoundFile::Html));
        } else if starts_like_crawl_file(&path) {
            out.push((path, FoundFile::Warc));
        }
    }
    Ok(())
}

/// Whether a file begins with a WARC record (`WARC/`) or an ARC file's description
/// (`filedesc://`), plain or inside gzip.
fn starts_like_crawl_file(path: &Path) -> bool {
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    let mut start = Vec::with_capacity(4096);
    if (&mut file).take(4096).read_to_end(&mut start).is_err() {
        return false;
    }
    if starts_like_arc(&start) {
        return true;
    }
    let Some(head) = start.first_chunk::<5>().copied() else {
        return false;
    };
    let mut head = head;
    if head.starts_with(&[0x1f, 0x8b]) {
        let Ok(file) = File::open(path) else {
            return false;
        };
        let mut decoded = flate2::read::MultiGzDecoder::new(file);
        return decoded.read_exact(&mut head).is_ok() && &head == b"WARC/";
    }
    &head == b"WARC/"
}

#[cfg(test)]
mod tests {
    use super::super::test_support::write;
    use super::*;
    use crate::read::{InputOptions, InputSet};

    /// The paths an input set reads, relative to `root`.
    fn read_paths(inputs: &InputSet, root: &Path) -> Vec<String> {
        inputs
            .inputs
            .iter()
            .map(|input| match input {
                Input::Warc { path, .. } | Input::Html { path, .. } => path,
            })
            .map(|path| path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn folders_are_walked_for_pages_and_warc_files_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let warc = b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        write(&root.join("a.html"), b"<p>a");
        write(&root.join("crawl/part-1"), warc);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gzip, warc).unwrap();
        write(&root.join("crawl/part-2.gz"), &gzip.finish().unwrap());
        write(&root.join("crawl/notes.txt"), b"not a crawl");
        write(&root.join(".cache/b.html"), b"<p>hidden");
        write(&root.join(".c.html"), b"<p>hidden");
        let elsewhere = tempfile::tempdir().unwrap();
        write(&elsewhere.path().join("linked.html"), b"<p>linked");
        #[cfg(unix)]
        std::os::unix::fs::symlink(elsewhere.path(), root.join("link")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("crawl/loop")).unwrap();

        let paths = [root.to_path_buf()];
        let plain = InputSet::open(&paths, None).unwrap();
        assert_eq!(
            read_paths(&plain, root),
            ["a.html", "crawl/part-1", "crawl/part-2.gz"]
        );
        let everything = Walk {
            hidden: true,
            follow_links: true,
        };
        let options = InputOptions {
            walk: everything,
            ..InputOptions::default()
        };
        let all = InputSet::open_with(&paths, &options).unwrap();
        let mut expected = vec![
            ".c.html",
            ".cache/b.html",
            "a.html",
            "crawl/part-1",
            "crawl/part-2.gz",
        ];
        if cfg!(unix) {
            expected.push("link/linked.html");
        }
        assert_eq!(read_paths(&all, root), expected);
    }
}
