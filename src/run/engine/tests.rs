//! The engine's tests: passes, order, batches, summaries, stops.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::*;
use crate::analyze::language::detect_language;
use crate::detect::{DetectorKind, Rule};
use crate::run::test_support::{
    FOOTER, MENU, content, html_response, page_html, page_url, request, response, site_pages,
    write_warc,
};
use crate::run::{NoProgress, Output, RenderedAhead, TextForm};

/// Pages a block's text must have been learned from before [`SeenBefore`] drops it.
const MIN_PAGES: u32 = 2;

/// A call the test detector received.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    Learn(String),
    Decide(String),
    Forget(String),
}

/// Page `n` of `site` learned.
fn learned(site: &str, n: usize) -> Call {
    Call::Learn(page_url(site, n))
}

/// Page `n` of `site` decided.
fn decided(site: &str, n: usize) -> Call {
    Call::Decide(page_url(site, n))
}

/// `site` let go of.
fn forgot(site: &str) -> Call {
    Call::Forget(site.to_string())
}

/// Where [`SeenBefore`] notes its calls, shared with the test.
#[derive(Clone, Default, serde::Serialize)]
struct Calls {
    #[serde(skip)]
    log: Arc<Mutex<Vec<Call>>>,
}

impl Calls {
    fn note(&self, call: Call) {
        self.log.lock().unwrap().push(call);
    }

    fn taken(&self) -> Vec<Call> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

/// A detector that needs earlier pages: it drops a block whose exact text it has learned
/// from at least [`MIN_PAGES`] pages, and notes every learn and decide call.
struct SeenBefore {
    calls: Calls,
    pages_with_text: FxHashMap<String, u32>,
}

impl Detector for SeenBefore {
    const NAME: &'static str = "seen-before";
    const ABOUT: &'static str = "Drops text learned from enough pages (tests)";
    const PASSES: Passes = Passes::Two;
    const ONE_PASS_TOO: bool = true;
    const RULES: &'static [Rule] = &[crate::detect::incremental::FREQUENT_SEGMENT_SHARE];
    const STATE_PER_HTML_BYTE: f64 = 0.0;

    type Settings = Calls;
    /// The page's URL and its blocks' distinct texts.
    type Observation = (String, Vec<String>);

