//! The baseline detector: every block is kept.

use super::{Detector, PageSource, Passes};
use crate::segment::SegmentedPage;

/// Keeps everything; what every comparison is made against.
#[derive(Debug, Default)]
pub struct KeepEverything;

impl Detector for KeepEverything {
    type Observation = ();

    fn name(&self) -> &'static str {
        "none"
    }

    fn passes(&self) -> Passes {
        Passes::One
    }

    fn observe(&self, _page: &SegmentedPage, _html: &str) {}

    fn learn(&mut self, _observation: &()) {}

    fn decide(
        &self,
        page: &SegmentedPage,
        _observation: &(),
        _pages: &dyn PageSource,
    ) -> Vec<bool> {
        vec![true; page.blocks.len()]
    }

    fn state_bytes(&self) -> usize {
        0
    }

    fn state_per_html_byte(&self) -> f64 {
        0.0
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({})
    }
}
