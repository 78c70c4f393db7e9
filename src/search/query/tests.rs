use super::*;
use crate::search::{index_of, top_urls};

#[test]
fn edits_count_a_swap_as_one_and_a_prefix_ends_below_the_next_text() {
    assert_eq!(edit_distance("ownershp", "ownership"), 1);
    assert_eq!(edit_distance("ownrehsip", "ownership"), 2);
    assert_eq!(edit_distance("owner", "owner"), 0);
    assert_eq!(edit_distance("", "ab"), 2);
    assert_eq!(after_prefix("https://a/").as_deref(), Some("https://a0"));
    assert_eq!(after_prefix("a\u{10FFFF}").as_deref(), Some("b"));
    assert_eq!(after_prefix(""), None);
    assert!(within_host("docs.python.org", "python.org"));
    assert!(within_host("python.org", "python.org"));
    assert!(!within_host("cpython.org", "python.org"));
}

#[test]
fn a_query_that_is_a_whole_title_part_ranks_that_page_first() {
    let (_dir, open) = index_of(&[
        (
            "https://docs.example/deploy.html",
            "Deploying Spiders — Example 2.8 documentation",
            "Deploying spiders: run your spiders on a server. Spiders scheduled, spiders listed.",
        ),
        (
            "https://docs.example/spiders.html",
            "Spiders — Example 2.8 documentation",
            "Spiders are classes that define how a site is crawled.",
        ),
    ]);
    let first = |weights| top_urls(&open, "spiders", 2, weights).unwrap()[0].clone();
    let without = Weights {
        title_part: 0.0,
        ..Weights::default()
    };
    assert_eq!(first(without), "https://docs.example/deploy.html");
    assert_eq!(
        first(Weights::default()),
        "https://docs.example/spiders.html"
    );
    assert_eq!(
        top_urls(&open, "spiders -deploying", 2, Weights::default()).unwrap(),
        ["https://docs.example/spiders.html"],
        "the bonus adds to the score of pages the query matches, never a page"
    );
}

#[test]
fn a_title_s_head_before_a_double_hyphen_or_a_closing_parenthesis_is_a_whole_part() {
    for (page_title, other_title) in [
        ("Example -- widgets", "Example -- widgets_extra"),
        ("Widgets (Example API)", "Widgets.Extra (Example API)"),
    ] {
        let (_dir, open) = index_of(&[
            (
                "https://docs.example/extra.html",
                other_title,
                "Widgets extra: widgets with extras. Widgets listed, widgets sorted.",
            ),
            (
                "https://docs.example/widgets.html",
                page_title,
                "Widgets are the parts a window is made of.",
            ),
        ]);
        let first = |weights| top_urls(&open, "widgets", 2, weights).unwrap()[0].clone();
        let without = Weights {
            title_part: 0.0,
            ..Weights::default()
        };
        assert_eq!(
            first(without),
            "https://docs.example/extra.html",
            "{page_title}"
        );
        assert_eq!(
            first(Weights::default()),
            "https://docs.example/widgets.html",
            "{page_title}"
        );
    }
}
