use super::*;
use crate::detect::{NoPages, counter};

#[test]
fn recording_keeps_everything_and_records_rows() {
    let pages = Arc::new(Mutex::new(Vec::new()));
    let mut detector = Hybrid::new(HybridSettings {
        model: ModelSource::Record {
            pages: Arc::clone(&pages),
            only: None,
        },
        ..HybridSettings::default()
    });
    let page = crate::detect::test_page(
        "http://a.example/x",
        "<title>T</title><nav><a href=/>Home</a></nav><p>Text of the page.</p>",
        detector.segment_options(),
    );
    let facts = detector.observe(&page, "");
    detector.learn(&facts);
    let keep = detector.keeps(&page, &facts, &NoPages);
    assert_eq!(keep, [true, true]);
    let recorded = pages.lock().unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].texts, ["Home", "Text of the page."]);
    assert_eq!(recorded[0].rows[0].len(), features::count());
}

/// A two-pass page waits without its signatures and without its word lists; its
/// verdicts are the ones the whole observation gives.
#[test]
fn a_waiting_page_is_decided_as_the_whole_observation_decides_it() {
    let html = |n: usize| {
        format!(
            "<title>Guide {n}</title><nav><a href=/>Home</a> <a href=/a>About us</a></nav>\
                 <h1>Guide {n}</h1><p>Chapter {n} explains the widget, the other widget and \
                 part {n} of the manual.</p><p>Shared note: read the manual.</p>\
                 <footer>Copyright the authors</footer>"
        )
    };
    let learned = || {
        let mut detector = Hybrid::new(HybridSettings::default());
        let pages = crate::detect::test_site(8, html, detector.segment_options());
        let facts: Vec<PageFacts> = pages.iter().map(|p| detector.observe(p, "")).collect();
        facts.iter().for_each(|f| detector.learn(f));
        (detector, pages, facts)
    };
    let (whole, pages, facts) = learned();
    let (trimmed, mut waiting, mut trimmed_facts) = learned();
    for (page, facts) in waiting.iter_mut().zip(&mut trimmed_facts) {
        trimmed.trim_for_waiting(facts);
        page.shrink_for_waiting(false);
        assert!(facts.signatures.is_empty());
    }
    for at in 0..pages.len() {
        let expected = whole.decide(&pages[at], &facts[at], &NoPages);
        let got = trimmed.decide(&waiting[at], &trimmed_facts[at], &NoPages);
        assert_eq!(got, expected, "page {at}");
    }
    let ratios = |detector: &Hybrid| {
        let mut ratios: Vec<(u64, u32)> = detector
            .ratios
            .lock()
            .unwrap()
            .iter()
            .map(|(&key, &ratio)| (key, ratio.to_bits()))
            .collect();
        ratios.sort_unstable();
        ratios
    };
    assert!(ratios(&whole).iter().any(|&(_, ratio)| ratio != 0));
    assert_eq!(ratios(&trimmed), ratios(&whole));
}

