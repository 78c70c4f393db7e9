use super::*;
use crate::detect::hybrid::Classifier;

fn page(group: &str, n: usize, pages_per_site: Option<PagesPerSite>) -> LabelledPage {
    LabelledPage {
        url: format!("http://{group}/{n}"),
        pages_per_site,
        group: group.to_string(),
        alone: false,
        held_out_only: false,
        texts: Vec::new(),
        in_comments: Vec::new(),
        rows: Vec::new(),
        labels: Vec::new(),
        weight: 1.0,
    }
}

#[test]
fn a_site_read_whole_only_at_the_largest_size_is_held_out_at_every_size() {
    use PagesPerSite::{All, Pages};
    let sampling = crate::run::Sampling::new(&[Pages(1), Pages(3), All], 1).unwrap();
    // big.example was sampled at 1 and 3 (it is larger); small.example, of one page, was
    // read only whole.
    let collected = Collected {
        pages: vec![
            page("big.example", 0, Some(Pages(1))),
            page("big.example", 0, Some(Pages(3))),
            page("big.example", 0, Some(All)),
            page("small.example", 0, Some(All)),
        ],
        labelled_given: 2,
    };
    let line = |url: &str, pages_per_site| HeldOut {
        url: url.to_string(),
        pages_per_site: Some(pages_per_site),
        text: format!("{url} at {pages_per_site}"),
        fold: "f".to_string(),
    };
    let held_out: Vec<HeldOut> = collected
        .pages
        .iter()
        .map(|page| line(&page.url, page.pages_per_site.unwrap()))
        .collect();
    let copies = whole_site_copies(&collected, &held_out, &sampling);
    let found: Vec<(String, Option<PagesPerSite>, String)> = copies
        .into_iter()
        .map(|copy| (copy.url, copy.pages_per_site, copy.text))
        .collect();
    let small = "http://small.example/0";
    assert_eq!(
        found,
        [
            (small.to_string(), Some(Pages(1)), format!("{small} at all")),
            (small.to_string(), Some(Pages(3)), format!("{small} at all")),
        ]
    );
}

#[test]
fn a_page_of_a_held_out_draw_is_copied_to_the_sizes_its_site_was_not_sampled_at() {
    use PagesPerSite::{All, Pages};
    let sampling = crate::run::Sampling::new(&[Pages(3), Pages(10), All], 1).unwrap();
    // mid.example, of 8 pages: its first sample of 3 (pages 0-2) trained on, a held-out
    // draw of 3 more (pages 3-5), read whole at all; no larger than 10, so never sampled
    // at 10, where every one of its pages is its line at all.
    let mut pages: Vec<LabelledPage> = (0..3)
        .map(|n| page("mid.example", n, Some(Pages(3))))
        .collect();
    pages.extend((3..6).map(|n| LabelledPage {
        held_out_only: true,
        ..page("mid.example", n, Some(Pages(3)))
    }));
    pages.extend((0..8).map(|n| page("mid.example", n, Some(All))));
    let collected = Collected {
        pages,
        labelled_given: 8,
    };
    let held_out: Vec<HeldOut> = collected
        .pages
        .iter()
        .map(|page| HeldOut {
            url: page.url.clone(),
            pages_per_site: page.pages_per_site,
            text: format!("{} at {}", page.url, page.pages_per_site.unwrap()),
            fold: "f".to_string(),
        })
        .collect();
    let mut copies: Vec<(String, Option<PagesPerSite>, String)> =
        whole_site_copies(&collected, &held_out, &sampling)
            .into_iter()
            .map(|copy| (copy.url, copy.pages_per_site, copy.text))
            .collect();
    copies.sort();
    let expected: Vec<(String, Option<PagesPerSite>, String)> = (0..8)
        .map(|n| {
            let url = format!("http://mid.example/{n}");
            let text = format!("{url} at all");
            (url, Some(Pages(10)), text)
        })
        .collect();
    assert_eq!(copies, expected);
}

