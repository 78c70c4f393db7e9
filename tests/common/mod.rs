//! Paths shared by the end-to-end tests. Each test binary uses a part of them.
#![allow(dead_code)]

pub mod server;
pub mod updates;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};

/// No input paths, for commands that take none (`stats IDX`).
pub const NO_INPUTS: &[&str] = &[];

/// Runs the `indexer` binary with `args`, then `inputs`.
pub fn indexer<P: AsRef<OsStr>>(args: &[&str], inputs: &[P]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(args)
        .args(inputs)
        .output()
        .expect("run indexer")
}

/// The standard output of a run that must have succeeded (its stderr and stdout are shown
/// when it did not).
pub fn ok(output: Output) -> String {
    assert!(
        output.status.success(),
        "indexer failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8(output.stdout).expect("utf-8 stdout")
}

/// A JSON line of `extract` without where its record lies (`warc_filename`,
/// `warc_record_offset`, `warc_record_length`): for comparing runs over the same pages read
/// from other files.
pub fn without_provenance(line: &str) -> String {
    let mut page: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    let fields = page.as_object_mut().expect("a JSON object");
    for key in ["warc_filename", "warc_record_offset", "warc_record_length"] {
        fields.remove(key);
    }
    page.to_string()
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed sample crawls in `data/`.
pub fn sample() -> Vec<PathBuf> {
    sample_files("warc.gz")
}

/// The committed sample's files with the given ending (`warc.gz`, `labels.jsonl.gz`).
pub fn sample_files(ending: &str) -> Vec<PathBuf> {
    ["python311", "rustbook", "scrapy28"]
        .iter()
        .map(|site| repo().join("data").join(format!("{site}.{ending}")))
        .collect()
}

/// The `(url, text)` of every page `indexer extract` printed, in order.
pub fn extracted_pages(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .map(|line| {
            let page: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            (
                page["url"].as_str().unwrap_or_default().to_string(),
                page["text"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A WARC response record of the HTML page `html` at `url`, with a `WARC-Date` when `date`
/// gives one.
pub fn html_response_record(url: &str, date: Option<&str>, html: &str) -> Vec<u8> {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}");
    let date = date.map_or(String::new(), |date| format!("WARC-Date: {date}\r\n"));
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n{date}\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    record.extend_from_slice(http.as_bytes());
    record.extend_from_slice(b"\r\n\r\n");
    record
}
