//! End to end: `--pages-per-site` of `eval` and `train` on the committed sample (three sites
//! of 30, 40 and 30 pages, every page labelled) — the sample a seed chooses, whatever the
//! input order and threads; a row per size; whole sites past their size; a model trained on
//! the pooled samples and its held-out pages at each size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{indexer, ok, repo, sample};

fn labels() -> String {
    repo()
        .join("data/*.labels.jsonl.gz")
        .to_str()
        .unwrap()
        .to_string()
}

/// `eval --json` of the sample's inputs `inputs` with `extra` flags, and the URLs of the
/// pages each (index, pages per site) was asked known-item queries about: every sampled page.
fn eval(
    inputs: &[PathBuf],
    extra: &[&str],
) -> (Value, BTreeMap<(String, String), BTreeSet<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("queries.jsonl");
    let labels = labels();
    let mut args = vec!["eval", "--json", "--labels", &labels];
    args.extend_from_slice(&["--queries", queries.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let report: Value = serde_json::from_str(&ok(indexer(&args, inputs))).unwrap();
    let mut pages: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(&queries).unwrap().lines() {
        let query: Value = serde_json::from_str(line).unwrap();
        let key = (
            query["index"].as_str().unwrap().to_string(),
            query["pages_per_site"].to_string(),
        );
        let url = query["url"].as_str().unwrap().to_string();
        pages.entry(key).or_default().insert(url);
    }
    (report, pages)
}

fn rows(report: &Value) -> &Vec<Value> {
    report["rows"].as_array().unwrap()
}

fn sampled_urls<'a>(
    pages: &'a BTreeMap<(String, String), BTreeSet<String>>,
    k: &str,
) -> &'a BTreeSet<String> {
    &pages[&("none".to_string(), k.to_string())]
}

fn site_of(url: &str) -> &str {
    url.split('/').nth(2).unwrap()
}

