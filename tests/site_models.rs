//! Site models kept with an index, end to end: a build keeps each site's template model
//! beside the index, `stats` shows their size, `combine` carries them, a damaged model file is
//! an error that names it; and `export` prints the pages an index holds.

mod common;

use std::path::Path;

use common::{NO_INPUTS, indexer, ok, sample};

fn stats_json(index: &Path) -> serde_json::Value {
    let stdout = ok(indexer(&["stats", "--json"], &[index]));
    serde_json::from_str(&stdout).expect("stats --json is JSON")
}

fn build(index: &Path, flags: &[&str]) {
    let mut args = vec!["build", "-q", "--index", index.to_str().unwrap()];
    args.extend_from_slice(flags);
    ok(indexer(&args, &sample()));
}

fn models_file(index: &Path) -> std::path::PathBuf {
    let live = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    index.join(live.trim()).join("site-models.bin")
}

#[test]
fn a_build_keeps_each_sites_model_and_stats_shows_their_size() {
    let dir = tempfile::tempdir().unwrap();
    for (name, flags) in [
        ("two", &[][..]),
        ("one", &["--one-pass"][..]),
        ("bloom", &["--detector", "bloom"][..]),
        ("incremental", &["--detector", "incremental"][..]),
    ] {
        let index = dir.path().join(name);
        build(&index, flags);
        let stats = stats_json(&index);
        let figures = &stats["index"];
        assert_eq!(figures["site_models"], 3, "{name}: {figures}");
        let bytes = figures["site_model_bytes"].as_u64().unwrap();
        let total = figures["total_bytes"].as_u64().unwrap();
        assert!(
            bytes > 0 && bytes * 10 < total,
            "{name}: {bytes} of {total}"
        );
        assert_eq!(stats["build"]["site_models"]["saved"], 3, "{name}");
        let text = ok(indexer(&["stats"], &[&index]));
        assert!(text.contains("site models"), "{name}: {text}");
    }
    // A detector whose evidence is the pages themselves keeps no model.
    let index = dir.path().join("sandwich");
    build(&index, &["--detector", "sandwich"]);
    assert_eq!(stats_json(&index)["index"]["site_models"], 0);
    assert!(!models_file(&index).exists());
}

#[test]
fn a_damaged_model_file_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &[]);
    let file = models_file(&index);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let output = indexer(&["stats"], &[&index]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("site-models.bin") && stderr.contains("checksum"),
        "{stderr}"
    );
    // Search does not read the models: it still answers.
    ok(indexer(
        &["search", "-q"],
        &[index.to_str().unwrap(), "ownership"],
    ));
}

#[test]
fn combined_shards_carry_their_site_models() {
    let dir = tempfile::tempdir().unwrap();
    let shards: Vec<_> = sample()
        .iter()
        .enumerate()
        .map(|(at, input)| {
            let shard = dir.path().join(format!("shard-{at}"));
            ok(indexer(
                &["build", "-q", "--index", shard.to_str().unwrap()],
                &[input],
            ));
            shard
        })
        .collect();
    let combined = dir.path().join("combined");
    ok(indexer(
        &["combine", "-q", "--index", combined.to_str().unwrap()],
        &shards,
    ));
    assert_eq!(stats_json(&combined)["index"]["site_models"], 3);
    // The same host in two shards (built apart): the first shard's model is kept, with a
    // warning.
    let twin = dir.path().join("twin");
    ok(indexer(
        &["build", "-q", "--index", twin.to_str().unwrap()],
        &[&sample()[0]],
    ));
    let again = dir.path().join("again");
    let output = indexer(
        &["combine", "--index", again.to_str().unwrap()],
        &[&shards[0], &twin],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ok(output);
    assert!(stderr.contains("more than one shard"), "{stderr}");
    assert_eq!(stats_json(&again)["index"]["site_models"], 1);
}

#[test]
fn export_prints_every_page_as_the_index_stores_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&index, &[]);
    let documents = stats_json(&index)["index"]["documents"].as_u64().unwrap();
    let stdout = ok(indexer(
        &["export", "-q", "--index", index.to_str().unwrap()],
        NO_INPUTS,
    ));
    let pages: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(pages.len() as u64, documents);
    // The keys in extract's order.
    let first = stdout.lines().next().unwrap();
    let at = |key: &str| first.find(&format!("\"{key}\":")).expect(key);
    assert!(at("url") < at("site") && at("site") < at("title") && at("title") < at("text"));
    let ownership = pages
        .iter()
        .find(|page| {
            page["url"]
                .as_str()
                .unwrap()
                .ends_with("ch04-01-what-is-ownership.html")
        })
        .expect("the ownership page");
    let text = ownership["text"].as_str().unwrap();
    assert!(text.contains("Ownership is a set of rules"), "{text}");
    // The same page's text as extract decides it.
    let extracted = ok(indexer(&["extract", "-q"], &sample()));
    let same = common::extracted_pages(&extracted)
        .into_iter()
        .find(|(url, _)| url == ownership["url"].as_str().unwrap())
        .expect("extracted too");
    assert_eq!(same.1, text);
}

