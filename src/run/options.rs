//! Options: what the caller asks of a run, set once before it starts and never changed by
//! it (what follows from them and the input is the [`super::RunPlan`]), and the progress
//! callback a run reports to.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::detect::{DetectorKind, DetectorSettings};
use crate::read::InputOptions;
use crate::segment::SegmentLimits;

/// The detector of a build that names none: `hybrid` beats `bloom` on every shared corpus,
/// on sites it was not trained on (see docs/DETECTORS.md).
pub const DEFAULT_DETECTOR: DetectorKind = DetectorKind::Hybrid;

/// The detector of a one-pass build that names none: in one pass too, `hybrid` (with its
/// one-pass model) beats `incremental` and `sandwich` on every shared corpus (see docs/DETECTORS.md).
pub const DEFAULT_ONE_PASS_DETECTOR: DetectorKind = DetectorKind::Hybrid;

/// How to run a build or an extraction.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Which detector decides.
    pub detector: DetectorKind,
    /// Every detector's settings; the run uses those of [`detector`](Self::detector).
    pub settings: DetectorSettings,
    /// Segmenting worker threads.
    pub threads: usize,
    /// Detectors that decide site by site: threads that learn the pages (in one pass, decide
    /// and learn them), each holding its share of the sites (0: one per 8 segmenting threads
    /// in two passes, one per 2 in one pass). The output is the same whatever their number.
    pub learning_threads: usize,
    /// Per-page limits.
    pub limits: SegmentLimits,
    /// How the inputs are read (base URL of folders' pages, walking folders).
    pub input: InputOptions,
    /// Two-pass detectors: bytes of learned pages held in memory while they wait for their
    /// decision; when reached, the waiting pages are decided with what has been learned so far.
    /// A run holds at most an eighth of [`memory_budget`](Self::memory_budget).
    pub batch_memory: usize,
    /// Bytes of memory the run may use for detector state, pages waiting for their decision
    /// and the index writer. When the input could need more, sites are split by a hash of
    /// their host into rounds, each handling only its own sites (see [`super::rounds`]).
    pub memory_budget: usize,
    /// Read the input once, whatever the memory budget: no rounds (`build --one-pass`; the
    /// one-pass detectors bound their state per site themselves).
    pub one_pass: bool,
    /// Set (by a signal handler, say) to stop the run: no more records are read and the run
    /// ends with [`super::BuildError::Interrupted`], leaving any previous index as it was.
    pub stop: Option<Arc<AtomicBool>>,
    /// The command line (or whatever the caller wants kept) recorded in the summary.
    pub command_line: Vec<String>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            detector: DEFAULT_DETECTOR,
            settings: DetectorSettings::default(),
            threads: std::thread::available_parallelism().map_or(2, usize::from),
            learning_threads: 0,
            limits: SegmentLimits::default(),
            input: InputOptions::default(),
            batch_memory: 1 << 30,
            memory_budget: 2 << 30,
            one_pass: false,
            stop: None,
            command_line: Vec::new(),
        }
    }
}

impl BuildOptions {
    /// Refuses options a run cannot honour: `one_pass` with a detector that needs two passes.
    pub fn check(&self) -> Result<(), NeedsOnePassDetector> {
        if self.one_pass && !self.detector.runs_in_one_pass() {
            return Err(NeedsOnePassDetector(self.detector));
        }
        Ok(())
    }

    /// Whether [`stop`](Self::stop) was set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
    }
}

/// A two-pass detector asked for in a one-pass run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--one-pass needs a one-pass detector ({}); {} learns from every page before deciding",
    one_pass_names(),
    .0.name()
)]
pub struct NeedsOnePassDetector(pub DetectorKind);

/// The one-pass detectors, the default first: "incremental, sandwich, none".
fn one_pass_names() -> String {
    std::iter::once(DEFAULT_ONE_PASS_DETECTOR)
        .chain(DetectorKind::one_pass().filter(|&kind| kind != DEFAULT_ONE_PASS_DETECTOR))
        .map(DetectorKind::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The detector a run uses: the one `requested`, or the default for the kind of run. A
/// one-pass run refuses a detector that needs two passes.
pub fn choose_detector(
    requested: Option<DetectorKind>,
    one_pass: bool,
) -> Result<DetectorKind, NeedsOnePassDetector> {
    if !one_pass {
        return Ok(requested.unwrap_or(DEFAULT_DETECTOR));
    }
    let detector = requested.unwrap_or(DEFAULT_ONE_PASS_DETECTOR);
    if detector.runs_in_one_pass() {
        Ok(detector)
    } else {
        Err(NeedsOnePassDetector(detector))
    }
}

/// Progress of one phase of a larger job: every pass named with `prefix` first ("eval, the
/// bloom index: learning and deciding").
pub struct PrefixedProgress<'a> {
    /// Where the progress goes.
    pub inner: &'a dyn Progress,
    /// Put before each pass's name.
    pub prefix: String,
}

impl Progress for PrefixedProgress<'_> {
    fn start_pass(&self, name: &str) {
        self.inner.start_pass(&format!("{}{name}", self.prefix));
    }

    fn record_done(&self, html_bytes: usize) {
        self.inner.record_done(html_bytes);
    }

    fn input_read(&self, position: u64, total: u64) {
        self.inner.input_read(position, total);
    }

    fn finish(&self) {
        self.inner.finish();
    }
}

/// Receives progress of a run; the CLI draws it.
pub trait Progress: Sync {
    /// A pass starts.
    fn start_pass(&self, name: &str);
    /// One record was handled in the current pass; `html_bytes` of HTML were segmented.
    fn record_done(&self, html_bytes: usize);
    /// The pass has read the input up to `position` of its `total` bytes (only when a pass
    /// reads the input itself, not a round's partition files).
    fn input_read(&self, position: u64, total: u64) {
        let _ = (position, total);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detector_follows_the_kind_of_run() {
        assert_eq!(choose_detector(None, false), Ok(DetectorKind::Hybrid));
        assert_eq!(choose_detector(None, true), Ok(DetectorKind::Hybrid));
        let sandwich = Some(DetectorKind::Sandwich);
        assert_eq!(choose_detector(sandwich, true), Ok(DetectorKind::Sandwich));
        let hybrid = Some(DetectorKind::Hybrid);
        assert_eq!(choose_detector(hybrid, true), Ok(DetectorKind::Hybrid));
        let refused = choose_detector(Some(DetectorKind::Menu), true).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "--one-pass needs a one-pass detector (hybrid, sandwich, incremental, none); menu learns \
             from every page before deciding"
        );
    }
}
