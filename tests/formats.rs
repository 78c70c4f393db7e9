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
    let hits = ok(indexer(
        &["search", index_arg, "Buchenwald", "--json"],
        &[] as &[&Path],
    ));
    assert!(hits.contains("wanderwege.example.de"), "{hits}");
}

// ---- extract's output for pipelines: fields, formats, files, languages ----

/// The JSON objects of `extract`'s stdout.
fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// The records of a WARC file as (headers, block), gzip per member or plain.
fn warc_records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut plain = Vec::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(bytes), &mut plain)
            .unwrap();
    } else {
        plain = bytes.to_vec();
    }
    let mut records = Vec::new();
    let mut rest = &plain[..];
    while !rest.is_empty() {
        let end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8(rest[..end].to_vec()).unwrap();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length: "))
            .unwrap()
            .parse()
            .unwrap();
        let block = rest[end + 4..end + 4 + length].to_vec();
        assert_eq!(&rest[end + 4 + length..end + 8 + length], b"\r\n\r\n");
        records.push((head, block));
        rest = &rest[end + 8 + length..];
    }
    records
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(": "))
}

#[test]
fn json_lines_carry_record_id_date_charset_and_language_in_the_documented_order() {
    let stdout = ok(indexer(
        &["extract", "-q"],
        &[
            fixture("resiliparse-cc2020-slice.warc.gz"),
            fixture("handmade.warc.wet.gz"),
        ],
    ));
    let first = stdout.lines().next().unwrap();
    let keys = [
        "url",
        "site",
        "title",
        "record_id",
        "date",
        "warc_filename",
        "warc_record_offset",
        "warc_record_length",
        "charset",
        "lang",
        "language_score",
        "blocks_kept",
        "blocks_dropped",
        "text",
    ];
    let mut at = 0;
    for key in keys {
        let found = first[at..]
            .find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("{key} in order: {first}"));
        at += found;
    }
    let pages = json_lines(&stdout);
    for page in &pages {
        assert!(
            page["record_id"]
                .as_str()
                .unwrap()
                .starts_with("<urn:uuid:"),
            "{page}"
        );
        assert!(page["date"].as_str().unwrap().ends_with('Z'), "{page}");
        assert!(!page["charset"].as_str().unwrap().is_empty(), "{page}");
    }
    let german = pages
        .iter()
        .find(|p| p["site"] == "wanderwege.example.de")
        .unwrap();
    assert_eq!(german["lang"], "deu");
    assert_eq!(
        german["record_id"],
        "<urn:uuid:00000000-0000-4000-8000-000000000002>"
    );
    assert_eq!(german["date"], "2019-03-04T10:21:00Z");
    let hovenier = pages
        .iter()
        .find(|p| p["site"] == "0900-hovenier.nl")
        .unwrap();
    assert_eq!(hovenier["lang"], "nld");
    assert_eq!(hovenier["date"], "2020-08-08T18:02:09Z");
}

#[test]
fn pages_without_kept_text_are_left_out_and_counted_unless_asked_for() {
    let output = indexer(&["extract"], &[fixture("handmade.warc.wet.gz")]);
    let message = stderr(&output);
    assert_eq!(json_lines(&ok(output)).len(), 3);
    assert!(
        message.contains("wrote 3 to stdout, left out 1 with no kept text"),
        "{message}"
    );
    let every = ok(indexer(
        &["extract", "--keep-empty", "-q"],
        &[fixture("handmade.warc.wet.gz")],
    ));
    let pages = json_lines(&every);
    assert_eq!(pages.len(), 4);
    assert_eq!(pages[3]["text"], "");
    assert_eq!(pages[3]["lang"], serde_json::Value::Null);
}

