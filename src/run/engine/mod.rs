//! Engine: records of one [`RecordSource`] in, decided pages out (to the caller's `emit`),
//! through the [`indexer_pipeline`] stage graph — the one place that acts on whether a
//! detector makes one pass over the input or two.
//!
//! A two-pass detector ([`Passes::Two`]) must see a site's pages before it can judge any of
//! them. Following Chen, Ye & Li's own design (an in-memory batch whose statistics carry over
//! to later batches), each page is read, segmented and observed once on the workers, and
//! then waits ([`waiting`]) — its word lists dropped and its layout's marks packed on the
//! in-order thread — while its observation is learned in input order on a thread of its own
//! ([`Learning`]) and trimmed to what deciding cannot remake
//! ([`Detector::trim_for_waiting`]); the line waits for that thread before any page is
//! decided. A detector that decides site by site may be several ([`shards`]: one a learning
//! thread, each holding its share of the sites), which changes no verdict.
//! A detector whose verdicts depend on a page's own site only
//! ([`Detector::DECIDES_SITE_BY_SITE`]: `bloom`, `hybrid`) has its input's records counted
//! by site first, and each site is decided as soon as its last record arrives (a small site
//! waits for a few others, to be decided with them on the workers), after which the
//! detector lets go of it: a crawl stored site by site is held about one site at a time. Any
//! other waiting pages are decided when they reach [`RunPlan::batch_memory`] or the input
//! ends. Decisions run on the workers against everything learned so far and pages leave in
//! input order. When the whole input fits in the batch memory this is exactly learning
//! everything, then deciding everything, at the cost of one parse per page instead of two
//! (docs/DETECTORS.md, "One read, learn then decide"; the cost of two reads:
//! docs/MEASUREMENTS.md, design choices measured).
//!
//! A one-pass detector ([`Passes::One`]) decides each page in input order and then learns
//! from it, on a thread of its own beside the in-order one ([`Deciding`]) — for a detector
//! that decides site by site, on as many as it has [`shards`], each deciding its sites.

use std::sync::RwLock;
use std::time::Instant;

use indexer_pipeline::{Pipeline, SideStage};

use crate::detect::{
    Counter, Detector, DetectorVisitor, NoPages, PageSource, Passes, Rule, Verdict,
};
use crate::read::{InputSet, PlacedItem, RecordLocation, RecordPlaces};
use crate::report::{BuildSummary, SkippedRecord};
use crate::run::decided::RenderedText;
use crate::run::prepare::{InputPages, Observed, Origin, Prepared, observe, read_lock};
use crate::run::rounds::RecordSource;
use crate::run::site_models::{SiteModelLedger, SiteModelStore, fingerprint};
use crate::run::{BuildError, BuildOptions, DecidedPage, Progress, RenderedAhead, RunPlan};
use crate::segment::SegmentedPage;

mod shards;
mod waiting;

use shards::{ReadShards, Shards};
use waiting::{CompleteSite, DECIDE_ON_WORKERS_FROM, SiteRecords, Waiting};

/// Everything one read of a run needs besides its detector.
pub(crate) struct ReadJob<'a, 'e> {
    pub(crate) inputs: &'a InputSet,
    pub(crate) options: &'a BuildOptions,
    pub(crate) plan: &'a RunPlan,
    pub(crate) source: RecordSource<'a>,
    pub(crate) progress: &'a dyn Progress,
    pub(crate) emit: &'e mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    pub(crate) site_models: SiteModelStore<'e>,
    /// For an `add`: whether the index holds a page of this URL and digest already. Such a
    /// page is counted as unchanged and goes no further — the detector does not learn it
    /// again, nothing is emitted.
    pub(crate) unchanged: Option<&'a IsUnchanged<'a>>,
}

/// Whether the index an `add` writes holds the page of this URL and HTML digest already.
pub(crate) type IsUnchanged<'a> = dyn Fn(&str, u64) -> bool + 'a;

impl ReadJob<'_, '_> {
    /// Runs this read with a fresh detector of the options' kind and settings.
    pub(crate) fn run(self) -> Result<BuildSummary, BuildError> {
        let (kind, settings) = (self.options.detector, &self.options.settings);
        kind.visit(settings, self.plan.passes, self)
    }
}

impl DetectorVisitor for ReadJob<'_, '_> {
    type Output = Result<BuildSummary, BuildError>;

