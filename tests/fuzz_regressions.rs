//! Replays the committed fuzz inputs in `tests/data/fuzz/<target>/` (crash reproducers and a
//! minimised corpus of each fuzz target) through exactly the calls the fuzz targets make:
//! `fuzz/src/lib.rs` is included here as it is. Each input only has to return: no panic.
//! See `fuzz/README.md` for running the fuzzers.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

#[path = "../fuzz/src/lib.rs"]
mod targets;

mod common;

/// Runs `run` on every file of `tests/data/fuzz/<target>/` and names every file that panics.
fn replay(target: &str, run: fn(&[u8])) {
    let dir = common::repo().join("tests/data/fuzz").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no inputs in {}", dir.display());
    let mut panicked = Vec::new();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            panicked.push(file.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(
        panicked.is_empty(),
        "{target}: {} of {} inputs panicked: {panicked:?}",
        panicked.len(),
        files.len()
    );
}

#[test]
fn warc_records_inputs_return() {
    replay("warc_records", targets::warc_records);
}

#[test]
fn http_page_inputs_return() {
    replay("http_page", targets::http_page);
}

#[test]
fn segment_inputs_return() {
    replay("segment", targets::segment);
}

#[test]
fn query_inputs_return() {
    replay("query", targets::query);
}

#[test]
fn model_file_inputs_return() {
    replay("model_file", targets::model_file);
}
