//! End to end: the real `indexer` binary on the committed sample in `data/`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

mod common;
use common::{NO_INPUTS, indexer, ok, sample, without_provenance};

/// Indexes of the sample, built once per test binary: (bloom, none).
fn indexes() -> (&'static Path, &'static Path) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    let (bloom, none) = BUILT.get_or_init(|| {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-{}", std::process::id()));
        let bloom = dir.join("bloom");
        let none = dir.join("none");
        for (path, detector) in [(&bloom, "bloom"), (&none, "none")] {
            let path_arg = path.to_str().unwrap();
            ok(indexer(
                &["build", "--index", path_arg, "--detector", detector],
                &sample(),
            ));
        }
        (bloom, none)
    });
    (bloom, none)
}

fn search(index: &Path, query: &str, n: usize) -> Vec<Value> {
    let out = ok(indexer(
        &[
            "search",
            index.to_str().unwrap(),
            query,
            "-n",
            &n.to_string(),
            "--json",
        ],
        NO_INPUTS,
    ));
    serde_json::from_str::<Value>(&out).unwrap()["hits"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_content_phrase_finds_its_page_at_rank_one() {
    let (bloom, none) = indexes();
    for index in [bloom, none] {
        let hits = search(index, "\"ownership rules\"", 5);
        assert!(!hits.is_empty(), "no hit in {}", index.display());
        let url = hits[0]["url"].as_str().unwrap();
        assert!(
            url.ends_with("ch04-01-what-is-ownership.html"),
            "rank 1 was {url}"
        );
    }
}

#[test]
fn a_navigation_phrase_matches_no_page_with_bloom_and_many_with_none() {
    let (bloom, none) = indexes();
    // The "This Page" box of the Python documentation's sidebar, on every Python page.
    let phrase = "\"report a bug show source\"";
    let with_none = search(none, phrase, 100);
    let with_bloom = search(bloom, phrase, 100);
    assert_eq!(with_none.len(), 30, "none matched {}", with_none.len());
    assert_eq!(
        with_bloom.len(),
        0,
        "bloom kept it on {} pages",
        with_bloom.len()
    );

    // "Understanding Ownership" is in the Rust book's chapter list on all 40 of its pages, and
    // in the text of a few.
    let with_none = search(none, "ownership", 100);
    let with_bloom = search(bloom, "ownership", 100);
    assert_eq!(with_none.len(), 40);
    assert!(
        with_bloom.len() < 20,
        "bloom matched {} pages",
        with_bloom.len()
    );
}

#[test]
fn compare_shows_fewer_postings_for_bloom() {
    let (bloom, none) = indexes();
    let out = ok(indexer(
        &[
            "compare",
            none.to_str().unwrap(),
            bloom.to_str().unwrap(),
            "--json",
        ],
        NO_INPUTS,
    ));
    let report: Value = serde_json::from_str(&out).unwrap();
    let figure = |name: &str| {
        report["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["figure"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(figure("documents")["a"], figure("documents")["b"]);
    let postings = figure("postings");
    assert!(postings["b"].as_u64().unwrap() < postings["a"].as_u64().unwrap());
    assert!(
        postings["ratio"].as_f64().unwrap() < 0.9,
        "ratio {}",
        postings["ratio"]
    );
}

/// `export` takes its index as `search` and `stats` do, or with `--index` as `build` names
/// it; a wrong count of indexes for `compare` and an unknown `--lang` code are argument
/// errors (exit code 2), as the help's exit codes say.
#[test]
fn export_takes_its_index_either_way_and_argument_mistakes_exit_2() {
    let (bloom, _) = indexes();
    let bloom = bloom.to_str().unwrap();
    let given = ok(indexer(&["export", "-q", bloom], NO_INPUTS));
    let flagged = ok(indexer(&["export", "-q", "--index", bloom], NO_INPUTS));
    assert_eq!(given.lines().count(), 100);
    assert_eq!(given, flagged);
    let data = common::repo().join("data");
    let data = data.to_str().unwrap();
    for (args, said) in [
        (vec!["compare", bloom], "compare takes two indexes"),
        (
            vec!["extract", "--lang", "en,xx", data],
            "unknown language \"xx\"",
        ),
        (vec!["export"], "required arguments were not provided"),
    ] {
        let output = indexer(&args, NO_INPUTS);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn stats_reports_the_stored_build_summary() {
    let (bloom, _) = indexes();
    let out = ok(indexer(
        &["stats", bloom.to_str().unwrap(), "--json"],
        NO_INPUTS,
    ));
    let stats: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stats["index"]["documents"], 100);
    assert_eq!(stats["build"]["pages"], 100);
    assert_eq!(stats["build"]["detector"], "bloom");
    assert_eq!(stats["build"]["passes"], 2);
    assert!(stats["build"]["blocks_dropped"].as_u64().unwrap() > 0);
    assert!(stats["build"]["peak_state_bytes"].as_u64().unwrap() > 0);
    assert!(stats["index"]["postings"].as_u64().unwrap() > 0);
    assert!(stats["index"]["bytes"]["store"].as_u64().unwrap() > 0);
}

#[test]
fn extract_does_not_depend_on_the_thread_count() {
    let one = ok(indexer(&["extract", "--threads", "1"], &sample()));
    let three = ok(indexer(&["extract", "--threads", "3"], &sample()));
    assert_eq!(one.lines().count(), 100);
    assert_eq!(one, three);
    // menu reads linked pages while pages are decided in parallel: its answer must not
    // depend on which thread read what first.
    let menu = |threads: &str| {
        ok(indexer(
            &["extract", "--detector", "menu", "--threads", threads],
            &sample(),
        ))
    };
    let (menu_one, menu_two) = (menu("1"), menu("2"));
    assert_eq!(menu_one, menu_two);
    assert_eq!(menu_one, menu("3"));
    assert_ne!(menu_one, one, "menu drops something");
    let first: Value = serde_json::from_str(one.lines().next().unwrap()).unwrap();
    for key in ["url", "site", "title", "text"] {
        assert!(first[key].is_string(), "missing {key}");
    }
}

#[test]
fn a_failed_build_leaves_the_previous_index_intact() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let index_arg = index.to_str().unwrap();
    ok(indexer(&["build", "--index", index_arg], &sample()[1..2]));
    let before = ok(indexer(&["stats", index_arg, "--json"], NO_INPUTS));

    let garbage = dir.path().join("garbage.warc");
    std::fs::write(&garbage, b"\x00\x01this is not a web archive\xff\xfe").unwrap();
    let failed = indexer(
        &["build", "--index", index_arg],
        std::slice::from_ref(&garbage),
    );
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(message.contains("no HTML pages"), "{message}");
    assert!(!message.contains("panicked"), "{message}");

    assert_eq!(
        ok(indexer(&["stats", index_arg, "--json"], NO_INPUTS)),
        before
    );
    let hits = search(&index, "ownership", 3);
    assert!(!hits.is_empty());
}

#[test]
fn a_small_memory_budget_splits_sites_into_rounds_with_the_same_decisions() {
    let extract = |budget: &str| {
        let out = ok(indexer(&["extract", "--memory-budget", budget], &sample()));
        let mut pages: Vec<(String, String)> = out
            .lines()
            .map(|line| {
                let page: Value = serde_json::from_str(line).unwrap();
                (
                    page["url"].as_str().unwrap().to_string(),
                    page["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        pages.sort();
        pages
    };
    let whole = extract("2048");
    let rounds = extract("64");
    assert_eq!(whole.len(), 100);
    assert_eq!(whole, rounds);

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("budget-{}", std::process::id()));
    let summary: Value = serde_json::from_str(&ok(indexer(
        &[
            "build",
            "--memory-budget",
            "64",
            "--json",
            "--index",
            dir.join("index").to_str().unwrap(),
        ],
        &sample(),
    )))
    .unwrap();
    assert_eq!(summary["rounds"], 3, "one round per site of the sample");
    assert_eq!(summary["pages"], 100);
    assert_eq!(summary["records"], 103);
    assert_eq!(summary["skipped"]["non_page_record"], 3);
    let warning = summary["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("64 MiB is below the build's fixed costs"),
        "{warning}"
    );

    let roomy: Value = serde_json::from_str(&ok(indexer(
        &[
            "build",
            "--json",
            "--index",
            dir.join("index").to_str().unwrap(),
        ],
        &sample(),
    )))
    .unwrap();
    assert_eq!(roomy["rounds"], 1);
    assert_eq!(roomy["warnings"], serde_json::json!([]));
}

#[test]
fn a_closed_pipe_ends_extract_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    // The sample's text is far more than a pipe buffer holds, so writing meets the closed pipe.
    let runs: [Vec<String>; 1] = [std::iter::once("extract".to_string())
        .chain(sample().iter().map(|p| p.display().to_string()))
        .collect()];
    for args in runs {
        let mut child = Command::new(env!("CARGO_BIN_EXE_indexer"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is gone: the next writes meet a closed pipe, as under `| head -1`.
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!first.is_empty());
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// `-o` naming a link to the process's standard output (`/proc/self/fd/1`, where `/dev/stdout`
/// leads), given relative to the folder the run starts in, writes to that output even when a
/// shell has sent it to an ordinary file (the link then ends at the file), after what the
/// file held when it was opened to append (`>>`): the output is not renamed over the link,
/// which would leave the link replaced (as root, `/dev/stdout` itself) and the redirected file
/// as it was, nor written from the file's first byte, as opening `/dev/stdout` again would.
#[cfg(unix)]
#[test]
fn an_output_linked_to_stdout_goes_to_the_redirected_file() {
    let dir = tempfile::tempdir().unwrap();
    // Named relative to the folder the run starts in, up through `..` from there.
    let link = dir.path().join("out.jsonl");
    let depth = dir.path().canonicalize().unwrap().components().count() - 1;
    let up = "../".repeat(depth);
    std::os::unix::fs::symlink(format!("{up}proc/self/fd/1"), &link).unwrap();
    let redirected = dir.path().join("redirected.jsonl");
    let before = "{\"url\":\"written before\"}\n";
    std::fs::write(&redirected, before).unwrap();
    let appending = std::fs::OpenOptions::new()
        .append(true)
        .open(&redirected)
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["extract", "-q", "--detector", "none", "-o", "out.jsonl"])
        .arg(common::repo().join("data/rustbook.warc.gz"))
        .current_dir(dir.path())
        .stdout(appending)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let kind = std::fs::symlink_metadata(&link).unwrap().file_type();
    assert!(kind.is_symlink(), "the link was replaced");
    let lines = written_after(&redirected, before);
    assert!(
        lines.lines().all(|line| line.starts_with("{\"url\":")),
        "{lines}"
    );
}

/// What `path` holds, checked to be `before` followed by an extraction's lines.
fn written_after(path: &Path, before: &str) -> String {
    let lines = std::fs::read_to_string(path).unwrap();
    let start: String = lines.chars().take(200).collect();
    assert!(lines.starts_with(before), "{start}");
    assert!(lines.lines().count() > 10, "{start}");
    lines
}

/// `-o /dev/fd/3`, with descriptor 3 opened by the shell to append to a file (`3>>`), writes
/// after what the file held: through a copy of the descriptor, not the file opened again
/// (which starts at its first byte).
#[cfg(unix)]
#[test]
fn an_output_naming_an_open_descriptor_appends_where_the_shell_opened_it() {
    let dir = tempfile::tempdir().unwrap();
    let appended = dir.path().join("appended.jsonl");
    let before = "{\"url\":\"written before\"}\n";
    std::fs::write(&appended, before).unwrap();
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"exec "$0" extract -q --detector none -o /dev/fd/3 "$1" 3>>"$2""#)
        .arg(env!("CARGO_BIN_EXE_indexer"))
        .arg(common::repo().join("data/rustbook.warc.gz"))
        .arg(&appended)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    written_after(&appended, before);
    assert!(output.stdout.is_empty());
}

/// `-o` and `--skip-log` naming a named pipe (as `/dev/stdout` or `/dev/null` would be: not a
/// file) write to it: the output is not renamed over it, which would leave a file where the
/// pipe was (or, run as root, where `/dev/null` was).
#[cfg(unix)]
#[test]
fn an_output_that_is_a_pipe_is_written_to_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<String> = sample()
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    let extract: Vec<String> = ["extract", "-q", "--detector", "none"]
        .into_iter()
        .map(String::from)
        .chain(inputs)
        .collect();
    let runs: [Vec<String>; 2] = [
        [extract.clone(), vec!["-o".into()]].concat(),
        [extract, vec!["--skip-log".into()]].concat(),
    ];
    for (at, args) in runs.into_iter().enumerate() {
        let pipe = dir.path().join(format!("pipe{at}"));
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        assert!(made.unwrap().success(), "mkfifo");
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        let run = |to: &Path| {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
                .args(&args)
                .arg(to)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{args:?}: {stderr}");
        };
        run(&pipe);
        // Checked before waiting on the reader, which a pipe renamed over would leave waiting.
        let kind = std::fs::metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?}: the pipe was replaced");
        let through_the_pipe = reader.join().unwrap();
        let file = dir.path().join(format!("file{at}"));
        run(&file);
        assert_eq!(through_the_pipe, std::fs::read(&file).unwrap(), "{args:?}");
        if at == 0 {
            assert!(
                String::from_utf8(through_the_pipe)
                    .unwrap()
                    .contains("\"url\":")
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        4,
        "no file beside them"
    );
}

/// Ordinary input is searched, never refused: a query that is not query syntax is searched as
/// its words (stderr says so), words after the index need no quotes, a query may start with a
/// hyphen, `-n 0` counts, and `--offset` pages on with the ranks counting on.
#[test]
fn search_takes_ordinary_input_and_pages() {
    let (bloom, _) = indexes();
    let index = bloom.to_str().unwrap();
    for query in ["print()", "std::vec", "[1,2]", "https://doc.rust-lang.org"] {
        let out = indexer(&["search", index, query, "--json"], NO_INPUTS);
        assert_eq!(out.status.code(), Some(0), "{query}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("searched as plain words"),
            "{query}: {stderr}"
        );
        let results: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(results["fallback"].is_string(), "{query}");
        assert!(results["total"].as_u64().unwrap() > 0, "{query}");
    }
    let unquoted: Value = serde_json::from_str(&ok(indexer(
        &["search", index, "ownership", "rules", "--json", "-n", "3"],
        NO_INPUTS,
    )))
    .unwrap();
    assert_eq!(unquoted["query"], "ownership rules");
    assert!(unquoted["fallback"].is_null());
    let total = unquoted["total"].as_u64().unwrap();
    assert!(total > 3);
    let next: Value = serde_json::from_str(&ok(indexer(
        &[
            "search",
            index,
            "ownership rules",
            "--offset",
            "3",
            "-n",
            "3",
            "--json",
        ],
        NO_INPUTS,
    )))
    .unwrap();
    assert_eq!(next["total"].as_u64().unwrap(), total);
    assert_eq!(next["hits"][0]["rank"], 4);
    assert_ne!(next["hits"][0]["url"], unquoted["hits"][0]["url"]);
    let count = ok(indexer(
        &["search", index, "ownership", "rules", "-n", "0"],
        NO_INPUTS,
    ));
    assert_eq!(count.trim(), format!("{total} pages match"));
    // A leading hyphen is query syntax (exclude "ownership"), not an option.
    let excluded: Value = serde_json::from_str(&ok(indexer(
        &["search", index, "-ownership +rules", "--json"],
        NO_INPUTS,
    )))
    .unwrap();
    assert!(excluded["total"].as_u64().unwrap() < total);
    for hit in excluded["hits"].as_array().unwrap() {
        assert!(
            !hit["snippet"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("ownership")
        );
    }
}

/// `--version` names the commit, and an index's summary says which tool made it, from which
/// command line, and when.
#[test]
fn the_version_and_the_build_summary_name_their_origin() {
    let version = ok(indexer(&["--version"], NO_INPUTS));
    assert!(version.starts_with("indexer "), "{version}");
    assert!(version.contains("(commit "), "{version}");
    let (bloom, _) = indexes();
    let stats: Value = serde_json::from_str(&ok(indexer(
        &["stats", bloom.to_str().unwrap(), "--json"],
        NO_INPUTS,
    )))
    .unwrap();
    let build = &stats["build"];
    assert!(build["tool"].as_str().unwrap().contains("(commit "));
    let command_line: Vec<&str> = build["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert_eq!(command_line.get(1), Some(&"build"));
    let started = build["started"].as_str().unwrap();
    assert!(
        started.len() == 20 && started.starts_with("20") && started.ends_with('Z'),
        "{started}"
    );
}

/// A folder of WARC files is read as the files themselves (recognised by content, whatever
/// their names), hidden entries left out.
#[test]
fn a_folder_of_warc_files_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("crawl");
    std::fs::create_dir_all(crawl.join(".trash")).unwrap();
    for (at, file) in sample().iter().enumerate() {
        std::fs::copy(file, crawl.join(format!("segment-{at}"))).unwrap();
        std::fs::copy(file, crawl.join(".trash").join(format!("old-{at}.warc.gz"))).unwrap();
    }
    let index = dir.path().join("index");
    let summary: Value = serde_json::from_str(&ok(indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &[&crawl],
    )))
    .unwrap();
    assert_eq!(summary["pages"], 100);
}

/// `-` reads a WARC from standard input: the same pages as the file; named twice, a clear
/// error.
#[test]
fn a_dash_reads_a_warc_from_standard_input() {
    let file = sample()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("python311"))
        .unwrap();
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["extract", "--detector", "none", "-"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    let from_file = ok(indexer(&["extract", "--detector", "none"], &[&file]));
    let piped = ok(piped);
    let pages = |stdout: &str| stdout.lines().map(without_provenance).collect::<Vec<_>>();
    assert_eq!(pages(&piped), pages(&from_file));
    assert!(
        piped
            .lines()
            .all(|line| line.contains(r#""warc_filename":"-""#))
    );
    assert_eq!(from_file.lines().count(), 30);
    let twice = indexer(&["extract", "-", "-"], NO_INPUTS);
    assert_eq!(twice.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&twice.stderr)
            .contains("standard input (-) is named more than once")
    );
}

/// An index (detector `none`) of a folder holding `pages` (file name, HTML); the folder lives
/// as long as the returned directory.
fn index_of_pages(pages: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    for (name, html) in pages {
        std::fs::write(site.join(name), html).unwrap();
    }
    let index = dir.path().join("index");
    ok(indexer(
        &[
            "build",
            "--detector",
            "none",
            "--index",
            index.to_str().unwrap(),
        ],
        &[&site],
    ));
    (dir, index)
}

/// The hits of `query` in `index`, as `search --json` gives them.
fn json_hits(index: &Path, query: &str) -> Vec<Value> {
    let out: Value = serde_json::from_str(&ok(indexer(
        &["search", index.to_str().unwrap(), query, "--json"],
        NO_INPUTS,
    )))
    .unwrap();
    out["hits"].as_array().unwrap().clone()
}

/// The text of a hit's snippet at its `at`-th highlight (character offsets).
fn highlighted(hit: &Value, at: usize) -> String {
    let snippet: Vec<char> = hit["snippet"].as_str().unwrap().chars().collect();
    let range = &hit["highlights"][at];
    let (start, end) = (
        range[0].as_u64().unwrap() as usize,
        range[1].as_u64().unwrap() as usize,
    );
    snippet[start..end].iter().collect()
}

/// A word in a script written without spaces is highlighted whole: the analyzer's overlapping
/// bigrams are merged into one range, the last character included.
#[test]
fn unspaced_scripts_are_highlighted_whole() {
    let (_dir, index) = index_of_pages(&[(
        "a.html",
        "<title>鞄</title><p>新しいブリーフケースを買いました。とても便利です。</p>",
    )]);
    let hits = json_hits(&index, "ブリーフケース");
    let hit = &hits[0];
    assert_eq!(hit["highlights"].as_array().unwrap().len(), 1, "{hit}");
    assert_eq!(highlighted(hit, 0), "ブリーフケース");
    let plain = ok(indexer(
        &[
            "search",
            index.to_str().unwrap(),
            "ブリーフケース",
            "--color",
            "never",
        ],
        NO_INPUTS,
    ));
    assert!(plain.contains("新しい[ブリーフケース]を"), "{plain}");
}

/// Accents are folded in the one analyzer: a query typed with or without them finds the
/// page either way, and the highlight covers the word as written.
#[test]
fn accents_are_folded_in_queries_and_pages() {
    let (_dir, index) = index_of_pages(&[
        (
            "cv.html",
            "<title>Writing a résumé</title><p>A good Résumé fits on one page.</p>",
        ),
        (
            "cafe.html",
            "<title>Coffee</title><p>The cafe on the corner opens at seven.</p>",
        ),
    ]);
    for query in ["resume", "résumé", "RESUMÉ"] {
        let found = json_hits(&index, query);
        assert_eq!(found.len(), 1, "{query}: {found:?}");
        assert!(found[0]["url"].as_str().unwrap().ends_with("cv.html"));
        let marked = highlighted(&found[0], 0);
        assert!(marked == "Résumé" || marked == "résumé", "{marked}");
    }
    let found = json_hits(&index, "café");
    assert_eq!(found.len(), 1);
    assert!(found[0]["url"].as_str().unwrap().ends_with("cafe.html"));
}
