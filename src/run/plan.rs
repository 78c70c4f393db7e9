//! Plan: the options and the input's size in, a [`RunPlan`] out — how a run shares its
//! threads and memory budget and whether it splits its sites into rounds, decided once
//! before the run starts and read (never changed) by every stage after.

use crate::detect::Passes;
use crate::index::IndexBuild;
use crate::read::{InputSet, PLACE_BYTES};
use crate::report::BuildSummary;
use crate::run::{BuildOptions, RenderedAhead, TextForm};

/// Memory the run needs besides detector state and waiting pages (buffers, pages in flight
/// on the workers), bytes, with up to [`THREADS_IN_BASE_MEMORY`] segmenting threads.
const BASE_MEMORY: usize = 96 << 20;

/// Segmenting threads whose memory [`BASE_MEMORY`] holds.
const THREADS_IN_BASE_MEMORY: usize = 2;

/// Memory each segmenting thread past [`THREADS_IN_BASE_MEMORY`] adds: its page in flight,
/// its buffers (a record's inflated bytes, the parser's), bytes. A docs build under a
/// 128 MiB budget peaked 2.4 MiB higher a thread between 4 and 32 threads, 1.9 MiB between
/// 4 and 64 (docs/MEASUREMENTS.md, "Two-pass memory").
const MEMORY_PER_THREAD: usize = 5 << 19;

/// HTML bytes per input byte assumed before any input is measured: gzip compresses HTML
/// rarely better than this.
const ASSUMED_EXPANSION: f64 = 8.0;

/// What a run writes its pages to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A tantivy index: its writer takes threads and part of the memory budget.
    Index,
    /// The caller's sink (`extract`): nothing reserved, and each page prepared on the
    /// workers as the caller says it will ask for it.
    Caller(RenderedAhead),
}

/// How a run uses its threads and memory, resolved once from the options and the input.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// Segmenting worker threads.
    pub threads: usize,
    /// Threads that learn a two-pass read, or decide and learn a one-pass one, each with a
    /// detector of its own holding its share of the sites: more than one only for a detector
    /// that decides site by site ([`BuildOptions::learning_threads`]; by default one per 8
    /// segmenting threads in two passes, where learning is a small part of the work, and one
    /// per 2 in one pass, where deciding was a third of an `extract`'s CPU).
    pub learning_threads: usize,
    /// Threads of the index writer (0 when extracting). A two-pass detector that decides
    /// all pages at the end indexes after they are parsed, so the writer gets every core; one
    /// that decides each site as soon as its pages are read, and one-pass runs, parse and
    /// index at once and share them.
    pub index_threads: usize,
    /// Bytes the index writer buffers (0 when extracting).
    pub writer_heap: usize,
    /// What a two-pass read renders of each page where it decides the page, on the workers,
    /// rather than leaving it to the caller's sink on the one thread that receives pages in
    /// order: the kept text for an index build, which indexes it for every page; what the
    /// caller says for any other.
    pub rendered_ahead: RenderedAhead,
    /// Whether the kept text is only ever written as lines, never as Markdown (an index
    /// build): a page waiting for a two-pass decision then lets go of what only Markdown
    /// writes, its links' targets ([`crate::segment::Layout::pack`]).
    pub writes_lines_only: bool,
    /// Bytes of pages held waiting for a two-pass decision: the asked batch memory, at most
    /// an eighth of the budget.
    pub batch_memory: usize,
    /// Bytes taken before any detector state: the batch, the index writer and a base.
    pub fixed: usize,
    /// Bytes left for detector state.
    pub state_budget: f64,
    /// The detector's expected state per HTML byte.
    pub per_html_byte: f64,
    /// One pass over the input or two: the detector's own, or one under `one_pass` (the one
    /// place this is decided; [`choose_detector`](super::choose_detector) has refused a
    /// detector that cannot run in one pass).
    pub passes: Passes,
    /// Places a two-pass read that counts each site's records first may note of where they
    /// lie ([`RecordPlaces`](crate::read::RecordPlaces)), at most: a sixteenth of the
    /// budget, 0 for any other read. Not reserved in [`fixed`](Self::fixed): they are few
    /// beside the detector state the same records make (8 bytes a record, against
    /// [`per_html_byte`](Self::per_html_byte) of each of its bytes), and a run in rounds,
    /// the one the state budget decides, keeps none.
    pub most_places: usize,
    /// Whether the sites are split into rounds: the input might need more state than
    /// `state_budget` (never under `one_pass`).
    pub rounds: bool,
}

