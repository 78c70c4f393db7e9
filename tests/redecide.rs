//! `indexer add` deciding sites again: a two-pass add that takes a site past a power of two,
//! a crawl file of one gzip stream, pages whose files are gone or changed, a one-pass add, and
//! `--redecide touched` deciding as one build would.

mod common;

use common::updates::*;
use common::{indexer, ok};

#[test]
fn a_two_pass_add_that_takes_a_site_past_a_power_of_two_decides_it_again_as_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    assert_eq!(records.len(), 40);
    // Four pages alone are decided otherwise than the whole site decides them (with the
    // built-in models, five already are decided as the whole site: checked below).
    let first = write_records(dir.path(), "first.warc", &records[..4]);
    let rest = write_records(dir.path(), "rest.warc", &records[4..]);

    let one_build = dir.path().join("one");
    ok(indexer(
        &["-q", "build", "--index", one_build.to_str().unwrap()],
        &[&first, &rest],
    ));
    let whole = exported_texts(&one_build);

    let index = dir.path().join("idx");
    build(&index, &first);
    let before = exported_texts(&index);
    assert!(
        before.iter().any(|(url, text)| whole[url] != *text),
        "the first four pages alone are decided as the whole site decides them: \
         this test would show nothing"
    );
    let summary = add_json(&index, &[&rest]);
    assert_eq!(summary["redecided"]["sites"], 1, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 40, "{summary}");
    assert_eq!(summary["redecided"]["not_read_again"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 36);
    assert_eq!(documents(&index), 40);
    assert_eq!(exported_texts(&index), whole);

    // Six more pages (41 to 46, copies under new URLs) do not reach 64: only they are decided.
    let more: Vec<indexer::read::Record> = records[..6]
        .iter()
        .map(|record| {
            let mut record = record.clone();
            record.url = format!("{}?copy", record.url);
            record
        })
        .collect();
    let more = write_records(dir.path(), "more.warc", &more);
    let summary = add_json(&index, &[&more]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 6);
}

#[test]
fn a_crawl_file_of_one_gzip_stream_is_read_again_in_one_pass_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let plain = write_records(dir.path(), "first.warc", &records[..5]);
    let first = dir.path().join("first.warc.gz");
    let mut gzip = flate2::write::GzEncoder::new(
        std::fs::File::create(&first).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut gzip, &std::fs::read(&plain).unwrap()).unwrap();
    gzip.finish().unwrap();
    let rest = write_records(dir.path(), "rest.warc", &records[5..]);
    let one_build = dir.path().join("one");
    ok(indexer(
        &["-q", "build", "--index", one_build.to_str().unwrap()],
        &[&first, &rest],
    ));
    let index = dir.path().join("idx");
    build(&index, &first);
    let summary = add_json(&index, &[&rest]);
    assert_eq!(summary["redecided"]["pages"], 40, "{summary}");
    assert_eq!(summary["redecided"]["not_read_again"], 0, "{summary}");
    assert_eq!(exported_texts(&index), exported_texts(&one_build));
}

#[test]
fn pages_whose_files_are_gone_are_counted_and_left_as_decided() {
    let (before, summary, after) =
        add_after_damaging_the_first_file(|first, _| std::fs::remove_file(first).unwrap());
    assert_eq!(summary["redecided"]["not_read_again"], 5, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 35, "{summary}");
    assert_eq!(after.len(), 40);
    for (url, text) in &before {
        assert_eq!(
            &after[url], text,
            "{url} was not read again: kept as it was"
        );
    }
}

#[test]
fn pages_whose_files_changed_since_keep_their_decisions() {
    // The same URLs, offsets and lengths; one byte of each page's HTML other.
    let (before, summary, after) = add_after_damaging_the_first_file(|first, records| {
        let changed: Vec<indexer::read::Record> = records
            .iter()
            .map(|record| {
                let mut record = record.clone();
                let at = record.block.len() - 2;
                record.block[at] = if record.block[at] == b' ' {
                    b'\n'
                } else {
                    b' '
                };
                record
            })
            .collect();
        let dir = first.parent().unwrap();
        write_records(dir, first.file_name().unwrap().to_str().unwrap(), &changed);
    });
    assert_eq!(summary["redecided"]["not_read_again"], 5, "{summary}");
    assert_eq!(summary["redecided"]["pages"], 35, "{summary}");
    for (url, text) in &before {
        assert_eq!(
            &after[url], text,
            "{url}: its file changed, so it keeps its decision"
        );
    }
}

#[test]
fn a_one_pass_add_decides_no_site_again() {
    let dir = tempfile::tempdir().unwrap();
    let records = rustbook_records();
    let first = write_records(dir.path(), "first.warc", &records[..5]);
    let rest = write_records(dir.path(), "rest.warc", &records[5..]);
    let index = dir.path().join("idx");
    ok(indexer(
        &[
            "-q",
            "build",
            "--one-pass",
            "--index",
            index.to_str().unwrap(),
        ],
        &[&first],
    ));
    let summary = add_json_with(&index, &[&rest], &["--one-pass"]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(count(&summary, "added"), 35);
}

#[test]
fn redecide_touched_makes_an_add_decide_as_one_build_in_both_modes() {
    // 4 pages and 3 more stay under 8: by default a two-pass add leaves the first 4 as they
    // were decided, otherwise than one build of the 7 decides them.
    let (summary, after, whole) = four_then_three(&[], &[]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_ne!(
        after, whole,
        "the default add decides as one build: this test shows nothing"
    );

    for flags in [&[][..], &["--one-pass"][..]] {
        let (summary, after, whole) = four_then_three(flags, &["--redecide", "touched"]);
        assert_eq!(summary["redecided"]["rule"], "touched", "{summary}");
        assert_eq!(summary["redecided"]["sites"], 1, "{flags:?}: {summary}");
        assert_eq!(summary["redecided"]["pages"], 7, "{flags:?}: {summary}");
        assert_eq!(
            summary["redecided"]["not_read_again"], 0,
            "{flags:?}: {summary}"
        );
        // Two passes: the first four were decided otherwise (above). One pass goes on from the
        // stored models, and here already decides as one build: nothing to replace.
        let replaced = summary["redecided"]["replaced"].as_u64().unwrap();
        assert!(replaced <= 7, "{flags:?}: {summary}");
        assert_eq!(replaced > 0, flags.is_empty(), "{flags:?}: {summary}");
        assert_eq!(after.len(), 7);
        assert_eq!(after, whole, "{flags:?}");
    }
}

#[test]
fn pages_decided_again_the_same_way_are_left_in_place() {
    // `none` keeps every block of every page, whatever the site holds: deciding the site
    // again changes no page's decisions, so no document is replaced.
    let (summary, after, whole) =
        four_then_three(&["--detector", "none"], &["--redecide", "touched"]);
    assert_eq!(summary["redecided"]["pages"], 7, "{summary}");
    assert_eq!(summary["redecided"]["replaced"], 0, "{summary}");
    assert_eq!(after, whole);

    let (summary, ..) = four_then_three(&[], &["--redecide", "never"]);
    assert_eq!(summary["redecided"]["sites"], 0, "{summary}");
    assert_eq!(summary["redecided"]["rule"], "never", "{summary}");
}
