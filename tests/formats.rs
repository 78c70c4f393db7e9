//! Crawl formats through the real binary: ARC files and WET files in (issue 31).

use std::path::{Path, PathBuf};

mod common;
use common::{extracted_pages, indexer, ok, repo};

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/data/fixtures").join(name)
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const ARC_URLS: [&str; 4] = [
    "http://037426.cn/",
    "http://06.live-radsport.ch/fahrerstatistik_801/Anthony_Ravard.html",
    "http://0900-hovenier.nl/gelderland/oosterbeek/",
    "http://096355.com/video/11073.html?11073-0-2",
];

#[test]
fn an_arc_file_gives_the_pages_its_warc_original_gives() {
    let arc = extracted_pages(&ok(indexer(
        &["extract", "--detector", "none", "-q"],
        &[fixture("cc2020-slice.arc.gz")],
    )));
    let urls: Vec<&str> = arc.iter().map(|(url, _)| url.as_str()).collect();
    assert_eq!(urls, ARC_URLS);
    let warc = extracted_pages(&ok(indexer(
        &["extract", "--detector", "none", "-q"],
        &[fixture("resiliparse-cc2020-slice.warc.gz")],
    )));
    for (url, text) in &arc {
        let original = warc.iter().find(|(u, _)| u == url).expect("in the WARC");
        assert!(!text.is_empty(), "{url}");
        assert_eq!(text, &original.1, "{url}");
    }
}

#[test]
fn an_arc_file_is_told_by_its_content_not_its_name() {
    let gzipped = std::fs::read(fixture("cc2020-slice.arc.gz")).unwrap();
    let mut plain = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(&gzipped[..]),
        &mut plain,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("crawl")).unwrap();
    std::fs::write(dir.path().join("crawl/part-00000.dat"), &plain).unwrap();
    let pages = extracted_pages(&ok(indexer(
        &["extract", "--detector", "none", "-q"],
        &[dir.path().join("crawl")],
    )));
    let urls: Vec<&str> = pages.iter().map(|(url, _)| url.as_str()).collect();
    assert_eq!(urls, ARC_URLS);
}

#[test]
fn a_garbled_and_cut_arc_file_is_counted_not_a_panic() {
    let output = indexer(
        &["extract", "--detector", "none"],
        &[fixture("cc2020-slice-damaged.arc.gz")],
    );
    let message = stderr(&output);
    assert!(!message.contains("panicked"), "{message}");
    let pages = extracted_pages(&ok(output));
    let urls: Vec<&str> = pages.iter().map(|(url, _)| url.as_str()).collect();
    assert_eq!(urls[..2], [ARC_URLS[0], ARC_URLS[2]]);
    assert!(
        message.contains("1 broken_record_headers"),
        "the garbled header line is counted: {message}"
    );
    assert!(
        message.contains("1 truncated") || message.contains("1 truncated_record"),
        "the cut record is counted: {message}"
    );
}

/// The lines of the WET fixture's three pages of text, as written there.
fn wet_texts() -> Vec<(String, Vec<String>)> {
    let script = std::fs::read_to_string(fixture("make_arc_wet.py")).unwrap();
    let pages = &script[script.find("WET_PAGES = [").unwrap()..];
    let mut texts = Vec::new();
    for block in pages.split("    (\n").skip(1) {
        let strings: Vec<String> = block
            .lines()
            .map(str::trim)
            .filter(|line| line.starts_with('"'))
            .map(|line| {
                let inner = line.trim_end_matches(',').trim_matches('"');
                inner.trim_end_matches("\\n").to_string()
            })
            .collect();
        if strings.len() > 2 {
            texts.push((strings[0].clone(), strings[2..].to_vec()));
        }
    }
    texts
}

#[test]
fn a_wet_file_gives_pages_of_plain_text_every_line_kept() {
    let expected = wet_texts();
    assert_eq!(expected.len(), 3);
    let output = indexer(&["extract"], &[fixture("handmade.warc.wet.gz")]);
    let message = stderr(&output);
    let pages = extracted_pages(&ok(output));
    for (url, lines) in &expected {
        let (_, text) = pages.iter().find(|(u, _)| u == url).expect("page read");
        assert_eq!(text, &lines.join("\n"), "{url}");
    }
    assert!(
        message.contains("of plain text (WET), every line kept: no template removal"),
        "{message}"
    );
    // The warcinfo record alone is passed over.
    assert!(message.contains("skipped: 1 non_page_record;"), "{message}");
}

#[test]
fn a_wet_file_builds_an_index_whose_summary_counts_its_text_pages() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let index_arg = index.to_str().unwrap();
    let out = ok(indexer(
        &["build", "--index", index_arg],
        &[fixture("handmade.warc.wet.gz")],
    ));
    assert!(out.contains("plain text   4"), "{out}");
    let hits = ok(indexer(&["search", index_arg, "Buchenwald", "--json"], &[] as &[&Path]));
    assert!(hits.contains("wanderwege.example.de"), "{hits}");
}