/// With the built-in models, a two-pass run decides a site of one page exactly as a
/// one-pass run does (same probabilities, so the same model and evidence), counts it, and
/// decides a site of two pages with its own model and evidence.
#[test]
fn a_site_of_one_page_is_decided_in_two_passes_as_in_one() {
    let html = |n: usize| {
        format!(
            "<title>Notes {n}</title><nav><a href=/>Home</a> <a href=/a>About</a> \
                 <a href=/b>Blog</a></nav><h1>Notes {n}</h1><p>These are the notes of part {n}, \
                 written over a long winter, about the garden, the bees and the apple trees.</p>\
                 <ul><li><a href=/x>Older posts</a></li><li><a href=/y>Newer posts</a></li></ul>\
                 <footer>Copyright the author, all rights reserved</footer>"
        )
    };
    let decided = |detector: &mut Hybrid, pages: usize| {
        let pages = crate::detect::test_site(pages, html, detector.segment_options());
        let facts: Vec<PageFacts> = pages.iter().map(|p| detector.observe(p, "")).collect();
        facts.iter().for_each(|f| detector.learn(f));
        detector.decide(&pages[0], &facts[0], &NoPages)
    };
    let one_pass = {
        let detector = Hybrid::new_one_pass(HybridSettings::default());
        let pages = crate::detect::test_site(1, html, detector.segment_options());
        let facts = detector.observe(&pages[0], "");
        detector.decide(&pages[0], &facts, &NoPages)
    };
    let mut two_pass = Hybrid::new(HybridSettings::default());
    assert_eq!(decided(&mut two_pass, 1), one_pass);
    assert_eq!(
        counter(&two_pass.counters(), "lone_pages_decided_as_one_pass"),
        1
    );

    let mut two_pass_model = Hybrid::new(HybridSettings {
        lone_page_as_one_pass: false,
        ..HybridSettings::default()
    });
    assert_ne!(decided(&mut two_pass_model, 1), one_pass);
    assert_eq!(
        counter(&two_pass_model.counters(), "lone_pages_decided_as_one_pass"),
        0
    );

    let mut two_pages = Hybrid::new(HybridSettings::default());
    decided(&mut two_pages, 2);
    assert_eq!(
        counter(&two_pages.counters(), "lone_pages_decided_as_one_pass"),
        0
    );

    // Where a segment on one page is already template, the page's segments count.
    let on_one_page = || HybridSettings {
        segment_table: IncrementalSettings {
            min_frequency: 1,
            ..IncrementalSettings::default()
        },
        ..HybridSettings::default()
    };
    let one_pass_low = {
        let detector = Hybrid::new_one_pass(on_one_page());
        let pages = crate::detect::test_site(1, html, detector.segment_options());
        let facts = detector.observe(&pages[0], "");
        detector.decide(&pages[0], &facts, &NoPages)
    };
    assert_ne!(one_pass_low, one_pass);
    assert_eq!(decided(&mut Hybrid::new(on_one_page()), 1), one_pass_low);
}

/// In one pass a page is judged before it is learned, yet counted as a two-pass run
/// counts it: the third page with the same nav sees it on 3 of 3 pages.
#[test]
fn one_pass_site_evidence_counts_the_page_itself() {
    let pages = Arc::new(Mutex::new(Vec::new()));
    let mut detector = Hybrid::new_one_pass(HybridSettings {
        model: ModelSource::Record {
            pages: Arc::clone(&pages),
            only: None,
        },
        ..HybridSettings::default()
    });
    for n in 0..3 {
        let page = crate::detect::test_page(
            &format!("http://a.example/{n}"),
            &format!("<title>T{n}</title><nav><a href=/>Home</a></nav><p>Story {n}.</p>"),
            detector.segment_options(),
        );
        let facts = detector.observe(&page, "");
        assert!(facts.signatures.is_empty() && !facts.segments.is_empty());
        detector.keeps(&page, &facts, &NoPages);
        detector.learn(&facts);
    }
    let share = features::names()
        .iter()
        .position(|name| name == "site_text_page_share")
        .unwrap();
    let recorded = pages.lock().unwrap();
    let (first, last) = (&recorded[0].rows, &recorded[2].rows);
    assert_eq!((first[0][share], first[1][share]), (1.0, 1.0));
    assert!(
        (last[0][share] - 1.0).abs() < 1e-6,
        "nav: {}",
        last[0][share]
    );
    assert!(
        (last[1][share] - 1.0 / 3.0).abs() < 1e-6,
        "story: {}",
        last[1][share]
    );
    assert!(counter(&detector.counters(), "segments") >= 4);
}

/// A section's own menu is on half the site's pages and on every page of its directory,
/// in either mode; a one-pass run counts the page itself.
#[test]
fn a_section_template_fills_its_directory() {
    for passes in [Passes::Two, Passes::One] {
        let pages = Arc::new(Mutex::new(Vec::new()));
        let settings = HybridSettings {
            model: ModelSource::Record {
                pages: Arc::clone(&pages),
                only: None,
            },
            ..HybridSettings::default()
        };
        let mut detector = Hybrid::with_passes(settings, passes);
        let segmented: Vec<SegmentedPage> = ["guide", "api"]
                .iter()
                .flat_map(|section| (0..3).map(move |n| (section, n)))
                .map(|(section, n)| {
                    crate::detect::test_page(
                        &format!("http://a.example/{section}/{n}.html"),
                        &format!(
                            "<nav><a href=/{section}/>{section} one</a> <a href=/x>{section} two</a></nav><p>Page {section} {n}.</p>"
                        ),
                        detector.segment_options(),
                    )
                })
                .collect();
        let facts: Vec<PageFacts> = segmented
            .iter()
            .map(|page| detector.observe(page, ""))
            .collect();
        if passes == Passes::Two {
            facts.iter().for_each(|facts| detector.learn(facts));
        }
        for (page, facts) in segmented.iter().zip(&facts) {
            detector.keeps(page, facts, &NoPages);
            if passes == Passes::One {
                detector.learn(facts);
            }
        }
        let at = |name: &str| features::names().iter().position(|n| n == name).unwrap();
        let recorded = pages.lock().unwrap();
        let last = &recorded[5].rows;
        let figures = |block: usize| {
            (
                last[block][at("site_text_page_share")],
                last[block][at("site_section_text_page_share")],
                last[block][at("site_directory_log_pages")],
            )
        };
        assert_eq!(figures(0), (0.5, 1.0, 4f32.ln()), "{passes:?}: the menu");
        let story = figures(1);
        assert!(
            (story.0 - 1.0 / 6.0).abs() < 1e-6 && (story.1 - 1.0 / 3.0).abs() < 1e-6,
            "{passes:?}: the story {story:?}"
        );
    }
}

