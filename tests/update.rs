//! `indexer add` and `indexer delete` end to end: pages added, replaced by URL, unchanged on a
//! second add, the index left as it was by a failed add, other detector options refused,
//! deletes by URL, site and file, the history in `stats`, one writer at a time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::server::Server;
use common::{NO_INPUTS, html_response_record, indexer, ok};

/// A page of `site` about `subject`, with the site's menu and footer around it.
fn page(site: &str, subject: &str) -> String {
    format!(
        "<html><head><title>{subject} at {site}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/guide\">Guide</a> <a href=\"/about\">About</a></nav>\
         <h1>{subject}</h1><p>The page about {subject} says what {subject} means and why.</p>\
         <footer>Copyright {site}, all rights reserved</footer></body></html>"
    )
}

/// A WARC file `name` in `dir` of the pages `(url, date, subject)`.
fn warc(dir: &Path, name: &str, pages: &[(&str, &str, &str)]) -> PathBuf {
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

const DAY1: &str = "2024-05-01T00:00:00Z";
const DAY2: &str = "2024-05-02T00:00:00Z";
const DAY0: &str = "2024-04-30T00:00:00Z";

/// Five pages of a.example and three of b.example, crawled on day 1.
fn first_crawl(dir: &Path) -> PathBuf {
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

fn build(index: &Path, input: &Path) {
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

fn add(index: &Path, inputs: &[&Path], more: &[&str]) -> std::process::Output {
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
fn add_json(index: &Path, inputs: &[&Path]) -> serde_json::Value {
    let stdout = ok(add(index, inputs, &["--json"]));
    serde_json::from_str(&stdout).expect("add --json prints JSON")
}

fn stats(index: &Path) -> serde_json::Value {
    let stdout = ok(indexer(
        &["stats", index.to_str().unwrap(), "--json"],
        NO_INPUTS,
    ));
    serde_json::from_str(&stdout).unwrap()
}

fn documents(index: &Path) -> u64 {
    stats(index)["index"]["documents"].as_u64().unwrap()
}

/// The URLs (in rank order) and titles `search` finds for `query`.
fn found(index: &Path, query: &str) -> Vec<(String, String)> {
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

fn urls(index: &Path, query: &str) -> Vec<String> {
    let mut urls: Vec<String> = found(index, query).into_iter().map(|(u, _)| u).collect();
    urls.sort();
    urls
}

fn count(summary: &serde_json::Value, name: &str) -> u64 {
    summary[name]
        .as_u64()
        .unwrap_or_else(|| panic!("{name} in {summary}"))
}

#[test]
fn new_pages_are_added_and_found() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let new = warc(
        dir.path(),
        "new.warc",
        &[
            ("http://a.example/6", DAY2, "iguana"),
            ("http://c.example/1", DAY2, "jellyfish"),
        ],
    );
    let summary = add_json(&index, &[&new]);
    assert_eq!(count(&summary, "added"), 2);
    assert_eq!(count(&summary, "replaced"), 0);
    assert_eq!(documents(&index), 10);
    assert_eq!(urls(&index, "iguana"), ["http://a.example/6"]);
    assert_eq!(urls(&index, "jellyfish"), ["http://c.example/1"]);
    assert_eq!(urls(&index, "albatross"), ["http://a.example/1"]);
}

#[test]
fn a_page_of_an_indexed_url_replaces_it_when_as_late_and_is_left_out_when_earlier() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let newer = warc(
        dir.path(),
        "newer.warc",
        &[("http://a.example/1", DAY2, "kangaroo")],
    );
    let summary = add_json(&index, &[&newer]);
    assert_eq!(
        (count(&summary, "replaced"), count(&summary, "added")),
        (1, 0)
    );
    assert_eq!(documents(&index), 8);
    assert_eq!(urls(&index, "kangaroo"), ["http://a.example/1"]);
    assert!(urls(&index, "albatross").is_empty(), "the old page is gone");

    let older = warc(
        dir.path(),
        "older.warc",
        &[("http://a.example/1", DAY0, "lemming")],
    );
    let summary = add_json(&index, &[&older]);
    assert_eq!(count(&summary, "older_than_indexed"), 1);
    assert_eq!(count(&summary, "replaced"), 0);
    assert_eq!(documents(&index), 8);
    assert!(urls(&index, "lemming").is_empty());
    assert_eq!(urls(&index, "kangaroo"), ["http://a.example/1"]);
}

#[test]
fn adding_the_same_crawl_again_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let crawl = first_crawl(dir.path());
    build(&index, &crawl);
    let before: Vec<_> = ["albatross", "page", "means", "flamingo"]
        .iter()
        .map(|query| found(&index, query))
        .collect();
    let built = stats(&index)["build"].clone();

    let summary = add_json(&index, &[&crawl]);
    assert_eq!(count(&summary, "unchanged"), 8);
    assert_eq!(count(&summary, "pages"), 0, "no page decided again");
    assert_eq!(count(&summary, "added") + count(&summary, "replaced"), 0);
    assert_eq!(documents(&index), 8);
    let after: Vec<_> = ["albatross", "page", "means", "flamingo"]
        .iter()
        .map(|query| found(&index, query))
        .collect();
    assert_eq!(after, before);
    // The detector learned nothing twice: its state is what the build left (none here).
    assert_eq!(summary["blocks_kept"], 0);
    assert_eq!(
        stats(&index)["build"]["settings"],
        built["settings"],
        "the same detector settings"
    );
}

#[test]
fn a_failed_add_leaves_the_index_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let current = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    let generations = || {
        let mut names: Vec<String> = std::fs::read_dir(&index)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = generations();

    let missing = dir.path().join("not-there.warc");
    let failed = add(&index, &[&missing], &[]);
    assert_eq!(failed.status.code(), Some(1));
    let no_pages = dir.path().join("empty.warc");
    std::fs::write(&no_pages, b"").unwrap();
    let failed = add(&index, &[&no_pages], &[]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("unchanged"), "{stderr}");

    assert_eq!(
        std::fs::read_to_string(index.join("CURRENT")).unwrap(),
        current
    );
    assert_eq!(generations(), before, "no generation left behind");
    assert_eq!(documents(&index), 8);
}

#[test]
fn the_live_generation_is_not_written_through_the_links() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let live = index.join(
        std::fs::read_to_string(index.join("CURRENT"))
            .unwrap()
            .trim(),
    );
    let meta = std::fs::read(live.join("meta.json")).unwrap();
    let managed = std::fs::read(live.join(".managed.json")).unwrap();
    // Held open as a reader would (serve): the old generation must stay whole until the
    // new one is live, and be removed only then.
    let new = warc(
        dir.path(),
        "new.warc",
        &[("http://a.example/1", DAY2, "mongoose")],
    );
    let dir_copy = dir.path().join("old-generation");
    std::fs::create_dir(&dir_copy).unwrap();
    for entry in std::fs::read_dir(&live).unwrap() {
        let entry = entry.unwrap();
        std::fs::hard_link(entry.path(), dir_copy.join(entry.file_name())).unwrap();
    }
    ok(add(&index, &[&new], &[]));
    assert_eq!(std::fs::read(dir_copy.join("meta.json")).unwrap(), meta);
    assert_eq!(
        std::fs::read(dir_copy.join(".managed.json")).unwrap(),
        managed
    );
    assert!(
        !live.exists(),
        "the old generation is removed once the new one is live"
    );
}

#[test]
fn add_refuses_other_detector_options_than_the_index_was_built_with() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let crawl = first_crawl(dir.path());
    ok(indexer(
        &[
            "-q",
            "build",
            "--index",
            index.to_str().unwrap(),
            "--one-pass",
        ],
        &[&crawl],
    ));
    let new = warc(
        dir.path(),
        "new.warc",
        &[("http://a.example/9", DAY2, "narwhal")],
    );
    let refused = add(&index, &[&new], &[]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("was built with --detector hybrid --one-pass"),
        "{stderr}"
    );
    let refused = add(
        &index,
        &[&new],
        &["--one-pass", "--detector", "incremental"],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(documents(&index), 8);
    ok(add(&index, &[&new], &["--one-pass"]));
    assert_eq!(documents(&index), 9);
}

fn delete(index: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["delete", "--index", index.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let stdout = ok(indexer(&all, NO_INPUTS));
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn pages_are_deleted_by_url_by_site_and_by_file() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));

    let deleted = delete(
        &index,
        &[
            "--url",
            "http://a.example/1",
            "--url",
            "http://nowhere.example/",
        ],
    );
    assert_eq!(deleted["deleted"], 1);
    assert_eq!(
        deleted["not_found"],
        serde_json::json!(["url http://nowhere.example/"])
    );
    assert!(urls(&index, "albatross").is_empty());
    assert_eq!(documents(&index), 7);

    let deleted = delete(&index, &["--site", "b.example"]);
    assert_eq!(deleted["deleted"], 3);
    assert!(urls(&index, "flamingo").is_empty());
    assert_eq!(documents(&index), 4);

    let list = dir.path().join("gone.txt");
    std::fs::write(
        &list,
        "# pages gone\nhttp://a.example/2\n\n  http://a.example/3\n",
    )
    .unwrap();
    let deleted = delete(&index, &["--urls", list.to_str().unwrap()]);
    assert_eq!(deleted["deleted"], 2);
    assert_eq!(documents(&index), 2);

    // From standard input; nothing found is no failure.
    let mut child = Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["delete", "--index", index.to_str().unwrap(), "--urls", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"http://a.example/4\nhttp://a.example/404\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = ok(output);
    assert!(stdout.contains("deleted        1 document"), "{stdout}");
    assert!(stdout.contains("not found      1"), "{stdout}");
    let deleted = delete(&index, &["--url", "http://a.example/404"]);
    assert_eq!(deleted["deleted"], 0);
    assert_eq!(urls(&index, "earthworm"), ["http://a.example/5"]);
    assert_eq!(documents(&index), 1);
}

#[test]
fn stats_shows_the_history_of_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let crawl = first_crawl(dir.path());
    build(&index, &crawl);
    let new = warc(
        dir.path(),
        "new.warc",
        &[("http://a.example/7", DAY2, "ocelot")],
    );
    ok(add(&index, &[&new], &[]));
    delete(&index, &["--site", "b.example"]);

    let history = stats(&index)["build"]["history"].clone();
    let kinds: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["build", "add", "delete"]);
    let after: Vec<u64> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["documents"].as_u64().unwrap())
        .collect();
    assert_eq!(after, [8, 9, 6]);
    assert_eq!(history[1]["counts"]["added"], 1);
    assert_eq!(history[2]["deleted"], serde_json::json!(["site b.example"]));

    let text = ok(indexer(&["stats", index.to_str().unwrap()], NO_INPUTS));
    assert!(text.contains("history"), "{text}");
    assert!(
        text.contains("add      9 documents after; 1 added"),
        "{text}"
    );
    assert!(text.contains("site b.example"), "{text}");

    // A build starts the history again.
    build(&index, &crawl);
    let history = stats(&index)["build"]["history"].clone();
    assert_eq!(history.as_array().unwrap().len(), 1);
}

