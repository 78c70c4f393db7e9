//! Run: records in, decided pages out — read → prepare (segment, on worker threads) →
//! detect — from [`BuildOptions`] and input paths to a caller's sink: [`extract`]'s, or the
//! index writer of [`crate::lifecycle`] (build, add), with a [`BuildSummary`].
//!
//! | module | in | out |
//! |---|---|---|
//! | [`options`] | what the caller asks | [`BuildOptions`], the detector chosen |
//! | [`plan`] | options and input size | a [`RunPlan`]: threads, memory shares, rounds or not |
//! | [`rounds`] | the input | records split by site into rounds ([`partition`] files) |
//! | [`prepare`] | a record | a segmented page (and pages found again by URL) |
//! | [`engine`] | records of one read | decided pages, one pass or learn-then-decide |
//! | [`site_models`] | stored site models, a writer for new ones | each site's model restored on its first page, saved after its last |
//! | [`single`] | one page's HTML and URL | the page decided alone, or by a cleaner that learns as it goes |
//! | [`sample`] | the input, K and a seed | each site's pages, and K of them to read alone |
//! | [`decided`] | — | the [`DecidedPage`] a read hands on |
//! | [`allocator`] | — | glibc malloc tuned for the build's threads |
//!
//! The plan is made once, before anything is read, and no stage changes the options.

pub(crate) mod allocator;
mod decided;
mod engine;
mod error;
mod options;
mod partition;
mod plan;
mod prepare;
mod rounds;
mod sample;
mod single;
mod site_models;

pub use decided::{DecidedPage, RenderedAhead, TextForm};
pub use error::BuildError;
pub use options::{
    BuildOptions, DEFAULT_DETECTOR, DEFAULT_ONE_PASS_DETECTOR, NeedsOnePassDetector, NoProgress,
    PrefixedProgress, Progress, choose_detector,
};
pub use plan::{Output, RunPlan};
pub use prepare::{page_of_record, segment_record};
pub use rounds::{SITE_BUCKETS, bucket_of_site};
pub use sample::{BadPagesPerSite, PagesPerSite, Sampling, SiteCensus, census, sample_rank};
pub use single::{PageCleaner, PageError, PageInput, decide_page};

pub(crate) use engine::{IsUnchanged, ReadJob};
pub(crate) use partition::PartitionWriter;
pub(crate) use rounds::{RecordSource, scratch_error};
pub(crate) use site_models::SiteModelStore;

use std::path::PathBuf;
use std::time::Instant;

use crate::read::InputSet;
use crate::report::BuildSummary;

use rounds::split_into_rounds;

/// Runs detection over `inputs` and hands every decided page to `emit`: in input order, or,
/// when the memory budget splits the sites into rounds, in input order within each round.
/// A two-pass read prepares what `rendered_ahead` says of each page on the workers.
pub fn extract(
    inputs: &[PathBuf],
    options: &BuildOptions,
    rendered_ahead: RenderedAhead,
    progress: &dyn Progress,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    let (input_set, started) = begin_run(inputs, options)?;
    let plan = RunPlan::new(options, &input_set, Output::Caller(rendered_ahead));
    let scratch = if plan.rounds {
        let temporary = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix("indexer-rounds-")
            .tempdir()
            .map_err(scratch_error(&temporary))?;
        Some(dir)
    } else {
        None
    };
    let sources = source_names(&input_set);
    let mut summary = decide_inputs(
        &input_set,
        options,
        &plan,
        scratch,
        progress,
        FromIndex::default(),
        &mut |mut decided| {
            decided.source = sources.get(decided.location.input as usize).cloned();
            emit(decided)
        },
    )?;
    finish_summary(&mut summary, inputs, &input_set, options, started);
    Ok(summary)
}

/// Each input's path as given ([`InputSet::path_of`]), shared by the pages read from it.
fn source_names(input_set: &InputSet) -> Vec<std::sync::Arc<str>> {
    (0..input_set.input_count() as u32)
        .map(|input| std::sync::Arc::from(input_set.path_of(input)))
        .collect()
}