#[test]
fn a_site_s_fold_counts_its_pages_once_however_many_samples_hold_them() {
    // big.example: 20 pages, held out alone. small.example: 15 pages sampled at 10 and
    // at all (25 pages recorded) — still 15 pages, a fold of small sites.
    let mut pages: Vec<LabelledPage> = (0..20).map(|n| page("big.example", n, None)).collect();
    for (sampled, count) in [(PagesPerSite::Pages(10), 10), (PagesPerSite::All, 15)] {
        pages.extend((0..count).map(|n| page("small.example", n, Some(sampled))));
    }
    let folds = folds(&Collected {
        pages,
        labelled_given: 35,
    });
    assert_eq!(folds["big.example"], "big.example");
    assert!(
        folds["small.example"].starts_with("small-sites-"),
        "{folds:?}"
    );
}

#[test]
fn a_site_s_lone_page_draws_weigh_as_one_more_site() {
    let labelled = |mut page: LabelledPage, alone: bool| {
        page.rows = vec![vec![0.0]; 4];
        page.labels = vec![Some(1.0); 4];
        page.alone = alone;
        page
    };
    let mut pages: Vec<LabelledPage> = (0..9)
        .map(|n| labelled(page("big.example", n, Some(PagesPerSite::All)), false))
        .collect();
    for n in 100..104 {
        pages.push(labelled(
            page("big.example", n, Some(PagesPerSite::Pages(1))),
            true,
        ));
    }
    let collected = Collected {
        pages,
        labelled_given: 13,
    };
    let dataset = collected.dataset(|_| true);
    assert_eq!(dataset.weights.len(), 52);
    // Nine pages of the site: 1/√(4 blocks × 9 pages); four lone draws: 1/√(4 × 4).
    for weight in &dataset.weights[..36] {
        assert!((weight - 1.0 / 6.0).abs() < 1e-6, "{weight}");
    }
    for weight in &dataset.weights[36..] {
        assert!((weight - 0.25).abs() < 1e-6, "{weight}");
    }
}

#[test]
fn a_page_s_own_weight_multiplies_its_rows_weights() {
    let labelled = |mut page: LabelledPage, weight: f32| {
        page.rows = vec![vec![0.0]; 4];
        page.labels = vec![Some(1.0); 4];
        page.weight = weight;
        page
    };
    let collected = Collected {
        pages: vec![
            labelled(page("one.example", 0, None), 1.0),
            labelled(page("two.example", 0, None), 0.25),
        ],
        labelled_given: 2,
    };
    let dataset = collected.dataset(|_| true);
    // Each page alone on its site: 1/√4, times its own factor.
    assert_eq!(dataset.weights, [[0.5; 4], [0.125; 4]].concat());
}

#[test]
fn pages_of_held_out_draws_are_decided_but_never_learned_from() {
    let labelled = |mut page: LabelledPage, held_out_only: bool, feature: f32| {
        page.rows = vec![vec![feature; crate::detect::hybrid::features::count()]; 2];
        page.labels = vec![Some(1.0), Some(0.0)];
        page.texts = vec!["a".into(), "b".into()];
        page.in_comments = vec![false; 2];
        page.held_out_only = held_out_only;
        page
    };
    let three = Some(PagesPerSite::Pages(3));
    let mut pages: Vec<LabelledPage> = (0..20)
        .map(|n| labelled(page("big.example", n, three), false, 0.0))
        .collect();
    pages.extend((0..5).map(|n| labelled(page("other.example", n, three), false, 1.0)));
    let without = Collected {
        pages: pages.clone(),
        labelled_given: 45,
    };
    // Twenty more pages of other.example, read for cross-validation alone: with them it
    // would have 25 pages and a fold of its own.
    pages.extend((5..25).map(|n| labelled(page("other.example", n, three), true, 1.0)));
    let with = Collected {
        pages,
        labelled_given: 45,
    };
    assert_eq!(folds(&with), folds(&without));
    assert!(folds(&with)["other.example"].starts_with("small-sites-"));
    let (a, b) = (with.dataset(|_| true), without.dataset(|_| true));
    assert_eq!((a.rows.len(), a.pages), (b.rows.len(), b.pages));
    assert_eq!(a.weights, b.weights);
    let options = TrainOptions {
        family: Family::Logistic,
        ..TrainOptions::default()
    };
    let held_out = cross_validate(&with, &options, |_, _, _| {}).unwrap();
    assert_eq!(
        held_out.len(),
        45,
        "every page decided once, held-out draws too"
    );
    assert!(
        held_out
            .iter()
            .any(|line| line.url == "http://other.example/24")
    );
}