#[test]
fn a_second_writer_gets_the_lock_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let lock = std::fs::File::options()
        .write(true)
        .open(index.join("LOCK"))
        .unwrap();
    lock.try_lock().expect("the test holds the lock");
    let new = warc(
        dir.path(),
        "new.warc",
        &[("http://a.example/8", DAY2, "pelican")],
    );
    for output in [
        add(&index, &[&new], &[]),
        indexer(
            &[
                "delete",
                "--index",
                index.to_str().unwrap(),
                "--site",
                "a.example",
            ],
            NO_INPUTS,
        ),
    ] {
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("its LOCK file is held"), "{stderr}");
    }
    drop(lock);
    assert_eq!(documents(&index), 8);
    ok(add(&index, &[&new], &[]));
    assert_eq!(documents(&index), 9);
}

#[test]
fn add_and_delete_refuse_a_directory_that_is_not_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = first_crawl(dir.path());
    let missing = dir.path().join("no-index");
    let output = add(&missing, &[&crawl], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not an indexer index"));
    assert!(!missing.exists(), "nothing made");
}

#[test]
fn serve_sees_an_add_and_a_delete_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &first_crawl(dir.path()));
    let server = Server::start(&[&index]);
    let found = |word: &str| {
        let reply = server.get(&format!("/api/search?q={word}"));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let hits = reply.json()["hits"].clone();
        hits.as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["url"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(found("quokka").is_empty());
    let new = warc(
        dir.path(),
        "new.warc",
        &[("http://d.example/1", DAY2, "quokka")],
    );
    ok(add(&index, &[&new], &[]));
    assert_eq!(found("quokka"), ["http://d.example/1"]);
    ok(indexer(
        &[
            "delete",
            "--index",
            index.to_str().unwrap(),
            "--url",
            "http://d.example/1",
        ],
        NO_INPUTS,
    ));
    assert!(found("quokka").is_empty());
    assert_eq!(found("albatross"), ["http://a.example/1"]);
}

/// The response records of the committed Rust book sample (40 pages of one site), as read.
fn rustbook_records() -> Vec<indexer::read::Record> {
    let bytes = std::fs::read(common::repo().join("data/rustbook.warc.gz")).unwrap();
    indexer::read::records_in_bytes(&bytes, 1 << 24)
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// `records` written as a WARC file `name` in `dir`.
fn write_records(dir: &Path, name: &str, records: &[indexer::read::Record]) -> PathBuf {
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
fn exported_texts(index: &Path) -> Texts {
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

#[test]
fn a_two_pass_add_that_takes_a_site_past_a_power_of_two_decides_it_again_as_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    assert_eq!(records.len(), 40);
    // Four pages alone are decided otherwise than the whole site decides them (with the
    // built-in models, five already are decided as the whole site: checked below).
    let first = write_records(dir.path(), "first.warc", &records[..4]);
    let rest = write_records(dir.path(), "rest.warc", &records[4..]);

    let one_build = dir.path().join("one");
    ok(indexer(
        &["-q", "build", "--index", one_build.to_str().unwrap()],
        &[&first, &rest],
    ));
    let whole = exported_texts(&one_build);

    let index = dir.path().join("idx");
    build(&index, &first);
    let before = exported_texts(&index);
    assert!(
        before.iter().any(|(url, text)| whole[url] != *text),
        "the first four pages alone are decided as the whole site decides them: \
         this test would show nothing"
    );
    let summary = add_json(&index, &[&rest]);
    assert_eq!(summary["redecided"]["sites"], 1, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 40, "{summary}");
    assert_eq!(summary["redecided"]["not_read_again"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 36);
    assert_eq!(documents(&index), 40);
    assert_eq!(exported_texts(&index), whole);

    // Six more pages (41 to 46, copies under new URLs) do not reach 64: only they are decided.
    let more: Vec<indexer::read::Record> = records[..6]
        .iter()
        .map(|record| {
            let mut record = record.clone();
            record.url = format!("{}?copy", record.url);
            record
        })
        .collect();
    let more = write_records(dir.path(), "more.warc", &more);
    let summary = add_json(&index, &[&more]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 6);
}

#[test]
fn a_crawl_file_of_one_gzip_stream_is_read_again_in_one_pass_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let plain = write_records(dir.path(), "first.warc", &records[..5]);
    let first = dir.path().join("first.warc.gz");
    let mut gzip = flate2::write::GzEncoder::new(
        std::fs::File::create(&first).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut gzip, &std::fs::read(&plain).unwrap()).unwrap();
    gzip.finish().unwrap();
    let rest = write_records(dir.path(), "rest.warc", &records[5..]);
    let one_build = dir.path().join("one");
    ok(indexer(
        &["-q", "build", "--index", one_build.to_str().unwrap()],
        &[&first, &rest],
    ));
    let index = dir.path().join("idx");
    build(&index, &first);
    let summary = add_json(&index, &[&rest]);
    assert_eq!(summary["redecided"]["pages"], 40, "{summary}");
    assert_eq!(summary["redecided"]["not_read_again"], 0, "{summary}");
    assert_eq!(exported_texts(&index), exported_texts(&one_build));
}

/// The Rust book's first five pages built from a file of their own, `damage` done to that file
/// (given its path and the five records), then the other 35 added: the five pages' texts
/// before, the add's summary, and every page's text after.
fn add_after_damaging_the_first_file(
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

type Texts = std::collections::BTreeMap<String, String>;

#[test]
fn pages_whose_files_are_gone_are_counted_and_left_as_decided() {
    let (before, summary, after) =
        add_after_damaging_the_first_file(|first, _| std::fs::remove_file(first).unwrap());
    assert_eq!(summary["redecided"]["not_read_again"], 5, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 35, "{summary}");
    assert_eq!(after.len(), 40);
    for (url, text) in &before {
        assert_eq!(
            &after[url], text,
            "{url} was not read again: kept as it was"
        );
    }
}

#[test]
fn pages_whose_files_changed_since_keep_their_decisions() {
    // The same URLs, offsets and lengths; one byte of each page's HTML other.
    let (before, summary, after) = add_after_damaging_the_first_file(|first, records| {
        let changed: Vec<indexer::read::Record> = records
            .iter()
            .map(|record| {
                let mut record = record.clone();
                let at = record.block.len() - 2;
                record.block[at] = if record.block[at] == b' ' {
                    b'\n'
                } else {
                    b' '
                };
                record
            })
            .collect();
        let dir = first.parent().unwrap();
        write_records(dir, first.file_name().unwrap().to_str().unwrap(), &changed);
    });
    assert_eq!(summary["redecided"]["not_read_again"], 5, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 35, "{summary}");
    for (url, text) in &before {
        assert_eq!(
            &after[url], text,
            "{url}: its file changed, so it keeps its decision"
        );
    }
}

#[test]
fn a_one_pass_add_decides_no_site_again() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let first = write_records(dir.path(), "first.warc", &records[..5]);
    let rest = write_records(dir.path(), "rest.warc", &records[5..]);
    let index = dir.path().join("idx");
    ok(indexer(
        &[
            "-q",
            "build",
            "--one-pass",
            "--index",
            index.to_str().unwrap(),
        ],
        &[&first],
    ));
    let summary = add_json_with(&index, &[&rest], &["--one-pass"]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 35);
}

fn add_json_with(index: &Path, inputs: &[&Path], more: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(more);
    serde_json::from_str(&ok(add(index, inputs, &args))).expect("add --json prints JSON")
}

/// The Rust book's first 4 pages built with `flags`, then its next 3 added with `flags` and
/// `add_flags`: the add's summary, the texts after it, and the texts of one build of the 7.
fn four_then_three(flags: &[&str], add_flags: &[&str]) -> (serde_json::Value, Texts, Texts) {
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

#[test]
fn redecide_touched_makes_an_add_decide_as_one_build_in_both_modes() {
    // 4 pages and 3 more stay under 8: by default a two-pass add leaves the first 4 as they
    // were decided, otherwise than one build of the 7 decides them.
    let (summary, after, whole) = four_then_three(&[], &[]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_ne!(
        after, whole,
        "the default add decides as one build: this test shows nothing"
    );

    for flags in [&[][..], &["--one-pass"][..]] {
        let (summary, after, whole) = four_then_three(flags, &["--redecide", "touched"]);
        assert_eq!(summary["redecided"]["rule"], "touched", "{summary}");
        assert_eq!(summary["redecided"]["sites"], 1, "{flags:?}: {summary}");
        assert_eq!(summary["redecided"]["pages"], 7, "{flags:?}: {summary}");
        assert_eq!(
            summary["redecided"]["not_read_again"], 0,
            "{flags:?}: {summary}"
        );
        // Two passes: the first four were decided otherwise (above). One pass goes on from the
        // stored models, and here already decides as one build: nothing to replace.
        let replaced = summary["redecided"]["replaced"].as_u64().unwrap();
        assert!(replaced <= 7, "{flags:?}: {summary}");
        assert_eq!(replaced > 0, flags.is_empty(), "{flags:?}: {summary}");
        assert_eq!(after.len(), 7);
        assert_eq!(after, whole, "{flags:?}");
    }
}

#[test]
fn pages_decided_again_the_same_way_are_left_in_place() {
    // `none` keeps every block of every page, whatever the site holds: deciding the site
    // again changes no page's decisions, so no document is replaced.
    let (summary, after, whole) =
        four_then_three(&["--detector", "none"], &["--redecide", "touched"]);
    assert_eq!(summary["redecided"]["pages"], 7, "{summary}");
    assert_eq!(summary["redecided"]["replaced"], 0, "{summary}");
    assert_eq!(after, whole);

    let (summary, ..) = four_then_three(&[], &["--redecide", "never"]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(summary["redecided"]["rule"], "never", "{summary}");
}
