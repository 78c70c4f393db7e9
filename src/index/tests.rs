//! Tests of the index: building, opening and checking generations.

use super::*;

fn page<'a>(url: &'a str, body: &'a str) -> IndexedPage<'a> {
    IndexedPage {
        kept_blocks: 1,
        ..IndexedPage::text(url, "example.org", "t", body)
    }
}

#[test]
fn a_build_that_is_not_committed_leaves_the_previous_index_live() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("idx");
    let mut first = IndexBuild::begin(&root, 1, 15_000_000).unwrap();
    first
        .add(&page("http://example.org/1", "first body"))
        .unwrap();
    first.commit(&serde_json::json!({"build": 1})).unwrap();

    let mut second = IndexBuild::begin(&root, 1, 15_000_000).unwrap();
    second
        .add(&page("http://example.org/2", "second body"))
        .unwrap();
    drop(second);

    let open = OpenIndex::open(&root).unwrap();
    assert_eq!(open.summary::<serde_json::Value>().unwrap()["build"], 1);
    assert_eq!(open.index.reader().unwrap().searcher().num_docs(), 1);
    let generations = fs::read_dir(&root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(GENERATION_PREFIX)
        })
        .count();
    assert_eq!(generations, 1);
}

#[test]
fn a_page_replaced_in_a_build_leaves_only_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("idx");
    let mut build = IndexBuild::begin(&root, 2, 30_000_000).unwrap();
    build
        .add(&page("http://example.org/1", "old words"))
        .unwrap();
    build.add(&page("http://example.org/2", "other")).unwrap();
    build
        .replace(&page("http://example.org/1", "new words"))
        .unwrap();
    build.commit(&serde_json::json!({})).unwrap();

    let open = OpenIndex::open(&root).unwrap();
    let searcher = open.index.reader().unwrap().searcher();
    assert_eq!(searcher.num_docs(), 2);
    let query = tantivy::query::TermQuery::new(
        tantivy::Term::from_field_text(open.fields.url, "http://example.org/1"),
        IndexRecordOption::Basic,
    );
    let top = searcher
        .search(
            &query,
            &tantivy::collector::TopDocs::with_limit(5).order_by_score(),
        )
        .unwrap();
    assert_eq!(top.len(), 1);
    let document: TantivyDocument = searcher.doc(top[0].1).unwrap();
    assert_eq!(stored_text(&document, open.fields.body), "new words");
}

#[test]
fn a_second_concurrent_build_fails_fast() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("idx");
    let _first = IndexBuild::begin(&root, 1, 15_000_000).unwrap();
    assert!(matches!(
        IndexBuild::begin(&root, 1, 15_000_000),
        Err(IndexError::Locked(_))
    ));
}

#[test]
fn refuses_to_write_into_a_foreign_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("precious.txt"), "do not delete").unwrap();
    assert!(matches!(
        IndexBuild::begin(dir.path(), 1, 15_000_000),
        Err(IndexError::NotAnIndex(..))
    ));
    assert!(dir.path().join("precious.txt").exists());
}

#[test]
fn opening_a_missing_or_empty_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(OpenIndex::open(&dir.path().join("missing")).is_err());
    assert!(matches!(
        OpenIndex::open(dir.path()),
        Err(IndexError::NotAnIndex(..))
    ));
}
