//! Build: the stages wired into one run — read → segment (worker threads) → detect → index or
//! extract — and the one place that decides whether a run makes one pass over the input or two.
//!
//! A two-pass detector ([`Passes::Two`]) must see a site's pages before it can judge any of
//! them. Following Chen, Ye & Li's own design (an in-memory batch whose statistics carry over
//! to later batches), each page is read, segmented and observed once on the workers, learned
//! in input order, and then waits — with its observation, its word lists dropped — until the batch of
//! waiting pages reaches [`BuildOptions::batch_memory`] or the input ends. The batch is then
//! decided on the workers against everything learned so far and emitted in input order. When
//! the whole input fits in one batch this is exactly learning everything, then deciding
//! everything, at the cost of one parse per page instead of two (measured: re-reading and
//! re-segmenting the docs corpus made `bloom` cost 3.2× `none`; see the README).
//!
//! A one-pass detector ([`Passes::One`]) decides each page in input order and then learns
//! from it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use indexer_pipeline::{Pipeline, PipelineError};
use serde::{Deserialize, Serialize};

use rustc_hash::FxHashMap;

use crate::detect::bloom::{Bloom, BloomSettings};
use crate::detect::incremental::{Incremental, IncrementalSettings};
use crate::detect::menu::{Menu, MenuSettings};
use crate::detect::none::KeepEverything;
use crate::detect::sandwich::{Sandwich, SandwichSettings};
use crate::detect::table_chunk::{TableChunk, TableChunkSettings};
use crate::detect::{Detector, DetectorKind, NoPages, PageSource, Passes, normalized_url};
use crate::index::{IndexBuild, IndexError, IndexedPage};
use crate::partition::{PartitionWriter, Partitions};
use crate::read::{InputSet, ReadError, Record, RecordLocation, Skip, page_from_record, site_of};
use crate::segment::{
    SegmentLimits, SegmentOptions, SegmentedPage, segment_with, stable_hash_bytes,
};

/// How to run a build or an extraction.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Which detector decides.
    pub detector: DetectorKind,
    /// Thresholds of `bloom`.
    pub bloom: BloomSettings,
    /// Settings of `sandwich`.
    pub sandwich: SandwichSettings,
    /// Settings of `table-chunk`.
    pub table_chunk: TableChunkSettings,
    /// Settings of `incremental`.
    pub incremental: IncrementalSettings,
    /// Settings of `menu`.
    pub menu: MenuSettings,
    /// Segmenting worker threads.
    pub threads: usize,
    /// Per-page limits.
    pub limits: SegmentLimits,
    /// Base URL for pages read from a folder.
    pub base_url: Option<String>,
    /// Two-pass detectors: bytes of learned pages held in memory while they wait for their
    /// decision; when reached, the waiting pages are decided with what has been learned so far.
    pub batch_memory: usize,
    /// Bytes of memory the run may use for detector state, pages waiting for their decision
    /// and the index writer. When the input could need more, sites are split by a hash of
    /// their host into rounds, each a read of the input that handles only its own sites (see
    /// [`run`]); the batch of waiting pages is kept to an eighth of it.
    pub memory_budget: usize,
    /// Read the input once, whatever the memory budget: no rounds (`build --one-pass`; the
    /// one-pass detectors bound their state per site themselves).
    pub one_pass: bool,
    /// Where rounds keep their temporary files: the index directory for a build (a killed
    /// build's files are removed by the next), the system's temporary directory if `None`.
    pub scratch_dir: Option<PathBuf>,
    /// Set (by a signal handler, say) to stop the run: no more records are read and the run
    /// ends with [`BuildError::Interrupted`], leaving any previous index as it was.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            detector: DetectorKind::Bloom,
            bloom: BloomSettings::default(),
            sandwich: SandwichSettings::default(),
            table_chunk: TableChunkSettings::default(),
            incremental: IncrementalSettings::default(),
            menu: MenuSettings::default(),
            threads: std::thread::available_parallelism().map_or(2, usize::from),
            limits: SegmentLimits::default(),
            base_url: None,
            batch_memory: 1 << 30,
            memory_budget: 2 << 30,
            scratch_dir: None,
            one_pass: false,
            stop: None,
        }
    }
}

