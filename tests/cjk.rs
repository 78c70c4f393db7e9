//! Chinese and Japanese, and width forms, findable in search: the real binary on 29 real
//! EUC-JP pages of one Japanese shop (`tests/data/fixtures/resiliparse-clueweb-quirk.warc.gz`),
//! built with `--detector none` so that what a page holds is what `extract` prints.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{NO_INPUTS, indexer, ok, repo};
use serde_json::Value;

fn fixture() -> PathBuf {
    repo().join("tests/data/fixtures/resiliparse-clueweb-quirk.warc.gz")
}

/// An index of the fixture, in a temporary folder kept alive beside it.
fn index() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let index = build_none(dir.path(), &fixture());
    (dir, index)
}

/// `dir/index`, built from `input` with `--detector none`.
fn build_none(dir: &Path, input: &Path) -> PathBuf {
    let index = dir.join("index");
    ok(indexer(
        &[
            "build",
            "--detector",
            "none",
            "--quiet",
            "--index",
            index.to_str().unwrap(),
        ],
        &[input],
    ));
    index
}

/// Every page of the fixture as `extract` prints it: URL, and title and text.
fn pages() -> Vec<(String, String)> {
    ok(indexer(&["extract", "--detector", "none"], &[fixture()]))
        .lines()
        .map(|line| {
            let page: Value = serde_json::from_str(line).unwrap();
            let text = format!("{}\n{}", page["title"].as_str().unwrap(), page["text"]);
            (page["url"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

/// The URLs of the pages whose title or text `holds`.
fn pages_where(holds: impl Fn(&str) -> bool) -> BTreeSet<String> {
    pages()
        .into_iter()
        .filter(|(_, text)| holds(text))
        .map(|(url, _)| url)
        .collect()
}

/// Every hit of `query`.
fn hits(index: &Path, query: &str) -> Vec<Value> {
    let out: Value = serde_json::from_str(&ok(indexer(
        &[
            "search",
            index.to_str().unwrap(),
            query,
            "--json",
            "-n",
            "100",
        ],
        NO_INPUTS,
    )))
    .unwrap();
    assert_eq!(
        out["total"].as_u64().unwrap() as usize,
        out["hits"].as_array().unwrap().len()
    );
    out["hits"].as_array().unwrap().clone()
}

fn urls(hits: &[Value]) -> BTreeSet<String> {
    hits.iter()
        .map(|hit| hit["url"].as_str().unwrap().to_string())
        .collect()
}

/// The highlighted texts of every hit (character offsets into its snippet).
fn highlighted(hits: &[Value]) -> Vec<String> {
    let mut marked = Vec::new();
    for hit in hits {
        let snippet: Vec<char> = hit["snippet"].as_str().unwrap().chars().collect();
        for range in hit["highlights"].as_array().unwrap() {
            let (start, end) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
            marked.push(snippet[start as usize..end as usize].iter().collect());
        }
    }
    marked
}

/// Whether `text` has `first` followed by `second`, with at most spaces between.
fn in_a_row(text: &str, first: &str, second: &str) -> bool {
    text.match_indices(first).any(|(at, _)| {
        text[at + first.len()..]
            .trim_start_matches([' ', '\u{3000}'])
            .starts_with(second)
    })
}

#[test]
fn a_single_kanji_finds_every_page_it_stands_in() {
    let (_dir, index) = index();
    let found = hits(&index, "吉");
    let expected = pages_where(|text| text.contains('吉'));
    assert!(!expected.is_empty());
    assert_eq!(urls(&found), expected);
    let marked = highlighted(&found);
    assert!(!marked.is_empty());
    assert!(marked.iter().all(|text| text == "吉"), "{marked:?}");
}

#[test]
fn half_width_katakana_finds_full_width() {
    let (_dir, index) = index();
    let half = hits(&index, "ﾘｭｯｸ");
    assert!(!half.is_empty());
    assert_eq!(urls(&half), urls(&hits(&index, "リュック")));
    assert_eq!(urls(&half), pages_where(|text| text.contains("リュック")));
    let marked = highlighted(&half);
    assert!(marked.iter().all(|text| text == "リュック"), "{marked:?}");
}

#[test]
fn a_query_without_the_page_s_spacing_finds_it() {
    let (_dir, index) = index();
    let found = hits(&index, "ブラウニーリュック");
    let expected = pages_where(|text| in_a_row(text, "ブラウニー", "リュック"));
    assert!(!expected.is_empty());
    assert_eq!(urls(&found), expected);
    let marked = highlighted(&found);
    assert!(!marked.is_empty());
    assert!(
        marked.iter().all(|text| text == "ブラウニー リュック"),
        "{marked:?}"
    );
}

#[test]
fn a_phrase_is_exact_whatever_its_width_and_spacing() {
    let (_dir, index) = index();
    let found = urls(&hits(&index, "\"ﾌﾞﾗｳﾆｰ ﾘｭｯｸ\""));
    let in_a_row = pages_where(|text| in_a_row(text, "ブラウニー", "リュック"));
    let apart = pages_where(|text| text.contains("ブラウニー") && text.contains("リュック"));
    assert!(!found.is_empty());
    assert_eq!(found, in_a_row);
    assert!(found.len() < apart.len(), "{found:?} {apart:?}");
}

#[test]
fn highlights_cover_exactly_the_match() {
    let (_dir, index) = index();
    for query in ["リュック", "ポーチ", "吉田"] {
        let found = hits(&index, query);
        let marked = highlighted(&found);
        assert!(!marked.is_empty(), "{query}");
        assert!(
            marked.iter().all(|text| text == query),
            "{query}: {marked:?}"
        );
    }
}

/// The characters of a run are in a field of their own: two pages of the same words, one with
/// a run of ten characters and one with nine more words, score alike for a word they share —
/// the run's nine pairs count in its length as nine words do, its ten characters not at all —
/// while one character of the run finds its page.
#[test]
fn a_run_s_characters_do_not_lengthen_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let page = |name: &str, text: &str| {
        let html =
            format!("<html><head><title>{name}</title></head><body><p>{text}</p></body></html>");
        std::fs::write(pages.join(format!("{name}.html")), html).unwrap();
    };
    page("run", "ownership rules here 吉田カバン吉田カバン");
    page("words", "ownership rules here ab cd ef gh ij kl mn op qr");
    let index = build_none(dir.path(), &pages);
    let found = hits(&index, "ownership");
    assert_eq!(found.len(), 2, "{found:?}");
    let score = |hit: &Value| hit["score"].as_f64().unwrap();
    assert!(
        (score(&found[0]) - score(&found[1])).abs() < 1e-6,
        "{found:?}"
    );
    let by_character = urls(&hits(&index, "カ"));
    assert_eq!(by_character.len(), 1, "{by_character:?}");
    assert!(by_character.iter().all(|url| url.ends_with("run.html")));
}