    fn visit<D: Detector>(self, detector: D) -> Self::Output {
        run_with(Shards::new(vec![detector]), self)
    }

    fn visit_made<D: Detector>(self, make: &dyn Fn() -> D) -> Self::Output {
        let detectors = (0..self.plan.learning_threads.max(1)).map(|_| make());
        run_with(Shards::new(detectors.collect()), self)
    }
}

/// Decides the learned pages of `waiting` that `which` picks — every one at the end of a
/// read or when the pages waiting reach [`RunPlan::batch_memory`], a site's once its last
/// record has arrived — against what `detector` has learned so far, and emits the pages
/// ready, in input order. Counts the batch, its time and the peaks held before it.
#[allow(clippy::too_many_arguments)]
fn decide_waiting<D: Detector>(
    detectors: &ReadShards<'_, D>,
    which: impl Fn(&SegmentedPage) -> bool,
    waiting: &mut Waiting<D::Observation>,
    pipeline: &Pipeline,
    pages: &dyn PageSource,
    tally: &mut BuildSummary,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let started = Instant::now();
    tally.peak_state_bytes = tally.peak_state_bytes.max(detectors.state_bytes() as u64);
    tally.peak_batch_bytes = tally.peak_batch_bytes.max(waiting.bytes as u64);
    if waiting.decide(detectors, which, pipeline, pages, tally, emit)? > 0 {
        tally.batches += 1;
    }
    tally.batch_seconds += started.elapsed().as_secs_f64();
    Ok(())
}

/// Complete sites whose pages still wait: each decided as soon as its last record arrives
/// would leave a crawl of small sites (most of a Common Crawl file) decided on the one thread
/// that keeps pages in order, so with two workers or more, sites of fewer than
/// [`DECIDE_ON_WORKERS_FROM`] pages wait for others until their pages reach it, and are then
/// decided together on the workers (with one, each is decided at once: a lone worker
/// would only take turns with the waiting thread). A site's verdicts depend on its own pages
/// only ([`Detector::DECIDES_SITE_BY_SITE`]), so when a site is decided changes none of them.
struct CompleteSites {
    sites: Vec<String>,
    /// Their pages (the records the reader did not skip).
    pages: usize,
    /// Pages that make a batch due.
    due_from: usize,
}

impl CompleteSites {
    fn new(workers: usize) -> Self {
        let due_from = if workers >= 2 {
            DECIDE_ON_WORKERS_FROM
        } else {
            1
        };
        CompleteSites {
            sites: Vec::new(),
            pages: 0,
            due_from,
        }
    }

    fn push(&mut self, complete: CompleteSite) {
        self.pages += complete.pages as usize;
        self.sites.push(complete.site);
    }

    fn are_due(&self) -> bool {
        self.pages >= self.due_from
    }

    /// The sites, leaving none.
    fn take(&mut self) -> Vec<String> {
        self.pages = 0;
        std::mem::take(&mut self.sites)
    }
}

/// Decides the waiting pages of the complete `sites` — every waiting page when `everything`
/// (the batch memory is full) — and lets the detector go of those sites once their models
/// are saved.
#[allow(clippy::too_many_arguments)]
fn decide_sites<D: Detector>(
    detectors: &Shards<D>,
    sites: Vec<String>,
    everything: bool,
    waiting: &mut Waiting<D::Observation>,
    site_models: &mut SiteModelLedger<'_>,
    pipeline: &Pipeline,
    pages: &dyn PageSource,
    tally: &mut BuildSummary,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    decide_waiting(
        &detectors.read(),
        |page| everything || sites.contains(&page.site),
        waiting,
        pipeline,
        pages,
        tally,
        emit,
    )?;
    for site in &sites {
        let mut detector = write_lock(detectors.of(site));
        site_models.finish_site(&*detector, site);
        detector.forget_site(site);
    }
    Ok(())
}

/// What both pass modes of one read share once it has begun.
struct Reading<'a, 'e, 'm> {
    inputs: &'a InputSet,
    options: &'a BuildOptions,
    plan: &'a RunPlan,
    source: RecordSource<'a>,
    progress: &'a dyn Progress,
    emit: &'e mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    unchanged: Option<&'a IsUnchanged<'a>>,
    pipeline: Pipeline,
    tally: BuildSummary,
    site_models: SiteModelLedger<'m>,
}

