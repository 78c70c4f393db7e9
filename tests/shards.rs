//! Past one machine: a crawl whose hosts are scattered over several WARC files is split by
//! host (`partition`, one process per map task), each bucket is built into a shard (`build`,
//! one process per bucket), and the shards are joined (`combine`). The result must equal one
//! build over the whole crawl: the same pages with the same kept text, the same summed
//! summary, and the same top-10 `(url, score)` for 20 queries from the combined index, from
//! the shards searched together, and from the single index; and `extract` of the buckets,
//! sorted, prints the lines `extract` of the whole crawl prints. The same stages run under Apache
//! Spark in `spark_builds_the_index_one_machine_builds` when a PySpark environment exists
//! (`contrib/spark/setup_venv.sh`, which `.ci/run` runs; `INDEXER_REQUIRE_SPARK=1` makes a
//! missing one a failure).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tantivy::{DocAddress, TantivyDocument};

use indexer::index::{OpenIndex, stored_text};
use indexer::report::BuildSummary;

mod common;
use common::{indexer, ok, repo, sample, without_provenance};

/// Host buckets of the tests: fewer than the crawl's 9 sites, so a bucket holds several (all
/// four hold some).
const BUCKETS: &str = "4";

/// Queries on the sample's three documentation sites.
const QUERIES: [&str; 20] = [
    "ownership",
    "borrow checker",
    "python tutorial",
    "spider middleware",
    "asyncio",
    "error handling",
    "install",
    "struct",
    "closures",
    "request",
    "settings",
    "logging",
    "unicode strings",
    "iterator",
    "lifetime",
    "item pipeline",
    "selectors",
    "memory management",
    "exceptions",
    "\"the rust programming language\"",
];

/// The sample crawl made into 3 copies of each site under hosts of their own, shuffled and
/// cut into 4 WARC files, so every host's pages are scattered over every file.
fn scattered_crawl(dir: &Path) -> Vec<PathBuf> {
    let out = dir.join("crawl");
    let status = Command::new("python3")
        .arg(repo().join("contrib/spark/make_crawl.py"))
        .args(["3", "4"])
        .arg(&out)
        .args(sample())
        .status()
        .expect("run python3 contrib/spark/make_crawl.py");
    assert!(status.success());
    let mut parts: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    parts.sort();
    assert_eq!(parts.len(), 4);
    parts
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every page of an index: URL → (title, kept text).
fn pages_of(index: &Path) -> BTreeMap<String, (String, String)> {
    let open = OpenIndex::open(index).unwrap();
    let searcher = open.index.reader().unwrap().searcher();
    let mut pages = BTreeMap::new();
    for (ordinal, segment) in searcher.segment_readers().iter().enumerate() {
        for doc in 0..segment.max_doc() {
            let document: TantivyDocument =
                searcher.doc(DocAddress::new(ordinal as u32, doc)).unwrap();
            let url = stored_text(&document, open.fields.url);
            let page = (
                stored_text(&document, open.fields.title),
                stored_text(&document, open.fields.body),
            );
            assert!(pages.insert(url, page).is_none(), "a page indexed twice");
        }
    }
    pages
}

/// The counts of a build summary that must not depend on how the crawl was split.
fn counts(summary: &BuildSummary) -> serde_json::Value {
    serde_json::json!({
        "records": summary.records,
        "pages": summary.pages,
        "skipped": summary.skipped,
        "limited": summary.limited,
        "truncated_pages": summary.truncated_pages,
        "html_bytes": summary.html_bytes,
        "blocks_kept": summary.blocks_kept,
        "blocks_dropped": summary.blocks_dropped,
        "text_bytes_kept": summary.text_bytes_kept,
        "text_bytes_dropped": summary.text_bytes_dropped,
        "detector": summary.detector,
        "settings": summary.settings,
    })
}

/// The top 10 `(url, score)` of `query` over `indexes` searched together.
fn top_ten(indexes: &[&Path], query: &str) -> Vec<(String, f64)> {
    let mut args = vec!["search", "-n", "10", "--json", path(indexes[0]), query];
    for index in &indexes[1..] {
        args.extend(["--index", path(index)]);
    }
    let results: serde_json::Value =
        serde_json::from_str(&ok(indexer(&args, common::NO_INPUTS))).unwrap();
    let hits: Vec<(String, f64)> = results["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            (
                hit["url"].as_str().unwrap().to_string(),
                hit["score"].as_f64().unwrap(),
            )
        })
        .collect();
    for pair in hits.windows(2) {
        let ((url_a, score_a), (url_b, score_b)) = (&pair[0], &pair[1]);
        assert!(
            score_a > score_b || (score_a == score_b && url_a < url_b),
            "not best first, equal scores by URL: {pair:?}"
        );
    }
    hits
}