    fn new(calls: Calls) -> Self {
        SeenBefore {
            calls,
            pages_with_text: FxHashMap::default(),
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> Self::Observation {
        let mut texts: Vec<String> = page.blocks.iter().map(|b| b.text.clone()).collect();
        texts.sort();
        texts.dedup();
        (page.url.clone(), texts)
    }

    fn learn(&mut self, (url, texts): &Self::Observation) {
        self.calls.note(Call::Learn(url.clone()));
        for text in texts {
            *self.pages_with_text.entry(text.clone()).or_default() += 1;
        }
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        _observation: &Self::Observation,
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        self.calls.note(Call::Decide(page.url.clone()));
        let verdict = |text: &String| {
            let seen = self.pages_with_text.get(text).copied().unwrap_or(0);
            let keep = seen < MIN_PAGES;
            Verdict::scored(
                keep,
                crate::detect::incremental::FREQUENT_SEGMENT_SHARE,
                seen as f32,
                MIN_PAGES as f32,
            )
        };
        page.blocks
            .iter()
            .map(|block| verdict(&block.text))
            .collect()
    }

    fn state_bytes(&self) -> usize {
        self.pages_with_text.len()
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({})
    }
}

/// [`SeenBefore`] declaring that its verdicts depend on a page's own site only, and noting
/// each site it is told to let go of.
struct SiteBySite(SeenBefore);

impl Detector for SiteBySite {
    const NAME: &'static str = SeenBefore::NAME;
    const ABOUT: &'static str = SeenBefore::ABOUT;
    const PASSES: Passes = Passes::Two;
    const RULES: &'static [Rule] = SeenBefore::RULES;
    const STATE_PER_HTML_BYTE: f64 = 0.0;
    const DECIDES_SITE_BY_SITE: bool = true;

    type Settings = Calls;
    type Observation = (String, Vec<String>);

    fn new(calls: Calls) -> Self {
        SiteBySite(SeenBefore::new(calls))
    }

    fn observe(&self, page: &SegmentedPage, html: &str) -> Self::Observation {
        self.0.observe(page, html)
    }

    fn learn(&mut self, observation: &Self::Observation) {
        self.0.learn(observation);
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        observation: &Self::Observation,
        pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        self.0.decide(page, observation, pages)
    }

    fn forget_site(&mut self, site: &str) {
        self.0.calls.note(Call::Forget(site.to_string()));
    }

    fn state_bytes(&self) -> usize {
        self.0.state_bytes()
    }

    fn settings(&self) -> serde_json::Value {
        self.0.settings()
    }
}

/// Decided pages in the order they were emitted, and the summary.
struct Outcome {
    pages: Vec<DecidedPage>,
    summary: BuildSummary,
}

impl Outcome {
    fn urls(&self) -> Vec<&str> {
        self.pages
            .iter()
            .map(|page| page.page.url.as_str())
            .collect()
    }

    /// Whether the block of page `at` whose text is `text` was kept.
    fn kept(&self, at: usize, text: &str) -> bool {
        let decided = &self.pages[at];
        let block = decided
            .page
            .blocks
            .iter()
            .position(|block| block.text == text);
        let block = block.unwrap_or_else(|| panic!("no block {text:?} in {}", decided.page.url));
        decided.verdicts[block].keep
    }
}

fn options() -> BuildOptions {
    BuildOptions {
        threads: 2,
        ..BuildOptions::default()
    }
}

fn inputs_of(dir: &tempfile::TempDir, records: &[Vec<u8>]) -> InputSet {
    let path = write_warc(dir.path(), "input.warc", records);
    InputSet::open(&[path], None).expect("the test WARC opens")
}

/// One read of `inputs` by `detector`, in `passes`, deciding a batch when the pages waiting
/// reach `batch_memory` bytes.
fn run_detector<D: Detector>(
    detector: D,
    inputs: &InputSet,
    passes: Passes,
    batch_memory: usize,
) -> Outcome {
    let options = options();
    let plan = RunPlan {
        passes,
        batch_memory,
        ..RunPlan::new(&options, inputs, Output::Caller(RenderedAhead::Nothing))
    };
    run_read(inputs, &options, &plan, |read| {
        run_with(Shards::new(vec![detector]), read)
    })
}

/// One read of `inputs` with the detector `options` name, as their plan says.
fn run_options(inputs: &InputSet, options: &BuildOptions) -> Outcome {
    let plan = RunPlan::new(options, inputs, Output::Caller(RenderedAhead::Nothing));
    run_read(inputs, options, &plan, |read| read.run())
}

fn run_read(
    inputs: &InputSet,
    options: &BuildOptions,
    plan: &RunPlan,
    run: impl FnOnce(ReadJob<'_, '_>) -> Result<BuildSummary, BuildError>,
) -> Outcome {
    let mut pages = Vec::new();
    let mut emit = |page: DecidedPage| {
        pages.push(page);
        Ok::<(), BuildError>(())
    };
    let read = ReadJob {
        inputs,
        options,
        plan,
        source: RecordSource::Input(inputs),
        progress: &NoProgress,
        emit: &mut emit,
        site_models: SiteModelStore::default(),
        unchanged: None,
    };
    let summary = run(read).expect("the read succeeds");
    Outcome { pages, summary }
}

fn seen_before() -> (SeenBefore, Calls) {
    let calls = Calls::default();
    (SeenBefore::new(calls.clone()), calls)
}

#[test]
fn two_passes_learn_every_page_before_deciding_any() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 3));
    let (detector, calls) = seen_before();
    let outcome = run_detector(detector, &inputs, Passes::Two, 1 << 30);

