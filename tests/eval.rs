//! `indexer eval` end to end: agreement with the shared scorer, MRR on a hand-made index, and
//! the chart.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::{indexer, ok, repo, sample, sample_files};

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == name)
        .unwrap()
}

#[test]
fn eval_agrees_with_the_shared_scorer() {
    let labels = repo().join("data/*.labels.jsonl.gz");
    let report: Value = serde_json::from_str(&ok(indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "bloom",
            "--labels",
            labels.to_str().unwrap(),
        ],
        &sample(),
    )))
    .unwrap();
    let bloom = &row(&report, "bloom")["quality"];
    assert_eq!(report["labelled_pages"], 100);
    assert!(
        bloom["micro"]["f1"].as_f64().unwrap()
            > row(&report, "none")["quality"]["micro"]["f1"]
                .as_f64()
                .unwrap()
    );

    // The shared scorer sits beside the project on CI and developer machines; a fresh clone
    // elsewhere has nothing to compare with.
    let scorer = repo().join("../shared/tools/score.py");
    if !scorer.exists() {
        eprintln!("{} not found: cross-check not run", scorer.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let predictions = dir.path().join("bloom.jsonl");
    std::fs::write(
        &predictions,
        ok(indexer(&["extract", "--detector", "bloom"], &sample())),
    )
    .unwrap();
    let label_files = sample_files("labels.jsonl.gz");
    let output = Command::new("python3")
        .arg(&scorer)
        .args(&label_files)
        .arg("--pred")
        .arg(&predictions)
        .arg("--json")
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shared: Value = serde_json::from_slice(&output.stdout).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 5e-4;
    for (i, key) in ["precision", "recall", "f1"].iter().enumerate() {
        let ours = bloom["micro"][key].as_f64().unwrap();
        let theirs = shared["micro"][i].as_f64().unwrap();
        assert!(close(ours, theirs), "micro {key}: {ours} vs {theirs}");
        let ours = bloom["macro_average"][key].as_f64().unwrap();
        let theirs = shared["macro"][i].as_f64().unwrap();
        assert!(close(ours, theirs), "macro {key}: {ours} vs {theirs}");
    }
    let ours = bloom["template_kept"].as_f64().unwrap();
    assert!(close(ours, shared["template_kept"].as_f64().unwrap()));
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn mrr_on_a_hand_made_three_page_index() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    write(
        &site.join("a.html"),
        "<title>Apples</title><p>apples apples apples</p>",
    );
    write(
        &site.join("b.html"),
        "<title>Bananas</title><p>bananas and apples</p>",
    );
    write(
        &site.join("c.html"),
        "<title>Cherries</title><p>cherries</p>",
    );
    // Query "apples" finds a first (RR 1) and b second (RR 1/2); "durian" finds nothing (RR 0).
    let labels = dir.path().join("labels.jsonl");
    let queries = dir.path().join("queries.jsonl");
    let line = |page: &str, title: &str| {
        format!(
            "{{\"url\": \"http://fruit.example/{page}.html\", \"title\": \"{title} - Fruit\", \"content_text\": \"short\", \"template_text\": \"\"}}\n"
        )
    };
    write(
        &labels,
        &[
            line("a", "Apples"),
            line("b", "Apples"),
            line("c", "Durian"),
        ]
        .concat(),
    );
    let report: Value = serde_json::from_str(&ok(indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "none",
            "--base-url",
            "http://fruit.example/",
            "--labels",
            labels.to_str().unwrap(),
            "--queries",
            queries.to_str().unwrap(),
        ],
        &[site],
    )))
    .unwrap();
    let asked: Vec<Value> = std::fs::read_to_string(&queries)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|line: &Value| line["index"] == "none")
        .collect();
    let outcome = |page: &str| {
        let url = format!("http://fruit.example/{page}.html");
        let found: Vec<&Value> = asked.iter().filter(|line| line["url"] == url).collect();
        assert_eq!(found.len(), 1, "{asked:?}");
        (
            found[0]["kind"].clone(),
            found[0]["query"].clone(),
            found[0]["rank"].clone(),
            found[0]["first"].clone(),
        )
    };
    let first_apples = serde_json::json!("http://fruit.example/a.html");
    assert_eq!(
        outcome("a"),
        (
            "title".into(),
            "apples".into(),
            1.into(),
            first_apples.clone()
        )
    );
    assert_eq!(
        outcome("b"),
        ("title".into(), "apples".into(), 2.into(), first_apples)
    );
    assert_eq!(
        outcome("c"),
        ("title".into(), "durian".into(), Value::Null, Value::Null)
    );
    let title = &row(&report, "none")["retrieval"]["title"];
    assert_eq!(title["queries"], 3);
    assert!(
        (title["mrr_at_10"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{title}"
    );
    assert!(
        (title["success_at_1"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9,
        "{title}"
    );
    // Contents of one word are too short for phrase queries.
    assert_eq!(row(&report, "none")["retrieval"]["phrase"]["queries"], 0);
}

#[test]
fn the_chart_is_an_svg_with_one_bar_group_per_index() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("chart.svg");
    let labels = repo().join("data/*.labels.jsonl.gz");
    ok(indexer(
        &[
            "eval",
            "--detector",
            "bloom",
            "--labels",
            labels.to_str().unwrap(),
            "--chart",
            chart.to_str().unwrap(),
        ],
        &sample(),
    ));
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(
        svg.trim_start().starts_with("<svg"),
        "{}",
        &svg[..80.min(svg.len())]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    // Three indexes (bloom, none, oracle), three metrics each; one more rect per metric is
    // its legend swatch.
    for color in ["#1F77B4", "#FF7F0E", "#2CA02C"] {
        let bars = svg.matches(&format!("fill=\"{color}\"")).count();
        assert_eq!(bars, 3 + 1, "bars of {color}");
    }
    let labels: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|element| element.split_once('>'))
        .filter_map(|(_, rest)| rest.split_once("</text>"))
        .map(|(content, _)| content.trim())
        .collect();
    for name in ["bloom", "none", "oracle"] {
        assert!(labels.contains(&name), "no label {name} in {labels:?}");
    }
}

#[test]
fn snippet_labels_score_what_is_kept_and_what_leaks() {
    let dir = tempfile::tempdir().unwrap();
    let snippets = dir.path().join("snippets.jsonl");
    std::fs::write(
        &snippets,
        "{\"url\": \"https://docs.python.org/3.11/bugs.html\", \"site\": \"python311\", \
         \"with\": [\"Python is a mature programming language which has established a reputation for stability.\"], \
         \"without\": [\"Report a Bug\", \"Show Source\"]}\n",
    )
    .unwrap();
    let report: Value = serde_json::from_str(&ok(indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "bloom",
            "--snippets",
            snippets.to_str().unwrap(),
        ],
        &sample(),
    )))
    .unwrap();
    assert_eq!(report["snippet_pages"], 1);
    assert_eq!(report["labelled_pages_missing"], 0);
    let snippet = |name: &str| row(&report, name)["snippets"].clone();
    // `none` keeps the sentence and both sidebar links: recall 1, precision 1/3.
    assert_eq!(snippet("none")["recall"], 1.0);
    assert!((snippet("none")["precision"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    // bloom drops the sidebar it sees on all 30 python311 pages.
    assert_eq!(snippet("bloom")["precision"], 1.0);
    assert_eq!(snippet("bloom")["recall"], 1.0);
}

#[test]
fn labelled_pages_missing_from_the_input_are_counted_and_said() {
    let labels = repo().join("data/python311.labels.jsonl.gz");
    let output = indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "none",
            "--labels",
            labels.to_str().unwrap(),
        ],
        &[repo().join("data/rustbook.warc.gz")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["labelled_pages_missing"], 30);
    assert!(
        stderr.contains("30 of 30 labelled pages are not in the input"),
        "{stderr}"
    );
}

#[test]
fn a_queries_file_that_cannot_be_written_fails_before_the_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let unwritable = dir.path().join("no such folder").join("queries.jsonl");
    let labels = repo().join("data/rustbook.labels.jsonl.gz");
    let output = indexer(
        &[
            "eval",
            "--detector",
            "none",
            "--labels",
            labels.to_str().unwrap(),
            "--queries",
            unwritable.to_str().unwrap(),
        ],
        &[repo().join("data/rustbook.warc.gz")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("no such folder"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing was measured");
}