impl<'a> Reading<'a, '_, '_> {
    /// The items of the read, until the run is stopped, reporting progress through the
    /// input when the read is of the input itself. With `places` (from a count of the same
    /// source), a gzip record is read where it is prepared ([`PlacedItem::read`]).
    fn records(
        source: RecordSource<'a>,
        places: Option<&'a RecordPlaces>,
        inputs: &'a InputSet,
        options: &'a BuildOptions,
        progress: &'a dyn Progress,
    ) -> impl Iterator<Item = PlacedItem> + Send + 'a {
        let reads_input = matches!(source, RecordSource::Input(_));
        let total = inputs.total_bytes();
        source
            .placed_records(places)
            .take_while(|_| !options.stopped())
            .inspect(move |item| {
                let record = match item {
                    PlacedItem::Read(Ok(record)) => Some(RecordLocation::of(record)),
                    PlacedItem::Member(member) => Some(member.location()),
                    PlacedItem::Read(Err(_)) => None,
                };
                if let (true, Some(location)) = (reads_input, record) {
                    let position = inputs.position(location.input, location.offset);
                    progress.input_read(position, total);
                }
            })
    }
}

/// One read of `source` with `detectors`, handing every decided page to `emit`.
fn run_with<D: Detector>(
    detectors: Shards<D>,
    read: ReadJob<'_, '_>,
) -> Result<BuildSummary, BuildError> {
    let ReadJob {
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
    let pipeline = Pipeline::new(plan.threads);
    let mut tally = BuildSummary {
        segment_limits: Some(options.limits),
        ..first_tally(
            &*read_lock(detectors.first()),
            pipeline.workers(),
            inputs.total_bytes(),
        )
    };
    tally.passes = plan.passes.count();
    let fingerprint = fingerprint(D::NAME, tally.passes, &tally.settings);
    let reading = Reading {
        inputs,
        options,
        plan,
        source,
        progress,
        emit,
        unchanged,
        pipeline,
        tally,
        site_models: SiteModelLedger::new(site_models, &fingerprint),
    };
    let mut tally = match plan.passes {
        Passes::Two => two_passes(detectors, reading)?,
        Passes::One => one_pass(detectors, reading)?,
    };
    if options.stopped() {
        return Err(BuildError::Interrupted);
    }
    tally.seconds = started.elapsed().as_secs_f64();
    Ok(tally)
}

/// Whether an `add`'s index holds this page (its URL and HTML digest) already.
fn is_known(unchanged: Option<&IsUnchanged<'_>>, page: &SegmentedPage, origin: &Origin) -> bool {
    unchanged.is_some_and(|unchanged| unchanged(&page.url, origin.digest))
}

/// A two-pass read: each page learned as it arrives and kept waiting, decided when its site
/// is complete or the pages waiting fill the batch memory, and at the end.
fn two_passes<D: Detector>(
    detectors: Shards<D>,
    reading: Reading<'_, '_, '_>,
) -> Result<BuildSummary, BuildError> {
    let Reading {
        inputs,
        options,
        plan,
        source,
        progress,
        emit,
        unchanged,
        pipeline,
        mut tally,
        mut site_models,
    } = reading;
    let (segment_options, loads_pages) = {
        let first = read_lock(detectors.first());
        (first.segment_options(), first.loads_pages())
    };
    let limits = &options.limits;
    let stopped = || options.stopped();
    let is_unchanged = |page: &SegmentedPage, origin: &Origin| is_known(unchanged, page, origin);
    let label = source.label();
    let mut waiting = Waiting::new(plan.rendered_ahead, plan.writes_lines_only);
    let mut complete = CompleteSites::new(pipeline.workers());
    let mut pages = InputPages::new(inputs, *limits, segment_options);
    let mut site_records = if D::DECIDES_SITE_BY_SITE {
        progress.start_pass(&format!("{label}counting pages per site"));
        let counted = || progress.record_done(0);
        Some(SiteRecords::count(
            source,
            plan.threads,
            plan.most_places,
            &stopped,
            &counted,
        )?)
    } else {
        None
    };
    progress.start_pass(&format!("{label}learning and deciding"));
    let places = site_records.as_mut().and_then(SiteRecords::take_places);
    std::thread::scope(|scope| -> Result<(), BuildError> {
        let mut learning = Learning::start(scope, pipeline.window(), &detectors);
        pipeline.run(
            Reading::records(source, places.as_ref(), inputs, options, progress),
            |item| {
                Ok(observe(item.read(), limits, segment_options, |site| {
                    detectors.of(site)
                }))
            },
            |prepared| {
                let last_of_site = site_records
                    .as_mut()
                    .and_then(|records| records.last_of_site(&prepared));
                match prepared {
                    Prepared::Page(page, observed) if is_unchanged(&page, &observed.origin) => {
                        pass_over_unchanged(&mut tally, progress, &page);
                    }
                    Prepared::Page(page, observed) => {
                        progress.record_done(page.html_bytes);
                        if loads_pages {
                            pages.remember(&page.url, observed.origin.location);
                        }
                        let detector = detectors.of(&page.site);
                        site_models.arrive(|| write_lock(detector), &page.site);
                        let decided_next = last_of_site.is_some();
                        learning.learn_and_wait(
                            detectors.index_of(&page.site),
                            &mut waiting,
                            page,
                            observed,
                            decided_next,
                            plan.writes_lines_only,
                        )?;
                    }
                    Prepared::Text(page, origin) => {
                        progress.record_done(page.html_bytes);
                        waiting.push_ready(Prepared::Text(page, origin));
                    }
                    Prepared::Skipped(skip) => {
                        progress.record_done(0);
                        waiting.push_ready(Prepared::Skipped(skip));
                    }
                }
                if let Some(site) = last_of_site {
                    complete.push(site);
                }
                let full = waiting.bytes >= plan.batch_memory;
                if full || complete.are_due() {
                    learning.settle(&mut waiting)?;
                    decide_sites(
                        &detectors,
                        complete.take(),
                        full,
                        &mut waiting,
                        &mut site_models,
                        &pipeline,
                        &pages,
                        &mut tally,
                        emit,
                    )?;
                } else {
                    learning.take_learned(&mut waiting)?;
                }
                Ok(())
            },
        )?;
        learning.settle(&mut waiting)
    })?;
    if stopped() {
        return Err(BuildError::Interrupted);
    }
    let detectors = detectors.read();
    if !waiting.is_empty() {
        decide_waiting(
            &detectors,
            |_| true,
            &mut waiting,
            &pipeline,
            &pages,
            &mut tally,
            emit,
        )?;
    }
    for detector in detectors.each() {
        tally.add_counters(detector.counters());
    }
    tally.site_models = site_models.finish(|site| detectors.of(site));
    Ok(tally)
}

/// A one-pass read: each page decided as it arrives, then learned — on the deciding thread of
/// the shard that holds its site ([`Deciding`]), not on the one that keeps pages in order.
fn one_pass<D: Detector>(
    detectors: Shards<D>,
    reading: Reading<'_, '_, '_>,
) -> Result<BuildSummary, BuildError> {
    let Reading {
        inputs,
        options,
        plan,
        source,
        progress,
        emit,
        unchanged,
        pipeline,
        mut tally,
        mut site_models,
    } = reading;
    let (limits, segment_options) = (
        &options.limits,
        read_lock(detectors.first()).segment_options(),
    );
    let is_unchanged = |page: &SegmentedPage, origin: &Origin| is_known(unchanged, page, origin);
    let label = source.label();
    progress.start_pass(&format!("{label}deciding"));
    std::thread::scope(|scope| -> Result<(), BuildError> {
        let mut deciding =
            Deciding::start(scope, pipeline.window(), &detectors, plan.rendered_ahead);
        pipeline.run(
            Reading::records(source, None, inputs, options, progress),
            |item| {
                Ok(observe(item.read(), limits, segment_options, |site| {
                    detectors.of(site)
                }))
            },
            |prepared| {
                match prepared {
                    Prepared::Page(page, observed) if is_unchanged(&page, &observed.origin) => {
                        pass_over_unchanged(&mut tally, progress, &page);
                    }
                    Prepared::Page(page, observed) => {
                        progress.record_done(page.html_bytes);
                        let detector = detectors.of(&page.site);
                        site_models.arrive(|| write_lock(detector), &page.site);
                        deciding.give(detectors.index_of(&page.site), page, observed)?;
                    }
                    Prepared::Text(page, origin) => {
                        progress.record_done(page.html_bytes);
                        deciding.push_ready(Prepared::Text(page, origin));
                    }
                    Prepared::Skipped(skip) => {
                        progress.record_done(0);
                        deciding.push_ready(Prepared::Skipped(skip));
                    }
                }
                deciding.emit_ready(&mut tally, emit)
            },
        )?;
        deciding.finish(&mut tally, emit)
    })?;
    let detectors = detectors.read();
    tally.peak_state_bytes = tally.peak_state_bytes.max(detectors.state_bytes() as u64);
    // A one-pass read's shards hold their sites to the end, side by side: a peak of theirs
    // (a table's most entries) adds up as a count does.
    let mut counters: Vec<Counter> = Vec::new();
    for counter in detectors.each().flat_map(|detector| detector.counters()) {
        match counters.iter_mut().find(|seen| seen.name == counter.name) {
            Some(seen) => seen.value += counter.value,
            None => counters.push(counter),
        }
    }
    tally.add_counters(counters);
    tally.site_models = site_models.finish(|site| detectors.of(site));
    Ok(tally)
}

/// A page of a one-pass read decided on its shard's thread, with what the plan renders ahead;
/// and, every [`STATE_SAMPLE_PAGES`] pages of the shard, the shard's state bytes then.
type DecidedOnShard = (SegmentedPage, Decision, Option<usize>);

/// Pages a shard's deciding thread decides between two looks at its state's bytes.
const STATE_SAMPLE_PAGES: u64 = 256;

/// The deciding of a one-pass read, on a thread a shard ([`SideStage`]) beside the one that
/// keeps pages in input order: each page is handed, in input order, to the thread of the
/// shard that holds its site, which decides it, learns it and renders what the plan says;
/// the page comes back to its place in the line, and the pages at the front of the line leave
/// in input order. A shard sees its sites' pages in input order, and its detector decides by
/// their site alone ([`Detector::DECIDES_SITE_BY_SITE`]; a detector that learns across sites
/// is one shard), so each verdict is the one a single thread would give.
struct Deciding<'scope, O> {
    /// One a shard, in the shards' order.
    stages: Vec<SideStage<'scope, (SegmentedPage, Observed<O>), DecidedOnShard>>,
    /// The pages since the front of the line, in input order: being decided on a shard, or
    /// ready to leave.
    line: std::collections::VecDeque<InLine>,
    /// The place of the line's front: the pages that have left it.
    first_place: u64,
    /// The most pages the line holds before the in-order thread waits for its front.
    longest_line: usize,
    /// The last state bytes each shard reported, and the most of their sum.
    state_bytes: Vec<usize>,
    peak_state_bytes: usize,
}