    let calls = calls.taken();
    let learned = calls.iter().filter(|c| matches!(c, Call::Learn(_))).count();
    let first_decide = calls.iter().position(|c| matches!(c, Call::Decide(_)));
    assert_eq!(learned, 3);
    assert_eq!(first_decide, Some(3), "every learn comes first: {calls:?}");
    assert_eq!(calls.len(), 6, "each page decided once: {calls:?}");
    // The first page's menu was learned from all three pages when it was decided.
    for at in 0..3 {
        assert!(!outcome.kept(at, MENU), "page {at}'s menu");
        assert!(outcome.kept(at, &content(at)), "page {at}'s own text");
    }
    assert_eq!(outcome.summary.passes, 2);
    assert_eq!(outcome.summary.batches, 1);
}

#[test]
fn one_pass_decides_each_page_before_learning_it() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 3));
    let (detector, calls) = seen_before();
    let outcome = run_detector(detector, &inputs, Passes::One, 1 << 30);

    let expected: Vec<Call> = (0..3)
        .flat_map(|n| {
            let url = page_url("a.example", n);
            [Call::Decide(url.clone()), Call::Learn(url)]
        })
        .collect();
    assert_eq!(calls.taken(), expected);
    // Only the third page comes after two pages with the menu.
    let menu_kept: Vec<bool> = (0..3).map(|at| outcome.kept(at, MENU)).collect();
    assert_eq!(menu_kept, [true, true, false]);
    assert_eq!(outcome.summary.passes, 1);
    assert_eq!(outcome.summary.batches, 0);
}

#[test]
fn pages_come_out_in_input_order_in_either_pass() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = site_pages("a.example", 12);
    records.insert(
        5,
        response("http://a.example/gone", "404 Not Found", "text/html", ""),
    );
    let inputs = inputs_of(&dir, &records);
    let expected: Vec<String> = (0..12).map(|n| page_url("a.example", n)).collect();
    let runs = [
        (Passes::One, 1 << 30),
        (Passes::Two, 1 << 30),
        (Passes::Two, 1),
    ];
    for (passes, batch_memory) in runs {
        let (detector, _) = seen_before();
        let outcome = run_detector(detector, &inputs, passes, batch_memory);
        assert_eq!(outcome.urls(), expected, "{passes:?}, batch {batch_memory}");
        assert_eq!(outcome.summary.records, 13);
    }
}

#[test]
fn a_batch_smaller_than_a_page_still_decides_every_page_once() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 5));
    let (detector, calls) = seen_before();
    let outcome = run_detector(detector, &inputs, Passes::Two, 1);

    // Each page is a batch of its own: learned, then decided against the pages so far.
    let expected: Vec<Call> = (0..5)
        .flat_map(|n| {
            let url = page_url("a.example", n);
            [Call::Learn(url.clone()), Call::Decide(url)]
        })
        .collect();
    assert_eq!(calls.taken(), expected);
    let urls: Vec<String> = (0..5).map(|n| page_url("a.example", n)).collect();
    assert_eq!(outcome.urls(), urls);
    assert_eq!(outcome.summary.batches, 5);
    assert_eq!(outcome.summary.pages, 5);
    let menu_kept: Vec<bool> = (0..5).map(|at| outcome.kept(at, MENU)).collect();
    assert_eq!(menu_kept, [true, false, false, false, false]);
    assert!(outcome.summary.peak_batch_bytes > 0);
}

