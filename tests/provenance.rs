//! Where each page came from, through the real binary: `extract`'s `warc_filename`,
//! `warc_record_offset` and `warc_record_length` read back to the record they name (in the
//! committed sample and every crawl fixture), the same for search hits and `export`; and
//! `extract --format dolma`, whose dropped spans give `extract`'s text back.

use std::io::Read;
use std::path::{Path, PathBuf};

mod common;
use common::{indexer, ok, repo, sample};

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    (stdout.lines())
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// The crawl fixtures with at least one page (ARC and WARC, gzip and plain).
fn fixtures() -> Vec<PathBuf> {
    let folder = repo().join("tests/data/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.ends_with(".gz") || name.ends_with(".warc")
        })
        .collect();
    files.sort();
    files
}

/// The bytes `offset..offset + length` of `file`, gunzipped when they are gzip (every member;
/// up to where a file cut short ends).
fn record_bytes(file: &Path, offset: u64, length: u64) -> Vec<u8> {
    let bytes = std::fs::read(file).unwrap();
    let range = &bytes[offset as usize..(offset + length) as usize];
    if range.starts_with(&[0x1f, 0x8b]) {
        let mut decoder = flate2::read::MultiGzDecoder::new(range);
        let mut out = Vec::new();
        let mut buffer = [0; 8192];
        loop {
            match decoder.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => out.extend_from_slice(&buffer[..read]),
                Err(error) => {
                    let end = offset + length;
                    assert_eq!(end, bytes.len() as u64, "{file:?} at {offset}: {error}");
                    break;
                }
            }
        }
        out
    } else {
        range.to_vec()
    }
}

/// The target URI of the one record (WARC or ARC) in `bytes`, and whether another record
/// starts after its block (stray bytes a short `Content-Length` leaves may).
fn only_record_uri(bytes: &[u8]) -> (String, bool) {
    let text = String::from_utf8_lossy(bytes);
    if let Some(rest) = text.strip_prefix("WARC/") {
        let head_end = rest.find("\r\n\r\n").unwrap();
        let head = &rest[..head_end];
        let field = |name: &str| {
            head.lines()
                .find_map(|line| line.strip_prefix(&format!("{name}:")))
                .map(|value| value.trim().to_string())
        };
        let length: usize = field("Content-Length").unwrap().parse().unwrap();
        let block_start = "WARC/".len() + head_end + 4;
        let after = &bytes[(block_start + length).min(bytes.len())..];
        let more = after.windows(6).any(|window| window == b"WARC/1");
        let uri = field("WARC-Target-URI").unwrap();
        (uri.trim_matches(['<', '>']).to_string(), more)
    } else {
        // An ARC record: its URL starts the header line.
        let line = text.lines().next().unwrap();
        (line.split(' ').next().unwrap().to_string(), false)
    }
}

/// Every page of `pages` whose record has a length of its own is read back alone at its
/// offset: (found, with no length of its own).
fn read_back(pages: &[serde_json::Value]) -> (usize, usize) {
    let (mut found, mut shared) = (0, 0);
    for page in pages {
        let file = PathBuf::from(page["warc_filename"].as_str().expect("a file"));
        let offset = page["warc_record_offset"].as_u64().expect("an offset");
        let Some(length) = page["warc_record_length"].as_u64() else {
            shared += 1;
            continue;
        };
        let (uri, more) = only_record_uri(&record_bytes(&file, offset, length));
        assert_eq!(uri, page["url"].as_str().unwrap(), "{page}");
        assert!(
            !more,
            "more than one record at {offset}+{length} in {file:?}"
        );
        found += 1;
    }
    (found, shared)
}

#[test]
fn every_page_extracted_is_found_again_at_its_offset_and_length() {
    let mut inputs = sample();
    inputs.extend(fixtures());
    let mut total = (0, 0);
    for input in &inputs {
        let pages = json_lines(&ok(indexer(
            &["extract", "-q", "--keep-empty", "--detector", "none"],
            &[input],
        )));
        for page in &pages {
            assert_eq!(page["warc_filename"], input.display().to_string(), "{page}");
        }
        let (found, shared) = read_back(&pages);
        total = (total.0 + found, total.1 + shared);
    }
    // One fixture is a whole file in one gzip member: its record shares it with the
    // request and metadata records.
    // The sample's 100 pages and the fixtures' 98 others are each read back alone.
    assert_eq!(
        total,
        (198, 1),
        "(found again, without a length of their own)"
    );
}