/// Receives progress of a run; the CLI draws it.
pub trait Progress: Sync {
    /// A pass starts.
    fn start_pass(&self, name: &str);
    /// One record was handled in the current pass; `html_bytes` of HTML were segmented.
    fn record_done(&self, html_bytes: usize);
    /// The run is over.
    fn finish(&self);
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start_pass(&self, _name: &str) {}
    fn record_done(&self, _html_bytes: usize) {}
    fn finish(&self) {}
}

/// What a run did, stored with the index and printed by `build`, `stats` and `extract`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildSummary {
    /// The detector's name.
    pub detector: String,
    /// Its thresholds.
    pub settings: serde_json::Value,
    /// Passes made over the input.
    pub passes: u32,
    /// Segmenting threads.
    pub threads: usize,
    /// Input paths.
    pub inputs: Vec<String>,
    /// Bytes of input files (compressed as stored).
    pub input_bytes: u64,
    /// Records read (pages and skips).
    pub records: u64,
    /// Pages indexed or extracted.
    pub pages: u64,
    /// Records not indexed, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Pages cut short by a per-page limit, by limit.
    pub limited: BTreeMap<String, u64>,
    /// Bytes of HTML segmented (decoded, after limits).
    pub html_bytes: u64,
    /// Blocks kept.
    pub blocks_kept: u64,
    /// Blocks dropped as template.
    pub blocks_dropped: u64,
    /// Bytes of text kept.
    pub text_bytes_kept: u64,
    /// Bytes of text dropped.
    pub text_bytes_dropped: u64,
    /// Peak bytes of per-site detector state.
    pub peak_state_bytes: u64,
    /// Batches of pages decided (two-pass detectors: a batch is decided when the pages waiting
    /// for a decision reach the batch memory).
    pub batches: u32,
    /// Peak bytes of pages waiting for a decision.
    pub peak_batch_bytes: u64,
    /// Seconds spent deciding and emitting batches (two-pass detectors), after their pages
    /// were read and learned.
    #[serde(default)]
    pub batch_seconds: f64,
    /// What the detector counted (see [`Detector::counters`]); over several rounds, counts
    /// are summed and peaks (names with `peak`) are the largest.
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// Reads of the input: 1, or the number of site rounds the memory budget asked for.
    #[serde(default)]
    pub rounds: u32,
    /// The memory budget in force, bytes.
    #[serde(default)]
    pub memory_budget: u64,
    /// Where the run could not keep within the memory budget, and why.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Wall time of the run, seconds.
    pub seconds: f64,
}

/// A page with a keep/drop decision for each of its blocks.
#[derive(Debug, Clone)]
pub struct DecidedPage {
    /// The segmented page.
    pub page: SegmentedPage,
    /// Whether each block is kept, in block order.
    pub keep: Vec<bool>,
}

impl DecidedPage {
    /// Text of the kept blocks, one block per line.
    pub fn kept_text(&self) -> String {
        let mut text = String::new();
        for (block, _) in self
            .page
            .blocks
            .iter()
            .zip(&self.keep)
            .filter(|(_, keep)| **keep)
        {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&block.text);
        }
        text
    }

    fn kept_blocks(&self) -> u64 {
        self.keep.iter().filter(|keep| **keep).count() as u64
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The inputs could not be opened.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The index could not be written.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Output could not be written.
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
    /// A stage failed unexpectedly.
    #[error("pipeline stopped: {0}")]
    Pipeline(String),
    /// The run was stopped before it finished (see [`BuildOptions::stop`]).
    #[error("interrupted; the previous index, if any, is unchanged")]
    Interrupted,
    /// Nothing to index.
    #[error(
        "no HTML pages found in the input ({records} records read{skips}); the previous index, if any, is unchanged"
    )]
    NoPages {
        /// Records read.
        records: u64,
        /// Skips, formatted.
        skips: String,
    },
}

impl From<PipelineError<BuildError>> for BuildError {
    fn from(error: PipelineError<BuildError>) -> Self {
        match error {
            PipelineError::Stage { error, .. } => error,
            panicked @ PipelineError::Panicked { .. } => BuildError::Pipeline(panicked.to_string()),
        }
    }
}