#[test]
fn the_summary_adds_up_pages_skips_and_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = site_pages("a.example", 3);
    let not_a_page = request("http://a.example/page0.html");
    let image = response(
        "http://a.example/logo.png",
        "200 OK",
        "image/png",
        "\u{89}PNG",
    );
    let missing = response("http://a.example/gone", "404 Not Found", "text/html", "");
    let cut_html = page_html("The last page", "Its text was read before the file ended");
    let mut cut = html_response("http://a.example/last.html", &cut_html);
    cut.truncate(cut.len() - 10); // inside the closing tags
    records.insert(1, not_a_page);
    records.insert(2, image);
    records.push(missing);
    records.push(cut);
    let inputs = inputs_of(&dir, &records);
    let (detector, _) = seen_before();
    let outcome = run_detector(detector, &inputs, Passes::Two, 1 << 30);
    let summary = &outcome.summary;

    assert_eq!(summary.records, 7);
    assert_eq!(summary.pages, 4);
    assert_eq!(outcome.pages.len(), 4);
    let skipped: Vec<(&str, u64)> = summary
        .skipped
        .iter()
        .map(|(reason, &n)| (reason.as_str(), n))
        .collect();
    assert_eq!(
        skipped,
        [("http_status", 1), ("non_page_record", 1), ("not_html", 1)]
    );
    assert_eq!(
        summary.records,
        summary.pages + summary.skipped.values().sum::<u64>()
    );
    assert_eq!(summary.truncated_pages, 1);
    // Every skip but the non-page record is logged, and so is the page kept in part.
    let mut logged: Vec<&str> = summary
        .skipped_records
        .iter()
        .map(|s| s.reason.as_str())
        .collect();
    logged.sort_unstable();
    assert_eq!(logged, ["http_status", "not_html", "truncated_record_kept"]);

    let verdicts = outcome
        .pages
        .iter()
        .flat_map(|page| page.page.blocks.iter().zip(&page.verdicts));
    let (kept, dropped): (Vec<_>, Vec<_>) = verdicts.partition(|(_, verdict)| verdict.keep);
    assert_eq!(summary.blocks_kept, kept.len() as u64);
    assert_eq!(summary.blocks_dropped, dropped.len() as u64);
    let text = |blocks: &[(&crate::segment::Block, &Verdict)]| {
        blocks
            .iter()
            .map(|(block, _)| block.text.len() as u64)
            .sum::<u64>()
    };
    assert_eq!(summary.text_bytes_kept, text(&kept));
    assert_eq!(summary.text_bytes_dropped, text(&dropped));
    // The menu and footer of the four pages go, the rest stays.
    assert_eq!(summary.blocks_dropped, 8);
    assert!(
        dropped
            .iter()
            .all(|(block, _)| [MENU, FOOTER].contains(&block.text.as_str()))
    );
    let html: u64 = outcome
        .pages
        .iter()
        .map(|page| page.page.html_bytes as u64)
        .sum();
    assert_eq!(summary.html_bytes, html);
    assert_eq!(summary.detector, "seen-before");
    assert_eq!(summary.threads, 2);
}

#[test]
fn a_page_cut_at_a_limit_is_counted_and_logged() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 2));
    let mut options = options();
    options.detector = DetectorKind::None;
    options.limits.max_page_bytes = 150;
    let outcome = run_options(&inputs, &options);
    assert_eq!(outcome.summary.limited.get("page_bytes"), Some(&2));
    let reasons: Vec<&str> = outcome
        .summary
        .skipped_records
        .iter()
        .map(|s| s.reason.as_str())
        .collect();
    assert_eq!(reasons, ["cut_by_page_bytes", "cut_by_page_bytes"]);
    assert!(outcome.pages.iter().all(|page| page.page.html_bytes <= 150));
}

#[test]
fn the_plan_picks_the_path_and_one_pass_keeps_the_first_template() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 6));
    let run = |detector: DetectorKind, one_pass: bool| {
        let options = BuildOptions {
            detector,
            one_pass,
            ..options()
        };
        run_options(&inputs, &options)
    };

    // `bloom` learns all six pages first: the template goes from the first page on.
    let bloom = run(DetectorKind::Bloom, false);
    assert_eq!(bloom.summary.passes, 2);
    assert!(
        (0..6).all(|at| !bloom.kept(at, MENU)),
        "bloom keeps no menu"
    );
    assert!((0..6).all(|at| bloom.kept(at, &content(at))));
    // `incremental` decides as pages arrive: the first page's template is kept.
    let incremental = run(DetectorKind::Incremental, false);
    assert_eq!(incremental.summary.passes, 1);
    assert!(incremental.kept(0, MENU));
    assert!(!incremental.kept(5, MENU));
    // `--one-pass` turns a detector that can run either way to one pass.
    assert_eq!(run(DetectorKind::Hybrid, false).summary.passes, 2);
    assert_eq!(run(DetectorKind::Hybrid, true).summary.passes, 1);
    assert_eq!(run(DetectorKind::None, false).summary.passes, 1);
}

