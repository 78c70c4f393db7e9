//! Paths shared by the end-to-end tests. Each test binary uses a part of them.
#![allow(dead_code)]

use std::path::PathBuf;

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