/// Builds (or rebuilds) the index at `index` from `inputs`. The new index replaces the old
/// only when complete.
pub fn build_index(
    inputs: &[PathBuf],
    index: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildSummary, BuildError> {
    limit_malloc_arenas(options.threads);
    let input_set = InputSet::open(inputs, options.base_url.as_deref())?;
    let detector = AnyDetector::new(options);
    // Two-pass detectors index after all pages are parsed, so the index gets every core;
    // one-pass runs parse and index at once and share them.
    let index_threads = match detector.passes() {
        Passes::Two => options.threads,
        Passes::One => (options.threads / 2).max(1),
    };
    drop(detector);
    let writer_heap = IndexBuild::heap_bytes(index_threads, options.memory_budget);
    let mut writer = IndexBuild::begin(index, index_threads, writer_heap)?;
    let options = &BuildOptions {
        scratch_dir: Some(index.to_path_buf()),
        ..options.clone()
    };
    let plan = MemoryPlan::new(&input_set, options, writer_heap);
    if plan.rounds {
        // A crawl too large for one round would otherwise have tantivy merge ever larger
        // segments while the rounds run, mapping them back in: on the 32× docs crawl under
        // 512 MiB that took peak RSS to 530–597 MiB, against 465 MiB without merges at the
        // same speed (29 segments).
        writer.hold_merges();
    }
    let mut summary = run(&input_set, &plan, progress, &mut |decided: DecidedPage| {
        let body = decided.kept_text();
        let kept = decided.kept_blocks();
        writer.add(&IndexedPage {
            url: &decided.page.url,
            site: &decided.page.site,
            title: &decided.page.title,
            body: &body,
            kept_blocks: kept,
            dropped_blocks: decided.keep.len() as u64 - kept,
        })?;
        Ok(())
    })?;
    summary.inputs = inputs
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    if options
        .stop
        .as_ref()
        .is_some_and(|stop| stop.load(Ordering::Relaxed))
    {
        return Err(BuildError::Interrupted);
    }
    if summary.pages == 0 {
        return Err(BuildError::NoPages {
            records: summary.records,
            skips: format_skips(&summary.skipped),
        });
    }
    writer.commit(&summary)?;
    Ok(summary)
}

/// Runs detection over `inputs` and hands every decided page to `emit`: in input order, or,
/// when the memory budget splits the sites into rounds, in input order within each round.
pub fn extract(
    inputs: &[PathBuf],
    options: &BuildOptions,
    progress: &dyn Progress,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    limit_malloc_arenas(options.threads);
    let input_set = InputSet::open(inputs, options.base_url.as_deref())?;
    let plan = MemoryPlan::new(&input_set, options, 0);
    let mut summary = run(&input_set, &plan, progress, emit)?;
    summary.inputs = inputs
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    Ok(summary)
}

/// "; skipped: 3 not-html, 1 truncated-record", or empty.
pub fn format_skips(skipped: &BTreeMap<String, u64>) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = skipped
        .iter()
        .map(|(reason, n)| format!("{n} {reason}"))
        .collect();
    format!("; skipped: {}", parts.join(", "))
}

/// The detector `--detector` named, as a value; the one place a kind becomes a detector.
enum AnyDetector {
    Bloom(Bloom),
    Sandwich(Sandwich),
    TableChunk(TableChunk),
    Incremental(Incremental),
    Menu(Menu),
    None(KeepEverything),
}

/// Runs `$body` with `$detector` bound to the concrete detector inside `$any`.
macro_rules! with_detector {
    ($any:expr, $detector:ident => $body:expr) => {
        match $any {
            AnyDetector::Bloom($detector) => $body,
            AnyDetector::Sandwich($detector) => $body,
            AnyDetector::TableChunk($detector) => $body,
            AnyDetector::Incremental($detector) => $body,
            AnyDetector::Menu($detector) => $body,
            AnyDetector::None($detector) => $body,
        }
    };
}

