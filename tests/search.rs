//! End to end: what a query means to `indexer search` and to `indexer serve`'s search, on the
//! committed sample in `data/` — `site:` and `url:` filters, wildcard and fuzzy words, the
//! indexes named apart from the query, bad counts — and the README's search examples run as
//! written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

mod common;
use common::server::Server;
use common::{NO_INPUTS, indexer, ok, repo, sample};

const PYTHON: &str = "docs.python.org";
const SCRAPY: &str = "docs.scrapy.org";
const RUST: &str = "doc.rust-lang.org";

/// Pages of each site in the sample.
const PYTHON_PAGES: u64 = 30;

/// A folder for this test binary's indexes.
fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("search-{}", std::process::id()))
}

/// An index of the whole sample, built once per test binary.
fn index() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let index = scratch().join("sample");
        ok(indexer(
            &["build", "-q", "--index", index.to_str().unwrap()],
            &sample(),
        ));
        index
    })
}

/// Indexes of one site each, in a folder of their own: `rust` (the Rust book) and `python`
/// (the Python docs), built once per test binary.
fn site_indexes() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let folder = scratch().join("sites");
        for (name, crawl) in [("rust", "rustbook"), ("python", "python311")] {
            let index = folder.join(name);
            let input = repo().join("data").join(format!("{crawl}.warc.gz"));
            ok(indexer(
                &["build", "-q", "--index", index.to_str().unwrap()],
                &[input],
            ));
        }
        folder
    })
}

/// `indexer search` with `args` (the index first) and `--json`: the results.
fn search(args: &[&str]) -> Value {
    let mut all = vec!["search", "--json"];
    all.extend(args);
    serde_json::from_str(&ok(indexer(&all, NO_INPUTS))).unwrap()
}

/// The results of `query` on the sample index, up to 100 hits.
fn results(query: &str) -> Value {
    search(&[index().to_str().unwrap(), query, "-n", "100"])
}

fn total(results: &Value) -> u64 {
    results["total"].as_u64().unwrap()
}

fn hits(results: &Value) -> &Vec<Value> {
    results["hits"].as_array().unwrap()
}

fn field<'a>(hit: &'a Value, name: &str) -> &'a str {
    hit[name].as_str().unwrap()
}

