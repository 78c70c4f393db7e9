//! End to end: the details a new user reads — counts in the singular and the plural, sizes in
//! units, a settings line short enough to read — and the size of the binary they install.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{NO_INPUTS, indexer, ok};

/// A WARC file of one HTML page, in `dir`.
fn one_page_warc(dir: &Path) -> PathBuf {
    let html =
        b"<html><head><title>One</title></head><body><p>a single page of text</p></body></html>";
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
    http.extend_from_slice(html);
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.org/one\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    record.extend_from_slice(&http);
    record.extend_from_slice(b"\r\n\r\n");
    let path = dir.join("one.warc");
    std::fs::write(&path, record).unwrap();
    path
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The line of `text` that starts with `start`.
fn line_starting<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|line| line.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{text}"))
}

/// Whether `text` ends with a size in a unit: "3.4 MiB", "981 B".
fn ends_with_a_size(text: &str) -> bool {
    let mut words = text.split_whitespace().rev();
    let (Some(unit), Some(figure)) = (words.next(), words.next()) else {
        return false;
    };
    ["B", "KiB", "MiB", "GiB"].contains(&unit) && figure.parse::<f64>().is_ok()
}

/// One record, one page, one thread, one bucket, one shard: every count people read is in
/// the singular when it is one, and `stats` gives sizes in units (`--json` in bytes).
#[test]
fn counts_of_one_read_in_the_singular_and_sizes_have_units() {
    let dir = tempfile::tempdir().unwrap();
    let warc = one_page_warc(dir.path());
    let index = dir.path().join("idx");
    let index_arg = index.to_str().unwrap();
    let summary = ok(indexer(
        &["build", "--index", index_arg, "--threads", "1"],
        &[&warc],
    ));
    assert_eq!(
        line_starting(&summary, "pages "),
        "pages          1 of 1 record"
    );
    assert!(
        line_starting(&summary, "memory ").contains("(1 batch)"),
        "{summary}"
    );
    assert!(
        line_starting(&summary, "time ").ends_with(", 1 thread)"),
        "{summary}"
    );

    let extracted = indexer(&["extract", "--threads", "1"], &[&warc]);
    assert!(
        stderr_of(&extracted).contains("extracted 1 page with hybrid (1 record) in "),
        "{}",
        stderr_of(&extracted)
    );

    let stats = ok(indexer(&["stats", index_arg], NO_INPUTS));
    let on_disk = line_starting(&stats, "on disk ");
    assert!(ends_with_a_size(on_disk), "{on_disk}");
    let components: Vec<&str> = stats
        .lines()
        .skip_while(|line| !line.starts_with("on disk "))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .collect();
    assert!(!components.is_empty(), "{stats}");
    for component in components {
        assert!(ends_with_a_size(component), "{component}");
    }
    let json: Value =
        serde_json::from_str(&ok(indexer(&["stats", index_arg, "--json"], NO_INPUTS))).unwrap();
    assert!(json["index"]["total_bytes"].as_u64().unwrap() > 0);

    let buckets = dir.path().join("buckets");
    let partitioned = ok(indexer(
        &[
            "partition",
            "--buckets",
            "1",
            "--out",
            buckets.to_str().unwrap(),
        ],
        &[&warc],
    ));
    assert!(
        partitioned.starts_with("1 record into 1 of 1 bucket ("),
        "{partitioned}"
    );
    let shard = dir.path().join("shard");
    let bucket = std::fs::read_dir(&buckets)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.to_string_lossy().ends_with(".warc.gz"))
        .expect("the bucket file");
    ok(indexer(
        &["build", "--index", shard.to_str().unwrap()],
        &[&bucket],
    ));
    let combined = ok(indexer(
        &[
            "combine",
            shard.to_str().unwrap(),
            "--index",
            dir.path().join("combined").to_str().unwrap(),
        ],
        NO_INPUTS,
    ));
    assert!(
        combined.starts_with("combined 1 shard: 1 page in 1 segment, in "),
        "{combined}"
    );
}

/// The summary's settings line names what differs from the detector's defaults (or says
/// there is nothing); `--verbose` lists every setting, and `--json` holds them all.
#[test]
fn the_settings_line_is_short_unless_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let warc = one_page_warc(dir.path());
    let index = dir.path().join("idx");
    let index_arg = index.to_str().unwrap();

    let summary = ok(indexer(&["build", "--index", index_arg], &[&warc]));
    assert_eq!(
        line_starting(&summary, "  settings "),
        "  settings     defaults (--verbose lists them)"
    );
    for line in summary.lines() {
        assert!(line.len() < 100, "{line}");
    }

    let bloom = ["build", "--index", index_arg, "--detector", "bloom"];
    let summary = ok(indexer(
        &[&bloom[..], &["--bloom-drop-ratio", "0.9"]].concat(),
        &[&warc],
    ));
    assert_eq!(
        line_starting(&summary, "  settings "),
        "  settings     drop_ratio=0.9; the rest defaults (--verbose lists all)"
    );
    let stats = ok(indexer(&["stats", index_arg], NO_INPUTS));
    assert_eq!(
        line_starting(&stats, "  settings "),
        line_starting(&summary, "  settings ")
    );

    let verbose = ok(indexer(
        &[&bloom[..], &["--bloom-drop-ratio", "0.9", "--verbose"]].concat(),
        &[&warc],
    ));
    let every = line_starting(&verbose, "  settings ");
    assert!(
        every.contains(" drop_ratio=0.9 ") && every.contains(" similarity=0.8"),
        "{every}"
    );
    let stats = ok(indexer(&["stats", "-v", index_arg], NO_INPUTS));
    assert_eq!(line_starting(&stats, "  settings "), every);

    let json: Value = serde_json::from_str(&ok(indexer(
        &[&bloom[..], &["--bloom-drop-ratio", "0.9", "--json"]].concat(),
        &[&warc],
    )))
    .unwrap();
    assert_eq!(json["settings"]["similarity"], 0.8);
}

/// `cargo build --release` gives a binary of at most 40 MB: the release profile carries no
/// debug information (the `bench` profile keeps line tables for profiling). Checked on the
/// binary the tests run, when they run in release (`cargo test --release`, as CI does).
#[test]
fn the_release_binary_is_at_most_forty_megabytes() {
    if cfg!(debug_assertions) {
        eprintln!("not a release build: the binary's size is checked under --release");
        return;
    }
    let bytes = std::fs::metadata(env!("CARGO_BIN_EXE_indexer"))
        .unwrap()
        .len();
    assert!(bytes <= 40_000_000, "the binary is {bytes} bytes");
}