impl AnyDetector {
    fn new(options: &BuildOptions) -> Self {
        match options.detector {
            DetectorKind::Bloom => AnyDetector::Bloom(Bloom::new(options.bloom)),
            DetectorKind::Sandwich => AnyDetector::Sandwich(Sandwich::new(options.sandwich)),
            DetectorKind::TableChunk => {
                AnyDetector::TableChunk(TableChunk::new(options.table_chunk))
            }
            DetectorKind::Incremental => {
                AnyDetector::Incremental(Incremental::new(options.incremental))
            }
            DetectorKind::Menu => AnyDetector::Menu(Menu::new(options.menu)),
            DetectorKind::None => AnyDetector::None(KeepEverything),
        }
    }

    fn passes(&self) -> Passes {
        with_detector!(self, detector => detector.passes())
    }
}

/// How many passes the detector `kind` makes.
pub fn passes_of(kind: DetectorKind) -> Passes {
    AnyDetector::new(&BuildOptions {
        detector: kind,
        ..BuildOptions::default()
    })
    .passes()
}

/// Rounds at most (each is a temporary file open while the input is split): past this, a
/// round's expected state may exceed the budget.
const MAX_ROUNDS: usize = 256;

/// Site buckets: a site's bucket is a hash of its host; rounds are made of whole buckets.
const SITE_BUCKETS: usize = 4096;

/// Memory the run needs besides detector state and waiting pages (buffers, pages in flight
/// on the workers), bytes.
const BASE_MEMORY: usize = 96 << 20;

/// HTML bytes per input byte assumed before any input is measured: gzip compresses HTML
/// rarely better than this.
const ASSUMED_EXPANSION: f64 = 8.0;

/// The site bucket of a URL.
fn bucket_of(url: &str) -> usize {
    (stable_hash_bytes(site_of(url).as_bytes()) % SITE_BUCKETS as u64) as usize
}

/// Where one read of a run takes its records from.
#[derive(Clone, Copy)]
enum RecordSource<'a> {
    /// Every record of the input.
    Input(&'a InputSet),
    /// The records of one round's sites, split off the input beforehand.
    Partition(&'a Partitions, usize),
}

impl<'a> RecordSource<'a> {
    fn records(self) -> Box<dyn Iterator<Item = Result<Record, Skip>> + Send + 'a> {
        match self {
            RecordSource::Input(inputs) => Box::new(inputs.records()),
            RecordSource::Partition(partitions, round) => Box::new(partitions.records(round)),
        }
    }

    fn label(self) -> String {
        match self {
            RecordSource::Input(_) => String::new(),
            RecordSource::Partition(partitions, round) => {
                format!("round {} of {}: ", round + 1, partitions.len())
            }
        }
    }
}

/// Runs detection over `inputs` within the memory budget, as `plan` shares it out.
///
/// Detector state grows with the sites learned. When the input might need more state than
/// the budget leaves (input bytes × [`ASSUMED_EXPANSION`] × the detector's
/// [`Detector::state_per_html_byte`]), a first read counts the record bytes of each site
/// bucket (nothing decoded), and the buckets are grouped into rounds whose expected state
/// fits. A second read writes each record to its round's temporary file
/// ([`crate::partition`]); each round then reads its own file with a fresh detector. Sites
/// never share state, so this decides every page as one pass over everything would. The
/// cost is two more reads of the input and one write of it, whatever the number of rounds,
/// and temporary disk space for the records (gzip); pages are emitted round by round.
fn run(
    inputs: &InputSet,
    plan: &MemoryPlan,
    progress: &dyn Progress,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    let options = &plan.options;
    let (state_budget, per_html_byte) = (plan.state_budget, plan.per_html_byte);

    let result = if !plan.rounds {
        with_detector!(AnyDetector::new(options), detector => run_with(detector, inputs, options, RecordSource::Input(inputs), progress, emit))
            .map(|mut summary| {
                summary.rounds = 1;
                summary
            })
    } else {
        (|| {
            let started = Instant::now();
            progress.start_pass("sizing sites");
            let bucket_bytes = bucket_bytes(inputs, options, progress)?;
            let total_state = bucket_bytes.iter().sum::<u64>() as f64 * per_html_byte;
            let round_budget = state_budget.max(total_state / MAX_ROUNDS as f64);
            let (round_of_bucket, rounds) = plan_rounds(&bucket_bytes, per_html_byte, round_budget);
            progress.start_pass("splitting sites into rounds");
            let (partitions, mut total) =
                partition(inputs, &round_of_bucket, rounds, options, progress)?;
            for round in 0..partitions.len() {
                let source = RecordSource::Partition(&partitions, round);
                let part = with_detector!(AnyDetector::new(options), detector => run_with(detector, inputs, options, source, progress, emit))?;
                partitions.check(round)?;
                total.absorb(part);
                release_freed_memory();
            }
            total.rounds = rounds as u32;
            total.seconds = started.elapsed().as_secs_f64();
            Ok(total)
        })()
    };
    progress.finish();
    result.map(|mut summary| {
        summary.memory_budget = options.memory_budget as u64;
        summary.warnings = budget_warnings(&summary, options.memory_budget, plan.fixed);
        summary
    })
}

