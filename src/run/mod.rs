//! Run: the stages wired into one run — read → prepare (segment, on worker threads) →
//! detect → index or extract — from [`BuildOptions`] and input paths to a tantivy index
//! ([`build_index`]) or to the caller's sink ([`extract`]), with a [`BuildSummary`].
//!
//! | module | in | out |
//! |---|---|---|
//! | [`options`] | what the caller asks | [`BuildOptions`], the detector chosen |
//! | [`plan`] | options and input size | a [`RunPlan`]: threads, memory shares, rounds or not |
//! | [`rounds`] | the input | records split by site into rounds ([`partition`] files) |
//! | [`prepare`] | a record | a segmented page (and pages found again by URL) |
//! | [`engine`] | records of one read | decided pages, one pass or learn-then-decide |
//! | [`summary`] | — | the [`BuildSummary`] (counted by the engine) and [`DecidedPage`] types |
//! | [`allocator`] | — | glibc malloc tuned for the build's threads |
//!
//! The plan is made once, before anything is read, and no stage changes the options.

mod allocator;
mod engine;
mod error;
mod options;
mod partition;
mod plan;
mod prepare;
mod rounds;
mod summary;

pub use error::BuildError;
pub use options::{
    BuildOptions, DEFAULT_DETECTOR, DEFAULT_ONE_PASS_DETECTOR, NeedsOnePassDetector, NoProgress,
    PrefixedProgress, Progress, choose_detector,
};
pub use plan::{Output, RunPlan};
pub use prepare::segment_record;
pub use rounds::{SITE_BUCKETS, bucket_of_site};
pub use summary::{
    BuildSummary, DecidedPage, SkippedRecord, counted, format_skips, human_bytes, utc_timestamp,
};

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::detect::DecisionRecord;
use crate::index::{IndexBuild, IndexedPage};
use crate::read::InputSet;

use engine::Read;
use rounds::{RecordSource, scratch_error, split_into_rounds};

/// The absolute path of input `input`, as an index records where a page came from (`None`
/// for standard input, which cannot be read again).
fn absolute_source(inputs: &InputSet, input: u32) -> Option<String> {
    let path = inputs.path_of(input);
    if path == "-" {
        return None;
    }
    let absolute = std::path::absolute(&path).unwrap_or_else(|_| PathBuf::from(&path));
    Some(absolute.display().to_string())
}

/// Builds (or rebuilds) the index at `index` from `inputs`. The new index replaces the old
/// only when complete.
pub fn build_index(
    inputs: &[PathBuf],
    index: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildSummary, BuildError> {
    let (input_set, started) = begin_run(inputs, options)?;
    let plan = RunPlan::new(options, &input_set, Output::Index);
    let mut writer = IndexBuild::begin(index, plan.index_threads, plan.writer_heap)?;
    let scratch = if plan.rounds {
        // A crawl too large for one round would otherwise have tantivy merge ever larger
        // segments while the rounds run, mapping them back in: on the 32× docs crawl under
        // 512 MiB that took peak RSS to 530–597 MiB, against 465 MiB without merges at the
        // same speed (29 segments).
        writer.hold_merges();
        Some(writer.scratch_dir().map_err(scratch_error(index))?)
    } else {
        None
    };
    let mut sources = rustc_hash::FxHashMap::default();
    let mut summary = run(
        &input_set,
        options,
        &plan,
        scratch,
        progress,
        &mut |decided: DecidedPage| {
            let body = decided.kept_text();
            let kept = decided.kept_blocks();
            let decisions = DecisionRecord::of(&decided.verdicts).to_bytes();
            let (kept_text_bytes, dropped_text_bytes) = decided.text_bytes();
            let source = sources
                .entry(decided.location.input)
                .or_insert_with(|| absolute_source(&input_set, decided.location.input));
            writer.add(&IndexedPage {
                url: &decided.page.url,
                site: &decided.page.site,
                title: &decided.page.title,
                body: &body,
                kept_blocks: kept,
                dropped_blocks: decided.verdicts.len() as u64 - kept,
                source: source.as_deref(),
                source_offset: decided.location.offset,
                decisions: &decisions,
                kept_text_bytes,
                dropped_text_bytes,
            })?;
            Ok(())
        },
    )?;
    finish_summary(&mut summary, inputs, &input_set, options, started);
    if options.stopped() {
        return Err(BuildError::Interrupted);
    }
    if summary.pages == 0 {
        return Err(BuildError::NoPages {
            summary: Box::new(summary),
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
    let (input_set, started) = begin_run(inputs, options)?;
    let plan = RunPlan::new(options, &input_set, Output::Caller);
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
    let mut summary = run(&input_set, options, &plan, scratch, progress, emit)?;
    finish_summary(&mut summary, inputs, &input_set, options, started);
    Ok(summary)
}

/// What every run does first: refuse options it cannot honour, note the time, tune the
/// allocator for its threads and open its inputs.
fn begin_run(
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
fn finish_summary(
    summary: &mut BuildSummary,
    inputs: &[PathBuf],
    input_set: &InputSet,
    options: &BuildOptions,
    started: std::time::SystemTime,
) {
    summary.inputs = display_paths(inputs);
    summary.locate_skips(input_set);
    summary.note_provenance(options, started);
}

fn display_paths(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect()
}

/// Runs detection over `inputs` as `plan` says: one read of the input, or (with a scratch
/// directory) rounds of sites, each a read of its own partition with a fresh detector.
fn run(
    inputs: &InputSet,
    options: &BuildOptions,
    plan: &RunPlan,
    scratch: Option<tempfile::TempDir>,
    progress: &dyn Progress,
    emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
) -> Result<BuildSummary, BuildError> {
    let result = match scratch {
        None => Read {
            inputs,
            options,
            plan,
            source: RecordSource::Input(inputs),
            progress,
            emit,
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
                let part = Read {
                    inputs,
                    options,
                    plan,
                    source: RecordSource::Partition(&partitions, round),
                    progress,
                    emit: &mut *emit,
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
