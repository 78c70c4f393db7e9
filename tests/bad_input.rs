//! Bad input through the real binary: a clear message or a counted skip, never a panic.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::{NO_INPUTS, indexer};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn assert_no_panic(output: &Output) {
    let message = stderr(output);
    assert!(!message.contains("panicked"), "panic: {message}");
    assert!(
        matches!(output.status.code(), Some(0..=2)),
        "status {:?}: {message}",
        output.status
    );
}

/// One WARC response record holding `html`.
fn warc_record(url: &str, html: &[u8]) -> Vec<u8> {
    warc_response(url, "200 OK", html)
}

/// One WARC response record of HTTP status `status` holding `html`.
fn warc_response(url: &str, status: &str, html: &[u8]) -> Vec<u8> {
    let mut http =
        format!("HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n").into_bytes();
    http.extend_from_slice(html);
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    record.extend_from_slice(&http);
    record.extend_from_slice(b"\r\n\r\n");
    record
}

/// `build --index INDEX --skip-log LOG INPUT`.
fn build_with_skip_log(index: &Path, log: &Path, input: &Path) -> Output {
    let (index, log) = (index.to_str().unwrap(), log.to_str().unwrap());
    indexer(&["build", "--index", index, "--skip-log", log], &[input])
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `good.warc` in `dir`: one page of `http://example.org/`.
fn good_warc(dir: &Path) -> PathBuf {
    write(
        dir,
        "good.warc",
        &warc_record(
            "http://example.org/",
            b"<html><body><p>hello world</p></body></html>",
        ),
    )
}

#[test]
fn files_with_no_pages_fail_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut garbage = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..100_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        garbage.push(state as u8);
    }
    let cases = [
        write(dir.path(), "empty.warc", b""),
        write(
            dir.path(),
            "text.warc",
            b"just some text, not a web archive\n",
        ),
        write(dir.path(), "garbage.warc.gz", &garbage),
    ];
    for input in &cases {
        let index = dir.path().join("idx");
        let output = indexer(&["build", "--index", index.to_str().unwrap()], &[input]);
        assert_no_panic(&output);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("no HTML pages"),
            "{}",
            stderr(&output)
        );
        assert!(!index.join("CURRENT").exists());
        // A first build that fails leaves no folder behind (not even its lock file).
        assert!(!index.exists(), "{} was left", index.display());
    }
    // Nor the parents it made for the index, while the folders that were there stay, empty
    // as they were: given absolute, relative, and through `..`.
    let kept = dir.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    for index in [
        kept.join("made").join("for").join("idx"),
        std::path::PathBuf::from("made/for/idx"),
        kept.join("made").join("..").join("idx"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
            .current_dir(&kept)
            .args(["build", "--index"])
            .arg(&index)
            .arg(&cases[1])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let left: Vec<_> = std::fs::read_dir(&kept).unwrap().collect();
        assert!(left.is_empty(), "{} left {left:?}", index.display());
    }
    // A folder of files that are neither pages nor crawls: the error says what is read.
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    write(&notes, "notes.txt", b"not a page\n");
    let index = dir.path().join("idx");
    let output = indexer(&["build", "--index", index.to_str().unwrap()], &[&notes]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("0 records read: inputs are read when they are WARC, WET or ARC files"),
        "{}",
        stderr(&output)
    );
    // `extract` of it writes nothing and says why, without failing (a shard of a pipeline
    // may hold nothing).
    let output = indexer(&["extract"], &[&notes]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert!(
        stderr(&output).contains("warning: nothing was read: inputs are read when"),
        "{}",
        stderr(&output)
    );
    // A folder that was there before is left there, empty as it was.
    let made = dir.path().join("made-before");
    std::fs::create_dir(&made).unwrap();
    let output = indexer(&["build", "--index", made.to_str().unwrap()], &[&cases[1]]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(made.is_dir());
}

#[test]
fn a_missing_path_is_named_in_the_error() {
    let missing = Path::new("/nonexistent/crawl.warc.gz");
    let output = indexer(&["extract"], &[missing]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("/nonexistent/crawl.warc.gz"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn invalid_arguments_exit_with_two() {
    let output = indexer(&["build"], NO_INPUTS);
    assert_eq!(output.status.code(), Some(2));
    let output = indexer(
        &["extract", "--detector", "no-such-detector", "x.warc"],
        NO_INPUTS,
    );
    assert_eq!(output.status.code(), Some(2));
    let output = indexer(
        &["extract", "--bloom-drop-ratio", "1.5", "x.warc"],
        NO_INPUTS,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not between 0 and 1"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_garbage_file_among_good_ones_is_counted_and_the_rest_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = write(
        dir.path(),
        "garbage.warc",
        b"\x00\x01\x02 not a warc at all",
    );
    let good = good_warc(dir.path());
    let index = dir.path().join("idx");
    let output = indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &[&garbage, &good],
    );
    assert_no_panic(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["pages"], 1);
    assert_eq!(summary["skipped"]["not_warc"], 1);
}

/// The first bytes of a PNG image.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";

/// A picture given among the crawls: the build goes on, and stderr says the file was
/// skipped and why (it is not WARC, and what it is), as does the summary.
#[test]
fn a_png_among_good_inputs_is_skipped_and_stderr_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let picture = write(dir.path(), "photo.png", PNG);
    let good = good_warc(dir.path());
    let index = dir.path().join("idx");
    let output = indexer(
        &["build", "--index", index.to_str().unwrap()],
        &[&good, &picture],
    );
    assert_no_panic(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    let line = said
        .lines()
        .find(|line| line.starts_with("skipped ") && line.contains("photo.png"))
        .unwrap_or_else(|| panic!("no skip on stderr: {said}"));
    assert!(
        line.contains("not a WARC file, starts with \"\\x89PNG"),
        "{line}"
    );
    assert!(line.contains("a PNG image"), "{line}");
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("skipped      1 not_warc"), "{summary}");
    assert!(
        summary.contains("e.g. ") && summary.contains("a PNG image"),
        "{summary}"
    );
}

/// A build that finds no page fails, and still writes its skip log and says on stderr what
/// it passed over.
#[test]
fn a_build_that_finds_no_page_still_writes_its_skip_log() {
    let dir = tempfile::tempdir().unwrap();
    let picture = write(dir.path(), "photo.png", PNG);
    let log = dir.path().join("skips.jsonl");
    let output = build_with_skip_log(&dir.path().join("idx"), &log, &picture);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(
        said.contains("(1 record read; skipped: 1 not_warc)"),
        "{said}"
    );
    assert!(
        said.contains("skipped ") && said.contains("a PNG image"),
        "{said}"
    );
    let logged = std::fs::read_to_string(&log).expect("the skip log of a failed build");
    let lines: Vec<Value> = logged
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["reason"], "not_warc");
    assert!(lines[0]["input"].as_str().unwrap().ends_with("photo.png"));
    assert!(lines[0]["detail"].as_str().unwrap().contains("a PNG image"));

    // A log inside the folder of a first build: the failed build removes its folder, and the
    // log asked for there is written all the same, beside why the build failed.
    let index = dir.path().join("new-index");
    let inside = index.join("skips.jsonl");
    let output = build_with_skip_log(&index, &inside, &picture);
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.contains("no HTML pages found"), "{said}");
    let logged = std::fs::read_to_string(&inside).expect("the skip log inside the folder");
    assert_eq!(logged.lines().count(), 1);
    assert!(!index.join("LOCK").exists());
}

/// Stderr lists the first five records passed over, where and why, then how many more and
/// where they all are.
#[test]
fn stderr_lists_the_first_skips_and_says_where_the_rest_are() {
    let dir = tempfile::tempdir().unwrap();
    let mut warc = warc_record("http://example.org/", b"<p>the one page</p>");
    for at in 0..7 {
        let url = format!("http://example.org/missing-{at}");
        warc.extend(warc_response(&url, "404 Not Found", b"<p>gone</p>"));
    }
    let input = write(dir.path(), "crawl.warc", &warc);
    let output = indexer(&["extract"], &[&input]);
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    let skips: Vec<&str> = said
        .lines()
        .filter(|line| line.starts_with("skipped "))
        .collect();
    assert_eq!(skips.len(), 5, "{said}");
    assert!(
        skips[0].contains("crawl.warc at byte ")
            && skips[0].contains("http://example.org/missing-0: HTTP status 404 (http_status)"),
        "{}",
        skips[0]
    );
    assert!(
        said.contains("… and 2 more; --skip-log FILE lists them all"),
        "{said}"
    );
    assert!(
        said.contains("extracted 1 page with hybrid (8 records;"),
        "{said}"
    );

    let log = dir.path().join("skips.jsonl");
    let output = indexer(&["extract", "--skip-log", log.to_str().unwrap()], &[&input]);
    let said = stderr(&output);
    assert!(
        said.contains(&format!("… and 2 more; listed in {}", log.display())),
        "{said}"
    );
    let quiet = indexer(&["extract", "--quiet"], &[&input]);
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
}

/// A skip log that cannot be written fails before the build, which then leaves no index;
/// `train` and `eval`, which keep no skip log, refuse the flag rather than ignore it.
#[test]
fn an_unwritable_skip_log_fails_before_the_build_and_only_commands_that_write_one_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let sample = common::repo().join("data/rustbook.warc.gz");
    let index = dir.path().join("index");
    let unwritable = dir.path().join("no such folder").join("skips.jsonl");
    let output = build_with_skip_log(&index, &unwritable, &sample);
    let said = stderr(&output);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("cannot create"), "{said}");
    assert!(said.contains("no such folder"), "{said}");
    assert!(!index.exists(), "no index was built");
    // A log inside the folder the run makes is written once the folder is there.
    let inside = index.join("skips.jsonl");
    let output = build_with_skip_log(&index, &inside, &sample);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(inside.is_file());
    let dolma = dir.path().join("dolma");
    let inside = dolma.join("skips.jsonl");
    let output = indexer(
        &[
            "extract",
            "-q",
            "--format",
            "dolma",
            "-o",
            dolma.to_str().unwrap(),
            "--skip-log",
            inside.to_str().unwrap(),
        ],
        &[&sample],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(inside.is_file());
    let labels = common::repo().join("data/rustbook.labels.jsonl.gz");
    for command in ["train", "eval"] {
        let output = indexer(
            &[
                command,
                "--labels",
                labels.to_str().unwrap(),
                "--skip-log",
                dir.path().join("skips.jsonl").to_str().unwrap(),
            ],
            &[&sample],
        );
        let said = stderr(&output);
        assert!(!output.status.success(), "{command}: {said}");
        assert!(said.contains("--skip-log"), "{command}: {said}");
    }
}