/// Says where a run's measured memory did not fit the budget: the fixed costs alone (index
/// writer buffers, pages waiting and in flight) or, with the largest detector state a round
/// held, more than the budget. One site's state cannot be split across rounds, so a budget
/// below the largest site's state is not met.
fn budget_warnings(summary: &BuildSummary, budget: usize, fixed: usize) -> Vec<String> {
    let mib = |bytes: u64| bytes.div_ceil(1 << 20);
    let (budget, fixed) = (budget as u64, fixed as u64);
    if fixed >= budget {
        vec![format!(
            "the memory budget of {} MiB is below the build's fixed costs of about {} MiB \
             (index writer buffers, pages waiting and in flight) before any detector state",
            mib(budget),
            mib(fixed)
        )]
    } else if fixed + summary.peak_state_bytes > budget {
        vec![format!(
            "the memory budget of {} MiB was exceeded: {} MiB of detector state at peak \
             ({} round{}) on top of about {} MiB of fixed costs; a round held more state than \
             planned, or one site needs more than the budget leaves (a site is never split)",
            mib(budget),
            mib(summary.peak_state_bytes),
            summary.rounds,
            if summary.rounds == 1 { "" } else { "s" },
            mib(fixed)
        )]
    } else {
        Vec::new()
    }
}

/// How a run shares its memory budget, decided once before the run starts.
struct MemoryPlan {
    /// The options, with the batch of waiting pages held to an eighth of the budget.
    options: BuildOptions,
    /// Bytes left for detector state.
    state_budget: f64,
    /// Bytes taken before any detector state: the batch, the caller's reservation (the index
    /// writer) and the base.
    fixed: usize,
    /// The detector's expected state per HTML byte.
    per_html_byte: f64,
    /// Whether the sites are split into rounds: the input might need more state than
    /// `state_budget`.
    rounds: bool,
}

impl MemoryPlan {
    /// The plan for `inputs` when the caller keeps `reserved` bytes of the budget.
    fn new(inputs: &InputSet, options: &BuildOptions, reserved: usize) -> Self {
        let mut options = options.clone();
        options.batch_memory = options
            .batch_memory
            .min(options.memory_budget / 8)
            .max(1 << 20);
        let fixed = options.batch_memory + reserved + BASE_MEMORY;
        let state_budget = options.memory_budget.saturating_sub(fixed).max(1 << 20) as f64;
        let per_html_byte =
            with_detector!(AnyDetector::new(&options), detector => detector.state_per_html_byte());
        let estimate = inputs.total_bytes() as f64 * ASSUMED_EXPANSION * per_html_byte;
        let rounds = per_html_byte > 0.0 && estimate > state_budget && !options.one_pass;
        MemoryPlan {
            options,
            state_budget,
            fixed,
            per_html_byte,
            rounds,
        }
    }
}