#[test]
fn a_stop_ends_the_read_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 4));
    for passes in [Passes::One, Passes::Two] {
        let stop = Arc::new(AtomicBool::new(false));
        let options = BuildOptions {
            stop: Some(Arc::clone(&stop)),
            ..options()
        };
        let plan = RunPlan {
            passes,
            ..RunPlan::new(&options, &inputs, Output::Caller(RenderedAhead::Nothing))
        };
        let mut emitted = 0;
        // The caller stops the run at the first page it is handed.
        let mut emit = |_page: DecidedPage| {
            emitted += 1;
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok::<(), BuildError>(())
        };
        let (detector, _) = seen_before();
        let read = ReadJob {
            inputs: &inputs,
            options: &options,
            plan: &plan,
            source: RecordSource::Input(&inputs),
            progress: &NoProgress,
            emit: &mut emit,
            site_models: SiteModelStore::default(),
            unchanged: None,
        };
        let result = run_with(Shards::new(vec![detector]), read);
        assert!(matches!(result, Err(BuildError::Interrupted)), "{passes:?}");
        assert!(emitted >= 1, "{passes:?}");
    }
}

/// Sites interleaved in the input: a site is decided once its last record has arrived (a
/// skip of the site counts), and let go of — small sites together, once their pages reach
/// [`DECIDE_ON_WORKERS_FROM`], a larger one at once; pages still leave in input order.
#[test]
fn a_site_is_decided_when_its_last_record_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let a = site_pages("a.example", 3);
    let b = site_pages("b.example", 3);
    let c = site_pages("c.example", 2);
    let d = site_pages("d.example", 9);
    let mut records = vec![
        a[0].clone(),
        b[0].clone(),
        a[1].clone(),
        a[2].clone(),
        b[1].clone(),
        // A request record: skipped by the reader, yet a's (a record, not a page).
        request("http://a.example/page2.html"),
        b[2].clone(),
        c[0].clone(),
        c[1].clone(),
    ];
    records.extend(d);
    let inputs = inputs_of(&dir, &records);
    let calls = Calls::default();
    let outcome = run_detector(
        SiteBySite::new(calls.clone()),
        &inputs,
        Passes::Two,
        1 << 30,
    );
    let small = [
        ("a.example", 0),
        ("b.example", 0),
        ("a.example", 1),
        ("a.example", 2),
        ("b.example", 1),
        ("b.example", 2),
        ("c.example", 0),
        ("c.example", 1),
    ];
    // Decided on the workers, in any order.
    let sorted = |calls: &[Call]| {
        let mut calls = calls.to_vec();
        calls.sort_by_key(|call| format!("{call:?}"));
        calls
    };
    let taken = calls.taken();
    // a (3 pages) and b (3) wait until c's last page makes 8.
    let small_learned: Vec<Call> = small.iter().map(|&(site, n)| learned(site, n)).collect();
    assert_eq!(taken[..8], small_learned);
    let small_decided: Vec<Call> = small.iter().map(|&(site, n)| decided(site, n)).collect();
    assert_eq!(sorted(&taken[8..16]), sorted(&small_decided));
    assert_eq!(
        taken[16..19],
        ["a.example", "b.example", "c.example"].map(forgot)
    );
    // d, of nine pages, is decided as soon as it is complete.
    let learned_d: Vec<Call> = (0..9).map(|n| learned("d.example", n)).collect();
    assert_eq!(taken[19..28], learned_d);
    let decided_d: Vec<Call> = (0..9).map(|n| decided("d.example", n)).collect();
    assert_eq!(sorted(&taken[28..37]), sorted(&decided_d));
    assert_eq!(taken[37..], [forgot("d.example")]);
    let mut urls: Vec<String> = small.iter().map(|&(site, n)| page_url(site, n)).collect();
    urls.extend((0..9).map(|n| page_url("d.example", n)));
    assert_eq!(outcome.urls(), urls);
    assert_eq!(outcome.summary.batches, 2);
    assert_eq!(outcome.summary.records, 18);
    assert_eq!(outcome.summary.pages, 17);
}