#[test]
fn a_least_language_score_leaves_out_the_pages_the_detector_is_less_sure_of() {
    let all = json_lines(&ok(indexer(&["extract", "-q"], &common::sample())));
    let mut scores: Vec<f64> = all
        .iter()
        .filter(|page| page["lang"] == "eng")
        .map(|page| page["language_score"].as_f64().unwrap())
        .collect();
    assert!(scores.len() > 50, "{} English pages", scores.len());
    assert!(scores.iter().all(|score| (0.0..=1.0).contains(score)));
    scores.sort_by(f64::total_cmp);
    let least = scores[scores.len() / 2];
    let sure = scores.iter().filter(|&&score| score >= least).count();
    assert!(sure < scores.len(), "every score is {least}");
    let filter = format!("en:{least}");
    let output = indexer(&["extract", "--lang", &filter], &common::sample());
    let message = stderr(&output);
    let written = json_lines(&ok(output));
    assert_eq!(written.len(), sure, "{message}");
    assert!(
        written
            .iter()
            .all(|page| page["lang"] == "eng" && page["language_score"].as_f64().unwrap() >= least)
    );
    assert!(
        message.contains(&format!("{} in other languages", all.len() - sure)),
        "{message}"
    );
    let bad = indexer(&["extract", "--lang", "en:1.5"], &common::sample());
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("unknown language \"en:1.5\""),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_language_filter_keeps_the_pages_asked_for_and_counts_the_others() {
    let output = indexer(
        &["extract", "--lang", "de,fra"],
        &[fixture("handmade.warc.wet.gz")],
    );
    let message = stderr(&output);
    let sites: Vec<String> = json_lines(&ok(output))
        .iter()
        .map(|page| page["site"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sites, ["wanderwege.example.de", "cuisine.example.fr"]);
    assert!(
        message.contains("left out 1 with no kept text and 1 in other languages"),
        "{message}"
    );
    let unknown = indexer(
        &["extract", "--lang", "klingon"],
        &[fixture("handmade.warc.wet.gz")],
    );
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("unknown language \"klingon\""),
        "{}",
        stderr(&unknown)
    );
    let explained = ok(indexer(
        &["extract", "--explain", "--format", "jsonl", "-q"],
        &[fixture("handmade.warc.wet.gz")],
    ));
    let blocks = &json_lines(&explained)[0]["blocks"];
    assert_eq!(blocks[0]["rule"], "plain_text", "{blocks}");
    let wet_explained = indexer(
        &["extract", "--explain", "--format", "wet"],
        &[fixture("handmade.warc.wet.gz")],
    );
    assert!(!wet_explained.status.success());
    let none = ok(indexer(
        &["extract", "--no-lang", "-q"],
        &[fixture("handmade.warc.wet.gz")],
    ));
    assert!(json_lines(&none).iter().all(|page| page["lang"].is_null()));
}

#[test]
fn wet_output_is_warc_conversion_records_that_read_back_as_the_same_text() {
    let dir = tempfile::tempdir().unwrap();
    let wet = dir.path().join("part.warc.wet.gz");
    let input = fixture("resiliparse-cc2020-slice.warc.gz");
    let output = indexer(
        &["extract", "--format", "wet", "-o", wet.to_str().unwrap()],
        &[&input],
    );
    let message = stderr(&output);
    ok(output);
    assert!(
        message.contains(&format!("to {}", wet.display())),
        "{message}"
    );
    let bytes = std::fs::read(&wet).unwrap();
    let members = bytes
        .windows(3)
        .filter(|w| w == &[0x1f, 0x8b, 0x08])
        .count();
    let records = warc_records(&bytes);
    assert_eq!(members, records.len(), "a gzip member per record");
    assert_eq!(header(&records[0].0, "WARC-Type"), Some("warcinfo"));
    let jsonl = json_lines(&ok(indexer(&["extract", "-q"], &[&input])));
    assert_eq!(records.len(), jsonl.len() + 1);
    for ((head, block), page) in records[1..].iter().zip(&jsonl) {
        assert_eq!(header(head, "WARC-Type"), Some("conversion"));
        assert_eq!(header(head, "Content-Type"), Some("text/plain"));
        assert_eq!(header(head, "WARC-Target-URI"), page["url"].as_str());
        assert_eq!(header(head, "WARC-Date"), page["date"].as_str());
        assert_eq!(header(head, "WARC-Refers-To"), page["record_id"].as_str());
        assert_eq!(
            header(head, "Indexer-Source-Charset"),
            page["charset"].as_str()
        );
        assert!(
            header(head, "WARC-Record-ID")
                .unwrap()
                .starts_with("<urn:uuid:")
        );
        assert_eq!(
            std::str::from_utf8(block).unwrap(),
            page["text"].as_str().unwrap()
        );
    }
    // Our own reader takes the WET file: the same text, page for page.
    let again = json_lines(&ok(indexer(&["extract", "-q"], &[&wet])));
    assert_eq!(again.len(), jsonl.len());
    for (read_back, original) in again.iter().zip(&jsonl) {
        assert_eq!(read_back["url"], original["url"]);
        assert_eq!(read_back["text"], original["text"]);
        assert_eq!(read_back["date"], original["date"]);
    }
}

#[test]
fn output_files_are_compressed_by_their_extension_and_hold_what_stdout_gets() {
    let input = fixture("handmade.warc.wet.gz");
    let stdout = ok(indexer(&["extract", "-q"], &[&input]));
    let dir = tempfile::tempdir().unwrap();
    for name in ["pages.jsonl", "pages.jsonl.gz", "pages.jsonl.zst"] {
        let path = dir.path().join(name);
        ok(indexer(
            &["extract", "-q", "--output", path.to_str().unwrap()],
            &[&input],
        ));
        let bytes = std::fs::read(&path).unwrap();
        let text = if name.ends_with(".gz") {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                &mut text,
            )
            .unwrap();
            text
        } else if name.ends_with(".zst") {
            String::from_utf8(zstd::decode_all(&bytes[..]).unwrap()).unwrap()
        } else {
            String::from_utf8(bytes).unwrap()
        };
        assert_eq!(text, stdout, "{name}");
    }
}

#[test]
fn a_failed_run_leaves_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pages.jsonl.gz");
    let output = indexer(
        &["extract", "--output", out.to_str().unwrap()],
        &[
            fixture("handmade.warc.wet.gz"),
            dir.path().join("missing.warc.gz"),
        ],
    );
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("missing.warc.gz"),
        "{}",
        stderr(&output)
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}
