//! `indexer add` and `indexer delete` end to end: pages added, replaced by URL, unchanged on a
//! second add, the index left as it was by a failed add, other detector options refused,
//! deletes by URL, site and file, the history in `stats`, one writer at a time.

mod common;

use std::process::Command;

use common::server::Server;
use common::updates::*;
use common::{NO_INPUTS, indexer, ok};

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
    assert!(
        stdout.contains("deleted        1 document (of the 2 URLs asked for)"),
        "{stdout}"
    );
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
    // The summary's figures are the add's, and say so.
    assert!(text.contains("\nadded          "), "{text}");
    assert!(!text.contains("\nbuilt          "), "{text}");
    assert!(text.contains("the figures of the last add alone"), "{text}");

    // A build starts the history again.
    build(&index, &crawl);
    let text = ok(indexer(&["stats", index.to_str().unwrap()], NO_INPUTS));
    assert!(text.contains("\nbuilt          "), "{text}");
    assert!(!text.contains("last add"), "{text}");
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