/// What every run does first: refuse options it cannot honour, note the time, tune the
/// allocator for its threads and open its inputs.
pub(crate) fn begin_run(
    inputs: &[PathBuf],
    options: &BuildOptions,
) -> Result<(InputSet, std::time::SystemTime), BuildError> {
    options.check()?;
    let started = std::time::SystemTime::now();
    allocator::limit_malloc_arenas(options.threads);
    let input_set = InputSet::open_with(inputs, &options.input)?;
    Ok((input_set, started))
}

/// What every run adds to its summary last: the inputs as given, where its skips lie, and
/// the tool, command line and start time.
pub(crate) fn finish_summary(
    summary: &mut BuildSummary,
    inputs: &[PathBuf],
    input_set: &InputSet,
    options: &BuildOptions,
    started: std::time::SystemTime,
) {
    summary.inputs = display_paths(inputs);
    summary.locate_skips(input_set);
    summary.note_provenance(&options.command_line, started);
}

fn display_paths(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect()
}

/// What a run over an existing index starts from: the sites' stored models (and where it
/// leaves its own), and which pages the index holds already (an `add`). A build starts from
/// nothing but leaves its models; `extract` neither.
#[derive(Default)]
pub(crate) struct FromIndex<'a> {
    pub(crate) site_models: SiteModelStore<'a>,
    pub(crate) unchanged: Option<&'a IsUnchanged<'a>>,
}

/// Runs detection over `inputs` as `plan` says: one read of the input, or (with a scratch
/// directory) rounds of sites, each a read of its own partition with a fresh detector.
pub(crate) fn decide_inputs(
    inputs: &InputSet,
    options: &BuildOptions,
    plan: &RunPlan,
    scratch: Option<tempfile::TempDir>,
    progress: &dyn Progress,
    from_index: FromIndex<'_>,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    let FromIndex {
        mut site_models,
        unchanged,
    } = from_index;
    let result = match scratch {
        None => ReadJob {
            inputs,
            options,
            plan,
            source: RecordSource::Input(inputs),
            progress,
            emit,
            site_models,
            unchanged,
        }
        .run()
        .map(|mut summary| {
            summary.rounds = 1;
            summary
        }),
        Some(scratch) => (|| {
            let started = Instant::now();
            let (partitions, mut total) =
                split_into_rounds(inputs, options, plan, scratch, progress)?;
            for round in 0..partitions.len() {
                let part = ReadJob {
                    inputs,
                    options,
                    plan,
                    source: RecordSource::Partition(&partitions, round),
                    progress,
                    emit: &mut *emit,
                    site_models: site_models.reborrow(),
                    unchanged,
                }
                .run()?;
                partitions
                    .check(round)
                    .map_err(scratch_error(partitions.dir()))?;
                total.absorb(part);
                allocator::release_freed_memory();
            }
            total.rounds = partitions.len() as u32;
            total.seconds = started.elapsed().as_secs_f64();
            Ok(total)
        })(),
    };
    progress.finish();
    result.map(|mut summary| {
        summary.memory_budget = options.memory_budget as u64;
        summary.warnings = plan.budget_warnings(&summary, options.memory_budget);
        summary
    })
}