#[test]
fn folds_fitted_on_several_threads_give_the_lines_of_one() {
    let width = crate::detect::hybrid::features::count();
    let mut pages = Vec::new();
    for (site, size) in [("a.example", 20), ("b.example", 24), ("c.example", 21)] {
        for n in 0..size {
            let mut page = page(site, n, None);
            // Block 0 is content where its first feature is high; block 1 never is.
            let value = (n * 7 % 10) as f32 + site.len() as f32;
            page.rows = vec![vec![value; width], vec![0.5; width]];
            page.labels = vec![Some(f32::from(n % 3 != 0)), Some(0.0)];
            page.texts = vec![format!("text {n}"), "menu".into()];
            page.in_comments = vec![false; 2];
            pages.push(page);
        }
    }
    let collected = Collected {
        pages,
        labelled_given: 65,
    };
    let lines = |threads: usize| {
        let mut options = TrainOptions::default();
        options.boost.trees = 8;
        options.build.threads = threads;
        let started = Mutex::new(Vec::new());
        let held_out = cross_validate(&collected, &options, |fold, _, folds| {
            started.lock().unwrap().push((fold.to_string(), folds));
        })
        .unwrap();
        let mut started = started.into_inner().unwrap();
        started.sort();
        let json: Vec<String> = held_out
            .iter()
            .map(|line| serde_json::to_string(line).unwrap())
            .collect();
        (json, started)
    };
    let (one, started) = lines(1);
    assert_eq!(one.len(), 65);
    assert_eq!(
        started,
        ["a.example", "b.example", "c.example"].map(|fold| (fold.to_string(), 3))
    );
    assert_eq!(lines(3), (one.clone(), started.clone()));
    assert_eq!(lines(2), (one, started));
}