/// A WARC file of pages `range` of a small site whose every page opens with the same menu.
fn site_warc(
    dir: &Path,
    name: &str,
    site: &str,
    range: std::ops::Range<usize>,
) -> std::path::PathBuf {
    let mut bytes = Vec::new();
    for n in range {
        let html = format!(
            "<html><head><title>Page {n}</title></head><body>\
             <nav><a href=\"/\">Home</a> <a href=\"/guide\">Guide</a> <a href=\"/ref\">Reference</a></nav>\
             <h1>Page {n}</h1><p>The subject of page {n} is its own, word{n} and more word{n}.</p>\
             </body></html>"
        );
        let url = format!("http://{site}/page-{n}.html");
        bytes.extend(common::html_response_record(
            &url,
            Some("2024-05-01T00:00:00Z"),
            &html,
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The kept text of `url` as the index stores it.
fn stored_text(index: &Path, url: &str) -> String {
    let stdout = ok(indexer(
        &["export", "-q", "--index", index.to_str().unwrap()],
        NO_INPUTS,
    ));
    stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|page| page["url"] == url)
        .map(|page| page["text"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("{url} is not in the index"))
}

#[test]
fn an_add_judges_a_known_sites_new_pages_with_its_stored_model() {
    let dir = tempfile::tempdir().unwrap();
    let earlier = site_warc(dir.path(), "earlier.warc", "a.example", 0..6);
    let later = site_warc(dir.path(), "later.warc", "a.example", 6..9);
    let first_new = "http://a.example/page-6.html";

    // `incremental` decides each page from the site's earlier pages: added to an index that
    // knows the site, the first new page loses its menu.
    let index = dir.path().join("idx");
    let flags = [
        "--detector",
        "incremental",
        "-q",
        "--index",
        index.to_str().unwrap(),
    ];
    ok(indexer(&[&["build"][..], &flags].concat(), &[&earlier]));
    let output = ok(indexer(
        &[&["add", "--json"][..], &flags].concat(),
        &[&later],
    ));
    let summary: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(summary["site_models"]["restored"], 1, "{summary}");
    let text = stored_text(&index, first_new);
    assert!(!text.contains("Home Guide Reference"), "{text}");
    assert!(text.contains("word6"), "{text}");

    // Built alone, the same page keeps it: nothing is known of the site yet.
    let alone = dir.path().join("alone");
    ok(indexer(
        &[
            "build",
            "--detector",
            "incremental",
            "-q",
            "--index",
            alone.to_str().unwrap(),
        ],
        &[&later],
    ));
    assert!(stored_text(&alone, first_new).contains("Home Guide Reference"));

    // Deleting the site deletes its model too.
    let other = site_warc(dir.path(), "other.warc", "b.example", 0..3);
    ok(indexer(&[&["add"][..], &flags].concat(), &[&other]));
    assert_eq!(stats_json(&index)["index"]["site_models"], 2);
    ok(indexer(
        &[
            "delete",
            "-q",
            "--index",
            index.to_str().unwrap(),
            "--site",
            "a.example",
        ],
        NO_INPUTS,
    ));
    assert_eq!(stats_json(&index)["index"]["site_models"], 1);
}

#[test]
fn a_web_archives_replays_are_pages_of_the_sites_they_replay() {
    let dir = tempfile::tempdir().unwrap();
    let archive = "https://web.archive.org/web";
    let mut bytes = Vec::new();
    let mut pages = Vec::new();
    for (site, menu) in [
        ("news.example", "Politics Sport"),
        ("blog.example", "About Me"),
    ] {
        for n in 0..3 {
            let url = format!("{archive}/2012021618271{n}/http://{site}/story-{n}.html");
            let html = format!(
                "<html><head><title>Story {n}</title></head><body>\
                 <nav><a href=\"/web/2012/http://{site}/\">{menu}</a></nav>\
                 <h1>Story {n}</h1><p>The replayed story {n} of {site} says its own words.</p>\
                 </body></html>"
            );
            bytes.extend(common::html_response_record(&url, None, &html));
            pages.push((url, site));
        }
    }
    let calendar = format!("{archive}/*/http://news.example/*");
    let html = "<html><body><p>Calendar of the captures of a site.</p></body></html>";
    bytes.extend(common::html_response_record(&calendar, None, html));
    pages.push((calendar, "web.archive.org"));
    let warc = dir.path().join("replays.warc");
    std::fs::write(&warc, bytes).unwrap();
    let index = dir.path().join("idx");
    ok(indexer(
        &["build", "-q", "--index", index.to_str().unwrap()],
        &[&warc],
    ));

    let stdout = ok(indexer(
        &["export", "-q", "--index", index.to_str().unwrap()],
        NO_INPUTS,
    ));
    let exported: std::collections::BTreeMap<String, String> = stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .map(|page| {
            (
                page["url"].as_str().unwrap().into(),
                page["site"].as_str().unwrap().into(),
            )
        })
        .collect();
    for (url, site) in &pages {
        assert_eq!(exported[url], *site, "{url}");
    }
    assert_eq!(stats_json(&index)["index"]["documents"], 7);

    // `site:` finds a replayed site's pages, and only them.
    let found = ok(indexer(
        &[
            "search",
            "--json",
            "-q",
            index.to_str().unwrap(),
            "site:news.example",
        ],
        NO_INPUTS,
    ));
    let found: serde_json::Value = serde_json::from_str(&found).unwrap();
    let urls: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls.len(), 3, "{urls:?}");
    assert!(
        urls.iter().all(|url| url.contains("/http://news.example/")),
        "{urls:?}"
    );
}
