//! Engine: records of one [`RecordSource`] in, decided pages out (to the caller's `emit`),
//! through the [`indexer_pipeline`] stage graph — the one place that acts on whether a
//! detector makes one pass over the input or two.
//!
//! A two-pass detector ([`Passes::Two`]) must see a site's pages before it can judge any of
//! them. Following Chen, Ye & Li's own design (an in-memory batch whose statistics carry over
//! to later batches), each page is read, segmented and observed once on the workers, learned
//! in input order, and then waits — with its observation, its word lists dropped — until the
//! batch of waiting pages reaches [`RunPlan::batch_memory`] or the input ends. The batch is
//! then decided on the workers against everything learned so far and emitted in input order.
//! When the whole input fits in one batch this is exactly learning everything, then deciding
//! everything, at the cost of one parse per page instead of two (measured: re-reading and
//! re-segmenting the docs corpus made `bloom` cost 3.2× `none`; see the README).
//!
//! A one-pass detector ([`Passes::One`]) decides each page in input order and then learns
//! from it.

use std::sync::RwLock;
use std::time::Instant;

use indexer_pipeline::Pipeline;

use crate::detect::{Detector, DetectorVisitor, NoPages, PageSource, Passes, Rule, Verdict};
use crate::read::InputSet;
use crate::run::prepare::{InputPages, Observed, Origin, Prepared, observe, read_lock};
use crate::run::rounds::RecordSource;
use crate::run::site_models::{SiteModelsOfRead, SiteModelsOfRun, fingerprint};
use crate::run::{
    BuildError, BuildOptions, BuildSummary, DecidedPage, Progress, RunPlan, SkippedRecord,
};
use crate::segment::SegmentedPage;

/// Everything one read of a run needs besides its detector.
pub(super) struct Read<'a, 'e> {
    pub(super) inputs: &'a InputSet,
    pub(super) options: &'a BuildOptions,
    pub(super) plan: &'a RunPlan,
    pub(super) source: RecordSource<'a>,
    pub(super) progress: &'a dyn Progress,
    pub(super) emit: &'e mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    pub(super) site_models: SiteModelsOfRun<'e>,
    /// For an `add`: whether the index holds a page of this URL and digest already. Such a
    /// page is counted as unchanged and goes no further — the detector does not learn it
    /// again, nothing is emitted.
    pub(super) unchanged: Option<&'a IsUnchanged<'a>>,
}

/// Whether the index an `add` writes holds the page of this URL and HTML digest already.
pub(super) type IsUnchanged<'a> = dyn Fn(&str, u64) -> bool + 'a;

impl Read<'_, '_> {
    /// Runs this read with a fresh detector of the options' kind and settings.
    pub(super) fn run(self) -> Result<BuildSummary, BuildError> {
        let (kind, settings) = (self.options.detector, &self.options.settings);
        kind.visit(settings, self.plan.passes, self)
    }
}

impl DetectorVisitor for Read<'_, '_> {
    type Output = Result<BuildSummary, BuildError>;

    fn visit<D: Detector>(self, detector: D) -> Self::Output {
        run_with(detector, self)
    }
}

/// Pages learned but not yet decided, with their observations, in input order (skips keep
/// their place).
struct Batch<O> {
    items: Vec<Prepared<Observed<O>>>,
    bytes: usize,
}

impl<O> Batch<O> {
    fn new() -> Self {
        Batch {
            items: Vec::new(),
            bytes: 0,
        }
    }
}

/// Decides every page of `batch` against what `detector` has learned so far, on the
/// pipeline's workers, and emits them in input order.
fn decide_batch<D: Detector>(
    detector: &D,
    batch: &mut Batch<D::Observation>,
    pipeline: &Pipeline,
    pages: &dyn PageSource,
    tally: &mut BuildSummary,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let started = Instant::now();
    tally.batches += 1;
    tally.peak_state_bytes = tally.peak_state_bytes.max(detector.state_bytes() as u64);
    tally.peak_batch_bytes = tally.peak_batch_bytes.max(batch.bytes as u64);
    batch.bytes = 0;
    pipeline.run(
        batch.items.drain(..),
        |item| {
            Ok(match item {
                Prepared::Page(page, observed) => {
                    let verdicts = detector.decide(&page, &observed.observation, pages);
                    Prepared::Page(page, (verdicts, observed.origin))
                }
                Prepared::Text(page, origin) => Prepared::Text(page, origin),
                Prepared::Skipped(skip) => Prepared::Skipped(skip),
            })
        },
        |decided| tally_and_emit(tally, decided, emit),
    )?;
    tally.batch_seconds += started.elapsed().as_secs_f64();
    Ok(())
}