/// The matching pages of `results` (all of them shown) on `site`.
fn on_site(results: &Value, site: &str) -> Vec<(String, f64)> {
    assert_eq!(hits(results).len() as u64, total(results), "not all shown");
    hits(results)
        .iter()
        .filter(|hit| field(hit, "site") == site)
        .map(|hit| {
            (
                field(hit, "url").to_string(),
                hit["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn site_filters_the_query_and_adds_nothing_to_the_score() {
    let words = results("exception");
    let python = on_site(&words, PYTHON);
    let scrapy = on_site(&words, SCRAPY);
    assert!(!python.is_empty() && !scrapy.is_empty());
    assert!(total(&words) > python.len() as u64);

    // The Python pages only, each scored as without the filter, in the same order.
    let filtered = results("site:docs.python.org exception");
    assert_eq!(on_site(&filtered, PYTHON), python);
    assert_eq!(total(&filtered), python.len() as u64);
    assert_eq!(
        results("exception site:docs.python.org")["hits"],
        filtered["hits"]
    );
    assert_eq!(
        results("+site:docs.python.org exception")["hits"],
        filtered["hits"]
    );
    // A subdomain is on its site: python.org holds docs.python.org.
    assert_eq!(
        results("site:python.org exception")["hits"],
        filtered["hits"]
    );

    // Several sites: any of them.
    let either = results("site:docs.python.org site:docs.scrapy.org exception");
    assert_eq!(total(&either), (python.len() + scrapy.len()) as u64);
    assert!(on_site(&either, RUST).is_empty());
    let either_or = results("site:docs.python.org OR site:docs.scrapy.org exception");
    assert_eq!(either_or["hits"], either["hits"]);

    // -site: leaves a site out.
    let without = results("exception -site:docs.python.org");
    assert_eq!(total(&without), total(&words) - python.len() as u64);
    assert!(on_site(&without, PYTHON).is_empty());
}

#[test]
fn url_keeps_the_pages_under_a_prefix_with_or_without_its_scheme() {
    let prefix = "https://docs.python.org/3.11/c-api/";
    let words = results("object");
    let scored = |results: &Value| -> Vec<(String, f64)> {
        hits(results)
            .iter()
            .map(|hit| {
                (
                    field(hit, "url").to_string(),
                    hit["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let under: Vec<(String, f64)> = scored(&words)
        .into_iter()
        .filter(|(url, _)| url.starts_with(prefix))
        .collect();
    assert!(!under.is_empty());
    assert!(total(&words) > under.len() as u64);
    // The pages under the prefix, each scored as without the filter.
    let filtered = results(&format!("url:{prefix} object"));
    assert_eq!(scored(&filtered), under);
    let without_scheme = results("url:docs.python.org/3.11/c-api/ object");
    assert_eq!(without_scheme["hits"], filtered["hits"]);
    let quoted = results(&format!("url:\"{prefix}\" object"));
    assert_eq!(quoted["hits"], filtered["hits"]);
    let excluded = results(&format!("object -url:{prefix}"));
    assert_eq!(total(&excluded), total(&words) - under.len() as u64);
}

#[test]
fn a_filter_alone_lists_its_pages_by_url_or_says_why_none() {
    let listed = results("site:docs.python.org");
    assert_eq!(total(&listed), PYTHON_PAGES);
    let urls: Vec<&str> = hits(&listed).iter().map(|hit| field(hit, "url")).collect();
    let mut sorted = urls.clone();
    sorted.sort();
    assert_eq!(urls, sorted, "listed by URL");
    assert!(
        urls.iter()
            .all(|url| url.starts_with("https://docs.python.org/"))
    );

    // The site's pages without a word.
    let without = results("site:docs.python.org -exception");
    let with = results("site:docs.python.org exception");
    assert_eq!(total(&without) + total(&with), PYTHON_PAGES);

    // A site the index does not hold: nothing, and a note says so.
    let output = indexer(
        &[
            "search",
            index().to_str().unwrap(),
            "site:nowhere.example",
            "asyncio",
        ],
        NO_INPUTS,
    );
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("0 pages match"));
    assert!(
        stderr(&output).contains("no page of the site nowhere.example is in the index"),
        "{}",
        stderr(&output)
    );
    let output = indexer(
        &[
            "search",
            index().to_str().unwrap(),
            "url:https://nowhere.example/",
        ],
        NO_INPUTS,
    );
    assert!(stderr(&output).contains("no page of the index has a URL starting"));
}

#[test]
fn a_filter_without_a_value_or_inside_parentheses_is_refused_with_why() {
    for (query, why) in [
        ("site: asyncio", "site: needs a host"),
        (
            "(site:docs.python.org OR loop) event",
            "outside parentheses",
        ),
    ] {
        let output = indexer(&["search", index().to_str().unwrap(), query], NO_INPUTS);
        assert_eq!(output.status.code(), Some(2), "{query}");
        assert!(
            stderr(&output).contains(why),
            "{query}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_wildcard_finds_the_words_it_starts() {
    let exact = results("owner");
    let wildcard = results("owner*");
    assert!(
        total(&wildcard) > total(&exact),
        "owner* found no more than owner"
    );
    // Every page with "ownership" is found by owner*.
    let ownership = results("ownership");
    for hit in hits(&ownership) {
        let url = field(hit, "url");
        assert!(
            hits(&wildcard)
                .iter()
                .any(|found| field(found, "url") == url),
            "{url}"
        );
    }
    // The snippets mark the words it stands for.
    let marked: Vec<String> = hits(&wildcard)
        .iter()
        .flat_map(|hit| {
            let snippet: Vec<char> = field(hit, "snippet").chars().collect();
            hit["highlights"]
                .as_array()
                .unwrap()
                .iter()
                .map(|range| {
                    let (start, end) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
                    snippet[start as usize..end as usize]
                        .iter()
                        .collect::<String>()
                        .to_lowercase()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(marked.iter().any(|word| word == "ownership"), "{marked:?}");
    assert!(marked.iter().any(|word| word == "owner"), "{marked:?}");

    // In a field, with the other syntax around it.
    let in_title = results("title:owner*");
    assert!(total(&in_title) > 0);
    for hit in hits(&in_title) {
        assert!(field(hit, "title").to_lowercase().contains("owner"));
    }
    let required = results("+owner* +borrowing -slices");
    assert!(total(&required) > 0);
    for hit in hits(&required) {
        assert_ne!(
            field(hit, "title"),
            "The Slice Type - The Rust Programming Language"
        );
    }
    // Quoted, a * is text.
    assert_eq!(results("\"owner*\"")["hits"], exact["hits"]);
}

#[test]
fn a_fuzzy_word_finds_the_words_near_it() {
    assert_eq!(total(&results("ownershp")), 0);
    let fuzzy = results("ownershp~1");
    assert!(total(&fuzzy) > 0);
    assert_eq!(total(&fuzzy), total(&results("ownership")));
    assert!(field(&hits(&fuzzy)[0], "url").contains("ownership"));
    // Two edits reach further than one.
    assert_eq!(total(&results("ownrshp~1")), 0);
    assert!(total(&results("ownrshp~2")) > 0);
    assert_eq!(results("ownrshp~")["hits"], results("ownrshp~2")["hits"]);
}

#[test]
fn wildcards_and_fuzzy_words_search_cannot_do_are_refused_with_why() {
    for (query, why) in [
        ("own*ship", "stands at the end of a word"),
        ("*owner*", "stands at the end of a word"),
        ("ownershp~3", "0, 1 or 2 edits"),
        ("url:x owner~1*", "either a wildcard"),
    ] {
        let output = indexer(&["search", index().to_str().unwrap(), query], NO_INPUTS);
        assert_eq!(output.status.code(), Some(2), "{query}");
        assert!(
            stderr(&output).contains(why),
            "{query}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn a_query_word_is_never_an_index_and_further_indexes_come_with_index() {
    let folder = site_indexes();
    let run = |args: &[&str]| -> Output {
        Command::new(env!("CARGO_BIN_EXE_indexer"))
            .args(args)
            .current_dir(folder)
            .output()
            .unwrap()
    };
    let json = |output: &Output| -> Value {
        assert!(output.status.success(), "{}", stderr(output));
        serde_json::from_slice(&output.stdout).unwrap()
    };

    // `rust` is a folder holding an index here; after the index, it is a query word.
    let output = run(&["search", "python", "rust", "ownership", "--json"]);
    let results = json(&output);
    assert_eq!(results["query"], "rust ownership");
    assert!(
        hits(&results)
            .iter()
            .all(|hit| field(hit, "site") == PYTHON)
    );
    assert!(
        stderr(&output).contains("--index rust"),
        "{}",
        stderr(&output)
    );

    // Further indexes come with --index (or -i), before, among or after the words.
    let rust_alone = json(&run(&["search", "rust", "ownership", "--json", "-n", "0"]));
    let python_alone = json(&run(&[
        "search",
        "python",
        "ownership",
        "--json",
        "-n",
        "0",
    ]));
    let forms: [&[&str]; 4] = [
        &["search", "python", "ownership", "--index", "rust", "--json"],
        &["search", "--index", "rust", "python", "ownership", "--json"],
        &["search", "python", "-i", "rust", "ownership", "--json"],
        &["search", "python", "ownership", "--json", "--index=rust"],
    ];
    for args in forms {
        let both = json(&run(args));
        assert_eq!(both["query"], "ownership", "{args:?}");
        assert_eq!(
            total(&both),
            total(&rust_alone) + total(&python_alone),
            "{args:?}"
        );
    }

    // The older form, paths to indexes right after the first (a shell glob of shards),
    // still searches them.
    let output = run(&[
        "search",
        "./python",
        "./rust",
        "ownership",
        "--json",
        "-n",
        "0",
    ]);
    let results = json(&output);
    assert_eq!(results["query"], "ownership");
    assert_eq!(total(&results), total(&rust_alone) + total(&python_alone));
}

#[test]
fn a_negative_count_is_a_usage_error_naming_its_flag() {
    let index = index().to_str().unwrap();
    for (args, flag) in [
        (vec!["search", index, "rust", "-n", "-1"], "--limit"),
        (vec!["search", index, "-n", "-1", "rust"], "--limit"),
        (vec!["search", index, "rust", "--limit", "-1"], "--limit"),
        (vec!["search", index, "rust", "--offset", "-1"], "--offset"),
        (vec!["search", index, "rust", "--offset=-3"], "--offset"),
    ] {
        let output = indexer(&args, NO_INPUTS);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains(flag), "{args:?}: {message}");
        assert!(message.contains("0 or more"), "{args:?}: {message}");
        assert!(!message.contains("-- -1"), "{args:?}: {message}");
    }
    // A hyphen word is still a query word.
    let results = search(&[index, "-n", "3", "ownership", "-slices"]);
    assert_eq!(results["query"], "ownership -slices");
}

#[test]
fn counts_past_the_deepest_result_are_refused_and_a_deep_listing_stays_small() {
    let index = index().to_str().unwrap();
    let site = format!("site:{PYTHON}");
    for (args, flag) in [
        (
            vec!["search", index, "python", "-n", "18446744073709551615"],
            "--limit",
        ),
        (
            vec!["search", index, &site, "-n", "18446744073709551615"],
            "--limit",
        ),
        (
            vec!["search", index, &site, "-n", "99999999999999999999999"],
            "--limit",
        ),
        (vec!["search", index, &site, "-n", "200000000"], "--limit"),
        (
            vec!["search", index, "python", "--offset", "500000000"],
            "--offset",
        ),
        (
            vec!["search", index, &site, "--offset", "6000", "-n", "5000"],
            "--offset",
        ),
    ] {
        let output = indexer(&args, NO_INPUTS);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{args:?}: {message}");
        assert!(message.contains(flag), "{args:?}: {message}");
        assert!(message.contains("10000"), "{args:?}: {message}");
    }
    // The deepest listing allowed, over pages that all tie, gives every page once.
    let listed = search(&[index, &site, "-n", "10000"]);
    assert_eq!(total(&listed), PYTHON_PAGES);
    assert_eq!(hits(&listed).len() as u64, PYTHON_PAGES);
    let skipped = search(&[index, &site, "--offset", "9990", "-n", "10"]);
    assert_eq!(total(&skipped), PYTHON_PAGES);
    assert!(hits(&skipped).is_empty());
}

#[test]
fn serve_reads_queries_alike() {
    let server = Server::start(&[index()]);
    let api = |query: &str| -> Value {
        let encoded: String = url::form_urlencoded::byte_serialize(query.as_bytes()).collect();
        let reply = server.get(&format!("/api/search?limit=100&q={encoded}"));
        assert_eq!(reply.status, 200, "{query}: {}", reply.body);
        reply.json()
    };
    for query in [
        "site:docs.python.org exception",
        "site:docs.python.org site:docs.scrapy.org exception",
        "url:docs.python.org/3.11/c-api/ object",
        "owner*",
        "ownershp~1",
        "site:docs.python.org",
    ] {
        let served = api(query);
        let cli = results(query);
        assert_eq!(served["total"], cli["total"], "{query}");
        let urls = |results: &Value| -> Vec<String> {
            hits(results)
                .iter()
                .map(|hit| field(hit, "url").to_string())
                .collect()
        };
        assert_eq!(urls(&served), urls(&cli), "{query}");
    }
    // The per-site counts are of the filtered pages.
    let sites = api("site:docs.python.org exception")["sites"].clone();
    assert_eq!(sites.as_array().unwrap().len(), 1);
    assert_eq!(sites[0]["site"], PYTHON);

    let page = server.get("/?q=site%3Adocs.python.org+exception");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<div class=hit>"));
    assert!(!page.body.contains("· docs.scrapy.org ·"), "{}", page.body);

    let refused = server.get("/api/search?q=own*ship");
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.json()["error"]
            .as_str()
            .unwrap()
            .contains("end of a word")
    );
    let refused = server.get("/?q=own*ship");
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("end of a word"));

    let missing = api("site:nowhere.example asyncio");
    assert_eq!(missing["total"], 0);
    assert!(
        missing["notes"][0]
            .as_str()
            .unwrap()
            .contains("nowhere.example")
    );
}

/// The commands of the README's search examples (the block after the line that names this
/// test), each run as written by a shell in a folder where `docs-idx` is the sample index.
#[test]
fn the_readme_search_examples_run_and_find_pages() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let marker = "tests/search.rs runs these";
    let block = readme
        .split_once(marker)
        .expect("the README's search examples")
        .1
        .split_once("```sh")
        .unwrap()
        .1
        .split_once("```")
        .unwrap()
        .0;
    let folder = scratch().join("readme");
    std::fs::create_dir_all(&folder).unwrap();
    let link = folder.join("docs-idx");
    if !link.exists() {
        std::os::unix::fs::symlink(index(), &link).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_indexer")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for line in block
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("indexer search"))
    {
        let output = Command::new("bash")
            .args(["-c", line])
            .current_dir(&folder)
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{line}: {}", stderr(&output));
        let matched: u64 = stdout
            .lines()
            .last()
            .and_then(|last| last.split(' ').next())
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("{line}: {stdout}"));
        assert!(matched > 0, "{line}: {stdout}");
        let sites: Vec<&str> = line
            .split_whitespace()
            .filter_map(|word| word.trim_matches('\'').strip_prefix("site:"))
            .collect();
        if let [site] = sites.as_slice() {
            let urls = stdout.lines().filter_map(|line| {
                let (rank, rest) = line.trim_start().split_once(". ")?;
                rank.parse::<u64>().ok()?;
                rest.split_whitespace().last()
            });
            for url in urls {
                assert!(
                    url.starts_with(&format!("https://{site}/")),
                    "{line}: {url}"
                );
            }
        }
        ran += 1;
    }
    assert!(ran >= 4, "only {ran} examples");
}
