use super::*;

#[test]
fn postings_reduction_against_none_and_share_of_the_oracle_s() {
    // none has 1000 postings, the oracle 400: the oracle saves 600.
    // 700 postings: saves 300 → 300/1000 = 0.3 of none's, 300/600 = 0.5 of the oracle's.
    assert_eq!(postings_reduction(700, 1000, 400), (0.3, 0.5));
    assert_eq!(postings_reduction(1000, 1000, 400), (0.0, 0.0));
    assert_eq!(postings_reduction(400, 1000, 400), (0.6, 1.0));
    // More than none: saves −100 → −100/1000 = −0.1, −100/600 = −1/6.
    assert_eq!(postings_reduction(1100, 1000, 400), (-0.1, -1.0 / 6.0));
}

#[test]
fn a_later_draw_scores_only_the_pages_sampled_predictions_hold() {
    let three = PagesPerSite::Pages(3);
    let label = |url: &str| Label {
        url: url.into(),
        site: "s".into(),
        title: String::new(),
        content_text: String::new(),
        template_text: String::new(),
    };
    let sampled = Predictions {
        name: "cv".into(),
        sampled: [(three, HashMap::from([("u1".to_string(), "t".to_string())]))].into(),
        ..Predictions::default()
    };
    let unsampled = Predictions {
        name: "extract".into(),
        ..Predictions::default()
    };
    let drawn = Drawn {
        pages: three,
        draw: 1,
    };
    let (mut labels, mut snippets) = (vec![label("u1"), label("u2")], Vec::new());
    let predictions = [unsampled.clone(), sampled.clone()];
    let left_out = keep_predicted(&predictions, drawn, &mut labels, &mut snippets).unwrap();
    assert_eq!(left_out, 1);
    assert_eq!(labels, [label("u1")]);
    // Predictions that name no size hold every page.
    let mut labels = vec![label("u2")];
    assert_eq!(
        keep_predicted(&[unsampled], drawn, &mut labels, &mut snippets).unwrap(),
        0
    );
    // A draw the predictions hold no page of: refused.
    let refused = keep_predicted(&[sampled], drawn, &mut labels, &mut snippets).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("no labelled page of draw 2 of 3 pages per site"),
        "{refused}"
    );
}

#[test]
fn postings_reduction_without_a_baseline_or_an_oracle() {
    // No postings in none: nothing to reduce, 0 and 0 (not NaN).
    assert_eq!(postings_reduction(0, 0, 0), (0.0, 0.0));
    // No oracle row (no content labels) counts as 0 postings: the share is the
    // reduction itself, 300/1000.
    assert_eq!(postings_reduction(700, 1000, 0), (0.3, 0.3));
    // An oracle no smaller than none saves nothing to share in: 0.
    assert_eq!(postings_reduction(700, 1000, 1000), (0.3, 0.0));
    assert_eq!(postings_reduction(700, 1000, 1200), (0.3, 0.0));
}