/// Asserts that `combined` and `shards` hold what `single` holds, and says what was compared.
fn assert_same_as_one_build(single: &Path, combined: &Path, shards: &[PathBuf]) {
    let (one, joined) = (pages_of(single), pages_of(combined));
    assert_eq!(one.len(), joined.len());
    assert!(
        one == joined,
        "the combined index holds other pages or text"
    );
    let mut from_shards = BTreeMap::new();
    for shard in shards {
        from_shards.extend(pages_of(shard));
    }
    assert!(one == from_shards, "the shards hold other pages or text");

    let summary_of =
        |index: &Path| -> BuildSummary { OpenIndex::open(index).unwrap().summary().unwrap() };
    let (one_summary, joined_summary) = (summary_of(single), summary_of(combined));
    assert_eq!(counts(&one_summary), counts(&joined_summary));

    let shard_paths: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let mut with_hits = 0;
    for query in QUERIES {
        let expected = top_ten(&[single], query);
        assert_eq!(
            expected,
            top_ten(&[combined], query),
            "combined index, {query}"
        );
        assert_eq!(
            expected,
            top_ten(&shard_paths, query),
            "shards searched together, {query}"
        );
        with_hits += usize::from(!expected.is_empty());
    }
    assert!(
        with_hits >= 18,
        "only {with_hits} of the queries match anything"
    );
    eprintln!(
        "equal to one build: {} pages with the same title and kept text; summary counts the same ({} records, {} pages, {} blocks kept, {} dropped); top-10 (url, score) identical for {} queries ({with_hits} with hits) from the combined index, the {} shards searched together, and the single index",
        one.len(),
        one_summary.records,
        one_summary.pages,
        one_summary.blocks_kept,
        one_summary.blocks_dropped,
        QUERIES.len(),
        shards.len()
    );
}

/// Runs `partition` of `inputs` into `buckets` buckets in `out`; its manifest.
fn partition(
    inputs: &[impl AsRef<std::ffi::OsStr>],
    buckets: &str,
    out: &Path,
) -> serde_json::Value {
    let args = [
        "partition",
        "-q",
        "--json",
        "--buckets",
        buckets,
        "--out",
        path(out),
    ];
    serde_json::from_str(&ok(indexer(&args, inputs))).unwrap()
}

/// The map step's files and manifests of a folder, by name.
fn folder_bytes(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(entry.path()).unwrap())
        })
        .collect()
}