#[test]
fn a_fifty_megabyte_page_and_a_hundred_thousand_nested_divs_are_cut_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = b"<html><body><p>".to_vec();
    let sentence = b"a very long page keeps going and going ";
    while big.len() < 50 << 20 {
        big.extend_from_slice(sentence);
    }
    big.extend_from_slice(b"</p></body></html>");
    let depth = 100_000;
    let nested = format!(
        "<html><body>{}deep text{}</body></html>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );

    let mut warc = warc_record("http://big.example/page", &big);
    warc.extend(warc_record("http://deep.example/page", nested.as_bytes()));
    warc.extend(warc_record(
        "http://fine.example/page",
        b"<p>an ordinary page</p>",
    ));
    let input = write(dir.path(), "hostile.warc", &warc);

    // bloom: a detector that keeps a lone page's text, so the cut text can be checked.
    let output = indexer(&["extract", "--detector", "bloom"], &[&input]);
    assert_no_panic(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    let pages: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[1]["text"], "deep text");
    assert_eq!(pages[2]["text"], "an ordinary page");

    let index = dir.path().join("idx");
    let output = indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &[&input],
    );
    assert_no_panic(&output);
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["pages"], 3);
    assert_eq!(summary["limited"]["page_bytes"], 1);
    assert_eq!(summary["limited"]["nesting_depth"], 1);
}