/// A page in a one-pass read's line.
// Most of a line is pages ready to leave: boxing them would add an allocation a page and
// save nothing.
#[allow(clippy::large_enum_variant)]
enum InLine {
    /// Being decided on this shard.
    Deciding(usize),
    /// Decided (or never to be: a page of plain text, a skip), ready to leave.
    Ready(Prepared<Decision>),
}

impl<'scope, O: Send + 'scope> Deciding<'scope, O> {
    /// Starts the deciding thread of each of `detectors`; at most `capacity` pages wait for
    /// each, and the line holds at most four times that a shard.
    fn start<'env, D: Detector<Observation = O>>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        capacity: usize,
        detectors: &'scope Shards<D>,
        ahead: RenderedAhead,
    ) -> Self {
        let decide = |detector: &'scope RwLock<D>| {
            let mut pages = 0u64;
            move |(page, observed): (SegmentedPage, Observed<O>)| {
                let mut detector = write_lock(detector);
                let verdicts = detector.decide(&page, &observed.observation, &NoPages);
                detector.learn(&observed.observation);
                pages += 1;
                let state_bytes = pages
                    .is_multiple_of(STATE_SAMPLE_PAGES)
                    .then(|| detector.state_bytes());
                drop(detector);
                let decision = Decision::rendered(&page, verdicts, observed.origin, ahead);
                (page, decision, state_bytes)
            }
        };
        let stages: Vec<_> = detectors
            .all()
            .iter()
            .map(|detector| SideStage::start(scope, capacity, decide(detector)))
            .collect();
        Deciding {
            longest_line: 4 * capacity.max(1) * stages.len(),
            state_bytes: vec![0; stages.len()],
            stages,
            line: std::collections::VecDeque::new(),
            first_place: 0,
            peak_state_bytes: 0,
        }
    }

    /// Hands `page` to the deciding thread of `shard`, the one that holds its site.
    fn give(
        &mut self,
        shard: usize,
        page: SegmentedPage,
        observed: Observed<O>,
    ) -> Result<(), BuildError> {
        let place = self.first_place + self.line.len() as u64;
        self.line.push_back(InLine::Deciding(shard));
        self.stages[shard].give(place, (page, observed))?;
        Ok(())
    }

    /// Adds a page that needs no decision, or a skip.
    fn push_ready(&mut self, ready: Prepared<Decision>) {
        self.line.push_back(InLine::Ready(ready));
    }

    /// Puts the pages decided so far back in their places and hands every page ready at the
    /// front of the line to `emit`; while the line is longer than it may be, waits for the
    /// shard deciding its front.
    fn emit_ready(
        &mut self,
        tally: &mut BuildSummary,
        emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for shard in 0..self.stages.len() {
            self.take_back(shard, false)?;
        }
        loop {
            self.leave(tally, emit)?;
            match self.line.front() {
                Some(&InLine::Deciding(shard)) if self.line.len() > self.longest_line => {
                    self.take_back(shard, true)?;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Waits until every page handed over is decided, and hands every page to `emit`.
    fn finish(
        &mut self,
        tally: &mut BuildSummary,
        emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for shard in 0..self.stages.len() {
            self.take_back(shard, true)?;
        }
        self.leave(tally, emit)?;
        if !self.line.is_empty() {
            return Err(BuildError::Pipeline(format!(
                "{} pages of a one-pass read were never decided",
                self.line.len()
            )));
        }
        tally.peak_state_bytes = tally.peak_state_bytes.max(self.peak_state_bytes as u64);
        Ok(())
    }

    /// Puts the pages `shard` has decided back in their places: those done so far, or
    /// every page handed to it when `wait`.
    fn take_back(&mut self, shard: usize, wait: bool) -> Result<(), BuildError> {
        let stage = &mut self.stages[shard];
        let decided = if wait {
            stage.settle()?
        } else {
            stage.ready()?
        };
        for (place, (page, decision, state_bytes)) in decided {
            if let Some(bytes) = state_bytes {
                self.state_bytes[shard] = bytes;
                self.peak_state_bytes = self.peak_state_bytes.max(self.state_bytes.iter().sum());
            }
            let at = place
                .checked_sub(self.first_place)
                .and_then(|at| usize::try_from(at).ok());
            match at.and_then(|at| self.line.get_mut(at)) {
                Some(slot @ InLine::Deciding(_)) => {
                    *slot = InLine::Ready(Prepared::Page(page, decision))
                }
                _ => {
                    return Err(BuildError::Pipeline(format!(
                        "a decided page came back to place {place}, where no page was being decided"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Hands the pages ready at the front of the line to `emit`.
    fn leave(
        &mut self,
        tally: &mut BuildSummary,
        emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        while let Some(InLine::Ready(_)) = self.line.front() {
            if let Some(InLine::Ready(ready)) = self.line.pop_front() {
                self.first_place += 1;
                tally_and_emit(tally, ready, emit)?;
            }
        }
        Ok(())
    }
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

/// The learning of a two-pass read, on a thread of its own ([`SideStage`]) beside the one that
/// keeps pages in input order: each page's observation is handed over in input order,
/// learned, trimmed for waiting unless the page is decided next, and comes back to its place
/// in the line. Before any page is decided the line waits for it ([`settle`](Self::settle)),
/// so a decision sees exactly the pages before it learned, as when the in-order thread
/// learned them itself; the pages' bytes are counted when they are handed over, so when the
/// batch memory fills does not depend on the threads' timing either.
///
/// With several [`Shards`], each has a learning thread of its own, learning its sites' pages in
/// input order.
struct Learning<'scope, O> {
    /// One a shard, in the shards' order.
    stages: Vec<SideStage<'scope, (O, bool), O>>,
}

impl<'scope, O: Send + 'scope> Learning<'scope, O> {
    /// Starts the learning thread of each of `detectors`; at most `capacity` observations
    /// wait for each.
    fn start<'env, D: Detector<Observation = O>>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        capacity: usize,
        detectors: &'scope Shards<D>,
    ) -> Self {
        let learn = |detector: &'scope RwLock<D>| {
            move |(mut observation, trim): (O, bool)| {
                let mut detector = write_lock(detector);
                detector.learn(&observation);
                if trim {
                    detector.trim_for_waiting(&mut observation);
                }
                observation
            }
        };
        let stages = detectors
            .all()
            .iter()
            .map(|detector| SideStage::start(scope, capacity, learn(detector)))
            .collect();
        Learning { stages }
    }

    /// Hands a page of a two-pass read over to be learned; it waits in the line for its
    /// decision. Unless it is its site's last (decided next, or with a few other small
    /// sites), it waits without its word lists and with its observation trimmed: what is
    /// dropped is made again when it is decided. Its layout's marks are packed, without its
    /// links' targets when `lines_only` ([`RunPlan::writes_lines_only`]).
    /// `shard`: the one that holds the page's site ([`Shards::index_of`]).
    #[allow(clippy::too_many_arguments)]
    fn learn_and_wait(
        &mut self,
        shard: usize,
        waiting: &mut Waiting<O>,
        mut page: SegmentedPage,
        observed: Observed<O>,
        decided_next: bool,
        lines_only: bool,
    ) -> Result<(), BuildError> {
        let Observed {
            observation,
            origin,
            bytes: (whole, trimmed),
        } = observed;
        let trim = !decided_next;
        if trim {
            page.shrink_for_waiting(lines_only);
        }
        let bytes = page.heap_bytes() + if trim { trimmed } else { whole };
        let place = waiting.push_learning(page, origin, bytes);
        self.stages[shard].give(place, (observation, trim))?;
        Ok(())
    }

    /// Puts the observations learned so far back in their places, without waiting.
    fn take_learned(&mut self, waiting: &mut Waiting<O>) -> Result<(), BuildError> {
        for stage in &mut self.stages {
            for (place, observation) in stage.ready()? {
                waiting.learned(place, observation)?;
            }
        }
        Ok(())
    }

    /// Waits until every page handed over is learned, and puts each back in its place.
    fn settle(&mut self, waiting: &mut Waiting<O>) -> Result<(), BuildError> {
        for stage in &mut self.stages {
            for (place, observation) in stage.settle()? {
                waiting.learned(place, observation)?;
            }
        }
        Ok(())
    }
}

fn tally_and_emit(
    tally: &mut BuildSummary,
    prepared: Prepared<Decision>,
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
            tally_and_emit_page(tally, page, Decision::new(verdicts, origin), emit)
        }
        Prepared::Page(page, decision) => tally_and_emit_page(tally, page, decision, emit),
    }
}

/// Counts a decided page into `tally` and hands it to `emit`.
fn tally_and_emit_page(
    tally: &mut BuildSummary,
    page: SegmentedPage,
    decision: Decision,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let Decision {
        verdicts,
        origin,
        rendered,
    } = decision;
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
        record_length: origin.length,
        source: None,
        fetched: origin.fetched,
        date: origin.date,
        record_id: origin.record_id,
        charset: origin.charset,
        plain_text: origin.plain_text,
        digest: origin.digest,
        rendered,
    })
}

/// A page's verdicts and where its record lies; and its kept text (and that text's language)
/// when they were rendered where the page was decided ([`RunPlan::rendered_ahead`]).
pub(super) struct Decision {
    verdicts: Vec<Verdict>,
    origin: Origin,
    rendered: Option<RenderedText>,
}

impl Decision {
    fn new(verdicts: Vec<Verdict>, origin: Origin) -> Self {
        Decision {
            verdicts,
            origin,
            rendered: None,
        }
    }

    /// Bytes of the kept text rendered with the decision.
    pub(super) fn rendered_bytes(&self) -> usize {
        self.rendered.as_ref().map_or(0, RenderedText::heap_bytes)
    }

    /// The decision of `page`, with what `ahead` says rendered now.
    pub(super) fn rendered(
        page: &SegmentedPage,
        verdicts: Vec<Verdict>,
        origin: Origin,
        ahead: RenderedAhead,
    ) -> Self {
        let rendered = ahead.render(page, &verdicts);
        Decision {
            verdicts,
            origin,
            rendered,
        }
    }
}

fn write_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockWriteGuard<'_, D> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