#[test]
fn shards_built_by_a_loop_of_processes_equal_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let parts = scattered_crawl(dir.path());
    let single = dir.path().join("single");
    ok(indexer(&["build", "-q", "--index", path(&single)], &parts));

    // Map: one process per input file, each into a folder of its own.
    let work = dir.path().join("work");
    let mut manifests = Vec::new();
    for (task, part) in parts.iter().enumerate() {
        let out = work.join(format!("map-{task:05}"));
        let manifest: serde_json::Value = partition(&[part], BUCKETS, &out);
        manifests.push((out, manifest));
    }

    // A map task that dies half way leaves cut files and no manifest; run again, it writes
    // the same bytes, and a bucket file of an earlier run with other settings is removed.
    let (retried, _) = &manifests[1];
    let before = folder_bytes(retried);
    for (name, bytes) in &before {
        if name.ends_with(".warc.gz") {
            std::fs::write(retried.join(name), &bytes[..bytes.len() / 2]).unwrap();
        }
    }
    std::fs::remove_file(retried.join("manifest.json")).unwrap();
    std::fs::write(retried.join("bucket-7.warc.gz"), b"from an earlier run").unwrap();
    partition(&[&parts[1]], BUCKETS, retried);
    let after = folder_bytes(retried);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &before {
        if name != "manifest.json" {
            assert!(bytes == &after[name], "{name} differs after the retry");
        }
    }

    // Reduce: one build per bucket, of that bucket's files in map order.
    let mut buckets: BTreeMap<u64, Vec<PathBuf>> = BTreeMap::new();
    for (out, manifest) in &manifests {
        for file in manifest["files"].as_array().unwrap() {
            let bucket = file["bucket"].as_u64().unwrap();
            buckets
                .entry(bucket)
                .or_default()
                .push(out.join(file["file"].as_str().unwrap()));
        }
    }
    assert!(buckets.len() >= 2, "the crawl fell into one bucket");

    // `extract` of each bucket's files, in map order, gives the lines `extract` of the whole
    // crawl gives (sorted: buckets come out one after another), but for where each record
    // lies: in its bucket's file.
    let mut split_lines: Vec<String> = Vec::new();
    for files in buckets.values() {
        split_lines.extend(
            ok(indexer(&["extract", "-q"], files))
                .lines()
                .map(without_provenance),
        );
    }
    let mut whole_lines: Vec<String> = ok(indexer(&["extract", "-q"], &parts))
        .lines()
        .map(without_provenance)
        .collect();
    split_lines.sort();
    whole_lines.sort();
    assert_eq!(split_lines.len(), whole_lines.len());
    assert!(
        split_lines == whole_lines,
        "extract of the buckets differs from extract of the crawl"
    );
    let mut shards = Vec::new();
    for (bucket, files) in &buckets {
        let shard = work.join(format!("shard-{bucket}"));
        ok(indexer(&["build", "-q", "--index", path(&shard)], files));
        shards.push(shard);
    }

    // Combine, with the map step's skips.
    let combined = dir.path().join("combined");
    let mut args = vec!["combine", "-q", "--index", path(&combined)];
    let manifest_paths: Vec<PathBuf> = manifests
        .iter()
        .map(|(out, _)| out.join("manifest.json"))
        .collect();
    for manifest in &manifest_paths {
        args.extend(["--manifest", path(manifest)]);
    }
    ok(indexer(&args, &shards));
    assert_same_as_one_build(&single, &combined, &shards);

    // Merged into one segment: the same pages and scores.
    let merged = dir.path().join("merged");
    ok(indexer(
        &["combine", "-q", "--merge", "--index", path(&merged)],
        &shards,
    ));
    let stats: serde_json::Value = serde_json::from_str(&ok(indexer(
        &["stats", "--json", path(&merged)],
        common::NO_INPUTS,
    )))
    .unwrap();
    assert_eq!(
        stats["index"]["documents"].as_u64(),
        Some(pages_of(&single).len() as u64)
    );
    assert_eq!(pages_of(&merged), pages_of(&single));
    for query in &QUERIES[..5] {
        assert_eq!(top_ten(&[&merged], query), top_ten(&[&single], query));
    }
}

#[test]
fn combine_refuses_shards_of_other_settings_and_keeps_the_previous_index() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let (bloom, none) = (dir.path().join("bloom"), dir.path().join("none"));
    ok(indexer(
        &[
            "build",
            "-q",
            "--detector",
            "bloom",
            "--index",
            path(&bloom),
        ],
        &sample[..1],
    ));
    ok(indexer(
        &["build", "-q", "--detector", "none", "--index", path(&none)],
        &sample[1..2],
    ));
    let combined = dir.path().join("combined");
    ok(indexer(
        &["combine", "-q", "--index", path(&combined)],
        &[&bloom],
    ));
    let before = pages_of(&combined);

    let refused = indexer(&["combine", "--index", path(&combined)], &[&bloom, &none]);
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("cannot be combined") && message.contains("detectors differ"),
        "{message}"
    );
    assert_eq!(pages_of(&combined), before);

    let twice = indexer(&["combine", "--index", path(&combined)], &[&bloom, &bloom]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("given twice"));
    assert_eq!(pages_of(&combined), before);
}

/// The virtual environment with PySpark: `$INDEXER_SPARK_VENV`, or `target/spark-venv`.
fn spark_venv() -> Option<PathBuf> {
    let venv = std::env::var_os("INDEXER_SPARK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/spark-venv"));
    venv.join("bin/spark-submit").is_file().then_some(venv)
}