#[test]
fn a_folder_of_pages_is_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("guide")).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<title>Home</title><p>welcome to the folder site</p>",
    )
    .unwrap();
    std::fs::write(
        site.join("guide/intro.html"),
        "<title>Intro</title><p>an introduction</p>",
    )
    .unwrap();
    std::fs::write(site.join("notes.txt"), "not a page").unwrap();
    let output = indexer(
        &["extract", "--base-url", "https://folder.example/"],
        &[&site],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let urls: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["url"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        urls,
        [
            "https://folder.example/guide/intro.html",
            "https://folder.example/index.html"
        ]
    );
}

#[test]
fn search_and_stats_on_a_missing_empty_or_corrupt_index_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // A built index whose segment files are then overwritten with garbage.
    let corrupt = dir.path().join("corrupt");
    let page = write(
        dir.path(),
        "one.warc",
        &warc_record("http://a.example/", b"<p>hello corrupt world</p>"),
    );
    let built = indexer(&["build", "--index", corrupt.to_str().unwrap()], &[&page]);
    assert!(built.status.success(), "{}", stderr(&built));
    let mut damaged = 0;
    for generation in std::fs::read_dir(&corrupt).unwrap() {
        let generation = generation.unwrap().path();
        if !generation.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&generation).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".idx") || name.ends_with(".store") || name == "meta.json" {
                std::fs::write(&file, b"\x00garbage\xff").unwrap();
                damaged += 1;
            }
        }
    }
    assert!(damaged > 0);
    for index in [&missing, &empty, &corrupt] {
        for command in [
            vec!["search", index.to_str().unwrap(), "hello"],
            vec!["stats", index.to_str().unwrap()],
        ] {
            let output = indexer(&command, NO_INPUTS);
            assert_no_panic(&output);
            assert_eq!(output.status.code(), Some(1), "{command:?}");
            let message = stderr(&output);
            assert!(
                message.starts_with("error: ") && message.contains(index.to_str().unwrap()),
                "{command:?}: {message}"
            );
            // Each cause is said once.
            let causes: Vec<&str> = message.trim().split(": ").collect();
            let mut distinct = causes.clone();
            distinct.dedup();
            assert_eq!(causes, distinct, "{command:?}: {message}");
        }
    }
}

