//! What the `add`, `delete` and re-deciding tests share: small crawls of made-up sites, the
//! sample's records written again, and the commands run against an index.

use std::path::{Path, PathBuf};

use super::{NO_INPUTS, html_response_record, indexer, ok};

/// A page of `site` about `subject`, with the site's menu and footer around it.
pub fn page(site: &str, subject: &str) -> String {
    format!(
        "<html><head><title>{subject} at {site}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/guide\">Guide</a> <a href=\"/about\">About</a></nav>\
         <h1>{subject}</h1><p>The page about {subject} says what {subject} means and why.</p>\
         <footer>Copyright {site}, all rights reserved</footer></body></html>"
    )
}

/// A WARC file `name` in `dir` of the pages `(url, date, subject)`.
pub fn warc(dir: &Path, name: &str, pages: &[(&str, &str, &str)]) -> PathBuf {
    let records: Vec<Vec<u8>> = pages
        .iter()
        .map(|(url, date, subject)| {
            let site = url.split('/').nth(2).unwrap_or("example");
            html_response_record(url, Some(date), &page(site, subject))
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, records.concat()).unwrap();
    path
}

pub const DAY1: &str = "2024-05-01T00:00:00Z";

pub const DAY2: &str = "2024-05-02T00:00:00Z";

pub const DAY0: &str = "2024-04-30T00:00:00Z";

/// Five pages of a.example and three of b.example, crawled on day 1.
pub fn first_crawl(dir: &Path) -> PathBuf {
    warc(
        dir,
        "first.warc",
        &[
            ("http://a.example/1", DAY1, "albatross"),
            ("http://a.example/2", DAY1, "bumblebee"),
            ("http://a.example/3", DAY1, "chameleon"),
            ("http://a.example/4", DAY1, "dragonfly"),
            ("http://a.example/5", DAY1, "earthworm"),
            ("http://b.example/1", DAY1, "flamingo"),
            ("http://b.example/2", DAY1, "gazelle"),
            ("http://b.example/3", DAY1, "hedgehog"),
        ],
    )
}

pub fn build(index: &Path, input: &Path) {
    ok(indexer(
        &[
            "-q",
            "build",
            "--index",
            index.to_str().unwrap(),
            "--threads",
            "2",
        ],
        &[input],
    ));
}

pub fn add(index: &Path, inputs: &[&Path], more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "-q",
        "add",
        "--index",
        index.to_str().unwrap(),
        "--threads",
        "2",
    ];
    args.extend_from_slice(more);
    indexer(&args, inputs)
}

/// The summary `add --json` printed.
pub fn add_json(index: &Path, inputs: &[&Path]) -> serde_json::Value {
    let stdout = ok(add(index, inputs, &["--json"]));
    serde_json::from_str(&stdout).expect("add --json prints JSON")
}

pub fn stats(index: &Path) -> serde_json::Value {
    let stdout = ok(indexer(
        &["stats", index.to_str().unwrap(), "--json"],
        NO_INPUTS,
    ));
    serde_json::from_str(&stdout).unwrap()
}

pub fn documents(index: &Path) -> u64 {
    stats(index)["index"]["documents"].as_u64().unwrap()
}

/// The URLs (in rank order) and titles `search` finds for `query`.
pub fn found(index: &Path, query: &str) -> Vec<(String, String)> {
    let stdout = ok(indexer(
        &[
            "search",
            index.to_str().unwrap(),
            query,
            "--json",
            "-n",
            "50",
        ],
        NO_INPUTS,
    ));
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            (
                hit["url"].as_str().unwrap().to_string(),
                hit["title"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub fn urls(index: &Path, query: &str) -> Vec<String> {
    let mut urls: Vec<String> = found(index, query).into_iter().map(|(u, _)| u).collect();
    urls.sort();
    urls
}

pub fn count(summary: &serde_json::Value, name: &str) -> u64 {
    summary[name]
        .as_u64()
        .unwrap_or_else(|| panic!("{name} in {summary}"))
}

pub fn delete(index: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["delete", "--index", index.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let stdout = ok(indexer(&all, NO_INPUTS));
    serde_json::from_str(&stdout).unwrap()
}

/// The response records of the committed Rust book sample (40 pages of one site), as read.
pub fn rustbook_records() -> Vec<indexer::read::Record> {
    let bytes = std::fs::read(super::repo().join("data/rustbook.warc.gz")).unwrap();
    indexer::read::records_in_bytes(&bytes, 1 << 24)
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// `records` written as a WARC file `name` in `dir`.
pub fn write_records(dir: &Path, name: &str, records: &[indexer::read::Record]) -> PathBuf {
    let mut bytes = Vec::new();
    for record in records {
        let date = record
            .date
            .as_deref()
            .map_or(String::new(), |date| format!("WARC-Date: {date}\r\n"));
        bytes.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {}\r\n{date}\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
                record.url,
                record.block.len()
            )
            .as_bytes(),
        );
        bytes.extend_from_slice(&record.block);
        bytes.extend_from_slice(b"\r\n\r\n");
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every page's kept text, by URL, as `export` prints it.
pub fn exported_texts(index: &Path) -> Texts {
    let stdout = ok(indexer(
        &["export", "-q", "--index", index.to_str().unwrap()],
        NO_INPUTS,
    ));
    stdout
        .lines()
        .map(|line| {
            let page: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = |key: &str| page[key].as_str().unwrap_or_default().to_string();
            (text("url"), text("text"))
        })
        .collect()
}

/// The Rust book's first five pages built from a file of their own, `damage` done to that file
/// (given its path and the five records), then the other 35 added: the five pages' texts
/// before, the add's summary, and every page's text after.
pub fn add_after_damaging_the_first_file(
    damage: impl FnOnce(&Path, &[indexer::read::Record]),
) -> (Texts, serde_json::Value, Texts) {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let first = write_records(dir.path(), "first.warc", &records[..5]);
    let rest = write_records(dir.path(), "rest.warc", &records[5..]);
    let index = dir.path().join("idx");
    build(&index, &first);
    let before = exported_texts(&index);
    damage(&first, &records[..5]);
    let summary = add_json(&index, &[&rest]);
    (before, summary, exported_texts(&index))
}

pub type Texts = std::collections::BTreeMap<String, String>;

pub fn add_json_with(index: &Path, inputs: &[&Path], more: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(more);
    serde_json::from_str(&ok(add(index, inputs, &args))).expect("add --json prints JSON")
}

/// The Rust book's first 4 pages built with `flags`, then its next 3 added with `flags` and
/// `add_flags`: the add's summary, the texts after it, and the texts of one build of the 7.
pub fn four_then_three(flags: &[&str], add_flags: &[&str]) -> (serde_json::Value, Texts, Texts) {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let first = write_records(dir.path(), "first.warc", &records[..4]);
    let rest = write_records(dir.path(), "rest.warc", &records[4..7]);
    let build_with = |index: &Path, inputs: &[&Path]| {
        let mut args = vec!["-q", "build", "--index", index.to_str().unwrap()];
        args.extend_from_slice(flags);
        ok(indexer(&args, inputs));
    };
    let one_build = dir.path().join("one");
    build_with(&one_build, &[&first, &rest]);
    let index = dir.path().join("idx");
    build_with(&index, &[&first]);
    let mut more = flags.to_vec();
    more.extend_from_slice(add_flags);
    let summary = add_json_with(&index, &[&rest], &more);
    assert_eq!(count(&summary, "added"), 3);
    (summary, exported_texts(&index), exported_texts(&one_build))
}
