//! End to end: every detector through the real `indexer` binary, on the committed sample in
//! `data/` and on a small table-laid-out site written by the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{extracted_pages, indexer, ok, sample};

/// Kept text per URL, from `indexer extract`.
fn extract(args: &[&str], inputs: &[PathBuf]) -> BTreeMap<String, String> {
    let mut all = vec!["extract"];
    all.extend_from_slice(args);
    extracted_pages(&ok(indexer(&all, inputs)))
        .into_iter()
        .collect()
}

/// Lower-cased words of a text, joined by single spaces.
fn words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

fn word_count(pages: &BTreeMap<String, String>) -> usize {
    pages.values().map(|t| words(t).split(' ').count()).sum()
}

fn pages_with(pages: &BTreeMap<String, String>, phrase: &str) -> usize {
    pages.values().filter(|t| words(t).contains(phrase)).count()
}

#[test]
fn every_detector_removes_navigation_and_keeps_content_on_the_sample() {
    let none = extract(&["--detector", "none"], &sample());
    assert_eq!(none.len(), 100);
    // python311's "Report a Bug / Show Source" sidebar is on every one of its 30 pages.
    assert_eq!(pages_with(&none, "report a bug show source"), 30);
    let variants: [&[&str]; 6] = [
        &["--detector", "sandwich"],
        &["--detector", "sandwich", "--sandwich-unit", "token"],
        &["--detector", "table-chunk", "--table-chunk-layout-tags"],
        &["--detector", "incremental"],
        &["--detector", "menu"],
        &["--detector", "bloom"],
    ];
    for args in variants {
        let kept = extract(args, &sample());
        assert_eq!(kept.len(), 100, "{args:?}");
        let nav = pages_with(&kept, "report a bug show source");
        assert!(nav <= 15, "{args:?}: the sidebar stayed on {nav} pages");
        assert!(
            word_count(&kept) < word_count(&none) * 96 / 100,
            "{args:?}: {} words kept of {}",
            word_count(&kept),
            word_count(&none)
        );
        let ownership = kept
            .iter()
            .find(|(url, _)| url.ends_with("ch04-01-what-is-ownership.html"))
            .map(|(_, text)| words(text))
            .unwrap();
        assert!(
            ownership.contains("ownership rules")
                && ownership.contains("each value in rust has an owner"),
            "{args:?}: content lost"
        );
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Six pages of an old-style site laid out with a table: a menu cell, a story cell, a footer
/// row.
fn table_site() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tables-{}", std::process::id()));
    let names = ["a", "b", "c", "d", "e", "f"];
    for (i, name) in names.iter().enumerate() {
        let menu: String = names
            .iter()
            .map(|n| format!("<a href=\"{n}.html\">Section {n}</a><br>\n"))
            .collect();
        let html = format!(
            "<html><head><title>Page {name}</title></head><body>\n\
             <table width=800><tr><td width=200 bgcolor=#eeeeee>\n{menu}</td>\n\
             <td>Story {name}: the council met on day {i} and voted {i} times.</td></tr>\n\
             <tr><td colspan=2>Copyright 1999 The Old Gazette</td></tr></table>\n</body></html>\n"
        );
        write(&dir.join(format!("{name}.html")), &html);
    }
    dir
}

#[test]
fn table_chunk_drops_the_frequent_cells_of_a_table_layout() {
    let site = table_site();
    let base = ["--base-url", "http://gazette.example/"];
    let mut args = vec!["--detector", "table-chunk"];
    args.extend_from_slice(&base);
    let kept = extract(&args, std::slice::from_ref(&site));
    assert_eq!(kept.len(), 6);
    for (url, text) in &kept {
        let text = words(text);
        assert!(text.starts_with("story "), "{url}: {text}");
        assert!(
            !text.contains("section") && !text.contains("copyright"),
            "{url}: {text}"
        );
    }
    // Six pages are not enough at a threshold of 7.
    let mut args = vec![
        "--detector",
        "table-chunk",
        "--table-chunk-min-documents",
        "7",
    ];
    args.extend_from_slice(&base);
    let kept = extract(&args, &[site]);
    assert!(kept.values().all(|text| words(text).contains("copyright")));
}

#[test]
fn one_pass_builds_use_hybrid_and_refuse_two_pass_detectors() {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("one-pass-{}", std::process::id()));
    let index = dir.join("index");
    let out = ok(indexer(
        &[
            "build",
            "--one-pass",
            "--json",
            "--index",
            index.to_str().unwrap(),
        ],
        &sample(),
    ));
    let summary: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["detector"], "hybrid");
    assert_eq!(summary["passes"], 1);
    assert!(summary["counters"]["segments_peak"].as_u64().unwrap() > 0);

    let refused = indexer(
        &[
            "build",
            "--one-pass",
            "--detector",
            "menu",
            "--index",
            index.to_str().unwrap(),
        ],
        &sample(),
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("one-pass detector"));
}

#[test]
fn menu_reports_how_it_found_each_pages_peers() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("menu-{}", std::process::id()));
    let index = dir.join("index");
    let out = ok(indexer(
        &[
            "build",
            "--detector",
            "menu",
            "--json",
            "--index",
            index.to_str().unwrap(),
        ],
        &sample(),
    ));
    let summary: Value = serde_json::from_str(&out).unwrap();
    let counters = &summary["counters"];
    let count = |name: &str| counters[name].as_u64().unwrap();
    assert_eq!(count("link_graph_pages"), 100);
    let decided = count("pages_with_complete_subdigraph")
        + count("pages_with_smaller_subdigraph_fallback")
        + count("pages_without_linked_peers");
    assert_eq!(decided, 100);
    assert!(count("pages_with_complete_subdigraph") > 0);
    // Each linked page is read once, then taken from the cache.
    assert!(count("pages_read_again") > 0);
    assert!(count("linked_trees_reused") > count("pages_read_again"));
}