impl RunPlan {
    /// The plan for a run of `options` over `inputs` writing to `output`.
    pub fn new(options: &BuildOptions, inputs: &InputSet, output: Output) -> Self {
        let threads = options.threads.max(1);
        let passes = if options.one_pass {
            Passes::One
        } else {
            options.detector.passes()
        };
        let (index_threads, writer_heap) = match output {
            Output::Caller(_) => (0, 0),
            Output::Index => {
                let indexes_while_parsing =
                    passes == Passes::One || options.detector.decides_site_by_site();
                let wanted = if indexes_while_parsing {
                    (threads / 2).max(1)
                } else {
                    threads
                };
                let index_threads = IndexBuild::writer_threads(wanted, options.memory_budget);
                let heap = IndexBuild::heap_bytes(index_threads, options.memory_budget);
                (index_threads, heap)
            }
        };
        let batch_memory = options
            .batch_memory
            .min(options.memory_budget / 8)
            .max(1 << 20);
        let counts_sites_first = passes == Passes::Two && options.detector.decides_site_by_site();
        let places_memory = if counts_sites_first {
            options.memory_budget / 16
        } else {
            0
        };
        let fixed = batch_memory
            + writer_heap
            + BASE_MEMORY
            + threads.saturating_sub(THREADS_IN_BASE_MEMORY) * MEMORY_PER_THREAD;
        let state_budget = options.memory_budget.saturating_sub(fixed).max(1 << 20) as f64;
        let per_html_byte = options.detector.state_per_html_byte();
        let estimate = inputs.total_bytes() as f64 * ASSUMED_EXPANSION * per_html_byte;
        let rounds = per_html_byte > 0.0 && estimate > state_budget && !options.one_pass;
        let learning_threads = match options.learning_threads {
            _ if !options.detector.decides_site_by_site() => 1,
            0 if passes == Passes::One => threads.div_ceil(2),
            0 => threads.div_ceil(8),
            chosen => chosen,
        };
        RunPlan {
            threads,
            learning_threads,
            index_threads,
            writer_heap,
            rendered_ahead: match output {
                Output::Index => RenderedAhead::KeptText(TextForm::Lines),
                Output::Caller(rendered_ahead) => rendered_ahead,
            },
            writes_lines_only: output == Output::Index,
            batch_memory,
            most_places: places_memory / PLACE_BYTES,
            fixed,
            state_budget,
            per_html_byte,
            passes,
            rounds,
        }
    }

    /// Says where a run's measured memory did not fit the budget: the fixed costs alone
    /// (index writer buffers, pages waiting and in flight) or, with the largest detector
    /// state a round held, more than the budget. One site's state cannot be split across
    /// rounds, so a budget below the largest site's state is not met.
    pub fn budget_warnings(&self, summary: &BuildSummary, budget: usize) -> Vec<String> {
        budget_warnings(summary, budget, self.fixed)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_budget_on_many_cores_indexes_on_fewer_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = crate::run::test_support::write_warc(dir.path(), "input.warc", &[]);
        let inputs = InputSet::open(&[path], None).unwrap();
        let plan = |threads, budget_mib: usize| {
            let options = BuildOptions {
                threads,
                memory_budget: budget_mib << 20,
                ..BuildOptions::default()
            };
            RunPlan::new(&options, &inputs, Output::Index)
        };
        // Under the default budget half the threads index (`hybrid` decides site by site),
        // at most eight.
        assert_eq!(plan(2, 2048).index_threads, 1);
        assert_eq!(plan(16, 2048).index_threads, 8);
        assert_eq!(plan(64, 2048).index_threads, 8);
        // The writer's eighth of 512 MiB holds four threads' least buffers, of 128 MiB one.
        assert_eq!(plan(16, 512).index_threads, 4);
        let small = plan(16, 128);
        assert_eq!(small.index_threads, 1);
        assert!(small.writer_heap <= 16 << 20, "{}", small.writer_heap);
        // Each thread past two is counted in the fixed costs.
        assert_eq!(small.fixed, plan(2, 128).fixed + 14 * MEMORY_PER_THREAD);
        assert_eq!(plan(1, 128).fixed, plan(2, 128).fixed);
        // A sixteenth of the budget holds the places of a read that counts sites first.
        assert_eq!(plan(2, 2048).most_places, (2048 << 20) / 16 / PLACE_BYTES);
        let none = BuildOptions {
            detector: crate::detect::DetectorKind::None,
            ..BuildOptions::default()
        };
        let without_count = RunPlan::new(&none, &inputs, Output::Index);
        assert_eq!(without_count.most_places, 0);
        assert_eq!(plan(2, 2048).fixed, without_count.fixed);
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