/// One read of `source` with `detector`, handing every decided page to `emit`.
fn run_with<D: Detector>(detector: D, read: Read<'_, '_>) -> Result<BuildSummary, BuildError> {
    let Read {
        inputs,
        options,
        plan,
        source,
        progress,
        emit,
        site_models,
        unchanged,
    } = read;
    let started = Instant::now();
    let is_unchanged = |page: &SegmentedPage, origin: &Origin| {
        unchanged.is_some_and(|unchanged| unchanged(&page.url, origin.digest))
    };
    let pipeline = Pipeline::new(plan.threads);
    let limits = &options.limits;
    let stopped = || options.stopped();
    let reads_input = matches!(source, RecordSource::Input(_));
    let total = inputs.total_bytes();
    let records = || {
        source
            .records()
            .take_while(|_| !stopped())
            .inspect(move |item| {
                if let (true, Ok(record)) = (reads_input, item) {
                    let position = inputs.position(record.source_input, record.source_offset);
                    progress.input_read(position, total);
                }
            })
    };
    let label = source.label();
    let segment_options = detector.segment_options();
    let mut tally = BuildSummary {
        segment_limits: Some(*limits),
        ..first_tally(&detector, pipeline.workers(), total)
    };
    tally.passes = plan.passes.count();
    let fingerprint = fingerprint(D::NAME, tally.passes, &tally.settings);
    let mut site_models = SiteModelsOfRead::new(site_models, &fingerprint);

    match plan.passes {
        Passes::Two => {
            let loads_pages = detector.loads_pages();
            let detector = RwLock::new(detector);
            let mut batch = Batch::new();
            let mut pages = InputPages::new(inputs, *limits, segment_options);
            progress.start_pass(&format!("{label}learning and deciding"));
            pipeline.run(
                records(),
                |item| Ok(observe(item, limits, segment_options, &detector)),
                |prepared| {
                    match prepared {
                        Prepared::Page(page, observed) if is_unchanged(&page, &observed.origin) => {
                            pass_over_unchanged(&mut tally, progress, &page);
                        }
                        Prepared::Page(page, observed) => {
                            progress.record_done(page.html_bytes);
                            if loads_pages {
                                pages.remember(&page.url, observed.origin.location);
                            }
                            let mut detector = write_lock(&detector);
                            site_models.arrive(&mut *detector, &page.site);
                            learn_and_wait(&mut *detector, &mut batch, page, observed);
                        }
                        Prepared::Text(page, origin) => {
                            progress.record_done(page.html_bytes);
                            batch.bytes += page.heap_bytes();
                            batch.items.push(Prepared::Text(page, origin));
                        }
                        Prepared::Skipped(skip) => {
                            progress.record_done(0);
                            batch.items.push(Prepared::Skipped(skip));
                        }
                    }
                    if batch.bytes >= plan.batch_memory {
                        decide_batch(
                            &*read_lock(&detector),
                            &mut batch,
                            &pipeline,
                            &pages,
                            &mut tally,
                            emit,
                        )?;
                    }
                    Ok(())
                },
            )?;
            if stopped() {
                return Err(BuildError::Interrupted);
            }
            let detector = read_lock(&detector);
            if !batch.items.is_empty() {
                decide_batch(&*detector, &mut batch, &pipeline, &pages, &mut tally, emit)?;
            }
            tally.set_counters(detector.counters());
            tally.site_models = site_models.finish(&*detector);
        }
        Passes::One => {
            let detector = RwLock::new(detector);
            progress.start_pass(&format!("{label}deciding"));
            let mut pages = 0u64;
            pipeline.run(
                records(),
                |item| Ok(observe(item, limits, segment_options, &detector)),
                |prepared| {
                    let decided = match prepared {
                        Prepared::Page(page, observed) if is_unchanged(&page, &observed.origin) => {
                            pass_over_unchanged(&mut tally, progress, &page);
                            return Ok(());
                        }
                        Prepared::Page(page, observed) => {
                            progress.record_done(page.html_bytes);
                            let mut detector = write_lock(&detector);
                            site_models.arrive(&mut *detector, &page.site);
                            let verdicts = detector.decide(&page, &observed.observation, &NoPages);
                            detector.learn(&observed.observation);
                            pages += 1;
                            if pages.is_multiple_of(256) {
                                tally.peak_state_bytes =
                                    tally.peak_state_bytes.max(detector.state_bytes() as u64);
                            }
                            Prepared::Page(page, (verdicts, observed.origin))
                        }
                        Prepared::Text(page, origin) => {
                            progress.record_done(page.html_bytes);
                            Prepared::Text(page, origin)
                        }
                        Prepared::Skipped(skip) => {
                            progress.record_done(0);
                            Prepared::Skipped(skip)
                        }
                    };
                    tally_and_emit(&mut tally, decided, emit)
                },
            )?;
            let detector = read_lock(&detector);
            tally.peak_state_bytes = tally.peak_state_bytes.max(detector.state_bytes() as u64);
            tally.set_counters(detector.counters());
            tally.site_models = site_models.finish(&*detector);
        }
    }
    if stopped() {
        return Err(BuildError::Interrupted);
    }
    tally.seconds = started.elapsed().as_secs_f64();
    Ok(tally)
}