/// A full batch memory decides every waiting page; the small complete sites held are let go
/// of after their pages are decided, never before.
#[test]
fn a_full_batch_decides_the_held_sites_before_letting_them_go() {
    let dir = tempfile::tempdir().unwrap();
    let a = site_pages("a.example", 2);
    let b = site_pages("b.example", 2);
    let records = [a[0].clone(), b[0].clone(), a[1].clone(), b[1].clone()];
    let inputs = inputs_of(&dir, &records);
    let calls = Calls::default();
    run_detector(SiteBySite::new(calls.clone()), &inputs, Passes::Two, 1);
    let expected = vec![
        learned("a.example", 0),
        decided("a.example", 0),
        learned("b.example", 0),
        decided("b.example", 0),
        learned("a.example", 1),
        decided("a.example", 1),
        forgot("a.example"),
        learned("b.example", 1),
        decided("b.example", 1),
        forgot("b.example"),
    ];
    assert_eq!(calls.taken(), expected);
}

/// With one worker, small sites do not wait for each other: each is decided as soon as its
/// last record arrives.
#[test]
fn with_one_worker_each_small_site_is_decided_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = site_pages("a.example", 2);
    let b = site_pages("b.example", 1);
    let inputs = inputs_of(&dir, &[a[0].clone(), b[0].clone(), a[1].clone()]);
    let calls = Calls::default();
    let options = BuildOptions {
        threads: 1,
        ..options()
    };
    let plan = RunPlan {
        passes: Passes::Two,
        ..RunPlan::new(&options, &inputs, Output::Caller(RenderedAhead::Nothing))
    };
    let detector = SiteBySite::new(calls.clone());
    let outcome = run_read(&inputs, &options, &plan, |read| {
        run_with(Shards::new(vec![detector]), read)
    });
    let expected = vec![
        learned("a.example", 0),
        learned("b.example", 0),
        decided("b.example", 0),
        forgot("b.example"),
        learned("a.example", 1),
        decided("a.example", 0),
        decided("a.example", 1),
        forgot("a.example"),
    ];
    assert_eq!(calls.taken(), expected);
    assert_eq!(outcome.summary.batches, 2);
}

/// An index writes the kept text as lines only, so its waiting pages let go of their links'
/// targets; pages handed to any other caller keep them for Markdown.
#[test]
fn only_an_index_builds_waiting_pages_let_go_of_their_links_targets() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_of(&dir, &site_pages("a.example", 12));
    let options = BuildOptions {
        detector: DetectorKind::Bloom,
        ..options()
    };
    for (output, lines_only) in [
        (Output::Index, true),
        (Output::Caller(RenderedAhead::Nothing), false),
    ] {
        let plan = RunPlan::new(&options, &inputs, output);
        assert_eq!(plan.writes_lines_only, lines_only);
        let Outcome { pages, .. } = run_read(&inputs, &options, &plan, |read| read.run());
        // Every page but the site's last waited for its decision.
        for page in &pages[..pages.len() - 1] {
            let markdown_options = crate::segment::MarkdownOptions {
                links: true,
                images: false,
                base_url: page.page.url.clone(),
            };
            let markdown =
                page.page
                    .layout
                    .markdown(&page.page.blocks, |_| true, &markdown_options);
            let lines = page.page.layout.plain_text(&page.page.blocks, |_| true);
            assert!(lines.contains("Home Guide Reference"), "{lines}");
            assert_eq!(
                markdown.contains("[Guide](http://a.example/guide)"),
                !lines_only,
                "{markdown}"
            );
        }
    }
}