/// Small hand-made inputs for the tests of the run and of `serve`: WARC records of tiny
/// pages, written to a temporary folder.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::{Path, PathBuf};

    /// The menu every page of a test site starts with: its template.
    pub(crate) const MENU: &str = "Home Guide Reference Download Community";

    /// The footer every page of a test site ends with: template too.
    pub(crate) const FOOTER: &str = "Copyright the example project, all rights reserved";

    /// What the pages of a test site say, one subject each (no two share a word).
    const SUBJECTS: [&str; 8] = [
        "Ownership rules govern memory",
        "Borrowing lends references without moving values",
        "Lifetimes bound how long pointers live",
        "Traits describe behaviour types share",
        "Closures capture their environment",
        "Iterators produce items lazily",
        "Macros write code that writes code",
        "Modules organise namespaces",
    ];

    /// A WARC record of `record_type` for `url` holding `block`, with `headers` (each line
    /// ending in CRLF) after the target URI.
    fn warc_record(record_type: &str, url: &str, headers: &str, block: &[u8]) -> Vec<u8> {
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: {record_type}\r\nWARC-Target-URI: {url}\r\n{headers}\
             Content-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        record.extend_from_slice(block);
        record.extend_from_slice(b"\r\n\r\n");
        record
    }

    /// A WARC request record for `url`: a record that never holds a page.
    pub(crate) fn request(url: &str) -> Vec<u8> {
        warc_record("request", url, "", b"GET / HTTP/1.1\r\n\r\n")
    }

    /// A WARC response record: `status` and `content_type` over `body`.
    pub(crate) fn response(url: &str, status: &str, content_type: &str, body: &str) -> Vec<u8> {
        let http = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n\r\n{body}");
        warc_record(
            "response",
            url,
            "Content-Type: application/http; msgtype=response\r\n",
            http.as_bytes(),
        )
    }

    /// A WARC response record of an HTML page.
    pub(crate) fn html_response(url: &str, html: &str) -> Vec<u8> {
        response(url, "200 OK", "text/html; charset=utf-8", html)
    }

    /// A page of a test site: the menu, a heading, `content`, the footer.
    pub(crate) fn page_html(title: &str, content: &str) -> String {
        format!(
            "<html><head><title>{title}</title></head><body>\
             <nav><a href=\"/\">Home</a> <a href=\"/guide\">Guide</a> <a href=\"/ref\">Reference</a> \
             <a href=\"/get\">Download</a> <a href=\"/people\">Community</a></nav>\
             <h1>{title}</h1><p>{content}</p><footer>{FOOTER}</footer></body></html>"
        )
    }

    /// The URL of page `n` of `site`.
    pub(crate) fn page_url(site: &str, n: usize) -> String {
        format!("http://{site}/page{n}.html")
    }

    /// The own text (the paragraph) of page `n` of a test site.
    pub(crate) fn content(n: usize) -> String {
        let subject = SUBJECTS[n % SUBJECTS.len()];
        if n < SUBJECTS.len() {
            subject.to_string()
        } else {
            format!("{subject}, part {n}")
        }
    }

    /// The response records of pages `0..pages` of `site`, in order.
    pub(crate) fn site_pages(site: &str, pages: usize) -> Vec<Vec<u8>> {
        (0..pages)
            .map(|n| {
                let title = format!("Chapter {n} of {site}");
                html_response(&page_url(site, n), &page_html(&title, &content(n)))
            })
            .collect()
    }

    /// `records` written one after another to the file `name` in `dir`.
    pub(crate) fn write_warc(dir: &Path, name: &str, records: &[Vec<u8>]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, records.concat()).expect("write the test WARC");
        path
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::TermQuery;
    use tantivy::schema::{IndexRecordOption, Value};
    use tantivy::{TantivyDocument, Term};

    use super::test_support::{
        content, html_response, page_html, page_url, request, response, site_pages, write_warc,
    };
    use std::path::Path;

    use super::*;
    use crate::detect::{DecisionRecord, DetectorKind, Verdict};
    use crate::index::{OpenIndex, stats, stored_text};
    use crate::lifecycle::build_index;
    use crate::report::format_skips;

    fn options(detector: DetectorKind) -> BuildOptions {
        BuildOptions {
            detector,
            threads: 2,
            ..BuildOptions::default()
        }
    }

    /// Every page `extract` hands over, in order, and its summary; each page's kept text
    /// and its language prepared on the workers, as `indexer extract` asks.
    fn extracted(
        inputs: &[PathBuf],
        options: &BuildOptions,
    ) -> Result<(Vec<DecidedPage>, BuildSummary), BuildError> {
        let mut pages = Vec::new();
        let ahead = RenderedAhead::KeptTextAndLanguage(TextForm::Lines);
        let summary = extract(inputs, options, ahead, &NoProgress, &mut |page| {
            pages.push(page);
            Ok(())
        })?;
        Ok((pages, summary))
    }

    /// Each page's URL and keep flags, sorted by URL.
    fn decisions(pages: &[DecidedPage]) -> Vec<(String, Vec<bool>)> {
        let mut all: Vec<(String, Vec<bool>)> = pages
            .iter()
            .map(|page| (page.page.url.clone(), Verdict::keeps(&page.verdicts)))
            .collect();
        all.sort();
        all
    }

    fn urls(pages: &[DecidedPage]) -> Vec<&str> {
        pages.iter().map(|page| page.page.url.as_str()).collect()
    }

    /// Six pages of `site`, each a paragraph of 7000 words of its own (about 70 kB of text)
    /// between the site's menu and footer: pages that take room while they wait.
    fn wordy_pages(site: &str) -> Vec<Vec<u8>> {
        wordy_pages_of(site, 6)
    }

    /// [`wordy_pages`], `pages` of them.
    fn wordy_pages_of(site: &str, pages: usize) -> Vec<Vec<u8>> {
        (0..pages)
            .map(|n| {
                let text: Vec<String> = (0..7000).map(|i| format!("{site}{n}w{i}")).collect();
                let html = page_html(&format!("Page {n}"), &text.join(" "));
                html_response(&page_url(site, n), &html)
            })
            .collect()
    }

    /// The six pages of `site` from [`site_pages`], each padded with a comment of 70 kB: large
    /// records (a site is more state than half of 1 MiB is expected to hold), small pages.
    fn padded_pages(site: &str) -> Vec<Vec<u8>> {
        let padding = format!("<!--{}-->", "padding ".repeat(70_000 / 8));
        (0..6)
            .map(|n| {
                let html = page_html(&format!("Chapter {n} of {site}"), &content(n));
                let padded = html.replacen("<body>", &format!("<body>{padding}"), 1);
                html_response(&page_url(site, n), &padded)
            })
            .collect()
    }

    /// The six pages of each of three sites, the sites taking turns (about 1.3 MB), after a
    /// request record.
    fn three_sites(dir: &Path, pages_of: fn(&str) -> Vec<Vec<u8>>) -> Vec<PathBuf> {
        let sites: Vec<Vec<Vec<u8>>> = ["a.example", "b.example", "c.example"]
            .into_iter()
            .map(pages_of)
            .collect();
        let mut records = vec![request("http://a.example/")];
        for n in 0..6 {
            records.extend(sites.iter().map(|pages| pages[n].clone()));
        }
        vec![write_warc(dir, "sites.warc", &records)]
    }

    /// The stored document of `url` in `open`.
    fn document(open: &OpenIndex, url: &str) -> TantivyDocument {
        let searcher = open.index.reader().unwrap().searcher();
        let query = TermQuery::new(
            Term::from_field_text(open.fields.url, url),
            IndexRecordOption::Basic,
        );
        let top = searcher
            .search(&query, &TopDocs::with_limit(1).order_by_score())
            .unwrap();
        let (_, address) = top.first().unwrap_or_else(|| panic!("{url} is indexed"));
        searcher.doc(*address).unwrap()
    }

    #[test]
    fn build_index_stores_every_decided_page_and_the_summary() {
        let dir = tempfile::tempdir().unwrap();
        let mut records = site_pages("a.example", 6);
        records.extend(site_pages("b.example", 6));
        records.insert(3, request("http://a.example/"));
        let inputs = vec![write_warc(dir.path(), "input.warc", &records)];
        let options = options(DetectorKind::Bloom);
        let (decided, _) = extracted(&inputs, &options).unwrap();
        let index = dir.path().join("index");

        let summary = build_index(&inputs, &index, &options, &NoProgress).unwrap();
        assert_eq!(
            (summary.pages, summary.records, summary.rounds),
            (12, 13, 1)
        );
        assert_eq!(summary.inputs, [inputs[0].display().to_string()]);
        assert_eq!(summary.tool, crate::VERSION);
        assert!(summary.blocks_dropped > 0, "bloom drops the sites' menus");
        let open = OpenIndex::open(&index).unwrap();
        assert_eq!(stats(&open).unwrap().documents, 12);
        let stored: BuildSummary = open.summary().unwrap();
        assert_eq!((stored.pages, stored.detector.as_str()), (12, "bloom"));

        let record = open.fields.record.expect("the index records decisions");
        let source = std::path::absolute(&inputs[0])
            .unwrap()
            .display()
            .to_string();
        for page in &decided {
            let document = document(&open, &page.page.url);
            let number = |field| document.get_first(field).and_then(|v| v.as_u64());
            assert_eq!(stored_text(&document, open.fields.body), page.kept_text());
            assert_eq!(stored_text(&document, open.fields.title), page.page.title);
            assert_eq!(number(open.fields.kept_blocks), Some(page.kept_blocks()));
            let dropped = page.verdicts.len() as u64 - page.kept_blocks();
            assert_eq!(number(open.fields.dropped_blocks), Some(dropped));
            assert_eq!(stored_text(&document, record.source), source);
            assert_eq!(number(record.source_offset), Some(page.location.offset));
            let decisions = document
                .get_first(record.decisions)
                .and_then(|v| v.as_bytes());
            let expected = DecisionRecord::of(&page.verdicts).to_bytes();
            assert_eq!(decisions, Some(expected.as_slice()));
        }
    }

    #[test]
    fn a_build_without_pages_fails_and_leaves_the_live_index() {
        let dir = tempfile::tempdir().unwrap();
        let pages = write_warc(dir.path(), "pages.warc", &site_pages("a.example", 2));
        let image = response("http://a.example/logo.png", "200 OK", "image/png", "PNG");
        let not_a_page = request("http://a.example/");
        let no_pages = write_warc(dir.path(), "no-pages.warc", &[not_a_page, image]);
        let index = dir.path().join("index");
        let options = options(DetectorKind::None);
        build_index(&[pages], &index, &options, &NoProgress).unwrap();

        let error = build_index(&[no_pages], &index, &options, &NoProgress).unwrap_err();
        let BuildError::NoPages { summary } = &error else {
            panic!("no pages: {error}")
        };
        assert_eq!(summary.records, 2);
        let skips = format_skips(&summary.skipped);
        assert!(skips.contains("not_html"), "{skips}");
        let open = OpenIndex::open(&index).unwrap();
        assert_eq!(stats(&open).unwrap().documents, 2);
    }

    #[test]
    fn a_build_stopped_before_it_starts_publishes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let pages = write_warc(dir.path(), "pages.warc", &site_pages("a.example", 2));
        let index = dir.path().join("index");
        for detector in [DetectorKind::Bloom, DetectorKind::None] {
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
            let options = BuildOptions {
                stop: Some(stop),
                ..options(detector)
            };
            let error = build_index(std::slice::from_ref(&pages), &index, &options, &NoProgress);
            assert!(
                matches!(error, Err(BuildError::Interrupted)),
                "{detector:?}"
            );
            assert!(OpenIndex::open(&index).is_err(), "no live index");
        }
    }

    #[test]
    fn one_pass_with_a_two_pass_detector_is_refused_before_anything_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let missing = vec![dir.path().join("not-there.warc")];
        let options = BuildOptions {
            one_pass: true,
            ..options(DetectorKind::Bloom)
        };
        let refused = extracted(&missing, &options).unwrap_err();
        assert!(
            matches!(
                refused,
                BuildError::NeedsOnePass(NeedsOnePassDetector(DetectorKind::Bloom))
            ),
            "{refused}"
        );
        let index = dir.path().join("index");
        let refused = build_index(&missing, &index, &options, &NoProgress).unwrap_err();
        assert!(matches!(refused, BuildError::NeedsOnePass(_)), "{refused}");
        assert!(!index.exists());
    }

    #[test]
    fn a_batch_memory_below_the_pages_decides_every_page_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = three_sites(dir.path(), wordy_pages);
        let expected: Vec<String> = (0..6)
            .flat_map(|n| ["a", "b", "c"].map(|site| format!("http://{site}.example/page{n}.html")))
            .collect();
        // Asked for less than any page: the plan holds 1 MiB, a few pages' worth.
        let options = BuildOptions {
            batch_memory: 1,
            ..options(DetectorKind::Bloom)
        };
        let (pages, summary) = extracted(&inputs, &options).unwrap();
        assert_eq!(urls(&pages), expected);
        assert!(summary.batches >= 2, "{} batches", summary.batches);
        assert_eq!(summary.pages, 18);
        assert_eq!(summary.passes, 2);
        // Without the limit, the sites are decided as they complete; sites this small wait for
        // each other (a with b, whose last page makes 12 pages held), and c for the input's
        // end.
        let (_, whole) = extracted(&inputs, &self::options(DetectorKind::Bloom)).unwrap();
        assert_eq!(whole.batches, 2);
    }

    /// A crawl stored site by site is held about one site at a time: each site (of enough
    /// pages not to wait for others) is decided and let go of when its last page arrives.
    /// Taking turns, the sites are all held at once. Either way the decisions are the same.
    #[test]
    fn a_crawl_stored_site_by_site_holds_one_site_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let sites: Vec<Vec<Vec<u8>>> = ["a.example", "b.example", "c.example"]
            .into_iter()
            .map(|site| wordy_pages_of(site, 8))
            .collect();
        let one_by_one: Vec<Vec<u8>> = sites.iter().flatten().cloned().collect();
        let taking_turns: Vec<Vec<u8>> = (0..8)
            .flat_map(|n| sites.iter().map(move |pages| pages[n].clone()))
            .collect();
        let one_by_one = vec![write_warc(dir.path(), "one-by-one.warc", &one_by_one)];
        let taking_turns = vec![write_warc(dir.path(), "turns.warc", &taking_turns)];
        let options = options(DetectorKind::Hybrid);
        let (by_site, by_site_summary) = extracted(&one_by_one, &options).unwrap();
        let (turns, turns_summary) = extracted(&taking_turns, &options).unwrap();
        let state = |summary: &BuildSummary| summary.peak_state_bytes as f64;
        let waiting = |summary: &BuildSummary| summary.peak_batch_bytes as f64;
        assert!(
            state(&by_site_summary) < 0.5 * state(&turns_summary),
            "{} against {} bytes of state",
            state(&by_site_summary),
            state(&turns_summary)
        );
        assert!(
            waiting(&by_site_summary) < 0.5 * waiting(&turns_summary),
            "{} against {} bytes waiting",
            waiting(&by_site_summary),
            waiting(&turns_summary)
        );
        assert_eq!((by_site_summary.batches, turns_summary.batches), (3, 3));
        assert_eq!(decisions(&by_site), decisions(&turns));
        assert!(
            decisions(&by_site)
                .iter()
                .any(|(_, keeps)| keeps.contains(&false))
        );
    }

    #[test]
    fn rounds_of_sites_decide_every_page_as_one_read_does() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = three_sites(dir.path(), padded_pages);
        let (whole, whole_summary) = extracted(&inputs, &options(DetectorKind::Bloom)).unwrap();
        let tight = BuildOptions {
            memory_budget: 1 << 20,
            ..options(DetectorKind::Bloom)
        };
        let (rounds, rounds_summary) = extracted(&inputs, &tight).unwrap();
        assert_eq!(whole_summary.rounds, 1);
        assert_eq!(rounds_summary.rounds, 3, "a site per round");
        // In one read the small sites wait for each other (a with b, c for the input's end);
        // in rounds, each site is a round's one decision.
        assert_eq!((whole_summary.batches, rounds_summary.batches), (2, 3));

        // Round by round: each site's pages together, in input order.
        let sites: Vec<&str> = rounds.iter().map(|page| page.page.site.as_str()).collect();
        let mut order = sites.clone();
        order.dedup();
        assert_eq!(order.len(), 3, "{sites:?}");
        for site in order {
            let of_site: Vec<&str> = urls(&rounds)
                .into_iter()
                .filter(|url| url.contains(site))
                .collect();
            let in_input: Vec<&str> = urls(&whole)
                .into_iter()
                .filter(|url| url.contains(site))
                .collect();
            assert_eq!(of_site, in_input);
        }
        assert_eq!(decisions(&rounds), decisions(&whole));
        let figures = |s: &BuildSummary| {
            (
                s.records,
                s.pages,
                s.skipped.clone(),
                s.blocks_kept,
                s.blocks_dropped,
            )
        };
        assert_eq!(figures(&rounds_summary), figures(&whole_summary));
        assert_eq!(rounds_summary.skipped.get("non_page_record"), Some(&1));
        assert!(whole_summary.blocks_dropped >= 18, "the menus go");
    }

    #[test]
    fn one_pass_is_what_the_option_asks_and_never_in_rounds() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = three_sites(dir.path(), padded_pages);
        let run = |one_pass: bool, memory_budget: usize| {
            let options = BuildOptions {
                one_pass,
                memory_budget,
                ..options(DetectorKind::Hybrid)
            };
            let (pages, summary) = extracted(&inputs, &options).unwrap();
            assert_eq!(pages.len(), 18);
            (summary.passes, summary.rounds)
        };
        assert_eq!(run(false, 2 << 30), (2, 1));
        assert_eq!(run(true, 2 << 30), (1, 1));
        assert_eq!(run(true, 1 << 20), (1, 1));
        assert_eq!(run(false, 1 << 20).0, 2);
    }
}