/// A site's tables read back as they were saved (entries seen twice or more; a
/// directory's texts seen three times or more), its directory's texts made again when
/// the site has one directory.
#[test]
fn site_tables_read_back_with_one_directory_or_several() {
    let mut detector = Hybrid::new(HybridSettings::default());
    let urls = [
        "http://a.example/guide/1.html",
        "http://a.example/guide/2.html",
        "https://a.example:443/guide/3.html",
        "http://b.example/guide/1.html",
        "http://b.example/guide/2.html",
        "http://b.example/guide/3.html",
        "http://b.example/api/1.html",
        "http://b.example/api/2.html",
        "http://b.example/api/3.html",
    ];
    for (n, url) in urls.iter().enumerate() {
        let section = if url.contains("/api/") {
            "api"
        } else {
            "guide"
        };
        let html =
            format!("<nav><a href=/>{section} menu</a></nav><p>Story {n}.</p><p>Shared.</p>");
        let page = crate::detect::test_page(url, &html, detector.segment_options());
        let facts = detector.observe(&page, "");
        detector.learn(&facts);
    }
    assert_eq!(detector.sites["a.example"].directories.len(), 1);
    assert_eq!(detector.sites["b.example"].directories.len(), 2);
    for site in ["a.example", "b.example"] {
        let saved = detector.save_site(site).unwrap();
        let mut restored = Hybrid::new(HybridSettings::default());
        restored.restore_site(site, &saved).unwrap();
        let seen = |table: &FxHashMap<u64, u32>, times: u32| {
            let mut entries: Vec<(u64, u32)> = (table.iter())
                .map(|(&key, &count)| (key, count))
                .filter(|&(_, count)| count >= times)
                .collect();
            entries.sort_unstable();
            entries
        };
        let (before, after) = (&detector.sites[site], &restored.sites[site]);
        assert_eq!(after.pages, before.pages, "{site}");
        assert_eq!(seen(&after.texts, 2), seen(&before.texts, 2), "{site}");
        let times = if site == "a.example" { 2 } else { 3 };
        assert_eq!(
            seen(&after.directory_texts, 1),
            seen(&before.directory_texts, times),
            "{site}"
        );
        assert!(!after.directory_texts.is_empty(), "{site}");
    }
}

/// The built-in models are read once a process: every detector made with them, in either
/// pass mode, decides with the same compiled model, and a loaded model stays its own.
#[test]
fn detectors_share_the_built_in_models() {
    let two_pass = Hybrid::new(HybridSettings::default());
    let again = Hybrid::new(HybridSettings::default());
    let one_pass = Hybrid::new_one_pass(HybridSettings::default());
    let (Some(a), Some(b), Some(one)) = (&two_pass.model, &again.model, &one_pass.model) else {
        panic!("the built-in models read");
    };
    assert!(Arc::ptr_eq(a, b));
    assert!(!Arc::ptr_eq(a, one), "each pass mode has its own model");
    let lone = two_pass.lone_page.as_ref().expect("a lone-page model");
    assert!(Arc::ptr_eq(&lone.model().expect("the one-pass model"), one));
    let loaded = Hybrid::new(HybridSettings {
        model: ModelSource::Loaded {
            model: Arc::clone(&a.model),
            path: "m.json".into(),
        },
        ..HybridSettings::default()
    });
    let loaded = loaded.model.as_ref().expect("the loaded model");
    assert!(!Arc::ptr_eq(loaded, a));
    assert!(Arc::ptr_eq(&loaded.model, &a.model));
}
