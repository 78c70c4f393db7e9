//! A real browser: headless Chromium loads the search page and a page view from `indexer
//! serve` and the test checks the DOM it rendered. Chromium is found as `chromium` (Debian's
//! package, which `.ci/run` installs when missing) or `$CHROMIUM`. Without it the test says so
//! and passes, unless `INDEXER_REQUIRE_BROWSER=1` (set by `.ci/run`) makes a missing browser a
//! failure.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::server::Server;
use common::{indexer, ok, sample};

fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("CHROMIUM").map(PathBuf::from);
    named
        .into_iter()
        .chain(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
                .iter()
                .map(PathBuf::from),
        )
        .find(|candidate| candidate.is_file())
}

/// The DOM Chromium rendered for `url`.
fn rendered_dom(browser: &Path, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_browser_renders_the_search_page_and_a_page_view() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("INDEXER_REQUIRE_BROWSER").is_none(),
            "INDEXER_REQUIRE_BROWSER is set but no chromium was found"
        );
        eprintln!("no chromium: the browser test did not run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    ok(indexer(
        &["build", "--index", index.to_str().unwrap()],
        &sample(),
    ));
    let server = Server::start(&[&index]);

    let counted = ok(indexer(
        &[
            "search",
            index.to_str().unwrap(),
            "ownership rules",
            "-n",
            "0",
        ],
        &[] as &[&str],
    ));
    let search = rendered_dom(&browser, &server.url("/?q=ownership+rules"));
    assert!(counted.trim().ends_with("pages match"), "{counted}");
    assert!(search.contains(counted.trim()), "{counted} {search}");
    assert_eq!(
        search.matches("<div class=\"hit\">").count(),
        10,
        "{search}"
    );
    assert!(search.contains("<mark>Ownership</mark>"));
    assert!(search.contains("value=\"ownership rules\""));

    let url = "https://doc.rust-lang.org/1.63.0/book/ch04-01-what-is-ownership.html";
    let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
    let view = rendered_dom(&browser, &server.url(&format!("/page?url={encoded}")));
    assert!(view.contains("What is Ownership?"), "{view}");
    let dropped = view.matches("class=\"block dropped\"").count();
    assert!(dropped > 0, "dropped blocks are shown and marked");
    assert_eq!(
        view.matches("class=\"block dropped\" data-rule=\"content_probability\"")
            .count(),
        dropped
    );
    // Kept blocks name the rule that kept them too.
    assert!(view.contains(
        "<div class=\"block\" data-rule=\"content_probability\" \
         title=\"kept by hybrid: content_probability\">"
    ));
    assert!(view.contains("Ownership Rules"));
}