/// Groups site buckets, in order, into rounds whose expected state fits `state_budget`
/// (a bucket larger than that is a round of its own). Returns each bucket's round and the
/// number of rounds.
fn plan_rounds(bucket_bytes: &[u64], per_html_byte: f64, state_budget: f64) -> (Vec<u32>, usize) {
    let mut round_of_bucket = vec![0u32; bucket_bytes.len()];
    let mut round = 0u32;
    let mut expected = 0.0;
    let mut used = false;
    for (bucket, &bytes) in bucket_bytes.iter().enumerate() {
        if bytes == 0 {
            continue;
        }
        let next = bytes as f64 * per_html_byte;
        if used && expected + next > state_budget {
            round += 1;
            expected = 0.0;
        }
        expected += next;
        used = true;
        round_of_bucket[bucket] = round;
    }
    (round_of_bucket, round as usize + 1)
}

/// Writes every record to the partition of its site's round; skips are counted in the
/// returned summary (the rounds see only records).
fn partition(
    inputs: &InputSet,
    round_of_bucket: &[u32],
    rounds: usize,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<(Partitions, BuildSummary), BuildError> {
    let mut writer = PartitionWriter::new(rounds, options.scratch_dir.as_deref())?;
    let mut skips = BuildSummary::default();
    for item in inputs.records() {
        if options
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
        {
            return Err(BuildError::Interrupted);
        }
        match item {
            Ok(record) => {
                let round = round_of_bucket[bucket_of(&record.url)] as usize;
                writer.write(round, &record)?;
            }
            Err(skip) => {
                skips.records += 1;
                *skips
                    .skipped
                    .entry(skip.reason.as_str().to_string())
                    .or_default() += 1;
            }
        }
        progress.record_done(0);
    }
    Ok((writer.finish()?, skips))
}

/// Caps glibc's malloc arenas (by default eight per core) before the build's threads start.
/// Pages are built on the segmenting threads and freed after their batch is decided; memory
/// freed into one thread's arena is not reused by the others, and with the default arenas
/// resident memory outgrew a 512 MiB budget by a quarter on the 16× docs crawl (645 MiB at
/// peak; 527 MiB with two arenas). A quarter of the threads, at least two, keeps allocation
/// contention low.
fn limit_malloc_arenas(threads: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let arenas = libc::c_int::try_from(threads.div_ceil(4).max(2)).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only changes an allocator setting; glibc applies M_ARENA_MAX to
        // arenas created after the call and leaves existing allocations alone.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = threads;
}

/// Hands memory freed by a round back to the system, so that the next round starts lean.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it has no
    // preconditions and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Record bytes of each site bucket: one read of the input, framing records only.
fn bucket_bytes(
    inputs: &InputSet,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<u64>, BuildError> {
    let mut bytes = vec![0u64; SITE_BUCKETS];
    for item in inputs.records() {
        if options
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
        {
            return Err(BuildError::Interrupted);
        }
        if let Ok(record) = item {
            bytes[bucket_of(&record.url)] += record.block.len() as u64;
        }
        progress.record_done(0);
    }
    Ok(bytes)
}

impl BuildSummary {
    /// Adds the figures of another round of the same run.
    fn absorb(&mut self, other: BuildSummary) {
        if self.detector.is_empty() {
            self.detector = other.detector.clone();
            self.settings = other.settings.clone();
            self.passes = other.passes;
            self.threads = other.threads;
            self.input_bytes = other.input_bytes;
        }
        self.records += other.records;
        self.pages += other.pages;
        for (reason, count) in other.skipped {
            *self.skipped.entry(reason).or_default() += count;
        }
        for (limit, count) in other.limited {
            *self.limited.entry(limit).or_default() += count;
        }
        self.html_bytes += other.html_bytes;
        self.blocks_kept += other.blocks_kept;
        self.blocks_dropped += other.blocks_dropped;
        self.text_bytes_kept += other.text_bytes_kept;
        self.text_bytes_dropped += other.text_bytes_dropped;
        self.peak_state_bytes = self.peak_state_bytes.max(other.peak_state_bytes);
        self.batches += other.batches;
        self.peak_batch_bytes = self.peak_batch_bytes.max(other.peak_batch_bytes);
        self.batch_seconds += other.batch_seconds;
        for (name, count) in other.counters {
            let entry = self.counters.entry(name.clone()).or_default();
            *entry = if name.contains("peak") {
                (*entry).max(count)
            } else {
                *entry + count
            };
        }
    }
}

/// The input's pages by URL, read again from where the first pass found them.
struct InputPages<'a> {
    inputs: &'a InputSet,
    /// Where each page lies, and the URL its record has, by URL as stored and as linked.
    locations: FxHashMap<String, (RecordLocation, String)>,
    limits: SegmentLimits,
    options: SegmentOptions,
}

impl PageSource for InputPages<'_> {
    fn load(&self, url: &str) -> Option<SegmentedPage> {
        let (location, stored_url) = self.locations.get(url)?;
        let record = self.inputs.record_at(*location, stored_url)?;
        prepare(Ok(record), &self.limits, self.options)
            .ok()
            .map(|(page, _, _)| page)
    }
}