/// The summary of a read by `detector` before any record is read.
fn first_tally<D: Detector>(detector: &D, threads: usize, input_bytes: u64) -> BuildSummary {
    BuildSummary {
        detector: D::NAME.to_string(),
        settings: detector.settings(),
        threads,
        input_bytes,
        segment_options: Some(detector.segment_options()),
        ..BuildSummary::default()
    }
}

/// Counts a page an `add` passes over: the index holds it as it is.
fn pass_over_unchanged(tally: &mut BuildSummary, progress: &dyn Progress, page: &SegmentedPage) {
    progress.record_done(page.html_bytes);
    tally.records += 1;
    tally.unchanged += 1;
}

/// Learns a page of a two-pass read, which then waits in `batch` for its decision without its
/// word lists.
fn learn_and_wait<D: Detector>(
    detector: &mut D,
    batch: &mut Batch<D::Observation>,
    mut page: SegmentedPage,
    observed: Observed<D::Observation>,
) {
    detector.learn(&observed.observation);
    page.forget_words();
    batch.bytes += page.heap_bytes() + detector.observation_bytes(&observed.observation);
    batch.items.push(Prepared::Page(page, observed));
}

fn tally_and_emit(
    tally: &mut BuildSummary,
    prepared: Prepared<(Vec<Verdict>, Origin)>,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    tally.records += 1;
    match prepared {
        Prepared::Skipped(skip) => {
            tally.count_skip(&skip);
            Ok(())
        }
        Prepared::Text(page, origin) => {
            tally.plain_text_pages += 1;
            let verdicts = vec![Verdict::kept(Rule::PLAIN_TEXT); page.blocks.len()];
            tally_and_emit_page(tally, page, verdicts, origin, emit)
        }
        Prepared::Page(page, (verdicts, origin)) => {
            tally_and_emit_page(tally, page, verdicts, origin, emit)
        }
    }
}

/// Counts a decided page into `tally` and hands it to `emit`.
fn tally_and_emit_page(
    tally: &mut BuildSummary,
    page: SegmentedPage,
    verdicts: Vec<Verdict>,
    origin: Origin,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    tally.pages += 1;
    tally.html_bytes += page.html_bytes as u64;
    if let Some(limit) = page.limited {
        *tally.limited.entry(limit.as_str().to_string()).or_default() += 1;
        tally.skipped_records.push(SkippedRecord {
            input: String::new(),
            input_number: Some(origin.location.input),
            offset: Some(origin.location.offset),
            url: Some(page.url.clone()),
            reason: format!("cut_by_{}", limit.as_str()),
            detail: "page cut short at a per-page limit; the rest was indexed".into(),
        });
    }
    if origin.truncated {
        tally.truncated_pages += 1;
        tally.skipped_records.push(SkippedRecord {
            input: String::new(),
            input_number: Some(origin.location.input),
            offset: Some(origin.location.offset),
            url: Some(page.url.clone()),
            reason: "truncated_record_kept".into(),
            detail: "the record is cut short (the file ends inside it, or its Content-Length stops before its end); the part read was indexed".into(),
        });
    }
    for (block, verdict) in page.blocks.iter().zip(&verdicts) {
        if verdict.keep {
            tally.blocks_kept += 1;
            tally.text_bytes_kept += block.text.len() as u64;
        } else {
            tally.blocks_dropped += 1;
            tally.text_bytes_dropped += block.text.len() as u64;
        }
    }
    emit(DecidedPage {
        page,
        verdicts,
        location: origin.location,
        fetched: origin.fetched,
        date: origin.date,
        record_id: origin.record_id,
        charset: origin.charset,
        plain_text: origin.plain_text,
        digest: origin.digest,
    })
}

fn write_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockWriteGuard<'_, D> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