#[test]
fn eval_has_a_row_per_size_and_index_and_scores_the_sampled_pages_alone() {
    let (report, pages) = eval(
        &sample(),
        &["--detector", "hybrid", "--pages-per-site", "1,3,all"],
    );
    assert_eq!(report["sample_seed"], 1);
    let got: Vec<(String, String, u64, u64)> = rows(&report)
        .iter()
        .map(|row| {
            (
                row["name"].as_str().unwrap().to_string(),
                row["pages_per_site"].to_string(),
                row["index"]["documents"].as_u64().unwrap(),
                row["quality"]["pages"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, String, u64, u64)> = [("1", 3), ("3", 9), ("\"all\"", 100)]
        .into_iter()
        .flat_map(|(k, pages)| {
            ["hybrid", "none", "oracle"].map(|name| (name.to_string(), k.to_string(), pages, pages))
        })
        .collect();
    assert_eq!(got, expected);
    // One page of each site at 1, three at 3; the pages at 1 are among those at 3.
    for (k, each) in [("1", 1), ("3", 3)] {
        let mut per_site: BTreeMap<&str, usize> = BTreeMap::new();
        for url in sampled_urls(&pages, k) {
            *per_site.entry(site_of(url)).or_default() += 1;
        }
        assert_eq!(
            per_site.values().copied().collect::<Vec<_>>(),
            [each; 3],
            "{per_site:?}"
        );
    }
    assert!(sampled_urls(&pages, "1").is_subset(sampled_urls(&pages, "3")));
    // Every index of a size was asked about the same pages.
    assert_eq!(
        pages[&("hybrid".into(), "3".into())],
        *sampled_urls(&pages, "3")
    );

    // The text table has the same rows.
    let table = ok(indexer(
        &[
            "eval",
            "--labels",
            &labels(),
            "--detector",
            "none",
            "--pages-per-site",
            "1,all",
        ],
        &sample(),
    ));
    assert!(
        table.contains("| index | pages per site | labelled pages |"),
        "{table}"
    );
    assert!(table.contains("| none | 1 | 3 |"), "{table}");
    assert!(table.contains("| oracle | all | 100 |"), "{table}");
}

#[test]
fn the_seed_chooses_the_sample_whatever_the_input_order_and_threads() {
    let flags = |seed: &'static str, threads: &'static str| {
        [
            "--detector",
            "none",
            "--pages-per-site",
            "5",
            "--seed",
            seed,
            "--threads",
            threads,
        ]
    };
    let (_, first) = eval(&sample(), &flags("1", "2"));
    let mut reversed = sample();
    reversed.reverse();
    let (_, again) = eval(&reversed, &flags("1", "1"));
    assert_eq!(sampled_urls(&first, "5"), sampled_urls(&again, "5"));
    assert_eq!(sampled_urls(&first, "5").len(), 15);
    let (_, other) = eval(&sample(), &flags("2", "2"));
    assert_eq!(sampled_urls(&other, "5").len(), 15);
    assert_ne!(sampled_urls(&first, "5"), sampled_urls(&other, "5"));
}

#[test]
fn a_size_past_every_site_keeps_whole_sites_as_without_sampling() {
    let (sampled, pages) = eval(
        &sample(),
        &["--detector", "none", "--pages-per-site", "1000,all"],
    );
    let (whole, _) = eval(&sample(), &["--detector", "none"]);
    assert_eq!(
        sampled_urls(&pages, "1000"),
        sampled_urls(&pages, "\"all\"")
    );
    assert_eq!(sampled_urls(&pages, "1000").len(), 100);
    let f1 = |row: &Value| row["quality"]["micro"]["f1"].as_f64().unwrap();
    let whole_none = &rows(&whole)[0];
    for row in rows(&sampled).iter().filter(|row| row["name"] == "none") {
        assert_eq!(row["index"]["documents"], 100);
        assert_eq!(f1(row), f1(whole_none));
    }
    // Without the flag, nothing says sampled.
    assert!(whole.get("sample_seed").is_none());
    assert!(
        rows(&whole)
            .iter()
            .all(|row| row.get("pages_per_site").is_none())
    );
}

/// The records of the WARC files `inputs` whose URL is in `urls`, as one plain WARC file.
fn warc_of(inputs: &[PathBuf], urls: &BTreeSet<String>, out: &Path) {
    use std::io::Read;
    let mut kept = Vec::new();
    for input in inputs {
        let mut bytes = Vec::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(input).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        let mut rest = bytes.as_slice();
        while !rest.is_empty() {
            let head_end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
            let head = String::from_utf8_lossy(&rest[..head_end]).to_string();
            let field = |name: &str| {
                head.lines()
                    .find_map(|line| line.strip_prefix(name))
                    .map(|value| value.trim().to_string())
            };
            let length: usize = field("Content-Length:").unwrap().parse().unwrap();
            let end = head_end + length + 4;
            if field("WARC-Target-URI:").is_some_and(|url| urls.contains(&url)) {
                kept.extend_from_slice(&rest[..end]);
            }
            rest = &rest[end..];
        }
    }
    std::fs::write(out, kept).unwrap();
}

#[test]
fn a_sampled_run_measures_what_a_crawl_of_the_sample_alone_measures() {
    let (sampled, pages) = eval(
        &sample(),
        &["--detector", "hybrid", "--pages-per-site", "3"],
    );
    let urls = sampled_urls(&pages, "3");
    assert_eq!(urls.len(), 9);
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("sample.warc");
    warc_of(&sample(), urls, &crawl);
    let labels = dir.path().join("sample.labels.jsonl");
    let mut lines = String::new();
    for file in common::sample_files("labels.jsonl.gz") {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(file).unwrap()),
            &mut text,
        )
        .unwrap();
        for line in text.lines() {
            let label: Value = serde_json::from_str(line).unwrap();
            if urls.contains(label["url"].as_str().unwrap()) {
                lines.push_str(line);
                lines.push('\n');
            }
        }
    }
    std::fs::write(&labels, lines).unwrap();
    let alone: Value = serde_json::from_str(&ok(indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "hybrid",
            "--labels",
            labels.to_str().unwrap(),
        ],
        &[&crawl],
    )))
    .unwrap();
    let figures = |report: &Value| -> Vec<(Value, Value, Value, Value)> {
        rows(report)
            .iter()
            .map(|row| {
                let quality = &row["quality"];
                (
                    row["name"].clone(),
                    row["index"]["postings"].clone(),
                    quality["micro"].clone(),
                    quality["sites"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(figures(&sampled), figures(&alone));
}

#[test]
fn a_size_that_is_not_a_number_of_pages_is_refused() {
    for bad in ["0", "some"] {
        let output = indexer(
            &["eval", "--labels", &labels(), "--pages-per-site", bad],
            &sample(),
        );
        assert_eq!(output.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("at least 1, or all"), "{stderr}");
    }
}

fn train(out: &Path, extra: &[&str]) -> Value {
    let labels = labels();
    let mut args = vec![
        "train",
        "--json",
        "--labels",
        &labels,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(indexer(&args, &sample()))).unwrap()
}

/// The error `eval` of the sample with `extra` flags fails with (it must fail).
fn eval_refused(extra: &[&str]) -> String {
    let labels = labels();
    let mut args = vec!["eval", "--labels", &labels];
    args.extend_from_slice(extra);
    let refused = indexer(&args, &sample());
    assert!(!refused.status.success());
    String::from_utf8_lossy(&refused.stderr).into_owned()
}

/// `train` with `--cross-validate` into `dir`, and `extra`: what it printed, and the paths of
/// the model and the held-out pages.
fn train_held_out(dir: &Path, extra: &[&str]) -> (Value, PathBuf, PathBuf) {
    let (model, held_out) = (dir.join("m.json"), dir.join("cv.jsonl"));
    let mut args = vec!["--cross-validate", held_out.to_str().unwrap()];
    args.extend_from_slice(extra);
    (train(&model, &args), model, held_out)
}

/// The lines of a held-out file, as JSON.
fn held_out_lines(path: &Path) -> Vec<Value> {
    (std::fs::read_to_string(path).unwrap().lines())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn train_pools_the_samples_and_holds_each_out_at_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let (printed, model, held_out) = train_held_out(dir.path(), &["--pages-per-site", "1,3,all"]);
    // 3 + 9 + 100 pages, every one with labelled blocks.
    assert_eq!(printed["pages"], 112);
    assert_eq!(printed["pages_per_site"], serde_json::json!([1, 3, "all"]));
    let written: Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    assert_eq!(written["format"], "indexer-hybrid-model");
    assert_eq!(written["provenance"]["pages"], 112);

    let lines = held_out_lines(&held_out);
    let mut per_size: BTreeMap<String, usize> = BTreeMap::new();
    let mut folds: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for line in &lines {
        *per_size
            .entry(line["pages_per_site"].to_string())
            .or_default() += 1;
        let url = line["url"].as_str().unwrap();
        folds
            .entry(site_of(url))
            .or_default()
            .insert(line["fold"].as_str().unwrap());
    }
    assert_eq!(
        per_size,
        BTreeMap::from([("1".into(), 3), ("3".into(), 9), ("\"all\"".into(), 100)])
    );
    // Each site's samples are held out in one fold, the site's own.
    assert_eq!(folds.len(), 3);
    assert!(
        folds
            .iter()
            .all(|(site, fold)| fold.len() == 1 && fold.contains(site)),
        "{folds:?}"
    );

    // eval reads the held-out text at each size, and refuses a size it does not hold.
    let predictions = format!("loso={}", held_out.display());
    let (report, _) = eval(
        &sample(),
        &[
            "--detector",
            "none",
            "--pages-per-site",
            "1,all",
            "--predictions",
            &predictions,
        ],
    );
    let loso: Vec<&Value> = rows(&report)
        .iter()
        .filter(|row| row["name"] == "loso")
        .collect();
    assert_eq!(loso.len(), 2);
    assert_eq!(loso[0]["quality"]["pages"], 3);
    assert_eq!(loso[0]["quality"]["missing"], 0);
    let stderr = eval_refused(&["--pages-per-site", "10", "--predictions", &predictions]);
    assert!(
        stderr.contains("no kept text at 10 pages per site"),
        "{stderr}"
    );
}

#[test]
fn lone_page_draws_read_more_pages_of_each_site_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (printed, model, held_out) = train_held_out(
        dir.path(),
        &["--pages-per-site", "1,3,all", "--lone-page-draws", "5"],
    );
    // Five lone pages of each of the 3 sites, then 9 and 100 pages as before.
    assert_eq!(printed["pages"], 15 + 9 + 100);
    let written: Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    let settings = written["provenance"]["settings"].as_str().unwrap();
    assert!(settings.contains("5 lone-page draws"), "{settings}");
    let mut lone: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(&held_out).unwrap().lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        if line["pages_per_site"] == 1 {
            let url = line["url"].as_str().unwrap();
            let fresh = lone
                .entry(site_of(url).to_string())
                .or_default()
                .insert(url.to_string());
            assert!(fresh, "{url} held out twice at one page per site");
        }
    }
    assert_eq!(lone.values().map(BTreeSet::len).collect::<Vec<_>>(), [5; 3]);
    // The page `eval --pages-per-site 1` samples is one of them, so it is measured as before.
    let (_, pages) = eval(&sample(), &["--detector", "none", "--pages-per-site", "1"]);
    for url in sampled_urls(&pages, "1") {
        assert!(lone[site_of(url)].contains(url), "{url}");
    }
}

#[test]
fn held_out_draws_are_decided_apart_from_training_and_eval_draws_score_them_together() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, drawn) = (dir.path().join("plain"), dir.path().join("drawn"));
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::create_dir_all(&drawn).unwrap();
    let sizes = ["--pages-per-site", "1,3,all"];
    let (_, plain_model, plain_held_out) = train_held_out(&plain, &sizes);
    let (printed, model, held_out) = train_held_out(
        &drawn,
        &["--pages-per-site", "1,3,all", "--held-out-draws", "4"],
    );
    // No model learns from the extra draws: the same model, byte for byte.
    assert_eq!(printed["pages"], 112);
    assert_eq!(
        std::fs::read(&model).unwrap(),
        std::fs::read(&plain_model).unwrap()
    );
    let mut per_size: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in held_out_lines(&held_out) {
        let url = line["url"].as_str().unwrap().to_string();
        let fresh = per_size
            .entry(line["pages_per_site"].to_string())
            .or_default()
            .insert(url.clone());
        assert!(fresh, "{url} held out twice at one size");
    }
    // Sites of 30, 40 and 30 pages: four disjoint draws of 1 and of 3 pages of each.
    let counts: Vec<(String, usize)> = (per_size.iter())
        .map(|(size, urls)| (size.clone(), urls.len()))
        .collect();
    let expected = [("\"all\"", 100), ("1", 12), ("3", 36)];
    assert_eq!(counts, expected.map(|(size, n)| (size.to_string(), n)));
    // The lines of the plain run are among them, the same.
    let drawn_lines = held_out_lines(&held_out);
    for line in held_out_lines(&plain_held_out) {
        assert!(drawn_lines.contains(&line), "{line}");
    }

    // eval --draws 4 scores the four draws of each size together, as the training run drew
    // them, and refuses a draw the predictions do not hold.
    let predictions = format!("loso={}", held_out.display());
    let (report, pages) = eval(
        &sample(),
        &[
            "--detector",
            "none",
            "--pages-per-site",
            "1,3",
            "--draws",
            "4",
            "--predictions",
            &predictions,
        ],
    );
    assert_eq!(
        report.get("labelled_pages_unpredicted"),
        None,
        "none left out"
    );
    for row in rows(&report) {
        let k = row["pages_per_site"].to_string();
        assert_eq!(row["draws"], 4, "{row}");
        assert_eq!(
            row["quality"]["pages"].as_u64(),
            Some(per_size[&k].len() as u64)
        );
        assert_eq!(row["quality"]["missing"], 0);
    }
    for (k, size) in [("1", 1), ("3", 3)] {
        assert_eq!(*sampled_urls(&pages, k), per_size[k], "k={k}");
        let none = (rows(&report).iter())
            .find(|row| row["name"] == "none" && row["pages_per_site"] == size)
            .unwrap();
        assert_eq!(
            none["index"]["documents"].as_u64(),
            Some(per_size[k].len() as u64)
        );
    }
    let plain_predictions = format!("loso={}", plain_held_out.display());
    let stderr = eval_refused(&[
        "--pages-per-site",
        "3",
        "--draws",
        "2",
        "--predictions",
        &plain_predictions,
    ]);
    assert!(
        stderr.contains("no labelled page of draw 2 of 3 pages per site"),
        "{stderr}"
    );
    let labels = labels();
    let table = ok(indexer(
        &[
            "eval",
            "--labels",
            &labels,
            "--detector",
            "none",
            "--pages-per-site",
            "3,all",
            "--draws",
            "2",
        ],
        &sample(),
    ));
    assert!(
        table.contains("| pages per site | draws | labelled pages |"),
        "{table}"
    );
    assert!(table.contains("| none | 3 | 2 | 18 |"), "{table}");
    assert!(table.contains("| none | all | 1 | 100 |"), "{table}");
}