/// What a worker made of one record.
enum Prepared<T> {
    Page(SegmentedPage, T),
    Skipped(&'static str),
}

/// A record read, decoded and segmented: the page, its HTML as segmented, and where the
/// record lies.
fn prepare(
    item: Result<Record, Skip>,
    limits: &SegmentLimits,
    options: SegmentOptions,
) -> Result<(SegmentedPage, String, RecordLocation), &'static str> {
    let record = item.map_err(|skip| skip.reason.as_str())?;
    let location = RecordLocation::of(&record);
    // Pages somewhat over the limit are decoded and cut short (and counted as limited); only
    // bodies that decode to far more, such as compression bombs, are skipped as too large.
    let decode_cap = limits.max_page_bytes.saturating_mul(8);
    let mut page = page_from_record(record, decode_cap).map_err(|skip| skip.reason.as_str())?;
    let segmented = segment_with(&page, limits, options).map_err(|_| "html-parser")?;
    let mut html = std::mem::take(&mut page.html);
    html.truncate(segmented.html_bytes);
    Ok((segmented, html, location))
}

/// Pages learned but not yet decided, with their observations, in input order (skips keep
/// their place).
struct Batch<O> {
    items: Vec<Prepared<O>>,
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
                Prepared::Page(page, observation) => {
                    let keep = detector.decide(&page, &observation, pages);
                    Prepared::Page(page, keep)
                }
                Prepared::Skipped(reason) => Prepared::Skipped(reason),
            })
        },
        |decided| tally_and_emit(tally, decided, emit),
    )?;
    tally.batch_seconds += started.elapsed().as_secs_f64();
    Ok(())
}

/// A page with its observation and where its record lies.
struct Observed<O> {
    observation: O,
    location: RecordLocation,
}

fn observe<D: Detector>(
    item: Result<Record, Skip>,
    limits: &SegmentLimits,
    options: SegmentOptions,
    detector: &RwLock<D>,
) -> Prepared<Observed<D::Observation>> {
    match prepare(item, limits, options) {
        Ok((page, html, location)) => {
            let observation = read_lock(detector).observe(&page, &html);
            Prepared::Page(
                page,
                Observed {
                    observation,
                    location,
                },
            )
        }
        Err(reason) => Prepared::Skipped(reason),
    }
}