#[test]
fn a_stop_asked_for_ends_fitting_and_cross_validation_with_interrupted() {
    let width = crate::detect::hybrid::features::count();
    let mut pages = Vec::new();
    for site in ["a.example", "b.example", "c.example"] {
        for n in 0..20 {
            let mut page = page(site, n, None);
            page.rows = vec![vec![n as f32; width], vec![0.5; width]];
            page.labels = vec![Some(f32::from(n % 2 == 0)), Some(0.0)];
            page.texts = vec![format!("text {n}"), "menu".into()];
            page.in_comments = vec![false; 2];
            pages.push(page);
        }
    }
    let collected = Collected {
        pages,
        labelled_given: 60,
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut options = TrainOptions::default();
    options.boost.trees = 8;
    options.build.threads = 1;
    options.build.stop = Some(Arc::clone(&stop));
    let dataset = collected.dataset(|_| true);
    // Told before each tree how many of how many are done.
    let told = Mutex::new(Vec::new());
    assert!(
        fit(&dataset, &options, &[], &|done, of| told
            .lock()
            .unwrap()
            .push((done, of)))
        .is_ok()
    );
    let trees = 8 * options.boost.ensembles.max(1);
    let each_tree: Vec<(usize, usize)> = (0..trees).map(|done| (done, trees)).collect();
    assert_eq!(told.into_inner().unwrap(), each_tree);
    // Asked for as the second fold starts: its fit gives up, and no third fold starts.
    let mut started = 0;
    let held_out = cross_validate(&collected, &options, |_, _, _| {
        started += 1;
        if started == 2 {
            stop.store(true, Ordering::Relaxed);
        }
    });
    assert!(
        matches!(held_out, Err(TrainError::Interrupted)),
        "{held_out:?}"
    );
    assert_eq!(started, 2);
    assert!(matches!(
        fit(&dataset, &options, &[], &|_, _| {}),
        Err(TrainError::Interrupted)
    ));
    options.family = Family::Logistic;
    assert!(matches!(
        fit(&dataset, &options, &[], &|_, _| {}),
        Err(TrainError::Interrupted)
    ));
}

#[test]
fn held_out_pages_say_their_pages_per_site_only_when_sampled() {
    let held_out = |pages_per_site| HeldOut {
        url: "u".into(),
        pages_per_site,
        text: "t".into(),
        fold: "f".into(),
    };
    let json = |page: HeldOut| serde_json::to_string(&page).unwrap();
    assert_eq!(json(held_out(None)), r#"{"url":"u","text":"t","fold":"f"}"#);
    assert_eq!(
        json(held_out(Some(PagesPerSite::Pages(3)))),
        r#"{"url":"u","pages_per_site":3,"text":"t","fold":"f"}"#
    );
}

#[test]
fn blocks_are_labelled_by_their_share_of_content_words() {
    let label = Label {
        url: "u".into(),
        site: "s".into(),
        title: String::new(),
        content_text: "Caching keeps results of slow calls for later".into(),
        template_text: "Home About".into(),
    };
    let labels = PreparedLabels::new(PageLabels::Content(&label));
    assert_eq!(labels.block_label("Caching keeps  results"), Some(1.0));
    assert_eq!(labels.block_label("Home About"), Some(0.0));
    assert_eq!(labels.block_label("Contact us about slow results"), None);
    assert_eq!(labels.block_label("Results of caching, later"), Some(1.0));
    assert_eq!(labels.block_label("Home, contact, imprint"), Some(0.0));
    assert_eq!(labels.block_label(""), None);
}

#[test]
fn blocks_are_labelled_by_the_snippets_they_hold() {
    let snippets = SnippetLabel {
        url: "u".into(),
        site: "s".into(),
        with: vec!["The council met on Tuesday.".into()],
        without: vec!["Subscribe to our newsletter".into()],
    };
    let labels = PreparedLabels::new(PageLabels::Snippets(&snippets));
    assert_eq!(
        labels.block_label("The council  met on Tuesday. It voted."),
        Some(1.0)
    );
    assert_eq!(
        labels.block_label("Subscribe to our newsletter today"),
        Some(0.0)
    );
    assert_eq!(labels.block_label("Weather: sunny"), None);
}

#[test]
fn a_feature_trained_without_is_never_split_on_and_named_in_the_provenance() {
    let names = crate::detect::hybrid::features::names();
    let telling = names
        .iter()
        .position(|name| name == "unlinked_words_before_share")
        .unwrap();
    // The label is the telling feature; another feature says it with noise.
    let pages: Vec<LabelledPage> = (0..40)
        .map(|n| {
            let mut page = page(&format!("site{}.example", n % 4), n, None);
            for block in 0..10 {
                let content = (n + block) % 2 == 0;
                let mut row = vec![0.0; names.len()];
                row[telling] = f32::from(u8::from(content));
                row[0] = f32::from(u8::from(content != (block == 3))) + block as f32 / 100.0;
                page.rows.push(row);
                page.labels.push(Some(f32::from(u8::from(content))));
                page.texts.push(String::new());
                page.in_comments.push(false);
            }
            page
        })
        .collect();
    let collected = Collected {
        labelled_given: pages.len(),
        pages,
    };
    let dataset = collected.dataset(|_| true);
    let split_on = |options: &TrainOptions| {
        let model = fit(&dataset, options, &[], &|_, _| {}).unwrap();
        let Classifier::Trees { trees, .. } = &model.classifier else {
            unreachable!()
        };
        let features: HashSet<u16> = (trees.iter())
            .flat_map(|tree| tree.nodes.iter().map(|node| node.feature))
            .filter(|&feature| feature != crate::detect::hybrid::Node::LEAF)
            .collect();
        (features, model.provenance.settings)
    };
    let (with, settings) = split_on(&TrainOptions::default());
    assert!(with.contains(&(telling as u16)));
    assert!(!settings.contains("without"), "{settings}");
    let (without, settings) = split_on(&TrainOptions {
        without_features: vec![names[telling].clone()],
        ..TrainOptions::default()
    });
    assert!(!without.contains(&(telling as u16)), "{without:?}");
    assert!(without.contains(&0), "the other feature carries it");
    assert!(
        settings.contains(", without unlinked_words_before_share"),
        "{settings}"
    );
}