#[test]
fn train_without_the_flag_writes_what_it_always_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, all) = (dir.path().join("plain.json"), dir.path().join("all.json"));
    let printed = train(&plain, &[]);
    assert!(printed.get("pages_per_site").is_none());
    assert_eq!(printed["pages"], 100);
    // Sampled at `all` alone, the same rows: the same trees (only the settings line says it).
    train(&all, &["--pages-per-site", "all"]);
    let trees = |path: &Path| {
        let model: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        (
            model["classifier"].clone(),
            model["provenance"]["settings"].clone(),
        )
    };
    let ((plain_trees, plain_settings), (all_trees, all_settings)) = (trees(&plain), trees(&all));
    assert_eq!(plain_trees, all_trees);
    assert_ne!(plain_settings, all_settings);
    assert!(
        all_settings
            .as_str()
            .unwrap()
            .contains("sites sampled to all pages")
    );
}

#[test]
fn a_page_the_held_out_text_lacks_is_left_out_of_the_first_draw_too() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, held_out) = train_held_out(dir.path(), &["--pages-per-site", "3,all"]);
    // The seed's sample at 3 pages a site, less one page: as a host read apart from the
    // rest of its training crawl would leave it.
    let mut lines = held_out_lines(&held_out);
    let at = (lines.iter())
        .position(|line| line["pages_per_site"] == 3)
        .unwrap();
    let dropped = lines.remove(at)["url"].as_str().unwrap().to_string();
    let edited = dir.path().join("cv-less-one.jsonl");
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&edited, text).unwrap();

    let predictions = format!("loso={}", edited.display());
    let (report, pages) = eval(
        &sample(),
        &[
            "--detector",
            "none",
            "--pages-per-site",
            "3",
            "--predictions",
            &predictions,
        ],
    );
    assert_eq!(report["labelled_pages_unpredicted"], 1, "{report}");
    // Three sites of three sampled pages, less that one, in every index's row (`none` as
    // in the predictions'): not scored as `none` keeps it.
    for row in rows(&report) {
        assert_eq!(row["quality"]["pages"], 8, "{row}");
    }
    assert!(!sampled_urls(&pages, "3").contains(&dropped));
}