#[test]
fn what_the_plan_renders_ahead_is_rendered_where_pages_are_decided() {
    let dir = tempfile::tempdir().unwrap();
    // Enough pages of one site that they are decided on the workers.
    let inputs = inputs_of(&dir, &site_pages("a.example", 40));
    let options = BuildOptions {
        detector: DetectorKind::Bloom,
        ..options()
    };
    let markdown = TextForm::Markdown {
        links: true,
        images: false,
    };
    for (output, form, language) in [
        (Output::Index, Some(TextForm::Lines), false),
        (Output::Caller(RenderedAhead::Nothing), None, false),
        (
            Output::Caller(RenderedAhead::KeptText(TextForm::Lines)),
            Some(TextForm::Lines),
            false,
        ),
        (
            Output::Caller(RenderedAhead::KeptTextAndLanguage(TextForm::Lines)),
            Some(TextForm::Lines),
            true,
        ),
        (
            Output::Caller(RenderedAhead::KeptText(markdown)),
            Some(markdown),
            false,
        ),
        (
            Output::Caller(RenderedAhead::KeptTextAndLanguage(markdown)),
            Some(markdown),
            true,
        ),
    ] {
        let plan = RunPlan::new(&options, &inputs, output);
        assert_eq!(plan.rendered_ahead.text_form(), form, "{output:?}");
        assert_eq!(
            plan.rendered_ahead.detects_language(),
            language,
            "{output:?}"
        );
        let Outcome { pages, .. } = run_read(&inputs, &options, &plan, |read| read.run());
        assert_eq!(pages.len(), 40);
        let (mut with_text, mut with_heading) = (0, 0);
        for page in &pages {
            let url = &page.page.url;
            let rendered = page.rendered.as_ref();
            assert_eq!(rendered.map(|rendered| rendered.form), form, "{url}");
            assert_eq!(
                rendered.is_some_and(|rendered| rendered.language.is_some()),
                language,
                "{url}"
            );
            // What was rendered ahead is what is rendered now, in either form.
            let mut fresh = page.clone();
            fresh.rendered = None;
            for asked in [TextForm::Lines, markdown] {
                let now = fresh.kept_text_as(asked);
                assert_eq!(page.kept_text_as(asked), now, "{url} {asked:?}");
                let ahead = page.rendered_language(asked);
                assert_eq!(ahead.is_some(), language && form == Some(asked), "{url}");
                // Detected ahead, the kept text's language is the one detected now.
                if let Some(ahead) = ahead {
                    assert_eq!(ahead, detect_language(&now), "{url}");
                }
            }
            let lines = page.kept_text();
            assert_eq!(
                lines,
                Verdict::kept_text(&page.page, &page.verdicts),
                "{url}"
            );
            with_text += usize::from(!lines.is_empty());
            with_heading += usize::from(page.kept_text_as(markdown).contains("# Chapter"));
        }
        assert!(with_text > 0, "no page kept any text");
        assert!(with_heading > 0, "no kept heading rendered as Markdown");
        if language {
            assert!(
                pages.iter().any(|page| matches!(
                    page.rendered
                        .as_ref()
                        .and_then(|rendered| rendered.language),
                    Some(Some(_))
                )),
                "no language detected ahead"
            );
        }
    }
}

/// The records of four sites of 3, 5, 7 and 9 pages: one site after another, and
/// interleaved a page of each at a time.
fn four_sites_one_after_another_and_interleaved() -> [Vec<Vec<u8>>; 2] {
    let sites: Vec<Vec<Vec<u8>>> = ["a.example", "b.example", "c.example", "d.example"]
        .iter()
        .enumerate()
        .map(|(at, site)| site_pages(site, 3 + 2 * at))
        .collect();
    let interleaved: Vec<Vec<u8>> = (0..9)
        .flat_map(|n| sites.iter().filter_map(move |pages| pages.get(n).cloned()))
        .collect();
    [sites.concat(), interleaved]
}