#[test]
fn a_folder_page_carries_its_file_path_and_size() {
    let folder = tempfile::tempdir().unwrap();
    let page = folder.path().join("a.html");
    let html =
        "<html><head><title>A</title></head><body><p>Sea otters hold hands.</p></body></html>";
    std::fs::write(&page, html).unwrap();
    let pages = json_lines(&ok(indexer(&["extract", "-q"], &[folder.path()])));
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0]["warc_filename"], page.display().to_string());
    assert_eq!(pages[0]["warc_record_offset"], 0);
    assert_eq!(pages[0]["warc_record_length"], html.len());
}

#[test]
fn search_hits_and_export_carry_the_record_s_place() {
    let scratch = tempfile::tempdir().unwrap();
    let index = scratch.path().join("index");
    let index_arg = index.to_str().unwrap();
    ok(indexer(&["build", "-q", "--index", index_arg], &sample()));
    let exported = json_lines(&ok(indexer::<&str>(
        &["export", "--index", index_arg, "-q"],
        &[],
    )));
    assert_eq!(exported.len(), 100);
    assert_eq!(read_back(&exported), (100, 0));
    let results: serde_json::Value = serde_json::from_str(&ok(indexer::<&str>(
        &["search", index_arg, "ownership", "--json", "-q"],
        &[],
    )))
    .unwrap();
    let hits = results["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert_eq!(read_back(hits), (hits.len(), 0));
}

/// The rows of a dolma folder's `documents` or `attributes/indexer` file.
fn dolma_rows(path: &Path) -> Vec<serde_json::Value> {
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    json_lines(&text)
}

/// The characters of `text` in the spans scored below one half.
fn kept_spans(text: &str, spans: &serde_json::Value) -> String {
    let characters: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for span in spans.as_array().unwrap() {
        let (start, end) = (span[0].as_u64().unwrap(), span[1].as_u64().unwrap());
        if span[2].as_f64().unwrap() < 0.5 {
            out.extend(&characters[start as usize..end as usize]);
        }
    }
    out
}

#[test]
fn dolma_documents_hold_the_whole_text_and_their_kept_spans_give_extract_s_text() {
    let mut inputs = sample();
    inputs.push(repo().join("tests/data/fixtures/resiliparse-cc2020-slice.warc.gz"));
    let scratch = tempfile::tempdir().unwrap();
    let folder = scratch.path().join("dolma");
    let mut args = vec!["extract", "-q", "--keep-empty", "--format", "dolma", "-o"];
    args.push(folder.to_str().unwrap());
    ok(indexer(&args, &inputs));
    let documents = dolma_rows(&folder.join("documents/part-0000.jsonl.gz"));
    let attributes = dolma_rows(&folder.join("attributes/indexer/part-0000.jsonl.gz"));
    let kept = json_lines(&ok(indexer(&["extract", "-q", "--keep-empty"], &inputs)));
    let whole = json_lines(&ok(indexer(
        &["extract", "-q", "--keep-empty", "--detector", "none"],
        &inputs,
    )));
    assert_eq!(documents.len(), kept.len());
    assert_eq!(attributes.len(), kept.len());
    let mut some_dropped = 0;
    for (((document, row), page), all) in documents.iter().zip(&attributes).zip(&kept).zip(&whole) {
        assert_eq!(document["id"], row["id"]);
        assert_eq!(document["id"], page["record_id"]);
        assert_eq!(document["source"], "indexer");
        assert_eq!(document["created"], page["date"]);
        assert_eq!(document["metadata"]["url"], page["url"]);
        assert_eq!(
            document["metadata"]["warc_record_offset"],
            page["warc_record_offset"]
        );
        let text = document["text"].as_str().unwrap();
        assert_eq!(
            text,
            all["text"].as_str().unwrap(),
            "the whole visible text"
        );
        let dropped = &row["attributes"]["indexer__template__dropped"];
        assert_eq!(kept_spans(text, dropped), page["text"].as_str().unwrap());
        // The runs cover the text, end to end.
        let runs = dropped.as_array().unwrap();
        let characters = text.chars().count() as u64;
        assert_eq!(runs.first().map_or(0, |run| run[0].as_u64().unwrap()), 0);
        assert_eq!(
            runs.last().map_or(0, |run| run[1].as_u64().unwrap()),
            characters
        );
        for pair in runs.windows(2) {
            assert_eq!(pair[0][1], pair[1][0]);
        }
        let probabilities = row["attributes"]["indexer__template__probability"]
            .as_array()
            .unwrap();
        for span in probabilities {
            let p = span[2].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&p), "{span}");
            assert!(span[1].as_u64().unwrap() <= characters);
        }
        some_dropped += usize::from(runs.iter().any(|run| run[2] == 1.0));
    }
    assert!(some_dropped > 50, "{some_dropped} pages with text dropped");
}

#[test]
fn dolma_output_needs_a_folder() {
    let output = indexer(&["extract", "-q", "--format", "dolma"], &sample());
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("--output DIR"), "{message}");
}