#[test]
fn spark_builds_the_index_one_machine_builds() {
    let Some(venv) = spark_venv() else {
        assert!(
            std::env::var_os("INDEXER_REQUIRE_SPARK").is_none(),
            "INDEXER_REQUIRE_SPARK is set but no PySpark environment was found (contrib/spark/setup_venv.sh)"
        );
        eprintln!(
            "no PySpark environment (contrib/spark/setup_venv.sh): the Spark test did not run"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let parts = scattered_crawl(dir.path());
    let single = dir.path().join("single");
    ok(indexer(&["build", "-q", "--index", path(&single)], &parts));

    let (work, combined) = (dir.path().join("work"), dir.path().join("combined"));
    let started = std::time::Instant::now();
    let output = Command::new(venv.join("bin/spark-submit"))
        .env("PYSPARK_PYTHON", venv.join("bin/python"))
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .args([
            "--master",
            "local[2,3]",
            "--files",
            env!("CARGO_BIN_EXE_indexer"),
        ])
        .arg(repo().join("contrib/spark/indexer_spark.py"))
        .args(["--buckets", BUCKETS, "--fail-first-attempt-of-map", "1"])
        .args(["--work", path(&work), "--index", path(&combined)])
        .args(&parts)
        .output()
        .expect("run spark-submit");
    assert!(
        output.status.success(),
        "spark-submit failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let attempts: Vec<u64> = report["map_attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| attempt.as_u64().unwrap())
        .collect();
    assert_eq!(
        attempts,
        [0, 1, 0, 0],
        "map task 1 should have been retried once"
    );
    let mut shards: Vec<PathBuf> = std::fs::read_dir(work.join("shards"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    shards.sort();
    assert_eq!(
        shards.len() as u64,
        report["reduce_tasks"].as_u64().unwrap()
    );
    assert_same_as_one_build(&single, &combined, &shards);
    eprintln!(
        "spark-submit --master local[2,3]: {:.1} s in all, stages {}",
        started.elapsed().as_secs_f64(),
        report["seconds"]
    );
}

#[test]
fn partition_says_what_is_wrong_and_leaves_no_half_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let missing = indexer(
        &["partition", "--buckets", "4", "--out", path(&out)],
        &[dir.path().join("no-such.warc.gz")],
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no-such.warc.gz"));

    let zero = indexer(
        &["partition", "--buckets", "0", "--out", path(&out)],
        &sample()[..1],
    );
    assert_eq!(zero.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--buckets must be between 1 and"));
    assert!(!out.exists());

    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let blocked = indexer(
        &["partition", "--buckets", "4", "--out", path(&file)],
        &sample()[..1],
    );
    assert_eq!(blocked.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&blocked.stderr).contains("a-file"));

    // A broken record is counted in the manifest, with where it lies; the rest is written.
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>A</title><p>kept</p>";
    let mut broken = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\nContent-Length: {}\r\n\r\n",
        page.len()
    )
    .into_bytes();
    broken.extend_from_slice(page);
    broken.extend_from_slice(
        b"\r\n\r\nWARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://b.example/\r\n\r\nno length\r\n\r\n",
    );
    let input = dir.path().join("broken.warc");
    std::fs::write(&input, &broken).unwrap();
    let manifest: serde_json::Value = partition(&[&input], "2", &out);
    let skipped: u64 = manifest["skipped"]
        .as_object()
        .unwrap()
        .values()
        .map(|count| count.as_u64().unwrap())
        .sum();
    let written: u64 = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["records"].as_u64().unwrap())
        .sum();
    assert_eq!(manifest["records"].as_u64().unwrap(), skipped + written);
    assert_eq!((written, skipped), (1, 1), "{manifest}");
    assert_eq!(
        manifest["skipped_records"][0]["input"].as_str(),
        Some(path(&input))
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".part") || name.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_record_cut_by_the_end_of_its_file_counts_the_same_after_partition() {
    let clipped = repo().join("tests/data/fixtures/resiliparse-clipped.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    ok(indexer(
        &["build", "-q", "--index", path(&single)],
        &[&clipped],
    ));
    let out = dir.path().join("map");
    let manifest: serde_json::Value = partition(&[&clipped], "2", &out);
    let files: Vec<PathBuf> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| out.join(file["file"].as_str().unwrap()))
        .collect();
    let shard = dir.path().join("shard");
    ok(indexer(&["build", "-q", "--index", path(&shard)], &files));
    let summary_of =
        |index: &Path| -> BuildSummary { OpenIndex::open(index).unwrap().summary().unwrap() };
    let (one, split) = (summary_of(&single), summary_of(&shard));
    assert_eq!(one.truncated_pages, 1);
    assert_eq!(split.truncated_pages, 1);
    assert_eq!(pages_of(&single), pages_of(&shard));
}