/// In one pass, sites decided and learned on several threads, each by a detector of its own,
/// are decided as one detector decides them, and their pages leave in input order with what
/// the plan renders ahead.
#[test]
fn sites_decided_in_one_pass_on_several_threads_are_decided_as_by_one() {
    let dir = tempfile::tempdir().unwrap();
    for records in four_sites_one_after_another_and_interleaved() {
        let inputs = inputs_of(&dir, &records);
        let outcome = |learning_threads| {
            let options = BuildOptions {
                detector: DetectorKind::Hybrid,
                one_pass: true,
                learning_threads,
                ..options()
            };
            let ahead = RenderedAhead::KeptTextAndLanguage(TextForm::Lines);
            let plan = RunPlan::new(&options, &inputs, Output::Caller(ahead));
            assert_eq!(plan.passes, Passes::One);
            assert_eq!(plan.learning_threads, learning_threads);
            run_read(&inputs, &options, &plan, |read| read.run())
        };
        let (one, three) = (outcome(1), outcome(3));
        assert_eq!(one.pages.len(), records.len());
        assert_eq!(one.urls(), three.urls());
        let decided = |outcome: &Outcome| -> Vec<(Vec<Verdict>, Option<RenderedText>)> {
            outcome
                .pages
                .iter()
                .map(|page| (page.verdicts.clone(), page.rendered.clone()))
                .collect()
        };
        assert_eq!(decided(&one), decided(&three));
        assert!(one.pages.iter().all(|page| page.rendered.is_some()));
        // A page's verdicts follow what its site's earlier pages taught: some block of a
        // later page is dropped.
        assert!(
            decided(&one)
                .iter()
                .flat_map(|(verdicts, _)| verdicts)
                .any(|verdict| !verdict.keep)
        );
        assert_eq!(one.summary.counters, three.summary.counters);
        assert_eq!(one.summary.peak_state_bytes, three.summary.peak_state_bytes);
        assert_eq!(one.summary.pages, three.summary.pages);
    }
}

/// Sites learned on several threads, each by a detector of its own, are decided as one
/// detector decides them: the same verdicts, counters and saved figures, whether their sites'
/// pages arrive one site after another or interleaved, and whether the batch memory fills.
#[test]
fn sites_learned_on_several_threads_are_decided_as_by_one() {
    let dir = tempfile::tempdir().unwrap();
    for records in four_sites_one_after_another_and_interleaved() {
        let inputs = inputs_of(&dir, &records);
        for detector in [DetectorKind::Hybrid, DetectorKind::Bloom] {
            for batch_memory in [1 << 30, 4096] {
                let outcome = |learning_threads| {
                    let options = BuildOptions {
                        detector,
                        learning_threads,
                        ..options()
                    };
                    let plan = RunPlan {
                        batch_memory,
                        ..RunPlan::new(&options, &inputs, Output::Caller(RenderedAhead::Nothing))
                    };
                    assert_eq!(plan.learning_threads, learning_threads);
                    run_read(&inputs, &options, &plan, |read| read.run())
                };
                let (one, three) = (outcome(1), outcome(3));
                let verdicts = |outcome: &Outcome| -> Vec<Vec<Verdict>> {
                    outcome
                        .pages
                        .iter()
                        .map(|page| page.verdicts.clone())
                        .collect()
                };
                assert_eq!(one.urls(), three.urls());
                assert_eq!(verdicts(&one), verdicts(&three), "{detector:?}");
                assert!(verdicts(&one).iter().flatten().any(|verdict| !verdict.keep));
                assert_eq!(one.summary.counters, three.summary.counters);
                assert_eq!(one.summary.peak_state_bytes, three.summary.peak_state_bytes);
                assert_eq!(one.summary.batches, three.summary.batches);
                if batch_memory == 4096 {
                    assert!(one.summary.batches > 2, "{}", one.summary.batches);
                }
            }
        }
    }
}
