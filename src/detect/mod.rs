//! Detect: the blocks of a site's pages in, a keep/drop decision per block out.
//!
//! Every detector implements [`Detector`]: an *observe* step that turns one segmented page
//! into what the detector learns from (run on worker threads), a *learn* step that folds
//! observations into per-site statistics (run in input order), and a *decide* step. Whether a
//! build makes one pass or two follows from [`Detector::passes`] and is acted on in one
//! place, [`crate::build`]. Adding a detector means a folder here and a line in
//! [`DetectorKind`].

pub mod bloom;
pub mod none;

use crate::segment::SegmentedPage;

/// How many passes over the input a detector needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Passes {
    /// Learns from every page first, then decides every page.
    Two,
    /// Decides each page as it arrives, then learns from it.
    One,
}

/// A template detector.
pub trait Detector: Send + Sync {
    /// What the learn step takes from one page; made on worker threads.
    type Observation: Send;

    /// The detector's name as given to `--detector`.
    fn name(&self) -> &'static str;

    /// One pass or two.
    fn passes(&self) -> Passes;

    /// Extracts what [`learn`](Self::learn) needs from one page.
    fn observe(&self, page: &SegmentedPage) -> Self::Observation;

    /// Folds one page's observation into the per-site statistics. Called in input order.
    fn learn(&mut self, observation: &Self::Observation);

    /// Whether to keep each block of `page`, in block order. A two-pass detector is asked after
    /// every page was learned (from many threads at once); a one-pass detector before the
    /// page is learned, in input order.
    ///
    /// `observation` is what [`observe`](Self::observe) made of this page. A page waiting for
    /// a two-pass decision keeps its blocks' text but not their word lists: what a detector
    /// needs of the words belongs in its observation.
    fn decide(&self, page: &SegmentedPage, observation: &Self::Observation) -> Vec<bool>;

    /// Approximate bytes held by one observation.
    fn observation_bytes(&self, observation: &Self::Observation) -> usize {
        let _ = observation;
        std::mem::size_of::<Self::Observation>()
    }

    /// Approximate bytes of per-site state held now.
    fn state_bytes(&self) -> usize;

    /// The detector's thresholds, for the build summary.
    fn settings(&self) -> serde_json::Value;
}

/// The detectors `--detector` can name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum DetectorKind {
    /// Chen, Ye & Li (2006): offset signatures within block-style clusters.
    Bloom,
    /// Keeps every block: the baseline.
    None,
}

impl DetectorKind {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            DetectorKind::Bloom => "bloom",
            DetectorKind::None => "none",
        }
    }
}
