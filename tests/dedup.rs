//! End to end: one document per URL. A build keeps the latest record of a URL (the later
//! `WARC-Date`, then the later in the input) and counts the others in its summary, in one read
//! and in rounds; `search` over several indexes shows a URL held by two of them once.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{NO_INPUTS, html_response_record, indexer, ok, repo};

/// A folder of its own for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dedup-{}", std::process::id()))
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A WARC response record of an HTML page at `url`, fetched at `date`, saying `text`.
fn page_record(url: &str, date: &str, text: &str) -> Vec<u8> {
    padded_page_record(url, date, text, 0)
}

/// [`page_record`] with a comment of `padding` bytes after the text.
fn padded_page_record(url: &str, date: &str, text: &str, padding: usize) -> Vec<u8> {
    let comment = if padding == 0 {
        String::new()
    } else {
        format!("<!--{}-->", "p".repeat(padding))
    };
    let html = format!(
        "<html><head><title>Crawled page</title></head><body><h1>Crawled page</h1>\
         <p>{text}</p>{comment}</body></html>"
    );
    html_response_record(url, Some(date), &html)
}

fn write_warc(path: &Path, records: &[Vec<u8>]) -> PathBuf {
    std::fs::write(path, records.concat()).unwrap();
    path.to_path_buf()
}

const URL: &str = "http://news.example/front";

/// Three crawls of [`URL`] out of date order (the latest in the middle), each with a word of
/// its own, and two other pages, one of them crawled twice on the same date; each record
/// padded with `padding` bytes.
fn crawls(dir: &Path, padding: usize) -> PathBuf {
    let record = |url: &str, date: &str, text: &str| padded_page_record(url, date, text, padding);
    write_warc(
        &dir.join("crawls.warc"),
        &[
            record(URL, "2024-05-02T08:00:00Z", "Tuesday edition marmalade"),
            record(
                "http://other.example/about",
                "2024-05-01T00:00:00Z",
                "About us",
            ),
            record(URL, "2024-05-03T08:00:00Z", "Wednesday edition quince"),
            record(
                "http://news.example/tie",
                "2024-05-01T00:00:00Z",
                "First of a tie apricot",
            ),
            record(URL, "2024-05-01T08:00:00Z", "Monday edition gooseberry"),
            record(
                "http://news.example/tie",
                "2024-05-01T00:00:00Z",
                "Second of a tie damson",
            ),
        ],
    )
}

/// `indexer search INDEX… QUERY --json`: the results.
fn search(indexes: &[&Path], query: &str) -> Value {
    let mut args = vec!["search", "--json"];
    for index in &indexes[1..] {
        args.extend(["--index", index.to_str().unwrap()]);
    }
    args.push(indexes[0].to_str().unwrap());
    args.push(query);
    serde_json::from_str(&ok(indexer(&args, NO_INPUTS))).unwrap()
}

