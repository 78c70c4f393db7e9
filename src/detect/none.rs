//! The baseline detector: every block is kept.

use super::{Detector, PageSource, Passes, Rule, Verdict};
use crate::segment::SegmentedPage;

/// Keeps everything; what every comparison is made against.
#[derive(Debug, Default)]
pub struct KeepEverything;

/// `none` has no settings (stored in a summary as `{}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoSettings {}

impl Detector for KeepEverything {
    const NAME: &'static str = "none";
    const ABOUT: &'static str = "Keeps every block: the baseline";
    const PASSES: Passes = Passes::One;
    const RULES: &'static [Rule] = &[Rule::KEEPS_EVERYTHING];
    const STATE_PER_HTML_BYTE: f64 = 0.0;

    type Settings = NoSettings;
    type Observation = ();

    fn new(_settings: NoSettings) -> Self {
        KeepEverything
    }

    fn observe(&self, _page: &SegmentedPage, _html: &str) {}

    fn learn(&mut self, _observation: &()) {}

    fn decide(
        &self,
        page: &SegmentedPage,
        _observation: &(),
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        vec![Verdict::kept(Rule::KEEPS_EVERYTHING); page.blocks.len()]
    }

    fn state_bytes(&self) -> usize {
        0
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({})
    }
}