#[test]
fn zero_threads_means_every_core_and_absurd_counts_are_refused() {
    let sample = common::sample();
    let inputs: Vec<&Path> = sample.iter().map(PathBuf::as_path).collect();
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let zero = indexer(
        &[
            "build",
            "--json",
            "--detector",
            "none",
            "--threads",
            "0",
            "--index",
            index.to_str().unwrap(),
        ],
        &inputs,
    );
    assert!(zero.status.success(), "{}", stderr(&zero));
    let summary: Value = serde_json::from_slice(&zero.stdout).unwrap();
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    assert_eq!(summary["threads"], cores);
    let absurd = indexer(&["extract", "--threads", "100000"], &inputs);
    assert_eq!(absurd.status.code(), Some(2), "{}", stderr(&absurd));
    assert!(stderr(&absurd).contains("--threads"), "{}", stderr(&absurd));
}

/// `--skip-log` writes one JSON line per record passed over (input file, byte offset, URL,
/// reason) and per page cut short (by a limit, or by the end of its file); the summary names
/// the first few. WARC records that are
/// not pages are only counted.
#[test]
fn the_skip_log_locates_every_skipped_record() {
    let fixtures = common::repo().join("tests/data/fixtures");
    let clipped = fixtures.join("resiliparse-clipped.warc.gz");
    let dolma = fixtures.join("dolma-sample-0000.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("skips.jsonl");
    let out = indexer(
        &[
            "build",
            "--json",
            "--max-words",
            "50",
            "--index",
            dir.path().join("index").to_str().unwrap(),
            "--skip-log",
            log.to_str().unwrap(),
        ],
        &[&clipped, &dolma],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let skipped: u64 = summary["skipped"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(reason, _)| *reason != "non_page_record")
        .map(|(_, count)| count.as_u64().unwrap())
        .sum();
    let cut = summary["limited"]["word_count"].as_u64().unwrap();
    let truncated = summary["truncated_pages"].as_u64().unwrap();
    assert!(skipped > 0 && cut > 0);
    assert_eq!(truncated, 1, "the clipped file's last record, kept in part");
    assert_eq!(lines.len() as u64, skipped + cut + truncated);
    let truncated = lines
        .iter()
        .find(|line| line["reason"] == "truncated_record_kept")
        .expect("the clipped file's last record");
    assert!(
        truncated["input"]
            .as_str()
            .unwrap()
            .ends_with("resiliparse-clipped.warc.gz")
    );
    assert!(truncated["offset"].is_u64());
    // Cut pages are located too.
    let cut = lines
        .iter()
        .find(|line| line["reason"] == "cut_by_word_count")
        .expect("a page cut at 50 words");
    assert!(cut["input"].as_str().unwrap().ends_with(".warc.gz"));
    assert!(cut["offset"].is_u64());
    let not_html = lines
        .iter()
        .find(|line| line["reason"] == "not_html")
        .unwrap();
    assert!(
        not_html["input"]
            .as_str()
            .unwrap()
            .ends_with("dolma-sample-0000.warc.gz")
    );
    assert!(not_html["url"].is_string());
    assert_eq!(summary["first_skipped"].as_array().unwrap().len(), 5);
}

/// A file cut off inside its last record: the part that was read holds a usable page, so it
/// is indexed (and found) and counted as truncated; the same record cut inside its HTTP
/// headers holds none and is skipped as `truncated_record`.
#[test]
fn a_truncated_last_record_keeps_the_part_that_was_read() {
    let clipped = common::repo().join("tests/data/fixtures/resiliparse-clipped.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let out = indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &[&clipped],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["pages"], 1);
    assert_eq!(summary["truncated_pages"], 1);
    let found = indexer::<&str>(
        &["search", "-n", "0", index.to_str().unwrap(), "Revention"],
        &[],
    );
    assert_eq!(
        String::from_utf8_lossy(&found.stdout).trim(),
        "1 page matches"
    );

    // The same record cut inside its HTTP headers: nothing usable was read.
    let whole = std::fs::read(&clipped).unwrap();
    let mut plain = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(&whole[..]),
        &mut plain,
    )
    .unwrap_or_default();
    let body = plain
        .windows(4)
        .position(|w| w == b"HTTP")
        .expect("an HTTP response");
    let cut = write(dir.path(), "cut.warc", &plain[..body + 40]);
    let out = indexer(&["extract"], &[&cut]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("truncated_record"),
        "{}",
        stderr(&out)
    );
}

/// Runs `indexer serve INDEX` on a free port and waits up to 30 s for it to exit: its
/// output, or `None` when it was still serving (then stopped).
fn serve_exit(index: &Path) -> Option<Output> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["serve", index.to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
fn an_index_written_over_is_named_by_search_stats_and_serve_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let sample = common::sample();
    let built = indexer(
        &["build", "-q", "--index", index.to_str().unwrap()],
        &sample,
    );
    assert!(built.status.success(), "{}", stderr(&built));
    // Bytes inside every term dictionary and posting list written over, their footers (and
    // so the files' lengths and stated checksums) left as they were.
    let mut damaged = Vec::new();
    for generation in std::fs::read_dir(&index).unwrap() {
        let generation = generation.unwrap().path();
        if !generation.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&generation).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|ending| ending == "idx") {
                let mut bytes = std::fs::read(&file).unwrap();
                let (from, to) = (bytes.len() / 10, bytes.len() * 8 / 10);
                let mut state = 0x2545_f491_u32;
                for byte in &mut bytes[from..to] {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    *byte = state as u8;
                }
                std::fs::write(&file, bytes).unwrap();
                damaged.push(file.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    assert!(!damaged.is_empty());
    let names_a_damaged_file = |message: &str| damaged.iter().any(|name| message.contains(name));
    let mut refused = 0;
    for query in [
        "documentation",
        "python",
        "rust ownership",
        "\"the book\"",
        "asyncio",
    ] {
        let output = indexer(&["search", index.to_str().unwrap(), query], NO_INPUTS);
        assert_no_panic(&output);
        if output.status.code() == Some(1) {
            refused += 1;
            let message = stderr(&output);
            assert!(
                message.starts_with("error: ") && names_a_damaged_file(&message),
                "{query}: {message}"
            );
        }
    }
    assert!(refused > 0, "no query met the damage");
    let output = indexer(&["stats", index.to_str().unwrap()], NO_INPUTS);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        names_a_damaged_file(&stderr(&output)),
        "{}",
        stderr(&output)
    );
    let served = serve_exit(&index).expect("serve refuses a damaged index");
    assert_eq!(served.status.code(), Some(1), "{}", stderr(&served));
    assert!(
        names_a_damaged_file(&stderr(&served)),
        "{}",
        stderr(&served)
    );
}

#[test]
fn a_write_that_fails_in_tantivys_workers_is_reported_with_its_cause() {
    // A file-size limit makes writes past 1 MB fail with "File too large" (EFBIG), as a full
    // disk fails with "No space left on device", in tantivy's indexing threads while pages
    // are still being added; SIGXFSZ is ignored (an ignored signal stays ignored across
    // exec) so that the write returns the error. It takes a crawl large enough for tantivy
    // to write segments before the last page: the shared docs corpus of this machine.
    let docs = std::path::Path::new("/work/shared/corpus/docs");
    let Ok(entries) = std::fs::read_dir(docs) else {
        eprintln!("skipped: {} is not on this machine", docs.display());
        return;
    };
    let mut crawls: Vec<String> = entries
        .map(|entry| entry.unwrap().path().display().to_string())
        .filter(|path| path.ends_with(".warc.gz"))
        .collect();
    crawls.sort();
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let script = format!(
        "trap '' XFSZ; ulimit -f 2000; exec \"$0\" build -q --index \"$1\" {}",
        crawls.join(" ")
    );
    let output = std::process::Command::new("sh")
        .args([
            "-c",
            &script,
            env!("CARGO_BIN_EXE_indexer"),
            index.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let message = stderr(&output);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("File too large"), "{message}");
    assert!(!message.contains("index writer was killed"), "{message}");
}
