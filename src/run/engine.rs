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

use crate::detect::{Detector, DetectorVisitor, NoPages, PageSource, Passes, Verdict};
use crate::read::InputSet;
use crate::run::prepare::{InputPages, Observed, Origin, Prepared, observe, read_lock};
use crate::run::rounds::RecordSource;
use crate::run::{
    BuildError, BuildOptions, BuildSummary, DecidedPage, Progress, RunPlan, SkippedRecord,
};

/// Everything one read of a run needs besides its detector.
pub(super) struct Read<'a, 'e> {
    pub(super) inputs: &'a InputSet,
    pub(super) options: &'a BuildOptions,
    pub(super) plan: &'a RunPlan,
    pub(super) source: RecordSource<'a>,
    pub(super) progress: &'a dyn Progress,
    pub(super) emit: &'e mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
}

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
    } = read;
    let started = Instant::now();
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
        detector: D::NAME.to_string(),
        settings: detector.settings(),
        threads: pipeline.workers(),
        input_bytes: inputs.total_bytes(),
        segment_options: Some(segment_options),
        segment_limits: Some(*limits),
        ..BuildSummary::default()
    };

    match plan.passes {
        Passes::Two => {
            tally.passes = 2;
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
                        Prepared::Page(mut page, observed) => {
                            progress.record_done(page.html_bytes);
                            if loads_pages {
                                pages.remember(&page.url, observed.origin.location);
                            }
                            let mut detector = write_lock(&detector);
                            detector.learn(&observed.observation);
                            page.forget_words();
                            batch.bytes += page.heap_bytes()
                                + detector.observation_bytes(&observed.observation);
                            batch.items.push(Prepared::Page(page, observed));
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
        }
        Passes::One => {
            tally.passes = 1;
            let detector = RwLock::new(detector);
            progress.start_pass(&format!("{label}deciding"));
            let mut pages = 0u64;
            pipeline.run(
                records(),
                |item| Ok(observe(item, limits, segment_options, &detector)),
                |prepared| {
                    let decided = match prepared {
                        Prepared::Page(page, observed) => {
                            progress.record_done(page.html_bytes);
                            let mut detector = write_lock(&detector);
                            let verdicts = detector.decide(&page, &observed.observation, &NoPages);
                            detector.learn(&observed.observation);
                            pages += 1;
                            if pages.is_multiple_of(256) {
                                tally.peak_state_bytes =
                                    tally.peak_state_bytes.max(detector.state_bytes() as u64);
                            }
                            Prepared::Page(page, (verdicts, observed.origin))
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
        }
    }
    if stopped() {
        return Err(BuildError::Interrupted);
    }
    tally.seconds = started.elapsed().as_secs_f64();
    Ok(tally)
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
        Prepared::Page(page, (verdicts, origin)) => {
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
                    detail: "the file ends inside the record; the part read was indexed".into(),
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
            })
        }
    }
}

fn write_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockWriteGuard<'_, D> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