/// `--keep-title-headings` puts the title-heading rule on a detector of the papers: the
/// headings it keeps are counted, the summary says the rule was on, and without the flag the
/// detector is its paper's method alone.
#[test]
fn keep_title_headings_wraps_a_seed_detector() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let summary = |extra: &[&str]| -> Value {
        // sandwich in one pass (the page crawled last is the peer) drops a few of the
        // sample's title headings.
        let mut args = vec![
            "build",
            "--detector",
            "sandwich",
            "--one-pass",
            "--json",
            "--index",
            index.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(indexer(&args, &sample()))).unwrap()
    };
    let plain = summary(&[]);
    let ruled = summary(&["--keep-title-headings"]);
    assert!(plain["counters"].get("title_headings_kept").is_none());
    let kept = ruled["counters"]["title_headings_kept"].as_u64().unwrap();
    assert!(kept > 0, "{ruled}");
    assert_eq!(ruled["settings"]["keep_title_headings"], true);
    assert_eq!(
        ruled["blocks_kept"].as_u64().unwrap(),
        plain["blocks_kept"].as_u64().unwrap() + kept
    );
}

/// A flag of another detector's group does nothing, and the run says so on stderr (the run
/// itself goes ahead); a flag of the detector that runs draws no warning.
#[test]
fn flags_of_a_detector_that_does_not_run_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let build = |detector: &str| {
        let out = indexer(
            &[
                "build",
                "--detector",
                detector,
                "--sandwich-unit",
                "token",
                "--index",
                index.to_str().unwrap(),
            ],
            &sample(),
        );
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let idle = build("bloom");
    assert!(
        idle.contains("warning: --sandwich-unit does nothing here: it is a setting of sandwich"),
        "{idle}"
    );
    assert!(!build("sandwich").contains("warning"));
    // --quiet: nothing on stderr but errors.
    let quiet = indexer(
        &[
            "build",
            "--quiet",
            "--detector",
            "bloom",
            "--sandwich-unit",
            "token",
            "--index",
            index.to_str().unwrap(),
        ],
        &sample(),
    );
    assert!(quiet.status.success());
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
}

/// `extract --explain` lists every block of a page in order with its decision and the
/// evidence: the kept blocks make up the page's text, and each verdict agrees with its own
/// figure and threshold (a rule that overrules keeps the block whatever the figure).
#[test]
fn explain_lists_every_block_with_its_decision_and_evidence() {
    for (detector, scored_rule) in [
        ("bloom", "template_word_ratio"),
        ("hybrid", "content_probability"),
        ("incremental", "frequent_segment_share"),
        ("sandwich", "shared_with_peer"),
    ] {
        let out = ok(indexer(
            &["extract", "--detector", detector, "--explain"],
            &sample(),
        ));
        let (mut dropped, mut rules) = (0, std::collections::BTreeSet::new());
        for line in out.lines() {
            let page: Value = serde_json::from_str(line).unwrap();
            let blocks = page["blocks"].as_array().unwrap();
            let kept: Vec<&str> = blocks
                .iter()
                .filter(|block| block["kept"] == true)
                .map(|block| block["text"].as_str().unwrap())
                .collect();
            // The text holds the kept blocks' words, laid out in the page's order and shape
            // (a block's text resumes after the blocks nested in it). Where each text node
            // is a block (sandwich), a highlighted listing's tokens were words of their own
            // and are now the code as written: the same characters.
            let text = page["text"].as_str().unwrap();
            if detector == "sandwich" {
                let characters = |text: &str| {
                    let mut characters: Vec<char> =
                        text.chars().filter(|c| !c.is_whitespace()).collect();
                    characters.sort_unstable();
                    characters
                };
                assert_eq!(characters(&kept.join("\n")), characters(text));
            } else {
                let words = |text: &str| {
                    let mut words: Vec<String> =
                        text.split_whitespace().map(str::to_string).collect();
                    words.sort_unstable();
                    words
                };
                assert_eq!(words(&kept.join("\n")), words(text));
            }
            for block in blocks {
                let rule = block["rule"].as_str().unwrap();
                rules.insert(rule.to_string());
                let kept = block["kept"].as_bool().unwrap();
                dropped += usize::from(!kept);
                let (score, threshold) = (&block["score"], &block["threshold"]);
                if rule != scored_rule {
                    // Overruling rules only keep.
                    assert!(kept, "{detector}: {block}");
                    continue;
                }
                let (score, threshold) = (score.as_f64().unwrap(), threshold.as_f64().unwrap());
                let expected = match rule {
                    "content_probability" => score >= threshold,
                    "frequent_segment_share" => score <= threshold,
                    // shared_with_peer drops at a share of 1 (every unit in the peer).
                    _ => score < threshold,
                };
                // Figures are rounded to four decimals: only a clear disagreement fails.
                if rule == "shared_with_peer" || (score - threshold).abs() > 1e-4 {
                    assert_eq!(kept, expected, "{detector}: {block}");
                }
            }
        }
        assert!(dropped > 0, "{detector} dropped nothing");
        assert!(rules.contains(scored_rule), "{detector}: {rules:?}");
    }
    // The old name still works.
    let out = ok(indexer(
        &["extract", "--detector", "bloom", "--show-dropped"],
        &sample(),
    ));
    assert!(out.contains("\"rule\":\"template_word_ratio\""));
}