fn run_with<D: Detector>(
    detector: D,
    inputs: &InputSet,
    options: &BuildOptions,
    source: RecordSource<'_>,
    progress: &dyn Progress,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    let started = Instant::now();
    let pipeline = Pipeline::new(options.threads);
    let limits = &options.limits;
    let stopped = || {
        options
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
    };
    let records = || source.records().take_while(|_| !stopped());
    let label = source.label();
    let segment_options = detector.segment_options();
    let mut tally = BuildSummary {
        detector: detector.name().to_string(),
        settings: detector.settings(),
        threads: pipeline.workers(),
        input_bytes: inputs.total_bytes(),
        ..BuildSummary::default()
    };

    match detector.passes() {
        Passes::Two => {
            tally.passes = 2;
            let loads_pages = detector.loads_pages();
            let detector = RwLock::new(detector);
            let mut batch = Batch::new();
            let mut pages = InputPages {
                inputs,
                locations: FxHashMap::default(),
                limits: *limits,
                options: segment_options,
            };
            progress.start_pass(&format!("{label}learning and deciding"));
            pipeline.run(
                records(),
                |item| Ok(observe(item, limits, segment_options, &detector)),
                |prepared| {
                    match prepared {
                        Prepared::Page(mut page, observed) => {
                            progress.record_done(page.html_bytes);
                            if loads_pages {
                                // By the URL as stored and as links to it are written.
                                let normalized = normalized_url(&page.url);
                                let found = (observed.location, page.url.clone());
                                if normalized != page.url {
                                    pages
                                        .locations
                                        .entry(normalized)
                                        .or_insert_with(|| found.clone());
                                }
                                pages.locations.entry(page.url.clone()).or_insert(found);
                            }
                            let observation = observed.observation;
                            let mut detector = write_lock(&detector);
                            detector.learn(&observation);
                            page.forget_words();
                            batch.bytes +=
                                page.heap_bytes() + detector.observation_bytes(&observation);
                            batch.items.push(Prepared::Page(page, observation));
                        }
                        Prepared::Skipped(reason) => {
                            progress.record_done(0);
                            batch.items.push(Prepared::Skipped(reason));
                        }
                    }
                    if batch.bytes >= options.batch_memory {
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
            tally.counters = detector.counters();
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
                            let keep = detector.decide(&page, &observed.observation, &NoPages);
                            detector.learn(&observed.observation);
                            pages += 1;
                            if pages.is_multiple_of(256) {
                                tally.peak_state_bytes =
                                    tally.peak_state_bytes.max(detector.state_bytes() as u64);
                            }
                            Prepared::Page(page, keep)
                        }
                        Prepared::Skipped(reason) => {
                            progress.record_done(0);
                            Prepared::Skipped(reason)
                        }
                    };
                    tally_and_emit(&mut tally, decided, emit)
                },
            )?;
            let detector = read_lock(&detector);
            tally.peak_state_bytes = tally.peak_state_bytes.max(detector.state_bytes() as u64);
            tally.counters = detector.counters();
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
    prepared: Prepared<Vec<bool>>,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    tally.records += 1;
    match prepared {
        Prepared::Skipped(reason) => {
            *tally.skipped.entry(reason.to_string()).or_default() += 1;
            Ok(())
        }
        Prepared::Page(page, keep) => {
            tally.pages += 1;
            tally.html_bytes += page.html_bytes as u64;
            if let Some(limit) = page.limited {
                *tally.limited.entry(limit.as_str().to_string()).or_default() += 1;
            }
            for (block, &kept) in page.blocks.iter().zip(&keep) {
                if kept {
                    tally.blocks_kept += 1;
                    tally.text_bytes_kept += block.text.len() as u64;
                } else {
                    tally.blocks_dropped += 1;
                    tally.text_bytes_dropped += block.text.len() as u64;
                }
            }
            emit(DecidedPage { page, keep })
        }
    }
}

fn read_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockReadGuard<'_, D> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockWriteGuard<'_, D> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_group_buckets_in_order_within_the_state_budget() {
        let (round_of_bucket, rounds) = plan_rounds(&[40, 0, 50, 30, 100, 10], 1.0, 100.0);
        assert_eq!(rounds, 4);
        assert_eq!(round_of_bucket, [0, 0, 0, 1, 2, 3]);
        let (_, one) = plan_rounds(&[40, 50, 10], 1.0, 100.0);
        assert_eq!(one, 1);
    }

    #[test]
    fn a_budget_not_met_is_reported() {
        let mib = 1 << 20;
        let summary = |peak_mib: u64| BuildSummary {
            peak_state_bytes: peak_mib << 20,
            rounds: 4,
            ..BuildSummary::default()
        };
        assert!(budget_warnings(&summary(100), 512 * mib, 200 * mib).is_empty());
        assert!(budget_warnings(&summary(312), 512 * mib, 200 * mib).is_empty());
        let over = budget_warnings(&summary(313), 512 * mib, 200 * mib);
        assert!(
            over[0].contains("313 MiB of detector state at peak (4 rounds)"),
            "{over:?}"
        );
        let fixed = budget_warnings(&summary(0), 128 * mib, 150 * mib);
        assert!(
            fixed[0].contains("below the build's fixed costs of about 150 MiB"),
            "{fixed:?}"
        );
    }
}