fn urls(results: &Value) -> Vec<String> {
    results["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["url"].as_str().unwrap().to_string())
        .collect()
}

fn documents(index: &Path) -> u64 {
    let out = ok(indexer(
        &["stats", "--json", index.to_str().unwrap()],
        NO_INPUTS,
    ));
    let stats: Value = serde_json::from_str(&out).unwrap();
    stats["index"]["documents"]
        .as_u64()
        .or_else(|| stats["documents"].as_u64())
        .unwrap_or_else(|| panic!("documents in {out}"))
}

/// Builds `input` into `index` with `extra` flags; the summary as JSON.
fn build(input: &Path, index: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["build", "--json", "--index", index.to_str().unwrap()];
    args.extend(extra);
    serde_json::from_str(&ok(indexer(&args, &[input]))).unwrap()
}

fn assert_latest_kept(index: &Path, summary: &Value) {
    assert_eq!(summary["pages"], 6, "{summary}");
    assert_eq!(summary["replaced_by_later_record"], 3, "{summary}");
    assert_eq!(documents(index), 3);
    let found = search(&[index], "edition");
    assert_eq!(urls(&found), [URL], "{found}");
    assert!(
        found["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("Wednesday"),
        "{found}"
    );
    for older in ["marmalade", "gooseberry", "apricot"] {
        assert_eq!(search(&[index], older)["total"], 0, "{older}");
    }
    assert_eq!(
        urls(&search(&[index], "damson")),
        ["http://news.example/tie"]
    );
}

#[test]
fn a_url_crawled_three_times_keeps_its_latest_record() {
    let dir = scratch("latest");
    let input = crawls(&dir, 0);
    let index = dir.join("index");
    let summary = build(&input, &index, &["--detector", "none"]);
    assert_latest_kept(&index, &summary);

    let text = ok(indexer(
        &[
            "build",
            "--index",
            index.to_str().unwrap(),
            "--detector",
            "none",
        ],
        &[&input],
    ));
    assert!(
        text.contains("replaced     3 by a later crawl of the same URL"),
        "{text}"
    );
}

#[test]
fn rounds_keep_the_latest_record_too() {
    let dir = scratch("rounds");
    // Pages of 200 kB each: more state than the least budget (64 MiB, nearly all of it the
    // index writer's) leaves for a site, so each site is a round of its own and the records,
    // dates too, go through the partition files.
    let input = crawls(&dir, 200_000);
    let index = dir.join("index");
    let summary = build(
        &input,
        &index,
        &["--detector", "bloom", "--memory-budget", "64"],
    );
    assert_eq!(summary["rounds"], 2, "{summary}");
    assert_latest_kept(&index, &summary);
}

#[test]
fn the_fixtures_example_page_is_found_once() {
    let fixtures = repo().join("tests/data/fixtures");
    let inputs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".warc"))
        .collect();
    let dir = scratch("fixtures");
    let index = dir.join("index");
    let summary: Value = serde_json::from_str(&ok(indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &inputs,
    )))
    .unwrap();
    assert!(
        summary["replaced_by_later_record"].as_u64().unwrap() >= 3,
        "{summary}"
    );
    let found = search(&[&index], "example domain");
    let example = urls(&found)
        .into_iter()
        .filter(|url| url == "http://example.com/")
        .count();
    assert_eq!(example, 1, "{found}");
}

#[test]
fn search_over_two_indexes_shows_a_url_they_share_once() {
    let dir = scratch("shards");
    let older = write_warc(
        &dir.join("older.warc"),
        &[
            page_record(URL, "2024-05-01T08:00:00Z", "harbour news harbour news"),
            page_record("http://news.example/a", "2024-05-01T08:00:00Z", "news of a"),
        ],
    );
    let newer = write_warc(
        &dir.join("newer.warc"),
        &[
            page_record(URL, "2024-05-02T08:00:00Z", "news"),
            page_record("http://news.example/b", "2024-05-01T08:00:00Z", "news of b"),
        ],
    );
    let (first, second) = (dir.join("first"), dir.join("second"));
    build(&older, &first, &["--detector", "none"]);
    build(&newer, &second, &["--detector", "none"]);

    let found = search(&[&first, &second], "news");
    let mut shown = urls(&found);
    assert_eq!(shown.len(), 3, "{found}");
    assert_eq!(found["hidden_duplicates"], 1, "{found}");
    let best = &found["hits"][0];
    assert_eq!(best["url"], URL, "the better page of the URL: {found}");
    assert!(
        best["snippet"].as_str().unwrap().contains("harbour"),
        "{found}"
    );
    shown.sort();
    shown.dedup();
    assert_eq!(shown.len(), 3, "{found}");

    // One result a page: the pages of the URL still come once, the others after it.
    let mut paged = Vec::new();
    for offset in 0..4 {
        let out = ok(indexer(
            &[
                "search",
                "--json",
                "-n",
                "1",
                "--offset",
                &offset.to_string(),
                "--index",
                second.to_str().unwrap(),
                first.to_str().unwrap(),
                "news",
            ],
            NO_INPUTS,
        ));
        let results: Value = serde_json::from_str(&out).unwrap();
        paged.extend(urls(&results));
    }
    assert_eq!(paged, urls(&found));
}
